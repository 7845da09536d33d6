"""Dipnomicy's rule catalogue: each of the seed's P1-P6 enacted by a vote, then a turn showing the
rule working, and the same turn without it showing the difference."""

from __future__ import annotations

import pytest

from judge.engine.position import Phase, Position
from judge.engine.variant import Outcome
from judge.variants import get_variant
from judge.variants.dipnomicy.orders import parse_unit
from judge.variants.dipnomicy.proposals import Proposal, Vote, close_vote, voters_of
from judge.variants.dipnomicy.report import move_report, phase_report, seed_proposals
from judge.variants.dipnomicy.rules import RULES, move_deadline_days, phase_days

VARIANT = get_variant("dipnomicy")
STANDARD = get_variant("standard")
SEED = {p.title.split(" (")[0]: p for p in seed_proposals()}


def setup(units: dict[str, list[str]], phase: str = "S1901M") -> Position:
    position = RULES.initial_position()
    position.units = [parse_unit(p, u) for p, us in units.items() for u in us]
    position.phase = Phase.parse(phase)
    return position


def enact(position: Position, *titles: str) -> Position:
    """Every country votes for the seed's proposals ``titles``; the position under the new
    rules."""
    proposals = [SEED[t] for t in titles]
    votes = [Vote(power, f"P{k + 1}", "FOR")
             for k in range(len(proposals)) for power in voters_of(position)]
    result, nxt = close_vote(position, proposals, votes)
    assert all(r.took_effect for r in result.results)
    return nxt


def play(position: Position, orders: dict[str, list[str]]) -> Outcome:
    return VARIANT.adjudicate_lines(position, [(p, line) for p, ls in orders.items() for line in ls])


def units(position: Position) -> dict[str, list[str]]:
    return VARIANT.write_position(position)["units"]


def results(outcome: Outcome) -> list[tuple[str, str]]:
    return [(r.order, r.result) for r in outcome.results]


# --------------------------------------------------------------------------- base game
def test_base_game_has_no_support_and_no_beating_out() -> None:
    base = setup({"AUSTRIA": ["A BUD", "A VIE"], "RUSSIA": ["A GAL", "A UKR"]})
    out = play(base, {"AUSTRIA": ["A Bud -- Gal", "A Vie -- Gal"], "RUSSIA": ["A Ukr -- Gal"]})
    assert [r for _, r in results(out)] == ["fails", "fails", "fails", "succeeds"]
    assert out.position.phase == Phase.parse("F1901M") and not out.dislodged
    # Circles succeed (rule 21), exchanges fail (rule 20).
    ring = setup({"AUSTRIA": ["A BUD", "A VIE", "A GAL"], "RUSSIA": ["A WAR", "A SIL"]})
    out = play(ring, {"AUSTRIA": ["A Bud -- Vie", "A Vie -- Gal", "A Gal -- Bud"],
                      "RUSSIA": ["A War -- Sil", "A Sil -- War"]})
    assert [r for _, r in results(out)] == ["succeeds"] * 3 + ["fails"] * 2


def test_convoys_are_a_base_rule_and_go_with_their_rule() -> None:
    position = setup({"ENGLAND": ["A LON", "F NTH"]})
    orders = {"ENGLAND": ["A Lon -- Nwy", "F NTH C A Lon -- Nwy"]}
    assert units(play(position, orders).position)["ENGLAND"] == ["F NTH", "A NWY"]
    repeal = Proposal("FRANCE", "No convoys", action="repeal", rule=17)
    votes = [Vote(p, "P1", "FOR") for p in voters_of(position)]
    _, without = close_vote(position, [repeal], votes)
    out = play(without, orders)
    assert units(out.position)["ENGLAND"] == ["A LON", "F NTH"]
    assert "convoys are not in the rules" in out.results[0].reason


# ------------------------------------------------------------------ P1 support actions
P1_UNITS = {"AUSTRIA": ["A BUD", "A VIE"], "RUSSIA": ["A GAL"], "GERMANY": ["A BOH"]}
P1_ORDERS = {"AUSTRIA": ["A Bud -- Gal", "A Vie S A Bud -- Gal"], "GERMANY": ["A Boh -- Vie"],
             "RUSSIA": ["A Gal H"]}


