"""The leak test by mail: random Stab! games played through the judge's mail loop (in
process: real storage, reading, acting and sender). Every acknowledgement each player gets is
checked to name no unit it may not know of and to read its lines the same whatever the other
powers' units are; every report each player and the master get is checked, public part and
private notice, against the full adjudication by the oracle of tests/test_stab_leak.py."""

from __future__ import annotations

import random

import pytest
from mailkit import POWERS, InProcessBackend, InProcessJudge
from stabkit import RULES, StabMailGame

from judge.engine.orders import Unit
from judge.engine.position import Position
from judge.engine.randomgame import random_orders

BOARD = RULES.board


def _adjacent(unit: Unit) -> list[str]:
    return sorted(BOARD.army_adj[unit.location] if unit.kind == "A"
                  else BOARD.fleet_adj[unit.location])


def random_lines(pos: Position, power: str, rng: random.Random) -> list[str]:
    """What a player might send this phase: its orders, with the Stab! extras (placement,
    conditional retreats, REVEAL, orders depending on others' retreats) and some mistakes."""
    lines: list[str] = []
    combined = pos.phase.kind in "RA" and RULES.retreat_mode(pos) == "next_season"
    units = pos
    if RULES.placement_pending(pos):
        placed = []
        for home in sorted(BOARD.home_centres[power]):
            coasts = BOARD.fleet_locations(home) if not BOARD.is_land(home) else ()
            kind, where = ("F", rng.choice(coasts)) if coasts and rng.random() < 0.5 \
                else ("A", home)
            placed.append(Unit(power, kind, where))
            lines.append(f"PLACE {kind} {where}")
        units = Position(pos.variant, pos.phase, placed, pos.centres)
    if pos.phase.kind == "A" and not combined:
        n = RULES.adjustment_count(pos, power)
        free = [c for c in sorted(BOARD.home_centres[power]) if c in pos.centres.get(power, ())
                and all(u.province != c for u in pos.units)]
        for c in rng.sample(free, min(len(free), max(0, n))):
            lines.append(f"BUILD A {c}")
        mine = pos.units_of(power)
        for u in rng.sample(mine, min(len(mine), max(0, -n))):
            lines.append(f"REMOVE {u}")
        if rng.random() < 0.5:  # a mistake: a removal of whatever stands somewhere
            lines.insert(0, f"REMOVE {rng.choice(pos.units)}")
        return lines
    if combined:
        for d in pos.dislodged:
            if d.unit.power == power and d.retreats and rng.random() < 0.8:
                lines.append(f"{d.unit} R {rng.choice(sorted(d.retreats))}")
            elif d.unit.power != power and d.retreats and rng.random() < 0.5:
                mine = pos.units_of(power)
                if mine:
                    u = rng.choice(mine)
                    lines.append(f"IF {d.unit} R {rng.choice(sorted(d.retreats))}: "
                                 f"{u} - {rng.choice(_adjacent(u))}")
        n = len(pos.centres.get(power, ())) - len(pos.units_of(power))
        if n > 0:
            lines.append(f"BUILD A {sorted(BOARD.home_centres[power])[0]}")
    shadow = Position(pos.variant, pos.phase, units.units, pos.centres)
    mine = [u for u in units.units if u.power == power]
    lines += attacks(shadow, power, rng) or [
        str(o) for pw, o in random_orders(BOARD, shadow, rng) if pw == power]
    for u in mine:
        if RULES.retreat_mode(pos) == "with_orders" and rng.random() < 0.5:
            dests = rng.sample(_adjacent(u), min(2, len(_adjacent(u))))
            lines.append(f"IF DISLODGED {u} R {', '.join(dests)}" if dests
                         else f"IF DISLODGED {u} D")
    if mine and rng.random() < 0.2:
        lines.append(f"REVEAL {rng.choice(mine)}")
    if rng.random() < 0.3:
        # A mistake: a support of whatever is in some space, or an order to a unit that is
        # not there (maybe another power's).
        where = rng.choice(sorted(BOARD.provinces))
        lines.append(f"A {where} H" if rng.random() < 0.5 else
                     f"{mine[0]} S A {where}" if mine else f"A {where} H")
    return lines


def attacks(pos: Position, power: str, rng: random.Random) -> list[str]:
    """Orders that seek contact (so that turns have attacks, bounces, dislodgements and
    retreats): a unit next to another power's unit attacks it, often, and the power's
    units next to that space support the attack; the rest move or hold at random."""
    at = {u.province: u for u in pos.units}
    mine = pos.units_of(power)
    out: dict[str, str] = {}
    for u in mine:
        if u.province in out:
            continue
        foes = [p for p in _adjacent(u) if p in at and at[p].power != power]
        if foes and rng.random() < 0.6:
            dest = rng.choice(foes)
            out[u.province] = f"{u} - {dest}"
            for v in mine:
                if v.province not in out and dest.split("/")[0] in {
                        x.split("/")[0] for x in _adjacent(v)} and rng.random() < 0.7:
                    out[v.province] = f"{v} S {u} - {dest.split('/')[0]}"
    for u in mine:
        if u.province not in out:
            out[u.province] = f"{u} - {rng.choice(_adjacent(u))}" if rng.random() < 0.5 \
                else f"{u} H"
    return list(out.values())


@pytest.mark.parametrize("mode", ["with_orders", "next_season"])
def test_random_stab_games_by_mail_leak_nothing(tmp_path, mode, monkeypatch):
    # This test reads the text of every mail; the private maps attached to the reports are
    # checked for leaks in test_render_stab.py, so they are not drawn here (drawing ~50
    # reports' PNGs would triple the test's time).
    from judge import reports

    monkeypatch.setattr(reports.Pictures, "for_reader", lambda self, power: {})
    rng = random.Random(f"stab-mail-{mode}")
    for n in range(3):
        d = tmp_path / f"g{n}"
        d.mkdir()
        judge = InProcessJudge(d)
        g = StabMailGame(InProcessBackend(judge), f"r{n}", lambda p: f"{p.lower()}@p.test",
                         "gm@p.test", d / "judge.db")
        g.start(next_season=mode == "next_season", gunboat=n == 1)
        # (turn: one round of mail; with the judge's automatic phases it may span several)
        for turn in range(9):
            pos = g.full.position()
            orders = {}
            for p in POWERS:
                # Some powers send nothing (an NMR; the master then processes the phase).
                if rng.random() < 0.1 and not RULES.placement_pending(pos):
                    continue
                todo = G_needs(judge, g.game, p)
                if todo:
                    orders[p] = random_lines(pos, p, rng)
            g.play(orders, f"t{turn}", errors=None, process=True)
        assert sum(len(r) for r in g.reports.values()) == 8 * 9


def G_needs(judge: InProcessJudge, game: str, power: str) -> bool:
    """Whether ``power`` has anything to order now (else the judge refuses its orders)."""
    from judge.games import game as G

    g = judge.store.game(game)
    variant = G.get_variant(g["variant"])
    units, count = G.needs(variant, G.current_position(judge.store, g), power)
    return bool(units or count)
