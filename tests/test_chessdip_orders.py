"""Chess Dip order syntax (rules §3.1), special squares (§3.2) and order validation (§3.3)."""

from __future__ import annotations

import dataclasses

import pytest
from chessdip_helpers import BOARD, VARIANT, position

from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.orders import Build, Remove, UnitRef, Waive
from judge.engine.position import Phase
from judge.variants.chessdip.orders import (
    ATTACK,
    TRAVEL,
    Castle,
    ChessHold,
    ChessMove,
    ChessSupport,
    ConvoyAct,
    EnPassant,
    HoldAct,
    MoveAct,
    Promote,
)
from judge.variants.chessdip.parse import parse_order

E, I, F, S = "ENGLAND", "ITALY", "FRANCE", "SCANDINAVIA"  # noqa: E741


# ------------------------------------------------------------------------------ syntax
@pytest.mark.parametrize(("text", "expected"), [
    ("K e1 - e2", ChessMove(UnitRef("K", "e1"), "e2")),
    ("Ke1 - e2", ChessMove(UnitRef("K", "e1"), "e2")),
    ("ke1-e2", ChessMove(UnitRef("K", "e1"), "e2")),
    ("K d1 H", ChessHold(UnitRef("K", "d1"))),
    ("K d1", ChessHold(UnitRef("K", "d1"))),
    ("e2 - e4", ChessMove(UnitRef(None, "e2"), "e4")),
    ("P e2 - e4", ChessMove(UnitRef("P", "e2"), "e4")),
    ("e4 x d5", ChessMove(UnitRef(None, "e4"), "d5", ATTACK)),
    ("e4xd5", ChessMove(UnitRef(None, "e4"), "d5", ATTACK)),
    ("N g1 S e1 - e2", ChessSupport(UnitRef("N", "g1"), "e1", MoveAct("-", "e2"))),
    ("N g1 S K e1 - e2", ChessSupport(UnitRef("N", "g1"), "e1", MoveAct("-", "e2"))),
    ("N c3 S d1 H", ChessSupport(UnitRef("N", "c3"), "d1", HoldAct())),
    ("N c3 S d1", ChessSupport(UnitRef("N", "c3"), "d1", HoldAct())),
    ("K c3 S e5 x d5", ChessSupport(UnitRef("K", "c3"), "e5", MoveAct("x", "d5"))),
    ("e7 S e5 t d6", ChessSupport(UnitRef(None, "e7"), "e5", MoveAct("t", "d6"))),
    ("K e1 S e2 C f1 - c4",
     ChessSupport(UnitRef("K", "e1"), "e2", ConvoyAct("f1", "-", "c4"))),
    ("K b2 S a3 C a1 S a5",
     ChessSupport(UnitRef("K", "b2"), "a3", ConvoyAct("a1", "S", "a5"))),
    ("K b2 S a3 C a1 x a5",
     ChessSupport(UnitRef("K", "b2"), "a3", ConvoyAct("a1", "x", "a5"))),
    ("K b2 S a3 C a1 t a5",
     ChessSupport(UnitRef("K", "b2"), "a3", ConvoyAct("a1", "t", "a5"))),
    ("e5 t d6 x d5", EnPassant(UnitRef(None, "e5"), "d6", "d5")),
    ("O-O", Castle("O-O")),
    ("O-O-O", Castle("O-O-O")),
    ("0-0-0", Castle("O-O-O")),
    ("o-o", Castle("O-O")),
])
def test_grammar_of_movement_orders(text: str, expected: object) -> None:
    assert parse_order(text, "M") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("BUILD N b1", Build(UnitRef("N", "b1"))),
    ("build king e1", Build(UnitRef("K", "e1"))),
    ("B R h1", Build(UnitRef("R", "h1"))),
    ("N b1 B", Build(UnitRef("N", "b1"))),
    ("REMOVE B c4", Remove(UnitRef("B", "c4"))),
    ("B c4 D", Remove(UnitRef("B", "c4"))),
    ("disband K e2", Remove(UnitRef("K", "e2"))),
    ("WAIVE", Waive()),
    ("P d8 = N", Promote(UnitRef("P", "d8"), "N")),
    ("d8=R", Promote(UnitRef(None, "d8"), "R")),
    ("PROMOTE d8 TO B", Promote(UnitRef(None, "d8"), "B")),
    ("P d8 promotes to knight", Promote(UnitRef("P", "d8"), "N")),
])
def test_grammar_of_adjustment_orders(text: str, expected: object) -> None:
    assert parse_order(text, "A") == expected


