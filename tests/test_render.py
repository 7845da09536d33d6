"""Map pictures (issue 10): every variant's position drawn, checked from the SVG's content.

The SVG marks what it draws with ``data-`` attributes (units, centres, orders); these tests
read them back and compare with the position and the adjudication, and check that each
unit's symbol stands inside its own province's outline on the picture.
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from judge.engine.orders import Convoy, Move, SupportHold, SupportMove
from judge.engine.position import Position
from judge.engine.randomgame import random_orders, random_position
from judge.render import render_svg, svg_to_png
from judge.render.drawing import drawing_for
from judge.render.raster import SCALE, whole_png
from judge.render.shapes import build, map_centres
from judge.render.svg import NEUTRAL, power_colours
from judge.resources import variant_file
from judge.variants import get_variant, variant_names

NS = "{http://www.w3.org/2000/svg}"
ORDERED_KINDS = {"move", "support", "convoy", "retreat"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def units_in(svg: str) -> list[dict[str, str]]:
    return [dict(g.attrib) for g in parse(svg).iter(f"{NS}g") if g.get("class") == "unit"]


def centres_in(svg: str) -> dict[str, dict[str, str]]:
    return {c.get("data-province"): dict(c.attrib) for c in parse(svg).iter(f"{NS}circle")
            if c.get("class") == "centre"}


def orders_in(svg: str) -> list[dict[str, str]]:
    out = []
    for g in parse(svg).iter(f"{NS}g"):
        if g.get("class") == "order":
            entry = dict(g.attrib)
            entry["failed_mark"] = any(p.get("class") == "failed" for p in g)
            out.append(entry)
    return out


def translate(transform: str) -> tuple[float, float]:
    m = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", transform)
    assert m, transform
    return float(m.group(1)), float(m.group(2))


def inside(point: tuple[float, float], rings) -> bool:
    """Even-odd point in polygon over all of a province's rings."""
    x, y = point
    hit = False
    for ring in rings:
        for (x1, y1), (x2, y2) in zip(ring, list(ring[1:]) + [ring[0]], strict=True):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                hit = not hit
    return hit


def sample_position(name: str) -> Position:
    """The starting position, or (variants that start empty: players choose their set-up)
    a position with units of every kind the variant writes."""
    variant = get_variant(name)
    start = variant.initial_position()
    if start.units:
        return start
    data = variant.write_position(start)
    # the first movement after the opening builds (W1900A, W451BCA), or the start (Stab!)
    data["phase"] = {"hoplite": "S450BCM", "multiplicity": "S1901M"}.get(name, data["phase"])
    data["variant"] = name
    if name == "hoplite":
        data["units"] = {"ATHENS": ["2A ATH", "F THO", "G MAR"], "SPARTA": ["A SPA", "A/F ZAR"],
                         "THESSALY": ["F LAR/NC", "A CIE"], "ACHEA": ["A PAT"]}
    else:
        data["units"] = {p: list(u) for p, u in get_variant("standard").board.starting_units
                         .items()}
        if name == "multiplicity":
            data["units"]["FRANCE"] = ["2A PAR", "A/F BRE", "A MAR"]
    data.pop("placement", None)
    return variant.read_position(data)


def draw(name: str, position: Position, results=()) -> tuple[str, dict]:
    variant = get_variant(name)
    data = variant.write_position(position)
    svg = render_svg(name, data, [r.to_json() if hasattr(r, "to_json") else r for r in results],
                     title=variant.title, supply_centres=variant.board.supply_centres)
    return svg, data


@pytest.mark.parametrize("name", variant_names())
def test_every_unit_and_centre_of_the_start_is_drawn(name: str) -> None:
    variant = get_variant(name)
    drawing = drawing_for(name)
    svg, data = draw(name, sample_position(name))
    written = sorted((p, u) for p, us in data["units"].items() for u in us)
    assert written, "the sample position has units"
    drawn = units_in(svg)
    assert sorted((u["data-power"], u["data-unit"]) for u in drawn) == written
    for u in drawn:
        where = drawing.point(u["data-location"])
        assert where is not None
        x, y = translate(u["transform"])
        # A unit stands at its place's point (several in one place side by side).
        assert y == pytest.approx(where[1], abs=0.1)
        assert (x - where[0]) % 20 == pytest.approx(0, abs=0.1)
        if drawing.kind == "map":
            province = u["data-location"].split("/")[0]
            assert inside(where, drawing.places[province].rings), u
    colours = power_colours(drawing, sorted(set(data["centres"]) | set(data["units"])))
    owners = {c: p for p, cs in data["centres"].items() for c in cs}
    centres = centres_in(svg)
    assert set(centres) == set(variant.board.supply_centres)
    for c, attrs in centres.items():
        owner = owners.get(c)
        assert attrs["data-owner"] == (owner or "")
        assert attrs["fill"] == (colours[owner] if owner else NEUTRAL)
    if owners:
        assert len({colours[p] for p in owners.values()}) == len(set(owners.values()))


