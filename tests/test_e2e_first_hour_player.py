"""A player's first hour through the real mail servers, with the judge's clock: the start
notice names the player's power, a sign-off under the orders is skipped, a deadline written in
the game's zone falls at that local time, and the report names the powers that sent nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from gmkit import FakeClock, LiveJudge, addr, gm_addr, new_game, orders, subj, to


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def test_first_hour_of_a_player_by_mail(judge):
    g = "fh1"
    out = new_game(judge, g, ["REMINDER OFF", "ZONE Europe/Paris"])
    start = to(out, addr(g, "FRANCE"), lambda m: "the game has started" in m.subject)[0]
    assert f"SIGNON FRANCE {g} <your password>" in start.body

    orders(judge, g, "FRANCE", ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO", "",
                                "Cheers,", "Anna"])
    reply = to(judge.pump(), addr(g, "FRANCE"))[0]
    assert "Skipped 'Cheers,' and 'Anna': look like a sign-off" in reply.flat
    assert not reply.subject.startswith("[ERROR]")

    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nDEADLINE 2026-11-24 18:00", subject="gm")
    r = to(judge.pump(), gm_addr(g))[0]
    assert "set to Tue 24 Nov 2026 18:00 CET" in r.flat
    assert "in UTC Tue 24 Nov 2026 17:00 UTC" in r.flat

    # 18:00 in Paris is 17:00 UTC: nothing before it, the phase at it
    got = judge.advance(datetime(2026, 11, 24, 16, 58, tzinfo=UTC), step=timedelta(hours=1))
    assert not subj([m for _, m in got], "S1901M results")
    got = judge.advance(datetime(2026, 11, 24, 17, 2, tzinfo=UTC))
    results = [(t, m) for t, m in got if m.subject == f"{g} - S1901M results"]
    assert results and all(t >= datetime(2026, 11, 24, 17, 0, tzinfo=UTC) for t, _ in results)
    report = results[0][1]
    assert "No orders received from: Austria, England, Germany, Italy, Russia, Turkey." \
        in report.flat
