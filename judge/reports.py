"""Turn reports: an adjudicated phase becomes one email to every player and the game master.

One pipeline (DESIGN.md, section 6): the phase's outcome becomes a list of events, each with
its audience (:mod:`judge.engine.events`); each recipient's report is rendered from the events
that recipient may see. A variant with secrets supplies its own events through an ``events``
method on its rules (``events(outcome, orders) -> list[Event]``); every other variant uses
:func:`~judge.engine.events.standard_events`, where everything is public.

This module makes a report, and its picture, from the data it is handed: the phase
(:class:`AdjudicatedPhase`), the game's row, the events, and what the game's flow decides
(whether it hides information, its classic layout's names). Which reports go to whom, when,
is the games layer's (:mod:`judge.games.reporting`); nothing here imports it (issue 22).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Protocol

from judge import render  # render.svg_to_png looked up when drawn (tests replace it)
from judge.engine.events import Event, standard_events
from judge.engine.position import Position
from judge.engine.variant import OrderResult, Outcome
from judge.mail.compose import Attachment
from judge.mail.outbox import Outbox
from judge.render.classic import ClassicNames, classic_context
from judge.render.views import report_picture, report_view
from judge.text import duration_text

log = logging.getLogger("judge.reports")


def duration(seconds: int) -> str:
    return duration_text(seconds)


def position_context(variant: Any, pos: Position) -> list[dict]:
    """Per power: units, centres, count, builds/removals due (adjustment phase)."""
    rows = []
    for power in variant.board.powers:
        centres = sorted(pos.centres.get(power, ()))
        units = sorted(str(u) for u in pos.units_of(power))
        adjust = variant.adjustment_count(pos, power) if pos.phase.kind == "A" else 0
        rows.append({"power": power, "centres": centres, "count": len(centres),
                     "units": units, "adjust": adjust})
    return rows


class AdjudicatedPhase(Protocol):
    """One adjudicated phase, as the games layer hands it (:class:`judge.games.game.Turn`)."""

    previous: Position
    outcome: Outcome

    def standing_orders(self, variant: Any) -> list[tuple[str, Any]]:
        """The orders that stood in the phase, power by power, as they were stored."""
        ...


def phase_events(variant: Any, turn: AdjudicatedPhase) -> list[Event]:
    """The events of one adjudicated phase, each with its audience (the variant decides)."""
    hook = getattr(variant.rules, "events", None)
    if not callable(hook):
        written = variant.write_position(turn.outcome.position).get("units", {})
        return standard_events(turn.outcome, written_units=written)
    orders: list[tuple[str, Any]] = []  # the orders as given
    for power, order in turn.standing_orders(variant):
        if isinstance(order, str):  # stored as text by an earlier version: read it
            try:
                order = variant.read_order(turn.previous, power, order)
            except ValueError:
                continue
        orders.append((power, order))
    return list(hook(turn.outcome, orders))


def events_context(variant: Any, events: list[Event], new: Position) -> dict:
    """What the report template shows, from the events one reader may see."""
    results: dict[str, list[dict]] = {}
    dislodged, disbanded, built, changes = [], [], [], []
    units: dict[str, list[str]] = {}
    centres: dict[str, list[str]] = {}
    winner = None
    diagram = None  # a variant's picture of the board (Chess Dip: a chess diagram)
    for e in events:
        f = e.fields
        if e.kind == "diagram":
            diagram = f["text"]
        elif e.kind == "order":
            results.setdefault(f["power"], []).append(
                {"order": f["order"], "result": f["result"], "reason": f.get("reason", "")})
        elif e.kind == "dislodged":
            dislodged.append({"power": f["power"], "unit": f["unit"],
                              "attacker_from": f.get("attacker_from"),
                              "retreats": [f"{variant.board.full_name(x)} ({x})"
                                           for x in f.get("retreats") or ()]})
        elif e.kind == "disbanded":
            disbanded.append(f"{f['power'].title()} {f['unit']}")
        elif e.kind == "built":
            built.append(f"{f['power'].title()} {f['unit']}")
        elif e.kind == "centre_change":
            changes.append({"centre": f["centre"], "old": f.get("from"), "new": f["to"]})
        elif e.kind == "units":
            units[f["power"]] = list(f["units"])
        elif e.kind == "centres":
            centres[f["power"]] = list(f["centres"])
        elif e.kind == "winner":
            winner = f["power"]
    table = []
    for power in variant.board.powers:
        if power not in centres and power not in units:
            continue
        cs = centres.get(power, [])
        adjust = variant.adjustment_count(new, power) if new.phase.kind == "A" else 0
        table.append({"power": power, "centres": cs, "count": len(cs),
                      "units": units.get(power, []), "adjust": adjust})
    return {"results": results, "dislodged": dislodged, "disbanded": disbanded,
            "built": built, "changes": changes, "table": table, "winner": winner,
            "diagram": diagram}


def phase_report(variant: Any, game: dict, outcome: Outcome, seen: list[Event],
                 reader: str | None, *, classic_names: dict | None) -> tuple[str, str, dict]:
    """(subject, template, context) of the standard report of one phase for ``reader``, from
    the events ``seen`` (those it may see); with the classic layout when ``classic_names``
    (the game's flow's :meth:`~judge.games.flow.GameFlow.classic_names`). A flow with its own
    events may use it as its report."""
    prev: Position = outcome.previous
    new: Position = outcome.position
    context = {
        "game": game["name"], "variant": variant.title,
        "phase": str(prev.phase), "phase_name": prev.phase.long_name,
        "powers": list(variant.board.powers),
        "next_phase": str(new.phase), "next_phase_name": new.phase.long_name,
        "deadline": None if new.winner else game["deadline"],
        "adjustment_next": new.phase.kind == "A", "retreat_next": new.phase.kind == "R",
        **events_context(variant, seen, new), "you": reader,
    }
    context["classic"] = None if classic_names is None else {
        **classic_context(variant, ClassicNames.from_json(classic_names), game["name"], prev,
                          new, seen, game.get("turn")),
        "deadline": game.get("phase_deadline")}  # the header's: the phase reported on
    # the judges' subject convention, which players' mail filters rely on
    return f"{game['name']} - {prev.phase} results", "report.txt.j2", context


def classic_history(variant: Any, game: dict, rows: list[dict],
                    classic_names: dict | None) -> list[dict] | None:
    """The archived phases of ``game`` in the classic layout (what jDip's history import
    reads): for each adjudicated row of ``rows`` (the game's positions in order: phase,
    position, results) the context of ``templates/_classic.txt.j2``, rebuilt from the stored
    positions and results. None when the variant has no classic layout (``classic_names``,
    its flow's)."""
    if classic_names is None:
        return None
    names = ClassicNames.from_json(classic_names)
    out = []
    for k, row in enumerate(rows[:-1]):
        if row["results"] is None:
            continue
        before = variant.read_position(json.loads(row["position"]))
        after = variant.read_position(json.loads(rows[k + 1]["position"]))
        results = [OrderResult(x["power"], x["order"], x["result"], x.get("reason", ""),
                               x.get("stands", True), x.get("given", True))
                   for x in json.loads(row["results"])]
        outcome = Outcome(before, after, results,
                          dislodged=list(after.dislodged) if before.phase.kind == "M" else [])
        events = standard_events(outcome,
                                 written_units=variant.write_position(after).get("units"))
        out.append({**classic_context(variant, names, game["name"], before, after,
                                      events, len(out) + 1),
                    "deadline": None, "reported": row["phase"]})
    return out


class Pictures:
    """The map attached to each reader's report (issue 10): drawn from what that reader may
    see (:func:`judge.render.views.report_picture`), once per distinct view: the public
    picture of a phase is drawn once for all its readers, a Stab! player's private map once
    for that player. A picture that cannot be drawn is logged once and its reports go out
    without it. Drawing is :func:`judge.render.svg_to_png` of the SVG, a pure function, so it
    can move to worker processes without changing what is attached."""

    def __init__(self, variant: Any, previous: Position, after: Position, events: list[Event],
                 title: str, outbox: Outbox, *, hidden: bool) -> None:
        self.variant, self.events, self.title = variant, events, title
        self.hidden = hidden  # the game's flow hides information (private maps only)
        self.previous = variant.write_position(previous)
        self.after = variant.write_position(after)
        self.phase = str(previous.phase)
        self.outbox = outbox
        self.drawn: dict[Any, Attachment | int | None] = {}

    def for_reader(self, power: str | None) -> dict[str, Any]:
        """What :meth:`Outbox.queue` takes for this reader's picture: ``attachments`` (drawn
        here) or ``picture`` (the id of a picture drawn after the transaction)."""
        try:
            view = report_view(self.variant, self.events, power, self.hidden)
        except Exception:  # a picture that cannot be drawn must not stop the report
            log.exception("map for %s %s could not be drawn", self.title, self.phase)
            return {}
        if view is None:
            return {}
        if view not in self.drawn:
            self.drawn[view] = self._draw(power)
        picture = self.drawn[view]
        if picture is None:
            return {}
        return {"picture": picture} if isinstance(picture, int) else {"attachments": [picture]}

    def _draw(self, power: str | None) -> Attachment | int | None:
        try:
            svg = report_picture(self.variant, self.previous, self.after, self.events, power,
                                 self.title, self.hidden)
            if svg is None:
                return None
            if self.outbox.defer_pictures:  # rasterised after the commit (judge/service.py)
                return self.outbox.add_picture(f"{self.phase}.png", svg)
            return Attachment(f"{self.phase}.png", "image/png", render.svg_to_png(svg))
        except Exception:  # a picture that cannot be drawn must not stop the report
            log.exception("map for %s %s could not be drawn: the report goes without it",
                          self.title, self.phase)
            return None