@pytest.mark.parametrize(("text", "phase", "message"), [
    ("Q d1 - d4", "M", "no queens"),
    ("K e9 - e2", "M", "not a square"),
    ("K e1 -", "M", "no square after '-'"),
    ("K e1 jumps e2", "M", "unknown word 'jumps'"),
    ("move K e1 e2", "M", "starts with a piece"),
    ("K e1 S e2 C f1 ? c4", "M", "convoy code"),
    ("e2 C f1 - c4", "M", "implicit"),
    ("BUILD N b1", "M", "Winter"),
    ("P d8 = Q", "A", "no queens"),
    ("", "M", "empty"),
])
def test_unreadable_lines_name_the_fault(text: str, phase: str, message: str) -> None:
    with pytest.raises(OrderSyntaxError, match=message):
        parse_order(text, phase)


# ------------------------------------------------------------------ special squares §3.2
def test_special_squares_and_mirrored_castling() -> None:
    assert BOARD.king_square == {E: "d1", I: "e1", F: "e8", S: "d8"}
    c = BOARD.castlings
    assert (c[I]["O-O"].king_to, c[I]["O-O"].rook_from, c[I]["O-O"].rook_to) == ("g1", "h1", "f1")
    assert (c[I]["O-O-O"].king_to, c[I]["O-O-O"].rook_from, c[I]["O-O-O"].rook_to) == (
        "c1", "a1", "d1")
    # England and Scandinavia (king on d) castle mirrored.
    assert (c[E]["O-O"].king_to, c[E]["O-O"].rook_from, c[E]["O-O"].rook_to) == ("b1", "a1", "c1")
    assert (c[S]["O-O-O"].king_to, c[S]["O-O-O"].rook_from, c[S]["O-O-O"].rook_to) == (
        "f8", "h8", "e8")
    # The rook's intermediate squares leave out the king's landing square.
    assert c[I]["O-O"].rook_intermediate == ()
    assert c[I]["O-O-O"].rook_intermediate == ("b1",)
    assert c[E]["O-O-O"].rook_intermediate == ("g1",)
    assert c[F]["O-O-O"].rook_intermediate == ("b8",)


def test_implicit_convoy_squares() -> None:
    assert BOARD.move_path("B", I, "f1", "c4") == ("e2", "d3")
    assert BOARD.move_path("R", I, "a1", "a4") == ("a2", "a3")
    assert BOARD.move_path("N", I, "g1", "f3") == ()
    assert BOARD.move_path("P", I, "e2", "e4") == ("e3",)
    assert BOARD.move_path("P", F, "e7", "e5") == ("e6",)
    assert BOARD.move_path("P", I, "e1", "e3") == ("e2",)  # double step from rank 1 too
    assert BOARD.move_path("P", I, "e3", "e5") is None
    assert BOARD.move_path("P", I, "e3", "e2") is None  # pawns never go back
    assert BOARD.move_path("K", I, "e1", "e3") is None
    assert BOARD.pawn_attacks(I, "e2") == ("d3", "f3")
    assert BOARD.pawn_attacks(S, "a7") == ("b6",)


# ---------------------------------------------------------------------- validation §3.3
START = position({E: ["K d1", "P c2", "N b1"], I: ["K e1", "P e2", "B f1", "R h1", "R a1"],
                  F: ["K e8", "P e7", "N g8"], S: ["K d8", "P d7", "B c8"]})


def read(power: str, text: str, pos=START):
    return VARIANT.read_order(pos, power, text)


def refused(power: str, text: str, pos=START) -> str:
    with pytest.raises(OrderError) as info:
        read(power, text, pos)
    assert not isinstance(info.value, OrderSyntaxError)
    return str(info.value)


def test_empty_piece_means_pawn() -> None:
    assert read(I, "e2 - e4") == ChessMove(UnitRef("P", "e2"), "e4", TRAVEL)
    assert "is a king, not a pawn" in refused(I, "e1 - e2")


def test_piece_must_be_on_its_square_and_belong_to_the_power() -> None:
    assert refused(I, "K e3 - e4") == "there is no piece on e3"
    assert refused(I, "N e1 - e2") == "the piece on e1 is a king, not a knight"
    assert refused(I, "K d1 - d2") == "the king on d1 is not yours (it is ENGLAND's)"


