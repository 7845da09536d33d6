"""Random legal Chess Dip play, for property tests: order lines as a player writes them.

Deterministic given the ``random.Random`` passed in. Moves come first so that supports can
match them; some supports are support-convoys of a real multiple-square move, some castle or
take en passant when the position allows.

*Seed N* names one random movement phase (:func:`random_phase`), listed twice: as generated
and shuffled. The ruling must not depend on the listing (tests/test_chessdip_order.py).
From the command line::

    python -m judge.variants.chessdip.randomgame 23060          # show the phase, both rulings
    python -m judge.variants.chessdip.randomgame 0 --count 200000   # check seeds 0..199999
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time

from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
from judge.engine.variant import Variant
from judge.variants.chessdip.board import ChessBoard
from judge.variants.chessdip.rules import ChessRules, normalise


def movement_lines(board: ChessBoard, rules: ChessRules, position: Position,
                   rng: random.Random) -> list[tuple[str, str]]:
    position = normalise(position)
    units = sorted(position.units, key=lambda u: u.location)
    at = {u.location: u for u in units}
    lines: list[tuple[str, str]] = []
    busy: set[str] = set()
    moves: list[tuple[str, str, tuple[str, ...]]] = []  # (origin, landing, intermediates)
    moved = set(position.extra.get("moved") or ())
    for power in board.powers:
        for name, c in board.castlings[power].items():
            k, r = at.get(c.king_from), at.get(c.rook_from)
            if (k and r and k.kind == "K" and r.kind == "R" and k.power == r.power == power
                    and c.king_from not in moved and c.rook_from not in moved
                    and c.king_from not in busy and c.rook_from not in busy
                    and rng.random() < 0.5):
                lines.append((power, name))
                busy.update((c.king_from, c.rook_from))
                moves.append((c.king_from, c.king_to, ()))
                moves.append((c.rook_from, c.rook_to, c.rook_intermediate))
    for rec in position.extra.get("en_passant") or ():
        passed = at.get(rec["to"])
        if passed is None or passed.kind != "P" or passed.power != rec["power"]:
            continue  # removed or promoted in the Winter since
        for u in units:
            if (u.kind == "P" and u.power != rec["power"] and u.location not in busy
                    and rec["via"] in board.pawn_attacks(u.power, u.location)
                    and rng.random() < 0.7):
                lines.append((u.power, f"{u.location} t {rec['via']} x {rec['to']}"))
                busy.add(u.location)
                moves.append((u.location, rec["via"], ()))
    for u in units:
        if u.location in busy or rng.random() < 0.45:
            continue
        targets = board.targets(u.kind, u.power, u.location)
        if not targets:
            continue
        # Half the time, go for an enemy piece: conflict is what the tests are after.
        enemies = [t for t in targets if t in at and at[t].power != u.power]
        dest = rng.choice(enemies if enemies and rng.random() < 0.5 else targets)
        lines.append((u.power, f"{u.kind} {u.location} - {dest}"))
        busy.add(u.location)
        path = board.move_path(u.kind, u.power, u.location, dest) or ()
        moves.append((u.location, dest, path))
    for u in units:
        if u.location in busy:
            continue
        options: list[str] = []
        for origin, landing, inter in moves:
            if origin != u.location != landing and board.reach_path(
                    u.kind, u.power, u.location, landing) is not None:
                options.append(f"S {origin} - {landing}")
            for x in inter:
                if x != u.location and board.reach_path(u.kind, u.power, u.location,
                                                        x) is not None:
                    options.append(f"S {x} C {origin} - {landing}")
        for other in units:
            if other.location not in busy and other is not u and board.reach_path(
                    u.kind, u.power, u.location, other.location) is not None:
                options.append(f"S {other.location} H")
        if options and rng.random() < 0.9:
            lines.append((u.power, f"{u.kind} {u.location} {rng.choice(options)}"))
        elif rng.random() < 0.5:
            lines.append((u.power, f"{u.kind} {u.location} H"))
    return lines


def adjustment_lines(board: ChessBoard, rules: ChessRules, position: Position,
                     rng: random.Random) -> list[tuple[str, str]]:
    position = normalise(position)
    lines: list[tuple[str, str]] = []
    for u in rules.promotions_due(position):
        if rng.random() < 0.8:
            lines.append((u.power, f"P {u.location} = {rng.choice(board.promotion_kinds)}"))
    for power in board.powers:
        count = rules.adjustment_count(position, power)
        if count > 0:
            squares = rules.build_squares(position, power)
            rng.shuffle(squares)
            for sq in squares[:count]:
                if rng.random() < 0.85:
                    lines.append((power, f"BUILD {rng.choice(board.buildable_kinds)} {sq}"))
                else:
                    lines.append((power, "WAIVE"))
        elif count < 0:
            mine = sorted(u.location for u in position.units if u.power == power)
            rng.shuffle(mine)
            # Sometimes leave removals to civil disorder.
            for sq in mine[: -count - (1 if rng.random() < 0.3 else 0)]:
                kind = next(u.kind for u in position.units if u.location == sq)
                lines.append((power, f"REMOVE {kind} {sq}"))
    return lines


def random_position(board: ChessBoard, rng: random.Random, pieces: int) -> Position:
    """``pieces`` pieces of random powers and kinds on random squares; often kings and rooks
    ready to castle, and pawns that have just made a two-square move (en passant)."""
    squares = sorted(board.provinces)
    rng.shuffle(squares)
    placed: dict[str, Unit] = {}
    for power in board.powers:
        if rng.random() < 0.4:
            c = board.castlings[power][rng.choice(("O-O", "O-O-O"))]
            if c.king_from not in placed and c.rook_from not in placed:
                placed[c.king_from] = Unit(power, "K", c.king_from)
                placed[c.rook_from] = Unit(power, "R", c.rook_from)
    for sq in squares:
        if len(placed) >= pieces:
            break
        if sq in placed:
            continue
        power = rng.choice(board.powers)
        kind = rng.choice("KNBRPP")
        if kind == "P" and int(sq[1]) == board.promotion_rank(power):
            kind = "N"
        placed[sq] = Unit(power, kind, sq)
    passes = []
    for u in placed.values():
        d = board.direction(u.power)
        if u.kind != "P" or rng.random() < 0.5:
            continue
        via = f"{u.location[0]}{int(u.location[1]) - d}"
        start = f"{u.location[0]}{int(u.location[1]) - 2 * d}"
        if (start in board.provinces and via in board.provinces and via not in placed
                and board.move_path("P", u.power, start, u.location) == (via,)):
            passes.append({"power": u.power, "from": start, "via": via, "to": u.location})
    centres: dict[str, set[str]] = {}
    for centre in sorted(board.supply_centres):
        if rng.random() < 0.6:
            centres.setdefault(rng.choice(board.powers), set()).add(centre)
    extra = {"en_passant": passes} if passes else {}
    return Position(board.name, Phase("S", 1901, "M"), list(placed.values()), centres,
                    extra=extra)


Lines = list[tuple[str, str]]


def random_phase(board: ChessBoard, rules: ChessRules, seed: int
                 ) -> tuple[Position, Lines, Lines]:
    """Seed ``seed``: a random position of 2 to 40 pieces, its movement order lines, and the
    same lines shuffled. Half the phases are a Fall's, so that centres change hands (and a
    power may win) after the moves."""
    rng = random.Random(seed)
    position = random_position(board, rng, rng.randint(2, 40))
    lines = movement_lines(board, rules, position, rng)
    shuffled = list(lines)
    rng.shuffle(shuffled)
    # Drawn last, so the pieces and lines of a seed are what they were before Falls existed.
    if rng.random() < 0.5:
        position = dataclasses.replace(position, phase=Phase("F", 1901, "M"))
    return position, lines, shuffled


def chess_of(variant: Variant) -> tuple[ChessBoard, ChessRules]:
    """Chess Dip's board and rules, the only ones these phases are drawn for; TypeError for
    another variant's."""
    board, rules = variant.board, variant.rules
    if not isinstance(board, ChessBoard) or not isinstance(rules, ChessRules):
        raise TypeError(f"random Chess Dip phases need Chess Dip, not {variant.name}")
    return board, rules


