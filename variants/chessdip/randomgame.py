"""Random legal Chess Dip play, for property tests: order lines as a player writes them.

Deterministic given the ``random.Random`` passed in. Moves come first so that supports can
match them; some supports are support-convoys of a real multiple-square move, some castle or
take en passant when the position allows.
"""

from __future__ import annotations

import random

from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
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
    for c in sorted(board.supply_centres):
        if rng.random() < 0.6:
            centres.setdefault(rng.choice(board.powers), set()).add(c)
    extra = {"en_passant": passes} if passes else {}
    return Position(board.name, Phase("S", 1901, "M"), list(placed.values()), centres,
                    extra=extra)
