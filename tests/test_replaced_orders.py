"""Which line of one mail a later line replaces, as the judge reads the mail: the same orders
as the adjudicator obeys, so that the lines kept give one result however they are listed
(Variant.replaced_orders). Multiplicity's merges: tests/test_multiplicity_properties.py."""

from __future__ import annotations

import pytest
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


@pytest.mark.xfail(strict=True, reason="found by review: Stack 'em's adjudicator obeys the "
                   "first order for a unit (rule 2: 'an order for a stack that already has an "
                   "order for every unit fails'), its mail reader keeps the last "
                   "(replaced_by_later), and counts '2A WAR - UKR' as one order: judge "
                   "adjudicate and a mail rule the same lines differently")
@pytest.mark.parametrize("units, lines", [
    (["A VIE"], ["A VIE - GAL", "A VIE - BOH"]),
    (["2A WAR"], ["2A WAR - UKR", "A WAR - SIL"]),
    (["2A WAR"], ["A WAR - SIL", "2A WAR - UKR"]),
], ids=["one army ordered twice", "2A then A", "A then 2A"])
def test_stackem_the_lines_a_mail_keeps_give_the_ruling_of_all_its_lines(units, lines) -> None:
    """Stack 'em: the lines the mail reader keeps, adjudicated, give what all the lines give
    (judge adjudicate); with '2A WAR - UKR' and 'A WAR - SIL' the reply accepted both and one
    then failed 'already has an order', which one by the listing."""
    from judge.variants import get_variant

    stackem = get_variant("stackem")
    pos = stackem.read_position({"variant": "stackem", "phase": "S1901M",
                                 "units": {"RUSSIA": units}})
    kept, given = _kept_and_all(stackem, pos, "RUSSIA", lines)
    assert kept == given
    read = read_order_lines(stackem, pos, "RUSSIA", lines)
    results = stackem.adjudicate_lines(pos, [("RUSSIA", x["text"]) for x in read
                                             if not x["error"]]).results
    unbound = [(r.order, r.reason) for r in results if "without an order" in r.reason
               or "already has an order" in r.reason]
    assert unbound == [], unbound  # every line the reply accepted is obeyed


def _kept_and_all(variant, pos, power: str, lines: list[str]) -> tuple[dict, dict]:
    """The next position from the lines the mail reader keeps, and from all the lines."""
    read = read_order_lines(variant, pos, power, lines)
    kept = [(power, x["text"]) for x in read if not x["error"]]
    alone = variant.adjudicate_lines(pos, kept).position
    given = variant.adjudicate_lines(pos, [(power, x) for x in lines]).position
    return variant.write_position(alone)["units"], variant.write_position(given)["units"]


@pytest.mark.xfail(strict=True, reason="found by review: the mail reader refuses a second "
                   "build on one centre ('PAR already has an order in this mail'), which "
                   "Multiplicity's rules allow and its adjudicator makes")
def test_multiplicity_two_builds_on_one_centre_in_one_mail_both_stand() -> None:
    """Multiplicity: "several builds may go on one centre, except in the initial placement"
    (description.md); 'BUILD A PAR' twice is a 2A PAR by judge adjudicate, an A PAR by mail."""
    from judge.variants import get_variant

    multi = get_variant("multiplicity")
    pos = multi.read_position({"variant": "multiplicity", "phase": "W1901A",
                               "units": {"FRANCE": ["A BUR"]},
                               "centres": {"FRANCE": ["BRE", "MAR", "PAR", "SPA"]}})
    kept, given = _kept_and_all(multi, pos, "FRANCE", ["BUILD A PAR", "BUILD A PAR"])
    assert given["FRANCE"] == ["A BUR", "2A PAR"]
    assert kept == given


@pytest.mark.xfail(strict=True, reason="found by review: the mail reader counts removals by "
                   "lines, so it keeps 'REMOVE A/F BER' (two removals, one due: the "
                   "adjudicator fails it) and refuses 'REMOVE A RUH'; civil disorder then "
                   "removes A PIC, a unit the player never named")
def test_multiplicity_a_removal_too_large_does_not_push_out_one_that_fits() -> None:
    from judge.variants import get_variant

    multi = get_variant("multiplicity")
    pos = multi.read_position({"variant": "multiplicity", "phase": "W1901A",
                               "units": {"GERMANY": ["A/F BER", "A PIC", "A RUH"]},
                               "centres": {"GERMANY": ["BER", "KIE", "MUN"]}})
    kept, given = _kept_and_all(multi, pos, "GERMANY", ["REMOVE A/F BER", "REMOVE A RUH"])
    assert given["GERMANY"] == ["A/F BER", "A PIC"]
    assert kept == given


@pytest.mark.xfail(strict=True, reason="found by review: Hoplite's adjudicator does not let a "
                   "later order for the unit in Delphi replace SACK DELPHI (it obeys both), "
                   "its mail reader does: judge adjudicate sacks Delphi, the game does not")
def test_hoplite_a_later_order_for_the_sacking_unit_replaces_the_sack_in_both() -> None:
    from judge.variants import get_variant

    hoplite = get_variant("hoplite")
    pos = hoplite.read_position({"variant": "hoplite", "phase": "S450BCM",
                                 "units": {"ARGOLIS": ["A DEL"]}, "centres": {}})
    lines = ["SACK DELPHI", "A DEL H"]
    read = read_order_lines(hoplite, pos, "ARGOLIS", lines)
    assert [x["error"] for x in read] == ["replaced by the later order A DEL H", None]
    kept = [("ARGOLIS", x["text"]) for x in read if not x["error"]]
    alone = hoplite.write_position(hoplite.adjudicate_lines(pos, kept).position)
    given = hoplite.write_position(
        hoplite.adjudicate_lines(pos, [("ARGOLIS", x) for x in lines]).position)
    assert alone.get("delphi_sacked_by") == given.get("delphi_sacked_by")
