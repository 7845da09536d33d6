"""Multiplicity II: every example of the rules text (shared/seeds/001_52e48166c371df39.txt),
and a test for each rule, on the standard map (variant ``multiplicity``)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.engine.errors import OrderError
from judge.engine.variant import FAILS, INVALID, SUCCEEDS, Outcome
from judge.games.game import read_order_lines
from judge.variants import get_variant

V = get_variant("multiplicity")


def play(units: dict[str, list[str]], orders: list[tuple[str, str]], phase: str = "S1901M",
         centres: dict[str, list[str]] | None = None, **extra: object) -> Outcome:
    data = {"variant": "multiplicity", "phase": phase, "units": units, "centres": centres or {}}
    data.update(extra)
    return V.adjudicate_lines(V.read_position(data), orders)


def units(outcome: Outcome) -> dict[str, list[str]]:
    return V.write_position(outcome.position)["units"]


def dislodged(outcome: Outcome) -> dict[str, list[str]]:
    return {p: [e["unit"] for e in es]
            for p, es in V.write_position(outcome.position)["dislodged"].items()}


def verdicts(outcome: Outcome, n: int | None = None) -> list[str]:
    return [r.result for r in outcome.results[:n]]


# ------------------------------------------------------------------ positions
def test_multiple_units_are_read_and_written_as_the_rules_write_them() -> None:
    data = {"variant": "multiplicity", "phase": "S1901M",
            "units": {"FRANCE": ["2A BUR", "A/F SPA/NC", "a/2f MAO"]}, "centres": {}}
    out = V.write_position(V.read_position(data))
    assert out["units"] == {"FRANCE": ["2A BUR", "A/2F MAO", "A/F SPA/NC"]}
    with pytest.raises(ValueError):
        V.read_position({**data, "units": {"FRANCE": ["2X BUR"]}})


# --------------------------------------------------------------- rule 4: strength
def test_a_2a_displaces_an_unsupported_army() -> None:
    out = play({"FRANCE": ["2A BUR"], "GERMANY": ["A MUN"]}, [("FRANCE", "2A BUR - MUN")])
    assert verdicts(out, 1) == [SUCCEEDS]
    assert dislodged(out) == {"GERMANY": ["A MUN"]}


def test_a_2a_holds_against_one_supported_army_but_not_two_supports() -> None:
    base = {"FRANCE": ["2A BUR"], "GERMANY": ["A MUN", "A RUH", "A KIE"]}
    one = play(base, [("GERMANY", "A MUN - BUR"), ("GERMANY", "A RUH S A MUN - BUR")])
    assert one.results[0].result == FAILS
    two = play({**base, "GERMANY": ["A MUN", "A RUH", "A BEL"]},
               [("GERMANY", "A MUN - BUR"), ("GERMANY", "A RUH S A MUN - BUR"),
                ("GERMANY", "A BEL S A MUN - BUR")])
    assert two.results[0].result == SUCCEEDS


# ---------------------------------------------------------------- rule 3: merging
def test_merge_example_succeeds_against_a_single_attack() -> None:
    out = play({"FRANCE": ["A MAR", "A PIC"], "GERMANY": ["A MUN"]},
               [("FRANCE", "A(Mar) & A(Pic) MERGE 2A(Bur)"), ("GERMANY", "A(Mun)-Bur")])
    assert verdicts(out, 2) == [SUCCEEDS, FAILS]
    assert units(out)["FRANCE"] == ["2A BUR"]
    assert out.results[0].order == "A MAR & A PIC MERGE 2A BUR"


def test_mergers_must_be_explicit() -> None:
    out = play({"FRANCE": ["A PAR", "A BUR"], "GERMANY": ["A RUH"]},
               [("FRANCE", "A(Par)-Bur"), ("FRANCE", "A(Bur)-Mun"), ("GERMANY", "A(Ruh)-Mun")])
    assert verdicts(out, 3) == [FAILS, FAILS, FAILS]
    assert sorted(units(out)["FRANCE"]) == ["A BUR", "A PAR"]


def test_support_for_a_merge_from_a_non_participating_force() -> None:
    pos = {"FRANCE": ["A MAR", "A PIC", "A PAR"], "GERMANY": ["2A MUN"]}
    without = play(pos, [("FRANCE", "A MAR & A PIC MERGE 2A BUR"), ("GERMANY", "2A MUN - BUR")])
    assert verdicts(without, 2) == [FAILS, FAILS]
    with_support = play(pos, [("FRANCE", "A MAR & A PIC MERGE 2A BUR"),
                              ("FRANCE", "A(Par) S MERGE (Bur)"), ("GERMANY", "2A MUN - BUR")])
    assert verdicts(with_support, 3) == [SUCCEEDS, SUCCEEDS, FAILS]
    assert with_support.results[1].order == "A PAR S MERGE BUR"


def test_merge_part_that_fails_to_arrive_leaves_the_other_a_normal_move() -> None:
    out = play({"ENGLAND": ["A BEL", "A LON", "F ENG"], "FRANCE": ["F BRE", "F MAO"]},
               [("ENGLAND", "A BEL & A LON MERGE 2A PIC"), ("ENGLAND", "F ENG C A LON - PIC"),
                ("FRANCE", "F BRE - ENG"), ("FRANCE", "F MAO S F BRE - ENG")])
    assert units(out)["ENGLAND"] == ["A LON", "A PIC"]
    assert dislodged(out) == {"ENGLAND": ["F ENG"]}


def test_merge_into_a_space_held_by_one_of_the_merging_units() -> None:
    out = play({"FRANCE": ["A BUR", "A MAR"], "GERMANY": ["A MUN", "A RUH"]},
               [("FRANCE", "A BUR & A MAR MERGE 2A BUR"), ("GERMANY", "A MUN - BUR"),
                ("GERMANY", "A RUH S A MUN - BUR")])
    assert units(out)["FRANCE"] == ["2A BUR"]
    assert out.results[1].result == FAILS


def test_merge_order_naming_the_wrong_result_is_refused() -> None:
    out = play({"FRANCE": ["A MAR", "A PIC"]}, [("FRANCE", "A MAR & A PIC MERGE 3A BUR")])
    assert out.results[0].result == FAILS
    assert "2A" in out.results[0].reason


def test_units_of_different_powers_cannot_merge() -> None:
    with pytest.raises(OrderError):
        V.read_order(V.read_position({"phase": "S1901M", "units": {
            "FRANCE": ["A MAR"], "GERMANY": ["A MUN"]}}), "FRANCE", "A MAR & A MUN MERGE BUR")


def test_build_on_an_occupied_home_centre_forms_a_multiple_unit() -> None:
    out = play({"FRANCE": ["A PAR", "F BRE"]},
               [("FRANCE", "BUILD A PAR"), ("FRANCE", "BUILD F BRE")], phase="W1901A",
               centres={"FRANCE": ["PAR", "BRE", "MAR", "SPA"]})
    assert verdicts(out, 2) == [SUCCEEDS, SUCCEEDS]
    assert units(out)["FRANCE"] == ["2F BRE", "2A PAR"]


def test_build_a_fleet_onto_an_army_in_stp_joins_it_on_the_coast() -> None:
    out = play({"RUSSIA": ["A STP"]}, [("RUSSIA", "BUILD F STP/NC")], phase="W1901A",
               centres={"RUSSIA": ["STP", "MOS"]})
    assert units(out)["RUSSIA"] == ["A/F STP/NC"]


@pytest.mark.parametrize("army", [[], ["A STP"]])
def test_fleets_built_on_both_coasts_of_stp_are_refused_in_any_order(army: list[str]) -> None:
    """Rule 5: a unit in a multiple coast space occupies a specific coast, and builds on one
    centre join one unit (rule 3). ``BUILD F STP/NC`` and ``BUILD F STP/SC`` in one mail
    would make one 2F on the coast of the line written first: both are refused with the
    reason, in either order (also onto an army there, which stands on no coast); the army
    built beside them is made, and the reply refuses exactly what the adjudicator refuses."""
    lines = ["BUILD F STP/NC", "BUILD A MOS", "BUILD F STP/SC"]
    reason = ("fleets are ordered onto both coasts of St Petersburg (STP/NC, STP/SC), and a "
              "unit there stands on one coast (Multiplicity II rule 5): no fleet is placed there")
    for listing in itertools.permutations(lines):
        out = play({"RUSSIA": army}, [("RUSSIA", t) for t in listing], phase="W1901A",
                   centres={"RUSSIA": ["STP", "MOS", "SEV", "WAR", "RUM", "SWE"]})
        assert sorted(units(out)["RUSSIA"]) == sorted(["A MOS", *army])
        assert {r.order: r.reason for r in out.results if r.result == FAILS} == {
            "BUILD F STP/NC": reason, "BUILD F STP/SC": reason}
        pos = V.read_position({"variant": "multiplicity", "phase": "W1901A",
                               "units": {"RUSSIA": army},
                               "centres": {"RUSSIA": ["STP", "MOS", "SEV", "WAR", "RUM", "SWE"]}})
        read = read_order_lines(V, pos, "RUSSIA", list(listing))
        assert {x["text"]: x["error"] for x in read} == {
            "BUILD F STP/NC": reason, "BUILD F STP/SC": reason, "BUILD A MOS": None}


def test_two_fleets_built_on_one_coast_of_stp_make_a_2f() -> None:
    out = play({}, [("RUSSIA", "BUILD F STP/SC"), ("RUSSIA", "BUILD F STP/SC")],
               phase="W1901A", centres={"RUSSIA": ["STP", "MOS", "SEV"]})
    assert units(out)["RUSSIA"] == ["2F STP/SC"]


def test_retreats_onto_both_coasts_of_one_province_are_rivals_in_any_order() -> None:
    """Rule 8 counts a province, not a coast: two fleets retreating to SPA/NC and SPA/SC
    stand off (equal) or the stronger gets there, whatever the order of the lines."""
    def retreat(sizes: tuple[str, str], listing: list[str]) -> Outcome:
        return play({}, [("FRANCE", t) for t in listing], phase="S1901R", dislodged={
            "FRANCE": [{"unit": f"{sizes[0]} POR", "attacker_from": "MAO",
                        "retreats": ["SPA/NC", "SPA/SC"]},
                       {"unit": f"{sizes[1]} WES", "attacker_from": "NAF",
                        "retreats": ["SPA/SC"]}]})
    for sizes, after in ((("F", "F"), {}), (("2F", "F"), {"FRANCE": ["2F SPA/NC"]}),
                         (("F", "2F"), {"FRANCE": ["2F SPA/SC"]})):
        lines = [f"{sizes[0]} POR R SPA/NC", f"{sizes[1]} WES R SPA/SC"]
        for listing in (lines, lines[::-1]):
            assert units(retreat(sizes, listing)) == after, (sizes, listing)


def test_one_centre_per_component_and_removals_of_components() -> None:
    out = play({"FRANCE": ["3A PAR"]}, [("FRANCE", "REMOVE A PAR")], phase="W1901A",
               centres={"FRANCE": ["PAR", "MAR"]})
    assert out.results[0].result == SUCCEEDS
    assert units(out)["FRANCE"] == ["2A PAR"]


def test_civil_disorder_removes_components() -> None:
    out = play({"FRANCE": ["3A PAR"]}, [], phase="W1901A", centres={"FRANCE": ["PAR"]})
    assert units(out)["FRANCE"] == ["A PAR"]


def test_initial_placement_is_a_choice_of_army_or_fleet() -> None:
    start = V.initial_position()
    assert str(start.phase) == "W1900A" and not start.units
    assert V.adjustment_count(start, "RUSSIA") == 4
    out = V.adjudicate_lines(start, [("RUSSIA", "BUILD F STP/SC"), ("RUSSIA", "BUILD A MOS"),
                                     ("RUSSIA", "BUILD A WAR"), ("RUSSIA", "BUILD F SEV"),
                                     ("FRANCE", "BUILD A PAR"), ("FRANCE", "BUILD A PAR")])
    assert verdicts(out) [:5] == [SUCCEEDS] * 5
    assert out.results[5].result == FAILS  # rule 1: one unit per home centre at the start
    assert "F STP/SC" in units(out)["RUSSIA"]
    assert str(out.position.phase) == "S1901M"


# ------------------------------------------------------ rule 2/4: split supports, cutting
def test_support_cutting_example_2a_par_3a_pic() -> None:
    out = play({"FRANCE": ["2A PAR", "A BUR"], "ENGLAND": ["3A PIC", "A BRE"]},
               [("FRANCE", "2A(Par) S A(Bur)-Pic"), ("FRANCE", "A BUR - PIC"),
                ("ENGLAND", "3A(Pic) S A(Bre)-Par"), ("ENGLAND", "A(Bre)-Par")])
    assert out.results[3].result == SUCCEEDS
    assert out.results[2].reason == "cut to 2 of 3"
    assert dislodged(out) == {"FRANCE": ["2A PAR"]}


def test_merge_does_not_cut_support_against_its_own_space() -> None:
    out = play({"GERMANY": ["A MUN", "A BUR"], "FRANCE": ["2A RUH", "A PIC"]},
               [("GERMANY", "A(Mun) & A(Bur) MERGE 2A(Ruh)"), ("FRANCE", "2A(Ruh) S A(Pic)-Bur"),
                ("FRANCE", "A PIC - BUR")])
    assert out.results[1].reason == "cut to 1 of 2"
    assert dislodged(out) == {"GERMANY": ["A BUR"]}


def test_support_is_cut_up_to_the_strongest_attack_not_the_total() -> None:
    # Two single attacks on the 3A cut one support only: the move it supports succeeds.
    out = play({"FRANCE": ["3A BUR", "A PAR"], "GERMANY": ["A MUN", "A RUH", "2A PIC"]},
               [("FRANCE", "3A BUR S A PAR - PIC"), ("FRANCE", "A PAR - PIC"),
                ("GERMANY", "A MUN - BUR"), ("GERMANY", "A RUH - BUR")])
    assert out.results[0].reason == "cut to 2 of 3"
    assert out.results[1].result == SUCCEEDS


def test_distributed_supports_last_written_is_cut_first() -> None:
    pos = {"FRANCE": ["2A BUR", "A PAR", "A MAR"], "GERMANY": ["A MUN", "A PIC", "A GAS"],
           "ITALY": ["A PIE"]}
    orders = [("FRANCE", "2A BUR SPLIT A BUR S A PAR - PIC, A BUR S A MAR - GAS"),
              ("FRANCE", "A PAR - PIC"), ("FRANCE", "A MAR - GAS"), ("GERMANY", "A MUN - BUR")]
    out = play(pos, orders)
    assert verdicts(out, 3) == [FAILS, SUCCEEDS, FAILS]
    swapped = play(pos, [("FRANCE", "2A BUR SPLIT A BUR S A MAR - GAS, A BUR S A PAR - PIC"),
                         *orders[1:]])
    assert verdicts(swapped, 3) == [FAILS, FAILS, SUCCEEDS]


def test_support_need_not_use_full_strength() -> None:
    out = play({"FRANCE": ["2A BUR", "A PAR"], "GERMANY": ["2A PIC"]},
               [("FRANCE", "2A BUR SPLIT A BUR S A PAR - PIC, A BUR H"), ("FRANCE", "A PAR - PIC")])
    assert out.results[1].result == FAILS  # 1 + 1 against a 2A holding


# ----------------------------------------------------------- rule 5: A/F units
def test_seaworthiness_of_moves_into_the_sea() -> None:
    pos = V.read_position({"phase": "S1901M", "units": {"FRANCE": ["2A/F BRE", "A/2F GAS"]}})
    with pytest.raises(OrderError, match="seaworthy"):
        V.read_order(pos, "FRANCE", "2A/F BRE - MAO")
    assert str(V.read_order(pos, "FRANCE", "A/2F GAS - MAO")) == "A/2F GAS - MAO"
    with pytest.raises(OrderError, match="inland"):
        V.read_order(pos, "FRANCE", "2A/F BRE - PAR")


def test_af_created_at_sea_army_does_not_support_the_merge() -> None:
    ok = play({"ENGLAND": ["A LON", "F MAO"]}, [("ENGLAND", "A(Lon) & F(MAO) MERGE A/F(ENG)")])
    assert units(ok)["ENGLAND"] == ["A/F ENG"]
    contested = play({"ENGLAND": ["A LON", "F MAO"], "FRANCE": ["F BRE"]},
                     [("ENGLAND", "A(Lon) & F(MAO) MERGE A/F(ENG)"), ("FRANCE", "F BRE - ENG")])
    assert verdicts(contested, 2) == [FAILS, FAILS]  # 1 against 1: the army adds nothing
    bad = play({"ENGLAND": ["2A LON", "F MAO"]}, [("ENGLAND", "2A LON & F MAO MERGE ENG")])
    assert bad.results[0].result == FAILS and "seaworthy" in bad.results[0].reason


def test_af_in_a_multiple_coast_space_occupies_a_coast() -> None:
    out = play({"FRANCE": ["A/F MAO"]}, [("FRANCE", "A/F MAO - SPA/NC")])
    assert units(out)["FRANCE"] == ["A/F SPA/NC"]


# ----------------------------------------------------------------- rule 6: convoys
def test_af_convoys_a_2a_when_seaworthy() -> None:
    out = play({"ENGLAND": ["A/3F ENG", "2A LON"]},
               [("ENGLAND", "A/3F ENG C 2A LON - PIC"), ("ENGLAND", "2A LON - PIC")])
    assert verdicts(out, 2) == [SUCCEEDS, SUCCEEDS]
    assert "2A PIC" in units(out)["ENGLAND"]
    pos = V.read_position({"phase": "S1901M", "units": {"ENGLAND": ["A/F ENG", "2A LON"]}})
    with pytest.raises(OrderError, match="seaworthy"):
        V.read_order(pos, "ENGLAND", "A/F ENG C 2A LON - PIC")


def test_only_all_army_units_are_convoyed() -> None:
    pos = V.read_position({"phase": "S1901M", "units": {"ENGLAND": ["3F ENG", "A/F LON"]}})
    with pytest.raises(OrderError, match="only armies"):
        V.read_order(pos, "ENGLAND", "3F ENG C A/F LON - PIC")


# ---------------------------------------------------------------- rule 7: splitting
def test_split_example() -> None:
    out = play({"FRANCE": ["4A PAR"]}, [("FRANCE", "4A(Par) SPLIT A(Pic), 2A(Bur), A(Gas)")])
    assert out.results[0].result == SUCCEEDS
    assert out.results[0].order == "4A PAR SPLIT A PIC, 2A BUR, A GAS"
    assert units(out)["FRANCE"] == ["2A BUR", "A GAS", "A PIC"]


def test_split_parts_to_the_same_space_merge_instead_of_standing_off() -> None:
    out = play({"FRANCE": ["3A PAR"]}, [("FRANCE", "3A PAR SPLIT A BUR, A BUR")])
    assert units(out)["FRANCE"] == ["2A BUR", "A PAR"]


def test_split_and_merge_in_one_move() -> None:
    out = play({"FRANCE": ["2A PAR", "A MAR"], "GERMANY": ["A MUN"]},
               [("FRANCE", "2A PAR SPLIT A BUR, A PIC"), ("FRANCE", "A MAR & A PAR MERGE BUR"),
                ("GERMANY", "A MUN - BUR")])
    # The MERGE names the whole 2A in Paris, and is the later order: it replaces the split.
    assert out.results[0].result == FAILS
    out = play({"FRANCE": ["2A PAR", "A MAR", "A GAS"], "GERMANY": ["A MUN"]},
               [("FRANCE", "2A PAR SPLIT A BUR, A PIC"), ("FRANCE", "A MAR & A GAS MERGE BUR"),
                ("GERMANY", "A MUN - BUR")])
    assert units(out)["FRANCE"] == ["3A BUR", "A PIC"]


def test_split_legal_and_illegal_support_forms() -> None:
    legal = play({"FRANCE": ["2A MAR", "F MAO"], "ENGLAND": ["A GAS"]},
                 [("FRANCE", "F(MAO) - GAS"), ("FRANCE", "2A(Mar) SPLIT A(Pie), A(Mar) s F(MAO) - GAS")])
    assert verdicts(legal, 2) == [SUCCEEDS, SUCCEEDS]
    assert dislodged(legal) == {"ENGLAND": ["A GAS"]}
    illegal = play({"FRANCE": ["2A MAR", "F MAO"]},
                   [("FRANCE", "2A(Mar) SPLIT A(Pie), A(Mar) s A(Mar) - (Pie)")])
    assert illegal.results[0].result in (FAILS, INVALID)
    assert "its own parts" in illegal.results[0].reason


def test_failed_split_component_counts_as_never_split() -> None:
    pos = {"FRANCE": ["3A PAR"], "GERMANY": ["2A BUR"], "ENGLAND": ["2A PIC", "A BRE"]}
    attack = [("ENGLAND", "2A PIC - PAR"), ("ENGLAND", "A BRE S 2A PIC - PAR")]
    out = play(pos, [("FRANCE", "3A PAR SPLIT A BUR, 2A PAR H"), *attack])
    assert out.results[0].result == FAILS
    assert out.results[1].result == FAILS  # 3 against the whole 3A: holds
    moved = play({**pos, "GERMANY": []}, [("FRANCE", "3A PAR SPLIT A BUR, 2A PAR H"), *attack])
    assert moved.results[1].result == SUCCEEDS  # 3 against the 2A left behind


def test_split_at_sea_must_leave_a_seaworthy_unit() -> None:
    pos = V.read_position({"phase": "S1901M", "units": {"ENGLAND": ["A/F ENG"]}})
    with pytest.raises(OrderError, match="seaworthy"):
        V.read_order(pos, "ENGLAND", "A/F ENG SPLIT F LON")
    free = play({"ENGLAND": ["A/F ENG"]}, [("ENGLAND", "A/F ENG SPLIT A PIC, F LON")])
    assert free.results[0].result == SUCCEEDS
    assert units(free)["ENGLAND"] == ["F LON", "A PIC"]
    blocked = play({"ENGLAND": ["A/F ENG"], "FRANCE": ["A PIC"]},
                   [("ENGLAND", "A/F ENG SPLIT A PIC, F LON")])
    # The army bounces; the fleet's split would leave it alone at sea, so both fail.
    assert blocked.results[0].result == FAILS
    assert units(blocked)["ENGLAND"] == ["A/F ENG"]


def test_seaworthy_af_splits_an_army_ashore_and_stays_seaworthy() -> None:
    out = play({"ENGLAND": ["A/2F ENG"], "FRANCE": ["A PIC"]},
               [("ENGLAND", "A/2F ENG SPLIT A PIC, F LON")])
    # The army bounces, and A/F is seaworthy: the fleet goes.
    assert units(out)["ENGLAND"] == ["A/F ENG", "F LON"]


# --------------------------------------------------------------- rule 8: retreats
def _retreat_position(a: str, b: str) -> dict:
    return {"variant": "multiplicity", "phase": "S1901R", "units": {"GERMANY": ["A BUR"]},
            "centres": {},
            "dislodged": {"FRANCE": [{"unit": a, "attacker_from": "BUR", "retreats": ["PIC", "GAS"]}],
                          "ENGLAND": [{"unit": b, "attacker_from": "BUR", "retreats": ["PIC"]}]}}


def test_stronger_retreat_wins() -> None:
    data = _retreat_position("A PAR", "2A BEL")
    data["dislodged"]["FRANCE"][0]["unit"] = "A PAR"
    pos = V.read_position(data)
    out = V.adjudicate_lines(pos, [("FRANCE", "A PAR R PIC"), ("ENGLAND", "2A BEL R PIC")])
    assert verdicts(out, 2) == [FAILS, SUCCEEDS]
    assert V.write_position(out.position)["units"]["ENGLAND"] == ["2A PIC"]


def test_equal_retreats_both_disband() -> None:
    pos = V.read_position(_retreat_position("2A PAR", "2A BEL"))
    out = V.adjudicate_lines(pos, [("FRANCE", "2A PAR R PIC"), ("ENGLAND", "2A BEL R PIC")])
    assert verdicts(out, 2) == [FAILS, FAILS]
    assert "ENGLAND" not in V.write_position(out.position)["units"]


def test_no_merge_or_split_in_retreats() -> None:
    pos = V.read_position(_retreat_position("2A PAR", "A BEL"))
    out = V.adjudicate_lines(pos, [("FRANCE", "2A PAR SPLIT A PIC, A GAS")])
    assert out.results[0].result in (FAILS, INVALID)


# --------------------------------------------------------------------- contract
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def test_judge_adjudicate_multiplicity_through_the_cli(tmp_path: Path) -> None:
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"variant": "multiplicity", "phase": "S1901M",
                               "units": {"FRANCE": ["A MAR", "A PIC"], "GERMANY": ["A MUN"]},
                               "centres": {"FRANCE": ["MAR"]}}))
    orders = tmp_path / "o.txt"
    orders.write_text("FRANCE:\nA(Mar) & A(Pic) MERGE 2A(Bur)\nGERMANY:\nA MUN - BUR\n")
    out = subprocess.run([JUDGE, "adjudicate", "--variant", "multiplicity", "--position",
                          str(pos), "--orders", str(orders), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [r["result"] for r in data["results"]] == [SUCCEEDS, FAILS]
    assert data["position"]["units"]["FRANCE"] == ["2A BUR"]
    assert data["position"]["phase"] == "F1901M"


def test_several_support_orders_spread_a_unit_and_the_last_is_cut_first() -> None:
    pos = {"FRANCE": ["2A BUR", "A PAR", "A MAR"], "GERMANY": ["A MUN", "A PIC", "A GAS"]}
    orders = [("FRANCE", "A BUR S A PAR - PIC"), ("FRANCE", "A BUR S A MAR - GAS"),
              ("FRANCE", "A PAR - PIC"), ("FRANCE", "A MAR - GAS"), ("GERMANY", "A MUN - BUR")]
    out = play(pos, orders)
    assert [r.order for r in out.results[:2]] == ["A BUR S A PAR - PIC", "A BUR S A MAR - GAS"]
    assert verdicts(out, 4) == [SUCCEEDS, FAILS, SUCCEEDS, FAILS]
    no_attack = play(pos, orders[:4])
    assert verdicts(no_attack, 4) == [SUCCEEDS] * 4


def test_support_with_part_of_a_unit_the_rest_holds() -> None:
    pos = {"FRANCE": ["3A BUR", "A PAR"], "GERMANY": ["3A PIC"]}
    part = play(pos, [("FRANCE", "2A BUR S A PAR - PIC"), ("FRANCE", "A PAR - PIC")])
    assert part.results[1].result == FAILS  # 1 + 2 against 3
    whole = play(pos, [("FRANCE", "A BUR S A PAR - PIC"), ("FRANCE", "A PAR - PIC")])
    assert whole.results[1].result == SUCCEEDS  # a lone order with a bare letter: all 3
    too_many = play(pos, [("FRANCE", "4A BUR S A PAR - PIC")])
    assert too_many.results[0].result == FAILS


def test_order_lines_may_start_with_the_power() -> None:
    pos = V.read_position({"phase": "S1901M", "units": {"FRANCE": ["A MAR", "A PIC", "2A PAR"]}})
    assert str(V.read_order(pos, "FRANCE", "France: A(Mar) & A(Pic) MERGE 2A(Bur)")) == \
        "A MAR & A PIC MERGE 2A BUR"
    assert str(V.read_order(pos, "FRANCE", "FRA: 2A PAR SPLIT A BUR, A GAS")) == \
        "2A PAR SPLIT A BUR, A GAS"
    with pytest.raises(OrderError):
        V.read_order(pos, "FRANCE", "France: A MAR & A PIC MERGE 2A(Bur) please")


def test_centre_report_counts_components() -> None:
    pos = V.read_position({"phase": "W1901A", "units": {"FRANCE": ["3A PAR", "A/F BRE"]},
                           "centres": {"FRANCE": ["PAR", "BRE", "MAR", "SPA"]}})
    assert V.rules.centre_report(pos) == ["FRANCE: 4 centres, 5 units, removes 1"]


def test_mixed_unit_supports_by_land_through_its_army() -> None:
    pos = {"FRANCE": ["A/F BRE", "A PIC"], "GERMANY": ["A PAR"]}
    with_whole = play(pos, [("FRANCE", "A/F BRE S A PIC - PAR"), ("FRANCE", "A PIC - PAR")])
    assert with_whole.results[0].result == FAILS  # the fleet cannot reach Paris
    split = play(pos, [("FRANCE", "A/F BRE SPLIT A BRE S A PIC - PAR, F BRE H"),
                       ("FRANCE", "A PIC - PAR")])
    assert verdicts(split, 2) == [SUCCEEDS, SUCCEEDS]


@pytest.mark.parametrize(("text", "canonical"), [
    ("A MAR and A PIC merge into BUR", "A MAR & A PIC MERGE BUR"),
    ("A(Mar) & A(Pic) MERGE 2A(Bur)", "A MAR & A PIC MERGE 2A BUR"),
    ("Army Marseilles + Army Picardy merge Burgundy", "A MAR & A PIC MERGE BUR"),
    ("A PAR supports the merge in Burgundy", "A PAR S MERGE BUR"),
    ("A(Par) S MERGE (Bur)", "A PAR S MERGE BUR"),
    ("4A PAR split into A PIC; 2A BUR; A GAS", "4A PAR SPLIT A PIC, 2A BUR, A GAS"),
    ("2A(Mar) SPLIT A(Pie), A(Mar) s F(MAO) - GAS", "2A MAR SPLIT A PIE, A MAR S F MAO - GAS"),
    ("A/2F MAO - SPA/NC", "A/2F MAO - SPA/NC"),
    ("A/3F ENG C 2A LON - PIC", "A/3F ENG C 2A LON - PIC"),
    ("F/A ENG H", "A/F ENG H"),
])
def test_reading_multiplicity_orders(text: str, canonical: str) -> None:
    from judge.variants.multiplicity.orders import parse_multi_order

    assert str(parse_multi_order(V.board, text, "M")) == canonical


@pytest.mark.parametrize(("text", "message"), [
    ("A MAR MERGE BUR", "two or more units"),
    ("2A PAR SPLIT", "no parts"),
    ("A MAR & A PIC MERGE", "no place"),
    ("2A PAR SPLIT PIC", "names no unit"),
])
def test_unreadable_multiplicity_orders(text: str, message: str) -> None:
    from judge.engine.errors import OrderSyntaxError
    from judge.variants.multiplicity.orders import parse_multi_order

    with pytest.raises(OrderSyntaxError, match=message):
        parse_multi_order(V.board, text, "M")


@pytest.mark.parametrize("units", [{"FRANCE": ["3X PAR"]}, {"FRANCE": "A PAR"},
                                   {"FRANCE": ["2A ATLANTIS"]}])
def test_cli_refuses_unreadable_positions(tmp_path: Path, units: dict) -> None:
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"variant": "multiplicity", "phase": "S1901M", "units": units}))
    orders = tmp_path / "o.txt"
    orders.write_text("FRANCE:\nA PAR H\n")
    out = subprocess.run([JUDGE, "adjudicate", "--variant", "multiplicity", "--position",
                          str(pos), "--orders", str(orders), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stdout == "" and len(out.stderr.strip().splitlines()) == 1
