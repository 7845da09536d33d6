"""Whole Hoplite Wars games with random legal orders: the engine runs and keeps its invariants.

Invariants checked after every phase: every unit stands where its kind may (armies and
garrisons on land, fleets on coasts or at sea, garrisons in centres, multiple A/F at sea
seaworthy), one player per province, and after every adjustment phase no state keeps more
units than its centres (and Delphi) pay for, counting garrisons as half. After every
phase, the lines the judge keeps from each power's mail (a line a later line replaced, a build
the budget does not pay for, are left out) give what all the lines give, and the same listed in
another order: the random orders name units in merges that also have other orders, the unit in
Delphi ordered besides its SACK, more builds than are paid for (armies, garrisons, several on
one centre, fleets on both coasts of one city) and removals past the count, so the judge's
reading of a mail and the adjudicator must agree on which lines stand.

``JUDGE_FUZZ_EXAMPLES`` (tests/fuzzkit.py) plays more games, with new seeds.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest
from fuzzkit import examples, nightly
from fuzzkit import seed as fuzz_seed

from judge.engine.position import Position
from judge.games.game import read_order_lines
from judge.variants import get_variant
from judge.variants.hoplite.rules import HopliteRules
from judge.variants.multiplicity.units import parse_kind, seaworthy

V = get_variant("hoplite")
R: HopliteRules = V.rules  # type: ignore[assignment]
B = V.board


def check_invariants(position: Position) -> None:
    owners: dict[str, str] = {}
    for u in position.units:
        prov = B.provinces[u.province]
        a, f, g = parse_kind(u.kind)
        player = R.player_of(u.power)
        assert owners.setdefault(u.province, player) == player, f"two players in {u.province}"
        if prov.kind == "land":
            assert not f, f"{u} inland"
        if g:
            assert u.province in R.values, f"garrison outside a centre: {u}"
        if f and prov.coasts:
            assert u.location in prov.coasts, f"{u} has no coast"
    for force in R.forces(position.units):
        if B.is_sea(force.province):
            assert seaworthy(*force.counts()), f"{force} at sea is not seaworthy"


def random_orders(position: Position, rng: random.Random) -> list[tuple[str, str]]:
    kind = position.phase.kind
    lines: list[tuple[str, str]] = []
    if kind == "M":
        forces = R.forces(position.units)
        at = {f.province: f for f in forces}
        for force in forces:
            a, f, g = force.counts()
            moves = []
            for prov in sorted(B.neighbours(force.province)):
                try:
                    loc, _ = R.move_target(force.parts, force.location, prov, at)
                except Exception:  # noqa: BLE001 - not a legal move for this unit
                    continue
                moves.append(loc)
            roll = rng.random()
            if g and (a or f) and roll < 0.5:
                mobile = [p for p in force.parts if p[1] != "G"]
                part_kind = "A" if any(p[1] == "A" for p in mobile) else "F"
                try:
                    loc, _ = R.move_target(((force.player, part_kind),), force.location,
                                           rng.choice(sorted(B.neighbours(force.province))), at)
                    lines.append((force.player, f"{force} SPLIT {part_kind} {loc}"))
                except Exception:  # noqa: BLE001
                    pass
                continue
            if force.size >= 2 and a >= 2 and not f and not g and roll < 0.3 and moves:
                lines.append((force.player, f"{force} SPLIT A {rng.choice(moves)}, "
                                            f"{a - 1}A {force.province} H"))
                continue
            if moves and roll < 0.7:
                lines.append((force.player, f"{force} - {rng.choice(moves)}"))
                continue
            neighbours = [at[p] for p in sorted(B.neighbours(force.province)) if p in at]
            if neighbours and roll < 0.9 and not g:
                other = rng.choice(neighbours)
                lines.append((force.player, f"{force} S {other}"))
                continue
            lines.append((force.player, f"{force} H"))
        # A few merges of neighbouring units of one player.
        for force in forces:
            for prov in sorted(B.neighbours(force.province)):
                other = at.get(prov)
                if (other and other.player == force.player and rng.random() < 0.15
                        and not other.counts()[2] and not force.counts()[2]):
                    lines.append((force.player, f"{force} & {other} MERGE {force.province}"))
                    break
        if "delphi_sacked_by" not in position.extra and R.shrine in at and rng.random() < 0.5:
            lines.append((at[R.shrine].player, "SACK DELPHI"))
            if rng.random() < 0.5:  # a second order for the unit in Delphi, before or after
                lines.append((at[R.shrine].player, f"{at[R.shrine]} H"))
    elif kind == "R":
        for d in position.dislodged:
            options = R.retreat_options(position, d)
            if options and rng.random() < 0.8:
                lines.append((d.unit.power, f"{d.unit} R {rng.choice(options)}"))
            else:
                lines.append((d.unit.power, f"{d.unit} D"))
    else:
        for power in R.adjusting_powers(position):
            count = R.adjustment_count(position, power)
            if count > 0:
                sites = sorted(R.build_sites(position, power))
                # more builds than the budget pays for, some on one centre: the mail keeps
                # those paid for in written order, as the adjudicator makes them
                for _ in range(count + rng.choice((0, 0, 1, 2))):
                    site = rng.choice(sites)
                    p = B.provinces[site]
                    what = rng.choice(["A", "G", "F"] if p.kind == "coast" else ["A", "G"])
                    loc = rng.choice(p.coasts) if what == "F" and p.coasts else site
                    lines.append((power, f"BUILD {what} {loc}"))
                    if loc != site and rng.random() < 0.5:  # and on the other coast
                        other = next(c for c in p.coasts if c != loc)
                        lines.append((power, f"BUILD F {other}"))
            elif count < 0:
                mine = [u for u in position.units if u.power == power]
                for u in rng.sample(mine, min(len(mine), -count + rng.choice((0, 0, 1)))):
                    lines.append((power, f"REMOVE {u}"))
            for u in position.units:
                if u.power == power and "A" in u.kind and u.province in R.values \
                        and B.provinces[u.province].kind == "coast" and rng.random() < 0.1:
                    coast = B.provinces[u.province].coasts
                    lines.append((power, f"TRANSFORM A {u.province} TO F"
                                         + (f" {coast[0]}" if coast else "")))
    rng.shuffle(lines)
    return lines


def standing(position: Position, lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lines the judge keeps when each power mails its lines in this order: a line that
    a later line of the same mail replaced is left out (judge.games.game.read_order_lines)."""
    out = []
    for power in dict.fromkeys(p for p, _ in lines):
        texts = [t for p, t in lines if p == power]
        out += [(power, x["text"]) for x in read_order_lines(V, position, power, texts)
                if x.get("order") and not x.get("error")]
    return out


