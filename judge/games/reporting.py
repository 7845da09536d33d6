"""Which reports go to whom: the games layer hands each adjudicated phase, with what its
game's flow decides, to :mod:`judge.reports`, which makes each reader's report and picture,
and queues them: to every player, the master, the game's observers and its list.

Moved here from ``judge/reports.py`` (issue 22), so that reports are made from the data they
are handed and never import the games layer.
"""

from __future__ import annotations

from typing import Any

from judge import reports
from judge.engine.events import visible_events
from judge.engine.position import Position
from judge.games import ahead, archiving
from judge.games import game as G
from judge.games import settings as S
from judge.games.flow import flow_of
from judge.games.observers import list_headers, readers
from judge.games.press import gm_reads_press
from judge.mail.outbox import Outbox
from judge.storage import Store


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
    pictures = reports.Pictures(variant, after, after, events,
                                 f"{game['name']} {variant.title}", outbox, hidden=plug.hidden)
    phase = str(group[0].outcome.previous.phase)
    link = {"archive_url": archiving.page_url(outbox, s, game, "report", phase)}
    for r in readers(s, game):  # players, master, observers, the game's list
        mail = plug.report(variant, game, steps, visible_events(events, r.power), r.power)
        if mail is None:
            return False
        subject, template, context = mail
        outbox.queue(kind="report", to=r.address, subject=subject, template=template,
                     context={**context, **link}, game_id=game["id"],
                     **pictures.for_reader(r.power),
                     headers=list_headers(outbox.cfg, game, r.address))
    if outbox.cfg.archive.on:  # what an observer is sent
        public = plug.report(variant, game, steps, visible_events(events, None), None)
        if public is not None:
            archiving.flow_report(outbox, s, game, phase, (public[0], public[1],
                                  {**public[2], **link}), events, pictures.for_reader(None))
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
    archiving.publication(outbox, s, game, f"{game['name']}: {subject}", template, context)


def queue_phase_reports(outbox: Outbox, s: Store, turns: list[G.Turn]) -> None:
    for turn in turns:
        game = {**G.refresh(s, turn.game), "turn": turn_number(s, turn),
                "phase_deadline": turn.game.get("deadline")}  # the classic header's
        variant = G.get_variant(game["variant"])
        events = reports.phase_events(variant, turn)
        plug = flow_of(variant.name)
        pictures = reports.Pictures(variant, turn.previous, turn.outcome.position, events,
                                     f"{game['name']} {variant.title}", outbox,
                                     hidden=plug.hidden)
        names = plug.classic_names(variant)
        absent = no_orders(s, game, variant, turn.previous)  # the same for every reader
        # the report depends on the reader only through the events it may see (and its
        # name): built once per distinct view, not once per reader (a public game has one)
        built: dict[tuple[int, ...], tuple[str, str, dict]] = {}
        link = {"archive_url": archiving.page_url(outbox, s, game, "report",
                                                  str(turn.previous.phase))}
        for r in readers(s, game):  # players, master, observers, the game's list
            seen = visible_events(events, r.power)
            view = tuple(id(e) for e in seen)  # the events live as long as this loop
            if view not in built:
                built[view] = reports.phase_report(variant, game, turn.outcome, seen, r.power,
                                                   classic_names=names)
            subject, template, shared = built[view]
            context = {**shared, "you": r.power, "no_orders": absent, **link,
                       "layout": S.layout_for(game, r.address)}  # the reader's (SET LAYOUT)
            outbox.queue(kind="report", to=r.address, subject=subject, template=template,
                         context=context, game_id=turn.game["id"],
                         **pictures.for_reader(r.power),
                         headers=list_headers(outbox.cfg, game, r.address))
        if outbox.cfg.archive.on:  # what an observer is sent (the master's, usually)
            seen = visible_events(events, None)
            subject, template, shared = built.get(tuple(id(e) for e in seen)) or \
                reports.phase_report(variant, game, turn.outcome, seen, None,
                                     classic_names=names)
            archiving.phase_report(outbox, s, game, str(turn.previous.phase), subject, template,
                                   {**shared, "no_orders": absent, **link},
                                   pictures.for_reader(None))


def turn_number(s: Store, turn: G.Turn) -> int:
    """The game's turn number of ``turn``'s phase, as the classic judges counted them: the
    phases adjudicated so far, this one included."""
    row = s.one("SELECT count(*) AS n FROM positions WHERE game_id = ? AND results IS NOT NULL "
                "AND id <= (SELECT id FROM positions WHERE game_id = ? AND phase = ?)",
                (turn.game["id"], turn.game["id"], str(turn.previous.phase)))
    return int(row["n"]) if row else 0


def no_orders(s: Store, game: dict, variant: Any, prev: Position) -> list[str]:
    """The powers that had something to order in ``prev`` and sent no orders at all (their
    names only: who plays them is never shown, so anonymous and Gunboat games keep it)."""
    sets = s.order_sets(game["id"], str(prev.phase))
    return [p for p in G.powers_to_order(variant, prev) if p not in sets]


def queue_start(outbox: Outbox, s: Store, game: dict) -> None:
    variant = G.get_variant(game["variant"])
    pos = G.current_position(s, game)
    plug = flow_of(game["variant"])
    # The starting board, as reports carry theirs: drawn once per view (a hidden game's
    # players each their own part, its public none), by the painter pool when deferred.
    pictures = reports.Pictures(variant, pos, pos, [], f"{game['name']} {variant.title}",
                                outbox, hidden=plug.hidden)
    if plug.start_notice(variant, game, pos, None) is not None:
        subject = f"{game['name']}: the game has started ({pos.phase.long_name})"
        for r in readers(s, game):
            notice = plug.start_notice(variant, game, pos, r.power)
            assert notice is not None
            outbox.queue(kind="report", to=r.address, subject=subject, template=notice[0],
                         context=notice[1], game_id=game["id"],
                         **pictures.for_reader(r.power),
                         headers=list_headers(outbox.cfg, game, r.address))
        if outbox.cfg.archive.on:
            public = plug.start_notice(variant, game, pos, None)
            assert public is not None
            archiving.start(outbox, s, game, subject, public[0], public[1],
                            pictures.for_reader(None))
        return
    ctx = {"game": game["name"], "variant": variant.title, "phase": game["phase"],
           "phase_name": pos.phase.long_name, "deadline": game["deadline"],
           "table": reports.position_context(variant, pos),
           "players": [(p["power"]) for p in s.players(game["id"])]}
    subject = f"{game['name']}: the game has started ({pos.phase.long_name})"
    for r in readers(s, game):
        outbox.queue(kind="report", to=r.address, subject=subject, template="started.txt.j2",
                     context={**ctx, "you": r.power, "gmpress": gm_reads_press(game)},
                     game_id=game["id"], **pictures.for_reader(r.power),
                     headers=list_headers(outbox.cfg, game, r.address))
    archiving.start(outbox, s, game, subject, "started.txt.j2",
                    {**ctx, "gmpress": gm_reads_press(game)}, pictures.for_reader(None))
