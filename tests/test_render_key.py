"""The key of the powers' colours, and the marks of builds and disbands (issue 24 item 14),
read back from the SVG: every picture names each power it draws beside a swatch of its colour,
under the board; an adjustment picture marks each unit built or removed, a retreat picture
each dislodged unit disbanded; a Stab! player's picture names and marks nothing of others.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from judge.render import render_svg
from judge.render.drawing import drawing_for
from judge.render.svg import power_colours
from judge.render.views import map_for
from judge.variants import get_variant, variant_names

NS = "{http://www.w3.org/2000/svg}"
STANDARD = get_variant("standard")


def key_of(svg: str) -> dict[str, tuple[str, str]]:
    """power -> (its swatch's colour, the text written beside it)."""
    root = ET.fromstring(svg)
    [legend] = [g for g in root.iter(f"{NS}g") if g.get("class") == "legend"]
    items = list(legend)
    out = {}
    for k, e in enumerate(items):
        if e.get("class") == "swatch":
            label = items[k + 1]
            assert label.tag == f"{NS}text" and float(label.get("font-size", "0")) >= 12
            out[e.get("data-power", "")] = (e.get("fill", ""), label.text or "")
    return out


def marks_of(svg: str) -> list[dict[str, str]]:
    return [dict(g.attrib) for g in ET.fromstring(svg).iter(f"{NS}g")
            if g.get("class") == "mark"]


def translate(attrs: dict[str, str]) -> tuple[float, float]:
    x, y = attrs["transform"].removeprefix("translate(").removesuffix(")").split()
    return float(x), float(y)


@pytest.mark.parametrize("name", variant_names())
def test_every_picture_has_a_key_of_the_powers_colours_under_the_board(name: str) -> None:
    variant = get_variant(name)
    data = variant.write_position(variant.initial_position())
    data["units"] = data.get("units") or {p: [] for p in variant.board.powers}
    data["centres"] = data.get("centres") or {}
    svg = render_svg(name, data, supply_centres=variant.board.supply_centres)
    powers = sorted(set(data["units"]) | set(data["centres"]))
    key = key_of(svg)
    colours = power_colours(drawing_for(name), powers)
    assert key == {p: (colours[p], p.title()) for p in powers}
    assert len({c for c, _ in key.values()}) == len(key)
    root = ET.fromstring(svg)
    board = drawing_for(name)
    # the key is a strip of its own under the board: it covers no province
    swatches = [e for e in root.iter(f"{NS}rect") if e.get("class") == "swatch"]
    assert all(float(e.get("y", "0")) >= board.height for e in swatches)
    assert float(root.get("height", "0")) > board.height


def adjusted(lines: list[tuple[str, str]]):
    position = STANDARD.read_position({
        "variant": "standard", "phase": "W1901A",
        "units": {"RUSSIA": ["A WAR"], "AUSTRIA": ["A GAL", "A BUD", "F ALB"],
                  "ENGLAND": ["F NTH"]},
        "centres": {"RUSSIA": ["WAR", "MOS", "SEV"], "AUSTRIA": ["BUD"],
                    "ENGLAND": ["LON", "EDI"]}})
    outcome = STANDARD.adjudicate_lines(position, lines)
    return outcome, [r.to_json() for r in outcome.results]


def test_builds_and_disbands_are_marked_on_the_adjustment_picture() -> None:
    outcome, results = adjusted([("RUSSIA", "BUILD A MOS"), ("RUSSIA", "BUILD F SEV"),
                                 ("AUSTRIA", "REMOVE A GAL"), ("ENGLAND", "BUILD A EDI"),
                                 ("ENGLAND", "BUILD F PAR")])  # not a home centre: fails
    svg = render_svg("standard", STANDARD.write_position(outcome.position), results,
                     supply_centres=STANDARD.board.supply_centres, orders_of="W1901A")
    drawing = drawing_for("standard")
    got = {(m["data-kind"], m["data-power"], m["data-location"]) for m in marks_of(svg)}
    # Austria's second removal is civil disorder's (it ordered one of two): marked too
    assert got == {("build", "RUSSIA", "MOS"), ("build", "RUSSIA", "SEV"),
                   ("build", "ENGLAND", "EDI"), ("disband", "AUSTRIA", "GAL"),
                   ("disband", "AUSTRIA", "ALB")}
    for m in marks_of(svg):
        assert translate(m) == pytest.approx(drawing.point(m["data-location"]))
    root = ET.fromstring(svg)
    edges = {g.get("data-location"): next(iter(g)).get("stroke") for g in root.iter(f"{NS}g")
             if g.get("class") == "unit"}
    assert edges["MOS"] == edges["SEV"] == edges["EDI"] != edges["WAR"]  # new units edged
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "built" in texts and "disbanded" in texts  # the key says what the marks mean


def test_a_dislodged_unit_disbanded_is_marked_where_it_was_drawn() -> None:
    position = STANDARD.read_position({
        "variant": "standard", "phase": "F1901R", "units": {"RUSSIA": ["A GAL", "A RUM"]},
        "centres": {}, "dislodged": {
            "AUSTRIA": [{"unit": "A GAL", "attacker_from": "WAR", "retreats": ["VIE"]}],
            "TURKEY": [{"unit": "A RUM", "attacker_from": "UKR", "retreats": []}]}})
    before = render_svg("standard", STANDARD.write_position(position))
    drawn_at = {(g.get("data-power"), g.get("data-location")): g.get("transform")
                for g in ET.fromstring(before).iter(f"{NS}g")
                if g.get("class") == "unit" and g.get("data-dislodged") == "true"}
    outcome = STANDARD.adjudicate_lines(position, [("AUSTRIA", "A GAL R VIE")])
    svg = render_svg("standard", STANDARD.write_position(outcome.position),
                     [r.to_json() for r in outcome.results], orders_of="F1901R")
    [mark] = marks_of(svg)
    assert (mark["data-kind"], mark["data-power"], mark["data-location"]) == \
        ("disband", "TURKEY", "RUM")
    assert mark["transform"] == drawn_at[("TURKEY", "RUM")]
    assert "TURKEY" in key_of(svg)  # its colour is on the picture: the key names it


def test_a_stab_players_picture_names_and_marks_only_their_own() -> None:
    outcome, results = adjusted([("RUSSIA", "BUILD A MOS"), ("AUSTRIA", "REMOVE A GAL"),
                                 ("ENGLAND", "BUILD A EDI")])
    after = STANDARD.write_position(outcome.position)
    after["variant"] = "stab"
    for reader in ("RUSSIA", "AUSTRIA", "ENGLAND", "FRANCE"):
        svg = map_for("stab", after, reader, results, hidden=True, orders_of="W1901A")
        assert svg is not None
        assert set(key_of(svg)) <= {reader}
        assert {m["data-power"] for m in marks_of(svg)} <= {reader}
        others = [p for p in STANDARD.board.powers if p != reader]
        assert not any(p in svg or p.title() in svg for p in others)
