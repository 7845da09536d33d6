"""Dipnomicy's texts about the vote read the judge's clock, not the wall clock: a game whose
clock is years away from today (a test's, the season simulator's virtual one) is told how long
the vote has left by that clock, in STATUS and in RESUME's notice, and so are the deadlines
every template writes when a test moves the actor's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dipkit import GM, SUPPORT, DipGame, clock_text

DAY = timedelta(days=1)


@pytest.mark.parametrize("start", [datetime(2033, 3, 7, 9, 30, tzinfo=UTC),
                                   datetime(2019, 5, 2, 18, 0, tzinfo=UTC)],
                         ids=["years-ahead", "years-behind"])
def test_status_says_how_long_the_vote_has_left_by_the_judges_clock(tmp_path, start):
    g = DipGame(tmp_path)
    g.clock.to(start)
    g.start()
    g.player("FRANCE", SUPPORT)
    g.to_deadline()
    assert g.state()["voting"] == 1
    g.clock.advance(hours=12)
    vote = g.vote_deadline()
    assert vote == start + 7 * DAY + timedelta(seconds=1) + 2 * DAY

    status = g.reply("visitor@players.test", "STATUS dip", "status")
    assert (f"Voting on the 1 proposal(s) of turn 1 is open until {clock_text(vote)} (in 1 "
            f"day 12 hours). Yet to vote on every proposal:") in status.flat, \
        status.body
    assert "passed" not in status.flat, status.body

    # RESUME's notice carries the same note, by the same clock
    g.sg("PAUSE")
    g.clock.advance(hours=1)
    got = g.send(GM, "MASTER dip sgpass\nRESUME", "resume")
    notice = next(m for m in got if m.rcpt == g.countries["FRANCE"] and "resumed" in m.subject)
    assert (f"open until {clock_text(vote)} (in 1 day 11 hours)") in notice.flat, \
        notice.body


def test_a_players_reply_counts_the_deadline_from_the_judges_clock(tmp_path):
    """The orders' confirmation (a template's ``deadline`` filter) when the test moves the
    actor's clock: the time left is the game's, not today's."""
    g = DipGame(tmp_path)
    g.clock.to(datetime(2035, 1, 10, 12, 0, tzinfo=UTC))
    g.start()
    r = g.player("FRANCE", "A Par -- Bur", "moves")
    assert f"Deadline: {clock_text(g.deadline())} (in 7 days)" in r.flat, r.body
