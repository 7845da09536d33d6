"""The events of an adjudicated phase, each with who may see it (DESIGN.md section 6).

Reports are rendered from events, never from an :class:`~judge.engine.variant.Outcome`
directly, so that there is one report pipeline and the only thing a variant decides is the
audience of each event. An :class:`Event` is a kind, structured fields and an audience:
``None`` (everyone) or a set of powers. :func:`standard_events` gives the events of a
standard game, all public; a hidden-information variant (Stab!) builds its own list with
narrower audiences from the same outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from judge.engine.orders import Order
from judge.engine.variant import Outcome

EVERYONE: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a phase.

    ``fields`` hold plain values only (strings, numbers, booleans, lists and dicts of them),
    so that templates can render them and the mail loop can store them as JSON.
    ``audience`` is None for everyone, otherwise the powers that may see the event.
    """

    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    audience: frozenset[str] | None = EVERYONE

    @property
    def public(self) -> bool:
        return self.audience is None

    def visible_to(self, power: str | None) -> bool:
        """Whether ``power`` (None: a reader who is no power, e.g. an observer) may see it."""
        return self.audience is None or (power is not None and power in self.audience)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "fields": dict(self.fields),
                "audience": None if self.audience is None else sorted(self.audience)}


def only(*powers: str) -> frozenset[str]:
    """An audience of the given powers."""
    return frozenset(powers)


def public_events(events: Iterable[Event]) -> list[Event]:
    """What everyone may see: the public report."""
    return [e for e in events if e.audience is None]


def private_events(events: Iterable[Event], power: str) -> list[Event]:
    """What only some powers, ``power`` among them, may see: ``power``'s private notice."""
    return [e for e in events if e.audience is not None and power in e.audience]


def visible_events(events: Iterable[Event], power: str | None) -> list[Event]:
    """Everything ``power`` may see, public or private."""
    return [e for e in events if e.visible_to(power)]


def standard_events(outcome: Outcome, orders: Iterable[tuple[str, Order]] = (),
                    written_units: dict[str, list[str]] | None = None) -> list[Event]:
    """The events of one phase of a game without secrets: every event is public.

    One ``order`` event per result (the order as the judge reads it, ``succeeds`` /
    ``fails`` / ``invalid``, the reason, whether it ``stands`` and whether it was ``given``:
    see :class:`~judge.engine.variant.OrderResult`), then the dislodgements with their retreat
    options, units disbanded and built, centres that changed hands, and the position after
    the phase (``units`` and ``centres`` per power). ``orders`` is accepted for symmetry with
    the variants' event functions, which need the orders as given; the results already carry
    them here. ``written_units`` are the units after the phase as the variant writes them in
    positions (``2A BUR`` for a Stack 'em stack); by default each unit on its own.
    """
    del orders  # results hold the orders as read, in the order given
    phase = str(outcome.previous.phase)
    events = [Event("phase", {"phase": phase, "next": str(outcome.position.phase)})]
    for r in outcome.results:
        events.append(Event("order", {"power": r.power, "order": r.order, "result": r.result,
                                      "reason": r.reason, "stands": r.stands,
                                      "given": r.given}))
    for d in outcome.dislodged:
        events.append(Event("dislodged", {"power": d.unit.power, "unit": str(d.unit),
                                          "attacker_from": d.attacker_from,
                                          "retreats": list(d.retreats or ())}))
    for u in outcome.disbanded:
        events.append(Event("disbanded", {"power": u.power, "unit": str(u)}))
    for u in outcome.built:
        events.append(Event("built", {"power": u.power, "unit": str(u)}))
    for centre, (old, new) in sorted(outcome.centre_changes.items()):
        events.append(Event("centre_change", {"centre": centre, "from": old, "to": new}))
    nxt = outcome.position
    for power in nxt.powers():
        units = (written_units.get(power, []) if written_units is not None
                 else sorted(str(u) for u in nxt.units_of(power)))
        events.append(Event("units", {"power": power, "units": units}))
        events.append(Event("centres", {"power": power,
                                        "centres": sorted(nxt.centres.get(power, ()))}))
    if nxt.winner:
        events.append(Event("winner", {"power": nxt.winner}))
    return events
