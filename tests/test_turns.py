"""Whole turns: the phase sequence, retreats, centre ownership, adjustments and victory."""

from __future__ import annotations

from judge.engine.position import Position
from judge.variants import get_variant

V = get_variant("standard")


def play(position: Position, lines: list[tuple[str, str]]):
    return V.adjudicate_lines(position, lines)


def units(position: Position, power: str) -> list[str]:
    return sorted(str(u) for u in position.units if u.power == power)


def test_initial_position() -> None:
    start = V.initial_position()
    assert str(start.phase) == "S1901M"
    assert len(start.units) == 22
    assert units(start, "RUSSIA") == ["A MOS", "A WAR", "F SEV", "F STP/SC"]
    assert sorted(start.centres["TURKEY"]) == ["ANK", "CON", "SMY"]


def test_a_year_without_orders_skips_empty_retreat_and_adjustment_phases() -> None:
    start = V.initial_position()
    spring = play(start, [])
    assert str(spring.position.phase) == "F1901M"
    assert all(r.result == "succeeds" and r.reason == "no order: holds" for r in spring.results)
    assert len(spring.results) == 22
    fall = play(spring.position, [])
    assert str(fall.position.phase) == "S1902M"  # nobody gains or loses: no winter phase
    assert fall.position.centres == start.centres


def test_opening_year_with_builds() -> None:
    start = V.initial_position()
    spring = play(start, [("FRANCE", "A PAR - BUR"), ("FRANCE", "F BRE - MAO"),
                          ("GERMANY", "A MUN - RUH"), ("RUSSIA", "A WAR - GAL"),
                          ("AUSTRIA", "A VIE - GAL")])
    nxt = spring.position
    assert str(nxt.phase) == "F1901M"
    assert units(nxt, "FRANCE") == ["A BUR", "A MAR", "F MAO"]
    assert units(nxt, "RUSSIA") == ["A MOS", "A WAR", "F SEV", "F STP/SC"]  # bounced in Galicia
    fall = play(nxt, [("FRANCE", "F MAO - SPA/NC"), ("FRANCE", "A BUR - BEL"),
                      ("GERMANY", "A RUH - HOL")])
    after = fall.position
    assert str(after.phase) == "W1901A"
    assert sorted(after.centres["FRANCE"]) == ["BEL", "BRE", "MAR", "PAR", "SPA"]
    assert fall.centre_changes == {"SPA": (None, "FRANCE"), "BEL": (None, "FRANCE"),
                                   "HOL": (None, "GERMANY")}
    assert V.adjustment_count(after, "FRANCE") == 2
    assert V.adjustment_count(after, "GERMANY") == 1
    assert V.adjustment_count(after, "ITALY") == 0
    winter = play(after, [("FRANCE", "BUILD A PAR"), ("FRANCE", "BUILD F BRE"),
                          ("GERMANY", "WAIVE")])
    assert all(r.result == "succeeds" for r in winter.results)
    assert units(winter.position, "FRANCE") == ["A BEL", "A MAR", "A PAR", "F BRE", "F SPA/NC"]
    assert units(winter.position, "GERMANY") == ["A BER", "A HOL", "F KIE"]
    assert str(winter.position.phase) == "S1902M"


def test_retreats_avoid_attacker_origin_standoffs_and_occupied_provinces() -> None:
    position = Position.from_json({
        "variant": "standard", "phase": "S1901M",
        "units": {"GERMANY": ["A MUN", "A BOH", "A KIE"], "FRANCE": ["A BUR", "A RUH"],
                  "ITALY": ["A TYR"], "AUSTRIA": ["A VIE"]},
    })
    outcome = play(position, [
        ("FRANCE", "A BUR - MUN"), ("FRANCE", "A RUH S A BUR - MUN"),
        ("GERMANY", "A BOH - GAL"), ("AUSTRIA", "A VIE - BOH"), ("ITALY", "A TYR - BOH"),
    ])
    nxt = outcome.position
    assert str(nxt.phase) == "S1901R"
    [d] = nxt.dislodged
    assert str(d.unit) == "A MUN" and d.attacker_from == "BUR"
    # BUR: attacker's origin; BOH: standoff; KIE, RUH, TYR: occupied.
    assert d.retreats == ("BER", "SIL")
    assert nxt.standoffs == frozenset({"BOH"})
    # The retreat options survive a round trip through the position JSON.
    position2 = V.read_position(V.write_position(nxt))
    assert position2.dislodged[0].retreats == ("BER", "SIL")
    done = play(position2, [("GERMANY", "A MUN - SIL")])
    assert units(done.position, "GERMANY") == ["A GAL", "A KIE", "A SIL"]
    assert str(done.position.phase) == "F1901M"


