"""Turn reports: an adjudicated phase becomes one email to every player and the game master.

One pipeline (DESIGN.md, section 6): the phase's outcome becomes a list of events, each with
its audience (:mod:`judge.engine.events`); each recipient's report is rendered from the events
that recipient may see. A variant with secrets supplies its own events through an ``events``
method on its rules (``events(outcome, orders) -> list[Event]``); every other variant uses
:func:`~judge.engine.events.standard_events`, where everything is public.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from judge import render  # render.svg_to_png looked up when drawn (tests replace it)
from judge.engine.events import Event, standard_events, visible_events
from judge.engine.position import Position
from judge.engine.variant import OrderResult, Outcome
from judge.games import ahead
from judge.games import game as G
from judge.games import settings as S
from judge.games.flow import flow_of
from judge.games.observers import list_headers, readers
from judge.games.press import gm_reads_press
from judge.mail.compose import Attachment, duration_text
from judge.mail.outbox import Outbox
from judge.render.classic import ClassicNames, classic_context
from judge.render.views import report_picture, report_view
from judge.storage import Store

log = logging.getLogger("judge.reports")


def duration(seconds: int) -> str:
    return duration_text(seconds)


def recipients(s: Store, game: dict) -> list[tuple[str, str | None]]:
    """(address, power) of every player, then the master (power None); each address once."""
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for p in s.players(game["id"]):
        if p["address"].lower() not in seen:
            seen.add(p["address"].lower())
            out.append((p["address"], p["power"]))
    if game["master_address"].lower() not in seen:
        out.append((game["master_address"], None))
    return out


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


def phase_events(variant: Any, turn: G.Turn) -> list[Event]:
    """The events of one adjudicated phase, each with its audience (the variant decides)."""
    hook = getattr(variant.rules, "events", None)
    if not callable(hook):
        written = variant.write_position(turn.outcome.position).get("units", {})
        return standard_events(turn.outcome, written_units=written)
    orders: list[tuple[str, Any]] = []  # the orders as given
    for power, order in G.stored_orders(variant, turn.orders):
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


def _groups(turns: list[G.Turn]) -> list[list[G.Turn]]:
    """The turns that make one report each: one phase, or (when the variant's flow says
    so) the consecutive phases of one game adjudicated together."""
    groups: list[list[G.Turn]] = []
    for turn in turns:
        last = groups[-1] if groups else None
        if last and last[-1].game["id"] == turn.game["id"] and \
                flow_of(turn.game["variant"]).one_report_per_adjudication:
            last.append(turn)
        else:
            groups.append([turn])
    return groups


def queue_flow_report(outbox: Outbox, s: Store, group: list[G.Turn]) -> bool:
    """A variant's own report of the phases in ``group`` (True), through the same pipeline:
    the events with their audiences, then each recipient's report from the events it may
    see. False when the variant has none (the standard report is used)."""
    game = G.refresh(s, group[0].game)
    variant = G.get_variant(game["variant"])
    plug = flow_of(game["variant"])
    steps = [(t.outcome, t.given or []) for t in group]
    events = plug.turn_events(variant, steps)
    if events is None:
        return False
    # The map shows the board after the phases, as the reader may know it (the variant's
    # own report has no order arrows to draw on the board the orders were given on).
    after = group[-1].outcome.position
    pictures = _Pictures(variant, after, after, events, f"{game['name']} {variant.title}",
                         outbox)
    for r in readers(s, game):  # players, master, observers, the game's list
        mail = plug.report(variant, game, steps, visible_events(events, r.power), r.power)
        if mail is None:
            return False
        subject, template, context = mail
        outbox.queue(kind="report", to=r.address, subject=subject, template=template,
                     context=context, game_id=game["id"],
                     **pictures.for_reader(r.power),
                     headers=list_headers(outbox.cfg, game, r.address))
    return True


def queue_turns(outbox: Outbox, s: Store, turns: list[G.Turn]) -> None:
    for group in _groups(turns):
        if queue_flow_report(outbox, s, group):
            continue
        queue_phase_reports(outbox, s, group)
    for turn in turns:  # after the reports: lines of orders sent ahead that no longer stood
        ahead.queue_mail(outbox, s, turn.game, turn.ahead)


def queue_publication(outbox: Outbox, s: Store, game: dict, subject: str, template: str,
                      context: dict[str, Any]) -> None:
    """One public mail, the same for every reader, to every player, the master, the game's
    observers and its list: a variant's own publications (e.g. a ruleset, a vote's result).
    The template is also given its reader (``you``, ``role``), for a word to a player alone
    beside the public text (a roll back's orders sent ahead)."""
    for r in readers(s, game):
        outbox.queue(kind="report", to=r.address, subject=f"{game['name']}: {subject}",
                     template=template, context={**context, "you": r.power, "role": r.role},
                     game_id=game["id"],
                     headers=list_headers(outbox.cfg, game, r.address))


def phase_report(variant: Any, game: dict, outcome: Outcome, seen: list[Event],
                 reader: str | None) -> tuple[str, str, dict]:
    """(subject, template, context) of the standard report of one phase for ``reader``, from
    the events ``seen`` (those it may see). A flow with its own events may use it as its
    report."""
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
    names = flow_of(variant.name).classic_names(variant)
    context["classic"] = None if names is None else {
        **classic_context(variant, ClassicNames.from_json(names), game["name"], prev, new,
                          seen, game.get("turn")),
        "deadline": game.get("phase_deadline")}  # the header's: the phase reported on
    # the judges' subject convention, which players' mail filters rely on
    return f"{game['name']} - {prev.phase} results", "report.txt.j2", context


def queue_phase_reports(outbox: Outbox, s: Store, turns: list[G.Turn]) -> None:
    for turn in turns:
        game = {**G.refresh(s, turn.game), "turn": turn_number(s, turn),
                "phase_deadline": turn.game.get("deadline")}  # the classic header's
        variant = G.get_variant(game["variant"])
        events = phase_events(variant, turn)
        pictures = _Pictures(variant, turn.previous, turn.outcome.position, events,
                             f"{game['name']} {variant.title}", outbox)
        absent = no_orders(s, game, variant, turn.previous)  # the same for every reader
        # the report depends on the reader only through the events it may see (and its
        # name): built once per distinct view, not once per reader (a public game has one)
        built: dict[tuple[int, ...], tuple[str, str, dict]] = {}
        for r in readers(s, game):  # players, master, observers, the game's list
            seen = visible_events(events, r.power)
            view = tuple(id(e) for e in seen)  # the events live as long as this loop
            if view not in built:
                built[view] = phase_report(variant, game, turn.outcome, seen, r.power)
            subject, template, shared = built[view]
            context = {**shared, "you": r.power, "no_orders": absent,
                       "layout": S.layout_for(game, r.address)}  # the reader's (SET LAYOUT)
            outbox.queue(kind="report", to=r.address, subject=subject, template=template,
                         context=context, game_id=turn.game["id"],
                         **pictures.for_reader(r.power),
                         headers=list_headers(outbox.cfg, game, r.address))


def turn_number(s: Store, turn: G.Turn) -> int:
    """The game's turn number of ``turn``'s phase, as the classic judges counted them: the
    phases adjudicated so far, this one included."""
    row = s.one("SELECT count(*) AS n FROM positions WHERE game_id = ? AND results IS NOT NULL "
                "AND id <= (SELECT id FROM positions WHERE game_id = ? AND phase = ?)",
                (turn.game["id"], turn.game["id"], str(turn.previous.phase)))
    return int(row["n"]) if row else 0


def classic_history(variant: Any, game: dict, rows: list[dict]) -> list[dict] | None:
    """The archived phases of ``game`` in the classic layout (what jDip's history import
    reads): for each adjudicated row of ``rows`` (the game's positions in order: phase,
    position, results) the context of ``templates/_classic.txt.j2``, rebuilt from the stored
    positions and results. None when the variant has no classic layout."""
    names = flow_of(variant.name).classic_names(variant)
    if names is None:
        return None
    classic_names = ClassicNames.from_json(names)
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
        out.append({**classic_context(variant, classic_names, game["name"], before, after,
                                      events, len(out) + 1),
                    "deadline": None, "reported": row["phase"]})
    return out


def no_orders(s: Store, game: dict, variant: Any, prev: Position) -> list[str]:
    """The powers that had something to order in ``prev`` and sent no orders at all (their
    names only: who plays them is never shown, so anonymous and Gunboat games keep it)."""
    sets = s.order_sets(game["id"], str(prev.phase))
    return [p for p in G.powers_to_order(variant, prev) if p not in sets]


class _Pictures:
    """The map attached to each reader's report (issue 10): drawn from what that reader may
    see (:func:`judge.render.views.report_picture`), once per distinct view: the public
    picture of a phase is drawn once for all its readers, a Stab! player's private map once
    for that player. A picture that cannot be drawn is logged once and its reports go out
    without it. Drawing is :func:`judge.render.svg_to_png` of the SVG, a pure function, so it
    can move to worker processes without changing what is attached."""

    def __init__(self, variant: Any, previous: Position, after: Position, events: list[Event],
                 title: str, outbox: Outbox) -> None:
        self.variant, self.events, self.title = variant, events, title
        self.previous = variant.write_position(previous)
        self.after = variant.write_position(after)
        self.phase = str(previous.phase)
        self.outbox = outbox
        self.drawn: dict[Any, Attachment | int | None] = {}

    def for_reader(self, power: str | None) -> dict[str, Any]:
        """What :meth:`Outbox.queue` takes for this reader's picture: ``attachments`` (drawn
        here) or ``picture`` (the id of a picture drawn after the transaction)."""
        try:
            view = report_view(self.variant, self.events, power)
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
                                 self.title)
            if svg is None:
                return None
            if self.outbox.defer_pictures:  # rasterised after the commit (judge/service.py)
                return self.outbox.add_picture(f"{self.phase}.png", svg)
            return Attachment(f"{self.phase}.png", "image/png", render.svg_to_png(svg))
        except Exception:  # a picture that cannot be drawn must not stop the report
            log.exception("map for %s %s could not be drawn: the report goes without it",
                          self.title, self.phase)
            return None


