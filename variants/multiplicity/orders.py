"""Multiplicity II orders: merge, support for a merge, split; and reading them.

Player syntax, besides every standard form (a unit may be written ``2A``, ``A/F``, ``A/2F``,
``G`` ... and with the rules' brackets, ``2A(Par) S A(Bur) - Pic``):

* merge (rule 3): ``A(Mar) & A(Pic) MERGE 2A(Bur)``, ``A MAR, A PIC MERGE BUR``,
  ``A MAR and A PIC merge into BUR`` -- the formed unit may be written or left out;
* support for a merge (rule 3): ``A(Par) S MERGE (Bur)``, ``A PAR supports merge in BUR``;
* split (rule 7): ``4A(Par) SPLIT A(Pic), 2A(Bur), A(Gas)``; a component that stays is written
  at the unit's own place, with an order of its own: ``2A(Mar) SPLIT A(Pie), A(Mar) S F(MAO) -
  GAS``; a component may also be written as a move, ``A MAR - PIE``.

Unit compositions are read by replacing them with a plain ``A`` before the standard reader
runs and giving them back to the units in the order they were written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from judge.engine.board import Board, province_of
from judge.engine.errors import OrderSyntaxError
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    UnitRef,
)
from judge.engine.parse import parse_location, parse_order, parse_unit
from judge.variants.multiplicity.units import format_kind, parse_kind


@dataclass(frozen=True, slots=True)
class Merge:
    """``A MAR & A PIC MERGE 2A BUR``: the units move (or stay) to form one unit there."""

    units: tuple[UnitRef, ...]
    destination: str
    formed: str | None = None  # the composition written after MERGE, if any

    @property
    def unit(self) -> UnitRef:
        return self.units[0]

    def __str__(self) -> str:
        formed = f"{self.formed} " if self.formed else ""
        return f"{' & '.join(map(str, self.units))} MERGE {formed}{self.destination}"


@dataclass(frozen=True, slots=True)
class SupportMerge:
    """``A PAR S MERGE BUR``: support for the merge that forms in ``destination``."""

    unit: UnitRef
    destination: str

    def __str__(self) -> str:
        return f"{self.unit} S MERGE {self.destination}"


@dataclass(frozen=True, slots=True)
class Split:
    """``4A PAR SPLIT A PIC, 2A BUR, A GAS``: each part is the order of one component, whose
    unit is written with the component's composition at the splitting unit's place."""

    unit: UnitRef
    parts: tuple[Order, ...]

    def __str__(self) -> str:
        out = []
        for p in self.parts:
            if isinstance(p, Move) and not p.via_convoy:
                out.append(f"{p.unit.kind} {p.destination}")
            else:
                out.append(str(p))
        return f"{self.unit} SPLIT {', '.join(out)}"


MULTI_MOVEMENT = (Merge, SupportMerge, Split)

_SUPPORTS = (SupportHold, SupportMove, SupportMerge)


def replaced_in_movement(orders: list[Order]) -> dict[int, int]:
    """Which of one power's movement orders (checked, in the order written) a later one
    replaces: index -> index of the later order (description.md, "Orders for one unit").

    The judge's general rule, with each unit an order names: a MERGE is an order for every
    unit it merges, so a later order for any of them replaces the whole merge, and a merge
    replaces every earlier order for any of its units. Rule 4 is the one exception: a unit's
    support orders add up (a multiple unit spreads its supports; their written order is their
    priority), until an order of another kind replaces them all. The adjudicator
    (``MultiplicityRules.pieces_for``) obeys the same rule, so the orders a mail keeps give
    one result however they are listed.
    """
    replaced: dict[int, int] = {}
    live: dict[str, list[int]] = {}  # province -> the orders still standing for its unit
    for i, order in enumerate(orders):
        refs = order.units if isinstance(order, Merge) else (getattr(order, "unit", None),)
        for ref in refs:
            if ref is None:
                continue
            earlier = [j for j in live.get(ref.province, []) if j not in replaced]
            if isinstance(order, _SUPPORTS) and all(isinstance(orders[j], _SUPPORTS)
                                                    for j in earlier):
                live[ref.province] = [*earlier, i]
                continue
            for j in earlier:
                replaced[j] = i
            live[ref.province] = [i]
    return replaced

_KIND_TOKEN = re.compile(
    r"(?<![\w/])(\d*[AFG](?:/\d*[AFG])*|garrisons?|armies|army|fleets|fleet)(?![\w/])", re.IGNORECASE)
_BRACKET = re.compile(r"(?<![\w/])(\d*[AFG](?:/\d*[AFG])*)\s*\(\s*([^()]*?)\s*\)",
                      re.IGNORECASE)
_DEST_BRACKET = re.compile(r"(-|>|\bto\b)\s*\(\s*([^()]+?)\s*\)", re.IGNORECASE)
_MERGE_SUPPORT = re.compile(r"^(.*?)\s+(?:s|supp?orts?)\s+(?:the\s+)?merger?\s*(.*)$",
                            re.IGNORECASE)
_MERGE = re.compile(r"^(.*?)\s+merger?s?\s*(.*)$", re.IGNORECASE)
_SPLIT = re.compile(r"^(.*?)\s+splits?\b\s*(?:into\b|to\b|:)?\s*(.*)$", re.IGNORECASE)
_JOIN = re.compile(r"\s*(?:&|\+|,|;|\band\b)\s*", re.IGNORECASE)
_INTO = re.compile(r"^(?:in|into|at|to|on)\b\s*", re.IGNORECASE)


_SIGNED = re.compile(r"(?<![\w/])[-+](\d+[AFG](?:/\d*[AFG])*)(?![\w/])", re.IGNORECASE)
_NUMBER = re.compile(r"\d+")


def _kind_word(word: str) -> str:
    """A composition as written -> as the rules write it; OrderSyntaxError if it is none."""
    w = word.lower()
    if w.startswith("garrison"):
        return "G"
    if w in ("army", "armies"):
        return "A"
    if w in ("fleet", "fleets"):
        return "F"
    sizes = _NUMBER.findall(word)
    if any(len(n) > 6 for n in sizes):
        raise OrderSyntaxError(f"'{word}' is not a unit: no unit has that many components")
    if any(int(n) == 0 for n in sizes):
        raise OrderSyntaxError(f"'{word}' is not a unit: each letter counts 1 or more "
                               "components, as in A, 2A, A/F or A/2F")
    try:
        return format_kind(*parse_kind(word.upper()))
    except ValueError:
        raise OrderSyntaxError(f"'{word}' is not a unit: write each letter once, as in 2A, "
                               "A/F or A/2F") from None


def _mask(text: str) -> tuple[str, list[str]]:
    """Brackets opened (``A(Par)`` -> ``A Par``) and compositions replaced by ``A``, recorded.
    OrderSyntaxError for a composition that is none (``0A``, ``-1A``, ``A/A``)."""
    signed = _SIGNED.search(text)
    if signed:
        raise OrderSyntaxError(f"'{signed.group(0)}' is not a unit: each "
                               "letter counts 1 or more components, as in A, 2A, A/F or A/2F")
    text = _BRACKET.sub(r"\1 \2", text)
    text = _DEST_BRACKET.sub(r"\1 \2", text)
    kinds: list[str] = []

    def sub(m: re.Match[str]) -> str:
        kinds.append(_kind_word(m.group(1)))
        return "A"

    return _KIND_TOKEN.sub(sub, text), kinds


def _with_kinds(order: Order, kinds: list[str]) -> Order:
    """Give the recorded compositions back to the order's units, in written order."""
    it = iter(kinds)

    def fix(ref: UnitRef) -> UnitRef:
        if ref.kind is None:
            return ref
        return UnitRef(next(it, ref.kind), ref.location)

    if isinstance(order, (Hold, Retreat, Disband, Build, Remove, Move)):
        return replace(order, unit=fix(order.unit))
    if isinstance(order, (SupportHold, SupportMove, Convoy)):
        unit = fix(order.unit)
        return replace(order, unit=unit, target=fix(order.target))
    return order