@pytest.mark.parametrize("name", variant_names())
def test_every_place_a_unit_can_stand_has_a_point_inside_its_province(name: str) -> None:
    board = get_variant(name).board
    drawing = drawing_for(name)
    for prov, p in board.provinces.items():
        assert drawing.point(prov) is not None, prov
        for coast in p.coasts:
            point = drawing.point(coast)
            assert point is not None and point != drawing.places[prov].unit, coast
            if drawing.kind == "map":
                assert inside(point, drawing.places[prov].rings), coast
        if drawing.kind == "map":
            assert inside(drawing.places[prov].unit, drawing.places[prov].rings), prov


def expected_arrows(order) -> set[tuple[str, str, str]]:
    if isinstance(order, Move):
        return {("move", order.unit.location, order.destination)}
    if isinstance(order, SupportMove):
        return {("support", order.unit.location, order.destination)}
    if isinstance(order, SupportHold):
        return {("support", order.unit.location, order.target.location)}
    if isinstance(order, Convoy):
        return {("convoy", order.unit.location, order.destination)}
    return set()


@pytest.mark.parametrize("seed", range(6))
def test_every_order_of_a_random_movement_is_an_arrow_with_its_result(seed: int) -> None:
    variant = get_variant("standard")
    rng = random.Random(seed)
    position = random_position(variant.board, rng, 30)
    orders = random_orders(variant.board, position, rng)
    outcome = variant.adjudicate(position, orders)
    svg, _ = draw("standard", position, outcome.results)
    drawn = orders_in(svg)
    want = set()
    for (_power, order), result in zip(orders, outcome.results, strict=False):
        for kind, a, b in expected_arrows(order):
            want.add((kind, a, b, result.result))
    got = {(o["data-kind"], o["data-from"], o["data-to"], o["data-result"]) for o in drawn}
    assert want and got == want
    for o in drawn:
        assert o["failed_mark"] == (o["data-result"] != "succeeds")


MOVES = {
    "standard": ("S1901M", [("FRANCE", "A PAR - BUR"), ("FRANCE", "A MAR S A PAR - BUR"),
                            ("GERMANY", "A MUN - BUR"), ("ENGLAND", "F LON - NTH"),
                            ("ENGLAND", "F EDI S F LON - NTH")]),
    "stackem": ("S1901M", [("FRANCE", "A PAR - BUR"), ("FRANCE", "A MAR S A PAR - BUR"),
                           ("GERMANY", "A MUN - BUR")]),
    "dipnomicy": ("S1901M", [("FRANCE", "A PAR - BUR"), ("GERMANY", "A MUN - BUR"),
                             ("ENGLAND", "F LON - NTH")]),
    "multiplicity": ("S1901M", [("FRANCE", "2A PAR SPLIT A PIC, A GAS"),
                                ("FRANCE", "A MAR - BUR"), ("GERMANY", "A MUN - BUR")]),
    "stab": ("S1901M", [("FRANCE", "2A PAR - BUR"), ("FRANCE", "A MAR S 2A PAR - BUR"),
                        ("GERMANY", "A MUN - BUR")]),
    "chessdip": ("S1901M", [("ENGLAND", "N b1 - c3"), ("ITALY", "B f1 - c4"),
                            ("ITALY", "K e1 S f1 - c4"), ("FRANCE", "N g8 - f6"),
                            ("FRANCE", "K e8 - f7"), ("SCANDINAVIA", "K d8 - e7")]),
    "hoplite": ("S450BCM", [("ATHENS", "2A ATH - MEG"), ("SPARTA", "A SPA - TEG"),
                            ("SPARTA", "A/F ZAR - MYR"), ("ACHEA", "A PAT S A SPA - TEG")]),
}