def ruling(variant: Variant, position: Position, lines: Lines) -> dict:
    """Everything a phase's adjudication decides, whatever the listing: the next position (as
    the contract writes it), each order's result and reason, the pieces dislodged (with their
    attacker and retreats), disbanded and built, the centres that changed hands, and the
    report's events (what every report says, the diagram included). Whatever comes in the
    order of the listing (results, the order events) is sorted: only what was decided counts.
    """
    outcome = variant.adjudicate_lines(position, lines)
    orders = []  # the orders that read, as the report's events take them
    for power, line in lines:
        try:
            orders.append((power.upper(), variant.read_order(position, power.upper(), line)))
        except ValueError:
            continue
    events = chess_of(variant)[1].events(outcome, orders)
    return {
        "position": variant.write_position(outcome.position),
        "results": sorted([r.power, r.order, r.result, r.reason] for r in outcome.results),
        "dislodged": sorted([str(d.unit), d.unit.power, d.attacker_from or "",
                             list(d.retreats or ())] for d in outcome.dislodged),
        "disbanded": sorted(f"{u.power} {u}" for u in outcome.disbanded),
        "built": sorted(f"{u.power} {u}" for u in outcome.built),
        "centre_changes": sorted([c, old or "", new]
                                 for c, (old, new) in outcome.centre_changes.items()),
        "events": sorted(json.dumps([e.kind, e.fields, e.audience], sort_keys=True)
                         for e in events),
    }


