"""Issue 23's leftovers (session 30), through the real mail servers: one mailbox however its
domain is spelt (IDN, punycode, non-ASCII case), what a reply to a confirmation request says
(yes confirms, no declines), a request folded into a digest confirmed by replying to the
digest, and a user's word quoted back cut short."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from gmkit import FakeClock, LiveJudge, to
from mailkit import send_smtp, unique


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False)
    yield j
    j.close()


def open_game(j: LiveJudge, g: str) -> None:
    j.send(f"gm.{g}@players.test", f"CREATE {g} gm-{g}\nOPEN")
    j.pump()


def players(j: LiveJudge, g: str) -> dict[str, str]:
    return {p["power"]: p["address"] for p in j.store.players(j.game(g)["id"])}


def code(reply) -> str:
    m = re.search(r"CONFIRM (\w{16})", reply.flat)
    assert m, reply.body
    return m.group(1)


def send_utf8(j: LiveJudge, frm: str, body: str, subject: str = "") -> None:
    """A mail whose From is an internationalised address (RFC 6532: UTF-8 in the header),
    from an ASCII envelope sender (the test relay has no SMTPUTF8)."""
    raw = (f"From: {frm}\r\nTo: {j.address}\r\nSubject: {subject or unique('m')}\r\n"
           f"Message-ID: <{unique('u')}@players.test>\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
           f"\r\n{body}\r\n").encode()
    send_smtp(j.env["MAILTEST_HOST"], int(j.env["MAILTEST_SMTP_PORT"]), frm, j.address, raw,
              mail_from="bounces@players.test")
    j.expected += 1


# ------------------------------------------------------------------ one mailbox
PUNY = "bob@xn--bcher-kva.example"


def test_an_idn_domain_and_its_punycode_are_one_mailbox(judge):
    """``bob@xn--bcher-kva.example``, ``bob@bücher.example`` and ``bob@BÜCHER.example`` are
    one host's one mailbox: a forged sign-on from each spelling asked it once (SQLite's
    NOCASE folds ASCII only, so each spelling had its own one-request-a-day), and the code
    answered from any spelling confirms them all, seated at the one address mailed."""
    for g in ("idn1", "idn2", "idn3"):
        open_game(judge, g)
    judge.send(PUNY, "JOIN idn1 Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), PUNY)
    send_utf8(judge, "bob@bücher.example", "JOIN idn2 France pw-france")
    send_utf8(judge, "Bob <bob@BÜCHER.Example>", "JOIN idn3 Russia pw-russia")
    assert judge.pump() == []  # they wait with the first: one request a day to the mailbox
    send_utf8(judge, "bob@Bücher.example", f"CONFIRM {code(asked)}")
    [done] = judge.pump()
    assert done.rcpt == PUNY  # the spelling recorded is the one every server delivers
    assert "You have joined game idn1 as Italy" in done.flat, done.body
    assert "You have joined game idn3 as Russia" in done.flat, done.body
    assert [players(judge, g) for g in ("idn1", "idn2", "idn3")] == [
        {"ITALY": PUNY}, {"FRANCE": PUNY}, {"RUSSIA": PUNY}]


# ------------------------------------------------------------------ a word quoted back
def test_a_word_the_judge_does_not_know_is_quoted_back_cut_short(judge):
    """``LIST <50 KB name>`` quoted the name whole in its error (the line itself is quoted
    cut to 200 characters): a forged mail made the judge mail a victim up to reply_max_bytes
    of the attacker's text. Every error quotes a user's word cut to 40 characters."""
    judge.send("gm.cut1@players.test", "CREATE cut1 gm-cut1\nOPEN")
    judge.pump()
    huge = "Z" + "q" * 50_000
    judge.send("w@players.test", f"LIST {huge}\nOBSERVE cut1x{huge}\nLIST cut1 {huge}\n"
               f"MASTER cut1 gm-cut1\nSET ZONE {huge}\nSET DEADLINE {huge}")
    [reply] = to(judge.pump(), "w@players.test")
    longest = max(len(m) for m in re.findall(r"Zq+|q{20,}", reply.body))
    assert longest <= 200, longest  # the quoted lines, at most
    assert len(reply.body) < 4000, reply.body[:3000]


# ------------------------------------------------------------------ answering a request
NEWBIE = "newbie@elsewhere.test"


def test_a_reply_saying_no_declines_and_an_unclear_one_is_told_how(judge):
    """Any reply to a confirmation request confirmed it, "No, I never asked for this" too:
    the person who did not ask was signed up. Now its first line decides: YES (or nothing)
    confirms, NO drops the request, anything else is told how to confirm."""
    for g in ("yn1", "yn2"):
        open_game(judge, g)
    judge.send(NEWBIE, "OBSERVE yn1", subject="watch")
    [asked] = to(judge.pump(), NEWBIE)
    assert "reply YES to this mail" in asked.flat and "reply NO" in asked.flat, asked.body
    judge.send(NEWBIE, "No, I never asked for this.\n\n> " + asked.body.splitlines()[0],
               subject="Re: watch", In_Reply_To=asked["Message-ID"])
    [declined] = to(judge.pump(), NEWBIE)
    assert "Declined: nothing was done" in declined.flat, declined.body
    assert not judge.store.all("SELECT * FROM observers")
    judge.send(NEWBIE, f"CONFIRM {code(asked)}")  # the request is gone
    [late] = to(judge.pump(), NEWBIE)
    assert "is not a confirmation code" in late.flat and not judge.store.all(
        "SELECT * FROM observers")

    judge.send(NEWBIE, "JOIN yn2 Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, "what is this about?", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [unclear] = to(judge.pump(), NEWBIE)
    assert "Not confirmed" in unclear.flat and "reply YES" in unclear.flat, unclear.body
    assert players(judge, "yn2") == {}
    judge.send(NEWBIE, "Yes, that was me.", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), NEWBIE)
    assert "You have joined game yn2 as Italy" in done.flat, done.body
    assert players(judge, "yn2") == {"ITALY": NEWBIE}


def test_a_request_folded_into_a_digest_is_confirmed_by_replying_to_the_digest(
        judge_mailbox, smtp_sink, tmp_path):
    """The per-address mail ceiling folds the reply carrying a confirmation request into a
    digest: that reply never went out, so nothing could answer it, and only CONFIRM <code>
    worked. The digest carries the request: replying YES to it confirms."""
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False,
                  mail_per_hour=2)
    try:
        open_game(j, "dg1")
        for k in range(2):  # the two mails of the hour
            j.send(NEWBIE, "HELP", subject=f"help {k}")
            assert len(to(j.pump(), NEWBIE)) == 1
        j.send(NEWBIE, "JOIN dg1 Italy pw-italy", subject="join")
        assert to(j.pump(), NEWBIE) == []  # held for the digest
        [digest] = [m for _, m in j.advance(j.clock() + timedelta(minutes=11))
                    if m.rcpt == NEWBIE]
        assert digest.subject.startswith("[DIGEST]") and "CONFIRM" in digest.flat
        j.advance(j.clock() + timedelta(hours=1))  # the ceiling's hour is over
        j.send(NEWBIE, "yes", subject="Re: digest", In_Reply_To=digest["Message-ID"])
        [done] = to(j.pump(), NEWBIE)
        assert "You have joined game dg1 as Italy" in done.flat, done.body
        assert players(j, "dg1") == {"ITALY": NEWBIE}
    finally:
        j.close()
