"""Random Dipnomicy movement phases, for the property and order-independence tests.

*Seed N* names one random phase (:func:`random_phase`): a random ruleset (each rule module of
the catalogue on or off: convoys, P1 support, P2/P3 centres, P4 double moves, P6 merging),
2 to 34 units of random powers (of random sizes under P6) on the standard board, and the
order lines their players write, as generated and shuffled. The lines are what players send:
the seed's notation and the judge's (``F BOT -- StP -- Lvn``, ``A BUD - SER``, ``Me A Ber
A Mun``, ``2A Vie -- Gal``), legal and not (a double move into a supply centre or back home,
a support without P1, a merge of units of different sizes), with P4 double moves through
every kind of territory (the two-coast ones included), merges that name a unit twice (two
units merging into one, a unit merging and merged into, two units merging into each other),
and at most one line for a unit (a later order for a unit replaces an earlier one, so two
lines for one unit do depend on their order, by the rules).

From the command line (``--count`` checks that many seeds and prints those whose listings
get different rulings, and those that raise)::

    .venv/bin/python tests/dipnomicy_random.py 17                 # one phase, both rulings
    .venv/bin/python tests/dipnomicy_random.py 0 --count 20000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from typing import Any

from judge.engine.board import ARMY, FLEET, province_of
from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
from judge.variants import get_variant
from judge.variants.dipnomicy.catalogue import POWERS
from judge.variants.dipnomicy.mapdata import BASE_BOARD
from judge.variants.dipnomicy.orders import sized
from judge.variants.dipnomicy.report import move_report
from judge.variants.dipnomicy.ruleset import Rule, initial_ruleset

VARIANT = get_variant("dipnomicy")
BOARD = BASE_BOARD
Lines = list[tuple[str, str]]

# Each module's chance of being in force; convoys are a base rule (rule 17), repealed at times.
CHANCES = {"convoy": 0.8, "support": 0.5, "supply_centres": 0.4, "home_centres": 0.4,
           "mobile_fleets": 0.85, "merging": 0.6}


def random_rules(rng: random.Random) -> dict[str, Any]:
    """A ruleset's position keys: the initial ruleset, rule 17 (convoys) sometimes repealed,
    and a mutable rule naming each other module enacted at random."""
    base = initial_ruleset()
    on = {m for m, p in CHANCES.items() if rng.random() < p}
    rules = [r for r in base.rules if r.module != "convoy" or "convoy" in on]
    number = base.last_number
    for module in sorted(on - {"convoy"}):
        number += 1
        rules.append(Rule(number, f"Random {module}", f"Enacts {module}.", module=module))
    return base.with_rules(rules, number).to_position_keys()


def _spelling(rng: random.Random, location: str) -> str:
    """A location as some player writes it: ``STP/SC``, ``StP``, ``Lvn``, ``NTH``."""
    prov, _, coast = location.partition("/")
    name = rng.choice((prov, prov.title(), prov.lower()))
    return f"{name}/{coast.lower()}" if coast and rng.random() < 0.5 else name


def random_position(rng: random.Random) -> Position:
    extra = random_rules(rng)
    merging = any(r.get("module") == "merging" for r in extra["rules_in_force"])
    provinces = sorted(BOARD.provinces)
    rng.shuffle(provinces)
    units: list[Unit] = []
    for prov in provinces[:rng.randint(2, 34)]:
        p = BOARD.provinces[prov]
        kind = FLEET if p.kind == "sea" else ARMY if p.kind == "land" else rng.choice(
            (ARMY, FLEET, FLEET))  # fleets on coasts: more double moves
        location = rng.choice(BOARD.fleet_locations(prov)) if kind == FLEET else prov
        size = rng.choice((1, 1, 1, 2, 2, 3)) if merging else 1
        # Few powers, so that units of one power stand side by side and merge.
        power = rng.choice(POWERS[:rng.randint(2, 7)])
        units.append(sized(Unit(power, kind, location), size))
    season = rng.choice("SF")
    centres: dict[str, set[str]] = {}
    if any(r.get("module") == "supply_centres" for r in extra["rules_in_force"]):
        for c in sorted(BOARD.supply_centres):
            if rng.random() < 0.5:
                centres.setdefault(rng.choice(POWERS), set()).add(c)
    return Position("dipnomicy", Phase(season, 1901, "M"), units, centres, extra=extra)


def _name(rng: random.Random, unit: Unit) -> str:
    size = getattr(unit, "size", 1)
    prefix = f"{size}" if size > 1 and rng.random() < 0.5 else ""
    return f"{prefix}{unit.kind} {_spelling(rng, unit.location)}"


def _arrow(rng: random.Random) -> str:
    return rng.choice((" -- ", " - ", " -> "))


def random_lines(position: Position, rng: random.Random) -> Lines:
    """At most one line a unit (see the module's docstring)."""
    units = list(position.units)
    rng.shuffle(units)
    at = {u.province: u for u in units}
    lines: dict[str, tuple[str, str]] = {}  # unit's province -> its line
    moves: dict[str, str] = {}  # origin province -> destination province
    for u in units:
        if u.province in lines:
            continue
        roll = rng.random()
        mine = [at[p] for p in sorted(BOARD.neighbours(u.province))
                if p in at and at[p].power == u.power]
        if mine and roll < 0.3:
            # A merge, whether or not the other unit has an order, even a merge: so that
            # units are named in two merges.
            other = rng.choice(mine)
            lines[u.province] = (u.power, f"{rng.choice(('Me', 'ME', 'merge'))} "
                                          f"{_name(rng, u)} {_name(rng, other)}")
            continue
        if u.kind == FLEET and roll < 0.65:
            firsts = sorted(BOARD.fleet_adj[u.location])
            if firsts:
                via = rng.choice(firsts)
                ends = sorted({province_of(x) for x in BOARD.fleet_adj[via]})
                if len(ends) > 1 and rng.random() < 0.9:
                    ends.remove(u.province)  # back home: refused, now and then
                end = rng.choice(ends)
                arrow = _arrow(rng)
                lines[u.province] = (u.power, f"{_name(rng, u)}{arrow}"
                                              f"{_spelling(rng, province_of(via))}{arrow}"
                                              f"{_spelling(rng, end)}")
                if end != u.province:
                    moves[u.province] = end
                continue
        if roll < 0.75:
            adj = sorted(BOARD.army_adj[u.location] if u.kind == ARMY
                         else BOARD.fleet_adj[u.location])
            if adj:
                dest = rng.choice(adj)
                lines[u.province] = (u.power, f"{_name(rng, u)}{_arrow(rng)}"
                                              f"{_spelling(rng, dest)}")
                moves[u.province] = province_of(dest)
                continue
    # Convoys: an army on a coast carried by a fleet at sea next to it.
    for u in units:
        if u.kind != ARMY or u.province in lines or rng.random() > 0.4:
            continue
        for sea in sorted(BOARD.neighbours(u.province)):
            fleet = at.get(sea)
            if fleet is None or fleet.kind != FLEET or sea in lines or not BOARD.is_sea(sea):
                continue
            coasts = sorted(p for p in BOARD.neighbours(sea)
                            if p != u.province and BOARD.provinces[p].kind == "coast")
            if coasts:
                dest = rng.choice(coasts)
                lines[u.province] = (u.power, f"{_name(rng, u)}{_arrow(rng)}{dest}")
                lines[sea] = (fleet.power, f"{_name(rng, fleet)} C {_name(rng, u)} - {dest}")
                moves[u.province] = dest
                break
    # Supports (refused without P1) of a move or of a unit standing, then holds.
    for u in units:
        if u.province in lines:
            continue
        reach = BOARD.army_adj[u.location] if u.kind == ARMY else BOARD.fleet_reach[u.location]
        options = []
        for other in units:
            if other is u:
                continue
            dest = moves.get(other.province)
            if dest is not None and dest in reach and dest != u.province:
                options.append(f"S {_name(rng, other)} - {dest}")
            elif dest is None and other.province in reach:
                options.append(f"S {_name(rng, other)}")
        if options and rng.random() < 0.8:
            lines[u.province] = (u.power, f"{_name(rng, u)} {rng.choice(options)}")
        elif rng.random() < 0.5:
            lines[u.province] = (u.power, f"{_name(rng, u)} H")
    return list(lines.values())


def random_phase(seed: int) -> tuple[Position, Lines, Lines]:
    """Seed ``seed``: a position, its order lines, and the same lines shuffled."""
    rng = random.Random(seed)
    position = random_position(rng)
    lines = random_lines(position, rng)
    shuffled = list(lines)
    rng.shuffle(shuffled)
    return position, lines, shuffled


def report_paragraphs(text: str) -> list[list[str]]:
    """The move report with each paragraph's lines sorted: a country's moves come in the
    order its player wrote them, which is the one thing a listing may change."""
    return [sorted(p.splitlines()) for p in text.split("\n\n")]


def ruling(position: Position, lines: Lines) -> dict[str, Any]:
    """All a phase's adjudication decides, whatever the listing: the next position (as the
    contract writes it, sizes and rules included), each order's result and reason, the units
    beaten out (by whom, where they may go), those merged away, and the move report."""
    outcome = VARIANT.adjudicate_lines(position, lines)
    return {
        "position": VARIANT.write_position(outcome.position),
        "results": sorted([r.power, r.order, r.result, r.reason] for r in outcome.results),
        "dislodged": sorted([str(d.unit), d.unit.power, d.attacker_from or "",
                             list(d.retreats or ())] for d in outcome.dislodged),
        "disbanded": sorted(f"{u.power} {u}" for u in outcome.disbanded),
        "report": report_paragraphs(move_report(outcome, [])),
    }


def check_seed(seed: int) -> str | None:
    """None when seed ``seed``'s listings get one ruling; else what went wrong."""
    position, lines, shuffled = random_phase(seed)
    try:
        first = ruling(position, lines)
        second = ruling(position, shuffled)
    except Exception:  # noqa: BLE001 - counted and shown, never hidden
        return "exception: " + traceback.format_exc(limit=-3).strip().splitlines()[-1]
    return None if first == second else "different"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Random Dipnomicy movement phases, adjudicated as listed and shuffled.")
    parser.add_argument("seed", type=int)
    parser.add_argument("--count", type=int, default=1)
    args = parser.parse_args(argv)
    if args.count <= 1:
        position, lines, shuffled = random_phase(args.seed)
        print(json.dumps(VARIANT.write_position(position)))
        for power, line in lines:
            print(f"{power}: {line}")
        first = ruling(position, lines)
        for r in first["results"]:
            print(" ".join(x for x in r if x))
        second = ruling(position, shuffled)
        print("same ruling when shuffled" if first == second else
              "DIFFERENT ruling when shuffled: " + json.dumps(second["results"]))
        return 0 if first == second else 1
    t0 = time.perf_counter()
    differ: list[int] = []
    raised: dict[int, str] = {}
    for seed in range(args.seed, args.seed + args.count):
        problem = check_seed(seed)
        if problem == "different":
            differ.append(seed)
        elif problem:
            raised[seed] = problem
    print(f"{args.count} phases (seeds {args.seed}..{args.seed + args.count - 1}) in "
          f"{time.perf_counter() - t0:.0f} s: {len(differ)} different {differ[:30]}, "
          f"{len(raised)} raised {dict(list(raised.items())[:10])}")
    return 1 if differ or raised else 0


if __name__ == "__main__":
    sys.exit(main())
