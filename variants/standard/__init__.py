"""Standard Diplomacy: the 1901 map of Europe, seven powers, 34 supply centres."""

from pathlib import Path

from judge.engine.board import Board
from judge.engine.variant import Variant
from judge.variants.standard.rules import StandardRules

BOARD = Board.load(Path(__file__).with_name("map.json"))

VARIANT = Variant(
    name="standard",
    title="Standard Diplomacy",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BOARD,
    rules=StandardRules(BOARD),
)
