"""Orders checked against a position: every refusal has its own specific reason."""

from __future__ import annotations

import pytest

from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    UnitRef,
    Waive,
)
from judge.engine.position import Position
from judge.variants import get_variant

V = get_variant("standard")


def pos(phase: str = "S1901M", units: dict | None = None, centres: dict | None = None,
        dislodged: dict | None = None) -> Position:
    return Position.from_json({
        "variant": "standard", "phase": phase,
        "units": units if units is not None else {
            "ENGLAND": ["F LON", "F NTH", "A YOR"], "FRANCE": ["A PAR", "F MAO", "F BRE"],
            "RUSSIA": ["F STP/SC", "A MOS"], "GERMANY": ["A MUN"], "ITALY": ["A VEN", "F ROM"],
            "TURKEY": ["F CON"]},
        "centres": centres or {},
        "dislodged": dislodged or {},
    })


START = pos()


def read(power: str, text: str, position: Position = START):
    return V.read_order(position, power, text)


@pytest.mark.parametrize("power, text, expected", [
    ("FRANCE", "A PAR - BUR", Move(UnitRef("A", "PAR"), "BUR")),
    ("FRANCE", "par-bur", Move(UnitRef("A", "PAR"), "BUR")),
    ("FRANCE", "Army Paris moves to Burgundy", Move(UnitRef("A", "PAR"), "BUR")),
    ("FRANCE", "F MAO - SPA/NC", Move(UnitRef("F", "MAO"), "SPA/NC")),
    ("FRANCE", "F MAO - Spain (north coast)", Move(UnitRef("F", "MAO"), "SPA/NC")),
    ("FRANCE", "F BRE - MAO", Move(UnitRef("F", "BRE"), "MAO")),
    ("RUSSIA", "F StP - BOT", Move(UnitRef("F", "STP/SC"), "BOT")),
    ("RUSSIA", "F STP/NC - BOT", Move(UnitRef("F", "STP/SC"), "BOT")),  # wrong coast ignored
    ("ENGLAND", "F LON - ENG", Move(UnitRef("F", "LON"), "ENG")),
    ("ENGLAND", "A YOR - NWY", Move(UnitRef("A", "YOR"), "NWY")),  # convoy possible via NTH
    ("ENGLAND", "F NTH C A YOR - NWY", Convoy(UnitRef("F", "NTH"), UnitRef("A", "YOR"), "NWY")),
    ("ENGLAND", "F LON S F NTH", SupportHold(UnitRef("F", "LON"), UnitRef("F", "NTH"))),
    ("FRANCE", "F BRE S F MAO - GAS",
     SupportMove(UnitRef("F", "BRE"), UnitRef("F", "MAO"), "GAS")),
    ("FRANCE", "F BRE S MAO - ENG", SupportMove(UnitRef("F", "BRE"), UnitRef("F", "MAO"), "ENG")),
    ("ITALY", "A VEN H", Hold(UnitRef("A", "VEN"))),
    ("ITALY", "ven holds", Hold(UnitRef("A", "VEN"))),
])
def test_good_orders_come_back_canonical(power: str, text: str, expected) -> None:
    assert read(power, text) == expected


@pytest.mark.parametrize("power, text, reason", [
    ("FRANCE", "A BUR - PAR", "no unit in Burgundy"),
    ("GERMANY", "A PAR - BUR", "the unit in Paris is not yours (it is FRANCE's)"),
    ("FRANCE", "F PAR - BUR", "the unit in Paris is an army, not a fleet"),
    ("FRANCE", "A PAR - MUN", "Paris is not adjacent to Munich"),
    ("FRANCE", "A PAR - PAR", "cannot move to its own province"),
    ("FRANCE", "A PAR - ENG", "an army cannot move to English Channel: it is a sea"),
    ("FRANCE", "F BRE - PAR", "a fleet cannot move to Paris: it is inland"),
    ("FRANCE", "F MAO - SPA", "Spain has more than one coast a fleet in Mid-Atlantic Ocean could reach: say which (SPA/NC or SPA/SC)"),
    ("ITALY", "F ROM - VEN", "a fleet cannot move from Rome to Venice: they share no coast"),
    ("RUSSIA", "F STP - BAR", "St Petersburg is not adjacent to Barents Sea for a fleet"),
    ("ENGLAND", "F LON - BEL", "London is not adjacent to Belgium for a fleet"),
    ("ENGLAND", "F LON - YOR VIA CONVOY", "only armies can be convoyed"),
    ("ITALY", "A VEN - TUN", "no fleets stand at sea between Venice and Tunis"),
    ("FRANCE", "A PAR - LON", "Paris is not adjacent to London, and no convoy could carry"),
    ("ITALY", "A VEN - MOS", "Venice is not adjacent to Moscow, and no convoy could carry an army there"),
    ("ENGLAND", "F LON S F LON", "a unit cannot support itself"),
    ("ENGLAND", "F LON S A YOR - LVP", "F LON cannot reach Liverpool, so it cannot support a move there"),
    ("ENGLAND", "F LON S A WAL", "no unit in Wales to support"),
    ("ENGLAND", "F LON S A NTH", "the unit in North Sea is a fleet, not an army"),
    ("ITALY", "F ROM S A VEN - ROM", "cannot support a move into its own province"),
    ("ENGLAND", "A YOR C F NTH - EDI", "only fleets can convoy"),
    ("ENGLAND", "F LON C A YOR - NWY", "a fleet can convoy only at sea, not in London"),
    ("ENGLAND", "F NTH C F LON - NWY", "only armies can be convoyed"),
    ("ENGLAND", "F NTH C A YOR - MOS", "A YOR cannot be convoyed to Moscow"),
])
def test_each_refusal_says_why(power: str, text: str, reason: str) -> None:
    with pytest.raises(OrderError) as info:
        read(power, text)
    assert reason in str(info.value)
    assert not isinstance(info.value, OrderSyntaxError)


