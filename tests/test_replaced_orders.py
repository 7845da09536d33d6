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
    assert [x.get("note") for x in read] == ["replaced by the later order R h1 - h3", None]
    read = read_order_lines(CHESS, pos, "ITALY", ["R h1 - h3", "O-O"])
    assert [x.get("note") for x in read] == ["replaced by the later order O-O", None]
    for lines in (["O-O", "R h1 - h3"], ["R h1 - h3", "O-O"]):
        kept = [("ITALY", x["text"]) for x in read_order_lines(CHESS, pos, "ITALY", lines)
                if x["order"]]
        alone = CHESS.adjudicate_lines(pos, kept).position
        given = CHESS.adjudicate_lines(pos, [("ITALY", x) for x in lines]).position
        assert CHESS.write_position(alone) == CHESS.write_position(given)


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
    # what the reply shows stands: the later order for a unit replaces the earlier one, unit
    # by unit (description.md, "A unit ordered twice")
    assert [x["order"] or x.get("note") for x in read] == {
        "A VIE - GAL": ["replaced by the later order A VIE - BOH", "A VIE - BOH"],
        "2A WAR - UKR": ["A WAR - UKR", "A WAR - SIL"],
        "A WAR - SIL": ["replaced by the later order 2A WAR - UKR", "2A WAR - UKR"],
    }[lines[0]]
    results = stackem.adjudicate_lines(pos, [("RUSSIA", x["text"]) for x in read
                                             if x["order"]]).results
    unbound = [(r.order, r.reason) for r in results if "without an order" in r.reason
               or "already has an order" in r.reason]
    assert unbound == [], unbound  # every line the reply accepted is obeyed


def _kept_and_all(variant, pos, power: str, lines: list[str]) -> tuple[dict, dict]:
    """The next position from the lines the mail reader keeps, and from all the lines."""
    read = read_order_lines(variant, pos, power, lines)
    kept = [(power, x["text"]) for x in read if x["order"]]
    alone = variant.adjudicate_lines(pos, kept).position
    given = variant.adjudicate_lines(pos, [(power, x) for x in lines]).position
    return variant.write_position(alone)["units"], variant.write_position(given)["units"]


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
    # ... but not a third: the reply says why, as the adjudicator does
    read = read_order_lines(multi, pos, "FRANCE", ["BUILD A PAR"] * 3 + ["BUILD F MAR"])
    assert [x["error"] for x in read] == [None, None, None, "no more builds due"]


def test_hoplite_a_fleet_and_an_army_built_on_one_city_both_stand() -> None:
    """Hoplite as Multiplicity: several builds on one centre (the review's 'BUILD F MAR'
    and 'BUILD A MAR'), both kept by the mail as both are made."""
    from judge.variants import get_variant

    hoplite = get_variant("hoplite")
    pos = hoplite.read_position({"variant": "hoplite", "phase": "W450BCA",
                                 "units": {"ATHENS": ["A ATH"]},
                                 "centres": {"ATHENS": ["ATH", "MAR", "THO"]}})
    kept, given = _kept_and_all(hoplite, pos, "ATHENS", ["BUILD F MAR", "BUILD A MAR"])
    assert given["ATHENS"] == ["A ATH", "A/F MAR"]
    assert kept == given


def test_hoplite_the_mail_keeps_the_builds_its_budget_pays_for_in_written_order() -> None:
    """The season simulator's W450BCA: Boeotia has 3 1/2 centres and an army, 2 1/2 to build
    with (3 builds by the count); an army or a fleet costs 1, a garrison 1/2. The mail kept
    the first three lines and the adjudicator built two of them, which two by the listing;
    now the mail keeps the builds the budget pays for, in written order, says why it refuses
    the rest, and the adjudicator makes exactly those."""
    from judge.variants import get_variant

    hoplite = get_variant("hoplite")
    pos = hoplite.read_position({"variant": "hoplite", "phase": "W450BCA",
                                 "units": {"BOEOTIA": ["A THB"]},
                                 "centres": {"BOEOTIA": ["AUL", "CHI", "ORC", "THB"]}})
    lines = ["BUILD A CHI", "BUILD A AUL", "BUILD F ORC", "BUILD G ORC"]
    read = read_order_lines(hoplite, pos, "BOEOTIA", lines)
    assert [x["error"] for x in read] == [
        None, None, "BOEOTIA has 1/2 to build with; F ORC costs 1", None]
    kept, given = _kept_and_all(hoplite, pos, "BOEOTIA", lines)
    assert given["BOEOTIA"] == ["A AUL", "A CHI", "G ORC", "A THB"]
    assert kept == given
    kept_lines = [x["text"] for x in read if x["order"]]
    for listing in ([*reversed(kept_lines)], kept_lines[1:] + kept_lines[:1]):
        again = hoplite.adjudicate_lines(pos, [("BOEOTIA", x) for x in listing]).position
        assert hoplite.write_position(again)["units"] == given


def test_multiplicity_a_removal_too_large_does_not_push_out_one_that_fits() -> None:
    from judge.variants import get_variant

    multi = get_variant("multiplicity")
    pos = multi.read_position({"variant": "multiplicity", "phase": "W1901A",
                               "units": {"GERMANY": ["A/F BER", "A PIC", "A RUH"]},
                               "centres": {"GERMANY": ["BER", "KIE", "MUN"]}})
    kept, given = _kept_and_all(multi, pos, "GERMANY", ["REMOVE A/F BER", "REMOVE A RUH"])
    assert given["GERMANY"] == ["A/F BER", "A PIC"]
    assert kept == given
    read = read_order_lines(multi, pos, "GERMANY", ["REMOVE A/F BER", "REMOVE A RUH"])
    assert [x["error"] for x in read] == ["A/F would take 2 removals; GERMANY has 1 left", None]


def test_hoplite_a_later_order_for_the_sacking_unit_replaces_the_sack_in_both() -> None:
    from judge.variants import get_variant

    hoplite = get_variant("hoplite")
    pos = hoplite.read_position({"variant": "hoplite", "phase": "S450BCM",
                                 "units": {"ARGOLIS": ["A DEL"]}, "centres": {}})
    lines = ["SACK DELPHI", "A DEL H"]
    read = read_order_lines(hoplite, pos, "ARGOLIS", lines)
    assert [x.get("note") for x in read] == ["replaced by the later order A DEL H", None]
    kept = [("ARGOLIS", x["text"]) for x in read if x["order"]]
    alone = hoplite.write_position(hoplite.adjudicate_lines(pos, kept).position)
    given = hoplite.write_position(
        hoplite.adjudicate_lines(pos, [("ARGOLIS", x) for x in lines]).position)
    assert alone.get("delphi_sacked_by") == given.get("delphi_sacked_by")
