"""Where things stand on the picture (issue 24 item 14): on every variant's map, each
supply-centre dot and each province's name lies inside that province's own outline, no unit
in a province covers its name or its dot, and a dislodged unit is drawn beside the unit that
dislodged it, not on it.

Everything is read back from the SVG the judge draws (a unit in every place it can stand,
every centre), and the sizes of what is drawn are measured here: a name's box from the font
the picture names (DejaVu Sans Bold), a unit's from its symbol. The outlines are the map's
own shapes (``drawing_for``).
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from functools import cache

import pytest
from test_render import inside  # the tests' own point-in-polygon, not the builder's

from judge.render import render_svg
from judge.render.drawing import drawing_for
from judge.variants import get_variant, variant_names

NS = "{http://www.w3.org/2000/svg}"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
Box = tuple[float, float, float, float]


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# A drawn thing for the overlap checks: ("box", Box), ("circle", (x, y, r)), or a unit's
# symbol ("unit", (Box, (x, y, r))): it lies within both its box and the circle round it.
Shape = tuple[str, tuple]


def touch(a: Shape, b: Shape) -> bool:
    if a[0] == "unit":
        return touch(("box", a[1][0]), b) and touch(("circle", a[1][1]), b)
    if b[0] == "unit":
        return touch(b, a)
    if a[0] == "box" and b[0] == "box":
        return overlap(a[1], b[1])
    if a[0] == "circle" and b[0] == "circle":
        (ax, ay, ar), (bx, by, br) = a[1], b[1]
        return (ax - bx) ** 2 + (ay - by) ** 2 < (ar + br) ** 2
    (x0, y0, x1, y1), (cx, cy, r) = (a[1], b[1]) if a[0] == "box" else (b[1], a[1])
    dx, dy = max(x0 - cx, 0, cx - x1), max(y0 - cy, 0, cy - y1)
    return dx * dx + dy * dy < r * r


@cache
def text_box(text: str, size: float, bold: bool) -> tuple[float, float, float]:
    """(width, height above the baseline, depth below it) of ``text`` in the picture's font."""
    try:
        from PIL import ImageFont
        font = ImageFont.truetype(FONT if bold else FONT.replace("-Bold", ""), 100)
    except OSError:  # no DejaVu here: a generous estimate
        return (0.9 * size * len(text), 0.76 * size, 0.05 * size)
    ascent, _ = font.getmetrics()
    x0, y0, x1, y1 = font.getbbox(text)
    k = size / 100
    return ((x1 - x0) * k, (ascent - y0) * k, max(0, y1 - ascent) * k)


def element_box(element: ET.Element, dx: float = 0.0, dy: float = 0.0) -> Box:
    """What one drawn element covers (shapes of units and dots, and text)."""
    tag = element.tag.removeprefix(NS)
    a = element.attrib
    half = float(a.get("stroke-width", "0")) / 2
    if tag == "circle":
        r = float(a["r"]) + half
        x, y = float(a.get("cx", "0")) + dx, float(a.get("cy", "0")) + dy
        return (x - r, y - r, x + r, y + r)
    if tag == "rect":
        x, y = float(a.get("x", "0")) + dx, float(a.get("y", "0")) + dy
        return (x - half, y - half, x + float(a["width"]) + half, y + float(a["height"]) + half)
    if tag == "path":
        nums = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", a["d"])]
        xs, ys = nums[0::2], nums[1::2]
        return (min(xs) + dx - half, min(ys) + dy - half, max(xs) + dx + half,
                max(ys) + dy + half)
    if tag == "text":
        size = float(a["font-size"])
        w, up, down = text_box(element.text or "", size, a.get("font-weight") == "bold")
        x, y = float(a["x"]) + dx, float(a["y"]) + dy
        return (x - w / 2, y - up, x + w / 2, y + down)
    raise AssertionError(f"no box for {tag}")


def union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))


def anchor(g: ET.Element) -> tuple[float, float]:
    m = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", g.get("transform", ""))
    assert m
    return float(m.group(1)), float(m.group(2))


def reach(element: ET.Element) -> float:
    """How far from the unit's point one part of its symbol reaches."""
    tag = element.tag.removeprefix(NS)
    a = element.attrib
    half = float(a.get("stroke-width", "0")) / 2
    if tag == "circle":
        return math.hypot(float(a.get("cx", "0")), float(a.get("cy", "0"))) + float(a["r"]) + half
    x0, y0, x1, y1 = element_box(element)
    return max(math.hypot(x, y) for x in (x0, x1) for y in (y0, y1))  # text, rect: corners


