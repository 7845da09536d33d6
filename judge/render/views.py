"""Who may see which picture: full maps for open games, private maps for hidden ones.

A variant with hidden information (Stab!: ``docs/stab.md``) must not give a player a picture
showing more than the report tells them. Rule 5 of Stab! tells each player their own units
and, after each Autumn, their own centres; the rest of the board is unknown to them, so a
private map holds only that player's part of the position, and the public report gets no map.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from judge.render.svg import render_svg

HIDDEN = frozenset({"stab"})  # variants whose players may not see the whole board


def private_position(position: Mapping[str, Any], power: str) -> dict[str, Any]:
    """The part of a position ``power`` knows in a hidden-information game: its own units,
    its own dislodged units and its own centres, and the phase."""
    def mine(key: str) -> dict[str, Any]:
        return {power: list((position.get(key) or {}).get(power, []))}

    return {"variant": position.get("variant"), "phase": position.get("phase"),
            "units": mine("units"), "centres": mine("centres"), "dislodged": mine("dislodged")}


def map_for(variant: str, position: Mapping[str, Any], reader: str | None,
            results: Iterable[Mapping[str, str]] = (), *, title: str = "",
            supply_centres: Iterable[str] = ()) -> str | None:
    """The SVG ``reader`` (a power, or None for the public and observers) may be shown, or
    None when there is none for them (the public report of a hidden game).

    In a hidden game a player's map has their own orders only: the results of others are
    what the rules keep from them.
    """
    if variant not in HIDDEN:
        return render_svg(variant, position, results, title=title,
                          supply_centres=supply_centres)
    if reader is None:
        return None
    own = [r for r in results if r.get("power") == reader]
    return render_svg(variant, private_position(position, reader), own, title=title)