@pytest.mark.parametrize("name", sorted(MOVES))
def test_a_movement_result_of_each_variant_shows_its_orders(name: str) -> None:
    variant = get_variant(name)
    position = sample_position(name)
    if name == "stab":
        pytest.skip("Stab! maps are private: tested in test_render_stab.py")
    outcome = variant.adjudicate_lines(position, MOVES[name][1])
    svg, _ = draw(name, position, outcome.results)
    drawn = orders_in(svg)
    given = {r.order for r in outcome.results[: len(MOVES[name][1])]}
    assert given <= {o["data-order"] for o in drawn}, "every given order has its arrow"
    results = {r.order: r.result for r in outcome.results}
    for o in drawn:
        assert o["data-result"] == results[o["data-order"]]
        assert drawing_for(name).point(o["data-from"]) is not None
        assert drawing_for(name).point(o["data-to"]) is not None
    assert any(o["failed_mark"] for o in drawn) and not all(o["failed_mark"] for o in drawn)


def test_split_and_merge_are_drawn_as_moves_from_the_unit() -> None:
    variant = get_variant("multiplicity")
    position = variant.read_position({"variant": "multiplicity", "phase": "S1902M", "units": {
        "FRANCE": ["4A BUR", "2A MAR", "F MAO", "A PIC"]}, "centres": {}})
    lines = [("FRANCE", "4A BUR SPLIT A BEL, 2A PAR, A BUR"),
             ("FRANCE", "2A MAR SPLIT A PIE, A MAR S F MAO - GAS"),
             ("FRANCE", "F MAO - GAS")]
    outcome = variant.adjudicate_lines(position, lines)
    got = {(o["data-kind"], o["data-from"], o["data-to"])
           for o in orders_in(draw("multiplicity", position, outcome.results)[0])}
    assert {("move", "BUR", "BEL"), ("move", "BUR", "PAR"), ("move", "MAR", "PIE"),
            ("support", "MAR", "GAS"), ("move", "MAO", "GAS")} <= got


@pytest.mark.parametrize("name", ["standard", "hoplite"])
def test_committed_shapes_are_what_the_source_builds(name: str) -> None:
    path = variant_file(name, "drawing-source.json")
    source = json.loads(path.read_text(encoding="utf-8"))
    committed = json.loads(variant_file(name, "drawing.json").read_text(encoding="utf-8"))
    built = json.loads(json.dumps(build(source, map_centres(path))))
    assert committed["provinces"] == built["provinces"]
    assert (committed["width"], committed["height"]) == (built["width"], built["height"])


@pytest.mark.parametrize("name", ["standard", "hoplite"])
def test_provinces_tile_the_picture(name: str) -> None:
    """Outlines are a partition: the areas add up to the whole picture (no gap, no overlap)."""
    drawing = drawing_for(name)

    def area(ring) -> float:
        return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2)
                       in zip(ring, list(ring[1:]) + [ring[0]], strict=True))) / 2

    total = 0.0
    for place in drawing.places.values():
        rings = sorted(place.rings, key=area, reverse=True)
        # A ring inside another of the same province is a hole (a lake of another province).
        total += sum(area(r) if k == 0 or not inside(r[0], rings[:1]) else -area(r)
                     for k, r in enumerate(rings))
    assert total == pytest.approx(drawing.width * drawing.height, rel=0.02)


def test_png_is_rendered_from_the_svg() -> None:
    svg, _ = draw("standard", sample_position("standard"))
    png = svg_to_png(svg)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    d = drawing_for("standard")
    root = parse(svg)  # the board, and the key of the powers' colours under it
    assert float(root.get("width")) == d.width and float(root.get("height")) > d.height
    assert (width, height) == (round(d.width * SCALE), round(float(root.get("height")) * SCALE))