def check_any_listing(position: Position, lines: list[tuple[str, str]],
                      rng: random.Random) -> None:
    """The lines the mail keeps give what all the lines give (judge adjudicate), and the
    same in another listing: the reader and the adjudicator agree on which lines stand."""
    kept = standing(position, lines)
    first = V.write_position(V.adjudicate_lines(position, kept).position)
    given = V.write_position(V.adjudicate_lines(position, lines).position)
    assert first == given, (position.phase, "the lines the mail refused changed the outcome",
                            lines, kept)
    shuffled = list(kept)
    rng.shuffle(shuffled)
    if position.phase.kind == "A":
        # the builds a mail keeps are all paid for, so they give one result in any order
        # (fleets on both coasts of one city are refused whatever their order); removals
        # are made in the order each mail writes them (an army or a fleet only while
        # removals are due): a mail that removes keeps its lines as written
        mine = {p: [t for q, t in kept if q == p] for p in dict.fromkeys(p for p, _ in kept)}
        for texts in mine.values():
            if not any(t.upper().startswith("REMOVE") for t in texts):
                rng.shuffle(texts)
        shuffled = [(p, mine[p].pop(0)) for p, _ in shuffled]
    again = V.write_position(V.adjudicate_lines(position, shuffled).position)
    assert first == again, (position.phase, kept, shuffled)


FIRST_SEED = fuzz_seed()  # once: a nightly run draws a new seed at each call
SEEDS = range(FIRST_SEED, FIRST_SEED + examples(6)) if nightly() else range(6)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_hoplite_game_keeps_invariants(seed: int) -> None:
    rng = random.Random(seed)
    position = V.initial_position()
    position.extra["seed"] = seed
    phases = 0
    seen = [position.phase]
    while phases < 40 and not position.winner:
        lines = random_orders(position, rng)
        check_any_listing(position, lines, random.Random(rng.random()))
        outcome = V.adjudicate_lines(position, lines)
        assert len(outcome.results) >= len(lines)
        nxt = V.read_position(V.write_position(outcome.position))  # the JSON round trip
        check_invariants(nxt)
        if position.phase.kind == "A":
            for power in R.adjusting_powers(nxt):
                assert R.upkeep(nxt, power) <= R.supply(nxt, power), power
        position = nxt
        seen.append(position.phase)
        phases += 1
    assert phases >= 20 or position.winner
    # The calendar: Winter 451 BC, then Spring, (retreats), Autumn, (retreats), Winter, each
    # year one less BC.
    allowed = {("W", "A"): {("S", "M", 1)}, ("S", "M"): {("S", "R", 0), ("F", "M", 0)},
               ("S", "R"): {("F", "M", 0)}, ("F", "M"): {("F", "R", 0), ("W", "A", 0)},
               ("F", "R"): {("W", "A", 0)}}
    for a, b in itertools.pairwise(seen):
        assert (b.season, b.kind, b.year - a.year) in allowed[(a.season, a.kind)], (a, b)


