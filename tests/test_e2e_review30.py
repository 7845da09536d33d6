"""Session 30's independent review, through the real mail servers: what a reply to a
confirmation request answers, attacked as a forger would use it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gmkit import FakeClock, LiveJudge, to
from test_e2e_hostile_leftovers import code, open_game, players

VICTIM = "victim@elsewhere.test"


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False)
    yield j
    j.close()


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
    assert "Not yet done" in forged.flat and code(forged) != code(own), forged.body
    judge.send(VICTIM, "No, I never asked for this.", subject="Re: join too",
               In_Reply_To=forged["Message-ID"])
    [declined] = to(judge.pump(), VICTIM)
    assert "Declined" in declined.flat, declined.body
    judge.send(VICTIM, "Yes", subject="Re: join", In_Reply_To=own["Message-ID"])
    [done] = to(judge.pump(), VICTIM)
    assert "You have joined game rv1 as Italy" in done.flat, done.body
    assert players(judge, "rv1") == {"ITALY": VICTIM}
    assert players(judge, "rv2") == {}
