"""Where a province's name, its centre's dot and a dislodged unit stand on a map picture.

The builder (:mod:`judge.render.shapes`) places them once per map, into ``drawing.json``, and
the renderer draws them where they were placed. Each goes beside the province's unit point,
as near as possible to where a printed map has it (the name below the unit, the dot left of
the name, a dislodged unit up and to the left of the unit that beat it), at the nearest
point where it lies wholly inside the province and is covered by no unit, name or dot
(issue 24: Liverpool's dot and name in the Irish Sea, names under units, a dislodged unit's
ring over the winner). Where a small province has no such point the conditions are eased
in order (clear of the neighbours' units first, then wholly inside: the point itself must
still be inside).

Sizes here are those of the renderer's symbols (:mod:`judge.render.svg` draws with them);
a name's width is from the advance widths of DejaVu Sans Bold, the picture's font, so that a
build gives the same data on every machine, whatever fonts it has.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cache, partial

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1

NAME_SIZE = 9.0  # font size of a province's name
DOT_RADIUS = 5.0  # a supply centre's dot
RING_RADIUS = 12.0  # the red ring round a dislodged unit
# A unit's symbol (army disc, fleet hull, garrison square) at (0, 0) lies within this box
# and within this circle (a fleet's hull reaches both sides, its mast the top).
UNIT_BOX: Box = (-10.7, -9.7, 10.7, 8.7)
UNIT_RADIUS = 10.9
NAME_BELOW = 17.0  # a name's baseline below its unit point, where there is room
DISLODGED_AT: Point = (-25.0, -14.0)  # a dislodged unit, from the unit that beat it
GAP = 0.6  # between two things that must not touch
SEARCH = 46.0  # how far from the unit point a name, dot or ring may go
STEP = 1.5

# Advance widths of DejaVu Sans Bold (thousandths of the font size): a name's box.
_WIDTHS = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
                   (774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850,
                    733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, *[696] * 10, 500),
                   strict=True))
_WIDTHS.update(zip("abcdefghijklmnopqrstuvwxyz ",
                   (675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
                    716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 348), strict=True))


def text_width(text: str, size: float) -> float:
    """The width of ``text`` in DejaVu Sans Bold at ``size`` (wide for unknown letters)."""
    return sum(_WIDTHS.get(c, 1000) for c in text) / 1000 * size


def name_box(name: str, at: Point) -> Box:
    """The box of ``name`` written centred on ``at`` (its baseline), as the renderer writes
    it: capitals reach 0.73 of the size above the baseline."""
    width = text_width(name.upper(), NAME_SIZE)
    x, y = at
    return (x - width / 2 - 0.5, y - 0.76 * NAME_SIZE, x + width / 2 + 0.5, y + 0.1 * NAME_SIZE)


# What is drawn, for the overlap tests: ("box", x0, y0, x1, y1), ("circle", x, y, r), or
# ("unit", x, y): a unit's symbol, within both its box and its circle.
Shape = tuple


def box_shape(box: Box) -> Shape:
    return ("box", *box)


def _name_shape(name: str, at: Point) -> Shape:
    return box_shape(name_box(name, at))


def dot_shape(at: Point) -> Shape:
    return ("circle", at[0], at[1], DOT_RADIUS + 0.7)


def ring_shape(at: Point) -> Shape:
    return ("circle", at[0], at[1], RING_RADIUS + 0.8)


def unit_shape(at: Point) -> Shape:
    return ("unit", at[0], at[1])


def _box_circle(box: tuple, circle: tuple) -> bool:
    x0, y0, x1, y1 = box
    cx, cy, r = circle
    dx = max(x0 - cx, 0.0, cx - x1)
    dy = max(y0 - cy, 0.0, cy - y1)
    return dx * dx + dy * dy < (r + GAP) ** 2


def _box_box(a: tuple, b: tuple) -> bool:
    return (a[0] < b[2] + GAP and b[0] < a[2] + GAP and a[1] < b[3] + GAP
            and b[1] < a[3] + GAP)


def _parts(shape: Shape) -> list[tuple[str, tuple]]:
    if shape[0] == "unit":
        x, y = shape[1], shape[2]
        return [("box", (x + UNIT_BOX[0], y + UNIT_BOX[1], x + UNIT_BOX[2], y + UNIT_BOX[3])),
                ("circle", (x, y, UNIT_RADIUS))]
    return [(shape[0], tuple(shape[1:]))]


def _touch(a: tuple[str, tuple], b: tuple[str, tuple]) -> bool:
    if a[0] == "box" and b[0] == "box":
        return _box_box(a[1], b[1])
    if a[0] == "circle" and b[0] == "circle":
        (ax, ay, ar), (bx, by, br) = a[1], b[1]
        return math.hypot(ax - bx, ay - by) < ar + br + GAP
    box, circle = (a, b) if a[0] == "box" else (b, a)
    return _box_circle(box[1], circle[1])


def overlaps(a: Shape, b: Shape) -> bool:
    """Whether two drawn things touch (a unit only if both its box and its circle do)."""
    return all(_touch(pa, pb) for pa in _parts(a) for pb in _parts(b))


def bounds(shape: Shape) -> Box:
    if shape[0] == "box":
        return shape[1:]
    x, y = shape[1], shape[2]
    if shape[0] == "unit":
        return (x + UNIT_BOX[0], y + UNIT_BOX[1], x + UNIT_BOX[2], y + UNIT_BOX[3])
    r = shape[3]
    return (x - r, y - r, x + r, y + r)


def contains(rings: Iterable[Iterable[Point]], point: Point) -> bool:
    """Even-odd point in polygon, over all of a province's rings."""
    x, y = point
    hit = False
    for ring in rings:
        pts = list(ring)
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                hit = not hit
    return hit


