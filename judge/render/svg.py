"""Drawing a position as SVG (PNG from it: :mod:`judge.render.raster`).

Input is what the rest of the judge already writes: the position JSON of the contract (as the
variant writes it, so ``2A BUR``, ``2A/F KIE``, ``G ATH`` and ``K e1`` all arrive as text) and
the order results ``{"power", "order", "result"}``. Everything drawn carries ``data-``
attributes saying what it is (unit, centre, order) so that tests, and anyone reading the SVG,
can check the picture's content without looking at pixels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from judge.render import layout
from judge.render.drawing import MARGIN, SQUARE, Drawing, Place, Point, drawing_for
from judge.render.layout import DOT_RADIUS, NAME_SIZE, RING_RADIUS, text_width
from judge.render.ordertext import Arrow, Mark, arrows, marks
from judge.variants import get_variant

SEA = "#b4d2ea"
LAND = "#efe7d2"
IMPASSABLE = "#b9b4aa"
SCENERY = "#ddd5bf"
INK = "#2b2b2b"
FAILED = "#d0021b"
NEUTRAL = "#ffffff"
BUILT = "#1e8e3e"
KEY_ROW = 24  # height of a row of the key under the picture (the powers' colours)
KEY_SIZE = 13  # its font size
BADGE_RADIUS = 6.0  # a build's plus
# For powers a drawing gives no colour: distinct, readable on land and sea.
PALETTE = ["#c0392b", "#1f4fa8", "#27ae60", "#e6b800", "#8e44ad", "#5dade2", "#5d4037",
           "#e67e22", "#16a085", "#d35400", "#7f8c8d", "#c2185b", "#2c3e50", "#9e9d24"]
PIECES = {"K": "\u265a", "Q": "\u265b", "R": "\u265c", "B": "\u265d", "N": "\u265e",
          "P": "\u265f"}
_COMPOSITION = re.compile(r"^(\d*)([A-Z])$")


def power_colours(drawing: Drawing, powers: Iterable[str]) -> dict[str, str]:
    """The drawing's colours, then the palette for any power it does not name, in order."""
    out = dict(drawing.colours)
    spare = [c for c in PALETTE if c not in out.values()]
    for p in powers:
        if p not in out:
            out[p] = spare.pop(0) if spare else "#777777"
    return out


def read_unit(text: str) -> tuple[list[tuple[int, str]], str]:
    """``"2A/F KIE"`` -> ([(2, "A"), (1, "F")], "KIE"); ``"K e1"`` -> ([(1, "K")], "e1")."""
    comp, _, location = text.strip().rpartition(" ")
    parts = []
    for piece in comp.split("/"):
        m = _COMPOSITION.match(piece.strip().upper())
        if not m:
            raise ValueError(f"not a unit: {text!r}")
        parts.append((int(m.group(1) or 1), m.group(2)))
    return parts, location


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


@lru_cache(maxsize=4096)
def _path(rings: tuple[tuple[Point, ...], ...]) -> str:
    """A province's outline as path data. Cached: the outlines are the drawing's, the same in
    every picture, and formatting their ~30,000 points was most of the cost of building a
    report's SVG (profile of bench/deadlines.py)."""
    out = []
    for ring in rings:
        pts = list(ring)
        out.append("M" + " L".join(f"{_fmt(x)} {_fmt(y)}" for x, y in pts) + " Z")
    return " ".join(out)


def _text(x: float, y: float, s: str, size: float, **attrs: str) -> str:
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(v)}" for k, v in attrs.items())
    return (f'<text x="{_fmt(x)}" y="{_fmt(y)}" font-size="{size}" text-anchor="middle" '
            f'font-family="DejaVu Sans, sans-serif"{extra}>{escape(s)}</text>')


# (id of the drawing, seas) -> (the drawing, kept so that its id is never reused; layers)
_BOARD_LAYERS: dict[tuple[int, frozenset[str]], tuple[Drawing, list[str], list[str]]] = {}


