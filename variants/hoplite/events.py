"""The events of a Hoplite Wars phase, for the one report pipeline (``judge/engine/events.py``).

Everything is public, as in standard play; Hoplite adds what its rules make news of: the
centre chart of each state in city-equivalents written as the rules write them (``3 1/2``),
the colonies declaring (rule 6) and the sack of Delphi (rule 7).
"""

from __future__ import annotations

from collections.abc import Iterable

from judge.engine.events import Event, standard_events
from judge.engine.orders import Order
from judge.engine.variant import Outcome
from judge.variants.hoplite.rules import HopliteRules, format_value


def hoplite_events(rules: HopliteRules, outcome: Outcome,
                   orders: Iterable[tuple[str, Order]] = ()) -> list[Event]:
    events = standard_events(outcome, orders)
    before, after = outcome.previous.extra, outcome.position.extra
    if "colonies" in after and "colonies" not in before:
        events.append(Event("colonies_declared", {"colonies": dict(sorted(after["colonies"].items()))}))
    if after.get("delphi_sacked_by") and not before.get("delphi_sacked_by"):
        events.append(Event("delphi_sacked", {"player": after["delphi_sacked_by"]}))
    nxt = outcome.position
    for power in sorted(set(nxt.powers())):
        centres = nxt.centres.get(power, set())
        cities = sorted(c for c in centres if rules.values[c] == 1)
        towns = sorted(c for c in centres if rules.values[c] != 1)
        events.append(Event("supply", {
            "power": power, "cities": cities, "towns": towns,
            "value": format_value(rules.supply(nxt, power)),
            "units": format_value(rules.upkeep(nxt, power)),
        }))
    return events
