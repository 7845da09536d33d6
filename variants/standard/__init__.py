"""Standard Diplomacy: the 1901 map of Europe, seven powers, 34 supply centres."""

from importlib.resources import files

from judge.engine.board import Board
from judge.engine.variant import Variant
from judge.variants.standard.rules import StandardRules

BOARD = Board.load(files(__name__).joinpath("map.json"))

VARIANT = Variant(
    name="standard",
    title="Standard Diplomacy",
    description=files(__name__).joinpath("description.md").read_text(encoding="utf-8"),
    board=BOARD,
    rules=StandardRules(BOARD),
)