def _board_layers(drawing: Drawing, seas: frozenset[str]) -> tuple[list[str], list[str]]:
    """The provinces and their names: the same in every picture of a map drawing, so built
    once per drawing (drawing_for keeps each drawing for the life of the process)."""
    key = (id(drawing), seas)
    if key not in _BOARD_LAYERS:
        fills = {"sea": SEA, "impassable": IMPASSABLE, "scenery": SCENERY}
        ground, labels = [], []
        for name, place in drawing.places.items():
            fill = SEA if name in seas else fills.get(place.kind, LAND)
            ground.append(
                f'<path class="province" data-province="{name}" d="{_path(place.rings)}" '
                f'fill="{fill}" stroke="{INK}" stroke-width="0.7" stroke-linejoin="round"/>')
            if place.kind in ("province", "sea"):
                x, y = place.label
                labels.append(_text(x, y, name, NAME_SIZE, fill=INK, font_weight="bold",
                                    opacity="0.75"))
        _BOARD_LAYERS[key] = (drawing, ground, labels)
    return _BOARD_LAYERS[key][1:]


# id of a map drawing -> (the drawing, kept so that its id is never reused; every name's and
# dot's shape; every unit point's)
_MARKS: dict[int, tuple[Drawing, list[layout.Shape], list[layout.Shape]]] = {}


def _marks(drawing: Drawing) -> tuple[list[layout.Shape], list[layout.Shape]]:
    """The names and dots a stack's badge must keep clear of, and the unit points it should:
    the same in every picture of a drawing, so gathered once per drawing."""
    if id(drawing) not in _MARKS:
        marks: list[layout.Shape] = []
        units: list[layout.Shape] = []
        for name, place in drawing.places.items():
            if place.kind in ("province", "sea"):  # the places whose names are drawn
                marks.append(layout.box_shape(layout.name_box(name, place.label)))
            if place.centre is not None:
                marks.append(layout.dot_shape(place.centre))
            if place.kind not in ("impassable", "scenery"):
                units += [layout.unit_shape(p) for p in (place.unit, *place.coasts.values())]
        _MARKS[id(drawing)] = (drawing, marks, units)
    return _MARKS[id(drawing)][1:]


@lru_cache(maxsize=4096)
def _badge_spot_at(key: int, point: Point, width: float) -> Point:
    drawing = _MARKS[key][0]
    marks, units = _marks(drawing)
    others = [u for u in units if math.hypot(u[1] - point[0], u[2] - point[1]) > 0.5]
    return layout.place_badge(point, width, marks, others,
                              (0.0, 0.0, float(drawing.width), float(drawing.height)))


def _badge_spot(drawing: Drawing, point: Point, width: float) -> Point:
    """A stack's badge at ``point`` on ``drawing`` (cached: a picture has a few dozen
    units, a judge draws the same places again and again)."""
    _marks(drawing)
    return _badge_spot_at(id(drawing), point, width)


