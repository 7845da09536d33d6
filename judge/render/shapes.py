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
from pathlib import Path
from typing import Any

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
            near = []
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


def _key(x: float, y: float) -> tuple[int, int]:
    return (round(x * 100), round(y * 100))


def outlines(cells: list[Cell], owner: list[str]) -> dict[str, list[list[Point]]]:
    """Each province's rings: the cell edges whose other side belongs to another province,
    chained end to end."""
    edges: dict[str, dict[tuple[int, int], list[tuple[Point, Point]]]] = defaultdict(
        lambda: defaultdict(list))
    for i, cell in enumerate(cells):
        n = len(cell)
        for k in range(n):
            x1, y1, tag = cell[k]
            x2, y2, _ = cell[(k + 1) % n]
            if tag >= 0 and owner[tag] == owner[i]:
                continue
            if _key(x1, y1) == _key(x2, y2):
                continue
            edges[owner[i]][_key(x1, y1)].append(((x1, y1), (x2, y2)))
    rings: dict[str, list[list[Point]]] = {}
    for prov, by_start in edges.items():
        out = []
        while any(by_start.values()):
            start_key = next(k for k, v in by_start.items() if v)
            a, b = by_start[start_key].pop()
            ring = [a]
            guard = 0
            while _key(*b) != start_key and guard < 100000:
                guard += 1
                ring.append(b)
                nxt = by_start.get(_key(*b))
                if not nxt:
                    # Float noise: take the nearest unused edge start.
                    cand = min((k for k, v in by_start.items() if v),
                               key=lambda k: (k[0] - b[0] * 100) ** 2 + (k[1] - b[1] * 100) ** 2,
                               default=None)
                    if cand is None:
                        break
                    nxt = by_start[cand]
                _, b = nxt.pop()
            out.append(_simplify(ring))
        rings[prov] = [r for r in out if len(r) >= 3]
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


def build(source: dict[str, Any]) -> dict[str, Any]:
    """The ``provinces`` section (outline, unit and label points) and the picture's size."""
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
        entry = {"unit": project(*spec.get("unit", pts[0]))}
        if "label" in spec:
            entry["label"] = project(*spec["label"])
        for loc, ll in spec.get("coasts", {}).items():
            entry[loc] = project(*ll)
        anchors[prov] = entry
    for coast in source.get("coasts", ()):
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
            "label": r(a.get("label", (unit[0], unit[1] + 17))),
        }
        coasts = {k: r(v) for k, v in a.items() if "/" in k}
        if coasts:
            entry["coasts"] = coasts
        provinces[prov] = entry
    return {"width": project.width, "height": project.height, "provinces": provinces}


def rebuild(source_path: Path) -> Path:
    """``drawing-source.json`` -> ``drawing.json`` beside it (compact: it is machine-made)."""
    source = json.loads(source_path.read_text(encoding="utf-8"))
    out = source_path.with_name("drawing.json")
    built = {"built_from": source_path.name, **build(source)}
    for key in ("colours", "kind"):
        if key in source:
            built[key] = source[key]
    out.write_text(json.dumps(built, separators=(",", ":"), ensure_ascii=False) + "\n",
                   encoding="utf-8")
    return out


if __name__ == "__main__":
    for name in sys.argv[1:]:
        rebuild(Path(name))
