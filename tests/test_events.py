"""The event model (DESIGN.md section 6): standard games' events are all public and say
everything the outcome says; audiences filter what each reader sees."""

from __future__ import annotations

import json
import random

from judge.engine.events import (
    Event,
    only,
    private_events,
    public_events,
    standard_events,
    visible_events,
)
from judge.engine.randomgame import random_orders, random_position
from judge.variants import get_variant

STANDARD = get_variant("standard")


def test_audiences():
    events = [Event("a", {"x": 1}), Event("b", {}, only("FRANCE")),
              Event("c", {}, only("FRANCE", "ENGLAND"))]
    assert [e.kind for e in public_events(events)] == ["a"]
    assert [e.kind for e in private_events(events, "FRANCE")] == ["b", "c"]
    assert [e.kind for e in private_events(events, "ENGLAND")] == ["c"]
    assert [e.kind for e in visible_events(events, "ENGLAND")] == ["a", "c"]
    assert [e.kind for e in visible_events(events, None)] == ["a"]  # an observer
    assert events[2].to_json() == {"kind": "c", "fields": {}, "audience": ["ENGLAND", "FRANCE"]}


def test_standard_events_are_public_and_complete():
    for seed in range(40):
        rng = random.Random(seed)
        position = random_position(STANDARD.board, rng, 30)
        orders = random_orders(STANDARD.board, position, rng)
        outcome = STANDARD.adjudicate(position, orders)
        events = standard_events(outcome, orders)
        assert all(e.public for e in events)
        json.dumps([e.to_json() for e in events])  # plain values only: storable
        got = [(e.fields["power"], e.fields["order"], e.fields["result"], e.fields["reason"])
               for e in events if e.kind == "order"]
        assert got == [(r.power, r.order, r.result, r.reason) for r in outcome.results]
        dislodged = {(e.fields["power"], e.fields["unit"]) for e in events if e.kind == "dislodged"}
        assert dislodged == {(d.unit.power, str(d.unit)) for d in outcome.dislodged}
        units = {e.fields["power"]: e.fields["units"] for e in events if e.kind == "units"}
        assert units == {p: sorted(str(u) for u in outcome.position.units_of(p))
                         for p in outcome.position.powers()}


def test_standard_events_of_retreats_adjustments_and_centre_changes():
    from judge.engine.orders import Unit
    from judge.engine.position import Phase, Position

    pos = Position("standard", Phase("F", 1901, "M"),
                   [Unit.parse("FRANCE", "A PIC"), Unit.parse("FRANCE", "A BUR"),
                    Unit.parse("GERMANY", "A BEL")],
                   {"FRANCE": {"PAR"}, "GERMANY": {"BEL", "MUN"}})
    lines = [("FRANCE", "A PIC - BEL"), ("FRANCE", "A BUR S A PIC - BEL")]
    movement = STANDARD.adjudicate_lines(pos, lines)
    events = standard_events(movement)
    assert [e.fields["unit"] for e in events if e.kind == "dislodged"] == ["A BEL"]
    retreat = STANDARD.adjudicate(movement.position, [])
    events = standard_events(retreat)
    assert [e.fields["unit"] for e in events if e.kind == "disbanded"] == ["A BEL"]
    changes = [(e.fields["centre"], e.fields["from"], e.fields["to"])
               for e in events if e.kind == "centre_change"]
    assert changes == [("BEL", "GERMANY", "FRANCE")]


def test_stab_events_carry_their_audience():
    from judge.variants.stab.report import stab_turn_events
    from tests.test_stab_example import EXAMPLE_ORDERS, IMPLICIT_ORDERS, example_position, read

    stab = get_variant("stab")
    position = example_position()
    orders = read(position, {p: EXAMPLE_ORDERS[p] + IMPLICIT_ORDERS[p] for p in EXAMPLE_ORDERS})
    movement = stab.adjudicate(position, orders)
    retreat = stab.adjudicate(movement.position, [])
    events = stab_turn_events(stab.rules, [(movement, orders), (retreat, [])])
    by_kind: dict[str, list[Event]] = {}
    for e in events:
        by_kind.setdefault(e.kind, []).append(e)
    assert all(e.public for e in by_kind["entry"])
    assert all(e.audience == {e.fields["power"]} for e in by_kind["units"])
    (move,) = by_kind["retreat"]
    assert move.audience == {"ENGLAND", "FRANCE"}  # the owner and the attacker
    assert {e.fields["centre"]: e.audience for e in by_kind["centre_lost"]} == {
        "BRE": {"FRANCE"}, "HOL": {"GERMANY"}}
    assert by_kind["centre_count"][0].public
    assert all(e.audience == {e.fields["power"]} for e in by_kind["centres_owned"])
