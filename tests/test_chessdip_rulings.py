"""Chess Dip rulings of issue 17: convoys that carry a move failing elsewhere, rings joined by a
castling, a circle through an attacked convoy, supports attacked by multiple-square moves.

Positions are small: only the pieces a case needs. Powers: ENGLAND and ITALY are white (pawns
move up), FRANCE and SCANDINAVIA black (pawns move down).
"""

from __future__ import annotations

from itertools import permutations

import pytest
from chessdip_helpers import play

E, I, F, S = "ENGLAND", "ITALY", "FRANCE", "SCANDINAVIA"  # noqa: E741


# ------------------------------------- item 4: a convoy's prevent strength (§3.6.4, §3.7.1)
def test_convoy_prevents_nothing_when_its_move_is_blocked_at_an_earlier_square() -> None:
    # The rook's path is blocked at a4 (a piece stays there), so the rook fails, its convoy on
    # a5 fails with it, and a failed convoy's prevent strength is 0: the king enters a5.
    r = play({E: ["R a1", "P a4", "B d2"], S: ["K b6"]},
             "ENGLAND: R a1 - a8", "ENGLAND: a4 H", "ENGLAND: B d2 S a5 C a1 - a8",
             "SCANDINAVIA: K b6 - a5")
    assert r[0] == "fails" and r.reason(0) == "path blocked on a4"
    assert r[2] == "fails" and r.ok(3)
    assert r.board["a5"] == "SCANDINAVIA K" and r.dislodged == {}


def test_convoy_prevents_nothing_when_its_move_is_blocked_at_a_later_square() -> None:
    r = play({E: ["R a1", "P a6", "B d2"], S: ["K b6"]},
             "ENGLAND: R a1 - a8", "ENGLAND: a6 H", "ENGLAND: B d2 S a5 C a1 - a8",
             "SCANDINAVIA: K b6 - a5")
    # Blocked at a6, and at a5 too once the king is in.
    assert r[0] == "fails" and r.reason(0).startswith("path blocked on a")
    assert r[2] == "fails" and r.ok(3)
    assert r.board["a5"] == "SCANDINAVIA K" and r.dislodged == {}


def test_convoy_prevents_nothing_when_its_castling_partner_fails() -> None:
    # Italy's O-O-O: king e1 - c1, rook a1 - d1 through b1. A French knight takes c1 (the
    # king's square) with support; the castling fails, so the support-convoyed convoy on b1
    # prevents nothing and the French king enters b1.
    r = play({I: ["K e1", "R a1", "N d2"], F: ["N e2", "K c2", "K a2"]},
             "ITALY: O-O-O", "ITALY: N d2 S b1 C a1 - d1",
             "FRANCE: N e2 - c1", "FRANCE: K c2 S e2 - c1", "FRANCE: K a2 - b1")
    assert r[0] == "fails" and r[1] == "fails"
    assert r.ok(2) and r.ok(4)
    assert r.board["c1"] == "FRANCE N" and r.board["b1"] == "FRANCE K"


def test_convoy_still_prevents_when_its_move_succeeds() -> None:
    # The counterpart: with a4 free the rook arrives, the convoy on a5 holds with strength 1
    # and the king (1) does not beat it.
    r = play({E: ["R a1", "B d2"], S: ["K b6"]},
             "ENGLAND: R a1 - a8", "ENGLAND: B d2 S a5 C a1 - a8", "SCANDINAVIA: K b6 - a5")
    assert r.ok(0) and r.ok(1) and r[2] == "fails"
    assert r.board["a8"] == "ENGLAND R" and r.board["b6"] == "SCANDINAVIA K"


# ------------------------------------ item 5: rings joined by a castling (§3.9, §3.7.4)
def _every_listing(pieces: dict[str, list[str]], lines: list[str],
                   expected: dict[str, str]) -> None:
    for order in permutations(lines):
        r = play(pieces, *order)
        assert all(r.ok(k) for k in range(len(order))), order
        assert r.board == expected, order