def queue_start(outbox: Outbox, s: Store, game: dict) -> None:
    variant = G.get_variant(game["variant"])
    pos = G.current_position(s, game)
    plug = flow_of(game["variant"])
    if plug.start_notice(variant, game, pos, None) is not None:
        subject = f"{game['name']}: the game has started ({pos.phase.long_name})"
        for r in readers(s, game):
            notice = plug.start_notice(variant, game, pos, r.power)
            assert notice is not None
            outbox.queue(kind="report", to=r.address, subject=subject, template=notice[0],
                         context=notice[1], game_id=game["id"],
                         headers=list_headers(outbox.cfg, game, r.address))
        return
    ctx = {"game": game["name"], "variant": variant.title, "phase": game["phase"],
           "phase_name": pos.phase.long_name, "deadline": game["deadline"],
           "table": position_context(variant, pos),
           "players": [(p["power"]) for p in s.players(game["id"])]}
    subject = f"{game['name']}: the game has started ({pos.phase.long_name})"
    for r in readers(s, game):
        outbox.queue(kind="report", to=r.address, subject=subject, template="started.txt.j2",
                     context={**ctx, "you": r.power, "gmpress": gm_reads_press(game)},
                     game_id=game["id"], headers=list_headers(outbox.cfg, game, r.address))
