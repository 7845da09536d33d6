"""Stab! reports: the public game report and each player's private notice, from events.

This is what the mail loop calls after adjudicating a Stab! turn::

    events = stab_turn_events(VARIANT.rules, [(outcome, orders)])     # + (retreat, []) ...
    public, private = render(events, StabSettings(game="stab1", pseudonyms=...))

or in one step ``public, private = stab_reports(outcome, orders, settings, retreat=...)``.
``public`` goes to every player and observer, ``private[power]`` to that power only. All text
comes from the templates in ``templates/stab/``, in the seed's notation (``F(Pic)*S
[Dislodged]``, ``A(Par) S F(Bre)-Pic``); in Gunboat Stab! every power is named by its
pseudonym.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jinja2 import Environment

from judge.engine.board import province_of
from judge.engine.events import Event, private_events, public_events
from judge.engine.orders import Order
from judge.engine.position import Phase
from judge.engine.variant import Outcome
from judge.text import environment
from judge.variants.stab.rules import StabRules
from judge.variants.stab.visibility import nmr_events, stab_events

SEASON_NAMES = {"S": "Spring", "F": "Autumn", "W": "Winter"}  # the seed says Autumn


@dataclass(frozen=True, slots=True)
class StabSettings:
    """How reports are written for one game. ``pseudonyms``: Gunboat Stab!, power -> the
    name players know it by (every power must have one)."""

    game: str = ""
    pseudonyms: Mapping[str, str] | None = field(default=None)

    def name(self, power: str) -> str:
        if self.pseudonyms is None:
            return power
        return self.pseudonyms[power]


# ------------------------------------------------------------------- notation
def _sea(province: str) -> bool:
    from judge.variants.stab import BOARD  # the board is loaded once, with the variant

    return BOARD.is_sea(province)


def loc_text(location: str) -> str:
    """The seed's way of writing a place: seas in capitals (``ENG``), land as ``Pic``,
    coasts after a slash (``Stp/nc``)."""
    prov, _, coast = location.partition("/")
    text = prov.upper() if _sea(province_of(prov.upper())) else prov.capitalize()
    return f"{text}/{coast.lower()}" if coast else text


def unit_text(kind: str | None, location: str) -> str:
    """``F(Pic)``."""
    return f"{kind or '?'}({loc_text(location)})"


def _unit_fields_text(fields: Mapping[str, Any]) -> str:
    return unit_text(fields["kind"], fields["location"])


def entry_text(event: Event) -> str:
    """One unit's entry in the public report, as much of its order as the event carries."""
    f = event.fields
    text = unit_text(f["kind"], f["location"])
    order = f.get("order") or {}
    t = order.get("type")
    if f["show"] == "order":
        if t == "move":
            text += "-" + loc_text(order["destination"])
        elif t == "support_hold":
            text += " S " + unit_text(order["target_kind"], order["target"])
        elif t == "support_move":
            text += (" S " + unit_text(order["target_kind"], order["target"]) + "-"
                     + loc_text(order["destination"]))
        elif t == "convoy":
            text += (" C " + unit_text(order["target_kind"], order["target"]) + "-"
                     + loc_text(order["destination"]))
    elif f["show"] == "cut":
        text += "*S"
    if f.get("dislodged"):
        text += " [Dislodged]"
    return text


@cache
def _environment() -> Environment:
    """The judge's one environment (:func:`judge.text.environment`) with Stab!'s
    filters laid over it; its templates mark their own whitespace (``{%-``)."""
    env = environment().overlay(trim_blocks=False, lstrip_blocks=False)
    env.filters.update(entry=entry_text, loc=loc_text, unitf=_unit_fields_text)
    return env


def _phase_title(events: Sequence[Event]) -> tuple[str, bool]:
    """The turn's title (its movement phase, if it has one) and whether it has one."""
    phases = [Phase.parse(e.fields["phase"]) for e in events if e.kind == "phase"]
    if not phases:
        return "", False
    main = next((p for p in phases if p.kind == "M"), phases[0])
    season = "Winter" if main.kind == "A" else SEASON_NAMES[main.season]
    return f"{season} {main.year}", main.kind == "M"