def test_two_rings_joined_by_a_castling_all_move_whatever_the_listing() -> None:
    # England O-O: king d1 - b1 and rook a1 - c1. Ring one: the king to b1, the knight b1 -
    # d2, the Scandinavian king d2 - d1. Ring two: the rook to c1, the rook c1 - c3 (through
    # c2), the bishop c3 - a1 (through b2). Each ring alone succeeds; joined, both move.
    _every_listing(
        {E: ["K d1", "R a1"], S: ["K d2", "R c1", "B c3", "N b1"]},
        ["ENGLAND: O-O", "SCANDINAVIA: K d2 - d1", "SCANDINAVIA: R c1 - c3",
         "SCANDINAVIA: B c3 - a1", "SCANDINAVIA: N b1 - d2"],
        {"b1": "ENGLAND K", "c1": "ENGLAND R", "d1": "SCANDINAVIA K", "d2": "SCANDINAVIA N",
         "c3": "SCANDINAVIA R", "a1": "SCANDINAVIA B"})


def test_two_knight_rings_joined_by_a_castling_all_move_whatever_the_listing() -> None:
    # The same without any convoy: the second ring is rook a1 - c1, knight c1 - b3, knight
    # b3 - a1.
    _every_listing(
        {E: ["K d1", "R a1"], S: ["K d2", "N b1", "N c1", "N b3"]},
        ["ENGLAND: O-O", "SCANDINAVIA: K d2 - d1", "SCANDINAVIA: N b1 - d2",
         "SCANDINAVIA: N c1 - b3", "SCANDINAVIA: N b3 - a1"],
        {"b1": "ENGLAND K", "c1": "ENGLAND R", "d1": "SCANDINAVIA K", "d2": "SCANDINAVIA N",
         "b3": "SCANDINAVIA N", "a1": "SCANDINAVIA N"})


def test_rings_joined_by_a_castling_fail_together_when_one_ring_is_broken() -> None:
    # A French knight bounces the bishop's landing square: ring two cannot close, the rook's
    # travel fails, so the castling fails and with it ring one.
    pieces = {E: ["K d1", "R a1"], S: ["K d2", "R c1", "B c3", "N b1"], F: ["N b3"]}
    lines = ["ENGLAND: O-O", "SCANDINAVIA: K d2 - d1", "SCANDINAVIA: R c1 - c3",
             "SCANDINAVIA: B c3 - a1", "SCANDINAVIA: N b1 - d2", "FRANCE: N b3 - a1"]
    for order in (lines, lines[::-1]):
        r = play(pieces, *order)
        assert not any(r.ok(k) for k in range(len(order))), order
        assert r.board == {"d1": "ENGLAND K", "a1": "ENGLAND R", "d2": "SCANDINAVIA K",
                           "c1": "SCANDINAVIA R", "c3": "SCANDINAVIA B",
                           "b1": "SCANDINAVIA N", "b3": "FRANCE N"}, order


# ------------------------- item 6: a circle through an attacked convoy (as DATC 6.C.4)
def test_circle_through_an_attacked_convoy_moves_and_the_convoy_holds() -> None:
    # England's circle: rook a1 - c1 (through b1), rook a3 - a1 (through a2), bishop c1 - a3
    # (through b2). The convoy on a2 has one support-convoy (strength 1); Scandinavia's
    # bishop attacks a2 with 1. Either the circle moves and the convoy holds the bishop off,
    # or the bishop breaks the convoy and the circle stops: the project takes the first, as
    # DATC 6.C.4 does.
    pieces = {E: ["R a1", "R a3", "B c1", "N c3"], S: ["B b3"]}
    lines = ["ENGLAND: R a1 - c1", "ENGLAND: R a3 - a1", "ENGLAND: B c1 - a3",
             "ENGLAND: N c3 S a2 C a3 - a1", "SCANDINAVIA: B b3 - a2"]
    for order in permutations(lines):
        r = play(pieces, *order)
        results = {line: r[k] for k, line in enumerate(order)}
        assert results == {lines[0]: "succeeds", lines[1]: "succeeds", lines[2]: "succeeds",
                           lines[3]: "succeeds", lines[4]: "fails"}, order
        assert r.board == {"c1": "ENGLAND R", "a1": "ENGLAND R", "a3": "ENGLAND B",
                           "c3": "ENGLAND N", "b3": "SCANDINAVIA B"}, order


