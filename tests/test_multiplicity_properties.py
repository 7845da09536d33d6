"""Properties of Multiplicity II adjudication on random positions of multiple units.

* it always terminates and gives one result per order line;
* the board after the phase is legal: one player per province, nothing at sea that is not
  seaworthy, no fleet inland, every component accounted for (moved, stayed or dislodged);
* the outcome does not depend on the order in which the lines for different units are listed.
"""

from __future__ import annotations

import random

import pytest

from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
from judge.variants import get_variant
from judge.variants.multiplicity.rules import MultiplicityRules
from judge.variants.multiplicity.units import format_kind, parse_kind, seaworthy

V = get_variant("multiplicity")
R: MultiplicityRules = V.rules  # type: ignore[assignment]
B = V.board


def random_position(rng: random.Random, count: int) -> Position:
    provinces = sorted(B.provinces)
    rng.shuffle(provinces)
    units = []
    for prov in provinces[:count]:
        p = B.provinces[prov]
        n = rng.choice((1, 1, 2, 3))
        if p.kind == "sea":
            f = rng.randint((n + 1) // 2, n)
            a = n - f
        elif p.kind == "land":
            a, f = n, 0
        else:
            f = rng.randint(0, n)
            a = n - f
        loc = rng.choice(B.fleet_locations(prov)) if f else prov
        units.append(Unit(rng.choice(B.powers), format_kind(a, f), loc))
    return Position("multiplicity", Phase("S", 1901, "M"), units, {})


def random_lines(position: Position, rng: random.Random) -> list[tuple[str, str]]:
    forces = R.forces(position.units)
    at = {f.province: f for f in forces}
    moves: dict[str, str] = {}
    lines: dict[str, tuple[str, str]] = {}

    def targets(force) -> list[str]:  # noqa: ANN001 - a Force
        out = []
        for prov in sorted(B.neighbours(force.province)):
            try:
                out.append(R.move_target(force.parts, force.location, prov, at)[0])
            except Exception:  # noqa: BLE001 - not a legal move
                continue
        return out

    # Merges of two neighbouring units of one power that have no order yet.
    for force in forces:
        if force.province in lines or rng.random() > 0.3:
            continue
        for prov in sorted(B.neighbours(force.province)):
            other = at.get(prov)
            if other and other.player == force.player and prov not in lines \
                    and not other.counts()[1] and not force.counts()[1]:
                common = sorted(set(B.army_adj.get(force.province, ()))
                                & set(B.army_adj.get(prov, ())))
                if common:
                    dest = rng.choice(common)
                    text = f"{force} & {other} MERGE {dest}"
                    lines[force.province] = lines[prov] = (force.player, text)
                    break
    for force in forces:
        if force.province in lines:
            continue
        options = targets(force)
        roll = rng.random()
        a, f, _ = force.counts()
        if options and roll < 0.45:
            dest = rng.choice(options)
            moves[force.province] = dest
            lines[force.province] = (force.player, f"{force} - {dest}")
        elif a >= 2 and not f and options and roll < 0.6:
            dest = rng.choice(options)
            lines[force.province] = (force.player,
                                     f"{force} SPLIT A {dest}, {format_kind(a - 1, 0)} "
                                     f"{force.province} H")
    for force in forces:
        if force.province in lines:
            continue
        options = []
        for other in forces:
            if other is force:
                continue
            dest = moves.get(other.province)
            if dest and R.can_reach(force.parts, force.location, dest.split("/")[0]) \
                    and dest.split("/")[0] != force.province:
                options.append(f"{force} S {other} - {dest.split('/')[0]}")
            elif not dest and R.can_reach(force.parts, force.location, other.province):
                options.append(f"{force} S {other}")
        if options and rng.random() < 0.8:
            lines[force.province] = (force.player, rng.choice(options))
    return list(dict.fromkeys(lines.values()))


def components(units: list[Unit]) -> int:
    return sum(sum(parse_kind(u.kind)) for u in units)


@pytest.mark.parametrize("seed", range(40))
def test_random_multiplicity_phases(seed: int) -> None:
    rng = random.Random(seed)
    position = random_position(rng, rng.randint(8, 30))
    lines = random_lines(position, rng)
    outcome = V.adjudicate_lines(position, lines)
    assert len(outcome.results) >= len(lines)
    nxt = outcome.position
    before = components(position.units)
    after = components(nxt.units) + components([d.unit for d in nxt.dislodged])
    assert before == after
    seen: dict[str, str] = {}
    for force in R.forces(nxt.units):
        assert seen.setdefault(force.province, force.player) == force.player
        a, f, g = force.counts()
        if B.is_sea(force.province):
            assert seaworthy(a, f, g), force
        if B.is_land(force.province):
            assert not f, force
    shuffled = list(lines)
    rng.shuffle(shuffled)
    again = V.adjudicate_lines(position, shuffled)
    first, second = V.write_position(nxt), V.write_position(again.position)
    assert first == second
