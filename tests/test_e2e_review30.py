"""Session 30's independent review, through the real mail servers: what a reply to a
confirmation request answers, attacked as a forger would use it."""

from __future__ import annotations

import re
from datetime import timedelta

from gmkit import (
    FakeClock,
    LiveJudge,
    confirm_code,
    open_game,
    seats,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)

VICTIM = "victim@elsewhere.test"


def test_a_no_to_a_forged_sign_on_keeps_the_victims_own(judge):
    """A NO to a confirmation request dropped every sign-on waiting for the address: a
    forger who JOINs in a new player's name, a day after the player's own JOIN, gets the
    player's honest 'No, I never asked for this' to drop the player's own sign-on too (and
    the player's later YES to its own request is not understood). A NO drops only what its
    request asked for, as a YES confirms only that (d4dc725)."""
    for g in ("rv1", "rv2"):
        open_game(judge, g)
    judge.send(VICTIM, "JOIN rv1 Italy pw-victim", subject="join")
    [own] = to(judge.pump(), VICTIM)
    assert "Not yet done" in own.flat, own.body
    judge.clock.set(judge.clock() + timedelta(hours=25))
    judge.send(VICTIM, "JOIN rv2 France pw-forger", subject="join too")  # forged
    [forged] = to(judge.pump(), VICTIM)
    assert "Not yet done" in forged.flat and confirm_code(forged) != confirm_code(own), forged.body
    judge.send(VICTIM, "No, I never asked for this.", subject="Re: join too",
               In_Reply_To=forged["Message-ID"])
    [declined] = to(judge.pump(), VICTIM)
    assert "Declined" in declined.flat, declined.body
    judge.send(VICTIM, "Yes", subject="Re: join", In_Reply_To=own["Message-ID"])
    [done] = to(judge.pump(), VICTIM)
    assert "You have joined game rv1 as Italy" in done.flat, done.body
    assert seats(judge, "rv1") == {"ITALY": VICTIM}
    assert seats(judge, "rv2") == {}


NEWBIE = "newbie@elsewhere.test"


def test_a_yes_to_a_digest_does_not_confirm_a_forged_request_folded_beside_ones_own(
        judge_mailbox, smtp_sink, tmp_path):
    """The ceiling folds the replies of several mails into one digest, each request moved to
    the digest's Message-ID: a YES to it confirmed them all. A forger's JOIN in a player's
    name, folded beside the player's own OBSERVE, seated the player with the forger's
    password when it answered its own request (what d4dc725 stopped for CONFIRM <code>). A
    reply to a digest carrying the requests of several mails confirms none: each is
    confirmed by its code."""
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False,
                  mail_per_hour=2)
    try:
        open_game(j, "dg1")
        open_game(j, "dg2")
        for k in range(2):  # the two mails of the hour
            j.send(NEWBIE, "HELP", subject=f"help {k}")
            assert len(to(j.pump(), NEWBIE)) == 1
        j.send(NEWBIE, "JOIN dg1 France pw-forger", subject="forged")
        assert to(j.pump(), NEWBIE) == []  # held for the digest
        j.send(NEWBIE, "OBSERVE dg2", subject="watch")
        assert to(j.pump(), NEWBIE) == []
        [digest] = [m for _, m in j.advance(j.clock() + timedelta(minutes=11))
                    if m.rcpt == NEWBIE]
        assert "JOIN" in digest.flat or "dg1" in digest.flat, digest.body
        j.advance(j.clock() + timedelta(hours=1))
        j.send(NEWBIE, "yes", subject="Re: digest", In_Reply_To=digest["Message-ID"])
        [answer] = to(j.pump(), NEWBIE)
        assert seats(j, "dg1") == {}, answer.body
        assert "CONFIRM" in answer.flat, answer.body
        obs = re.search(r"CONFIRM (\w{16})\.? Nothing is sent", digest.flat)
        assert obs, digest.body
        j.send(NEWBIE, f"CONFIRM {obs.group(1)}")
        [done] = to(j.pump(), NEWBIE)
        assert "now observes game dg2" in done.flat, done.body
        assert seats(j, "dg1") == {}
    finally:
        j.close()


UTF8_BOB = "bob@bücher.example"


def test_a_player_seated_before_the_canonical_spelling_is_still_its_power(judge):
    """Before 56cba8b the judge stored an internationalised domain as written (lower-cased
    UTF-8); it now reads a sender's as punycode, and compared so, a player seated before the
    upgrade was a stranger to its own power: its SIGNON was a seat moved to a new address,
    waiting for a confirmation, and its orders were not kept. The upgrade writes the
    addresses it stored in the one spelling it now reads."""
    from gmkit import new_game
    from test_e2e_hostile_leftovers import send_utf8
    new_game(judge, "up1")
    s = judge.store
    gid = judge.game("up1")["id"]
    with s.transaction():  # the database as the judge before the upgrade left it
        s.execute("UPDATE players SET address = ? WHERE game_id = ? AND power = 'FRANCE'",
                  (UTF8_BOB, gid))
        s.execute("INSERT INTO confirmed_addresses (address, since, how) VALUES (?, ?, ?)",
                  (UTF8_BOB, "2026-01-01T00:00:00+00:00", "signon"))
        s.db.conn.execute("PRAGMA user_version=19")  # the schema of ca3bff5..6c2dc8d
    s.migrate()  # the judge's next start
    send_utf8(judge, UTF8_BOB, "SIGNON France up1 pw-france\nA PAR - BUR", subject="orders")
    [reply] = judge.pump()
    assert "Not yet done" not in reply.flat, reply.body
    assert "A PAR - BUR" in reply.flat.upper() or "Paris" in reply.flat, reply.body
    assert seats(judge, "up1")["FRANCE"] == "bob@xn--bcher-kva.example"