def test_circle_through_an_attacked_convoy_stops_when_the_attack_is_stronger() -> None:
    # With a support the bishop (2) beats the convoy (1) whatever the circle does.
    r = play({E: ["R a1", "R a3", "B c1", "N c3"], S: ["B b3", "N b4"]},
             "ENGLAND: R a1 - c1", "ENGLAND: R a3 - a1", "ENGLAND: B c1 - a3",
             "ENGLAND: N c3 S a2 C a3 - a1", "SCANDINAVIA: B b3 - a2",
             "SCANDINAVIA: N b4 S b3 - a2")
    assert not any(r.ok(k) for k in range(4)) and r.ok(4)
    assert r.board["a2"] == "SCANDINAVIA B" and r.board["a1"] == "ENGLAND R"


# ------------------------ item 7: supports attacked by multiple-square moves (§3.7.2)
def test_failed_multiple_square_attack_does_not_cut_support() -> None:
    # The rook's attack on a5 bounces (1 against the king's 1): its convoys on a2-a4 fail
    # with it, so its path is not successful and the king's support is not cut. The knight,
    # supported, dislodges the Italian king.
    r = play({E: ["R a1"], F: ["K a5", "N c4"], I: ["K b6"]},
             "ENGLAND: R a1 - a5", "FRANCE: K a5 S c4 - b6", "FRANCE: N c4 - b6")
    assert r[0] == "fails" and r.reason(0) == "bounced"
    assert r.ok(1) and r.reason(1) == ""
    assert r.ok(2) and r.dislodged == {"b6": "c4"}


def test_successful_multiple_square_attack_dislodges_the_supporter() -> None:
    # Supported, the rook arrives: the support fails because its piece is dislodged.
    r = play({E: ["R a1", "N b3"], F: ["K a5", "N c4"], I: ["K b6"]},
             "ENGLAND: R a1 - a5", "ENGLAND: N b3 S a1 - a5",
             "FRANCE: K a5 S c4 - b6", "FRANCE: N c4 - b6")
    assert r.ok(0) and r[2] == "fails" and r.reason(2) == "dislodged"
    assert r[3] == "fails" and r.dislodged == {"a5": "a1"}


def test_failed_single_square_attack_still_cuts_support() -> None:
    # The contrast: a knight's attack has no intermediate square, so its path is successful
    # and it cuts even though it bounces.
    r = play({E: ["N b3"], F: ["K a5", "N c4"], I: ["K b6"]},
             "ENGLAND: N b3 - a5", "FRANCE: K a5 S c4 - b6", "FRANCE: N c4 - b6")
    assert r[0] == "fails" and r[1] == "fails" and r.reason(1) == "cut"
    assert r[2] == "fails" and r.dislodged == {}


# ----------------------------------------------- §3.9 paradoxes, whatever the listing
def test_piece_making_way_for_a_rook_it_replaces_is_circular_movement() -> None:
    # The rook passes g4 only if the king leaves it; the king enters g3 only if the rook
    # leaves it. Both or neither: the two make way for each other, a circle, which moves.
    for lines in (["SCANDINAVIA: R g3 - g5", "ENGLAND: K g4 - g3"],
                  ["ENGLAND: K g4 - g3", "SCANDINAVIA: R g3 - g5"]):
        r = play({S: ["R g3"], E: ["K g4"]}, *lines)
        assert r.ok(0) and r.ok(1), lines
        assert r.board == {"g5": "SCANDINAVIA R", "g3": "ENGLAND K"}


def test_circle_through_a_path_comes_before_a_pawn_crossing_it() -> None:
    # Found by the random tests. The French pawn's double step g7 - g5 passes g6, where the
    # rook lands; the rook passes g5, where the pawn lands. Either the circle (rook and king)
    # moves and the pawn's path is blocked on g6, or the pawn moves and blocks the rook on
    # g5: circular movement comes first.
    lines = ["SCANDINAVIA: R g3 - g6", "ENGLAND: K g4 - g3", "FRANCE: g7 - g5"]
    for order in permutations(lines):
        r = play({S: ["R g3"], E: ["K g4"], F: ["P g7"]}, *order)
        assert r.board == {"g6": "SCANDINAVIA R", "g3": "ENGLAND K", "g7": "FRANCE P"}, order
        reasons = {line: r.reason(k) for k, line in enumerate(order)}
        assert reasons["FRANCE: g7 - g5"] == "path blocked on g6", order