class Picture:
    """One SVG being assembled, layer by layer."""

    def __init__(self, drawing: Drawing, colours: Mapping[str, str], title: str) -> None:
        self.d = drawing
        self.colours = colours
        self.title = title
        self.layers: dict[str, list[str]] = {k: [] for k in
                                              ("ground", "labels", "owned", "centres",
                                               "orders", "legend", "units", "marks")}
        self.markers: dict[str, str] = {}
        self.key_height = 0  # the key's strip under the board

    def colour(self, power: str | None) -> str:
        return self.colours.get(power or "", NEUTRAL)

    # ---------------------------------------------------------------- ground
    def ground(self, owners: Mapping[str, str], seas: Collection[str]) -> None:
        if self.d.kind == "chessboard":
            return self._chessboard(owners)
        ground, labels = _board_layers(self.d, frozenset(seas))
        self.layers["ground"].extend(ground)
        self.layers["labels"].extend(labels)
        for name, place in self.d.places.items():
            owner = owners.get(name)
            if owner:  # a centre's province tinted with its owner, as on a printed map
                self.layers["owned"].append(
                    f'<path d="{_path(place.rings)}" fill="{self.colour(owner)}" '
                    f'fill-opacity="0.28" stroke="none"/>')

    def _chessboard(self, owners: Mapping[str, str]) -> None:
        for name, place in self.d.places.items():
            f, r = "abcdefgh".index(name[0]), int(name[1]) - 1
            fill = "#b58863" if (f + r) % 2 == 0 else "#f0d9b5"
            self.layers["ground"].append(
                f'<path class="province" data-province="{name}" d="{_path(place.rings)}" '
                f'fill="{fill}"/>')
            owner = owners.get(name)
            if owner:
                self.layers["owned"].append(
                    f'<path d="{_path(place.rings)}" fill="{self.colour(owner)}" '
                    f'fill-opacity="0.25"/>')
        for i in range(8):
            x = MARGIN + i * SQUARE + SQUARE / 2
            y = MARGIN + (7 - i) * SQUARE + SQUARE / 2 + 5
            self.layers["labels"].append(_text(x, MARGIN + 8 * SQUARE + 18, "abcdefgh"[i], 13,
                                               fill=INK))
            self.layers["labels"].append(_text(MARGIN / 2, y, str(i + 1), 13, fill=INK))

    # --------------------------------------------------------------- centres
    def centre_point(self, place: Place) -> Point:
        if place.centre is not None:  # placed by the builder (judge.render.layout)
            return place.centre
        x, y = place.label
        return (x - 18, y - 3)

    def dislodged_point(self, location: str) -> Point | None:
        """Where a unit dislodged at ``location`` is drawn: beside the unit that beat it."""
        key = location if self.d.kind == "chessboard" else location.upper()
        place = self.d.places.get(key.partition("/")[0]) or self.d.places.get(key)
        if place is None or place.dislodged is None:
            point = self.d.point(location)
            return None if point is None else (point[0] - 8, point[1] + 10)
        return place.dislodged

    def centres(self, centres: Iterable[str], owners: Mapping[str, str]) -> None:
        for c in sorted(centres):
            place = self.d.places.get(c)
            if place is None:
                continue
            x, y = self.centre_point(place)
            owner = owners.get(c, "")
            self.layers["centres"].append(
                f'<circle class="centre" data-province={quoteattr(c)} data-owner={quoteattr(owner)} '
                f'cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(DOT_RADIUS)}" '
                f'fill="{self.colour(owner or None)}" '
                f'stroke="{INK}" stroke-width="1.2"/>')

    # ----------------------------------------------------------------- units
    def unit(self, power: str, text: str, slot: int, dislodged: bool = False,
             built: bool = False) -> None:
        parts, location = read_unit(text)
        point = self.dislodged_point(location) if dislodged else self.d.point(location)
        if point is None:
            raise ValueError(f"{text!r}: {location} is not on the {self.d.kind}")
        x, y = point
        x += slot * 20
        colour = self.colour(power)
        attrs = (f'class="unit" data-power={quoteattr(power)} data-unit={quoteattr(text)} '
                 f'data-location={quoteattr(location)} '
                 f'data-dislodged="{str(dislodged).lower()}"')
        body = (self._piece(parts[0][1], colour) if self.d.kind == "chessboard"
                else self._token(parts, colour, dislodged, built, (x, y)))
        self.layers["units"].append(
            f'<g {attrs} transform="translate({_fmt(x)} {_fmt(y)})">{body}</g>')

    def _piece(self, letter: str, colour: str) -> str:
        glyph = PIECES.get(letter, letter)
        return (f'<text x="0" y="16" font-size="46" text-anchor="middle" '
                f'font-family="DejaVu Sans, sans-serif" fill="{colour}" stroke="{INK}" '
                f'stroke-width="1.2">{glyph}</text>')

    def _token(self, parts: list[tuple[int, str]], colour: str, dislodged: bool,
               built: bool = False, point: Point = (0.0, 0.0)) -> str:
        """Army: a disc; fleet: a hull; garrison: a square; several kinds or a size above one
        show the composition in a badge at a shoulder of the symbol of the first kind (the
        first clear of every name and dot: :meth:`badge_spot`)."""
        edge = FAILED if dislodged else BUILT if built else INK
        sw = "2" if built else "1.3"  # a new unit's edge: green and bolder
        count, kind = parts[0]
        if kind == "F":
            shape = (f'<path d="M-10 -2 L10 -2 L7 6 L-7 6 Z M-2 -9 L-2 -2 L5 -2 Z" '
                     f'fill="{colour}" stroke="{edge}" stroke-width="{sw}"/>')
        elif kind == "G":
            shape = (f'<rect x="-7" y="-7" width="14" height="14" fill="{colour}" '
                     f'stroke="{edge}" stroke-width="{sw}"/>')
        else:
            shape = f'<circle r="8" fill="{colour}" stroke="{edge}" stroke-width="{sw}"/>'
        letter = _text(0, 3.5, kind, 9, fill="#ffffff", font_weight="bold")
        out = shape + letter
        if len(parts) > 1 or count > 1:
            label = "/".join(f"{n if n > 1 else ''}{k}" for n, k in parts)
            w = layout.badge_width(label)
            bx, by = self.badge_spot(point, w)
            out += (f'<rect x="{_fmt(bx)}" y="{_fmt(by)}" width="{_fmt(w)}" '
                    f'height="{_fmt(layout.BADGE_HEIGHT)}" rx="3" fill="#ffffff" '
                    f'stroke="{INK}" stroke-width="0.8"/>'
                    + _text(bx + w / 2, by + 9.5, label, 9.5, fill=INK, font_weight="bold"))
        if dislodged:
            out += (f'<circle r="{_fmt(RING_RADIUS)}" fill="none" stroke="{FAILED}" '
                    f'stroke-width="1.5"/>')
        return out

    def badge_spot(self, point: Point, width: float) -> Point:
        """Where a stack's badge of ``width`` goes, from the unit's ``point``: clear of every
        province's name and dot, and of the map's other unit points where it can be
        (Athens' badge covered MAR's name on the Hoplite map; :func:`layout.place_badge`)."""
        if self.d.kind != "map":
            return (7.0, -15.0)
        return _badge_spot(self.d, point, width)

    # ---------------------------------------------------------------- orders
    def order(self, arrow: Arrow, nudge: float = 0.0) -> None:
        # a retreat leaves from the dislodged unit, drawn beside the unit that beat it
        a = (self.dislodged_point(arrow.origin) if arrow.kind == "retreat"
             else self.d.point(arrow.origin))
        b = self.d.point(arrow.destination)
        if a is None or b is None:
            return
        failed = arrow.result in ("fails", "invalid")
        colour = self.colour(arrow.power)
        width = 2.6
        dash = ""
        end = b
        if arrow.kind in ("support", "convoy"):
            t = self.d.point(arrow.target) or b
            # A support of a move points at the middle of the supported move; a support to
            # hold (or a convoy's own fleet) at the unit itself.
            end = ((t[0] + b[0]) / 2, (t[1] + b[1]) / 2) if t != b else b
            dash = ' stroke-dasharray="5 3"' if arrow.kind == "support" else \
                ' stroke-dasharray="1.5 3"'
            width = 1.8
        if arrow.kind == "retreat":
            dash = ' stroke-dasharray="8 3"'
        hold = arrow.kind == "support" and arrow.target == arrow.destination
        pointing_at_unit = hold or end == b
        end = _short(a, end, 9 if pointing_at_unit else 2)
        start = _short(end, a, 7)
        head = self.marker("hold" if hold else "arrow", colour)
        marker = f' marker-end="url(#{head})"'
        attrs = (f'class="order" data-kind={quoteattr(arrow.kind)} '
                 f'data-power={quoteattr(arrow.power)} data-from={quoteattr(arrow.origin)} '
                 f'data-to={quoteattr(arrow.destination)} data-target={quoteattr(arrow.target)} '
                 f'data-result={quoteattr(arrow.result)} data-order={quoteattr(arrow.order)}')
        line = (f'<line x1="{_fmt(start[0])}" y1="{_fmt(start[1] + nudge)}" '
                f'x2="{_fmt(end[0])}" y2="{_fmt(end[1] + nudge)}" stroke="{colour}" '
                f'stroke-width="{width}"{dash}{marker} color="{colour}"/>')
        halo = (f'<line x1="{_fmt(start[0])}" y1="{_fmt(start[1] + nudge)}" '
                f'x2="{_fmt(end[0])}" y2="{_fmt(end[1] + nudge)}" stroke="#ffffff" '
                f'stroke-opacity="0.7" stroke-width="{width + 2.2}"{dash}/>')
        mark = ""
        if failed:  # a red cross halfway: the order did not succeed
            mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + nudge
            mark = (f'<path class="failed" d="M{_fmt(mx - 5)} {_fmt(my - 5)} L{_fmt(mx + 5)} '
                    f'{_fmt(my + 5)} M{_fmt(mx - 5)} {_fmt(my + 5)} L{_fmt(mx + 5)} '
                    f'{_fmt(my - 5)}" stroke="{FAILED}" stroke-width="2.6"/>')
        self.layers["orders"].append(f"<g {attrs}>{halo}{line}{mark}</g>")

    def marker(self, shape: str, colour: str) -> str:
        """One arrowhead per colour: cairosvg does not paint markers in the line's colour
        (SVG 2 ``context-stroke``), so each colour gets its own."""
        name = f"{shape}-{colour.lstrip('#')}"
        if name not in self.markers:
            if shape == "arrow":
                self.markers[name] = (
                    f'<marker id="{name}" viewBox="0 0 10 10" refX="7" refY="5" '
                    f'markerWidth="4.5" markerHeight="4.5" orient="auto">'
                    f'<path d="M0 0 L10 5 L0 10 Z" fill="{colour}"/></marker>')
            else:
                self.markers[name] = (
                    f'<marker id="{name}" viewBox="0 0 10 10" refX="5" refY="5" '
                    f'markerWidth="6" markerHeight="6"><circle cx="5" cy="5" r="3.5" '
                    f'fill="none" stroke="{colour}" stroke-width="2"/></marker>')
        return name

    # ---------------------------------------------------------------- output
    def legend(self, lines: list[str]) -> None:
        if not lines:
            return
        if self.d.kind == "chessboard":  # one line in the margin above the board
            self.layers["legend"].append(
                f'<text x="{MARGIN}" y="{MARGIN - 9}" font-size="14" font-weight="bold" '
                f'font-family="DejaVu Sans, sans-serif" fill="{INK}">'
                f'{escape(" ".join(lines))}</text>')
            return
        width = 16 + 8.5 * max(len(line) for line in lines)
        self.layers["legend"].append(
            f'<rect x="4" y="4" width="{_fmt(width)}" height="{8 + 17 * len(lines)}" rx="4" '
            f'fill="#ffffff" fill-opacity="0.85" stroke="{INK}" stroke-width="0.8"/>')
        for i, line in enumerate(lines):
            self.layers["legend"].append(
                f'<text x="12" y="{20 + 17 * i}" font-size="13" font-weight="bold" '
                f'font-family="DejaVu Sans, sans-serif" fill="{INK}">{escape(line)}</text>')

    def mark(self, mark: Mark, dislodged: bool) -> None:
        """A unit built (its symbol edged in green, :meth:`unit`, and a plus at a shoulder
        clear of the province's name and dot) or disbanded (a dashed ring where it stood,
        crossed out in red; for a dislodged unit, where it was drawn)."""
        point = self.dislodged_point(mark.location) if dislodged else self.d.point(mark.location)
        if point is None:
            return
        x, y = point
        attrs = (f'class="mark" data-kind="{mark.kind}" data-power={quoteattr(mark.power)} '
                 f'data-location={quoteattr(mark.location)} data-order={quoteattr(mark.order)}')
        if mark.kind == "build":
            bx, by = self._shoulder(mark.location, point)
            body = _plus(bx - x, by - y)
        else:
            body = (f'<circle r="9" fill="#ffffff" fill-opacity="0.6" '
                    f'stroke="{self.colour(mark.power)}" stroke-width="2" '
                    f'stroke-dasharray="3 2"/>' + _cross(0, 0, 7))
        self.layers["marks"].append(
            f'<g {attrs} transform="translate({_fmt(x)} {_fmt(y)})">{body}</g>')

    def _shoulder(self, location: str, point: Point) -> Point:
        """Where a build's plus goes: the first corner beside the unit that covers neither
        the province's name nor its dot (top left if none is free)."""
        x, y = point
        corners = [(x - 12, y - 12), (x + 12, y - 12), (x - 14, y + 6), (x + 14, y + 6)]
        place = self.d.places.get(location.partition("/")[0].upper()) \
            or self.d.places.get(location)
        if place is None or self.d.kind != "map":
            return corners[0]
        drawn = [layout.box_shape(layout.name_box(place.name, place.label))]
        if place.centre is not None:
            drawn.append(layout.dot_shape(place.centre))
        for corner in corners:
            badge = ("circle", corner[0], corner[1], BADGE_RADIUS + 0.8)
            if not any(layout.overlaps(badge, d) for d in drawn):
                return corner
        return corners[0]

    def key(self, powers: list[str], kinds: Collection[str]) -> None:
        """The powers' colours (a swatch and the name of each), and what the marks of builds
        and disbands mean when the picture has any: a strip under the board, its rows
        wrapped to the picture's width."""
        entries: list[tuple[str, str, str]] = [("power", p, p.title()) for p in powers]
        entries += [(k, k, {"build": "built", "disband": "disbanded"}[k])
                    for k in ("build", "disband") if k in kinds]
        if not entries:
            return
        top, x, row = self.d.height, 10.0, 0
        items = []
        for kind, name, text in entries:
            width = 20 + text_width(text, KEY_SIZE) + 18
            if x + width > self.d.width and x > 10:
                x, row = 10.0, row + 1
            cy = top + row * KEY_ROW + KEY_ROW / 2
            if kind == "power":
                items.append(
                    f'<rect class="swatch" data-power={quoteattr(name)} x="{_fmt(x)}" '
                    f'y="{_fmt(cy - 7)}" width="14" height="14" rx="2" '
                    f'fill="{self.colour(name)}" stroke="{INK}" stroke-width="1"/>')
            elif kind == "build":
                items.append(f'<g transform="translate({_fmt(x + 7)} {_fmt(cy)})">'
                             f'{_plus(0, 0)}</g>')
            else:
                items.append(f'<g transform="translate({_fmt(x + 7)} {_fmt(cy)})">'
                             f'{_cross(0, 0, 6)}</g>')
            items.append(
                f'<text x="{_fmt(x + 20)}" y="{_fmt(cy + 4.5)}" font-size="{KEY_SIZE}" '
                f'font-weight="bold" font-family="DejaVu Sans, sans-serif" fill="{INK}">'
                f'{escape(text)}</text>')
            x += width
        self.key_height = (row + 1) * KEY_ROW
        self.layers["legend"].append(
            f'<rect x="0" y="{top}" width="{self.d.width}" height="{self.key_height}" '
            f'fill="#ffffff"/>')
        self.layers["legend"].extend(items)

    def svg(self) -> str:
        w, h = self.d.width, self.d.height + self.key_height
        defs = f'<defs>{"".join(self.markers.values())}</defs>'
        body = "".join(f'<g class="{name}">{"".join(items)}</g>'
                       for name, items in self.layers.items())
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                f'viewBox="0 0 {w} {h}"><title>{escape(self.title)}</title>{defs}'
                f'<rect width="{w}" height="{h}" fill="{SEA if self.d.kind == "map" else "#fff"}"'
                f'/>{body}</svg>\n')