@pytest.mark.parametrize("text, reason", [
    ("A PAR - Atlantis", "unknown place 'Atlantis'"),
    ("A PAR jumps BUR", "jumps"),
    ("BUILD A PAR", "builds are made in the adjustment (Winter) phase"),
])
def test_unreadable_lines_are_syntax_errors(text: str, reason: str) -> None:
    with pytest.raises(OrderSyntaxError) as info:
        read("FRANCE", text)
    assert reason in str(info.value)


RETREAT = pos("F1901R", units={"ITALY": ["A TRI", "A VEN"], "AUSTRIA": ["A VIE"]},
              dislodged={"AUSTRIA": [{"unit": "F TRI", "attacker_from": "VEN",
                                      "retreats": ["ADR", "ALB"]}]})


def test_retreat_orders() -> None:
    assert read("AUSTRIA", "F TRI - ALB", RETREAT) == Retreat(UnitRef("F", "TRI"), "ALB")
    assert read("AUSTRIA", "F TRI R adriatic", RETREAT) == Retreat(UnitRef("F", "TRI"), "ADR")
    assert read("AUSTRIA", "F TRI D", RETREAT) == Disband(UnitRef("F", "TRI"))
    with pytest.raises(OrderError, match="cannot retreat to Venice; it may retreat to ADR, ALB"):
        read("AUSTRIA", "F TRI - VEN", RETREAT)
    with pytest.raises(OrderError, match="no dislodged unit in Vienna"):
        read("AUSTRIA", "A VIE - BOH", RETREAT)
    with pytest.raises(OrderError, match="not yours"):
        read("ITALY", "F TRI - ALB", RETREAT)
    with pytest.raises(OrderError, match="not possible in a retreat phase"):
        read("AUSTRIA", "F TRI S A VIE", RETREAT)


WINTER = pos("W1901A", units={"RUSSIA": ["A WAR", "F SEV"], "FRANCE": ["A PAR", "A BUR", "A PIC"],
                              "ENGLAND": ["F LON"]},
             centres={"RUSSIA": ["MOS", "SEV", "STP", "WAR", "RUM"], "FRANCE": ["PAR"],
                      "ENGLAND": ["LON", "EDI", "LVP"]})


def test_adjustment_orders() -> None:
    assert read("RUSSIA", "BUILD A MOS", WINTER) == Build(UnitRef("A", "MOS"))
    assert read("RUSSIA", "F STP/NC B", WINTER) == Build(UnitRef("F", "STP/NC"))
    assert read("RUSSIA", "waive", WINTER) == Waive()
    assert read("FRANCE", "A BUR D", WINTER) == Remove(UnitRef("A", "BUR"))
    assert read("FRANCE", "remove A PIC", WINTER) == Remove(UnitRef("A", "PIC"))
    cases = [
        ("RUSSIA", "BUILD F STP", "say on which coast of St Petersburg to build the fleet"),
        ("RUSSIA", "BUILD F MOS", "a fleet cannot be built in Moscow: it is inland"),
        ("RUSSIA", "BUILD A WAR", "Warsaw is occupied"),
        ("RUSSIA", "BUILD A RUM", "Rumania is not one of RUSSIA's home centres"),
        ("FRANCE", "BUILD A MAR", "FRANCE has no builds this winter"),
        ("RUSSIA", "REMOVE A WAR", "RUSSIA has no units to remove"),
        ("FRANCE", "remove A MUN", "no unit in Munich"),
    ]
    for power, text, reason in cases:
        with pytest.raises(OrderError) as info:
            read(power, text, WINTER)
        assert reason in str(info.value), text
    assert V.adjustment_count(WINTER, "ENGLAND") == 2
    assert read("ENGLAND", "BUILD F EDI", WINTER) == Build(UnitRef("F", "EDI"))


def test_builds_need_an_owned_home_centre() -> None:
    lost = pos("W1901A", units={"RUSSIA": ["A WAR"]},
               centres={"RUSSIA": ["WAR", "MOS", "RUM", "SWE"], "TURKEY": ["SEV", "STP"]})
    with pytest.raises(OrderError, match="RUSSIA does not own Sevastopol now"):
        read("RUSSIA", "BUILD F SEV", lost)
    # Three centres more than units, but Moscow is the only free home centre it owns.
    assert V.adjustment_count(lost, "RUSSIA") == 1
    assert read("RUSSIA", "BUILD A MOS", lost) == Build(UnitRef("A", "MOS"))