def test_convoy_paradox_fails_the_convoy_at_its_heart_whatever_the_listing() -> None:
    # Found by the random tests. England's pawns both travel to f3: f2 - f3 succeeds only
    # if f1 - f3 has no prevent strength, i.e. only if f1 - f3's path through f2 fails, i.e.
    # only if the pawn on f2 stays: no consistent answer, a paradox involving the convoy on
    # f2, which fails. The French bishop's move through e2 (free once the French pawn takes
    # f1) takes part in the cycle the resolver meets in some listings, but failing its convoy
    # would fail one more convoy than needed: the bishop moves, whatever the listing.
    pieces = {E: ["P f1", "P f2"], F: ["P e2", "B f3"], S: ["P e3", "N g3", "K g2"]}
    lines = ["FRANCE: e2 - f1", "SCANDINAVIA: N g3 S e2 - f1", "SCANDINAVIA: e3 - f2",
             "ENGLAND: f1 - f3", "ENGLAND: f2 - f3", "FRANCE: B f3 - d1",
             "SCANDINAVIA: K g2 - f1"]
    for n, order in enumerate(permutations(lines)):
        if n % 40:
            continue  # a spread of the 5040 listings, to keep the suite fast
        r = play(pieces, *order)
        assert r.board == {"f1": "FRANCE P", "f3": "ENGLAND P", "d1": "FRANCE B",
                           "e3": "SCANDINAVIA P", "g3": "SCANDINAVIA N",
                           "g2": "SCANDINAVIA K"}, order
        assert r.dislodged == {"f1": "e2"}, order
        results = {line: r.reason(k) for k, line in enumerate(order)}
        assert results["ENGLAND: f1 - f3"] == "convoy paradox: the convoy on f2 fails", order


# ------------- issue 22 B: a move's attacked convoys hold alike, one of them or several
ROOK = ["ENGLAND: R a1 - a8", "ENGLAND: N c4 S a5 C a1 - a8", "ENGLAND: N c2 S a3 C a1 - a8",
        "ENGLAND: N c6 S a7 C a1 - a8"]


def _rook_and_kings(kings: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """England's rook a1 - a8 with a support-convoy on a3, a5 and a7 (strength 1 each); a
    Scandinavian king beside each attacked square moves in (1)."""
    pieces = {E: ["R a1", "N c2", "N c4", "N c6"], S: [f"K b{k[1]}" for k in kings]}
    return pieces, ROOK + [f"SCANDINAVIA: K b{k[1]} - {k}" for k in kings]


@pytest.mark.parametrize("kings", [["a5"], ["a5", "a3"], ["a5", "a3", "a7"]],
                         ids=["one attacked convoy", "two", "three"])
def test_a_move_passes_its_attacked_convoys_held_by_support_convoys(kings: list[str]) -> None:
    # One king: no cycle, the convoy on a5 (1) holds the king (1) off, the rook passes. Two
    # or three: each convoy's prevent strength counts only while the rook would pass the
    # other squares, so both answers are consistent (all hold, or all break): the only
    # circle is the move and its own convoys, and the move succeeds, as with one (the
    # seed's support-convoys hold "similar to support-holds"): no convoy paradox.
    pieces, lines = _rook_and_kings(kings)
    for n, order in enumerate(permutations(lines)):
        if n % 97:
            continue  # a spread of the listings
        r = play(pieces, *order)
        results = {line: (r[k], r.reason(k)) for k, line in enumerate(order)}
        assert all(results[line] == ("succeeds", "") for line in ROOK), results
        assert all(results[line] == ("fails", "bounced") for line in lines[4:]), results
        assert r.board == {"a8": "ENGLAND R", "c2": "ENGLAND N", "c4": "ENGLAND N",
                           "c6": "ENGLAND N", **{f"b{k[1]}": "SCANDINAVIA K" for k in kings}}


def test_a_stronger_attack_on_one_of_the_convoys_stops_the_move_and_frees_the_others() -> None:
    # A supported king (2) breaks the convoy on a5 (1) whatever the rook does: the rook fails,
    # a convoy on a failed move prevents nothing, and the king on b3 enters a3 as well.
    pieces, lines = _rook_and_kings(["a5", "a3"])
    pieces[S].append("K b6")
    r = play(pieces, *lines, "SCANDINAVIA: K b6 S b5 - a5")
    assert not any(r.ok(k) for k in range(4)) and r.ok(4) and r.ok(5) and r.ok(6)
    assert r.board["a1"] == "ENGLAND R"
    assert r.board["a5"] == r.board["a3"] == "SCANDINAVIA K"