def unit_shape(g: ET.Element) -> Shape:
    """The unit's symbol (and a dislodged unit's ring); its letter lies within it. A chess
    piece is its glyph's box."""
    dx, dy = anchor(g)
    shapes = [e for e in g if e.tag != f"{NS}text"] or list(g)
    if not [e for e in g if e.tag != f"{NS}text"]:
        return ("box", union([element_box(e, dx, dy) for e in g]))
    if any(e.tag == f"{NS}path" for e in shapes):  # a fleet's hull: its points
        nums = [float(n) for e in shapes if e.tag == f"{NS}path"
                for n in re.findall(r"-?\d+(?:\.\d+)?", e.get("d", ""))]
        half = max(float(e.get("stroke-width", "0")) for e in shapes) / 2
        radius = max([math.hypot(x, y) + half for x, y in zip(nums[0::2], nums[1::2],
                                                               strict=True)]
                     + [reach(e) for e in shapes if e.tag != f"{NS}path"])
    else:
        radius = max(reach(e) for e in shapes)
    return ("unit", (union([element_box(e, dx, dy) for e in shapes]), (dx, dy, radius)))


def shape_of(element: ET.Element) -> Shape:
    if element.tag == f"{NS}circle":
        half = float(element.get("stroke-width", "0")) / 2
        return ("circle", (float(element.get("cx", "0")), float(element.get("cy", "0")),
                           float(element.get("r", "0")) + half))
    return ("box", element_box(element))


def read(svg: str) -> tuple[dict[str, ET.Element], dict[str, ET.Element], list[ET.Element]]:
    """(name of each province -> its label, centre dots by province, units) of a picture."""
    root = ET.fromstring(svg)
    [labels] = [g for g in root.iter(f"{NS}g") if g.get("class") == "labels"]
    names = {t.text or "": t for t in labels.iter(f"{NS}text")}
    dots = {c.get("data-province", ""): c for c in root.iter(f"{NS}circle")
            if c.get("class") == "centre"}
    units = [g for g in root.iter(f"{NS}g") if g.get("class") == "unit"]
    return names, dots, units


def kind_at(name: str, board, location: str) -> str:
    if name == "chessdip":
        return "P"
    if "/" in location:
        return "F"
    return "F" if board.provinces[location].kind == "sea" else "A"


def stand_everywhere(name: str) -> list[list[str]]:
    """Positions with a unit in every place a unit can stand: the first at each province's
    own point, then one for each further coast of split-coast provinces."""
    board = get_variant(name).board
    main = [f"{kind_at(name, board, p)} {p}" for p in sorted(board.provinces)
            if drawing_for(name).places.get(p) is not None
            and board.provinces[p].kind != "impassable"]
    out = [main]
    depth = max((len(p.coasts) for p in board.provinces.values()), default=0)
    for k in range(depth):
        out.append([f"F {sorted(p.coasts)[k]}" for p in board.provinces.values()
                    if len(p.coasts) > k])
    return out


def picture(name: str, units: list[str], dislodged: list[str] = ()) -> str:
    board = get_variant(name).board
    data = {"variant": name, "phase": "S1901M", "units": {"X": units}, "centres": {},
            "dislodged": {"Y": list(dislodged)}}
    return render_svg(name, data, supply_centres=board.supply_centres)


MAPS = [n for n in variant_names() if drawing_for(n).kind == "map"]


@pytest.mark.parametrize("name", MAPS)
def test_every_centre_and_name_lies_inside_its_own_province(name: str) -> None:
    """Liverpool's dot and name were drawn in the Irish Sea; every map is checked."""
    drawing, board = drawing_for(name), get_variant(name).board
    names, dots, units = read(picture(name, stand_everywhere(name)[0]))
    wrong = []
    for prov in sorted(board.provinces):
        if board.provinces[prov].kind == "impassable":
            continue
        rings = drawing.places[prov].rings
        x0, y0, x1, y1 = element_box(names[prov])
        if not inside(((x0 + x1) / 2, (y0 + y1) / 2), rings):
            wrong.append(f"name {prov}")
        if prov in board.supply_centres:
            dot = dots[prov]
            if not inside((float(dot.get("cx", "0")), float(dot.get("cy", "0"))), rings):
                wrong.append(f"centre {prov}")
    for g in units:  # unit anchors too (at each coast: test_render.py)
        m = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", g.get("transform", ""))
        assert m
        prov = g.get("data-location", "").split("/")[0]
        if not inside((float(m.group(1)), float(m.group(2))), drawing.places[prov].rings):
            wrong.append(f"unit {prov}")
    assert not wrong, f"drawn outside their own province on the {name} map: {wrong}"


