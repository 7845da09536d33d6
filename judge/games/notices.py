"""Mail the judge sends about a game outside the turn reports: reminders, late notices, pauses,
abandonment, position edits, rollbacks, the end of a game. Each is a template in
``templates/notices/``; public ones go to every reader (:func:`observers.readers`) with the
game's list headers.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from judge.games import archiving
from judge.games import game as G
from judge.games import settings as S
from judge.games.flow import flow_of, game_settings
from judge.games.observers import list_headers, readers
from judge.variants import get_variant

if TYPE_CHECKING:
    from judge.games.flow import FlowContext


def _base(s: Any, game: dict) -> dict[str, Any]:
    game = G.refresh(s, game)
    pos = G.current_position(s, game) if game["phase"] else None
    return {"game": game["name"], "phase": game["phase"],
            "phase_name": pos.phase.long_name if pos else "", "deadline": game["deadline"],
            "tz": S.zone(game), "status": game["status"],
            **flow_of(game["variant"]).notice_words(pos)}


def names_for(game: dict, reader: str | None, role: str) -> dict[str, Any]:
    """How each power is named in mail to one reader (``names``), and whether the game hides
    powers behind other names (``secret_names``: Gunboat), so that a notice never ties a
    pseudonym to a power for anyone but the master and the power's own player."""
    flow, settings = flow_of(game["variant"]), game_settings(game)
    known = G.public_names(game)  # what everyone knows each power by (TAKEOVER takes it)
    secret = G.hides_who_plays(game, known)
    shown = {p: flow.label(settings, p, reader) for p in known}
    if secret and role == "master":  # the master knows who is who
        shown = {p: f"{p.title()} ({name})" for p, name in known.items()}
    return {"names": shown, "secret_names": secret and role != "master", "known_as": known}


def to_powers(actor: FlowContext, game: dict, powers: list[str], template: str, subject: str,
              context: dict[str, Any], each: dict[str, dict[str, Any]] | None = None
              ) -> None:
    """A private notice to each of ``powers`` that has a player; ``each``: what differs per
    power (e.g. what it is missing), added to ``context``."""
    s = actor.s
    base = _base(s, game)  # once for all of them: it reads the game and its position
    for power in powers:
        player = s.player(game["id"], power)
        if player is None:
            continue
        own = (each or {}).get(power, {})
        actor.outbox.queue(kind="notice", to=player["address"], subject=subject,
                           template=template, context={**base, **context, **own,
                                                       **names_for(game, power, "player"),
                                                       "you": power, "role": "player"},
                           game_id=game["id"])


def to_all(actor: FlowContext, game: dict, template: str, subject: str, context: dict[str, Any],
           roles: tuple[str, ...] = ("player", "master", "observer", "list"),
           about: str | None = None, skip: tuple[str, ...] = ()) -> int | None:
    """A notice to every reader; ``about``: the power it is about, named in ``subject`` as
    ``{name}``, as the reader knows it (a Gunboat pseudonym); ``skip``: addresses (any
    case) that read it in their reply already. One that observers get is kept
    in the game's web archive too, as an observer gets it (whether the game has observers
    or not): the id of its row there, or None."""
    s = actor.s
    base = _base(s, game)
    if "observer" in roles:
        names = names_for(game, None, "observer")
        kept = archiving.notice(actor.outbox, s, game, subject.replace(
            "{name}", names["names"][about]) if about else subject, template,
            {**base, **context, **names})
    else:
        kept = None
    skipped = {a.lower() for a in skip}
    for r in readers(s, game):
        if r.role not in roles or r.address.lower() in skipped:
            continue
        names = names_for(game, r.power, r.role)
        actor.outbox.queue(kind="notice", to=r.address, template=template,
                           subject=subject.replace("{name}", names["names"][about]) if about
                           else subject,
                           context={**base, **context, **names, "you": r.power,
                                    "role": r.role},
                           game_id=game["id"],
                           headers=list_headers(actor.cfg, game, r.address))
    return kept


def to_master(actor: FlowContext, game: dict, template: str, subject: str,
              context: dict[str, Any]) -> None:
    if not actor.s.confirmed(game["master_address"]):  # never on a forged CREATE's address
        return
    base = _base(actor.s, game)
    actor.outbox.queue(kind="notice", to=game["master_address"], subject=subject,
                       template=template, context={**base, **context, "you": None,
                                                   **names_for(game, None, "master"),
                                                   "role": "master"}, game_id=game["id"])


