"""Properties of Multiplicity II adjudication on random positions of multiple units.

* it always terminates and gives one result per order line;
* the board after the phase is legal: one player per province, nothing at sea that is not
  seaworthy, no fleet inland, every component accounted for (moved, stayed or dislodged);
* the outcome does not depend on the order in which the lines are listed, once the lines a
  later line replaced are taken out (as the judge does when it reads a mail: the lines that
  stand). The random orders name a unit in a merge and in another order too (before or after
  the merge), and in two merges, so that which line replaces which is tested: the judge's
  reading of a mail and the adjudicator must agree on it;
* in a Winter, the builds and removals a mail keeps give what all its lines give (counted by
  components, several builds on one centre), and every line kept is carried out.

``JUDGE_FUZZ_EXAMPLES`` (tests/fuzzkit.py) runs more random phases, with new seeds.
"""

from __future__ import annotations

import random

import pytest
from fuzzkit import examples, nightly
from fuzzkit import seed as fuzz_seed

from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
from judge.games.game import read_order_lines
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
    """Orders for ``position``: moves, splits, supports, and merges of neighbouring units. A
    unit in a merge sometimes gets another order as well, or is named in a second merge: the
    lines are mixed so that the merge is written before or after the other order."""
    forces = R.forces(position.units)
    at = {f.province: f for f in forces}
    moves: dict[str, str] = {}
    ordered: set[str] = set()  # provinces whose unit has a line
    merges: list[tuple[str, str]] = []
    others: list[tuple[str, str]] = []

    def targets(force) -> list[str]:  # noqa: ANN001 - a Force
        out = []
        for prov in sorted(B.neighbours(force.province)):
            try:
                out.append(R.move_target(force.parts, force.location, prov, at)[0])
            except Exception:  # noqa: BLE001 - not a legal move
                continue
        return out

    # Merges of two neighbouring armies of one power; a unit may be in two merges.
    for force in forces:
        if force.province in ordered and rng.random() > 0.3 or rng.random() > 0.3:
            continue
        for prov in sorted(B.neighbours(force.province)):
            other = at.get(prov)
            if other and other.player == force.player \
                    and (prov not in ordered or rng.random() < 0.3) \
                    and not other.counts()[1] and not force.counts()[1]:
                common = sorted(set(B.army_adj.get(force.province, ()))
                                & set(B.army_adj.get(prov, ())))
                if common:
                    dest = rng.choice(common)
                    merges.append((force.player, f"{force} & {other} MERGE {dest}"))
                    ordered |= {force.province, prov}
                    break
    merged = set(ordered)
    for force in forces:
        if force.province in merged and rng.random() > 0.4:
            continue
        options = targets(force)
        roll = rng.random()
        a, f, _ = force.counts()
        if options and roll < 0.45:
            dest = rng.choice(options)
            moves[force.province] = dest
            others.append((force.player, f"{force} - {dest}"))
            ordered.add(force.province)
        elif a >= 2 and not f and options and roll < 0.6:
            dest = rng.choice(options)
            others.append((force.player, f"{force} SPLIT A {dest}, {format_kind(a - 1, 0)} "
                                         f"{force.province} H"))
            ordered.add(force.province)
    for force in forces:
        if force.province in ordered and (force.province not in merged or rng.random() > 0.3):
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
            others.append((force.player, rng.choice(options)))
    for line in merges:  # each merge somewhere among the other lines
        others.insert(rng.randint(0, len(others)), line)
    return others


