"""Which line of one mail a later line replaces, as the judge reads the mail: the same orders
as the adjudicator obeys, so that the lines kept give one result however they are listed
(Variant.replaced_orders). Multiplicity's merges: tests/test_multiplicity_properties.py."""

from __future__ import annotations

from chessdip_helpers import VARIANT as CHESS
from chessdip_helpers import position as chess_position

from judge.games.game import read_order_lines


def test_castling_is_an_order_for_the_king_and_the_rook() -> None:
    """Chess Dip: a later order for the rook replaces ``O-O`` (the adjudicator's order_keys),
    and ``O-O`` replaces an earlier order for the rook; the mail kept both before."""
    pos = chess_position({"ITALY": ["K e1", "R h1"]})
    read = read_order_lines(CHESS, pos, "ITALY", ["O-O", "R h1 - h3"])
    assert [x["error"] for x in read] == ["replaced by the later order R h1 - h3", None]
    read = read_order_lines(CHESS, pos, "ITALY", ["R h1 - h3", "O-O"])
    assert [x["error"] for x in read] == ["replaced by the later order O-O", None]
    for lines in (["O-O", "R h1 - h3"], ["R h1 - h3", "O-O"]):
        kept = [("ITALY", x["text"]) for x in read_order_lines(CHESS, pos, "ITALY", lines)
                if not x["error"]]
        alone = CHESS.adjudicate_lines(pos, kept).position
        given = CHESS.adjudicate_lines(pos, [("ITALY", x) for x in lines]).position
        assert CHESS.write_position(alone) == CHESS.write_position(given)