def reminder(actor: FlowContext, game: dict, missing: dict[str, list[str]],
             deadline: datetime | None = None, words: str = "orders") -> None:
    """The reminder of what each power has still to send (``words``: orders, or what a
    flow's own stage asks for, votes) by ``deadline`` (the stage's; default the phase's)."""
    ctx: dict[str, Any] = {"stage": words}
    if deadline is not None:
        ctx["deadline"] = deadline
    to_powers(actor, game, list(missing), flow_of(game["variant"]).notice_template("reminder"),
              f"{game['name']} - {game['phase']} reminder: {words} due", ctx,
              each={power: {"missing": what} for power, what in missing.items()})


def late(actor: FlowContext, game: dict, missing: dict[str, list[str]], grace_end: datetime,
         policy: str, processed: bool = False, deadline: datetime | None = None) -> None:
    """The late notice; ``processed``: no grace is left and the phase is processed now
    (civil disorder), which the notice says instead of when grace ends."""
    ctx = {"grace_end": grace_end, "policy": policy, "late": sorted(missing),
           "processed": processed, **({"deadline": deadline} if deadline else {})}
    subject = f"{game['name']} - {game['phase']} late: " + (
        "processed without your orders" if processed else "orders missing")
    template = flow_of(game["variant"]).notice_template("late")
    to_powers(actor, game, list(missing), template, subject, ctx,
              each={power: {"missing": what} for power, what in missing.items()})
    to_master(actor, game, template, subject.replace("your ", "all "),
              {**ctx, "missing": []})


def paused(actor: FlowContext, game: dict, reminder: bool = False) -> None:
    to_all(actor, game, "notices/paused.txt.j2",
           f"{game['name']} - {'still ' if reminder else ''}paused", {"reminder": reminder})


def resumed(actor: FlowContext, game: dict) -> None:
    # a flow's own notes (a vote open, and until when)
    notes = flow_of(game["variant"]).status_notes(actor.s, G.refresh(actor.s, game),
                                                  actor.clock())
    to_all(actor, game, "notices/resumed.txt.j2", f"{game['name']} - resumed",
           {"notes": notes})


def failed(actor: FlowContext, game: dict, what: str, reason: str, ref: str) -> None:
    """The judge failed processing ``what`` (the phase, or a flow's stage) and paused the
    game (judge/games/deadlines.py): its master is told what failed, with the log reference
    the host finds the traceback under; everyone else that it is delayed, orders standing."""
    to_master(actor, game, "notices/failed.txt.j2", f"{game['name']} - {what} failed: game "
              "paused", {"what": what, "reason": reason, "ref": ref})
    to_all(actor, game, "notices/delayed.txt.j2", f"{game['name']} - {what} delayed",
           {"what": what}, roles=("player", "observer", "list"))


def render_failed(actor: FlowContext, game: dict, failed: list[tuple[str, int]], reason: str,
                  ref: str) -> None:
    """Mail of the game could not be rendered (``failed``: each subject and how many readers;
    judge/service.py's painter): each reader was sent a short plain text in its place, and
    the master is told what failed, with the log reference."""
    to_master(actor, game, "notices/render_failed.txt.j2",
              f"{game['name']} - mail could not be built",
              {"failed": failed, "reason": reason, "ref": ref})


def abandoned(actor: FlowContext, game: dict, power: str, missed: int) -> None:
    to_all(actor, game, "notices/abandoned.txt.j2",
           game["name"] + " - {name} abandoned", {"power": power, "missed": missed},
           about=power)


def player_change(actor: FlowContext, game: dict, power: str, change: str) -> None:
    to_all(actor, game, "notices/player_change.txt.j2",
           game["name"] + " - {name} " + change, {"power": power, "change": change},
           about=power)


def edited(actor: FlowContext, game: dict, changes: list[dict], hidden: bool = False) -> None:
    """``changes``: each ``{text, powers}`` (the powers it concerns); ``hidden``: the game
    hides the board, so a player reads only the changes that concern its power."""
    to_all(actor, game, "notices/edited.txt.j2",
           f"{game['name']} - {game['phase']} position edited by the master",
           {"changes": changes, "hidden": hidden})


def rolled_back(actor: FlowContext, game: dict, phase: str,
                ahead: dict[str, list[str]] | None = None, then: dict | None = None) -> None:
    """``ahead``: by power, the phases whose orders sent ahead are pending again (each
    player reads only his own). ``then``: the phase's name and deadline as the rollback
    left them (a PROCESS later in the same mail moves the game on before this is sent)."""
    kept = to_all(actor, game, "notices/rolled_back.txt.j2",
                  f"{game['name']} - rolled back to {phase}",
                  {"to_phase": phase, "ahead": ahead or {}, **(then or {})})
    archiving.rollback_told(actor.outbox, actor.s, game, kept)  # the void pages link to it


