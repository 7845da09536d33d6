"""Orders as arrows: reading the judge's canonical order text, for any variant.

The renderer draws from what a report already holds (each result's order text and fate), not
from a variant's order classes, so a variant needs no drawing code of its own: the text names
the places, and a few words say what kind of order it is. Words that are not places and not
one of these are passed over (unit types, piece letters, ``VIA CONVOY``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

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


@dataclass(frozen=True, slots=True)
class Mark:
    """A unit built or disbanded: ``kind`` is build or disband, at ``location``."""

    kind: str
    power: str
    location: str
    order: str = ""


# The stored forms only (BUILD A MOS, REMOVE F ALB, A GAL D): a lone B is Chess Dip's bishop.
_BUILD_FIRST = {"BUILD"}
_DISBAND_FIRST = {"REMOVE", "DISBAND"}
_DISBAND_LAST = {"D", "DISBAND", "REMOVE"}


def marks(power: str, text: str, result: str, is_place: Callable[[str], bool]) -> list[Mark]:
    """The build or disband ``text`` (``BUILD A MOS``, ``REMOVE F ALB``, ``A GAL D``) made,
    if it did (a failed or refused one changed nothing; an empty result, as a private
    map's own orders have, is taken as done)."""
    if result in ("fails", "invalid"):
        return []
    words = text.split()
    places = [w for w in words if is_place(w)]
    if not words or not places:
        return []
    first, last = words[0].upper(), words[-1].upper()
    if first in _BUILD_FIRST:
        return [Mark("build", power, places[0], text)]
    if first in _DISBAND_FIRST or last in _DISBAND_LAST:
        return [Mark("disband", power, places[0], text)]
    return []


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

    if "SPLIT" in words:
        # 4A BUR SPLIT A PIC, 2A PAR, A BUR S F MAO - GAS: a part written at another place
        # moves there; a part written at the unit's own place stays and has its own order.
        cut = words.index("SPLIT")
        out: list[Arrow] = []
        part: list[str] = []
        for word in raw[cut + 1:] + [","]:
            if word != ",":
                part.append(word)
                continue
            here = [w for w in part if is_place(w)]
            if here and here[0].upper() == raw[places[0]].upper():
                out.extend(replace(a, order=text)
                           for a in arrows(power, " ".join(part), result, is_place))
            elif here:
                out.append(Arrow("move", power, raw[places[0]], here[0], "", result, text))
            part = []
        return out
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
        if "T" in words and "X" in words:  # en passant, P e5 t d6 x d5: it lands on d6
            return [mk("move", first, later[0])]
        return [mk("move", first, later[-1])]
    if verb == "R" and later:
        return [mk("retreat", first, later[0])]
    return []