def test_p1_support_beats_out_and_is_never_cut() -> None:
    position = enact(setup(P1_UNITS), "Support actions")
    out = play(position, P1_ORDERS)
    assert results(out)[:3] == [("A BUD - GAL", "succeeds"), ("A VIE S A BUD - GAL", "succeeds"),
                                ("A BOH - VIE", "fails")]
    assert [str(d.unit) for d in out.dislodged] == ["A GAL"]
    assert out.position.phase == Phase.parse("S1901R")
    # Standard Diplomacy cuts the support, so there the attack fails: P1 has no cutting.
    standard = STANDARD.adjudicate_lines(
        STANDARD.read_position(VARIANT.write_position(setup(P1_UNITS))),
        [(p, line.replace("--", "-")) for p, ls in P1_ORDERS.items() for line in ls])
    assert standard.results[0].result == "fails" and standard.results[1].reason == "cut"


def test_p1_without_the_rule_support_is_refused() -> None:
    out = play(setup(P1_UNITS), P1_ORDERS)
    assert out.results[0].result == "fails" and out.results[0].reason == "bounced"
    assert "support actions are not in the rules" in out.results[1].reason
    assert not out.dislodged and out.position.phase == Phase.parse("F1901M")


def test_p1_a_tie_on_a_hold_goes_to_the_defender() -> None:
    position = enact(setup({"AUSTRIA": ["A BUD", "A VIE"], "RUSSIA": ["A GAL", "A UKR"]}),
                     "Support actions")
    out = play(position, {"AUSTRIA": ["A Bud -- Gal", "A Vie S A Bud -- Gal"],
                          "RUSSIA": ["A Gal H", "A Ukr S A Gal"]})
    assert out.results[0].result == "fails" and not out.dislodged
    # One more unit involved on the attacking side wins.
    three = enact(setup({"AUSTRIA": ["A BUD", "A VIE", "A RUM"], "RUSSIA": ["A GAL", "A UKR"]}),
                  "Support actions")
    out = play(three, {"AUSTRIA": ["A Bud -- Gal", "A Vie S A Bud -- Gal", "A Rum S A Bud -- Gal"],
                       "RUSSIA": ["A Gal H", "A Ukr S A Gal"]})
    assert out.results[0].result == "succeeds" and [str(d.unit) for d in out.dislodged] == ["A GAL"]


def test_p1_beaten_out_units_must_be_moved_away_in_the_set_period() -> None:
    position = enact(setup(P1_UNITS), "Support actions")
    after = play(position, P1_ORDERS).position
    assert phase_days(after) == 2  # the module's retreat_days: the SG's "reasonable period"
    report_text = move_report(play(position, P1_ORDERS), [], moved={"AUSTRIA", "GERMANY", "RUSSIA"})
    assert "A Gal (Russia): may move to" in report_text and "within 2 days" in report_text
    assert "A Gal H (failed: beaten out)" in report_text
    # The territory the attacker came from is a legal move away under P1 (not in standard).
    assert "BUD" in after.dislodged[0].retreats
    moved = VARIANT.adjudicate_lines(after, [("RUSSIA", "A Gal -- Bud")])
    assert units(moved.position)["RUSSIA"] == ["A BUD"]
    assert "Russia: A Gal -- Bud\n" in phase_report(moved)
    assert moved.position.phase == Phase.parse("F1901M")
    # Not moved away: disbanded.
    gone = VARIANT.adjudicate_lines(after, [])
    assert "RUSSIA" not in units(gone.position)
    assert "not moved away: disbanded" in phase_report(gone)


# -------------------------------------------------------------- P2 supply centres, Upkeep
P2_UNITS = {"AUSTRIA": ["A SER", "A VIE", "F TRI"], "TURKEY": ["A ANK", "A ARM", "A SYR"],
            "RUSSIA": ["A CON"]}