def ended(actor: FlowContext, game: dict, how: str, powers: list[str]) -> None:
    subject, context = f"{game['name']} - game over", {"how": how, "powers": powers}
    to_all(actor, game, "notices/ended.txt.j2", subject, context)  # archived there too


def deadline_moved_after(actor: FlowContext, ses: Any, game: dict,
                         absent: str | None = None) -> None:
    """The master moved the deadline running in ``game`` (DEADLINE, SET GRACE), or a
    player's absence did (``absent``: its power, SET ABSENCE): its players, observers and
    list (and for an absence the master) are told once, after the mail (``ses``), of the
    deadline that stands then, however many lines of the mail moved it (a mail stays
    bounded), and of every cause (a master who plays a power may send both). The sender
    reads it in the reply, not twice. Nobody is told when the mail ended the phase
    (PROCESS, ROLLBACK): its report or notice says it."""
    causes = ses.deadline_told.get(game["id"])
    if causes is None:
        causes = ses.deadline_told[game["id"]] = []
        phase, sender = game["phase"], ses.inbound.sender
        ses.later.append(lambda: _deadline_moved(actor, game, phase, causes, sender))
    if absent not in causes:
        causes.append(absent)


def _deadline_moved(actor: FlowContext, game: dict, phase: str, causes: list[str | None],
                    sender: str) -> None:
    game = G.refresh(actor.s, game)
    if game["phase"] != phase or game["status"] not in ("active", "paused"):
        return
    flow = flow_of(game["variant"])
    stage = flow.stage(actor.s, game)
    # a flow's stage before the phase (a vote): the deadlines after it, which its rules may
    # have moved with it
    after = [(st.title, st.deadline) for st in flow.stages(actor.s, game)
             if st.key != stage.key and st.deadline is not None] if not stage.orders else []
    grace_end = stage.deadline + timedelta(seconds=stage.grace) \
        if stage.deadline is not None and stage.grace and stage.orders else None
    by_master = None in causes
    absent = [power for power in causes if power is not None]
    context = {"stage_title": "" if stage.orders else stage.title,
               "stage_deadline": stage.deadline, "grace": stage.grace,
               "grace_end": grace_end, "after": after, "absent": absent,
               "by_master": by_master}
    if not absent:
        to_all(actor, game, "notices/deadline_moved.txt.j2",
               f"{game['name']} - {phase} deadline moved by the master", context,
               roles=("player", "observer", "list"), skip=(sender,))
        return
    # the subject names no power: in a Gunboat game that would tie a pseudonym to it
    who = "a player's absence" if len(absent) == 1 else "players' absences"
    # an absent player read it in the reply, but not the master's move beside it
    players = [] if by_master else [actor.s.player(game["id"], power) for power in absent]
    to_all(actor, game, "notices/deadline_moved.txt.j2",
           f"{game['name']} - {phase} deadline moved by "
           f"{'the master and ' if by_master else ''}{who}", context,
           skip=(sender, *[player["address"] for player in players if player]))


def orders_changed(actor: FlowContext, game: dict, power: str, orders: Any,
                   pending: dict | None) -> None:
    """The master changed ``power``'s orders (ACT): its player alone is told the orders that
    stand now (``orders``: its OrderStatus) and, when the mail sent any, those pending for
    later phases (``pending``: the reply's item); no other power's."""
    to_powers(actor, game, [power], "notices/orders_changed.txt.j2",
              f"{game['name']} - {orders.phase} your orders changed by the master",
              {"orders": orders, "item": pending})


def seats_filled(actor: FlowContext, game: dict) -> None:
    """Every power of a game not started has a player: its master is told to START it."""
    to_master(actor, game, "notices/seats_filled.txt.j2",
              f"{game['name']} - every power has a player", {})


def seats_filled_after(actor: FlowContext, ses: Any, game: dict) -> None:
    """A seat was just taken in ``game``: if it is open (not started) and every power of its
    board now has a player, its master is told after the mail (``ses``) to START it."""
    game = G.refresh(actor.s, game)
    taken = {p["power"] for p in actor.s.players(game["id"])}
    if game["status"] == "open" and set(get_variant(game["variant"]).board.powers) <= taken:
        ses.later.append(lambda: seats_filled(actor, game))
