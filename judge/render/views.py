"""Who may see which picture: full maps for open games, private maps for hidden ones.

A variant with hidden information (its game flow's ``hidden``; Stab!: ``docs/stab.md``) must
not give a player a picture showing more than the report tells them. Rule 5 of Stab! tells each
player their own units and, after each Autumn, their own centres; the rest of the board is
unknown to them, so a private map holds only that player's part of the position, and the public
report gets no map.

Whether a game hides information is its flow's to say (the games layer): it is handed in as
``hidden``, and nothing here looks up a flow (issue 22).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

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
            results: Iterable[Mapping[str, str]] = (), *, hidden: bool, title: str = "",
            supply_centres: Iterable[str] = (), master: bool = False,
            orders_of: str = "") -> str | None:
    """The SVG ``reader`` (a power, or None for the public and observers) may be shown, or
    None when there is none for them (the public report of a ``hidden`` game).

    In a hidden game a player's map has their own orders only, unmarked: the orders of
    others and the fate of one's own are what the report says, not the picture.
    """
    if not hidden or master:  # a game's master sees the whole board
        return render_svg(variant, position, results, title=title,
                          supply_centres=supply_centres, orders_of=orders_of)
    if reader is None:
        return None
    # Own orders only, and without their fate: whether a support or convoy failed can tell
    # what another power ordered, which a Stab! player is not told (docs/stab.md).
    own = [{**r, "result": ""} for r in results if r.get("power") == reader]
    return render_svg(variant, private_position(position, reader), own, title=title,
                      orders_of=orders_of)


def report_view(variant: Any, events: Iterable[Any], reader: str | None, hidden: bool
                ) -> Hashable | None:
    """What decides one reader's report picture: readers with equal views get the same
    picture (so it is drawn once), None when the reader gets none (the public report of a
    hidden game). In an open game every reader who sees the same orders shares one view."""
    results = tuple(json.dumps(e.fields, sort_keys=True, default=str) for e in events
                    if e.kind == "order" and e.visible_to(reader))
    if hidden:
        return None if reader is None else (reader, results)
    return (None, results)


def report_picture(variant: Any, previous: Mapping[str, Any], after: Mapping[str, Any],
                   events: Iterable[Any], reader: str | None, title: str, hidden: bool
                   ) -> str | None:
    """The SVG for one reader's report of a phase, from the events that reader may see.

    One picture shows both the orders and what they did: the board after the phase, with the
    phase's orders as arrows from where each unit stood (a failed order crossed in red, so its
    unit is still at the arrow's tail; a dislodged unit ringed in red beside the province it
    lost). Order arrows come from the reader's visible ``order`` events only, so a variant
    that hides orders from someone hides their arrows too.
    """
    results = [dict(e.fields) for e in events if e.kind == "order" and e.visible_to(reader)]
    centres = sorted(get_variant(variant.name).board.supply_centres)
    return map_for(variant.name, after, reader, results, hidden=hidden, title=title,
                   supply_centres=centres, orders_of=str(previous.get("phase") or ""))
