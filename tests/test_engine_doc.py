"""The worked examples of docs/engine.md's map and drawing formats are real: the map loads as
a board, a game plays on it with the standard rules, and the drawing source builds outlines
that hold each province's unit point."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judge.engine.board import Board
from judge.engine.variant import Variant
from judge.render.shapes import build, contains
from judge.variants.standard.rules import StandardRules

DOC = Path(__file__).resolve().parents[1] / "docs" / "engine.md"


def _json_blocks(heading: str) -> list[dict]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.index("\n## ", start + 1)
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text[start:end], re.S)]


def test_the_documented_map_plays() -> None:
    data = _json_blocks("## The map and drawing formats")[0]
    board = Board(data)
    assert board.lookup("cape ec") == "CAP/EC" and board.lookup("Northland") == "NOR"
    assert board.fleet_locations("CAP") == ("CAP/EC", "CAP/WC")
    tiny = Variant(name="tiny", title="Tiny", description="", board=board,
                   rules=StandardRules(board))
    start = tiny.initial_position()
    assert str(start.phase) == "S1901M"
    outcome = tiny.adjudicate_lines(start, [("NORTH", "F NOR - CAP/WC"), ("SOUTH", "A SOU H")])
    assert [r.result for r in outcome.results][:2] == ["succeeds", "succeeds"]
    units = {u.location for u in outcome.position.units}
    assert units == {"CAP/WC", "SOU"}
    # a fleet on the east coast cannot reach the west coast's neighbour
    bad = tiny.adjudicate_lines(start, [("NORTH", "F NOR - CAP/EC")])
    assert bad.results[0].result == "fails"


def test_the_documented_drawing_builds() -> None:
    data, source = _json_blocks("## The map and drawing formats")[:2]
    drawn = build(source)
    assert set(drawn["provinces"]) == set(data["provinces"])
    for name, place in drawn["provinces"].items():
        assert place["rings"], name
        assert contains(place["rings"], tuple(place["unit"])), name
        for coast, point in place.get("coasts", {}).items():
            assert contains(place["rings"], tuple(point)), coast
