"""The standard map, loaded once from ``variants/standard/map.json`` (not copied).

Dipnomicy plays on the standard board, but its rules can add supply centres and home centres
(P2, P3), so the board an adjudication uses is derived from this data by
:func:`board_with_centres`; boards are immutable, so each derived one is cached and shared.
"""

from __future__ import annotations

import copy
import json
from functools import cache

from judge.engine.board import Board
from judge.resources import variant_file

MAP_FILE = variant_file("standard", "map.json")
MAP_DATA: dict = json.loads(MAP_FILE.read_text(encoding="utf-8"))
BASE_BOARD = Board(MAP_DATA)


@cache
def board_with_centres(extra_centres: frozenset[str],
                       homes: tuple[tuple[str, tuple[str, ...]], ...]) -> Board:
    """The standard board with ``extra_centres`` made supply centres and ``homes`` as the home
    centres of each power. No victory condition: Dipnomicy has none unless a rule makes one."""
    data = copy.deepcopy(MAP_DATA)
    data["name"] = "dipnomicy"
    for p in extra_centres:
        data["provinces"][p]["supply_centre"] = True
    home_of = {c: power for power, cs in homes for c in cs}
    for abbrev, p in data["provinces"].items():
        p["home"] = home_of.get(abbrev)
    data["home_centres"] = {power: list(cs) for power, cs in homes}
    data["victory_centres"] = 10**6
    return Board(data)
