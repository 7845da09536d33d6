"""P4 double moves through a territory with two coasts (issue 22).

``F BOT -- StP -- Lvn`` was read as a move through St Petersburg's south coast, and checked
again at adjudication with the coast where the check expects a territory: a KeyError, and a
game frozen at its phase. A legal double move through StP, Spa or Bul must end where it was
ordered; an illegal one is refused when it is read, with the reason, never at adjudication.
Random phases with P4 and the other modules in force adjudicate without raising.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from dipnomicy_random import VARIANT as DIP
from dipnomicy_random import random_phase
from fuzzkit import examples, nightly
from test_dipnomicy_rules import enact, play, results, setup, units

from judge.engine.errors import OrderError
from judge.variants.dipnomicy.report import move_report
from judge.variants.dipnomicy.rules import RULES


def mobile(power: str, *unit_texts: str):  # noqa: ANN201 - a Position
    return enact(setup({power: list(unit_texts)}), "Mobile fleets")


# (the fleet, its order, the unit it is afterwards, the coast it passes, as the report says it)
THROUGH_TWO_COASTS = [
    ("F BOT", "F BOT -- StP -- Lvn", "F LVN", "StP/sc"),
    ("F FIN", "F Fin -- St Petersburg -- Livonia", "F LVN", "StP/sc"),
    ("F LVN", "F Lvn -- StP -- BOT", "F BOT", "StP/sc"),
    ("F NWY", "F Nwy -- StP -- BAR", "F BAR", "StP/nc"),
    ("F BAR", "F BAR - STP - NWY", None, None),  # Norway is a centre: refused, below
    ("F GAS", "F Gas -- Spa -- MID", "F MAO", "Spa/nc"),
    ("F LYO", "F LYO -- Spa -- MID", "F MAO", "Spa/sc"),
    ("F MAO", "F MID -- Spa -- LYO", "F LYO", "Spa/sc"),
    ("F MAO", "F MID -- Spa -- Gas", "F GAS", "Spa/nc"),
    ("F WES", "F WES -- Spa -- Gas", None, None),  # the south coast does not reach Gascony
    ("F RUM", "F Rum -- Bul -- BLA", "F BLA", "Bul/ec"),
    ("F GRE", "F Gre -- Bul -- AEG", "F AEG", "Bul/sc"),
    ("F CON", "F Con -- Bul -- BLA", "F BLA", "Bul/ec"),
    ("F CON", "F Con -- Bul -- AEG", "F AEG", "Bul/sc"),
    ("F BLA", "F BLA -- Bul -- AEG", None, None),  # the east coast does not reach the Aegean
    # Starting on a coast, and naming the coast passed through.
    ("F STP/SC", "F StP -- BOT -- BAL", "F BAL", None),
    ("F SPA/NC", "F Spa/nc -- MID -- NAO", "F NAO", None),
    ("F BOT", "F BOT -- StP/sc -- Lvn", "F LVN", "StP/sc"),
]


@pytest.mark.parametrize(("fleet", "order", "after", "passed"), THROUGH_TWO_COASTS)
def test_double_move_through_a_two_coast_territory(fleet: str, order: str, after: str | None,
                                                   passed: str | None) -> None:
    power = "RUSSIA"
    position = mobile(power, fleet)
    out = play(position, {power: [order]})
    if after is None:
        assert out.results[0].result == "fails" and out.results[0].reason
        assert units(out.position)[power] == [fleet]
        return
    assert out.results[0].result == "succeeds", out.results[0].reason
    assert units(out.position)[power] == [after]
    if passed:
        assert f" -- {passed} -- " in move_report(out, [], moved={power})
    # The order as the judge read it (what it stores and reads again) adjudicates the same.
    read = DIP.read_order(position, power, order)
    again = play(position, {power: [str(read)]})
    assert units(again.position)[power] == [after]


def test_illegal_double_moves_through_two_coasts_are_refused_when_read() -> None:
    position = mobile("RUSSIA", "F BAR", "F WES", "F BLA")
    for order, reason in [
            ("F BAR -- StP -- Lvn", "cannot move to St Petersburg and then to Livonia"),
            ("F BAR -- StP/sc -- Fin", "cannot move to St Petersburg and then to Finland"),
            ("F BAR -- StP -- Nwy", "may not end its turn in a supply centre (Norway)"),
            ("F WES -- Spa -- Gas", "cannot move to Spain and then to Gascony"),
            ("F BLA -- Bul -- AEG", "cannot move to Bulgaria and then to Aegean Sea")]:
        with pytest.raises(OrderError) as refused:
            DIP.read_order(position, "RUSSIA", order)
        assert reason in str(refused.value), (order, str(refused.value))
        out = play(position, {"RUSSIA": [order]})
        assert out.results[0].result == "fails" and reason in out.results[0].reason


def test_passing_a_two_coast_territory_is_contested_like_any_other() -> None:
    # A unit standing in StP stops the fleet; one leaving it lets the fleet through.
    position = enact(setup({"RUSSIA": ["F BOT", "A STP"]}), "Mobile fleets")
    out = play(position, {"RUSSIA": ["F BOT -- StP -- Lvn"]})
    assert results(out)[0] == ("F BOT - STP/SC - LVN", "fails")
    assert out.results[0].reason == "could not pass through STP"
    out = play(position, {"RUSSIA": ["F BOT -- StP -- Lvn", "A StP -- Mos"]})
    assert units(out.position)["RUSSIA"] == ["F LVN", "A MOS"]
    # A fleet on the other coast moving away lets it through too.
    other = enact(setup({"RUSSIA": ["F BOT", "F STP/NC"]}), "Mobile fleets")
    out = play(other, {"RUSSIA": ["F BOT -- StP -- Lvn", "F StP -- BAR"]})
    assert sorted(units(out.position)["RUSSIA"]) == ["F BAR", "F LVN"]


def test_a_read_order_reads_again_the_same() -> None:
    """What the judge read from a player's line is what it checks again at adjudication (and
    what it stores): reading it again must give the same order, never raise."""
    for seed in range(examples(60)):
        position, lines, _ = random_phase(seed)
        rules = RULES.turn_rules(position)
        at = {u.province: u for u in position.units}
        for power, line in lines:
            try:
                order = DIP.read_order(position, power, line)
            except ValueError:
                continue
            assert rules.check_movement_order(at, power, order) == order, (seed, line)
            assert DIP.read_order(position, power, str(order)) == order, (seed, line)


def test_random_phases_with_double_moves_adjudicate() -> None:
    # Seeds drawn afresh in a nightly run, the same in CI.
    count = examples(300)
    start = random.SystemRandom().randrange(1 << 31) if nightly() else 0
    for seed in range(start, start + count):
        position, lines, _ = random_phase(seed)
        out = DIP.adjudicate_lines(position, lines)
        assert len(out.results) >= len(lines), seed


def test_orders_read_under_other_rules_adjudicate() -> None:
    """Orders sent ahead are read under the rules of when they came and adjudicated under
    those in force at the deadline (a vote may have enacted or repealed P4, P6, P1...): what
    no longer fits is refused with its reason, nothing raises."""
    for seed in range(examples(100)):
        position, lines, _ = random_phase(seed)
        later, _, _ = random_phase(seed + 1_000_000)
        later = replace(later, units=position.units, centres=position.centres,
                        phase=position.phase)
        orders = []
        for power, line in lines:
            try:
                orders.append((power, DIP.read_order(position, power, line)))
            except ValueError:
                continue
        out = DIP.adjudicate(later, orders)
        assert len(out.results) >= len(orders), seed