def test_merge_and_another_order_for_its_unit_give_one_result_in_any_listing() -> None:
    """The season simulator's case (F450BCM): ``A THO - ATH`` and ``A MAR & A THO MERGE MAR``
    in one mail. The later line replaces the earlier one, both as the mail is read and as it
    is adjudicated; the kept line alone gives the result, whatever came first."""
    position = V.read_position({"variant": "hoplite", "phase": "F450BCM",
                                "units": {"ATHENS": ["A MAR", "A THO"]}, "centres": {}})
    move, merge = "A THO - ATH", "A MAR & A THO MERGE MAR"
    read = read_order_lines(V, position, "ATHENS", [move, merge])
    assert read[0]["note"] == "replaced by the later order A MAR & A THO MERGE 2A MAR"
    read = read_order_lines(V, position, "ATHENS", [merge, move])
    assert read[0]["note"] == "replaced by the later order A THO - ATH"
    assert standing(position, [("ATHENS", move), ("ATHENS", merge)]) == [("ATHENS", merge)]
    assert standing(position, [("ATHENS", merge), ("ATHENS", move)]) == [("ATHENS", move)]
    merged = V.adjudicate_lines(position, [("ATHENS", move), ("ATHENS", merge)]).position
    assert V.write_position(merged)["units"] == {"ATHENS": ["2A MAR"]}
    moved = V.adjudicate_lines(position, [("ATHENS", merge), ("ATHENS", move)]).position
    assert V.write_position(moved)["units"] == {"ATHENS": ["A ATH", "A MAR"]}


def test_fleets_built_on_both_coasts_of_one_city_give_one_result_in_any_listing() -> None:
    """The season simulator's case (hoplite26 and hoplite46, W451BCA, seed 20261127):
    Thessaly builds ``F LAR/NC`` and ``F LAR/SC``. A unit in a two-coast province stands on
    one coast (Multiplicity rule 5), so the two fleets cannot stand together: both are
    refused, with the reason, whatever their order, and the armies are still built. Before,
    the fleets merged into ``2F`` on the coast of the line written first."""
    position = V.initial_position()
    lines = ["BUILD F LAR/NC", "BUILD A PLI", "BUILD F LAR/SC", "BUILD A PLI", "BIULD X QQQ"]
    results = set()
    for listing in itertools.permutations(lines):
        read = {x["text"]: x for x in read_order_lines(V, position, "THESSALY", list(listing))}
        for fleet in ("BUILD F LAR/NC", "BUILD F LAR/SC"):
            assert read[fleet]["error"] == (
                "fleets are ordered onto both coasts of Larissa (LAR/NC, LAR/SC), and a unit "
                "there stands on one coast (Multiplicity II rule 5): no fleet is placed there")
        outcome = V.adjudicate_lines(position, [("THESSALY", t) for t in listing])
        results.add(json.dumps(V.write_position(outcome.position)["units"]))
        kept = standing(position, [("THESSALY", t) for t in listing])
        assert sorted(kept) == [("THESSALY", "BUILD A PLI")] * 2
    assert results == {json.dumps({"THESSALY": ["2A PLI"]})}


def test_a_transform_and_a_build_onto_two_coasts_of_one_city_are_both_refused() -> None:
    """A fleet transformed and a fleet built in one two-coast City stand together only on one
    coast: ``TRANSFORM A LAR TO F LAR/NC`` with ``BUILD F LAR/SC`` (the army stands on no
    coast) is refused, both lines, in any order; before, the fleet built came first and the
    transformed one silently joined it on the south coast."""
    position = V.read_position({"variant": "hoplite", "phase": "W450BCA",
                                "units": {"THESSALY": ["A LAR"]},
                                "centres": {"THESSALY": ["CIE", "LAR", "PLI"]}})
    lines = ["TRANSFORM A LAR TO F LAR/NC", "BUILD F LAR/SC", "BUILD A CIE"]
    for listing in itertools.permutations(lines):
        outcome = V.adjudicate_lines(position, [("THESSALY", t) for t in listing])
        assert V.write_position(outcome.position)["units"] == {"THESSALY": ["A CIE", "A LAR"]}
        refused = {r.order for r in outcome.results if r.result != "succeeds"}
        assert refused == {"TRANSFORM A LAR TO F LAR/NC", "BUILD F LAR/SC"}, listing
