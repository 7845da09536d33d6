"""Who may see which picture: full maps for open games, private maps for hidden ones.

A variant with hidden information (its game flow's ``hidden``; Stab!: ``docs/stab.md``) must
not give a player a picture showing more than the report tells them. Rule 5 of Stab! tells each
player their own units and, after each Autumn, their own centres; the rest of the board is
unknown to them, so a private map holds only that player's part of the position, and the public
report gets no map.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from judge.games.flow import flow_of
from judge.render.svg import render_svg
from judge.variants import get_variant


def private_position(position: Mapping[str, Any], power: str) -> dict[str, Any]:
    """The part of a position ``power`` knows in a hidden-information game: its own units,
    its own dislodged units and its own centres, and the phase."""
    def mine(key: str) -> dict[str, Any]:
        return {power: list((position.get(key) or {}).get(power, []))}

    return {"variant": position.get("variant"), "phase": position.get("phase"),
            "units": mine("units"), "centres": mine("centres"), "dislodged": mine("dislodged")}


def map_for(variant: str, position: Mapping[str, Any], reader: str | None,
            results: Iterable[Mapping[str, str]] = (), *, title: str = "",
            supply_centres: Iterable[str] = (), master: bool = False) -> str | None:
    """The SVG ``reader`` (a power, or None for the public and observers) may be shown, or
    None when there is none for them (the public report of a hidden game).

    In a hidden game a player's map has their own orders only, unmarked: the orders of
    others and the fate of one's own are what the report says, not the picture.
    """
    if not flow_of(variant).hidden or master:  # a game's master sees the whole board
        return render_svg(variant, position, results, title=title,
                          supply_centres=supply_centres)
    if reader is None:
        return None
    # Own orders only, and without their fate: whether a support or convoy failed can tell
    # what another power ordered, which a Stab! player is not told (docs/stab.md).
    own = [{**r, "result": ""} for r in results if r.get("power") == reader]
    return render_svg(variant, private_position(position, reader), own, title=title)


def report_picture(variant: Any, previous: Mapping[str, Any], after: Mapping[str, Any],
                   events: Iterable[Any], reader: str | None, title: str) -> str | None:
    """The SVG for one reader's report of a phase, from the events that reader may see.

    A movement phase is drawn as the board its orders were given on, with the orders as
    arrows (the orders are what the report is about); a retreat or adjustment phase as the
    board after it. Order arrows come from the reader's visible ``order`` events only, so a
    variant that hides orders from someone hides their arrows too.
    """
    results = [dict(e.fields) for e in events if e.kind == "order" and e.visible_to(reader)]
    movement = str(previous.get("phase", "")).endswith("M")
    shown = previous if movement else after
    centres = sorted(get_variant(variant.name).board.supply_centres)
    return map_for(variant.name, shown, reader, results if movement else (), title=title,
                   supply_centres=centres)
