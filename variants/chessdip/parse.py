"""Reading one Chess Dip order line (rules §3.1, "Order syntax").

The grammar is the seed's, read forgivingly (any case, spaces optional, ``Ke1`` as ``K e1``)::

    <order>  = <piece> <square> <action> | O-O | O-O-O
    <piece>  = (empty) | P | N | B | R | K
    <action> = H | - <square> | S <square> <direct action> | t <square> x <square>
    <direct action> = H | - <square> | x <square> | t <square> | C <square> <code> <square>
    <code>   = - | x | t | S

Also read: an empty action as ``H``; a supported piece's letter (``N g1 S K e1 - e2``);
``x``/``t`` instead of ``-`` in a player's own move; ``0-0`` for ``O-O``. In the adjustment
phase: ``BUILD N b1`` / ``N b1 BUILD``, ``REMOVE K e1`` / ``DISBAND`` / ``D``, ``WAIVE``, and
promotion ``P d8 = N``, ``d8=N``, ``PROMOTE d8 TO N``, ``P d8 PROMOTES TO R``.

Syntax and names only: whether the piece is there, is yours or can get there is validation
(:mod:`judge.variants.chessdip.rules`). An unreadable line raises
:class:`~judge.engine.errors.OrderSyntaxError` naming the word at fault.
"""

from __future__ import annotations

import re

from judge.engine.errors import OrderSyntaxError
from judge.engine.orders import Build, Order, Remove, UnitRef, Waive
from judge.variants.chessdip.board import is_square
from judge.variants.chessdip.orders import (
    ANY,
    ATTACK,
    TRAVEL,
    Action,
    Castle,
    ChessHold,
    ChessMove,
    ChessSupport,
    ConvoyAct,
    EnPassant,
    HoldAct,
    MoveAct,
    Promote,
)

PIECES = {"k": "K", "n": "N", "b": "B", "r": "R", "p": "P",
          "king": "K", "knight": "N", "bishop": "B", "rook": "R", "pawn": "P"}
_HOLD = {"h", "hold", "holds", "stand", "stands"}
_MOVE = {"-": ANY, "->": ANY, "to": ANY, "x": ATTACK, "t": TRAVEL}
_CASTLE = re.compile(r"^\s*([o0])\s*-\s*([o0])(\s*-\s*([o0]))?\s*$", re.IGNORECASE)
_GLUED = re.compile(r"^(k|n|b|r|p|q)([a-h][1-8])$", re.IGNORECASE)


def tokens(text: str) -> list[str]:
    """Lower-cased words; ``-`` ``=`` and the ``x`` of ``e5xd5`` become words of their own."""
    text = text.strip().rstrip(".").replace(",", " ").replace(";", " ")
    text = text.replace("->", " - ").replace("=", " = ")
    text = re.sub(r"([a-h][1-8])\s*x\s*([a-h][1-8])", r"\1 x \2", text, flags=re.IGNORECASE)
    text = text.replace("-", " - ")
    out: list[str] = []
    for word in text.split():
        m = _GLUED.match(word)
        if m:
            out.extend((m.group(1).lower(), m.group(2).lower()))
        else:
            out.append(word.lower())
    return out


class _Reader:
    def __init__(self, words: list[str], text: str) -> None:
        self.words = words
        self.i = 0
        self.text = text

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.words[j] if j < len(self.words) else None

    def take(self) -> str:
        w = self.peek()
        if w is None:
            raise OrderSyntaxError(f"the order '{self.text.strip()}' ends too soon")
        self.i += 1
        return w

    def done(self) -> bool:
        return self.i >= len(self.words)

    def expect_end(self) -> None:
        if not self.done():
            raise OrderSyntaxError(f"unexpected '{self.peek()}' in '{self.text.strip()}'")

    def square(self, after: str) -> str:
        w = self.peek()
        if w is None:
            raise OrderSyntaxError(f"no square after '{after}'")
        if not is_square(w):
            if re.fullmatch(r"[a-z]\d+", w):
                raise OrderSyntaxError(f"'{w}' is not a square of the board (a1 to h8)")
            raise OrderSyntaxError(f"expected a square after '{after}', not '{w}'")
        self.i += 1
        return w

    def piece(self) -> str | None:
        """An optional piece letter or name."""
        w = self.peek()
        if w == "q" or w == "queen":
            raise OrderSyntaxError("there are no queens in Chess Dip")
        if w in PIECES and not is_square(w):
            nxt = self.peek(1)
            # A letter before something shaped like a square is a piece ("K e9" is read as a
            # king on a square that does not exist, and the square is reported).
            if nxt is not None and re.fullmatch(r"[a-z]\d+", nxt):
                self.i += 1
                return PIECES[w]
        return None

    def unit(self) -> UnitRef:
        kind = self.piece()
        if kind is None and self.peek() is not None and not is_square(self.peek() or ""):
            w = self.peek()
            if not re.fullmatch(r"[a-z]\d+", w or ""):
                raise OrderSyntaxError(f"an order starts with a piece and its square "
                                       f"(K e1, e2), not '{w}'")
        return UnitRef(kind, self.square(kind or "the piece"))


