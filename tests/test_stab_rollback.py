"""ROLLBACK in a Stab! game with RETREATS NEXT_SEASON: the retreats and builds of a season
are sent with the next season's movement orders, and adjudicated with them from the
pending retreat or adjustment phase (variants/stab/flow.py). A ROLLBACK to any phase of
that season, then PROCESS of it with the restored orders, gives the same positions, the
same results and the same report as the first time (found by bench/season.py: the
movement phase's orders, sent with the builds, were lost and every unit held)."""

from __future__ import annotations

import json
import re

import pytest
from mailkit import POWERS, InProcessBackend, InProcessJudge, subject_has
from stabkit import play_stab_game

GAME, GM = "ns1", "gm@p.test"
MASTER = f"MASTER {GAME} master-{GAME}"


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def stored(judge: InProcessJudge) -> dict[str, tuple]:
    """Every stored phase of the game: (position, results, adjudicated or not)."""
    game = judge.store.game(GAME)
    return {r["phase"]: (json.loads(r["position"]), json.loads(r["results"] or "null"),
                         r["adjudicated"] is not None)
            for r in judge.store.all("SELECT phase, position, results, adjudicated FROM "
                                     "positions WHERE game_id = ? ORDER BY id", (game["id"],))}


def same_text(body: str) -> str:
    """A report's text without its deadline (counted from the moment it was processed)."""
    return re.sub(r"^Deadline: .*$", "Deadline: -", body, flags=re.M)


@pytest.mark.parametrize("target", ["S1902M", "W1901A", "F1901R"])
def test_rollback_then_the_same_orders_give_the_same_season(tmp_path, target):
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    reports = play_stab_game(b, GAME, addr, GM, tmp_path / "judge.db", next_season=True)
    # F1901R took the French retreat, the builds and the Spring 1902 orders in one go
    assert judge.store.game(GAME)["phase"] == "F1902M"
    before = stored(judge)
    assert before["S1902M"][2] and before["W1901A"][2] and before["F1901R"][2]
    first = {p: reports[p][-1] for p in [*POWERS, "GM"]}
    assert first["ITALY"].subject == f"{GAME}: Spring 1902 report"

    got = judge.send(GM, f"{MASTER}\nROLLBACK {target}\nPROCESS {target}", "again")
    reply = next(m for m in got if m.rcpt == GM and "again" in m.subject)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    deadline = re.search(r"New deadline: (.*?) \(in ", reply.flat).group(1)

    assert stored(judge) == before  # every position and every result as the first time
    for p in [*POWERS, "GM"]:
        again = [m for m in got if m.rcpt == (GM if p == "GM" else addr(p))
                 and subject_has(" report")(m)]
        assert len(again) == 1, (p, again)
        assert again[0].subject == first[p].subject
        assert same_text(again[0].body) == same_text(first[p].body), (p, again[0].body)
    # everyone is told where the game went back to, as it was then (the PROCESS after it in
    # the same mail does not change what the notice says)
    for m in got:
        if "rolled back" in m.subject:
            assert m.subject == f"{GAME} - rolled back to F1901R", m.subject
            assert "rolled back by its master to Fall 1901 Retreat (F1901R)" in m.flat, m.body
            assert "Deadline: " + deadline in m.body, (deadline, m.body)
    # the master is told where the game went back to: the phase those orders were sent in
    assert "is back in F1901R" in reply.flat, reply.body
    assert "the orders of 7 power(s) for that phase are restored" in reply.flat, reply.body
    assert "game ns1 is now in F1902M" in reply.flat, reply.body


def test_with_orders_rollback_to_the_retreats_goes_back_to_their_movement(tmp_path):
    """RETREATS WITH_ORDERS: the retreat phase is adjudicated at once from the conditional
    retreats sent with the movement orders; ROLLBACK to it goes back to that movement phase
    (it held no orders of its own, and a deadline for nothing), and the same orders give
    the same Autumn report (it was a report of the retreats alone, without the moves)."""
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    reports = play_stab_game(b, GAME, addr, GM, tmp_path / "judge.db")
    assert judge.store.game(GAME)["phase"] == "S1902M"
    before = stored(judge)
    autumn = {p: reports[p][-2] for p in [*POWERS, "GM"]}
    assert autumn["ITALY"].subject == f"{GAME}: Autumn 1901 report"

    got = judge.send(GM, f"{MASTER}\nROLLBACK F1901R\nPROCESS F1901R", "again")
    reply = next(m for m in got if m.rcpt == GM and "again" in m.subject)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    after = stored(judge)
    for phase in ("S1901M", "F1901M", "F1901R"):
        assert after[phase] == before[phase], phase
    assert after["W1901A"][0] == before["W1901A"][0]  # where it waits again, as before
    for p in [*POWERS, "GM"]:
        again = [m for m in got if m.rcpt == (GM if p == "GM" else addr(p))
                 and subject_has(" report")(m)]
        assert [m.subject for m in again] == [autumn[p].subject], (p, again)
        assert same_text(again[0].body) == same_text(autumn[p].body), (p, again[0].body)
    assert "is back in F1901M" in reply.flat and "now in W1901A" in reply.flat, reply.body


def test_the_phase_a_rollback_goes_back_to():
    from judge.variants.stab.flow import NEXT_SEASON, WITH_ORDERS, sent_in

    # NEXT_SEASON: waits in S1901M, S1901R (takes F1901M), F1901R (takes W1901A, S1902M),
    # S1902R... and in W1902A (takes S1903M) when the Autumn dislodged nothing
    phases = ["S1901M", "S1901R", "F1901M", "F1901R", "W1901A", "S1902M", "S1902R", "F1902M",
              "W1902A", "S1903M", "F1903M"]
    went = {p: sent_in(phases, p, NEXT_SEASON) for p in phases}
    assert went == {"S1901M": "S1901M", "S1901R": "S1901R", "F1901M": "S1901R",
                    "F1901R": "F1901R", "W1901A": "F1901R", "S1902M": "F1901R",
                    "S1902R": "S1902R", "F1902M": "S1902R", "W1902A": "W1902A",
                    "S1903M": "W1902A", "F1903M": "F1903M"}
    # WITH_ORDERS: a retreat phase is its movement's; the rest wait for their own orders
    phases = ["S1901M", "S1901R", "F1901M", "F1901R", "W1901A", "S1902M"]
    went = {p: sent_in(phases, p, WITH_ORDERS) for p in phases}
    assert went == {"S1901M": "S1901M", "S1901R": "S1901M", "F1901M": "F1901M",
                    "F1901R": "F1901M", "W1901A": "W1901A", "S1902M": "S1902M"}
    assert sent_in(phases, "S1905M", WITH_ORDERS) == "S1905M"  # not stored: the judge says so
