"""Orders as arrows: reading the judge's canonical order text, for any variant.

The renderer draws from what a report already holds (each result's order text and fate), not
from a variant's order classes, so a variant needs no drawing code of its own: the text names
the places, and a few words say what kind of order it is. Words that are not places and not
one of these are passed over (unit types, piece letters, ``VIA CONVOY``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MOVE_WORDS = {"-", "->", "X", "T"}  # T and X: Chess Dip's travel and attack


@dataclass(frozen=True, slots=True)
class Arrow:
    """One line of the picture: ``kind`` is move, retreat, support, convoy or hold."""

    kind: str
    power: str
    origin: str
    destination: str
    target: str = ""  # support and convoy: the unit supported or convoyed
    result: str = ""
    order: str = ""


def arrows(power: str, text: str, result: str,
           is_place: Callable[[str], bool]) -> list[Arrow]:
    """The arrows of one order (none for holds, builds and orders naming no place)."""
    raw = text.replace(",", " , ").replace("&", " & ").split()
    words = [w.upper() for w in raw]
    places = [i for i, w in enumerate(raw) if is_place(w)]
    if not places:
        return []

    def mk(kind: str, a: int, b: int, t: int | None = None) -> Arrow:
        return Arrow(kind, power, raw[a], raw[b], raw[t] if t is not None else "", result, text)

    if "SPLIT" in words:  # 2A BUR SPLIT A - PAR, A - PIC: each part moves out of the origin
        cut = words.index("SPLIT")
        parts: list[list[int]] = [[]]
        for i in range(cut + 1, len(raw)):
            if words[i] == ",":
                parts.append([])
            elif i in places:
                parts[-1].append(i)
        return [mk("move", places[0], part[-1]) for part in parts if part]
    first = places[0]
    verb = next((w for w in words[first + 1:] if w in MOVE_WORDS | {"S", "C", "R", "MERGE"}),
                None)
    if verb == "MERGE" and "S" not in words[first + 1:words.index("MERGE")]:
        dest = places[-1]
        return [mk("move", i, dest) for i in places[:-1]]
    later = [i for i in places if i > first]
    if verb in ("S", "C"):
        if not later:
            return []
        kind = "support" if verb == "S" else "convoy"
        target = later[0]
        moving = any(w in MOVE_WORDS or w == "MERGE" for w in words[target + 1:])
        return [mk(kind, first, later[-1] if moving else target, target)]
    if verb in MOVE_WORDS and later:
        return [mk("move", first, later[-1])]
    if verb == "R" and later:
        return [mk("retreat", first, later[0])]
    return []
