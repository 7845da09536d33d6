"""The sixteen worked examples of the Stack 'em rules, each asserting the stated result.

Each test plays the example's orders as written in the rules (``2A BUR-MUN``, ``F SPA(N)-MAO``,
``ECH``) and checks who moves, who is dislodged and which supports are cut. Where the example
does not say where the units start, they start where the orders put them, one unit per order
(``A PAR-BUR, A PAR S A PAR-BUR`` means two armies in Paris).
"""

from __future__ import annotations

from test_stackem_common import dislodged, play, result, stacks, units

from judge.engine.variant import FAILS, SUCCEEDS


def test_example_1_stacked_moves_are_unsupported_and_stood_off_by_one_unit() -> None:
    out = play({"FRANCE": ["2A BUR"], "GERMANY": ["A MUN"]},
               {"FRANCE": ["2A BUR-MUN"], "GERMANY": ["A MUN HOLD"]})
    assert units(out.position) == stacks(FRANCE=["2A BUR"], GERMANY=["A MUN"])
    assert not dislodged(out)
    assert result(out, 0)[0] == FAILS


def test_example_2_support_from_the_same_space_dislodges() -> None:
    out = play({"FRANCE": ["2A BUR"], "GERMANY": ["A MUN"]},
               {"FRANCE": ["A BUR-MUN", "A BUR S A BUR-MUN"], "GERMANY": ["A MUN HOLD"]})
    assert units(out.position) == stacks(FRANCE=["A MUN", "A BUR"])
    assert dislodged(out) == {"GERMANY A MUN": 1}
    assert result(out, 0)[0] == SUCCEEDS
    assert result(out, 1)[0] == SUCCEEDS  # the supporting army stays behind, its support given


