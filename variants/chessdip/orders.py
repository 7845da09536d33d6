"""Chess Dip order values (rules §3.1, "Order syntax").

A player's ``<order>`` is read into one of these; order validation (in
:mod:`judge.variants.chessdip.rules`) turns it into its ``<true order>``: the piece letter filled in,
``-`` resolved to an attack or a travel, en passant and castling checked. Implicit convoy orders
are never written by players; the movement phase creates them.

Build, removal and waive are the engine's own values (:mod:`judge.engine.orders`): their syntax
is standard Diplomacy's (rules §4.4).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.engine.orders import UnitRef

ATTACK = "x"
TRAVEL = "t"
ANY = "-"  # as written: attack or travel, whichever the piece's movement makes it


@dataclass(frozen=True, slots=True)
class HoldAct:
    """``H``: what a support-hold supports."""

    def __str__(self) -> str:
        return "H"


@dataclass(frozen=True, slots=True)
class MoveAct:
    """``- e4``, ``x d5`` or ``t d6``: a move order of the piece on the supported square."""

    code: str  # ANY, ATTACK or TRAVEL
    dest: str

    def __str__(self) -> str:
        return f"{self.code} {self.dest}"


@dataclass(frozen=True, slots=True)
class ConvoyAct:
    """``C f1 - c4``: the implicit convoy order, on the supported square, of the
    multiple-square order from ``origin`` whose landing square is ``landing``. ``code`` is
    ``S`` when that order is a support (its landing square being where it supports)."""

    origin: str
    code: str  # ANY, ATTACK, TRAVEL or "S"
    landing: str

    def __str__(self) -> str:
        return f"C {self.origin} {self.code} {self.landing}"


Action = HoldAct | MoveAct | ConvoyAct


@dataclass(frozen=True, slots=True)
class ChessHold:
    unit: UnitRef

    def __str__(self) -> str:
        return f"{self.unit} H"


@dataclass(frozen=True, slots=True)
class ChessMove:
    """A move order; after validation ``code`` is ATTACK or TRAVEL (rules §3.3.1)."""

    unit: UnitRef
    dest: str
    code: str = ANY

    def __str__(self) -> str:
        return f"{self.unit} - {self.dest}"


@dataclass(frozen=True, slots=True)
class ChessSupport:
    """``N g1 S e1 - e2``: support of the order given on ``square`` (a piece's order, or the
    implicit convoy order of a square)."""

    unit: UnitRef
    square: str
    action: Action

    def __str__(self) -> str:
        return f"{self.unit} S {self.square} {self.action}"

    @property
    def landing(self) -> str:
        """The supported order's landing square: where this support's path goes."""
        if isinstance(self.action, MoveAct):
            return self.action.dest
        return self.square


@dataclass(frozen=True, slots=True)
class EnPassant:
    """``e5 t d6 x d5``: a travel order to ``via`` coupled with an attack order on ``capture``
    (rules §4.3)."""

    unit: UnitRef
    via: str
    capture: str

    def __str__(self) -> str:
        return f"{self.unit} t {self.via} x {self.capture}"


@dataclass(frozen=True, slots=True)
class Castle:
    """``O-O`` or ``O-O-O``: two coupled travel orders, king and rook (rules §3.3.2)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Promote:
    """``P d8 = N``: a pawn on its last rank after Fall becomes a knight, bishop or rook."""

    unit: UnitRef
    kind: str

    def __str__(self) -> str:
        return f"{self.unit} = {self.kind}"


MOVEMENT = (ChessHold, ChessMove, ChessSupport, EnPassant, Castle)