def _unit(board: Board, text: str) -> UnitRef:
    masked, kinds = _mask(text.strip())
    ref = parse_unit(board, masked)
    if ref.kind is not None and kinds:
        ref = UnitRef(kinds[0], ref.location)
    return ref


def _place(board: Board, text: str) -> tuple[str | None, str]:
    """``2A(Bur)``, ``2A BUR``, ``(Bur)``, ``Burgundy`` -> (composition or None, location)."""
    text = _INTO.sub("", text.strip().strip(".")).strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    masked, kinds = _mask(text)
    m = re.match(r"^A\s+(.*)$", masked)
    if m and kinds:
        return kinds[0], parse_location(board, m.group(1))
    return None, parse_location(board, masked)


def _split_part(board: Board, origin: UnitRef, text: str) -> Order:
    masked, kinds = _mask(text)
    order = _with_kinds(parse_order(board, masked, "M"), kinds)
    unit = getattr(order, "unit", None)
    if not isinstance(unit, UnitRef) or unit.kind is None:
        raise OrderSyntaxError(f"say which part of {origin} each split order moves: "
                               f"'{text}' names no unit such as 'A PIC' or '2A BUR'")
    if isinstance(order, Hold) and unit.province != origin.province:
        # "A(Pic)" in a split: that component moves to Picardy.
        return Move(UnitRef(unit.kind, origin.location), unit.location)
    if unit.province != origin.province:
        raise OrderSyntaxError(f"'{text}': a component of {origin} is written at "
                               f"{origin.location} when it stays, or at its destination")
    return replace(order, unit=UnitRef(unit.kind, origin.location))


