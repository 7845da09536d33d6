"""The games layer's side of the web archive (:mod:`judge.archive`): each public mail of a
game, as its observers get it, handed to :func:`judge.archive.store.keep` with the powers'
public names (a Gunboat game's pseudonyms, in the order of the names, never of the powers)
and the centre counts and orders the mail itself gives. Called by :mod:`.reporting` after
the mail is queued; does nothing when the archive is off.
"""

from __future__ import annotations

import logging
from typing import Any

from judge.archive.store import keep, next_slug, page_path, undo, undone_told
from judge.engine.events import Event, visible_events
from judge.games import settings as S
from judge.games.flow import flow_of, game_settings
from judge.mail.outbox import Outbox
from judge.storage import Store, iso

log = logging.getLogger("judge.archive")
OBSERVER = {"you": None, "role": "observer"}  # the reader the archive is: sees what is public


def _by_name(game: dict, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` by power as a dict by the power's public name, sorted by that name (never
    in the powers' order: in a Gunboat game that order would say which pseudonym is which)."""
    flow, settings = flow_of(game["variant"]), game_settings(game)
    return dict(sorted((flow.label(settings, p, None), v) for p, v in values.items()))


def page_url(outbox: Outbox, s: Store, game: dict, kind: str, phase: str) -> str:
    """The address of the page the next public mail of ``kind`` about ``phase`` gets ('' when
    the archive has no base_url): the mail links to it."""
    base = outbox.cfg.archive_url
    if not base:
        return ""
    try:
        return f"{base}/{page_path(game['name'], next_slug(s, game['id'], kind, phase))}"
    except Exception:  # the archive must never stop a game's reports: the mail goes unlinked
        log.exception("archive: the page of %s's mail about %s has no name", game["name"],
                      phase)
        return ""


def _keep(outbox: Outbox, s: Store, game: dict, kind: str, phase: str, subject: str,
          template: str, context: dict, picture: dict, *, counts: dict | None = None,
          orders: dict | None = None) -> int | None:
    try:
        names = _by_name(game, {p["power"]: 1 for p in s.players(game["id"])})
        return keep(outbox, s, game, kind=kind, phase=phase, subject=subject, template=template,
             context=context, picture=picture, names=list(names),
             counts=None if counts is None else _by_name(game, counts),
             orders=None if orders is None else _by_name(game, orders))
    except Exception:  # the archive must never stop a game's reports
        log.exception("archive: %s's %s mail about %s could not be kept", game["name"], kind,
                      phase)
        return None


def _table_counts(context: dict) -> dict[str, int] | None:
    table = context.get("table")
    if not isinstance(table, list) or not table:
        return None
    return {row["power"]: int(row["count"]) for row in table}


def phase_report(outbox: Outbox, s: Store, game: dict, phase: str, subject: str,
                 template: str, context: dict, picture: dict) -> None:
    """The standard report of one phase, as its observers get it (``context`` theirs)."""
    if not outbox.cfg.archive.on:
        return
    context = {**context, **OBSERVER, "layout": S.load(game)["layout"]}
    orders = {p: [{"order": r["order"], "result": r["result"], "reason": r["reason"]}
                  for r in rs] for p, rs in (context.get("results") or {}).items()}
    _keep(outbox, s, game, "report", phase, subject, template, context, picture,
          counts=_table_counts(context), orders=orders or None)


def flow_report(outbox: Outbox, s: Store, game: dict, phase: str, mail: tuple[str, str, dict],
                events: list[Event], picture: dict) -> None:
    """A variant's own report (``mail``: the flow's report for no power), with the centre
    counts its public events give (a ``centre_count`` event: ``{"counts": {power: n}}``)."""
    if not outbox.cfg.archive.on:
        return
    subject, template, context = mail
    counts = None
    for e in visible_events(events, None):
        if e.kind == "centre_count":
            counts = dict(e.fields["counts"])
    _keep(outbox, s, game, "report", phase, subject, template, {**context, **OBSERVER},
          picture, counts=counts)


def start(outbox: Outbox, s: Store, game: dict, subject: str, template: str,
          context: dict, picture: dict) -> None:
    """The start notice, as its observers get it, with the starting board they get."""
    if not outbox.cfg.archive.on:
        return
    context = {**context, **OBSERVER}
    _keep(outbox, s, game, "start", str(game.get("phase") or ""), subject, template, context,
          picture, counts=_table_counts(context))


def publication(outbox: Outbox, s: Store, game: dict, subject: str, template: str,
                context: dict) -> None:
    if not outbox.cfg.archive.on:
        return
    _keep(outbox, s, game, "publication", str(game.get("phase") or ""), subject, template,
          {**context, **OBSERVER}, {})


def notice(outbox: Outbox, s: Store, game: dict, subject: str, template: str,
           context: dict) -> int | None:
    """A notice every observer of the game is mailed (a pause, a rollback, the end of the
    game), as they get it (``subject`` and ``context`` theirs); its row's id."""
    if not outbox.cfg.archive.on:
        return None
    return _keep(outbox, s, game, "notice", str(game.get("phase") or ""), subject, template,
                 {**context, **OBSERVER}, {})


def press(outbox: Outbox, s: Store, game: dict, subject: str, template: str,
          context: dict) -> None:
    """A broadcast every observer of the game is mailed (the game sends them broadcast
    press), as they get it; press to a power never comes here."""
    if not outbox.cfg.archive.on:
        return
    _keep(outbox, s, game, "press", str(game.get("phase") or ""), subject, template,
          {**context, **OBSERVER}, {})


def rolled_back(outbox: Outbox, s: Store, game: dict, to_phase: str, later: list[str]) -> None:
    """A ROLLBACK to ``to_phase`` made void its results and those of the ``later`` phases:
    their pages say so (marked in the rollback's transaction, before a PROCESS later in the
    same mail reports the phase again)."""
    if not outbox.cfg.archive.on:
        return
    try:
        undo(s, game["id"], to_phase, [to_phase, *later], iso(outbox.clock()))
    except Exception:  # the archive must never stop a game's commands
        log.exception("archive: %s's rollback to %s could not be marked", game["name"],
                      to_phase)


def rollback_told(outbox: Outbox, s: Store, game: dict, notice_id: int | None) -> None:
    """The rollback's notice, kept as ``notice_id``: the void pages link to it."""
    if notice_id:
        try:
            undone_told(s, game["id"], notice_id)
        except Exception:  # the archive must never stop a game's notices
            log.exception("archive: %s's rollback notice could not be linked", game["name"])