def standing(position: Position, lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lines the judge keeps when each power mails its lines in this order: a line that
    a later line of the same mail replaced is left out (judge.games.game.read_order_lines)."""
    powers = list(dict.fromkeys(p for p, _ in lines))
    out = []
    for power in powers:
        texts = [t for p, t in lines if p == power]
        out += [(power, x["text"]) for x in read_order_lines(V, position, power, texts)
                if x.get("order") and not x.get("error")]
    return out


def components(units: list[Unit]) -> int:
    return sum(sum(parse_kind(u.kind)) for u in units)


FIRST_SEED = fuzz_seed()  # once: a nightly run draws a new seed at each call
SEEDS = range(FIRST_SEED, FIRST_SEED + examples(40)) if nightly() else range(40)


@pytest.mark.parametrize("seed", SEEDS)
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
    kept = standing(position, lines)
    as_kept = V.adjudicate_lines(position, kept)
    assert V.write_position(as_kept.position) == V.write_position(nxt), \
        "the lines replaced in the mail changed the outcome"
    shuffled = list(kept)
    rng.shuffle(shuffled)
    again = V.adjudicate_lines(position, shuffled)
    first, second = V.write_position(nxt), V.write_position(again.position)
    assert first == second, (lines, shuffled)


def random_winter(rng: random.Random) -> tuple[Position, list[tuple[str, str]]]:
    """A Winter after Autumn 1901 (several builds may share a centre) with random centres,
    and each power's builds or removals: some more than due, several on one centre, of
    several components (``BUILD 2A PAR``, ``REMOVE A/F BER``) or of a part of a unit, fleets
    on both coasts of St Petersburg."""
    position = random_position(rng, rng.randint(6, 24))
    position.phase = Phase("W", 1901, "A")
    held = {u.province: u.power for u in position.units}
    centres: dict[str, set[str]] = {}
    for centre in sorted(B.supply_centres):
        owner = held.get(centre) or (rng.choice(B.powers) if rng.random() < 0.6 else None)
        if owner:
            centres.setdefault(owner, set()).add(centre)
    position.centres = centres
    lines: list[tuple[str, str]] = []
    for power in B.powers:
        count = R.adjustment_count(position, power)
        extra = rng.choice((0, 0, 1, 2))
        if count > 0:
            sites = sorted(R.build_sites(position, power))
            for _ in range(count + extra):
                site = rng.choice(sites)
                p = B.provinces[site]
                kind = rng.choice(["A", "A", "2A", "F", "A/F"] if p.kind == "coast" else
                                  ["A", "A", "2A"])
                loc = rng.choice(p.coasts) if "F" in kind and p.coasts else site
                lines.append((power, f"BUILD {kind} {loc}"))
                if loc != site and rng.random() < 0.5:  # and on the other coast
                    other = next(c for c in p.coasts if c != loc)
                    lines.append((power, f"BUILD F {other}"))
        elif count < 0:
            mine = [u for u in position.units if u.power == power]
            for u in rng.sample(mine, min(len(mine), -count + extra)):
                a, f, _ = parse_kind(u.kind)
                part = rng.choice([u.kind, *(["A"] if a else []), *(["F"] if f else [])])
                lines.append((power, f"REMOVE {part} {u.location}"))
    rng.shuffle(lines)
    return position, lines


WINTER_SEEDS = range(FIRST_SEED, FIRST_SEED + examples(60)) if nightly() else range(60)


@pytest.mark.parametrize("seed", WINTER_SEEDS)
def test_random_multiplicity_winters(seed: int) -> None:
    """The builds and removals the mail keeps (counted by components, several builds on one
    centre) give what all the lines give, and the same with the mails listed in another
    order. The builds a mail keeps all fit, so they are shuffled too (fleets on both coasts
    of STP are refused in any order); removals are made in written order (an army before
    the fleet that keeps it seaworthy), so a mail that removes keeps its lines as written."""
    rng = random.Random(seed)
    position, lines = random_winter(rng)
    outcome = V.adjudicate_lines(position, lines)
    kept = standing(position, lines)
    as_kept = V.adjudicate_lines(position, kept)
    assert V.write_position(as_kept.position) == V.write_position(outcome.position), \
        ("the lines the mail refused changed the outcome", lines, kept)
    assert all(r.result == "succeeds" for r in as_kept.results[:len(kept)]), \
        ("a line the mail kept was not carried out", kept, as_kept.results)
    mails = {p: [t for q, t in kept if q == p] for p in dict.fromkeys(p for p, _ in kept)}
    for texts in mails.values():
        if not any(t.startswith("REMOVE") for t in texts):
            rng.shuffle(texts)
    order = [p for p, _ in kept]
    rng.shuffle(order)
    shuffled = [(p, mails[p].pop(0)) for p in order]
    again = V.adjudicate_lines(position, shuffled)
    assert V.write_position(again.position) == V.write_position(outcome.position), shuffled


FRANCE = Position("multiplicity", Phase("S", 1901, "M"),
                  [Unit("FRANCE", "2A", "BUR"), Unit("FRANCE", "A", "PAR"),
                   Unit("FRANCE", "A", "PIC"), Unit("FRANCE", "A", "MAR")], {})


def test_a_merge_is_an_order_for_each_of_its_units() -> None:
    """A later order for the second unit of a merge replaces the merge (and a merge replaces
    an earlier order for it), as the mail is read: the reply says which line was replaced."""
    read = read_order_lines(V, FRANCE, "FRANCE", ["A PAR & A PIC MERGE PAR", "A PIC - BEL"])
    assert read[0]["note"] == "replaced by the later order A PIC - BEL"
    assert read[1]["error"] is None
    read = read_order_lines(V, FRANCE, "FRANCE", ["A PIC - BEL", "A PAR & A PIC MERGE PAR"])
    assert read[0]["note"] == "replaced by the later order A PAR & A PIC MERGE 2A PAR"
    read = read_order_lines(V, FRANCE, "FRANCE", ["A PAR & A PIC MERGE PAR",
                                                  "A PIC & A BUR MERGE BUR"])
    assert read[0]["note"] == "replaced by the later order A PIC & 2A BUR MERGE 3A BUR"


def test_several_supports_of_a_multiple_unit_all_stand_in_a_mail() -> None:
    """Rule 4: a multiple unit spreads its supports, one order per space; the mail keeps both
    (the earlier was refused as replaced), and the adjudicator gives one component to each."""
    lines = ["A BUR S A PAR - PIC", "A BUR S A MAR - GAS"]
    read = read_order_lines(V, FRANCE, "FRANCE", lines)
    assert [x["error"] for x in read] == [None, None]
    read = read_order_lines(V, FRANCE, "FRANCE", [*lines, "2A BUR - MUN"])
    assert [x.get("note") for x in read] == ["replaced by the later order 2A BUR - MUN"] * 2 + [None]
    results = V.adjudicate_lines(FRANCE, [("FRANCE", x) for x in lines]).results
    assert [r.order for r in results[:2]] == ["A BUR S A PAR - PIC", "A BUR S A MAR - GAS"]
