"""The handlers of the game-running commands (their specs: :mod:`judge.commands.grammar`,
bound to these in :mod:`judge.games.commands`): deadlines and settings (SET), press, observers, draws, queries (LIST, HISTORY, SUMMARY, WHOIS),
taking over a power, and the game master's toolkit (PROCESS with a phase guard, PREVIEW,
ROLLBACK, EJECT, REPLACE, ACT, EDIT, ENDGAME, PAUSE/RESUME with notices).

Each handler is ``(actor, ses, cmd) -> (reply text, kind, data)``. Like every command, each
runs in its own savepoint: a GameError changes nothing. Most of their specs say
``mail_after_reply``: the notices they queue go out after the reply, and only if they succeed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from judge import reports
from judge.commands.spec import Command, Handler, Reply
from judge.durations import LONGEST, TOO_LONG, parse_duration
from judge.engine.events import visible_events
from judge.engine.position import phase_code
from judge.games import ahead as AH
from judge.games import archiving, draws, reporting
from judge.games import deadlines as D
from judge.games import game as G
from judge.games import notices as N
from judge.games import observers as O
from judge.games import press as P
from judge.games import settings as S
from judge.games import signup as U
from judge.games.auth import hash_password
from judge.games.flow import flow_for, flow_of
from judge.games.game import GameError
from judge.games.phaseclock import align, inside_absence, phase_seconds
from judge.mail import replytoken
from judge.mail.compose import new_message_id
from judge.mail.reading import plain_address
from judge.storage import iso, parse_iso
from judge.text import deadline_text

if TYPE_CHECKING:
    from judge.engine.variant import Variant
    from judge.games.session import CommandContext, MailSession
    from judge.storage import Store


# ----------------------------------------------------------------- helpers
def _player(actor: CommandContext, ses: MailSession, what: str) -> tuple[dict, str]:
    ctx = ses.current
    if ctx is None:
        if ses.signon_failed:
            raise GameError(f"not done: the SIGNON above failed, so {what} has no power")
        raise GameError(f"{what} needs a SIGNON before it (SIGNON <power> <game> <password>)")
    return G.refresh(actor.s, ctx.game), ctx.power


def _reader(actor: CommandContext, ses: MailSession, game: dict) -> tuple[str | None, str]:
    """(power, role) of the sender in ``game``: what a query may show them."""
    if ses.master is not None and ses.master["id"] == game["id"]:
        return None, "master"
    for (gid, power), _ in ses.contexts.items():
        if gid == game["id"]:
            return power, "player"
    return None, "observer"


def _names_for_reader(actor: CommandContext, ses: MailSession, game: dict
                      ) -> Callable[[str], str]:
    """How a query names each power to its sender: in a game that hides who plays what
    (Gunboat) by the names the sender knows (pseudonyms; both to the master), else by the
    power's name. A list of players by power, or 'France ejected' beside 'Walrus OPEN',
    would tie a pseudonym to its power."""
    power, role = _reader(actor, ses, game)
    if role == "master" or not G.hides_who_plays(game):
        return lambda p: p.title()
    return lambda p: P.label(game, p, power)


def _result_for_reader(game: dict, named: Callable[[str], str]) -> str | None:
    """The game's result ('conceded: France', 'drawn: France, Italy', 'won by France') with
    its powers named by ``named`` (:func:`_names_for_reader`): the game-over notice names
    them so, and a real name beside it would tie a Gunboat pseudonym to its power."""
    if game["result"] is None:
        return f"won by {named(game['winner'])}" if game["winner"] else None
    how, sep, listed = game["result"].partition(": ")
    if not sep:
        return game["result"]
    powers = {p.title(): p for p in G.get_variant(game["variant"]).board.powers}
    shown = [named(powers[n]) if n in powers else n for n in listed.split(", ")]
    if G.hides_who_plays(game):  # in the order of the names shown, never of the powers
        shown.sort()
    return f"{how}: {', '.join(shown)}"


def _deadline(game: dict, now: datetime) -> str:
    """The game's deadline in its zone and, when that is not UTC, in UTC too."""
    tz = S.zone(game)
    return deadline_text(game["deadline"], now, tz) + S.in_utc(game["deadline"], tz)


