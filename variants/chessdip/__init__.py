"""Chess Dip: Diplomacy on a chess board (issue 8; rules in ``description.md``)."""

from pathlib import Path

from judge.engine.variant import Variant
from judge.variants.chessdip.board import ChessBoard
from judge.variants.chessdip.rules import ChessRules

BOARD = ChessBoard.load(Path(__file__).with_name("map.json"))

VARIANT = Variant(
    name="chessdip",
    title="Chess Dip",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BOARD,
    rules=ChessRules(BOARD),
)