def test_p2_upkeep_after_an_even_turn() -> None:
    position = enact(setup(P2_UNITS, "F1901M"), "Supply centres")
    assert position.centres["AUSTRIA"] == {"VIE", "BUD", "TRI"}
    out = play(position, {})
    upkeep = out.position
    assert upkeep.phase == Phase.parse("W1901A")
    assert upkeep.centres["AUSTRIA"] == {"VIE", "BUD", "TRI", "SER"}
    assert "CON" in upkeep.centres["RUSSIA"] and "CON" not in upkeep.centres["TURKEY"]
    assert VARIANT.adjustment_count(upkeep, "AUSTRIA") == 1
    assert VARIANT.adjustment_count(upkeep, "TURKEY") == -1
    done = VARIANT.adjudicate_lines(upkeep, [("AUSTRIA", "Build A Bud")])
    after = units(done.position)
    assert "A BUD" in after["AUSTRIA"]
    # Turkey sent no report: disbanded alphabetically, Ankara first (standard civil disorder
    # would remove the unit farthest from its centres instead).
    assert after["TURKEY"] == ["A ARM", "A SYR"]
    # Russia sent no report for its creations: none are made.
    assert after["RUSSIA"] == ["A CON"]
    assert done.position.phase == Phase.parse("S1902M")
    text = phase_report(done)
    assert "Created: A Bud (Austria)" in text and "Austria: Create A Bud\n" in text
    assert ("Turkey: Disband A Ank (not reported: disbanded by the Secretary General, in "
            "alphabetical order)") in text


def test_p2_without_the_rule_there_is_no_upkeep() -> None:
    out = play(setup(P2_UNITS, "F1901M"), {})
    assert out.position.phase == Phase.parse("S1902M") and out.position.centres == {}


def test_p2_no_upkeep_after_an_odd_turn() -> None:
    position = enact(setup(P2_UNITS, "S1902M"), "Supply centres")
    assert play(position, {}).position.phase == Phase.parse("F1902M")


# ---------------------------------------------------------------- P3 extra home centres
def test_p3_extra_home_centres() -> None:
    start = setup({"RUSSIA": ["A MOS", "F SEV", "F STP/SC", "A WAR"]}, "F1901M")
    with_p2 = enact(start, "Supply centres")
    with_p3 = enact(start, "Supply centres", "More supply centres")
    # 4 centres and 4 units under P2 alone; 6 centres with P3.
    assert VARIANT.adjustment_count(play(with_p2, {}).position, "RUSSIA") == 0
    upkeep = play(with_p3, {}).position
    assert upkeep.phase == Phase.parse("W1901A")
    assert {"FIN", "LVN"} <= upkeep.centres["RUSSIA"]
    assert VARIANT.adjustment_count(upkeep, "RUSSIA") == 2
    done = VARIANT.adjudicate_lines(upkeep, [("RUSSIA", "Build A Fin"), ("RUSSIA", "Build A Lvn")])
    assert {"A FIN", "A LVN"} <= set(units(done.position)["RUSSIA"])
    # Without P3, Finland is no home centre.
    refused = VARIANT.adjudicate_lines(
        play(enact(setup({"RUSSIA": ["A MOS"]}, "F1901M"), "Supply centres"), {}).position,
        [("RUSSIA", "Build A Fin")])
    assert refused.results[0].result == "fails"
    assert "not one of RUSSIA's home centres" in refused.results[0].reason


def test_p3_alone_creates_no_ownership() -> None:
    position = enact(setup({"RUSSIA": ["A MOS"]}, "F1901M"), "More supply centres")
    assert position.centres == {}
    assert play(position, {}).position.phase == Phase.parse("S1902M")


# ------------------------------------------------------------------- P4 mobile fleets
def test_p4_fleets_make_two_moves() -> None:
    start = setup({"ENGLAND": ["F LON"]})
    position = enact(start, "Mobile fleets")
    out = play(position, {"ENGLAND": ["F Lon -- NTH -- Hel"]})
    assert results(out) == [("F LON - NTH - HEL", "succeeds")]
    assert units(out.position)["ENGLAND"] == ["F HEL"]
    assert "F Lon -- NTH -- HEL" in move_report(out, [], moved={"ENGLAND"})
    # Without the rule: refused, the fleet stays.
    out = play(start, {"ENGLAND": ["F Lon -- NTH -- Hel"]})
    assert out.results[0].result == "fails" and "no rule in force allows two" in out.results[0].reason
    assert units(out.position)["ENGLAND"] == ["F LON"]


