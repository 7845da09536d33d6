"""Stab! pictures leak nothing: a private map shows only what its reader may know.

Rule 5 tells each player their own units and centres; the rest of the board is hidden. Over
random turns, each player's picture is read back and must hold only their own units and
centres, their own orders (with no fate marked), and no other power's name anywhere in the
SVG; the public and the game master get no picture. Checked both with Stab!'s own events and
with the all-public standard events (the worst case a report could hand the renderer).
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest

from judge.engine.events import standard_events
from judge.engine.position import Phase
from judge.engine.randomgame import random_orders, random_position
from judge.render.views import report_picture
from judge.reports import Pictures
from judge.variants import get_variant
from judge.variants.stab.report import stab_turn_events

NS = "{http://www.w3.org/2000/svg}"
VARIANT = get_variant("stab")
BOARD = VARIANT.board


def random_turn(seed: int):
    rng = random.Random(seed)
    position = random_position(BOARD, rng, rng.randint(18, 40))
    position.variant = "stab"
    position.phase = Phase(rng.choice("SF"), 1903, "M")
    position.extra["retreats"] = "with_orders"
    orders = random_orders(BOARD, position, rng)
    outcome = VARIANT.adjudicate(position, orders)
    return position, orders, outcome


def picture_content(svg: str) -> tuple[set, set, list]:
    root = ET.fromstring(svg)
    units = {(g.get("data-power"), g.get("data-unit")) for g in root.iter(f"{NS}g")
             if g.get("class") == "unit"}
    centres = {(c.get("data-province"), c.get("data-owner")) for c in root.iter(f"{NS}circle")
               if c.get("class") == "centre"}
    orders = [dict(g.attrib) for g in root.iter(f"{NS}g") if g.get("class") == "order"]
    return units, centres, orders


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("which", ["stab", "all public"])
def test_a_private_map_shows_only_its_readers_knowledge(seed: int, which: str) -> None:
    position, orders, outcome = random_turn(seed)
    previous = VARIANT.write_position(position)
    after = VARIANT.write_position(outcome.position)
    events = (stab_turn_events(VARIANT.rules, [(outcome, orders)]) if which == "stab"
              else standard_events(outcome))
    assert report_picture(VARIANT, previous, after, events, None, "g", True) is None
    for power in BOARD.powers:
        svg = report_picture(VARIANT, previous, after, events, power, "g", True)
        assert svg is not None
        units, centres, drawn = picture_content(svg)
        # the board after the phase (the orders drawn on what they produced), theirs only
        beaten = {d if isinstance(d, str) else d["unit"]
                  for d in (after.get("dislodged") or {}).get(power, [])}
        assert units == {(power, u) for u in after["units"].get(power, [])} | \
            {(power, u) for u in beaten}
        assert centres == {(c, power) for c in after["centres"].get(power, [])}
        assert all(o["data-power"] == power and o["data-result"] == "" for o in drawn)
        if which == "all public":  # the player's own orders are still drawn
            mine = [str(o) for p, o in orders if p == power and re.search(r" [-SC] ", str(o))]
            assert len(drawn) == len(mine)
        for other in BOARD.powers:
            if other != power:
                assert other not in svg, f"{other} appears in {power}'s picture"


def test_reports_attach_private_pictures_and_none_to_the_public() -> None:
    position, orders, outcome = random_turn(99)
    events = stab_turn_events(VARIANT.rules, [(outcome, orders)])
    pictures = Pictures(VARIANT, position, outcome.position, events, "g1 Stab!",
                        SimpleNamespace(defer_pictures=False), hidden=True)
    assert pictures.for_reader(None) == {}
    sizes = set()
    for power in BOARD.powers:
        [png] = pictures.for_reader(power)["attachments"]
        assert png.content_type == "image/png" and png.data[:4] == b"\x89PNG"
        sizes.add(len(png.data))
    assert len(sizes) > 1, "each player has a picture of their own"


def test_pictures_drawn_after_the_transaction_stay_private() -> None:
    """judge serve draws the pictures after the game's transaction: each player's report
    waits for a picture of its own (its SVG shows no other power), the public none."""
    position, orders, outcome = random_turn(99)
    events = stab_turn_events(VARIANT.rules, [(outcome, orders)])
    queued: list[str] = []

    def add_picture(filename: str, svg: str) -> int:
        queued.append(svg)
        return len(queued)

    outbox = SimpleNamespace(defer_pictures=True, add_picture=add_picture)
    pictures = Pictures(VARIANT, position, outcome.position, events, "g1 Stab!", outbox,
                        hidden=True)
    assert pictures.for_reader(None) == {}
    ids = {power: pictures.for_reader(power)["picture"] for power in BOARD.powers}
    assert len(set(ids.values())) == len(BOARD.powers) == len(queued)
    for power, pid in ids.items():
        for other in BOARD.powers:
            if other != power:
                assert other not in queued[pid - 1], f"{other} appears in {power}'s picture"