def test_example_3_each_move_must_beat_foreign_opposition_alone() -> None:
    out = play({"FRANCE": ["2A PAR", "A MAR"], "GERMANY": ["A MUN"]},
               {"FRANCE": ["A PAR-BUR", "A PAR S A PAR-BUR", "A MAR-BUR"],
                "GERMANY": ["A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A BUR", "A PAR", "A MAR"], GERMANY=["A MUN"])
    assert [r.result for r in out.results] == [SUCCEEDS, SUCCEEDS, FAILS, FAILS]
    assert not dislodged(out)


def test_example_4_the_unsupported_one_of_two_is_stood_off() -> None:
    out = play({"FRANCE": ["3A PAR"], "GERMANY": ["A MUN"]},
               {"FRANCE": ["2A PAR-BUR", "A PAR S A PAR-BUR"], "GERMANY": ["A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A BUR", "2A PAR"], GERMANY=["A MUN"])
    assert "1 of 2 succeeded" in result(out, 0)[1]
    assert result(out, 2)[0] == FAILS


def test_example_5_retreat_only_to_an_uncontested_own_space() -> None:
    out = play({"FRANCE": ["A BUR", "A RUH", "A BEL"], "GERMANY": ["A HOL", "A KIE", "A MUN"]},
               {"FRANCE": ["A BUR-MUN", "A RUH S A BUR-MUN", "A BEL-RUH"],
                "GERMANY": ["A HOL-RUH", "A KIE S A HOL-RUH", "A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A BUR", "A BEL"],
                                         GERMANY=["A RUH", "A KIE", "A MUN"])
    assert [r.result for r in out.results] == [FAILS, FAILS, FAILS, SUCCEEDS, SUCCEEDS, FAILS]
    assert result(out, 1) == (FAILS, "dislodged")
    (d,) = out.position.dislodged
    assert str(d.unit) == "A RUH" and d.attacker_from == "HOL"
    # Belgium holds a French army and nobody moved there; Burgundy is French too, but the
    # army in Munich tried to go there.
    assert d.retreats == ("BEL",)


def test_example_6_support_into_its_own_space_is_not_cut() -> None:
    out = play({"FRANCE": ["A PAR", "A BUR"], "GERMANY": ["A MUN", "A RUH"]},
               {"FRANCE": ["A PAR-BUR", "A BUR S A PAR-BUR"],
                "GERMANY": ["A MUN-BUR", "A RUH-BUR"]})
    assert units(out.position) == stacks(FRANCE=["2A BUR"], GERMANY=["A MUN", "A RUH"])
    assert result(out, 1) == (SUCCEEDS, "")
    assert not dislodged(out)


def test_example_7_supported_attack_balances_it() -> None:
    out = play({"FRANCE": ["A PAR", "A BUR"], "GERMANY": ["A MUN", "A RUH"]},
               {"FRANCE": ["A PAR-BUR", "A BUR S A PAR-BUR"],
                "GERMANY": ["A MUN-BUR", "A RUH S A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A PAR", "A BUR"], GERMANY=["A MUN", "A RUH"])
    assert result(out, 0)[0] == FAILS and result(out, 2)[0] == FAILS
    assert not dislodged(out)


def test_example_8_doubly_supported_attack_dislodges_the_supporter() -> None:
    out = play({"FRANCE": ["A PAR", "A BUR"], "GERMANY": ["A MUN", "4A RUH"]},
               {"FRANCE": ["A PAR-BUR", "A BUR S A PAR-BUR"],
                "GERMANY": ["A MUN-BUR", "2A RUH S A MUN-BUR", "A RUH-BUR",
                            "A RUH S A RUH-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A PAR"], GERMANY=["A BUR", "4A RUH"])
    assert dislodged(out) == {"FRANCE A BUR": 1}
    assert out.position.dislodged[0].attacker_from == "MUN"
    assert result(out, 2) == (SUCCEEDS, "")
    assert result(out, 4)[0] == FAILS  # no army in Ruhr advances


def test_example_9_ambiguous_support_is_void() -> None:
    out = play({"FRANCE": ["F SPA/NC", "F SPA/SC", "F WES"], "ENGLAND": ["F ENG"]},
               {"FRANCE": ["F SPA(N)-MAO", "F SPA(S)-MAO", "F WMS S SPA-MAO"],
                "ENGLAND": ["F ECH-MAO"]})
    assert units(out.position) == stacks(FRANCE=["F SPA/NC", "F SPA/SC", "F WES"],
                                         ENGLAND=["F ENG"])
    verdict, reason = result(out, 2)
    assert verdict == FAILS and "void" in reason and "coast" in reason
    assert all(r.result == FAILS for k, r in enumerate(out.results) if k != 2)


def test_example_10_uncounted_supports_go_to_one_unit() -> None:
    out = play({"FRANCE": ["2A PAR", "2A MAR"], "GERMANY": ["A MUN"]},
               {"FRANCE": ["2A PAR-BUR", "2A MAR S A PAR-BUR"], "GERMANY": ["A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A BUR", "A PAR", "2A MAR"],
                                         GERMANY=["A MUN"])
    assert result(out, 2)[0] == FAILS


def test_example_11_counted_supports_are_shared_out() -> None:
    out = play({"FRANCE": ["2A PAR", "2A MAR"], "GERMANY": ["A MUN"]},
               {"FRANCE": ["2A PAR-BUR", "2A MAR S 2A PAR-BUR"], "GERMANY": ["A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["2A BUR", "2A MAR"], GERMANY=["A MUN"])
    assert result(out, 0) == (SUCCEEDS, "")
    assert out.results[1].order == "2A MAR S 2A PAR - BUR"


def test_example_12_one_support_each_is_matched_by_one_support() -> None:
    out = play({"FRANCE": ["2A PAR", "2A MAR"], "GERMANY": ["A MUN", "A RUH"]},
               {"FRANCE": ["2A PAR-BUR", "2A MAR S 2A PAR-BUR"],
                "GERMANY": ["A MUN-BUR", "A RUH S A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["2A PAR", "2A MAR"], GERMANY=["A MUN", "A RUH"])
    assert result(out, 0)[0] == FAILS and result(out, 2)[0] == FAILS


def test_example_13_both_supports_on_one_unit_overcome_one_support() -> None:
    out = play({"FRANCE": ["2A PAR", "2A MAR"], "GERMANY": ["A MUN", "A RUH"]},
               {"FRANCE": ["2A PAR-BUR", "2A MAR S A PAR-BUR"],
                "GERMANY": ["A MUN-BUR", "A RUH S A MUN-BUR"]})
    assert units(out.position) == stacks(FRANCE=["A BUR", "A PAR", "2A MAR"],
                                         GERMANY=["A MUN", "A RUH"])
    assert result(out, 2)[0] == FAILS


NORTH = {"ENGLAND": ["2F NWG", "F NTH", "F LON"], "GERMANY": ["F DEN"], "RUSSIA": ["F BAR"]}
ENGLISH = ["F NWG S NTH-NWY", "F NWG S LON-NTH", "F NTH-NWY", "F LON-NTH"]


def test_example_14_one_attacker_cuts_the_support_written_first() -> None:
    out = play({**NORTH, "RUSSIA": ["F BAR", "A NWY"]},
               {"ENGLAND": ENGLISH, "GERMANY": ["F DEN-NTH"],
                "RUSSIA": ["F BAR-NWG", "A NWY HOLD"]})
    assert units(out.position) == stacks(ENGLAND=["2F NWG", "2F NTH"], GERMANY=["F DEN"],
                                         RUSSIA=["F BAR", "A NWY"])
    assert result(out, 0) == (FAILS, "cut")  # S NTH-NWY, written first
    assert result(out, 1) == (SUCCEEDS, "")  # S LON-NTH stands
    assert result(out, 3) == (SUCCEEDS, "")
    assert not dislodged(out)


def test_example_15_two_attackers_cut_both_supports() -> None:
    out = play({**NORTH, "RUSSIA": ["F BAR", "F NWY"]},
               {"ENGLAND": ENGLISH, "GERMANY": ["F DEN-NTH"],
                "RUSSIA": ["F BAR-NWG", "F NWY-NWG"]})
    assert units(out.position) == stacks(ENGLAND=["2F NWG", "F NTH", "F LON"],
                                         GERMANY=["F DEN"], RUSSIA=["F BAR", "F NWY"])
    assert result(out, 0) == (FAILS, "cut")
    assert result(out, 1) == (FAILS, "cut")
    assert all(r.result == FAILS for k, r in enumerate(out.results) if k > 1)
    assert not dislodged(out)


def test_example_16_supported_attack_does_not_dislodge_two_units() -> None:
    out = play({**NORTH, "RUSSIA": ["F BAR", "F NWY"]},
               {"ENGLAND": ENGLISH, "GERMANY": ["F DEN-NTH"],
                "RUSSIA": ["F BAR S F NWY-NWG", "F NWY-NWG"]})
    assert units(out.position) == stacks(ENGLAND=["2F NWG", "F NWY", "F LON"],
                                         GERMANY=["F DEN"], RUSSIA=["F BAR"])
    assert dislodged(out) == {"RUSSIA F NWY": 1}
    assert result(out, 0) == (SUCCEEDS, "")  # S NTH-NWY: Norway may not cut it
    assert result(out, 1) == (FAILS, "cut")  # S LON-NTH: cut by the fleet in Norway
    assert result(out, 5) == (SUCCEEDS, "")  # the Russian support is given ...
    assert result(out, 6)[0] == FAILS  # ... and still not enough for two fleets