def test_p4_not_ending_in_a_supply_centre() -> None:
    position = enact(setup({"ENGLAND": ["F LON"]}), "Mobile fleets")
    out = play(position, {"ENGLAND": ["F Lon -- NTH -- Hol"]})
    assert out.results[0].result == "fails" and "supply centre" in out.results[0].reason


def test_p4_the_territory_passed_through_is_contested() -> None:
    position = enact(setup({"ENGLAND": ["F LON", "F EDI"], "GERMANY": ["F KIE"]}), "Mobile fleets")
    # Another unit entering NTH: both fail (rule 23).
    out = play(position, {"ENGLAND": ["F Lon -- NTH -- Hel", "F Edi -- NTH"]})
    assert [r for _, r in results(out)][:2] == ["fails", "fails"]
    assert out.results[0].reason == "could not pass through NTH"
    # The unit in NTH leaving lets the fleet through.
    vacated = enact(setup({"ENGLAND": ["F LON", "F NTH"]}), "Mobile fleets")
    out = play(vacated, {"ENGLAND": ["F Lon -- NTH -- Hel", "F NTH -- Nwy"]})
    assert units(out.position)["ENGLAND"] == ["F HEL", "F NWY"]
    # Exchanging with the unit passed through fails.
    out = play(vacated, {"ENGLAND": ["F Lon -- NTH -- Hel", "F NTH -- Lon"]})
    assert units(out.position)["ENGLAND"] == ["F LON", "F NTH"]
    # The unit passed through moving where the fleet is going: the double move fails.
    paradox = enact(setup({"ENGLAND": ["F LON"], "GERMANY": ["F NTH"]}), "Mobile fleets")
    out = play(paradox, {"ENGLAND": ["F Lon -- NTH -- Hel"], "GERMANY": ["F NTH -- Hel"]})
    assert results(out) == [("F LON - NTH - HEL", "fails"), ("F NTH - HEL", "succeeds")]


# ------------------------------------------------------------------- P5 the deadline
def test_p5_deadline_days() -> None:
    start = setup({"ENGLAND": ["F LON"]})
    assert move_deadline_days(start) is None
    position = enact(start, "Speed up the game")
    assert move_deadline_days(position) == 3
    assert move_deadline_days(play(position, {}).position) == 3  # it stays in force
    rule = next(r for r in RULES.ruleset(position).rules if r.module == "deadline")
    amend = Proposal("ENGLAND", "Slower", "Moves are due five days after the last move report.",
                     action="amend", rule=rule.number, params={"days": 5})
    _, amended = close_vote(position, [amend], [Vote("ENGLAND", "P1", "FOR")])
    assert move_deadline_days(amended) == 5


# -------------------------------------------------------------------- P6 merging units
def test_p6_merge_and_the_larger_unit_wins() -> None:
    start = setup({"AUSTRIA": ["A BUD", "A VIE"], "RUSSIA": ["A WAR"]})
    position = enact(start, "Merging units")
    merged = play(position, {"AUSTRIA": ["Me A Bud A Vie"]})
    assert results(merged)[0] == ("ME A BUD A VIE", "succeeds")
    assert units(merged.position)["AUSTRIA"] == ["2A VIE"]
    assert "Me A Bud A Vie" in move_report(merged, [], moved={"AUSTRIA"})
    out = play(merged.position, {"AUSTRIA": ["A Vie -- Gal"], "RUSSIA": ["A War -- Gal"]})
    assert results(out)[:2] == [("A VIE - GAL", "succeeds"), ("A WAR - GAL", "fails")]
    assert units(out.position)["AUSTRIA"] == ["2A GAL"]
    # Without P6: the merge is refused, and the same contest is a standoff (rule 23).
    refused = play(start, {"AUSTRIA": ["Me A Bud A Vie"]})
    assert "merge actions are not in the rules" in refused.results[0].reason
    assert units(refused.position)["AUSTRIA"] == ["A BUD", "A VIE"]
    plain = setup({"AUSTRIA": ["A VIE"], "RUSSIA": ["A WAR"]})
    out = play(plain, {"AUSTRIA": ["A Vie -- Gal"], "RUSSIA": ["A War -- Gal"]})
    assert [r for _, r in results(out)] == ["fails", "fails"]