def listing_matters(variant: Variant, seed: int) -> bool:
    """Whether seed ``seed``'s two listings get different rulings."""
    position, lines, shuffled = random_phase(*chess_of(variant), seed)
    return ruling(variant, position, lines) != ruling(variant, position, shuffled)


def main(argv: list[str] | None = None) -> int:
    from judge.variants.chessdip import VARIANT

    parser = argparse.ArgumentParser(
        description="Random Chess Dip movement phases, adjudicated as listed and shuffled.")
    parser.add_argument("seed", type=int)
    parser.add_argument("--count", type=int, default=1,
                        help="check this many seeds from SEED on and print a summary")
    args = parser.parse_args(argv)
    if args.count <= 1:
        position, lines, shuffled = random_phase(*chess_of(VARIANT), args.seed)
        print(json.dumps(VARIANT.write_position(position)))
        for power, line in lines:
            print(f"{power}: {line}")
        first = ruling(VARIANT, position, lines)
        second = ruling(VARIANT, position, shuffled)
        for r in first["results"]:
            print(" ".join(x for x in r if x))
        print(json.dumps(first["position"]))
        print("same ruling when shuffled" if first == second else
              "DIFFERENT ruling when shuffled: " + json.dumps(second))
        return 0 if first == second else 1
    t0 = time.perf_counter()
    differ = []
    for n, s in enumerate(range(args.seed, args.seed + args.count), 1):
        if listing_matters(VARIANT, s):
            differ.append(s)
        if n % 1000 == 0:  # a long run stopped early still tells how far it got
            print(f"{n} phases (seeds {args.seed}..{s}) in {time.perf_counter() - t0:.0f} s: "
                  f"{len(differ)} different {differ[:50]}", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - t0
    print(f"{args.count} phases (seeds {args.seed}..{args.seed + args.count - 1}) in "
          f"{seconds:.0f} s: {len(differ)} with a different ruling when shuffled"
          + (f": seeds {' '.join(map(str, differ[:50]))}" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