def _flow_first(handler: Handler) -> Handler:
    """A master's command that changes a game asks the game's flow first
    (:meth:`GameFlow.master_command`): it may refuse it, or do it the variant's way."""

    @functools.wraps(handler)
    def asked(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
        if ses.master is not None and not (
                cmd.name == "SET" and cmd.args and cmd.args[0].upper() in PLAYER_SETTINGS):
            game = actor.master_game(ses)
            if cmd.name not in ENDED_OK and not (  # a player's own SET LAYOUT
                    cmd.name == "SET" and ses.current is not None and cmd.args
                    and cmd.args[0].upper() == "LAYOUT"):
                G.check_not_ended(game, cmd.name)
            done = flow_for(game).master_command(actor, ses, game, cmd)
            if done is not None:
                return done
        return handler(actor, ses, cmd)

    return asked


PLAYER_SETTINGS = ("WAIT", "NOWAIT", "ABSENCE", "NOABSENCE")  # SET by a player, not the master
# a master's commands that an ended game takes: ROLLBACK reopens it (docs/commands.md), ACT
# changes nothing by itself (post-game press), ENDGAME says it has already ended
ENDED_OK = ("ROLLBACK", "ACT", "ENDGAME")


# ------------------------------------------------------------------- SET
@_flow_first
def set_setting(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    key = cmd.args[0].upper()
    if key == "LAYOUT" and ses.current is not None:  # a player's own copy of the reports
        return _own_layout(actor, ses, cmd.args[1:])
    if key in PLAYER_SETTINGS:
        game, power = _player(actor, ses, f"SET {key}")
        G.check_running(game)
        if key == "WAIT":
            if len(cmd.args) != 1:
                raise GameError("SET WAIT takes nothing after it")
            s.execute("INSERT OR IGNORE INTO waits (game_id, phase, power) VALUES (?, ?, ?)",
                      (game["id"], game["phase"], power))
            stage = flow_for(game).stage(s, game)
            if stage.deadline is not None and now >= stage.deadline:
                # past the deadline a wait holds nothing (deadlines.after_orders): cancelling
                # the late orders' early processing would hold the phase to the next late
                # notice or the end of grace
                return (f"{power.title()} waits, but the deadline of {game['phase']} of game "
                        f"{game['name']} has passed: a wait no longer holds it, and it is "
                        "processed as soon as every power has ordered. The wait holds it "
                        "again if the master moves the deadline later.", "text", None)
            s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
            return (f"{power.title()} waits: {game['phase']} of game {game['name']} will not "
                    f"be processed before its deadline ({_deadline(game, now)}). "
                    "The wait ends with SET NOWAIT or when the phase is processed.", "text", None)
        if key == "NOWAIT":
            if len(cmd.args) != 1:
                raise GameError("SET NOWAIT takes nothing after it")
            s.execute("DELETE FROM waits WHERE game_id = ? AND phase = ? AND power = ?",
                      (game["id"], game["phase"], power))
            ses.games_touched.add(game["id"])
            return (f"{power.title()} no longer waits in game {game['name']}.", "text", None)
        if key == "NOABSENCE":
            if len(cmd.args) != 1:
                raise GameError("SET NOABSENCE takes nothing after it: it cancels every "
                                f"absence of {power.title()} still to come")
            return _cancel_absences(actor, game, power, now)
        return _absence(actor, ses, game, power, cmd.args[1:], now)
    game = actor.master_game(ses)
    if key in ("MOVEMENT", "RETREAT", "ADJUSTMENT"):
        if lengths := flow_for(game).lengths(s, game):  # its deadlines are its rules', as
            raise GameError(lengths)  # DEADLINES says
        variant = G.get_variant(game["variant"])
        if key[0] not in S.phase_kinds(variant):
            raise GameError(f"{variant.title} has no {key.lower()} phase")
        seconds = parse_duration(" ".join(cmd.args[1:]))
        if not seconds:
            raise GameError(f"SET {key} needs one duration longer than zero (e.g. 48h or "
                            "2 days)")
        if seconds > LONGEST:
            raise GameError(f"SET {key}: too long: {TOO_LONG}")
        column = f"{key.lower()}_seconds"
        s.execute(f"UPDATE games SET {column} = ? WHERE id = ?",  # noqa: S608 (fixed names)
                  (seconds, game["id"]))
        return (f"{key.title()} phases of game {game['name']} now last "
                f"{reports.duration(seconds)} (from the next phase "
                "on; DEADLINE changes the current one).", "text", None)
    name, value = S.parse_setting(key, cmd.args[1:])
    if name == "layout":
        _has_layout(game, value)
    if name == "list" and value:
        value = _named_address(value, "SET LIST")
    if name == "list" and value and value.lower() != (S.load(game)["list"] or "").lower():
        return _list_request(actor, ses, game, value, now)
    stored = json.loads(game.get("settings") or "{}")
    stored[name] = value
    s.execute("UPDATE games SET settings = ? WHERE id = ?", (json.dumps(stored), game["id"]))
    game = G.refresh(s, game)
    label, shown = next(((n, v) for n, v in S.describe(game, D.settle_seconds(actor.cfg, game))
                         if _MATCH.get(name, name) in n), (name, str(value)))
    told = ""
    if name == "grace" and game["status"] in ("active", "paused"):
        # the grace moves when the phase running now is processed: its players are told
        N.deadline_moved_after(actor, ses, game)
        told = " Everyone has been told."
    return f"Game {game['name']}: {label}: {shown}.{told}", "text", None


def _has_layout(game: dict, layout: str | None) -> None:
    """Refuse a layout with the classic part in a game whose reports have none (Stab!,
    Chess Dip...: their reports come in the readable layout whatever is chosen)."""
    variant = G.get_variant(game["variant"])
    if layout in ("classic", "both") and flow_of(variant.name).classic_names(variant) is None:
        raise GameError(f"game {game['name']} has no classic layout ({variant.title} is not a "
                        "board the classic judges' tools know): its reports come in the "
                        "readable layout")


def _own_layout(actor: CommandContext, ses: MailSession, words: list[str]) -> Reply:
    """SET LAYOUT by a player: the layout of their own copy of the reports (GAME: the
    game's again), kept for the address the reports go to."""
    game, power = _player(actor, ses, "SET LAYOUT")
    layout = S.parse_layout(" ".join(words), own=True)
    _has_layout(game, layout)
    player = actor.s.player(game["id"], power)
    if player is None:
        raise GameError(f"{power.title()} has no player in game {game['name']}")
    stored = json.loads(game.get("settings") or "{}")
    own = dict(stored.get("layouts") or {})
    own.pop(player["address"].lower(), None)
    if layout is not None:
        own[player["address"].lower()] = layout
    stored["layouts"] = own
    actor.s.execute("UPDATE games SET settings = ? WHERE id = ?",
                    (json.dumps(stored), game["id"]))
    shown = S.LAYOUTS[S.layout_for(G.refresh(actor.s, game), player["address"])]
    whose = "" if layout else " (the game's)"
    return (f"{power.title()}'s reports of game {game['name']} now come in {shown}{whose}.",
            "text", None)


_MATCH = {"layout": "report layout", "zone": "time zone", "time": "deadlines", "days": "deadlines",
          "settle": "early processing", "missed": "missed orders", "abandon": "abandoned",
          "gmpress": "master reads", "observerpress": "observers receive", "draw": "draws",
          "list": "mailing list", "anonymous": "addresses", "absence": "longest absence"}


def _absence(actor: CommandContext, ses: MailSession, game: dict, power: str, words: list[str],
             now: datetime) -> Reply:
    s = actor.s
    text = " ".join(words)
    upper = text.upper()
    if " TO " not in f" {upper} ":
        tz = S.zone(game)  # an example still to come
        raise GameError(f"SET ABSENCE needs two dates: SET ABSENCE {S.day_ahead(now, tz, 7)} "
                        f"TO {S.day_ahead(now, tz, 13)}")
    i = upper.index("TO")
    tz = S.zone(game)
    start = S.read_time(text[:i], tz, end_of_day=False)
    until = S.read_time(text[i + 2:], tz, end_of_day=True)
    if until <= start:
        raise GameError("the absence ends before it begins")
    if until <= now:
        raise GameError("that absence is already over")
    longest = int(S.load(game)["absence"])
    if (until - start).total_seconds() > longest:
        raise GameError(f"an absence may last at most {reports.duration(longest)} in game "
                        f"{game['name']}; ask the master for more")
    first, last = _joined_absence(s, game, power, start, until, now)
    if (last - first).total_seconds() > longest:
        raise GameError(
            f"with the absence of {power.title()} from "
            f"{deadline_text(first, now, tz).split(' (')[0]} to "
            f"{deadline_text(last, now, tz).split(' (')[0]}, this one makes one of "
            f"{reports.duration(int((last - first).total_seconds()))}: absences with no whole "
            f"phase between them count as one, at most {reports.duration(longest)} in game "
            f"{game['name']}; ask the master for more, or cancel an absence with SET NOABSENCE")
    window = timedelta(seconds=2 * longest)
    covered, lo = _most_absent(s, game, power, start, until, window)
    if covered.total_seconds() > longest:
        raise GameError(
            f"with this absence {power.title()} would be away "
            f"{reports.duration(int(covered.total_seconds()))} of the "
            f"{reports.duration(int(window.total_seconds()))} from "
            f"{deadline_text(lo, now, tz).split(' (')[0]}: absences may cover at most "
            f"{reports.duration(longest)} of any {reports.duration(int(window.total_seconds()))} "
            f"in game {game['name']} (a player away longer is replaced); ask the master for "
            "more, or cancel an absence with SET NOABSENCE")
    # a deadline inside an absence already was put there by the master (the judge's are
    # moved out): declaring the absence again, or one inside it, moved it out once more
    flow = flow_for(game)
    placed = {st.key: st for st in flow.stages(s, game) if st.deadline is not None
              and start <= st.deadline < until and inside_absence(s, game, st.deadline)}
    s.execute("INSERT INTO absences (game_id, power, start, until) VALUES (?, ?, ?, ?)",
              (game["id"], power, iso(start), iso(until)))
    recorded = (f"Absence of {power.title()} recorded: "
                f"{deadline_text(start, now, tz).split(' (')[0]} to "
                f"{deadline_text(until, now, tz).split(' (')[0]}.")
    player = s.player(game["id"], power)
    if player is None or player["state"] != "active":  # deadlines wait for active players
        return (f"{recorded} {power.title()} is abandoned (offered for takeover): the absence "
                f"moves no deadline of game {game['name']} meanwhile.", "text", None)
    moved = _past_absence(s, game, start, until, now, set(placed))
    note = "".join(f" The deadline of {st.title} stays at "
                   f"{deadline_text(st.deadline, now, tz).split(' (')[0]}, where the master "
                   "put it inside an absence." for st in placed.values())
    if list(moved) == [game["phase"]]:
        note = f" The current deadline moves to {deadline_text(moved[game['phase']], now, tz)}."
    elif moved:
        note = " The deadline of " + "; that of ".join(
            f"{title} moves to {deadline_text(when, now, tz)}" for title, when in moved.items()
        ) + "."
    if moved:  # the others would find out at the old deadline, when nothing happens
        N.deadline_moved_after(actor, ses, game, absent=power)
        note += " Everyone has been told."
    return (f"{recorded} No deadline of game {game['name']} falls inside it.{note}", "text",
            None)


def _joined_absence(s: Store, game: dict, power: str, start: datetime, until: datetime,
                    now: datetime) -> tuple[datetime, datetime]:
    """The stretch a new absence makes with ``power``'s others that no whole phase separates
    (:func:`_no_phase_between`): each measured alone, absences end to end held a game for as
    long as their player liked. An absence over before the current phase began counts no
    more: that phase was played after it (a player away every weekend is not one long
    absence)."""
    over = parse_iso(game["phase_started"]) if game.get("phase_started") else now
    others = [(parse_iso(r["start"]), parse_iso(r["until"])) for r in s.all(
        "SELECT start, until FROM absences WHERE game_id = ? AND power = ? AND until > ?",
        (game["id"], power, iso(min(over, now))))]
    st = S.load(game)
    lengths = [timedelta(seconds=phase_seconds(game, k)) for k in "MRA"]
    first, last = start, until
    joined = True
    while joined:
        joined = False
        for a, b in others:
            if (a < first or b > last) and _no_phase_between(first, last, a, b, st, lengths):
                first, last, joined = min(first, a), max(last, b), True
    return first, last


def _most_absent(s: Store, game: dict, power: str, start: datetime, until: datetime,
                 window: timedelta) -> tuple[timedelta, datetime]:
    """The most time ``power``'s absences, the new one (``start`` to ``until``) with those
    stored, cover in any ``window``, and where that window begins. Each absence measured
    alone, or with those no phase separates, a player could declare most of every phase
    away (13 days at the start of each 48-hour phase held a game seven times as long as it
    runs); past absences count, as they were played through."""
    spans = sorted([(start, until), *((parse_iso(r["start"]), parse_iso(r["until"])) for r in
                    s.all("SELECT start, until FROM absences WHERE game_id = ? AND power = ? "
                          "AND until > ?", (game["id"], power, iso(start - window))))])
    merged: list[tuple[datetime, datetime]] = []
    for a, b in spans:  # overlapping absences count their time once
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    # the most is reached by a window that begins where an absence begins or ends where
    # one ends
    best, at = timedelta(0), start
    for lo in [a for a, _ in merged] + [b - window for _, b in merged]:
        hi = lo + window
        cover = sum((min(b, hi) - max(a, lo) for a, b in merged if a < hi and b > lo),
                    timedelta(0))
        if cover > best:
            best, at = cover, lo
    return best, at


def _no_phase_between(first: datetime, last: datetime, a: datetime, b: datetime,
                      st: dict, lengths: list[timedelta]) -> bool:
    """Whether the deadline engine carries a deadline from one absence into the other, as
    :func:`phaseclock.fit_deadline` does: a deadline falling in the earlier one moves to its
    end (at the game's time of day and weekdays); that one, or the deadline of a phase begun
    then, falling in the later one moves on to the end of that. Else a whole phase is
    played between them (or the later lies inside a phase and holds no deadline)."""
    if a < last and b > first:  # they overlap
        return True
    (end, (later, later_end)) = (last, (a, b)) if a >= last else (b, (first, last))
    due = align(end, st)
    return any(later <= when < later_end
               for when in [due, *(align(due + length, st) for length in lengths)])


def _cancel_absences(actor: CommandContext, game: dict, power: str, now: datetime) -> Reply:
    """SET NOABSENCE: cancel ``power``'s absences that have not begun (a typo'd one, or
    plans changed). One that has moved a running deadline stays: cancelled, it would let
    the next absence move that deadline again from where it put it, without end."""
    s = actor.s
    tz = S.zone(game)
    deadlines = {st.deadline: st.title for st in flow_for(game).stages(s, game)
                 if st.deadline is not None}
    done, kept = [], []
    for row in s.all("SELECT id, start, until FROM absences WHERE game_id = ? AND power = ? "
                     "AND start > ? ORDER BY start", (game["id"], power, iso(now))):
        start, until = parse_iso(row["start"]), parse_iso(row["until"])
        shown = (f"from {deadline_text(start, now, tz).split(' (')[0]} to "
                 f"{deadline_text(until, now, tz).split(' (')[0]}")
        moved = deadlines.get(D.fit_deadline(s, game, until))
        if moved is not None:
            kept.append(f"The absence {shown} stays: it moved the deadline of {moved} (ask "
                        "the master to move it back).")
            continue
        # the master put a deadline inside it: cancelled and declared again, it moved it out
        held = next((title for when, title in deadlines.items() if start <= when < until), None)
        if held is not None:
            kept.append(f"The absence {shown} stays: the master put the deadline of {held} "
                        "inside it.")
            continue
        s.execute("DELETE FROM absences WHERE id = ?", (row["id"],))
        done.append(f"Absence of {power.title()} {shown} cancelled.")
    if not done and not kept:
        return (f"{power.title()} has no absence to come in game {game['name']}.", "text",
                None)
    return " ".join(done + kept), "text", None


def _past_absence(s: Store, game: dict, start: datetime, until: datetime, now: datetime,
                  placed: set[str]) -> dict[str, datetime]:
    """Every deadline running now that falls in a new absence (stored already) is pushed past
    it, to the game's time of day: the phase's, and a flow's own stage's (a vote) through
    the flow, whose rules may move another deadline with it; not those of the stages
    ``placed`` (keys), which the master put inside an absence. Returns, by stage title, the
    deadlines that moved (by the absence or with another), in the stages' order."""
    flow = flow_for(game)
    before = {st.key: st.deadline for st in flow.stages(s, game)}
    for _ in range(4):  # moving one deadline may move another into the absence
        inside = [st for st in flow.stages(s, game)
                  if st.deadline is not None and start <= st.deadline < until
                  and st.key not in placed]
        if not inside:
            break
        stage = inside[0]
        when = D.fit_deadline(s, game, stage.deadline)  # past it (and any other absence)
        if when == stage.deadline:  # not pushed (the absence does not count): no loop
            break
        D.move_stage_deadline(s, game, stage, when, now, absence=True)
        game = G.refresh(s, game)
    return {st.title: st.deadline for st in flow.stages(s, game)
            if st.deadline is not None and st.deadline != before.get(st.key, st.deadline)}


# ----------------------------------------------------------------- press
def press(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    if ses.current is None and ses.master is not None:  # the master's own press
        game, sender = actor.master_game(ses), P.MASTER
    else:
        game, sender = _player(actor, ses, cmd.name)
    if cmd.name == "BROADCAST":
        targets, flags = None, cmd.args
    else:
        words = cmd.args[1:]
        names = [w for part in words for w in part.split(",") if w]
        flags = [w for w in names if w.upper() in ("GREY", "GRAY", "WHITE")]
        powers = [w for w in names if w.upper() not in ("GREY", "GRAY", "WHITE")]
        targets = None if [p.upper() for p in powers] == ["ALL"] else powers
        if targets is not None and not targets:
            raise GameError("PRESS TO needs one or more powers")
    return P.send(actor, game, sender, targets, flags, cmd.block, now), "text", None


# ------------------------------------------------------------ observers
def observe(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    game = G.find_game(actor.s, cmd.args[0])
    address = ses.inbound.sender
    if any(p["address"].lower() == address.lower() for p in actor.s.players(game["id"])):
        raise GameError(f"you play in game {game['name']}: you already receive its reports")
    if O.observes(actor.s, game, address):
        return f"You already observe game {game['name']}.", "text", None
    token = O.request(actor.s, game, address, now, ses.inbox_id)  # double opt-in
    if token is None:
        return (f"A confirmation request to observe game {game['name']} was sent to "
                f"{address} less than a day ago: answer it to receive the game's reports.",
                "text", None)
    return (f"To receive game {game['name']}'s public reports"
            f"{' and broadcast press' if S.load(game)['observerpress'] else ''} at {address}, "
            f"confirm: reply YES to this mail, or send the line\n\nCONFIRM {token}\n\n"
            f"Nothing is sent to this address until then; the request expires in "
            f"{O.CONFIRM_DAYS} days. If you did not ask for this, reply NO or ignore this "
            "mail.", "text", None)


def _named_address(written: str, what: str) -> str:
    """The address a master names, in its one spelling (reading.canonical_address): each
    spelling of a mailbox was a new address to ask and a new ceiling."""
    address = plain_address(written)
    if not address:
        raise GameError(f"{what}: {written[:100]!r} is not one plain mail address "
                        "(name@domain)")
    return address


def _asker(actor: CommandContext, ses: MailSession) -> dict:
    """Who a list or seat request is counted against (observers.request's caps)."""
    return {"requester": ses.inbound.sender,
            "per_day": actor.cfg.limits.confirm_requests_per_day}


def _list_request(actor: CommandContext, ses: MailSession, game: dict, address: str,
                  now: datetime) -> Reply:
    """SET LIST <address>: the list receives reports once it confirms (double opt-in), so a
    master cannot make the judge mail a stranger."""
    token = O.request(actor.s, game, address, now, ses.inbox_id, role="list",
                      **_asker(actor, ses))
    if token is None:
        return (f"Game {game['name']}: {address} was asked less than a day ago to confirm "
                "that it takes a game's reports; it becomes the game's list once it answers.",
                "text", None)

    def send() -> None:
        mid = new_message_id(actor.cfg.domain)
        actor.outbox.queue(kind="notice", to=address,
                           subject=f"Confirm: reports of Diplomacy game {game['name']}",
                           template="list_confirm.txt.j2",
                           context={"game": game["name"], "token": token,
                                    "days": O.CONFIRM_DAYS}, game_id=game["id"],
                           message_id=mid)
        O.request_sent(actor.s, token, mid)

    ses.later.append(send)
    return (f"Game {game['name']}: a confirmation request has been sent to {address}; it "
            "becomes the game's mailing list once someone there sends back the code in it "
            f"(within {O.CONFIRM_DAYS} days).", "text", None)


def seat_taker(actor: CommandContext, ses: MailSession) -> O.TakeSeat:
    """What takes the seat a REPLACE offered, once its address confirms (CONFIRM <code> or a
    reply to the request)."""
    now = actor.clock()

    def take_seat(game: dict, row: dict) -> str:
        power, address = row["power"], row["address"]
        flow_for(game).check_new_player(actor.s, game, power, "REPLACE")
        U.seat(actor, game, power, address, row["password_hash"], now, "replaced")
        ses.games_touched.add(game["id"])
        N.seats_filled_after(actor, ses, game)  # a seat of a game not started yet
        return (f"Confirmed: {address} now plays {power.title()} in game {game['name']}; "
                f"sign on with SIGNON {power.title()} {game['name']} <password> (the "
                "password the master gave you). Everyone has been told.")

    return take_seat


def confirm(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    return O.confirm(actor.s, cmd.args[0], actor.clock(), seat_taker(actor, ses),
                     U.taker(actor, ses)), "text", None


def unobserve(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game = G.find_game(actor.s, cmd.args[0])
    if O.unobserve(actor.s, game, ses.inbound.sender):
        return f"You no longer observe game {game['name']}.", "text", None
    raise GameError(f"{ses.inbound.sender} does not observe game {game['name']}")


# ---------------------------------------------------------------- draws
def draw(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game, power = _player(actor, ses, cmd.name)
    names = [w for part in cmd.args for w in part.split(",") if w]  # "France, Germany"
    return draws.draw(actor, game, power, names), "text", None


def nodraw(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game, power = _player(actor, ses, cmd.name)
    return draws.nodraw(actor, game, power), "text", None


def concede(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game, power = _player(actor, ses, cmd.name)
    return draws.concede(actor, game, power, cmd.args[0]), "text", None


def noconcede(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game, power = _player(actor, ses, cmd.name)
    return draws.noconcede(actor, game, power), "text", None


# -------------------------------------------------------------- queries
def list_games(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    """LIST: every game; LIST <game>: its settings and players too."""
    s, now = actor.s, actor.clock()
    if not cmd.args:
        games = s.all("SELECT * FROM games ORDER BY name")
        return "", "list", [G.game_summary(s, g, now) for g in games]
    game = G.find_game(s, cmd.args[0])
    info = G.game_summary(s, game, now)
    anonymous = S.anonymous(game)
    named = _names_for_reader(actor, ses, game)
    players = []
    for p in s.players(game["id"]):
        players.append({"power": p["power"], "name": named(p["power"]), "state": p["state"],
                        "address": None if anonymous else p["address"]})
    players.sort(key=lambda p: p["name"] if G.hides_who_plays(game) else "")
    observers = s.one("SELECT count(*) AS n FROM observers WHERE game_id = ?", (game["id"],))
    data = {"template": "_settings.txt.j2", "g": info, "players": players,
            "settings": S.describe(game, D.settle_seconds(actor.cfg, game)),
            "observers": observers["n"] if observers else 0,
            "result": _result_for_reader(game, named)}
    return "", "include", data


def history(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s = actor.s
    game = G.find_game(s, cmd.args[0])
    every = s.all("SELECT phase, position, results FROM positions WHERE game_id = ? "
                  "ORDER BY id", (game["id"],))
    rows = [r for r in every if r["results"] is not None]
    phases = [r["phase"] for r in rows]
    wanted = [a.upper() for a in cmd.args[1:]]
    classic = bool(wanted) and wanted[-1] == "CLASSIC"  # the classic judges' layout
    wanted = [phase_code(w) or w for w in (wanted[:-1] if classic else wanted)]
    for w in wanted:
        if w not in phases:
            raise GameError(f"game {game['name']} has no processed phase {w} (processed: "
                            f"{', '.join(phases) or 'none yet'})")
    lo = phases.index(wanted[0]) if wanted else 0
    hi = phases.index(wanted[-1]) if wanted else len(phases) - 1
    chosen = set(phases[lo:hi + 1]) if wanted else set(phases)
    power, role = _reader(actor, ses, game)
    out = []
    for r in rows:
        if r["phase"] not in chosen:
            continue
        results = json.loads(r["results"])
        by_power: dict[str, list[str]] = {}
        for x in results:
            by_power.setdefault(x["power"], []).append(
                f"{x['order']}: {x['result']}{' (' + x['reason'] + ')' if x.get('reason') else ''}")
        out.append({"phase": r["phase"], "orders": by_power})
    visible_press = [p for p in P.visible(s, game, power, role)
                     if not wanted or p["phase"] in chosen]
    variant = G.get_variant(game["variant"])
    if callable(getattr(variant.rules, "events", None)):
        # a variant with secrets: its orders are not public, so HISTORY shows only press
        out = []
    blocks = None
    if classic:
        blocks = reports.classic_history(variant, game, every,
                                         flow_of(variant.name).classic_names(variant))
        if blocks is None:
            raise GameError(f"game {game['name']} has no classic layout ({variant.title} is "
                            "not a board the classic judges' tools know): send HISTORY "
                            "without CLASSIC")
        blocks = [b for b in blocks if b["reported"] in chosen]
    data = {"template": "_history.txt.j2", "game": game["name"], "phases": out,
            "press": visible_press, "role": role, "classic": blocks}
    return "", "include", data


def summary(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s = actor.s
    game = G.find_game(s, cmd.args[0])
    variant = G.get_variant(game["variant"])
    years = []
    for r in s.all("SELECT phase, position FROM positions WHERE game_id = ? ORDER BY id",
                   (game["id"],)):
        pos = variant.read_position(json.loads(r["position"]))
        if pos.phase.kind == "A" or r["phase"] == game["phase"]:
            counts = {p: len(pos.centres.get(p, ())) for p in variant.board.powers}
            label = r["phase"]
            if years and years[-1]["phase"] == label:
                continue
            years.append({"phase": label, "counts": counts})
    named = _names_for_reader(actor, ses, game)
    changes = [{**c, "name": named(c["power"])} for c in s.all(
        "SELECT phase, power, change, at FROM player_changes WHERE game_id = ? ORDER BY id",
        (game["id"],))]
    data = {"template": "_summary.txt.j2", "game": game["name"], "years": years,
            "powers": list(variant.board.powers), "changes": changes,
            "result": _result_for_reader(game, named)}
    return "", "include", data


def whois(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s = actor.s
    game = G.find_game(s, cmd.args[0])
    if S.anonymous(game) and _reader(actor, ses, game)[1] != "master":
        raise GameError(f"game {game['name']} keeps its players anonymous: WHOIS shows nothing")
    variant = G.get_variant(game["variant"])
    powers = [G.power_name(variant, cmd.args[1])] if len(cmd.args) > 1 else \
        list(variant.board.powers)
    lines = []
    for power in powers:
        p = s.player(game["id"], power)
        lines.append(f"{power.title()}: {p['address'] if p else 'no player'}"
                     f"{' (abandoned)' if p and p['state'] == 'abandoned' else ''}")
    return f"Players of game {game['name']}:\n" + "\n".join(lines), "text", None


# ------------------------------------------------------------ takeover
def takeover(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    power_text, game_name, password = cmd.args
    game = G.find_game(s, game_name)
    # by the name everyone knows it by: in a game that hides who plays what (Gunboat) a real
    # name is refused as an unknown one, else trying each would find whose pseudonym is free
    power = P.power_named(game, power_text, "")
    if game["status"] not in ("active", "paused"):
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")
    if len(password) < 4:  # before anything that depends on the seat
        raise GameError("a password must be at least 4 characters long")
    flow_for(game).check_new_player(s, game, power, "TAKEOVER")
    player = s.player(game["id"], power)
    if player is not None and player["state"] != "abandoned":
        raise GameError(f"{P.label(game, power, '')} in game {game['name']} has a player: "
                        "only an abandoned or empty power can be taken over")
    _, held = U.sign_on(actor, ses, game, "takeover", lambda: U.seat(
        actor, game, power, ses.inbound.sender, hash_password(password), now, "taken over"))
    if held is not None:  # its address has not confirmed: it waits (judge/games/signup.py)
        ses.current = None
        return held, "text", None
    actor.set_context(ses, game, power)
    ses.games_touched.add(game["id"])
    return (f"You now play {power.title()} in game {game['name']} ({game['phase']}). Your "
            f"orders go in with SIGNON {power.title()} {game['name']} <password>.", "text", None)


# -------------------------------------------------------------- master
@_flow_first
def process(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    game = actor.master_game(ses)
    named = (phase_code(cmd.args[0]) or cmd.args[0].upper()) if cmd.args else None
    if named is not None and game["phase"] != named:
        raise GameError(f"{named} is not the current phase of game "
                        f"{game['name']} (it is {game['phase'] or 'over'}): it has already "
                        "been processed, so nothing was done")
    G.check_running(game, "PROCESS")
    what = flow_for(game).stage(s, game).title  # the phase, or a flow's own stage (a vote)
    turns = D.process(actor, game, now, "master", queue=False)
    ses.later.append(lambda t=turns: reporting.queue_turns(actor.outbox, s, t))
    ses.games_touched.add(game["id"])
    game = G.refresh(s, game)
    return (f"Processed {', '.join(str(t.previous.phase) for t in turns) or what}; game "
            f"{game['name']} is now in {game['phase'] or 'its end'}. The report has "
            f"been sent to every player.", "text", None)


def preview(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s = actor.s
    game = actor.master_game(ses)
    G.check_running(game, "PREVIEW")
    variant = G.get_variant(game["variant"])
    pos = G.current_position(s, game)
    sets = s.order_sets(game["id"], game["phase"])
    outcome = variant.adjudicate_lines(pos, G.stored_orders(variant, sets))  # nothing stored
    turn = G.Turn(game, pos, outcome, sets)
    events = reports.phase_events(variant, turn)
    seen = reports.events_context(variant, visible_events(events, None), outcome.position)
    missing = D.missing_powers(s, game)
    ctx = {"game": game["name"], "variant": variant.title, "phase": game["phase"],
           "phase_name": pos.phase.long_name, "powers": list(variant.board.powers),
           "next_phase": str(outcome.position.phase), "missing": sorted(missing), **seen}
    ses.later.append(lambda: actor.outbox.queue(
        kind="notice", to=ses.inbound.sender, subject=f"{game['name']} - {game['phase']} "
        "preview (not processed)", template="preview.txt.j2", context=ctx,
        game_id=game["id"]))
    return (f"A preview of {game['phase']} with the orders in now has been sent to you alone. "
            "Nothing was processed.", "text", None)


@_flow_first
def rollback(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    game = actor.master_game(ses)
    if game["status"] == "forming" or game["status"] == "open":
        raise GameError(f"game {game['name']} has not started")
    target = phase_code(cmd.args[0]) or cmd.args[0].upper()
    rows = s.all("SELECT id, phase FROM positions WHERE game_id = ? ORDER BY id", (game["id"],))
    ids = {r["phase"]: r["id"] for r in rows}
    if target not in ids:
        raise GameError(f"game {game['name']} has no phase {target} (its phases: "
                        f"{', '.join(r['phase'] for r in rows)})")
    # a game that ended in its phase (a draw voted, a concession, ENDGAME) is reopened there:
    # it has no other way back when that phase is its first
    in_place = target == game["phase"]
    if in_place and game["status"] != "finished":
        raise GameError(f"game {game['name']} is already in {target}")
    if in_place and G.current_position(s, game).winner:  # its position is the one won
        before = [r["phase"] for r in rows if r["id"] < ids[target]]
        raise GameError(f"game {game['name']} was won in the phase before {target}: "
                        + (f"ROLLBACK {before[-1]} reopens it there" if before else
                           "it has no phase before to roll back to"))
    later = [r["phase"] for r in rows if r["id"] > ids[target]]
    if in_place:  # the votes that ended it go with its result: one more DRAW would end it
        s.execute("DELETE FROM votes WHERE game_id = ? AND phase = ?", (game["id"], target))
    archiving.rolled_back(actor.outbox, s, game, target, later)  # their pages: void
    for phase in later:
        for table in ("orders", "waits", "votes"):
            s.execute(f"DELETE FROM {table} WHERE game_id = ? AND phase = ?",  # noqa: S608
                      (game["id"], phase))
        s.execute("DELETE FROM positions WHERE game_id = ? AND phase = ?", (game["id"], phase))
        s.execute("DELETE FROM notices WHERE game_id = ? AND key LIKE ?",
                  (game["id"], phase + ":%"))
    s.execute("DELETE FROM notices WHERE game_id = ? AND key LIKE ?", (game["id"], target + ":%"))
    s.execute("UPDATE positions SET results = NULL, adjudicated = NULL WHERE game_id = ? AND "
              "phase = ?", (game["id"], target))
    status = "paused" if game["status"] == "paused" else "active"
    s.execute("UPDATE games SET phase = ?, status = ?, winner = NULL, result = NULL WHERE id = ?",
              (target, status, game["id"]))
    game = G.refresh(s, game)
    pos = G.current_position(s, game)
    # orders sent ahead that the void phases used are pending again, as their players sent
    # them (judge/games/ahead.py); those used when the target began gave its restored orders
    ahead = AH.restore(s, game, pos, later)
    G.begin_phase_of(s, game, pos, now)  # its deadline as the game's flow says
    game = G.refresh(s, game)
    kept = len(s.order_sets(game["id"], target))
    # the notice goes out after the mail's other commands: it says what the rollback did
    then = {"phase_name": pos.phase.long_name, "deadline": game["deadline"]}
    ses.later.append(lambda g=game: N.rolled_back(actor, g, target, ahead, then))
    if ahead:
        pending = (f", and the orders sent ahead that the phases after it used are pending "
                   f"again ({AH.listed(ahead)})")
    else:
        pending = "; orders sent ahead for later phases stay pending"
    return (f"Game {game['name']} is back in {target}; the orders of {kept} power(s) for that "
            f"phase are restored{pending}. New deadline: "
            f"{_deadline(game, now)}. Everyone has been told.",
            "text", None)


@_flow_first
def eject(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    game = actor.master_game(ses)
    power = G.power_name(G.get_variant(game["variant"]), cmd.args[0])
    if s.player(game["id"], power) is None:
        raise GameError(f"{power.title()} in game {game['name']} has no player")
    # told while still a player, so the ejected player learns of it too
    N.player_change(actor, game, power, "ejected")
    s.execute("DELETE FROM players WHERE game_id = ? AND power = ?", (game["id"], power))
    replytoken.revoke(s, game["id"], power, "ejected")
    s.execute("INSERT INTO player_changes (game_id, phase, power, change, at) VALUES "
              "(?, ?, ?, 'ejected', ?)", (game["id"], game["phase"], power, iso(now)))
    return (f"The player of {power.title()} is ejected from game {game['name']}. "
            f"{flow_for(game).vacant_seat(game, power)}", "text", None)


@_flow_first
def replace_player(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    game = actor.master_game(ses)
    power = G.power_name(G.get_variant(game["variant"]), cmd.args[0])
    address, password = _named_address(cmd.args[1], "REPLACE"), cmd.args[2]
    if len(password) < 4:
        raise GameError("a password must be at least 4 characters long")
    if game["status"] == "finished":
        raise GameError(f"game {game['name']} has ended")
    flow_for(game).check_new_player(actor.s, game, power, "REPLACE")
    player = actor.s.player(game["id"], power)
    now_played = (f"{power.title()} stays with its present player" if player is not None
                  else f"{power.title()} stays without a player")
    if player is not None and player["address"].lower() == address.lower():
        raise GameError(f"{address} already plays {power.title()} in game {game['name']}")
    # the seat is an offer the address confirms (double opt-in, as OBSERVE and SET LIST):
    # the judge mails an address nobody has heard from once, whoever names it
    token = O.request(actor.s, game, address, now, ses.inbox_id, role="seat", power=power,
                      password_hash=hash_password(password), **_asker(actor, ses))
    if token is None:
        return (f"{address} was asked less than a day ago to confirm a seat or a game's "
                f"list (in game {game['name']} or another); nothing more is sent to it until "
                f"it answers. {now_played} meanwhile.", "text", None)
    def send() -> None:
        mid = new_message_id(actor.cfg.domain)  # a reply to it answers it, as CONFIRM does
        actor.outbox.queue(
            kind="notice", to=address, subject=f"Confirm: a seat in Diplomacy game {game['name']}",
            template="seat_confirm.txt.j2",
            context={"game": game["name"], "token": token, "days": O.CONFIRM_DAYS,
                     "power": power}, game_id=game["id"], message_id=mid)
        O.request_sent(actor.s, token, mid)

    ses.later.append(send)
    return (f"A confirmation request has been sent to {address}: it plays {power.title()} in "
            f"game {game['name']}, with the password you gave, once someone there sends back "
            f"the code in it (within {O.CONFIRM_DAYS} days); then everyone is told. Until "
            f"then {now_played}, and {address} is sent nothing else.",
            "text", None)


@_flow_first
def act(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game = actor.master_game(ses)
    power = G.power_name(G.get_variant(game["variant"]), cmd.args[0])
    actor.set_context(ses, game, power)
    assert ses.current is not None
    ses.current.by_master = True  # its player is told of the orders this mail changes
    return (f"You act as {power.title()} in game {game['name']}: the orders and commands that "
            "follow are that power's (its player is told of any change to its orders).",
            "text", None)


def _province(unit: str) -> str:
    return unit.split()[-1].split("/")[0].upper()


def _close_retreats(data: dict, province: str) -> None:
    """A unit EDIT ADD puts in ``province`` closes it to the dislodged units that could
    retreat there (their retreats were worked out when they were dislodged): one retreating
    there would share it."""
    for entries in data.get("dislodged", {}).values():
        for entry in entries:
            if isinstance(entry, dict) and entry.get("retreats") is not None:
                entry["retreats"] = [r for r in entry["retreats"]
                                     if r.split("/")[0].upper() != province]


def _dislodged_unit(entry: dict | str) -> str:
    """A dislodged entry's unit (a position may write it alone, without its retreats)."""
    return entry if isinstance(entry, str) else entry["unit"]


def _is_of_type(unit: str, kind: str) -> bool:
    """Whether ``unit`` (its text in the position) is of the type ``kind`` names: the same
    word (``A``, Chess Dip's ``K``, Stack 'em's ``2A``), or a letter among those of a stack
    or of a multiple unit (``A`` names ``2A BUR``, ``A/F SPA/NC``)."""
    word = unit.split()[0].upper()
    return word == kind or kind in {part.lstrip("0123456789") for part in word.split("/")}


def _remove_unit(data: dict, words: list[str], retreat_phase: bool) -> tuple[str, str]:
    """EDIT REMOVE [DISLODGED | STANDING] <type> <location> on the position's JSON: the change
    (``{name}`` for its owner) and the owner. In a retreat phase a province may hold the
    unit that moved in and the one it dislodged: the plain form names one of them only when
    the other is not of the type named. Outside one there is no dislodged unit to remove
    (Chess Dip's positions list the pieces a movement captured, gone already)."""
    which = words[0] if len(words) == 3 else None
    kind, at = words[-2], _province(words[-1])
    standing = [(p, u) for p, us in data.get("units", {}).items() for u in us
                if _province(u) == at]
    dislodged = [(p, _dislodged_unit(d)) for p, ds in data.get("dislodged", {}).items()
                 for d in ds if _province(_dislodged_unit(d)) == at] if retreat_phase else []
    candidates = [("standing", p, u) for p, u in standing if which != "DISLODGED"]
    candidates += [("dislodged", p, u) for p, u in dislodged if which != "STANDING"]
    named = [c for c in candidates if _is_of_type(c[2], kind)]
    if len(named) > 1:  # the very word written tells a stack from a multiple unit
        named = [c for c in named if c[2].split()[0].upper() == kind] or named
    noun = {"A": "army", "F": "fleet"}.get(kind, f"{kind} unit")
    if not named:
        there = [f"{p.title()} {u} stands there" for p, u in standing] + [
            f"{p.title()} {u} is dislodged there" for p, u in dislodged]
        if not there:
            raise GameError(f"there is no unit in {at}")
        # the province has a unit of another type, or none as DISLODGED/STANDING says
        noun = noun if candidates else "unit"
        noun = f"{which.lower()} {noun}" if which else noun
        raise GameError(f"there is no {noun} in {at} ({', '.join(there)})")
    if len(named) > 1:
        states = {state for state, _, _ in named}
        listed = [f"{p.title()} {u}, "
                  + ("which stands there" if state == "standing" else "dislodged")
                  for state, p, u in named]
        plural = {"A": "armies", "F": "fleets"}.get(kind, f"{kind} units")
        how = (f"write EDIT REMOVE DISLODGED {kind} {at} or EDIT REMOVE STANDING {kind} {at}"
               if len(states) == len(named) == 2
               else "EDIT REMOVE cannot tell them apart")
        count = "two" if len(named) == 2 else str(len(named))
        raise GameError(f"{at} holds {count} {plural}: {', '.join(listed[:-1])}, and "
                        f"{listed[-1]}; {how}")
    state, owner, unit = named[0]
    if state == "standing":
        data["units"][owner] = [u for u in data["units"][owner] if u != unit]
        return f"removed {{name}} {unit}", owner
    data["dislodged"][owner] = [d for d in data["dislodged"][owner]
                                if _dislodged_unit(d) != unit]
    return f"removed the dislodged {{name}} {unit}", owner


def _add_unit(variant: Variant, data: dict, power: str, kind: str, place: str) -> str:
    """EDIT ADD <power> <kind> <place> on the position's JSON: the unit as this variant
    writes it, added to ``data``, with what the province holds of ``power``'s after it when
    that differs (a Stack 'em stack grows: ``A BUR (BUR now holds France 3A BUR)``). The
    variant reads the unit as it reads any position (its ``read_position``: Stack 'em's
    ``2A BUR``, Chess Dip's ``K e1``, Multiplicity's ``A/F SPA/NC``, Hoplite's ``G ATH``)
    and says, refusing it, how its units are written; a province another unit holds is
    refused unless the variant lets the two share it."""
    at = _province(place)
    if at not in {p.upper() for p in variant.board.provinces}:
        raise GameError(f"{place!r} is not a province of the {variant.title} map")
    units = data.setdefault("units", {})
    there = [(p, u) for p, us in units.items() for u in us if _province(u) == at]
    name = power.title()

    def with_unit(text: str, others: bool) -> dict:
        """The position with ``text`` added for ``power``; without the units already in
        the province unless ``others`` (what the new unit alone is)."""
        kept = {p: [u for u in us if others or _province(u) != at] for p, us in units.items()}
        kept[power] = [*kept.get(power, []), text]
        return {**data, "units": kept}

    try:
        written = variant.write_position(variant.read_position(with_unit(f"{kind} {place}",
                                                                        True)))
    except (ValueError, KeyError) as exc:
        try:
            variant.read_position(with_unit(f"{kind} {place}", False))
        except (ValueError, KeyError) as alone:
            # the unit itself is not one of this variant's, or cannot stand there: a
            # fleet on a split coast stands on one of its coasts
            coasts = variant.board.provinces[_board_key(variant, at)].coasts
            fits = [c.upper() for c in coasts if "/" not in place
                    and _reads(variant, with_unit(f"{kind} {c.upper()}", False))]
            if fits:
                raise GameError(f"cannot add {name} {kind} {place}: a fleet in {at} stands on "
                                f"one of its coasts: write "
                                + " or ".join(f"{kind} {c}" for c in fits)) from None
            raise GameError(f"cannot add {name} {kind} {place}: {alone}") from None
        held = ", ".join(f"{p.title()} {u}" for p, u in there)
        # onto its own unit, the variant's reason says how the two would be one
        # (Multiplicity: 'one unit holds them all (written e.g. 2A SPA)')
        why = f" ({exc})" if any(p == power for p, _ in there) else ""
        raise GameError(f"{_board_key(variant, at)} is occupied ({held} stands there): remove that unit "
                        f"first{why}") from None
    units.setdefault(power, []).append(f"{kind} {place}")
    now = [u for u in written["units"].get(power, []) if _province(u) == at]
    if any(p == power for p, _ in there):  # the power's own unit there took it in
        return f"{kind} {place} ({at} now holds {name} {', '.join(now)})"
    return now[0] if len(now) == 1 else f"{kind} {place}"


def _board_key(variant: Variant, province: str) -> str:
    """The board's own spelling of ``province`` (Chess Dip's squares are lower-case)."""
    return next(p for p in variant.board.provinces if p.upper() == province)


def _reads(variant: Variant, data: dict) -> bool:
    """Whether ``data`` is a position this variant reads."""
    try:
        variant.read_position(data)
    except (ValueError, KeyError):
        return False
    return True


@_flow_first
def edit(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    s = actor.s
    game = actor.master_game(ses)
    if game["status"] not in ("active", "paused"):
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")
    variant = G.get_variant(game["variant"])
    row = s.position(game["id"], game["phase"])
    assert row is not None
    data = json.loads(row["position"])
    board = variant.board
    what = cmd.args[0].upper()
    centres: dict[str, list[str]] = data.setdefault("centres", {})

    if what == "ADD":
        power = G.power_name(variant, cmd.args[1])
        unit = _add_unit(variant, data, power, cmd.args[2].upper(), cmd.args[3].upper())
        _close_retreats(data, _province(cmd.args[3]))
        change, about, concerned = f"added {{name}} {unit}", power, [power]
    elif what == "REMOVE":
        change, about = _remove_unit(data, [a.upper() for a in cmd.args[1:]],
                                     game["phase"].endswith("R"))
        concerned = [about]
    else:
        centre = cmd.args[1].upper()
        if centre not in board.supply_centres:
            raise GameError(f"{cmd.args[1]!r} is not a supply centre")
        concerned = [p for p in centres if centre in centres[p]]  # its owner loses it
        about = None
        for p in centres:
            centres[p] = [c for c in centres[p] if c != centre]
        if cmd.args[2].upper() in ("NONE", "NEUTRAL"):
            change = f"{centre} is now neutral"
        else:
            power = G.power_name(variant, cmd.args[2])
            centres.setdefault(power, []).append(centre)
            centres[power].sort()
            change, about = f"{centre} now belongs to {{name}}", power
            concerned.append(power)
    try:
        pos = variant.read_position(data)
    except (ValueError, KeyError) as exc:
        raise GameError(f"that edit makes an impossible position: {exc}") from None
    s.save_position(game["id"], game["phase"], variant.write_position(pos))
    s.execute("DELETE FROM orders WHERE game_id = ? AND phase = ?", (game["id"], game["phase"]))
    # in a game that hides the board, each player is told only of its own units and centres
    hidden = flow_for(game).hidden
    # the power named as each reader knows it ({name}: a Gunboat pseudonym to a player)
    ses.later.append(lambda: N.edited(actor, G.refresh(s, game), [
        {"text": change, "about": about, "powers": concerned}], hidden=hidden))
    told = change.replace("{name}", about.title()) if about else change
    # a retreat phase whose last dislodged unit the edit removed has nothing to order: it
    # waits for its deadline like any other, which the master may not expect. Unless some
    # power still owes orders there (Stab!'s RETREATS NEXT_SEASON: the retreat phase takes
    # the next season's orders; a flow's vote): PROCESS then would go on without them
    # (a paused game refuses PROCESS and runs no deadline: RESUME first)
    resume = "once the game resumes (RESUME), " if game["status"] == "paused" else ""
    idle = (f" No unit is dislodged now: {resume}send PROCESS to go on at once, or "
            f"{pos.phase.long_name} is processed at its deadline."
            if pos.phase.kind == "R" and not pos.dislodged
            and not D.missing_powers(s, G.refresh(s, game)) else "")
    return (f"Position of game {game['name']} edited: {told}. Orders for {game['phase']} "
            f"were cleared (they were for the old position); everyone has been told.{idle}",
            "text", None)


@_flow_first
def endgame(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    game = actor.master_game(ses)
    if game["status"] == "finished":
        raise GameError(f"game {game['name']} has already ended")
    variant = G.get_variant(game["variant"])
    words = cmd.args
    if words and words[0].upper() == "DRAW":
        powers = sorted({G.power_name(variant, w) for w in words[1:]}) or (
            draws.survivors(actor.s, game) if game["phase"] else [])
        how = "drawn"
    elif words and words[0].upper() == "WINNER" and len(words) == 2:
        powers, how = [G.power_name(variant, words[1])], "conceded"
    elif not words:
        powers, how = [], "ended by the master"
    else:
        raise GameError("write ENDGAME, ENDGAME DRAW [<power> ...] or ENDGAME WINNER <power>")
    draws.finish(actor, game, how, powers)
    return f"Game {game['name']} is over; everyone has been told.", "text", None


@_flow_first
def pause(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    game = actor.master_game(ses)
    G.pause_game(s, game, now)
    ses.games_touched.add(game["id"])
    ses.later.append(lambda: N.paused(actor, G.refresh(s, game)))
    return (f"Game {game['name']} is paused; everyone has been told, and is reminded every day "
            "until you RESUME.", "text", None)


@_flow_first
def resume(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    now = actor.clock()
    s = actor.s
    game = G.resume_game(s, actor.master_game(ses), now)
    ses.games_touched.add(game["id"])
    ses.later.append(lambda: N.resumed(actor, G.refresh(s, game)))
    stage = flow_for(game).stage(s, game)
    if not stage.orders and stage.deadline is not None:
        # a flow's own stage (a vote) runs first: its deadline is the one the clock runs to
        tz = S.zone(game)
        return (f"Game {game['name']} resumed; deadline of {stage.title}: "
                f"{deadline_text(stage.deadline, now, tz)}{S.in_utc(stage.deadline, tz)}; "
                f"then of {game['phase']}: {_deadline(game, now)}. Everyone has been told.",
                "text", None)
    return (f"Game {game['name']} resumed; deadline "
            f"{_deadline(game, now)}. Everyone has been told.",
            "text", None)
