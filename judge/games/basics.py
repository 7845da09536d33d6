"""The handlers of the judge's basic commands (their specs: :mod:`judge.commands.grammar`,
bound to these in :mod:`judge.games.commands`): HELP, STATUS and MAP; signing on and joining (SIGNON, JOIN, CLEAR); creating and starting a game
(CREATE, MASTER, OPEN, START, DEADLINE, DEADLINES).

Each handler is ``(actor, ses, cmd) -> (reply text, kind, data)`` and raises GameError to
refuse; the actor runs it in its own savepoint. A game's flow may refuse joining, join
players without a power, and start its game its own way (:class:`judge.games.flow.GameFlow`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from judge.commands.spec import Command, Reply
from judge.durations import LONGEST, TOO_LONG, parse_duration, read_durations
from judge.engine.ahead import split_blocks
from judge.games import ahead as AH
from judge.games import deadlines as D
from judge.games import game as G
from judge.games import notices as N
from judge.games import observers as O
from judge.games import reporting
from judge.games import signup as U
from judge.games.flow import flow_for, flow_of
from judge.games.game import GameError
from judge.games.mapcmd import MailMaps, map_command
from judge.games.settings import day_ahead, in_utc, phase_lengths, read_time, time_help, zone
from judge.storage import iso, parse_iso
from judge.text import deadline_text
from judge.variants import variant_names

if TYPE_CHECKING:
    from judge.games.session import CommandContext, MailSession


def _reader(ses: MailSession, game: dict) -> str | None:
    """The power this mail signed on as in ``game`` (what STATUS may show it), if any."""
    for (gid, power) in ses.contexts:
        if gid == game["id"]:
            return power
    return None


# ----------------------------------------------------------------- anyone
def help_command(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()  # the examples' dates are still to come for the reader
    return "", "help", {"variants": [(n, G.get_variant(n).title) for n in variant_names()],
                        "soon": day_ahead(now, "UTC", 1), "away": day_ahead(now, "UTC", 28)}


def status(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s, now = actor.s, actor.clock()
    if cmd.args:
        game = G.find_game(s, cmd.args[0])
        return "", "game", G.game_summary(s, game, now, _reader(ses, game))
    if ses.current is not None:
        game = G.refresh(s, ses.current.game)
        return "", "game", G.game_summary(s, game, now, ses.current.power)
    if ses.master is not None:
        return "", "game", G.game_summary(s, G.refresh(s, ses.master), now)
    raise GameError("STATUS needs a game name (STATUS <game>), or a SIGNON before it")


def map_picture(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    if ses.maps is None:
        limit, unconfirmed, created = actor.outbox.reply_limit(ses.inbound.sender)
        # a stranger's reply is cut short: no picture drawn that it cannot carry
        ses.maps = MailMaps.for_reply(limit, defer=actor.outbox.defer_pictures,
                                      unconfirmed=unconfirmed, created=created)
    text, picture = map_command(
        actor.s, cmd.args, (ses.current.game, ses.current.power) if ses.current else None,
        ses.master, ses.maps)
    if picture is not None:
        ses.attachments.append(picture)
    return text, "text", None


# ---------------------------------------------------------------- players
def signon(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s = actor.s
    power_text, game_name, password = cmd.args
    game = G.find_game(s, game_name)
    flow_for(game).check_join(game)
    (power, joined), held = U.sign_on(actor, ses, game, "join", lambda: G.sign_on(
        s, game, power_text, password, ses.inbound.sender, actor.guard_password))
    if held is not None:  # its address has not confirmed: it waits (judge/games/signup.py)
        ses.current = None
        return held, "text", None
    actor.set_context(ses, game, power)
    ses.signon_failed = False
    if joined:
        N.seats_filled_after(actor, ses, game)
        return (f"You have joined game {game['name']} as {power.title()}. Sign on with "
                f"this password from now on{U.reply_hint(actor, game, power)}.", "text", None)
    return f"Signed on as {power.title()} in game {game['name']}.", "text", None


def join(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s, a = actor.s, cmd.args
    flow = flow_for(G.find_game(s, a[0]))
    if len(a) == 2:  # JOIN <game> <password>: the power is assigned at the start
        game = G.find_game(s, a[0])
        text, held = U.sign_on(actor, ses, game, "join", lambda: flow.join(
            actor, game, a[1], ses.inbound.sender), named=False)
        return held or text, "text", None
    game_name, power_text, password = a
    game = G.find_game(s, game_name)
    flow.check_join(game)
    power, held = U.sign_on(actor, ses, game, "join", lambda: G.join_game(
        s, game, power_text, password, ses.inbound.sender))
    if held is not None:  # its address has not confirmed: it waits (judge/games/signup.py)
        ses.current = None
        return held, "text", None
    actor.set_context(ses, game, power)
    N.seats_filled_after(actor, ses, game)
    return U.joined_text(actor, game, power), "text", None


def clear(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    """CLEAR: the power's orders for the phase (and the mail's lines before it); CLEAR
    PENDING: its orders sent ahead (PHASE blocks stored, and those earlier in the mail)."""
    ctx = ses.current
    if ctx is None:
        raise GameError("CLEAR needs a SIGNON before it")
    game = G.refresh(actor.s, ctx.game)
    G.check_running(game)
    who = ctx.power.title()
    if cmd.args:  # PENDING (the spec's check allows nothing else)
        count, ctx.reopen = AH.clear(actor.s, game, ctx.power, ctx.lines,
                                     G.current_position(actor.s, game).phase)
        ctx.pending_cleared = True
        if not count:
            return f"{who} had no orders sent ahead to withdraw.", "text", None
        return (f"Orders sent ahead by {who} withdrawn (blocks for {count} phase(s)); the orders "
                f"for this phase stay.", "text", None)
    # written inside a PHASE block, the order lines after it were written under it: they
    # stay in that block (its lines before go with the rest), as after CLEAR PENDING
    _, blocks = split_blocks(ctx.lines)
    ctx.reopen = blocks[-1][0] if blocks else ctx.reopen
    ctx.lines.clear()
    ctx.cleared = ctx.touched = True
    if AH.has_pending(actor.s, game, ctx.power):  # its own: not a replaced player's
        return (f"Orders of {who} for this phase cleared. The orders sent ahead for later "
                f"phases stay pending (CLEAR PENDING withdraws them).", "text", None)
    return (f"Orders of {who} for this phase cleared.", "text", None)


# ----------------------------------------------------------- game masters
def master(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game = G.check_master(actor.s, cmd.args[0], cmd.args[1], actor.guard_password)
    ses.master, ses.master_failed = game, False
    return f"Signed on as master of game {game['name']}.", "text", None


def create(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    name, password, *rest = cmd.args
    limit = actor.cfg.limits.games_per_day
    if actor.s.games_created_by(ses.inbound.sender, actor.clock() - timedelta(days=1)) >= limit:
        raise GameError(f"not created: {ses.inbound.sender} has created {limit} game(s) in "
                        "the last 24 hours, the most one address may ([limits] "
                        "games_per_day); nothing was created, try again tomorrow")
    variant = "standard"
    options: list[str] = []  # words for the variant's own settings
    defaults = [parse_duration(x) or 0 for x in (actor.cfg.default_movement,
                                                 actor.cfg.default_retreat,
                                                 actor.cfg.default_adjustment)]
    durations = list(defaults)
    i = 0
    while i < len(rest):
        word = rest[i].upper()
        if word == "VARIANT" and i + 1 < len(rest):
            variant = rest[i + 1]
            i += 2
        elif word == "DEADLINES":
            given, used = read_durations(rest[i + 1:])
            if not given:
                raise GameError("DEADLINES needs durations such as 48h 24h 24h or "
                                "48 hours, 1 day, 1 day")
            _check_lengths(given)
            durations[:len(given)] = given
            i += 1 + used
        elif i == 0 and word not in ("VARIANT", "DEADLINES"):
            variant = rest[i]
            i += 1
        else:
            options.append(rest[i])
            i += 1
    if any(d <= 0 for d in durations):
        raise GameError("every phase length must be longer than zero")
    try:
        v = G.get_variant(variant.lower())
    except KeyError:
        v = None  # create_game names the variants
    plug = flow_of(variant)
    settings = plug.settings(v, options) if v is not None else {}
    game = G.create_game(actor.s, name, password, variant.lower(),
                         (durations[0], durations[1], durations[2]), ses.inbound.sender,
                         settings)
    ses.master, ses.master_failed = game, False
    described = plug.describe(settings)
    # a flow whose rules set the phases' lengths says them (DEADLINES does not apply)
    lengths = plug.lengths(actor.s, game) + " " if plug.lengths(actor.s, game) else (
        phase_lengths(G.get_variant(game["variant"]), *durations[:3]) + " ")
    token = O.master_request(actor.s, game, ses.inbound.sender, actor.clock(), ses.inbox_id)
    unconfirmed = "" if token is None else (
        f" The game's reports and notices are sent to {ses.inbound.sender} once it confirms "
        f"that it reads its mail (the replies to your mails come meanwhile): within "
        f"{O.CONFIRM_DAYS} days, reply YES to this mail, or send the line\n\nCONFIRM {token}")
    return (f"Game {game['name']} ({G.get_variant(game['variant']).title}) created; you are "
            f"its master. {lengths}"
            + (f"Settings: {described}. " if described else "")
            + "Send OPEN when players may sign on." + unconfirmed, "text", None)


def open_game(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game = G.open_game(actor.s, actor.master_game(ses))
    how = flow_for(game).join_hint(game)
    return f"Game {game['name']} is open: players join with {how}.", "text", None


def start(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s, now = actor.s, actor.clock()
    game = actor.master_game(ses)
    flow = flow_for(game)
    game = flow.start(actor, ses, game, now) or G.start_game(s, game, now, actor.chance)
    ses.games_touched.add(game["id"])
    ses.later.append(lambda g=game: reporting.queue_start(actor.outbox, s, g))
    tz = zone(game)
    return (f"Game {game['name']} has started: {game['phase']}, deadline "
            f"{deadline_text(game['deadline'], now, tz)}{in_utc(game['deadline'], tz)}. "
            "Every player has been sent the position.", "text", None)


def deadline(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    game = actor.master_game(ses)
    tz = zone(game)
    G.check_not_ended(game, "DEADLINE")
    when = parse_iso(iso(_parse_when(" ".join(cmd.args), now, tz)))  # as it is stored
    if game["status"] not in ("active", "paused"):  # paused: set for when it resumes
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")
    # the deadline running now: the phase's, or that of the flow's own stage (a vote)
    stage = flow_for(game).stage(actor.s, game)
    notes = D.move_stage_deadline(actor.s, game, stage, when, now)
    ses.games_touched.add(game["id"])
    N.deadline_moved_after(actor, ses, game)  # once for the whole mail
    return (" ".join([f"Deadline of {stage.title} set to {deadline_text(when, now, tz)}"
                      f"{in_utc(when, tz)}.", *notes, "Everyone has been told."]), "text",
            None)


def _parse_when(text: str, now: datetime, tz: str) -> datetime:
    """A duration from now (``36h``, ``2 days``) or a time, in the game's zone ``tz``
    unless a zone is written after it."""
    seconds = parse_duration(text.lstrip("+"))
    if seconds is not None and seconds > LONGEST:
        raise GameError(f"{text!r} is too far: {TOO_LONG}")
    if seconds is not None:
        return now + timedelta(seconds=seconds)
    if not re.match(r"\d{4}-", text.strip()):
        raise GameError(f"{text!r} is neither a duration (36h, 2 days) nor a time "
                        f"({time_help(now, tz)})")
    when = read_time(text, tz, now=now)
    if when > now + timedelta(seconds=LONGEST):
        raise GameError(f"{text!r} is too far: {TOO_LONG}")
    if when <= now:
        raise GameError(f"{deadline_text(when, now, tz).split(' (')[0]}{in_utc(when, tz)} "
                        "has already passed")
    return when


def _check_lengths(durations: list[int]) -> None:
    """Phase lengths as SET MOVEMENT takes them: a phase of no length is processed as it
    begins, with no time for anyone to order."""
    if durations and min(durations) <= 0:
        raise GameError("DEADLINES: each phase length must be longer than zero (e.g. 48h "
                        "24h 24h)")
    if durations and max(durations) > LONGEST:
        raise GameError(f"DEADLINES: too long: {TOO_LONG}")


def deadlines(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game = actor.master_game(ses)
    G.check_not_ended(game, "DEADLINES")
    if lengths := flow_for(game).lengths(actor.s, game):  # its deadlines are its rules'
        raise GameError(lengths)
    durations, _ = read_durations(cmd.args)
    _check_lengths(durations)
    game = G.set_durations(actor.s, game, durations)
    return (phase_lengths(G.get_variant(game["variant"]), game["movement_seconds"],
                          game["retreat_seconds"], game["adjustment_seconds"]), "text", None)
