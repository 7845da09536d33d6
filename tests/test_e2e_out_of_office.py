"""An out-of-office reply to a confirmation request neither confirms nor declines it, even
without the standard auto-reply headers (Auto-Submitted, X-Autoreply, Precedence): replies
to a request are decided by their first line (NO declines), and "Not in the office until
Monday" declined its owner's own sign-on. Out-of-office replies are known by their subject
("Automatic reply:", "Out of Office:", "Abwesenheitsnotiz:"...) or their first line ("I am
out of the office", "Not in the office until...") and not answered; a plain "No" still
declines. Through the real mail servers."""

from __future__ import annotations

from gmkit import (
    open_game,
    seats,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)

# (subject, body) of replies as responders without the standard headers write them
OUT_OF_OFFICE = [
    ("Re: join", "Not in the office until Monday.\nI will read your mail when I am back."),
    ("Automatic reply: join", "Thanks for your message. I am away and will answer soon."),
    ("Out of Office: join", "Back on 1 December."),
    ("Abwesenheitsnotiz: join", "Ich bin bis zum 1. Dezember nicht im Büro."),
    ("Re: join", "I am out of the office until Monday 30 November with no access to mail."),
    ("Autoreply: join", "No access to email until Monday."),
    ("Re: join", "Thank you for your email. I am currently out of the office."),
    ("Re: join", "Automatic reply: I'm on annual leave."),
]


def test_an_out_of_office_reply_neither_confirms_nor_declines(judge):
    powers = ["Italy", "France", "England", "Germany", "Austria", "Russia", "Turkey"]
    for k, (subject, body) in enumerate(OUT_OF_OFFICE):
        g, who, power = f"oo{k}", f"away{k}@elsewhere.test", powers[k % len(powers)]
        open_game(judge, g)
        judge.send(who, f"JOIN {g} {power} pw-{k}", subject="join")
        [asked] = to(judge.pump(), who)
        judge.send(who, body, subject=subject, In_Reply_To=asked["Message-ID"])
        assert not to(judge.pump(), who), (subject, body)  # not answered: a responder
        assert seats(judge, g) == {}, (subject, body)  # not confirmed
        judge.send(who, "yes", subject="Re: join", In_Reply_To=asked["Message-ID"])
        [done] = to(judge.pump(), who)  # nor declined: the owner's YES still does it
        assert f"You have joined game {g} as {power}" in done.flat, (subject, body, done.body)


def test_a_plain_no_still_declines(judge):
    for k, body in enumerate(["No", "No, this wasn't me", "Not me."]):
        g, who = f"on{k}", f"refuser{k}@elsewhere.test"
        open_game(judge, g)
        judge.send(who, f"JOIN {g} Italy pw-{k}", subject="join")
        [asked] = to(judge.pump(), who)
        judge.send(who, body, subject="Re: join", In_Reply_To=asked["Message-ID"])
        [declined] = to(judge.pump(), who)
        assert "Declined" in declined.flat, (body, declined.body)
        assert seats(judge, g) == {}


def test_mail_whose_subject_is_an_auto_reply_is_not_answered(judge):
    """A responder's reply to any of the judge's mail (a report, a reply) is not answered
    either: each answer to it could draw another."""
    judge.send("away@elsewhere.test", "HELP", subject="Automatic reply: Re: help")
    assert not to(judge.pump(), "away@elsewhere.test")
    judge.send("back@elsewhere.test", "HELP", subject="Re: help")  # a person's reply is
    assert to(judge.pump(), "back@elsewhere.test")