def test_retreat_clash_and_no_order_disband() -> None:
    position = Position.from_json({
        "variant": "standard", "phase": "F1901R",
        "units": {"ENGLAND": ["F LON"], "FRANCE": ["A PAR"]},
        "centres": {"ENGLAND": ["LON"], "FRANCE": ["PAR"]},
        "dislodged": {
            "ENGLAND": [{"unit": "F ENG", "attacker_from": "MAO"}],
            "FRANCE": [{"unit": "F BEL", "attacker_from": "HOL"}, {"unit": "A GAS", "attacker_from": "SPA"}],
        },
    })
    outcome = play(position, [("ENGLAND", "F ENG - PIC"), ("FRANCE", "F BEL - PIC")])
    assert [r.result for r in outcome.results[:2]] == ["fails", "fails"]
    assert "both disbanded" in outcome.results[0].reason
    assert outcome.results[2].order == "A GAS D" and "no retreat order" in outcome.results[2].reason
    assert units(outcome.position, "FRANCE") == ["A PAR"]
    assert units(outcome.position, "ENGLAND") == ["F LON"]
    assert not outcome.position.dislodged
    # Fall retreats done: centres are counted; France lost nothing, so no adjustment phase.
    assert str(outcome.position.phase) == "S1902M"


def test_civil_disorder_removes_the_farthest_unit() -> None:
    position = Position.from_json({
        "variant": "standard", "phase": "W1901A",
        "units": {"FRANCE": ["A PAR", "A MUN", "F NAO"]},
        "centres": {"FRANCE": ["PAR"]},
    })
    outcome = play(position, [])
    removed = [r.order for r in outcome.results if r.reason.startswith("civil disorder")]
    assert removed == ["REMOVE F NAO", "REMOVE A MUN"]
    assert units(outcome.position, "FRANCE") == ["A PAR"]


def test_too_many_builds_are_taken_in_order() -> None:
    position = Position.from_json({
        "variant": "standard", "phase": "W1901A",
        "units": {"GERMANY": ["A BER"]},
        "centres": {"GERMANY": ["BER", "KIE", "MUN"]},
    })
    outcome = play(position, [("GERMANY", "BUILD A MUN"), ("GERMANY", "BUILD A MUN"),
                              ("GERMANY", "BUILD F KIE"), ("GERMANY", "BUILD A KIE")])
    assert [r.result for r in outcome.results] == ["succeeds", "fails", "succeeds", "fails"]
    assert "already built" in outcome.results[1].reason
    assert outcome.results[3].reason == "no more builds due"


def test_victory_at_eighteen_centres() -> None:
    centres = ["LON", "EDI", "LVP", "NWY", "SWE", "DEN", "HOL", "BEL", "BRE", "PAR",
               "SPA", "POR", "KIE", "BER", "MUN", "STP", "MAR"]
    assert len(centres) == 17
    position = Position.from_json({
        "variant": "standard", "phase": "F1905M",
        "units": {"ENGLAND": ["A BUR", "F MAO"]},
        "centres": {"ENGLAND": centres, "FRANCE": ["TUN"]},
    })
    outcome = play(position, [("ENGLAND", "F MAO - NAF"), ("ENGLAND", "A BUR H")])
    assert outcome.position.winner is None  # NAF is no centre
    outcome = play(position, [("ENGLAND", "F MAO - WES")])
    assert outcome.position.winner is None
    position.units.append(position.units[0].__class__("ENGLAND", "F", "NAF"))
    outcome = play(position, [("ENGLAND", "F NAF - TUN")])
    assert outcome.position.winner == "ENGLAND"
    assert len(outcome.position.centres["ENGLAND"]) == 18
    assert outcome.centre_changes["TUN"] == ("FRANCE", "ENGLAND")


def test_a_later_order_replaces_an_earlier_one() -> None:
    start = V.initial_position()
    outcome = play(start, [("FRANCE", "A PAR - BUR"), ("FRANCE", "A PAR - PIC")])
    assert outcome.results[0].result == "fails"
    assert outcome.results[0].reason == "replaced by a later order for the same unit"
    assert outcome.results[1].result == "succeeds"
    assert "A PIC" in units(outcome.position, "FRANCE")