def _render(template: str, settings: StabSettings, **context: Any) -> str:
    # Every power name goes through ``name`` so that Gunboat pseudonyms reach every line.
    text = _environment().get_template(template).render(
        game=settings.game, name=settings.name, loc=loc_text, unit=unit_text, **context)
    # Whitespace only: no blank lines from template control blocks, one after the title.
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:1] + ([""] if len(lines) > 1 else []) + lines[1:]) + "\n"


def render_public(events: Sequence[Event], settings: StabSettings) -> str:
    """The game report: public events only (the filter is here as well as in the caller,
    so that no private event can ever reach this template)."""
    events = public_events(events)
    title, movement = _phase_title(events)
    entries: dict[str, list[Event]] = {}
    for e in events:
        if e.kind == "entry":
            entries.setdefault(e.fields["power"], []).append(e)
    # Ordered by the name shown, so that Gunboat pseudonyms give no hint of the powers.
    by_power = sorted(entries.items(), key=lambda kv: settings.name(kv[0]))
    counts = next((e.fields["counts"] for e in reversed(events) if e.kind == "centre_count"), None)
    return _render(
        "stab/public.txt.j2", settings, phase_title=title, movement=movement,
        entries_by_power=by_power,
        disbanded=[e for e in events if e.kind == "disbanded"],
        nmr=sorted({e.fields["power"] for e in events if e.kind == "nmr"}, key=settings.name),
        counts=sorted(counts.items(), key=lambda kv: settings.name(kv[0])) if counts else None)


def render_private(events: Sequence[Event], power: str, settings: StabSettings) -> str:
    """``power``'s private notice: the events whose audience names it."""
    title, _ = _phase_title(events)
    mine = private_events(events, power)

    def kind(k: str) -> list[Event]:
        return [e for e in mine if e.kind == k]

    units = kind("units")
    return _render(
        "stab/private.txt.j2", settings, phase_title=title, power=power,
        placed=kind("placed"), lost=kind("centre_lost"), retreats=kind("retreat"),
        built=kind("built"), removed=kind("removed"),
        units=units[-1] if units else None,  # the last step of the turn tells where they are
        owned=kind("centres_owned")[-1:])


def render(events: Sequence[Event], settings: StabSettings | None = None
           ) -> tuple[str, dict[str, str]]:
    """The public report and every power's private notice."""
    settings = settings or StabSettings()
    powers = sorted({p for e in events if e.audience for p in e.audience})
    return (render_public(events, settings),
            {p: render_private(events, p, settings) for p in powers})


def stab_turn_events(rules: StabRules,
                     steps: Sequence[tuple[Outcome, Sequence[tuple[str, Order]]]]) -> list[Event]:
    """The events of a turn that may take several phases at once (a movement phase and the
    retreats sent with it; or, with retreats taken next season, the retreats, adjustments
    and movement adjudicated together)."""
    events: list[Event] = []
    for outcome, orders in steps:
        events += stab_events(rules, outcome, orders, nmr=False)
    return events + nmr_events(rules, steps)


def stab_reports(outcome: Outcome, orders: Sequence[tuple[str, Order]],
                 settings: StabSettings | None = None, retreat: Outcome | None = None
                 ) -> tuple[str, dict[str, str]]:
    """``(public_text, {power: private_text})`` for one adjudicated phase, and the
    automatic retreat phase that followed it when retreats came with the orders."""
    from judge.variants.stab import VARIANT

    rules = VARIANT.rules
    assert isinstance(rules, StabRules)
    steps: list[tuple[Outcome, Sequence[tuple[str, Order]]]] = [(outcome, orders)]
    if retreat is not None:
        steps.append((retreat, []))
    return render(stab_turn_events(rules, steps), settings)