def test_p6_sizes_must_be_equal_and_size_beats_no_holder_without_p1() -> None:
    position = enact(setup({"AUSTRIA": ["2A VIE", "A BUD"], "RUSSIA": ["A GAL"]}),
                     "Merging units")
    out = play(position, {"AUSTRIA": ["Me A Bud A Vie"]})
    assert "not the same size" in out.results[0].reason
    out = play(position, {"AUSTRIA": ["A Vie -- Gal"]})
    assert out.results[0].result == "fails" and not out.dislodged
    # With P1 too, a unit counts as its size in the tally: 2 against 1 beats out.
    both = enact(position, "Support actions")
    out = play(both, {"AUSTRIA": ["A Vie -- Gal"]})
    assert out.results[0].result == "succeeds" and [str(d.unit) for d in out.dislodged] == ["A GAL"]


@pytest.mark.parametrize("title", sorted(SEED))
def test_each_seed_proposal_is_a_legal_rule_change(title: str) -> None:
    SEED[title].check(RULES.ruleset(RULES.initial_position()))
    assert SEED[title].module


def test_p2_upkeep_reports_read_as_the_rule_words_them() -> None:
    position = enact(setup(P2_UNITS, "F1901M"), "Supply centres")
    upkeep = play(position, {}).position
    done = VARIANT.adjudicate_lines(upkeep, [("AUSTRIA", "Create A Bud"),
                                             ("TURKEY", "Disband A Syr")])
    assert [r.result for r in done.results] == ["succeeds", "succeeds"]
    assert units(done.position)["TURKEY"] == ["A ANK", "A ARM"]


def test_p4_with_p6_and_p1_the_passage_is_a_contest_of_size_and_support() -> None:
    start = setup({"ENGLAND": ["2F LON"], "FRANCE": ["F BEL", "F HOL"]})
    sized = enact(start, "Mobile fleets", "Merging units")
    orders = {"ENGLAND": ["F Lon -- NTH -- Hel"], "FRANCE": ["F Bel -- NTH"]}
    out = play(sized, orders)
    # The larger fleet passes; the smaller unit entering the sea it passes through fails.
    assert [r for _, r in results(out)][:2] == ["succeeds", "fails"]
    assert units(out.position)["ENGLAND"] == ["2F HEL"]
    # Without P6 both are size 1: a standoff in the North Sea.
    out = play(enact(start, "Mobile fleets"), orders)
    assert [r for _, r in results(out)][:2] == ["fails", "fails"]
    # With P1 too, a supported move into the North Sea ties with the size-2 fleet: both fail;
    # against a fleet of size 1 the supported move wins and the double move fails.
    supported = enact(sized, "Support actions")
    out = play(supported, {"ENGLAND": ["F Lon -- NTH -- Hel"],
                           "FRANCE": ["F Bel -- NTH", "F Hol S F Bel -- NTH"]})
    assert [r for _, r in results(out)][:2] == ["fails", "fails"]
    one = enact(enact(setup({"ENGLAND": ["F LON"], "FRANCE": ["F BEL", "F HOL"]}),
                      "Mobile fleets"), "Support actions")
    out = play(one, {"ENGLAND": ["F Lon -- NTH -- Hel"],
                     "FRANCE": ["F Bel -- NTH", "F Hol S F Bel -- NTH"]})
    assert [r for _, r in results(out)][:2] == ["fails", "succeeds"]
    assert units(out.position)["FRANCE"] == ["F HOL", "F NTH"]
