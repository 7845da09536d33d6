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

# (subject, body) of replies as responders without the standard headers write them, known
# by what only a responder writes: its subject, or its prefix on the first line
OUT_OF_OFFICE = [
    ("Automatic reply: join", "Thanks for your message. I am away and will answer soon."),
    ("Out of Office: join", "Back on 1 December."),
    ("Abwesenheitsnotiz: join", "Ich bin bis zum 1. Dezember nicht im Büro."),
    ("Autoreply: join", "No access to email until Monday."),
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


# replies people write that mention being away: no responder's subject, no header says
# they are automatic, so each is answered (not confirmed, not declined, told how to)
PEOPLE_AWAY = [
    # a responder's text under a plain "Re:" reads like a person's: "Not" is no NO there
    "Not in the office until Monday.\nI will read your mail when I am back.",
    "I am out of the office until Monday 30 November with no access to mail.",
    "Thank you for your email. I am currently out of the office.",
    "I'm away this weekend, but yes, sign me up",
    "Out of office? no, here are my orders",
    "I am travelling until Friday - please count me in",
]


def test_a_person_who_mentions_being_away_is_answered(judge):
    for k, body in enumerate(PEOPLE_AWAY):
        g, who = f"pa{k}", f"traveller{k}@elsewhere.test"
        open_game(judge, g)
        judge.send(who, f"JOIN {g} Italy pw-{k}", subject="join")
        [asked] = to(judge.pump(), who)
        judge.send(who, body, subject="Re: join", In_Reply_To=asked["Message-ID"])
        [told] = to(judge.pump(), who)  # a person's mail always gets a reply
        assert "Not confirmed" in told.flat and "reply YES" in told.flat, (body, told.body)
        assert seats(judge, g) == {}, body  # nor confirmed
        judge.send(who, "yes", subject="Re: join", In_Reply_To=asked["Message-ID"])
        [done] = to(judge.pump(), who)  # nor declined
        assert f"You have joined game {g} as Italy" in done.flat, (body, done.body)


def test_a_game_named_like_an_absence_still_reads_its_replies(judge):
    """The subject of a reply to a request quotes the request's, game name and all: a game
    named 'out-of-office' made every reply to its requests that was not YES or NO an
    out-of-office reply, unanswered, and an empty reply (which confirms) confirmed nothing."""
    g, who = "out-of-office", "newcomer@elsewhere.test"
    open_game(judge, g)
    judge.send(who, f"JOIN {g} Italy pw-1", subject=f"JOIN {g}")
    [asked] = to(judge.pump(), who)
    judge.send(who, "Looking forward to it", subject=f"Re: JOIN {g}", In_Reply_To=asked["Message-ID"])
    [told] = to(judge.pump(), who)
    assert "Not confirmed" in told.flat, told.body
    judge.send(who, "", subject=f"Re: JOIN {g}", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), who)  # an empty reply confirms
    assert f"You have joined game {g} as Italy" in done.flat, done.body


def test_a_players_subject_that_starts_with_auto_is_read(judge):
    """'AUTO:' is what Lotus Notes puts before its out-of-office text ('AUTO: Jane Doe is out
    of the office'); a game may be named auto, and its players' mail 'auto: orders' is theirs."""
    g, who = "auto", "driver@elsewhere.test"
    open_game(judge, g)
    judge.send(who, f"JOIN {g} Italy pw-1", subject="auto: join")
    [asked] = to(judge.pump(), who)  # not silently dropped
    assert "CONFIRM" in asked.flat, asked.body
    judge.send("lotus@elsewhere.test", "HELP",
               subject="AUTO: Jane Doe is out of the office (returning 01/12/2026)")
    assert not to(judge.pump(), "lotus@elsewhere.test")
