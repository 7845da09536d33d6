"""The Chess Dip board: 64 squares whose reach is computed from chess movement.

:class:`ChessBoard` is a :class:`~judge.engine.board.Board` (so names, centres, powers and
distances work as for any map) whose moves are not looked up in an adjacency list: a piece's
reach is chess movement on an empty board, and a bishop's or rook's path has *intermediate
squares*, each of which receives an implicit convoy order (rules §3.1).

Squares are written in lower case (``e4``); piece kinds are ``K N B R P`` (no queens).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.engine.board import Board, Source, read_source

FILES = "abcdefgh"
PIECE_NAMES = {"K": "king", "N": "knight", "B": "bishop", "R": "rook", "P": "pawn"}
_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def coords(square: str) -> tuple[int, int]:
    """``"e4"`` -> (4, 3): file and rank from 0."""
    return ord(square[0]) - 97, int(square[1]) - 1


def square_at(f: int, r: int) -> str | None:
    return f"{FILES[f]}{r + 1}" if 0 <= f < 8 and 0 <= r < 8 else None


def is_square(text: str) -> bool:
    return len(text) == 2 and text[0] in FILES and text[1] in "12345678"


def line_between(a: str, b: str) -> tuple[str, ...]:
    """The squares strictly between ``a`` and ``b`` on a rank, file or diagonal."""
    fa, ra = coords(a)
    fb, rb = coords(b)
    df = (fb > fa) - (fb < fa)
    dr = (rb > ra) - (rb < ra)
    out = []
    f, r = fa + df, ra + dr
    while (f, r) != (fb, rb):
        out.append(f"{FILES[f]}{r + 1}")
        f, r = f + df, r + dr
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Castling:
    """One castling of one power: the king's and the rook's travel orders (rules §3.3)."""

    name: str  # "O-O" or "O-O-O"
    king_from: str
    king_to: str
    rook_from: str
    rook_to: str
    rook_intermediate: tuple[str, ...]


class ChessBoard(Board):
    """A board whose geometry is chess movement (see the module docstring)."""

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        chess = data["chess"]
        self.sides: dict[str, dict] = chess["sides"]
        self.side_of: dict[str, str] = {
            p: side for side, info in self.sides.items() for p in info["powers"]
        }
        self.buildable_kinds: tuple[str, ...] = tuple(chess["buildable_piece_types"])
        self.promotion_kinds: tuple[str, ...] = tuple(chess["promotion_piece_types"])
        self.home_rank_centres: dict[str, frozenset[str]] = {
            side: frozenset(c for c in self.supply_centres if int(c[1]) in info["home_ranks"])
            for side, info in self.sides.items()
        }
        self.king_square: dict[str, str] = {}
        self.castlings: dict[str, dict[str, Castling]] = {}
        for power, special in chess["special_squares"].items():
            self.king_square[power] = special["king"]
            self.castlings[power] = {}
            for name in ("O-O", "O-O-O"):
                (k_from, k_to), (r_from, r_to) = special[name]["K"], special[name]["R"]
                # Rules §3.3.2: the rook's intermediate squares are those between its start
                # and landing squares *except the one where the king lands*. (The reference
                # code's data lists the king's landing square for O-O; the seed is followed.)
                inter = tuple(s for s in line_between(r_from, r_to) if s != k_to)
                self.castlings[power][name] = Castling(name, k_from, k_to, r_from, r_to, inter)
        # move_path and reach_path are pure functions of a board that never changes, asked
        # hundreds of times per phase (checking orders, expanding paths, random play): each
        # answer is kept. At most 5 kinds x 6 powers x 64 x 64 entries: only pieces and squares are kept.
        self._move_paths: dict[tuple[str, str, str, str], tuple[str, ...] | None] = {}
        self._reach_paths: dict[tuple[str, str, str, str], tuple[str, ...] | None] = {}

    @classmethod
    def load(cls, path: Source) -> ChessBoard:
        import json

        return cls(json.loads(read_source(path)))

    # ------------------------------------------------------------- sides
    def side(self, power: str) -> str:
        return self.side_of[power]

    def direction(self, power: str) -> int:
        return int(self.sides[self.side_of[power]]["pawn_direction"])

    def promotion_rank(self, power: str) -> int:
        return int(self.sides[self.side_of[power]]["promotion_rank"])

    def opposite_side(self, side: str) -> str:
        return next(s for s in self.sides if s != side)

    # ---------------------------------------------------------- movement
    def move_path(self, kind: str, power: str, a: str, b: str) -> tuple[str, ...] | None:
        """The intermediate squares if a ``kind`` piece of ``power`` can move from ``a`` to
        ``b`` on an empty board (a pawn: forwards, rules §4), else None."""
        key = (kind, power, a, b)
        if key in self._move_paths:
            return self._move_paths[key]
        if a == b or not is_square(a) or not is_square(b):
            return None
        path = self._move_path(kind, power, a, b)
        if kind in PIECE_NAMES:
            self._move_paths[key] = path
        return path

    def _move_path(self, kind: str, power: str, a: str, b: str) -> tuple[str, ...] | None:
        fa, ra = coords(a)
        fb, rb = coords(b)
        df, dr = fb - fa, rb - ra
        if kind == "K":
            return () if max(abs(df), abs(dr)) == 1 else None
        if kind == "N":
            return () if (df, dr) in _KNIGHT else None
        if kind == "B":
            return line_between(a, b) if abs(df) == abs(dr) else None
        if kind == "R":
            return line_between(a, b) if df == 0 or dr == 0 else None
        if kind == "P":
            d = self.direction(power)
            if df != 0:
                return None
            if dr == d:
                return ()
            # The horde-chess double step, from the first two ranks of the pawn's side.
            first_two = self.sides[self.side_of[power]]["pawn_double_step_from_ranks"]
            if dr == 2 * d and ra + 1 in first_two:
                return line_between(a, b)
            return None
        return None

    def pawn_attacks(self, power: str, a: str) -> tuple[str, ...]:
        """The squares a pawn of ``power`` on ``a`` attacks (and supports): one diagonally
        forwards on either side."""
        f, r = coords(a)
        d = self.direction(power)
        return tuple(s for s in (square_at(f - 1, r + d), square_at(f + 1, r + d)) if s)

    def reach_path(self, kind: str, power: str, a: str, b: str) -> tuple[str, ...] | None:
        """The path (intermediate squares) by which a piece on ``a`` supports, or attacks,
        ``b``: chess movement, except that a pawn attacks and supports diagonally."""
        key = (kind, power, a, b)
        if key in self._reach_paths:
            return self._reach_paths[key]
        path: tuple[str, ...] | None
        if kind == "P":
            path = () if b in self.pawn_attacks(power, a) else None
        else:
            path = self.move_path(kind, power, a, b)
        if kind in PIECE_NAMES and is_square(a) and is_square(b):
            self._reach_paths[key] = path
        return path

    def targets(self, kind: str, power: str, a: str) -> list[str]:
        """Every square a piece could move to (moves, pawn attacks), for random play."""
        out = []
        for f in range(8):
            for r in range(8):
                b = f"{FILES[f]}{r + 1}"
                if self.reach_path(kind, power, a, b) is not None or (
                        self.move_path(kind, power, a, b) is not None):
                    out.append(b)
        return out