def test_hold_is_always_valid() -> None:
    assert read(I, "B f1 H") == ChessHold(UnitRef("B", "f1"))


def test_moves_on_an_empty_board_are_valid_and_typed() -> None:
    # §3.3.1: all moves are attacks except pawns advancing (and castling): travels.
    assert read(I, "B f1 - a6") == ChessMove(UnitRef("B", "f1"), "a6", ATTACK)
    assert read(E, "N b1 - a3") == ChessMove(UnitRef("N", "b1"), "a3", ATTACK)
    assert read(I, "R a1 - a8") == ChessMove(UnitRef("R", "a1"), "a8", ATTACK)
    assert read(I, "e2 - e3").code == TRAVEL
    assert read(F, "e7 - e5").code == TRAVEL
    assert "cannot move to e3" in refused(I, "B f1 - e3")
    assert "cannot move to b3" in refused(E, "N b1 - b3")
    assert "cannot move to e2" in refused(F, "e7 - e2")


def test_pawn_attacks_only_diagonally_forwards() -> None:
    assert read(I, "e2 - d3") == ChessMove(UnitRef("P", "e2"), "d3", ATTACK)
    assert read(F, "e7 x f6").code == ATTACK
    assert "attacks diagonally" in refused(I, "e2 x e3")
    assert "only forwards" in refused(I, "e2 t d3")
    assert "cannot move to d1" in refused(I, "e2 - d1")
    assert "only pawns travel" in refused(I, "B f1 t c4")


def test_support_reach_follows_the_piece_to_the_landing_square() -> None:
    assert isinstance(read(E, "N b1 S e1 - d2"), ChessSupport)
    assert isinstance(read(I, "B f1 S d3 H"), ChessSupport)
    assert isinstance(read(I, "K e1 S e2 C f1 - c4"), ChessSupport)
    assert isinstance(read(I, "e2 S d1 - d3"), ChessSupport)
    assert "cannot reach e3" in refused(I, "B f1 S e2 - e3")
    assert "diagonally" in refused(I, "e2 S e1 - e3")  # not forwards
    assert "own square" in refused(I, "K e1 S d1 - e1")


def test_en_passant_validation() -> None:
    pos = position({I: ["P e5", "P b5"], S: ["P d5"], F: ["P c5"]}, "F1901M",
                   en_passant=[{"power": S, "from": "d7", "via": "d6", "to": "d5"}])
    assert read(I, "e5 t d6 x d5", pos) == EnPassant(UnitRef("P", "e5"), "d6", "d5")
    assert "cannot attack d6" in refused(I, "b5 t d6 x d5", pos)
    assert "no pawn passed c6" in refused(I, "b5 t c6 x c5", pos)
    assert "opponent" in refused(S, "e7 t d6 x d5", position(
        {S: ["P d5", "P e7"]}, "F1901M",
        en_passant=[{"power": S, "from": "d7", "via": "d6", "to": "d5"}]))
    gone = position({I: ["P e5"]}, "F1901M",
                    en_passant=[{"power": S, "from": "d7", "via": "d6", "to": "d5"}])
    assert "no longer on d5" in refused(I, "e5 t d6 x d5", gone)


def test_castling_validation() -> None:
    assert read(I, "O-O") == Castle("O-O")
    assert read(I, "O-O-O") == Castle("O-O-O")
    assert "rook on a1" in refused(E, "O-O")
    assert "king on e8" in refused(F, "O-O", position({F: ["K f8", "R h8"]}))
    moved = position({I: ["K e1", "R h1", "R a1"]}, moved=["e1"])
    assert "has moved" in refused(I, "O-O", moved)
    moved = position({I: ["K e1", "R h1", "R a1"]}, moved=["h1"])
    assert "rook on h1 has moved" in refused(I, "O-O", moved)
    assert read(I, "O-O-O", moved) == Castle("O-O-O")


def test_no_retreat_phase() -> None:
    # A retreat-phase position is refused where it is read (issue 22) ...
    with pytest.raises(ValueError, match="S1901R is not a phase of this variant"):
        position({I: ["K e1"]}, "S1901R")
    # ... and the order checker, given one all the same, still says why no order fits it.
    made = dataclasses.replace(position({I: ["K e1"]}), phase=Phase("S", 1901, "R"))
    with pytest.raises(OrderError, match="no retreat phase"):
        read(I, "K e1 - e2", made)