def _plus(x: float, y: float) -> str:
    """A build's sign: a white disc with a green plus."""
    return (f'<circle cx="{_fmt(x)}" cy="{_fmt(y)}" r="{_fmt(BADGE_RADIUS)}" fill="#ffffff" '
            f'stroke="{BUILT}" '
            f'stroke-width="1.5"/><path d="M{_fmt(x - 3.5)} {_fmt(y)} L{_fmt(x + 3.5)} '
            f'{_fmt(y)} M{_fmt(x)} {_fmt(y - 3.5)} L{_fmt(x)} {_fmt(y + 3.5)}" '
            f'stroke="{BUILT}" stroke-width="2"/>')


def _cross(x: float, y: float, half: float) -> str:
    """A disband's sign: a red cross."""
    return (f'<path d="M{_fmt(x - half)} {_fmt(y - half)} L{_fmt(x + half)} {_fmt(y + half)} '
            f'M{_fmt(x - half)} {_fmt(y + half)} L{_fmt(x + half)} {_fmt(y - half)}" '
            f'stroke="{FAILED}" stroke-width="2.6"/>')


def _short(a: Point, b: Point, by: float) -> Point:
    """``b`` moved ``by`` pixels towards ``a`` (so a line stops short of a unit's symbol)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length <= by * 2:
        return b
    return (b[0] - dx / length * by, b[1] - dy / length * by)


def render_svg(variant: str, position: Mapping[str, Any],
               results: Iterable[Mapping[str, str]] = (), *, title: str = "",
               supply_centres: Iterable[str] | None = None, orders_of: str = "") -> str:
    """The picture of ``position`` (contract JSON as the variant writes it), with the orders
    of ``results`` as arrows when given.

    ``orders_of`` names the phase the orders were given in when it is not the position's own
    (a report draws a phase's orders on the board they produced): the legend says both.

    ``supply_centres`` are the board's centres, drawn white when nobody owns them; None draws
    only the owned ones (a private map must not say more than its reader knows, and the
    board's list is public anyway, so callers pass it for every full map).
    """
    drawing = drawing_for(variant)
    board = get_variant(variant).board
    seas = {name for name, p in board.provinces.items() if p.kind == "sea"}
    units: Mapping[str, list[str]] = position.get("units") or {}
    centres: Mapping[str, list[str]] = position.get("centres") or {}
    dislodged: Mapping[str, list[Any]] = position.get("dislodged") or {}
    results = list(results)
    # the powers drawn: with units, centres, or orders (a power whose last unit was disbanded)
    powers = sorted(set(units) | set(centres) | set(dislodged)
                    | {r["power"] for r in results if r.get("power")})
    colours = power_colours(drawing, powers)
    owners = {c: p for p, cs in centres.items() for c in cs}
    heading = [title] if title else []
    if orders_of and orders_of != position.get("phase"):
        heading.append(f"{orders_of} orders \u2192 {position.get('phase') or ''}".strip())
    elif position.get("phase"):
        heading.append(str(position["phase"]))
    pic = Picture(drawing, colours, " ".join(heading) or variant)
    pic.ground(owners, seas)
    pic.centres(set(owners) | set(supply_centres or ()), owners)
    def is_place(word: str) -> bool:
        return drawing.point(word) is not None and not word.isdigit()

    made = [(m, r["order"]) for r in results
            for m in marks(r["power"], r["order"], r.get("result", ""), is_place)]
    built = {(m.power, m.location.split("/")[0].upper()) for m, _ in made if m.kind == "build"}
    for power in sorted(units):
        by_place: dict[str, int] = {}
        for text in units[power]:
            _, loc = read_unit(text)
            key = loc.split("/")[0].upper()
            slot = by_place.get(key, 0)
            by_place[key] = slot + 1
            pic.unit(power, text, slot, built=(power, key) in built)
    for power in sorted(dislodged):
        for entry in dislodged[power]:
            pic.unit(power, entry if isinstance(entry, str) else entry["unit"], 0, True)

    seen: dict[tuple[str, str], int] = {}
    for r in results:
        for arrow in arrows(r["power"], r["order"], r.get("result", ""), is_place):
            line = (arrow.origin, arrow.destination)
            n = seen.get(line, 0)  # two orders along the same line are drawn side by side
            seen[line] = n + 1
            pic.order(arrow, nudge=4.0 * n)
    for mark, order in made:
        # "A GAL D" is a dislodged unit's disband: marked where the dislodged unit was drawn
        pic.mark(mark, dislodged=mark.kind == "disband" and order.split()[-1].upper() == "D")
    kinds = {m.kind for m, _ in made}
    pic.legend(heading)
    # The key names the powers of this picture only: a private map (Stab!) has its
    # reader's part of the position, so it names no other power.
    pic.key(powers, kinds)
    return pic.svg()