def wholly_inside(rings: list[list[Point]], box: Box) -> bool:
    """The box's corners, edge midpoints and centre all inside the outline."""
    x0, y0, x1, y1 = box
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    return all(contains(rings, p) for p in ((xm, ym), (x0, y0), (x1, y0), (x1, y1), (x0, y1),
                                            (xm, y0), (x1, ym), (xm, y1), (x0, ym)))


# The easing of the conditions, in turn: (clear of the rest of the map, of the province's own
# name and dot, wholly inside, the point inside). A province's own units are always avoided.
NAME_EASING = ((True, True, True, True), (False, True, True, True), (True, True, False, True),
               (False, True, False, True))
# A dislodged unit's ring may reach over the border (it is wider than many provinces), but
# its unit stands inside, except on an island too small for two units side by side, where it
# stands off the coast.
RING_EASING = ((True, True, False, True), (False, True, False, True), (False, False, False, True),
               (False, False, False, False))


@cache
def _offsets() -> tuple[Point, ...]:
    steps = int(SEARCH / STEP)
    return tuple((i * STEP, j * STEP) for i in range(-steps, steps + 1)
                 for j in range(-steps, steps + 1) if math.hypot(i, j) * STEP <= SEARCH)


def _near(shapes: list[Shape], home: Point) -> list[Shape]:
    """The shapes that a point within :data:`SEARCH` of ``home`` could touch."""
    reach = SEARCH + 40
    return [s for s in shapes if (b := bounds(s))[0] < home[0] + reach
            and b[2] > home[0] - reach and b[1] < home[1] + reach and b[3] > home[1] - reach]


def _nearest(what: str, prefer: Point, home: Point, rings: list[list[Point]],
             shape_at: Callable[[Point], Shape], units: list[Shape], own: list[Shape],
             others: list[Shape], easing: tuple[tuple[bool, bool, bool, bool], ...]) -> Point:
    """The point nearest ``prefer`` (within :data:`SEARCH` of ``home``) whose shape is clear
    of the province's ``units``, of its ``own`` name and dot, and of ``others`` (the rest of
    the map), and wholly inside ``rings``; where there is none, the conditions are eased in
    turn as ``easing`` says."""
    grid = [(home[0] + dx, home[1] + dy) for dx, dy in _offsets()]
    grid.sort(key=lambda p: (round(math.hypot(p[0] - prefer[0], p[1] - prefer[1]), 6),
                             p[1], p[0]))
    grid.insert(0, prefer)
    units, own, others = _near(units, home), _near(own, home), _near(others, home)
    inside: dict[Point, bool] = {}
    for clear_of_others, clear_of_own, whole, within in easing:
        blockers = [(bounds(b), b) for b in
                    units + (own if clear_of_own else []) + (others if clear_of_others else [])]
        for p in grid:
            shape = shape_at(p)
            x0, y0, x1, y1 = bounds(shape)
            if any(b[0] < x1 + GAP and x0 < b[2] + GAP and b[1] < y1 + GAP and y0 < b[3] + GAP
                   and overlaps(shape, blocker) for b, blocker in blockers):
                continue
            if within:
                if p not in inside:
                    inside[p] = contains(rings, p)
                if not inside[p] or (whole and not wholly_inside(rings, bounds(shape))):
                    continue
            return p
    raise ValueError(f"no room for {what} within {SEARCH} of the unit point {home}")