def parse_order(text: str, phase_kind: str = "M") -> Order:
    """Read one line into an order value (``phase_kind``: ``M``, ``R`` or ``A``)."""
    if _CASTLE.match(text):
        m = _CASTLE.match(text)
        assert m is not None
        return Castle("O-O-O" if m.group(3) else "O-O")
    words = tokens(text)
    if not words:
        raise OrderSyntaxError("empty order")
    r = _Reader(words, text)
    if phase_kind == "A":
        return _adjustment(r)
    first = r.peek()
    if first in ("build", "remove", "disband", "waive", "promote"):
        raise OrderSyntaxError(f"'{first}' orders are given in the Winter (adjustment) phase")
    unit = r.unit()
    if r.done():
        return ChessHold(unit)
    w = r.take()
    if w in _HOLD:
        r.expect_end()
        return ChessHold(unit)
    if w in _MOVE:
        dest = r.square(w)
        if w == "t" and r.peek() == "x":
            r.take()
            capture = r.square("x")
            r.expect_end()
            return EnPassant(unit, dest, capture)
        r.expect_end()
        return ChessMove(unit, dest, _MOVE[w])
    if w in ("s", "support", "supports"):
        r.piece()  # the supported piece's letter is optional and not needed
        square = r.square(w)
        action = _direct_action(r)
        r.expect_end()
        return ChessSupport(unit, square, action)
    if w in ("c", "convoy", "convoys"):
        raise OrderSyntaxError("convoy orders are implicit: support one with 'S <square> C ...'")
    if w in ("b", "build", "d", "disband", "remove", "promote", "="):
        raise OrderSyntaxError(f"'{w}' orders are given in the Winter (adjustment) phase")
    raise OrderSyntaxError(f"unknown word '{w}' in '{text.strip()}'")


def _direct_action(r: _Reader) -> Action:
    if r.done():
        return HoldAct()
    w = r.take()
    if w in _HOLD:
        return HoldAct()
    if w in _MOVE:
        return MoveAct(_MOVE[w], r.square(w))
    if w in ("c", "convoy", "convoys"):
        origin = r.square(w)
        code = r.take()
        if code not in ("-", "x", "t", "s"):
            raise OrderSyntaxError(f"a convoy code is -, x, t or S, not '{code}'")
        code = "S" if code == "s" else code
        return ConvoyAct(origin, code, r.square(code))
    raise OrderSyntaxError(f"unknown word '{w}' after the supported square")


def _adjustment(r: _Reader) -> Order:
    first = r.peek()
    if first in ("waive", "w"):
        return Waive()
    if first in ("build", "b") and (r.peek(1) in PIECES and r.peek(2) is not None
                                    and is_square(r.peek(2) or "")):
        r.take()
        unit = r.unit()
        r.expect_end()
        return Build(unit)
    if first in ("remove", "disband", "d"):
        r.take()
        unit = r.unit()
        r.expect_end()
        return Remove(unit)
    if first in ("promote", "promotes"):
        r.take()
        unit = r.unit()
        return Promote(unit, _promotion_kind(r))
    unit = r.unit()
    w = r.take() if not r.done() else None
    if w in ("build", "builds", "b"):
        r.expect_end()
        return Build(unit)
    if w in ("remove", "removes", "disband", "disbands", "d"):
        r.expect_end()
        return Remove(unit)
    if w in ("=", "promote", "promotes", "-"):
        return Promote(unit, _promotion_kind(r))
    if w is None:
        raise OrderSyntaxError("say what to do with the piece: build, remove or promote (= N)")
    raise OrderSyntaxError(f"unknown word '{w}' in an adjustment order")


def _promotion_kind(r: _Reader) -> str:
    if r.peek() in ("to", "=", "into"):
        r.take()
    w = r.take()
    if w in ("q", "queen"):
        raise OrderSyntaxError("there are no queens in Chess Dip: promote to N, B or R")
    if w not in PIECES:
        raise OrderSyntaxError(f"promote to a knight, bishop or rook (N, B or R), not '{w}'")
    r.expect_end()
    return PIECES[w]
