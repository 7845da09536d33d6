"""Dipnomicy's own units and orders, and the seed's notation.

* :class:`SizedUnit`: a unit with a size (P6). Size 1 writes as a standard unit (``A BUD``),
  larger ones with the size in front (``2A BUD``), as the contract lets a variant write units.
* :class:`Merge`: ``Me [unit removed] [unit embiggened]`` (P6).
* A fleet's double move (P4) is a standard :class:`~judge.engine.orders.Move` with a one-step
  ``route``: the parser already reads ``F Edi - NTH - Hol`` that way.
* :func:`notation`: the seed's way of writing orders, ``A Bud -- Ser``, ``F Edi -- NRG``,
  ``A Mar H``: land and coast territories in title case, seas in capitals, and the seed's
  ``NRG``/``MID`` for the map's ``NWG``/``MAO``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.engine.board import Board
from judge.engine.errors import OrderSyntaxError
from judge.engine.orders import Unit, UnitRef

_SIZED = re.compile(r"^\s*(\d+)\s*([AaFf])\s+(\S+)\s*$")


@dataclass(frozen=True, slots=True)
class SizedUnit(Unit):
    """A unit with a size (P6: every unit has a size, initially 1)."""

    size: int = 1

    def __str__(self) -> str:
        return f"{self.size}{self.kind} {self.location}" if self.size > 1 else \
            f"{self.kind} {self.location}"


def size_of(unit: Unit) -> int:
    return unit.size if isinstance(unit, SizedUnit) else 1


def sized(unit: Unit, size: int) -> Unit:
    """``unit`` with ``size``; a plain :class:`Unit` at size 1, so base positions stay plain."""
    if size == 1:
        return Unit(unit.power, unit.kind, unit.location)
    return SizedUnit(unit.power, unit.kind, unit.location, size)


def parse_unit(power: str, text: str) -> Unit:
    """``"2A BUD"`` or ``"A BUD"`` -> a unit (the position-file form)."""
    m = _SIZED.match(text)
    if m:
        size = int(m.group(1))
        if size < 1:
            raise ValueError(f"a unit's size is at least 1: {text!r}")
        return sized(Unit(power, m.group(2).upper(), m.group(3).upper()), size)
    return Unit.parse(power, text)


@dataclass(frozen=True, slots=True)
class Merge:
    """P6: ``unit`` leaves the board and ``into`` grows by one."""

    unit: UnitRef
    into: UnitRef

    def __str__(self) -> str:
        return f"ME {self.unit} {self.into}"


_MERGE = re.compile(r"^\s*(?:me|merge|merges)\b\s*(.*)$", re.IGNORECASE)
_REF = re.compile(r"^\s*(?:(army|fleet|a|f)\s+)?(.+?)\s*$", re.IGNORECASE)


def _read_ref(board: Board, words: list[str]) -> tuple[UnitRef, list[str]]:
    """The longest run of words naming a place, with an optional unit type before it."""
    kind = None
    if words and words[0].lower() in ("a", "f", "army", "fleet"):
        kind = words[0][0].upper()
        words = words[1:]
    for n in range(len(words), 0, -1):
        loc = board.lookup(" ".join(words[:n]))
        if loc:
            return UnitRef(kind, loc), words[n:]
    raise OrderSyntaxError(f"unknown place {words[0]!r}" if words else "a unit is missing")


def parse_merge(board: Board, text: str) -> Merge | None:
    """A merge line (``Me A Bud A Vie``, ``merge Budapest into Vienna``), or None."""
    m = _MERGE.match(text)
    if not m:
        return None
    words = [w for w in re.split(r"[\s,]+", m.group(1)) if w and w.lower() not in ("into", "with")]
    first, rest = _read_ref(board, words)
    if not rest:
        raise OrderSyntaxError("a merge names two units: Me [unit removed] [unit embiggened]")
    second, rest = _read_ref(board, rest)
    if rest:
        raise OrderSyntaxError(f"unexpected {' '.join(rest)!r} after the merge")
    return Merge(first, second)


def normalise_line(text: str) -> str:
    """The seed writes moves with ``--``; the standard parser knows ``-``. A unit's size
    (``2A Bud``, as reports write it under P6) is dropped: the territory names the unit."""
    text = re.sub(r"(?<!\S)\d+([AaFf])(?=\s)", r"\1", text)
    return re.sub(r"\s*-{2,}\s*", " - ", text)


# --------------------------------------------------------------------- notation
SEED_NAMES = {"NWG": "NRG", "MAO": "MID", "STP": "StP"}


def place(board: Board, location: str) -> str:
    """A location as the seed writes it: ``Bud``, ``StP``, ``NRG``, ``Spa/nc``."""
    prov, _, coast = location.partition("/")
    if prov in SEED_NAMES:
        name = SEED_NAMES[prov]
    elif prov in board.provinces and board.is_sea(prov):
        name = prov
    else:
        name = prov.title()
    return f"{name}/{coast.lower()}" if coast else name


_TOKEN = re.compile(r"\b([A-Z]{3})(/[A-Z]{2})?\b")


def notation(board: Board, canonical: str) -> str:
    """An order's canonical text (``A BUD - SER``) in the seed's notation (``A Bud -- Ser``)."""
    def one(m: re.Match[str]) -> str:
        loc = m.group(1) + (m.group(2) or "")
        return place(board, loc) if m.group(1) in board.provinces else m.group(0)

    # The unit is named by its territory alone (``F StP``), as the seed writes it.
    canonical = re.sub(r"^(\d*[AF] [A-Z]{3})/[A-Z]{2}", r"\1", canonical)
    text = _TOKEN.sub(one, canonical)
    text = text.replace(" - ", " -- ")
    return re.sub(r"^ME ", "Me ", text)
