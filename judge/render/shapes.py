"""Province shapes from seed points: the builder behind each variant's ``drawing.json``.

A map's outlines are authored as data, not drawn by hand in an editor: every province has a few
seed points (longitude, latitude) inside it, and coastlines are polylines with the land on
their left, each stretch naming the land province and the sea it separates. The builder
densifies the coastlines into pairs of seeds just either side of the line (so the coast of the
picture follows the authored line, not the middle between two cities), computes the Voronoi
cell of every seed in the plane, and merges the cells of each province into its outline.

Province outlines are therefore a partition of the picture with shared borders: no gaps, no
overlaps, whatever the seeds. The output is written to
``drawing.json`` beside the authored ``drawing-source.json`` (so the renderer needs no
geometry at run time); ``python -m judge.render.shapes variants/X/drawing-source.json``
rebuilds it after the source has been edited, and a test checks that the committed shapes are
what the source builds.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any

from judge.render import layout

Point = tuple[float, float]


class Projection:
    """Equirectangular with the longitude scaled by cos(reference latitude): simple, and close
    enough over the few dozen degrees a Diplomacy map spans."""

    def __init__(self, spec: dict[str, float]) -> None:
        self.lon0 = spec["lon_min"]
        self.lat1 = spec["lat_max"]
        self.scale = spec["scale"]
        self.kx = self.scale * math.cos(math.radians(spec["lat_ref"]))
        self.width = round((spec["lon_max"] - spec["lon_min"]) * self.kx)
        self.height = round((spec["lat_max"] - spec["lat_min"]) * self.scale)

    def __call__(self, lon: float, lat: float) -> Point:
        return ((lon - self.lon0) * self.kx, (self.lat1 - lat) * self.scale)


# ----------------------------------------------------------------- Voronoi cells
# A cell is a list of (x, y, tag): the edge from this vertex to the next one lies on the
# bisector with seed number ``tag`` (-1: the picture's frame).
Cell = list[tuple[float, float, int]]


def _clip(cell: Cell, a: Point, b: Point, tag: int) -> Cell:
    """Keep the part of ``cell`` nearer to ``a`` than to ``b`` (Sutherland-Hodgman)."""
    nx, ny = b[0] - a[0], b[1] - a[1]
    c = (b[0] ** 2 + b[1] ** 2 - a[0] ** 2 - a[1] ** 2) / 2

    def inside(x: float, y: float) -> bool:
        return nx * x + ny * y <= c

    out: Cell = []
    n = len(cell)
    for i in range(n):
        x1, y1, t1 = cell[i]
        x2, y2, _ = cell[(i + 1) % n]
        in1, in2 = inside(x1, y1), inside(x2, y2)
        if in1:
            out.append((x1, y1, t1))
        if in1 != in2:
            d1 = nx * x1 + ny * y1 - c
            d2 = nx * x2 + ny * y2 - c
            t = d1 / (d1 - d2)
            px, py = x1 + t * (x2 - x1), y1 + t * (y2 - y1)
            # Leaving: the new edge runs along the bisector; entering: it continues edge i.
            out.append((px, py, tag if in1 else t1))
    return out


def voronoi(seeds: list[Point], width: float, height: float) -> list[Cell]:
    """Every seed's cell inside the frame; neighbours are visited nearest first, stopping once
    no farther seed can cut the cell (twice its radius)."""
    size = max(width, height) / max(1, int(math.sqrt(len(seeds))))
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (x, y) in enumerate(seeds):
        grid[(int(x // size), int(y // size))].append(i)
    gmax = int(max(width, height) // size) + 2
    cells = []
    for i, a in enumerate(seeds):
        cell: Cell = [(0, 0, -1), (width, 0, -1), (width, height, -1), (0, height, -1)]
        gx, gy = int(a[0] // size), int(a[1] // size)
        ring = 0
        while ring <= gmax:
            near: list[int] = []  # seed numbers
            for dx in range(-ring, ring + 1):
                for dy in range(-ring, ring + 1):
                    if max(abs(dx), abs(dy)) == ring:
                        near.extend(grid.get((gx + dx, gy + dy), ()))
            near.sort(key=lambda j: (seeds[j][0] - a[0]) ** 2 + (seeds[j][1] - a[1]) ** 2)
            for j in near:
                if j != i and seeds[j] != a:
                    cell = _clip(cell, a, seeds[j], j)
            if not cell:  # a seed outside the frame (a coast that runs off the picture)
                break
            radius = max(math.hypot(x - a[0], y - a[1]) for x, y, _ in cell)
            # Every seed not yet seen is at least ring * size away.
            if ring * size > 2 * radius:
                break
            ring += 1
        cells.append(cell)
    return cells


# ------------------------------------------------------------------ the builder
def _densify(points: list[Point], step: float) -> list[tuple[Point, Point]]:
    """Points every ``step`` along a polyline, each with the unit direction there."""
    out = []
    for (x1, y1), (x2, y2) in zip(points, points[1:], strict=False):
        length = math.hypot(x2 - x1, y2 - y1)
        if length == 0:
            continue
        n = max(1, round(length / step))
        d = ((x2 - x1) / length, (y2 - y1) / length)
        for k in range(n):
            t = (k + 0.5) / n
            out.append(((x1 + t * (x2 - x1), y1 + t * (y2 - y1)), d))
    return out


def coast_seeds(coast: dict[str, Any], project: Projection, step: float,
                offset: float) -> list[tuple[Point, str]]:
    """Seed pairs either side of one authored coastline.

    ``path`` items are ``[lon, lat]`` points or markers: ``"L:PROV"`` sets the land province
    and ``"S:SEA"`` the sea for the stretches that follow. The land is on the left of the
    direction of travel (in the usual north-up sense).
    """
    land = sea = None
    pts: list[Point] = []
    stretches: list[tuple[str, str, list[Point]]] = []

    def flush() -> None:
        if len(pts) >= 2 and land is not None and sea is not None:
            stretches.append((land, sea, list(pts)))

    items = list(coast["path"])
    if coast.get("closed"):
        first = next(p for p in items if not isinstance(p, str))
        items.append(first)
    for item in items:
        if isinstance(item, str):
            flush()
            kind, _, name = item.partition(":")
            if kind == "L":
                land = name
            else:
                sea = name
            pts = pts[-1:]
            continue
        pts.append(project(*item))
    flush()
    out = []
    for land_name, sea_name, line in stretches:
        for (x, y), (dx, dy) in _densify(line, step):
            # Left of travel in a north-up frame is (-dy, dx); in the picture y points down.
            lx, ly = dy, -dx
            out.append(((x + offset * lx, y + offset * ly), land_name))
            out.append(((x - offset * lx, y - offset * ly), sea_name))
    return out


def island(spec: dict[str, Any], points: int = 16) -> dict[str, Any]:
    """A small island as an ellipse (``centre``, ``radius`` in degrees): its coast is drawn
    counter-clockwise from the north, the ``seas`` sharing it in equal arcs in that order."""
    (lon, lat), (rx, ry) = spec["centre"], spec["radius"]
    seas = spec["seas"]
    path: list[Any] = [f"L:{spec['land']}"]
    last = -1
    for k in range(points):
        arc = k * len(seas) // points
        if arc != last:
            path.append(f"S:{seas[arc]}")
            last = arc
        a = math.pi / 2 + 2 * math.pi * k / points
        path.append([round(lon + rx * math.cos(a), 3), round(lat + ry * math.sin(a), 3)])
    return {"name": spec["land"], "closed": True, "path": path}


class _Snap:
    """Vertex identities: the same Voronoi vertex is computed separately in each cell that
    has it, so it is found again within a small tolerance rather than by exact value."""

    def __init__(self, tolerance: float = 0.05) -> None:
        self.tol = tolerance
        self.buckets: dict[tuple[int, int], list[tuple[float, float, int]]] = defaultdict(list)
        self.points: list[Point] = []

    def id(self, x: float, y: float) -> int:
        bx, by = int(x / self.tol), int(y / self.tol)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for px, py, i in self.buckets.get((bx + dx, by + dy), ()):
                    if abs(px - x) <= self.tol and abs(py - y) <= self.tol:
                        return i
        i = len(self.points)
        self.points.append((x, y))
        self.buckets[(bx, by)].append((x, y, i))
        return i


def outlines(cells: list[Cell], owner: list[str]) -> dict[str, list[list[Point]]]:
    """Each province's rings: the cell edges whose other side belongs to another province,
    chained end to end (an edge shared by two cells of one province cancels out)."""
    snap = _Snap()
    edges: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, cell in enumerate(cells):
        ids = [snap.id(x, y) for x, y, _ in cell]
        n = len(cell)
        for k in range(n):
            tag = cell[k][2]
            if tag >= 0 and owner[tag] == owner[i]:
                continue
            a, b = ids[k], ids[(k + 1) % n]
            if a != b:
                edges[owner[i]][a].append(b)
    rings: dict[str, list[list[Point]]] = {}
    for prov, nexts in edges.items():
        out = []
        while True:
            start = next((k for k, v in nexts.items() if v), None)
            if start is None:
                break
            ring = [start]
            here = nexts[start].pop()
            while here != start and nexts.get(here):
                ring.append(here)
                here = nexts[here].pop()
            if here == start and len(ring) >= 3:
                out.append(_simplify([snap.points[v] for v in ring]))
        rings[prov] = out
    return rings


def _simplify(ring: list[Point]) -> list[Point]:
    """Drop vertices that lie on a straight line with their neighbours (the densified coast
    leaves many), keeping shapes exact to a tenth of a pixel."""
    if len(ring) < 4:
        return ring
    out = [ring[0]]
    for k in range(1, len(ring) - 1):
        (x0, y0), (x1, y1), (x2, y2) = out[-1], ring[k], ring[k + 1]
        cross = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0)
        if abs(cross) / max(1e-9, math.hypot(x2 - x0, y2 - y0)) > 0.1:
            out.append(ring[k])
    out.append(ring[-1])
    return out


contains = layout.contains


def _inside_towards(point: Point, home: Point, rings: list[list[Point]]) -> Point:
    """A coast's point, moved towards the province's unit point until it lies inside the
    outline: authored coast points sit on thin strips, where a degree is many pixels."""
    for k in range(11):
        t = k / 10
        p = (point[0] + t * (home[0] - point[0]), point[1] + t * (home[1] - point[1]))
        if contains(rings, p):
            return p
    return point


def build(source: dict[str, Any], centres: Collection[str] | None = None) -> dict[str, Any]:
    """The ``provinces`` section (outline, unit, label, centre-dot and dislodged-unit points:
    :func:`judge.render.layout.place`) and the picture's size. ``centres`` are the map's
    supply centres (None: every province), the provinces that get a dot."""
    project = Projection(source["projection"])
    step = source.get("coast_step", 5.0)
    offset = source.get("coast_offset", 1.2)
    seeds: list[Point] = []
    owner: list[str] = []
    anchors: dict[str, dict[str, Point]] = {}
    for prov, spec in source["provinces"].items():
        pts = spec["seeds"]
        for lon, lat in pts:
            seeds.append(project(lon, lat))
            owner.append(prov)
        points = {"unit": project(*spec.get("unit", pts[0]))}
        if "label" in spec:
            points["label"] = project(*spec["label"])
        for loc, ll in spec.get("coasts", {}).items():
            points[loc] = project(*ll)
        anchors[prov] = points
    coasts = list(source.get("coasts", ())) + [island(i) for i in source.get("islands", ())]
    for coast in coasts:
        for point, prov in coast_seeds(coast, project, step, offset):
            seeds.append(point)
            owner.append(prov)
    cells = voronoi(seeds, project.width, project.height)
    rings = outlines(cells, owner)

    def r(p: Point) -> list[float]:
        return [round(p[0], 1), round(p[1], 1)]

    provinces: dict[str, Any] = {}
    for prov in source["provinces"]:
        a = anchors[prov]
        unit = a["unit"]
        entry: dict[str, Any] = {
            "kind": source["provinces"][prov].get("kind", "province"),
            "rings": [[r(p) for p in ring] for ring in rings.get(prov, [])],
            "unit": r(unit),
            "label": r(a.get("label", unit)),  # scenery has no name drawn (layout.place)
        }
        coast_points = {k: r(_inside_towards(v, unit, rings.get(prov, [])))
                        for k, v in a.items() if "/" in k}
        if coast_points:
            entry["coasts"] = coast_points
        provinces[prov] = entry
    # Names, dots and dislodged units are placed on the rounded points, as they are drawn.
    spots = layout.place({
        prov: {"rings": [[tuple(p) for p in ring] for ring in e["rings"]],
               "unit": tuple(e["unit"]),
               "coasts": {k: tuple(v) for k, v in e.get("coasts", {}).items()},
               "labelled": e["kind"] in ("province", "sea"),
               "dot": centres is None or prov in centres,
               "label": tuple(r(anchors[prov]["label"])) if "label" in anchors[prov] else None}
        for prov, e in provinces.items()})
    for prov, spot in spots.items():
        provinces[prov]["label"] = r(spot["label"])
        if "centre" in spot:
            provinces[prov]["centre"] = r(spot["centre"])
        provinces[prov]["dislodged"] = r(spot["dislodged"])
    return {"width": project.width, "height": project.height, "provinces": provinces}


def map_centres(source_path: Path) -> set[str] | None:
    """The supply centres of the ``map.json`` beside a drawing's source, if there is one."""
    board = source_path.with_name("map.json")
    if not board.exists():
        return None
    provinces = json.loads(board.read_text(encoding="utf-8"))["provinces"]
    return {name for name, p in provinces.items() if p.get("supply_centre")}


def rebuild(source_path: Path) -> Path:
    """``drawing-source.json`` -> ``drawing.json`` beside it (compact: it is machine-made)."""
    source = json.loads(source_path.read_text(encoding="utf-8"))
    out = source_path.with_name("drawing.json")
    built = {"built_from": source_path.name, **build(source, map_centres(source_path))}
    for key in ("colours", "kind"):
        if key in source:
            built[key] = source[key]
    out.write_text(json.dumps(built, separators=(",", ":"), ensure_ascii=False) + "\n",
                   encoding="utf-8")
    return out


if __name__ == "__main__":
    for name in sys.argv[1:]:
        rebuild(Path(name))