_PREFIX = re.compile(r"^\s*([A-Za-z]+)\s*:\s*(.*)$")


def strip_power(text: str, names: tuple[str, ...]) -> str:
    """``France: A MAR & A PIC MERGE BUR`` -> the order without the power's name (a full name
    or a prefix of three letters or more of one of ``names``)."""
    m = _PREFIX.match(text)
    if m:
        word = m.group(1).upper()
        if len(word) >= 3 and any(n.upper().startswith(word) for n in names):
            return m.group(2)
    return text.strip()


def parse_multi_order(board: Board, text: str, phase_kind: str = "M",
                      names: tuple[str, ...] = ()) -> Order:
    """Read one line of Multiplicity II orders (see the module docstring). ``names``: power
    names that may lead the line (``France:``), besides the board's powers."""
    line = strip_power(text, (*board.powers, *names))
    if phase_kind == "M":
        m = _MERGE_SUPPORT.match(line)
        if m and m.group(2).strip():
            _, dest = _place(board, m.group(2))
            return SupportMerge(_unit(board, m.group(1)), province_of(dest))
        m = _SPLIT.match(line)
        if m:
            origin = _unit(board, m.group(1))
            if not m.group(2).strip():
                raise OrderSyntaxError(f"no parts after SPLIT for {origin}")
            parts = tuple(_split_part(board, origin, p) for p in _split_list(m.group(2)))
            if len(parts) < 1:
                raise OrderSyntaxError("a split needs at least one part")
            return Split(origin, parts)
        m = _MERGE.match(line)
        if m:
            units = tuple(_unit(board, u) for u in _JOIN.split(m.group(1)) if u.strip())
            if not m.group(2).strip():
                raise OrderSyntaxError("no place after MERGE: write e.g. "
                                       "'A MAR & A PIC MERGE 2A BUR'")
            formed, dest = _place(board, m.group(2))
            if len(units) < 2:
                raise OrderSyntaxError("a merge needs two or more units: "
                                       "'A MAR & A PIC MERGE 2A BUR'")
            return Merge(units, dest, formed)
    masked, kinds = _mask(line)
    return _with_kinds(parse_order(board, masked, phase_kind), kinds)


def _split_list(text: str) -> list[str]:
    """Split parts on commas and semicolons (``&``/``and`` too), keeping each part's order."""
    return [p for p in re.split(r"\s*(?:,|;|&|\band\b)\s*", text, flags=re.IGNORECASE)
            if p.strip()]