@pytest.mark.parametrize("name", variant_names())
def test_no_unit_covers_the_name_or_the_centre_of_its_province(name: str) -> None:
    """GAL, RUM, BEL, DEN (and more) had their names under their own unit (or their own
    centre's dot)."""
    covered = []
    names, dots, _ = read(picture(name, []))
    for prov in sorted(set(names) & set(dots)):
        if touch(shape_of(names[prov]), shape_of(dots[prov])):
            covered.append(f"name of {prov} by its centre")
    for units in stand_everywhere(name):
        names, dots, drawn = read(picture(name, units))
        for g in drawn:
            prov = g.get("data-location", "").split("/")[0]
            unit = unit_shape(g)
            if prov in names and touch(unit, shape_of(names[prov])):
                covered.append(f"name of {g.get('data-location')}")
            if prov in dots and touch(unit, shape_of(dots[prov])):
                covered.append(f"centre of {g.get('data-location')}")
    assert not covered, f"covered by the unit there on the {name} map: {sorted(covered)}"


@pytest.mark.parametrize("name", MAPS)
def test_a_dislodged_unit_is_drawn_beside_the_unit_that_dislodged_it(name: str) -> None:
    """In Galicia the dislodged unit's ring hid the winner; in every province now neither
    covers the other, nor the province's name, and both stand in the province."""
    drawing = drawing_for(name)
    hidden = []
    for units in stand_everywhere(name):
        names, dots, drawn = read(picture(name, units, units))
        winners = {g.get("data-location"): g for g in drawn if g.get("data-dislodged") == "false"}
        for g in drawn:
            if g.get("data-dislodged") != "true":
                continue
            where = g.get("data-location", "")
            prov = where.split("/")[0]
            x, y = anchor(g)
            ring = ("circle", (x, y, unit_shape(g)[1][1][2]))  # its red ring
            if touch(ring, unit_shape(winners[where])):
                hidden.append(f"winner in {where}")
            if prov in names and touch(ring, shape_of(names[prov])):
                hidden.append(f"name of {where}")
            rings = drawing.places[prov].rings
            x0, y0, x1, y1 = union([(px, py, px, py) for r in rings for px, py in r])
            # an island smaller than two units side by side has its dislodged unit off
            # the coast; elsewhere it stands in its province
            room = max(x1 - x0, y1 - y0) >= 2 * (ring[1][2] + unit_shape(winners[where])[1][1][2])
            if room and not inside((x, y), rings):
                hidden.append(f"dislodged unit outside {prov}")
    assert not hidden, f"hidden by a dislodged unit on the {name} map: {sorted(hidden)}"


# Badges that cannot be placed clear of every name and dot, as "MAP LOCATION LABEL": none.
BADGE_EXCEPTIONS: set[str] = set()


def stacked(units: list[str], label: str) -> list[str]:
    """Each unit as a stack with the badge ``label`` ("2{kind}": two of the unit's kind,
    "2{kind}/{other}": Multiplicity's mixed stack, the wider badge)."""
    out = []
    for unit in units:
        kind, where = unit.split()
        other = "F" if kind == "A" else "A"
        out.append(f"{label.format(kind=kind, other=other)} {where}")
    return out


@pytest.mark.parametrize("name", MAPS)
def test_a_stack_badge_covers_no_name_and_no_centre(name: str) -> None:
    """Athens' "2A" badge (up-right of the unit, Hoplite) covered MAR's name: on every map,
    with a stack in every place a unit can stand, no badge touches any province's name or
    any centre's dot (the badge moves to another shoulder of its unit)."""
    covered = []
    for label in ("2{kind}", "2{kind}/{other}"):
        for units in stand_everywhere(name):
            names, dots, drawn = read(picture(name, stacked(units, label)))
            marks = ([(f"name of {p}", shape_of(t)) for p, t in sorted(names.items())]
                     + [(f"centre of {p}", shape_of(c)) for p, c in sorted(dots.items())])
            for g in drawn:
                [badge] = [e for e in g if e.tag == f"{NS}rect"]
                box = ("box", element_box(badge, *anchor(g)))
                where = f"{name} {g.get('data-location')} {g.get('data-unit', '').split()[0]}"
                hits = [what for what, shape in marks if touch(box, shape)]
                if hits and where not in BADGE_EXCEPTIONS:
                    covered.append(f"{where}: {', '.join(hits)}")
    assert not covered, f"stack badges covering names or centres: {covered}"
