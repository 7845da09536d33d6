"""Chess Dip: Diplomacy on a chess board (issue 8; rules in ``description.md``)."""

from importlib.resources import files

from judge.engine.variant import Variant
from judge.variants.chessdip.board import ChessBoard
from judge.variants.chessdip.rules import ChessRules

BOARD = ChessBoard.load(files(__name__).joinpath("map.json"))

VARIANT = Variant(
    name="chessdip",
    title="Chess Dip",
    description=files(__name__).joinpath("description.md").read_text(encoding="utf-8"),
    board=BOARD,
    rules=ChessRules(BOARD),
    picture_name="Board",
    picture_shows="every piece on its square, each centre square in its owner's colour",
)
