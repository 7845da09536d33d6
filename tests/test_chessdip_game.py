"""Chess Dip as a game: start, centres, builds, promotion, victory, the CLI contract, the
diagram, and random legal games of several years with their invariants."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from chessdip_helpers import BOARD, RULES, VARIANT, play, position
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.engine.position import Position
from judge.variants.chessdip.mapdata import convert
from judge.variants.chessdip.randomgame import adjustment_lines, movement_lines
from judge.variants.chessdip.rules import normalise

E, I, F, S = "ENGLAND", "ITALY", "FRANCE", "SCANDINAVIA"  # noqa: E741
SHARED = Path(__file__).resolve().parents[1] / "variants" / "chessdip" / "map-source.json"


# ---------------------------------------------------------------------------- the start
def test_four_powers_29_centres_victory_at_15() -> None:
    assert BOARD.powers == (E, I, F, S)
    assert len(BOARD.supply_centres) == 29 and BOARD.victory_centres == 15
    assert len(BOARD.provinces) == 64


def test_initial_position() -> None:
    p = VARIANT.initial_position()
    assert str(p.phase) == "S1901M"
    assert p.to_json()["units"] == {
        E: ["N b1", "P c2", "K d1"], F: ["P e7", "K e8", "N g8"],
        I: ["K e1", "P e2", "B f1"], S: ["B c8", "P d7", "K d8"]}
    # Each power counts the home-rank centres its own pieces stand on: three each.
    assert {p_: sorted(cs) for p_, cs in p.centres.items()} == {
        E: ["b1", "c2", "d1"], I: ["e1", "e2", "f1"], F: ["e7", "e8", "g8"],
        S: ["c8", "d7", "d8"]}


def test_map_file_is_the_conversion_of_the_shared_data() -> None:
    ours = json.loads((Path(__file__).resolve().parents[1] / "variants" / "chessdip"
                       / "map.json").read_text(encoding="utf-8"))
    assert ours == convert(json.loads(SHARED.read_text(encoding="utf-8")))


# ------------------------------------------------------------------------------ centres
def _fall(pieces, *lines, centres=None, **extra):
    return play(pieces, *lines, phase="F1901M", centres=centres or {}, **extra)


def test_fall_occupation_takes_centres_on_ranks_3_to_6() -> None:
    r = _fall({I: ["N b1", "K e1"], F: ["K e5"]}, "ITALY: N b1 - c3", "FRANCE: K e5 - e4",
              centres={F: ["c3"]})
    assert r.next.centres[I] == {"c3", "e1"} and r.next.centres[F] == {"e4"}
    assert r.outcome.centre_changes["c3"] == (F, I)


def test_ranks_3_to_6_centres_are_kept_when_left() -> None:
    r = _fall({I: ["N d5"]}, "ITALY: N d5 - f4", centres={I: ["d5"]})
    assert r.next.centres[I] == {"d5"}


def test_home_rank_centres_count_only_while_own_pieces_stand_on_them() -> None:
    # England's knight leaves b1: b1 no longer counts; Italy's king on d1 (England's start
    # square, same side) counts for Italy; France's knight on e2 counts for nobody.
    r = _fall({E: ["N b1", "K d2"], I: ["K e1"], F: ["N f4"]},
              "ENGLAND: N b1 - a3", "ITALY: K e1 - d1", "FRANCE: N f4 - e2",
              centres={E: ["b1", "d1"], I: ["e1"]})
    assert E not in r.next.centres
    assert r.next.centres[I] == {"d1"}
    assert F not in r.next.centres


def test_promotion_on_a_centre_makes_it_a_home_centre_of_the_pawn() -> None:
    r = _fall({I: ["P d7"], S: ["K a8"]}, "ITALY: d7 - d8", centres={S: ["a8"]})
    assert r.next.extra["home_centres"] == {I: ["d8"]}
    assert "d8" in r.next.centres[I] and str(r.next.phase) == "W1901A"
    # The Winter promotes it; d8 is now Italy's to build on when empty.
    w = play({}, "ITALY: P d8 = R", pos=r.next)
    assert w.ok(0) and w.board["d8"] == "ITALY R" and str(w.next.phase) == "S1902M"
    later = VARIANT.read_position({**w.next.to_json(), "phase": "W1902A",
                                "units": {I: ["R a5"], S: ["K a8"]}})
    assert "d8" in RULES.build_squares(later, I)
    assert "d8" not in RULES.build_squares(later, S)


def test_unordered_promotion_makes_a_knight() -> None:
    r = _fall({I: ["P b7"]}, "ITALY: b7 - b8", centres={I: ["c3"]})
    w = play({}, pos=r.next)
    assert w.board == {"b8": "ITALY N"}
    assert "promoted to a knight" in w.outcome.results[0].reason


def test_pawn_promotes_to_knight_bishop_or_rook_only() -> None:
    r = _fall({I: ["P b7"]}, "ITALY: b7 - b8")
    w = play({}, "ITALY: b8 = K", pos=r.next)
    assert w[0] == "fails" and "knight, bishop or rook" in w.reason(0)


def test_victory_at_15_centres() -> None:
    many = ["a5", "b5", "d5", "c3", "e3", "g3", "c4", "e4", "e6", "f6", "h6", "c2", "e2"]
    # 11 centres on ranks 3-6 kept, and four home-rank centres stood on.
    r = _fall({I: ["K e1", "B f1", "P c2", "P e2"]}, centres={I: many})
    assert len(r.next.centres[I]) == 15 and r.next.winner == I
    r = _fall({I: ["K e1", "B f1", "P c2"]}, centres={I: many})
    assert len(r.next.centres[I]) == 14 and r.next.winner is None


# ------------------------------------------------------------------------------- builds
def _winter(pieces, centres, **extra):
    return position(pieces, "W1901A", centres, **extra)


def test_builds_on_unoccupied_home_rank_centres_of_the_side() -> None:
    pos = _winter({I: ["K e1", "N c3"], E: ["K d1"]}, {I: ["e1", "c3", "e4"], E: ["d1"]})
    assert RULES.adjustment_count(pos, I) == 1
    assert "h1" in RULES.build_squares(pos, I) and "b1" in RULES.build_squares(pos, I)
    r = play({}, "ITALY: BUILD R h1", "ENGLAND: BUILD N b1", pos=pos)
    assert r.ok(0) and r[1] == "fails" and "no builds" in r.reason(1)
    assert r.board["h1"] == "ITALY R"


def test_build_refusals() -> None:
    pos = _winter({I: ["K e1"]}, {I: ["e1", "c3", "e4"], F: ["a1"]},
                  home_centres={F: ["a1"]})
    assert "not a supply centre" in VARIANT.adjudicate_lines(pos, [(I, "BUILD N g1")]).results[0].reason
    assert "occupied" in VARIANT.adjudicate_lines(pos, [(I, "BUILD N e1")]).results[0].reason
    assert "FRANCE's home centre" in VARIANT.adjudicate_lines(pos, [(I, "BUILD N a1")]).results[0].reason
    assert "home centre of ITALY's side" in VARIANT.adjudicate_lines(
        pos, [(I, "BUILD N c3")]).results[0].reason
    assert "say which piece" in VARIANT.adjudicate_lines(pos, [(I, "BUILD e2")]).results[0].reason \
        or VARIANT.adjudicate_lines(pos, [(I, "BUILD e2")]).results[0].result == "invalid"


def test_built_rook_and_king_may_castle() -> None:
    # "one may castle right after building a king and a rook"
    pos = _winter({I: ["N c3", "B c4"]}, {I: ["c3", "c4", "e4", "e3"]}, moved=["e1", "h1"])
    w = play({}, "ITALY: BUILD K e1", "ITALY: BUILD R h1", pos=pos)
    assert w.ok(0) and w.ok(1) and "moved" not in w.next.extra
    r = play({}, "ITALY: O-O", pos=w.next)
    assert r.ok(0) and r.board["g1"] == "ITALY K"


def test_removals_and_civil_disorder() -> None:
    pos = _winter({I: ["K e1", "N c3", "P a4", "B h6"]}, {I: ["e1", "c3"]})
    assert RULES.adjustment_count(pos, I) == -2
    r = play({}, "ITALY: REMOVE N c3", pos=pos)
    assert r.ok(0)
    # The other removal: farthest from Italy's centres (e1, c3) first: the bishop on h6.
    assert r.outcome.results[1].reason.startswith("civil disorder")
    assert sorted(r.board) == ["a4", "e1"]


def test_removal_may_name_the_square_alone() -> None:
    pos = _winter({I: ["K e1", "N c3"]}, {I: ["e1"]})
    r = play({}, "ITALY: REMOVE c3", pos=pos)
    assert r.ok(0) and r.outcome.results[0].order == "REMOVE N c3" and r.board == {
        "e1": "ITALY K"}


def test_waive() -> None:
    pos = _winter({I: ["K e1"]}, {I: ["e1", "c3"]})
    r = play({}, "ITALY: WAIVE", "ITALY: BUILD N f1", pos=pos)
    assert r.ok(0) and not r.ok(1) and r.board == {"e1": "ITALY K"}


def test_no_winter_without_adjustments_or_promotions() -> None:
    r = _fall({I: ["K e1"]}, centres={I: ["e1"]})
    assert str(r.next.phase) == "S1902M"


# ---------------------------------------------------------------------- CLI and diagram
def _judge() -> list[str]:
    exe = shutil.which("judge", path=str(Path(sys.executable).parent))
    assert exe, "the judge command is not installed"
    return [exe]


def test_cli_adjudicate_chessdip(tmp_path: Path) -> None:
    pos = tmp_path / "position.json"
    pos.write_text(json.dumps({
        "variant": "chessdip", "phase": "S1901M",
        "units": {"ITALY": ["K e1", "P e2", "B f1", "R h1"], "FRANCE": ["N f4", "K e8"],
                  "ENGLAND": ["K d1"]},
        "centres": {"ITALY": ["e1", "e2", "f1"], "ENGLAND": ["d1"], "FRANCE": ["e8"]}}))
    orders = tmp_path / "orders.txt"
    orders.write_text("ITALY:\nO-O\nB f1 - c4\ne2 - e3\n\nFRANCE:\nN f4 - h3\nK e8 - e9\n"
                      "ENGLAND:\nK d1 S e1 - e2\n")
    proc = subprocess.run([*_judge(), "adjudicate", "--variant", "chessdip", "--position",
                           str(pos), "--orders", str(orders), "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    results = [(r["power"], r["order"], r["result"]) for r in out["results"]]
    assert results[:6] == [
        ("ITALY", "O-O", "succeeds"),
        ("ITALY", "B f1 - c4", "succeeds"),  # e2 is vacated: the path holds
        ("ITALY", "P e2 - e3", "succeeds"),
        ("FRANCE", "N f4 - h3", "succeeds"),
        ("FRANCE", "K e8 - e9", "invalid"),
        ("ENGLAND", "K d1 S e1 - e2", "fails"),  # void: the king castles
    ]
    assert sorted(out["position"]["units"]["ITALY"]) == ["B c4", "K g1", "P e3", "R f1"]
    assert out["position"]["phase"] == "F1901M"
    assert sorted(out["position"]["moved"]) == ["f1", "g1"]


def test_cli_text_output_and_bad_input(tmp_path: Path) -> None:
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"variant": "chessdip", "phase": "S1901M",
                               "units": {"ITALY": ["K e1"]}}))
    orders = tmp_path / "o.txt"
    orders.write_text("ITALY: K e1 - e2\n")
    proc = subprocess.run([*_judge(), "adjudicate", "--variant", "chessdip", "--position",
                           str(pos), "--orders", str(orders)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and "K e1 - e2" in proc.stdout and "succeeds" in proc.stdout
    pos.write_text("{not json")
    proc = subprocess.run([*_judge(), "adjudicate", "--variant", "chessdip", "--position",
                           str(pos), "--orders", str(orders)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


def test_variant_is_listed() -> None:
    proc = subprocess.run([*_judge(), "variants"], capture_output=True, text=True, check=False)
    assert "chessdip\tChess Dip" in proc.stdout


def test_diagram() -> None:
    text = RULES.diagram(VARIANT.initial_position())
    rows = text.splitlines()
    assert rows[1].split() == ["8", "*", ".", "SB", "SK", "FK", ".", "FN", "*", "8"]
    assert rows[8].split() == ["1", "*", "EN", ".", "EK", "IK", "IB", ".", "*", "1"]


# ------------------------------------------------------------------------- random games
def _invariants(before: Position, lines, outcome) -> None:
    before = normalise(before)
    nxt = outcome.position
    squares = [u.location for u in nxt.units]
    assert len(squares) == len(set(squares))
    assert all(s in BOARD.provinces for s in squares)
    owned = [c for cs in nxt.centres.values() for c in cs]
    assert len(owned) == len(set(owned)) and set(owned) <= BOARD.supply_centres
    if before.phase.kind == "M":
        assert len(outcome.results) >= len(lines)
        gone = {d.unit.location for d in nxt.dislodged}
        assert gone <= {u.location for u in before.units}
        assert len(nxt.units) == len(before.units) - len(gone)
        # Pieces move but never change: per power and kind, only the dislodged are missing.
        after = Counter((u.power, u.kind) for u in nxt.units)
        expected = Counter((u.power, u.kind) for u in before.units)
        expected.subtract((d.unit.power, d.unit.kind) for d in nxt.dislodged)
        assert after == +expected
    else:
        for power in BOARD.powers:
            n = sum(1 for u in nxt.units if u.power == power)
            m = sum(1 for u in before.units if u.power == power)
            c = len(before.centres.get(power, ()))
            assert n <= max(m, c)
            if m > c:
                assert n == c


# Derandomized: the same games every run, so the suite is stable; widen locally with a
# larger max_examples (or derandomize=False) to search further.
@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_invariants(seed: int) -> None:
    rng = random.Random(seed)
    pos = VARIANT.initial_position()
    for _ in range(18):  # six years: Spring, Fall, Winter
        if pos.winner:
            break
        if pos.phase.kind == "M":
            lines = movement_lines(BOARD, RULES, pos, rng)
        else:
            lines = adjustment_lines(BOARD, RULES, pos, rng)
        for power, line in lines:
            VARIANT.read_order(pos, power, line)  # every generated order is legal
        outcome = VARIANT.adjudicate_lines(pos, lines)
        _invariants(pos, lines, outcome)
        if pos.phase.kind == "M":
            # The result does not depend on the order of the lines.
            shuffled = list(lines)
            rng.shuffle(shuffled)
            again = VARIANT.adjudicate_lines(pos, shuffled)
            assert sorted(map(str, again.position.units)) == sorted(
                map(str, outcome.position.units))
        # Through JSON, as the CLI and the database keep positions.
        pos = VARIANT.read_position(json.loads(json.dumps(VARIANT.write_position(
            outcome.position))))


class _Fixed:
    """A stand-in resolver answering every decision from a finished resolution."""

    def __init__(self, result: list[bool]) -> None:
        self.result = result

    def resolve(self, j: int) -> bool:
        return self.result[j]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), pieces=st.integers(2, 40))
def test_random_positions_resolve_to_a_consistent_answer(seed: int, pieces: int) -> None:
    """Every decision's final answer is what its rule gives from the others' final answers
    (a fixed point of the axioms, paradox rulings included); the next position has one piece
    per square; listing the orders in another order changes nothing."""
    from judge.variants.chessdip.movement import ChessMovement
    from judge.variants.chessdip.randomgame import random_position

    rng = random.Random(seed)
    pos = random_position(BOARD, rng, pieces)
    lines = movement_lines(BOARD, RULES, pos, rng)
    checked = [(p, VARIANT.read_order(pos, p, line)) for p, line in lines]
    phase = ChessMovement(BOARD, pos.units, checked)
    phase.resolve()
    fixed = _Fixed(phase.result)
    assert phase.ruled <= set(range(len(phase.result)))
    for d in range(len(phase.result)):
        if d not in phase.ruled:  # the backup rule's rulings are not their rule's answer
            assert phase.decide(d, fixed) == phase.result[d], d  # type: ignore[arg-type]
    outcome = VARIANT.adjudicate_lines(pos, lines)
    _invariants(pos, lines, outcome)
    shuffled = list(lines)
    rng.shuffle(shuffled)
    again = VARIANT.adjudicate_lines(pos, shuffled)
    assert sorted(map(str, again.position.units)) == sorted(map(str, outcome.position.units))


def test_position_reading_and_writing() -> None:
    data = {"variant": "chessdip", "phase": "S1901M",
            "units": {"italy": ["K E1", "e2"], "FRANCE": ["N g8"]},
            "centres": {"ITALY": ["E1"]}, "moved": ["e1"]}
    pos = VARIANT.read_position(data)
    assert sorted(map(str, pos.units)) == ["K e1", "N g8", "P e2"]
    out = VARIANT.write_position(pos)
    assert out["units"] == {"FRANCE": ["N g8"], "ITALY": ["K e1", "P e2"]}
    assert out["centres"] == {"ITALY": ["e1"]} and out["moved"] == ["e1"]
    assert VARIANT.write_position(VARIANT.read_position(out)) == out


@pytest.mark.parametrize(("units", "message"), [
    ({"ITALY": ["Q d1"]}, "not a piece"),
    ({"ITALY": ["K i9"]}, "not a piece"),
    ({"ITALY": ["K e1"], "FRANCE": ["N e1"]}, "two pieces on e1"),
    ({"PRUSSIA": ["K e1"]}, "unknown power"),
])
def test_malformed_positions_are_refused(units: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        VARIANT.read_position({"variant": "chessdip", "phase": "S1901M", "units": units})


def test_report_shows_the_board_as_a_chess_diagram() -> None:
    from judge.engine.events import visible_events
    from judge.mail.compose import render
    from judge.reports import events_context

    r = play({I: ["B f1", "K e1"], F: ["N f4"]}, "ITALY: B f1 - c4", "FRANCE: N f4 - d3")
    events = RULES.events(r.outcome, [])
    seen = events_context(VARIANT, visible_events(events, I), r.next)
    assert seen["diagram"] == RULES.diagram(r.next)
    text = render("report.txt.j2", game="g", variant=VARIANT.title, phase="S1901M",
                  phase_name="Spring 1901 Movement", powers=list(BOARD.powers),
                  next_phase="F1901M", next_phase_name="Fall 1901 Movement", deadline=None,
                  adjustment_next=False, retreat_next=False, you=I,
                  judge_address="judge@localhost", **seen)
    assert "The board" in text and "B f1 - c4" in text
    rank3 = next(line for line in text.splitlines() if line.startswith("3 "))
    assert rank3.split() == ["3", ".", ".", "*", "FN", "*", ".", "*", ".", "3"]


# ------------------------------------------------------ orders replaced, adjustments taken
def test_a_later_order_for_the_rook_replaces_castling_and_the_king_holds() -> None:
    r = play({I: ["K e1", "R h1"]}, "ITALY: O-O", "ITALY: R h1 - h4")
    assert not r.ok(0) and r.reason(0) == "replaced by a later order for the same piece"
    assert r.ok(1) and r.board == {"e1": "ITALY K", "h4": "ITALY R"}
    assert [(x.order, x.reason) for x in r.outcome.results[2:]] == [("K e1 H",
                                                                      "no order: holds")]


def test_castling_replaces_earlier_orders_for_king_and_rook() -> None:
    r = play({I: ["K e1", "R h1"]}, "ITALY: K e1 H", "ITALY: R h1 H", "ITALY: O-O")
    assert [r[k] for k in range(3)] == ["fails", "fails", "succeeds"]
    assert r.reason(0) == r.reason(1) == "replaced by a later order for the same piece"
    assert r.board == {"g1": "ITALY K", "f1": "ITALY R"}
    assert len(r.outcome.results) == 3


def test_two_builds_on_one_square_and_two_promotions_of_one_pawn() -> None:
    pos = position({I: ["K e5", "P b8"]}, "W1901A", centres={I: ["c3", "d5", "f1", "e4"]})
    sq = RULES.build_squares(pos, I)[0]
    w = play({}, f"ITALY: BUILD N {sq}", f"ITALY: BUILD B {sq}", "ITALY: P b8 = R",
             "ITALY: P b8 = B", pos=pos)
    assert w.ok(0) and not w.ok(1)
    assert w.reason(1) == f"a piece was already built on or removed from {sq}"
    assert w.ok(2) and w.reason(3) == "this pawn already has a promotion order"
    assert w.board[sq] == "ITALY N" and w.board["b8"] == "ITALY R"