def place(provinces: dict[str, dict]) -> dict[str, dict]:
    """``{name: {"rings", "unit", "coasts", "labelled", "dot", "label"}}`` ->
    ``{name: {"label", "centre", "dislodged"}}`` for every labelled province (``centre``
    only where ``dot``; a ``label`` given is kept as authored). Provinces are placed in
    order, each clear of what the earlier ones placed; every unit point of the map is known
    from the start."""
    units = {name: [unit_shape(p["unit"])] + [unit_shape(c) for c in p.get("coasts", {}).values()]
             for name, p in provinces.items() if p.get("labelled")}
    placed: list[Shape] = []
    out: dict[str, dict] = {}
    for name, p in provinces.items():
        if not p.get("labelled"):
            continue
        rings, home = p["rings"], p["unit"]
        own = units[name]
        others = [b for n, bs in units.items() if n != name for b in bs] + placed
        label = p.get("label") or _nearest(
            f"the name of {name}", (home[0], home[1] + NAME_BELOW), home, rings,
            partial(_name_shape, name), own, [], others, NAME_EASING)
        spot: dict[str, Point] = {"label": label}
        left = name_box(name, label)[0]
        drawn = [box_shape(name_box(name, label))]
        if p.get("dot"):  # just left of the name, at the height of its capitals' middle
            spot["centre"] = _nearest(
                f"the centre of {name}", (left - DOT_RADIUS - 2.0, label[1] - 3.0),
                label, rings, dot_shape, own, drawn, others, NAME_EASING)  # by the name
            drawn.append(dot_shape(spot["centre"]))
        spot["dislodged"] = _nearest(
            f"a dislodged unit in {name}", (home[0] + DISLODGED_AT[0], home[1] + DISLODGED_AT[1]),
            home, rings, ring_shape, own, drawn, others, RING_EASING)
        placed += drawn
        out[name] = spot
    return out


# ----------------------------------------------------------------- a stack's badge
# A stack ("2A", "A/2F": Stack 'em, Hoplite, Multiplicity) is its first kind's symbol with a
# badge that says the composition, a rounded box at one of the symbol's shoulders.
BADGE_HEIGHT = 12.0


def badge_width(label: str) -> float:
    """The width of the badge of ``label`` (its 9.5 px bold text with a margin)."""
    return 6 + 6.5 * len(label)


def _badge_spots(width: float) -> tuple[Point, ...]:
    """Where a badge of ``width`` may go, as its top left corner from the unit's point, in
    order of preference: touching the symbol at a shoulder (up-right, as before; then
    up-left, down-right, down-left), beside it, above or below it; then each of those a few
    pixels farther out, still close enough to be read as the unit's."""
    h = BADGE_HEIGHT
    near = ((7.0, -15.0), (-7.0 - width, -15.0), (7.0, 3.0), (-7.0 - width, 3.0),
            (11.0, -h / 2), (-11.0 - width, -h / 2), (-width / 2, -11.0 - h),
            (-width / 2, 10.0))
    out = list(near)
    for far in (3.0, 6.0):
        for dx, dy in near:
            sx = 0.0 if dx == -width / 2 else (far if dx > 0 else -far)
            sy = far if dy > 0 else -far if dy + h < 0 else 0.0
            out.append((dx + sx, dy + sy))
    return tuple(out)


def _overlap_area(a: Box, b: Box) -> float:
    return (max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
            * max(0.0, min(a[3], b[3]) - max(a[1], b[1])))


def place_badge(unit: Point, width: float, marks: list[Shape], units: list[Shape],
                frame: Box) -> Point:
    """The top left corner of a stack's badge of ``width`` at ``unit``, from the unit's
    point: the first of :func:`_badge_spots` whose box lies in ``frame`` (the picture) and
    touches none of ``marks`` (every province's name and centre's dot) nor ``units`` (the
    map's other unit points: a neighbour may stand there); failing that, the first clear of
    ``marks`` only; failing that (no map has such a place: tests/test_render_layout.py), the
    one covering the least of them."""
    x, y = unit
    spots = _badge_spots(width)
    boxes = [(x + dx, y + dy, x + dx + width, y + dy + BADGE_HEIGHT) for dx, dy in spots]
    marks, units = _near(marks, unit), _near(units, unit)

    def framed(box: Box) -> bool:
        return (box[0] >= frame[0] and box[1] >= frame[1] and box[2] <= frame[2]
                and box[3] <= frame[3])

    for blockers in (marks + units, marks):
        for spot, box in zip(spots, boxes, strict=True):
            if framed(box) and not any(overlaps(box_shape(box), b) for b in blockers):
                return spot
    cover = [sum(_overlap_area(box, bounds(m)) for m in marks) + (0 if framed(box) else 1e6)
             for box in boxes]
    return spots[cover.index(min(cover))]