def test_cached_layers_draw_the_same_picture_as_one_pass() -> None:
    """The PNG built from the cached board and sprites is the SVG drawn in one pass (up to
    antialiasing and sub-pixel placement), and does not depend on what was drawn before."""
    from PIL import Image, ImageChops

    variant, rng = get_variant("standard"), random.Random(7)
    svgs = []
    for _ in range(2):
        position = random_position(variant.board, rng, 30)
        outcome = variant.adjudicate(position, random_orders(variant.board, position, rng))
        svgs.append(render_svg("standard", variant.write_position(outcome.position),
                               [r.to_json() for r in outcome.results], title="t",
                               supply_centres=variant.board.supply_centres))
    first = svg_to_png(svgs[0])
    svg_to_png(svgs[1])
    assert svg_to_png(svgs[0]) == first  # the same bytes, whatever the caches hold
    layered = Image.open(io.BytesIO(first)).convert("RGB")
    whole = Image.open(io.BytesIO(whole_png(svgs[0]))).convert("RGB")
    assert layered.size == whole.size
    histogram = ImageChops.difference(layered, whole).convert("L").histogram()
    assert sum(histogram[60:]) < 0.01 * layered.width * layered.height


def test_judge_render_writes_png_and_svg(tmp_path: Path) -> None:
    variant = get_variant("standard")
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps(variant.write_position(variant.initial_position())))
    orders = tmp_path / "o.txt"
    orders.write_text("FRANCE:\nA PAR - BUR\nGERMANY:\nA MUN - BUR\n")
    for out in ("map.png", "map.svg"):
        args = [sys.executable, "-m", "judge.cli", "render", "--variant", "standard",
                "--position", str(pos), "--orders", str(orders), "--out", str(tmp_path / out)]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "map.png").read_bytes()[:4] == b"\x89PNG"
    drawn = orders_in((tmp_path / "map.svg").read_text())
    assert {(o["data-from"], o["data-to"], o["data-result"]) for o in drawn} == {
        ("PAR", "BUR", "fails"), ("MUN", "BUR", "fails")}
    bad = subprocess.run([sys.executable, "-m", "judge.cli", "render", "--variant", "standard",
                          "--position", str(pos), "--out", str(tmp_path / "map.gif")],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "png or .svg" in bad.stderr


def test_dislodged_units_are_drawn_where_they_were_beaten() -> None:
    variant = get_variant("standard")
    position = variant.read_position({
        "variant": "standard", "phase": "F1901R", "units": {"GERMANY": ["A BUR"]},
        "centres": {}, "dislodged": {"FRANCE": [{"unit": "A BUR", "attacker_from": "MUN",
                                                 "retreats": ["PAR"]}]}})
    svg, _ = draw("standard", position, [{"power": "FRANCE", "order": "A BUR R PAR",
                                          "result": "succeeds"}])
    drawn = {(u["data-power"], u["data-location"], u["data-dislodged"]) for u in units_in(svg)}
    assert drawn == {("GERMANY", "BUR", "false"), ("FRANCE", "BUR", "true")}
    [arrow] = orders_in(svg)
    assert (arrow["data-kind"], arrow["data-from"], arrow["data-to"]) == ("retreat", "BUR", "PAR")


@pytest.mark.parametrize(("text", "want"), [
    ("A LON - NTH - BEL", [("move", "LON", "BEL", "")]),
    ("F NTH C A LON - BEL", [("convoy", "NTH", "BEL", "LON")]),
    ("A MUN S A BER", [("support", "MUN", "BER", "BER")]),
    ("A MUN S A BER - SIL", [("support", "MUN", "SIL", "BER")]),
    ("P e5 t d6 x d5", [("move", "e5", "d6", "")]),
    ("N g1 S e1 - e2", [("support", "g1", "e2", "e1")]),
    ("A PAR H", []),
    ("BUILD A PAR", []),
])
def test_order_text_read_as_arrows(text: str, want: list) -> None:
    from judge.render.ordertext import arrows

    places = {"LON", "NTH", "BEL", "MUN", "BER", "SIL", "PAR", "e5", "d6", "d5", "g1", "e1", "e2"}
    got = [(a.kind, a.origin, a.destination, a.target)
           for a in arrows("P", text, "succeeds", places.__contains__)]
    assert got == want


def test_judge_render_refuses_unreadable_input(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text('{"phase": "S1901M", "units": {"FRANCE": ["Z PAR"]}}')
    done = subprocess.run([sys.executable, "-m", "judge.cli", "render", "--variant", "standard",
                           "--position", str(bad), "--out", str(tmp_path / "m.svg")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stderr.startswith("judge: unreadable input")
    assert not (tmp_path / "m.svg").exists()
