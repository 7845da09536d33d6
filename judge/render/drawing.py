"""A variant's drawing data: where each province is on the picture.

Every variant folder holds a ``drawing.json``. For a map it is built by
:mod:`judge.render.shapes` from the authored ``drawing-source.json`` (outlines, unit points
of every province, coast points for split coasts, and where its name, its centre's dot and a
dislodged unit go: :mod:`judge.render.layout`); a variant played on another
variant's map says ``{"same_as": "standard"}``; a chess board says ``{"kind": "chessboard"}``
and its squares are computed here, since a board of 64 squares needs no authored geometry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache

from judge.resources import variant_file

SQUARE = 64  # chess diagram: pixels per square
MARGIN = 28  # chess diagram: room for the file letters and rank numbers

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Place:
    """One province (or square, or piece of scenery) on the picture."""

    name: str
    kind: str  # province | sea | impassable | scenery | square
    rings: tuple[tuple[Point, ...], ...]
    unit: Point
    label: Point
    coasts: dict[str, Point] = field(default_factory=dict)
    centre: Point | None = None  # a supply centre's dot
    dislodged: Point | None = None  # a unit dislodged here, beside the one that beat it


@dataclass(frozen=True, slots=True)
class Drawing:
    kind: str  # map | chessboard
    width: int
    height: int
    places: dict[str, Place]
    colours: dict[str, str]

    def point(self, location: str) -> Point | None:
        """Where a unit at ``location`` (``PAR``, ``STP/SC``, ``e4``) is drawn, or None."""
        key = location if self.kind == "chessboard" else location.upper()
        if key in self.places:
            return self.places[key].unit
        prov, _, _ = key.partition("/")
        place = self.places.get(prov)
        if place is None:
            return None
        return place.coasts.get(key, place.unit)


def _chessboard(data: dict) -> Drawing:
    places = {}
    for f in range(8):
        for r in range(8):
            sq = f"{'abcdefgh'[f]}{r + 1}"
            x0, y0 = MARGIN + f * SQUARE, MARGIN + (7 - r) * SQUARE
            ring = ((x0, y0), (x0 + SQUARE, y0), (x0 + SQUARE, y0 + SQUARE), (x0, y0 + SQUARE))
            middle = (x0 + SQUARE / 2, y0 + SQUARE / 2)
            # the centre's dot in the top left corner, clear of the piece
            places[sq] = Place(sq, "square", (ring,), middle, middle, centre=(x0 + 7, y0 + 7))
    size = 2 * MARGIN + 8 * SQUARE
    return Drawing("chessboard", size, size, places, dict(data.get("colours", {})))


@cache
def drawing_for(variant: str) -> Drawing:
    """The drawing of a variant; FileNotFoundError if its folder has none."""
    path = variant_file(variant, "drawing.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    if "same_as" in data:
        base = drawing_for(data["same_as"])
        colours = {**base.colours, **data.get("colours", {})}
        return Drawing(base.kind, base.width, base.height, base.places, colours)
    if data.get("kind") == "chessboard":
        return _chessboard(data)
    places = {}
    for name, p in data["provinces"].items():
        places[name] = Place(
            name=name,
            kind=p.get("kind", "province"),
            rings=tuple(tuple((x, y) for x, y in ring) for ring in p["rings"]),
            unit=tuple(p["unit"]),
            label=tuple(p["label"]),
            coasts={k: tuple(v) for k, v in p.get("coasts", {}).items()},
            centre=tuple(p["centre"]) if "centre" in p else None,
            dislodged=tuple(p["dislodged"]) if "dislodged" in p else None,
        )
    return Drawing("map", int(data["width"]), int(data["height"]), places,
                   dict(data.get("colours", {})))
