"""The deadline engine: when each game's phase ends, and what the judge does around it.

A phase has a deadline (``games.deadline``, UTC). Around it, in this order:

* a **reminder** to each power without complete orders, ``reminder`` before the deadline
  (not when that moment falls before the phase began: a short phase gets none);
* at the deadline, if every power has ordered, the phase is processed; otherwise a **late
  notice** goes to the powers without orders, repeated every 24 hours during the **grace**
  (with no grace under ``process``, the one late notice says the phase is processed now, and
  goes just before the report);
* at the end of grace, the ``missed`` policy: ``process`` (civil disorder: unordered units hold,
  unordered retreats disband, removals by the rules, builds waived) or ``wait`` (for the orders
  or a replacement player; late notices continue daily). A power that misses ``abandon``
  phases in a row is declared abandoned and offered for takeover.
* **early processing**: once every power has complete orders and nobody has sent ``SET WAIT``
  (waits belong to a phase, so they clear themselves), the phase is processed ``settle``
  seconds later (the settling delay lets a player correct a mail sent a moment too soon).

Every one-off notice is recorded in the ``notices`` table under a key naming its phase, in the
same transaction that queues the mail, so a notice goes exactly once, also across a restart.
Nothing here reads the wall clock: the caller passes ``now`` (the judge's injectable clock).
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from judge.durations import parse_duration
from judge.games import game as G
from judge.games import notices as N
from judge.games import reporting
from judge.games import settings as S
from judge.games.flow import Stage, flow_for
from judge.games.phaseclock import (  # noqa: F401 (read from here too)
    DAY,
    align,
    begin_phase,
    compute_deadline,
    deadline_moved,
    fit_deadline,
)
from judge.storage import Store, iso, parse_iso
from judge.text import deadline_text

if TYPE_CHECKING:
    from judge.games.flow import FlowContext

log = logging.getLogger("judge.deadlines")


# ------------------------------------------------------------------------ state
def settle_seconds(cfg: Any, game: dict) -> int:
    st = S.load(game)
    if st["settle"] is not None:
        return int(st["settle"])
    return parse_duration(cfg.default_settle) or 0


def ordering_powers(s: Store, game: dict) -> list[str]:
    """Powers that have something to order this phase."""
    variant = G.get_variant(game["variant"])
    pos = G.current_position(s, game)
    return G.powers_to_order(variant, pos)


def missing_powers(s: Store, game: dict, stage: Stage | None = None) -> dict[str, list[str]]:
    """Power -> what it has not sent yet in the game's current stage (its orders, unless the
    flow runs another stage, e.g. a vote): every power not ready."""
    stage = stage or flow_for(game).stage(s, game)
    other = flow_for(game).waiting_for(s, game, stage)
    if other is not None:
        return other
    pos = G.current_position(s, game)
    out: dict[str, list[str]] = {}
    for power in ordering_powers(s, game):
        st = G.order_status(s, game, power, pos)
        if st.missing or not st.submitted:
            out[power] = st.missing or ["(no orders)"]
    return out


def waiting_powers(s: Store, game: dict) -> list[str]:
    return [r["power"] for r in s.all("SELECT power FROM waits WHERE game_id = ? AND phase = ?",
                                      (game["id"], game["phase"]))]


def done(s: Store, game: dict, key: str) -> bool:
    return s.one("SELECT 1 AS x FROM notices WHERE game_id = ? AND key = ?",
                 (game["id"], key)) is not None


def mark(s: Store, game: dict, key: str, now: datetime) -> None:
    s.execute("INSERT OR IGNORE INTO notices (game_id, key, at) VALUES (?, ?, ?)",
              (game["id"], key, iso(now)))


def paused_reminder(s: Store, game: dict, now: datetime) -> tuple[str, datetime]:
    """A paused game's next daily reminder: its notice key, and when it is due."""
    since = parse_iso(game["paused_at"]) if game["paused_at"] else now
    k = 1
    while done(s, game, f"paused:{game['paused_at']}:{k}"):
        k += 1
    return f"paused:{game['paused_at']}:{k}", since + k * DAY


def next_wake(s: Store, cfg: Any, game: dict, now: datetime) -> datetime | None:
    """The next moment this game has something to do (None: nothing until mail arrives)."""
    if game["status"] == "paused":
        return paused_reminder(s, game, now)[1]
    if game["status"] != "active":
        return None
    stage = flow_for(game).stage(s, game)
    if stage.deadline is None:
        return None
    deadline, key = stage.deadline, stage.key
    times: list[datetime] = []
    if game["early_at"]:
        times.append(parse_iso(game["early_at"]))
    if (at := reminder_at(s, game, stage)) is not None:
        times.append(at)
    grace_end = deadline + timedelta(seconds=stage.grace)
    k = 0
    while done(s, game, f"{key}:late:{k}"):
        k += 1
    if k == 0:
        times.append(deadline)  # not yet handled: process, or the first late notice
    else:  # late notices sent: the next one, and the end of grace
        late_at = deadline + k * DAY
        if late_at < grace_end or stage.missed == "wait":
            times.append(late_at)
        if stage.missed == "process" or not done(s, game, f"{key}:missed"):
            times.append(grace_end)
    # each entry is something not yet done, so a time in the past is due now
    return min(times)


def move_stage_deadline(s: Store, game: dict, stage: Stage, when: datetime, now: datetime,
                        absence: bool = False) -> list[str]:
    """Move the deadline of ``stage`` (one running now) to ``when``: the phase's, or, through
    the flow (:meth:`GameFlow.move_deadline`), a stage of its own such as a vote; either way
    its reminder and late notices are due again by the new time. Returns what the flow says
    of the deadlines that moved with it or stay (empty for the phase's)."""
    notes = flow_for(game).move_deadline(s, game, stage, when, now, absence=absence)
    if notes is None:
        G.set_deadline(s, game, when)
        return []
    deadline_moved(s, game, stage.key)
    return notes


# -------------------------------------------------------------------- the tick
def tick(actor: FlowContext, game: dict, now: datetime) -> list[G.Turn]:
    """Do what is due for one game at ``now`` (inside the caller's transaction)."""
    s = actor.s
    if game["status"] == "paused":
        key, at = paused_reminder(s, game, now)
        if now >= at:
            mark(s, game, key, now)
            N.paused(actor, game, reminder=True)
        return []
    if game["status"] != "active":
        return []
    stage = flow_for(game).stage(s, game)
    if stage.deadline is None:
        return []
    key, deadline = stage.key, stage.deadline
    missing = missing_powers(s, game, stage)
    if game["early_at"] and now >= parse_iso(game["early_at"]):
        if not missing and not waiting_powers(s, game):
            return process(actor, game, now, "early")
        s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
    remind(actor, game, now, missing, stage)
    if now < deadline:
        return []
    if not missing:
        return process(actor, game, now, "deadline")
    grace_end = deadline + timedelta(seconds=stage.grace)
    if not stage.orders:  # a flow's own stage (a vote) closes at its deadline
        return process(actor, game, now, "deadline")
    if now >= grace_end and stage.missed == "process":
        if not done(s, game, f"{key}:late:0"):  # no grace (or the judge was down through
            # it): the late powers have not been told yet; they are, before the report
            mark(s, game, f"{key}:late:0", now)
            N.late(actor, game, missing, grace_end, stage.missed, processed=True,
                   deadline=deadline)
        return process(actor, game, now, "civil disorder", missing)
    late(actor, game, now, missing, grace_end, stage)
    if now >= grace_end and stage.missed == "wait" and not done(s, game, f"{key}:missed"):
        mark(s, game, f"{key}:missed", now)
        count_misses(actor, game, missing, now)
    return []


def reminder_at(s: Store, game: dict, stage: Stage | None = None) -> datetime | None:
    """When the reminder of the current stage is due (None: none is, or it has been sent)."""
    stage = stage or flow_for(game).stage(s, game)
    st = S.load(game)
    if not st["reminder"] or stage.deadline is None or done(s, game, f"{stage.key}:reminder"):
        return None
    at = stage.deadline - timedelta(seconds=st["reminder"])
    return at if stage.started is None or at > stage.started else None


def remind(actor: FlowContext, game: dict, now: datetime, missing: dict[str, list[str]],
           stage: Stage) -> None:
    """The reminder, once it is due: to each power still without complete orders (or,
    in a flow's own stage, without what it asks for: votes)."""
    at = reminder_at(actor.s, game, stage)
    if at is None or now < at:
        return
    mark(actor.s, game, f"{stage.key}:reminder", now)  # due once, whoever needs it
    if missing and stage.deadline is not None and now < stage.deadline:
        N.reminder(actor, game, missing, stage.deadline, stage.words)


def late(actor: FlowContext, game: dict, now: datetime, missing: dict[str, list[str]],
         grace_end: datetime, stage: Stage) -> None:
    """The late notice of the day (the deadline has passed, orders are missing)."""
    s, key = actor.s, stage.key
    assert stage.deadline is not None
    k = int((now - stage.deadline) / DAY)
    if not done(s, game, f"{key}:late:{k}"):
        for j in range(k + 1):  # late notices not sent (judge down) are not sent in a burst
            mark(s, game, f"{key}:late:{j}", now)
        N.late(actor, game, missing, grace_end, stage.missed, deadline=stage.deadline)


def count_misses(actor: FlowContext, game: dict, missing: dict[str, list[str]], now: datetime
                 ) -> None:
    """Missed phases in a row per power; at the game's limit the power is abandoned."""
    s = actor.s
    limit = int(S.load(game)["abandon"])
    present = flow_for(game).took_part(s, game)
    for power in ordering_powers(s, game):
        player = s.player(game["id"], power)
        if player is None:
            continue
        if power not in missing or power in present:
            s.execute("UPDATE players SET missed = 0 WHERE id = ?", (player["id"],))
            continue
        missed = int(player["missed"]) + 1
        s.execute("UPDATE players SET missed = ? WHERE id = ?", (missed, player["id"]))
        if limit and missed >= limit and player["state"] == "active":
            s.execute("UPDATE players SET state = 'abandoned' WHERE id = ?", (player["id"],))
            s.execute("INSERT INTO player_changes (game_id, phase, power, change, at) "
                      "VALUES (?, ?, ?, 'abandoned', ?)", (game["id"], game["phase"], power,
                                                          iso(now)))
            N.abandoned(actor, G.refresh(s, game), power, missed)


def process(actor: FlowContext, game: dict, now: datetime, why: str,
            missing: dict[str, list[str]] | None = None, queue: bool = True
            ) -> list[G.Turn]:
    """Process the game's current stage: its flow's way, else adjudicate the phase.
    ``queue`` False leaves the standard reports to the caller (a reply goes first); returns
    the phases whose standard reports are still to send ([] when the flow sent its own)."""
    s = actor.s
    flow = flow_for(game)
    stage = flow.stage(s, game)
    if why in ("civil disorder", "deadline", "early") and stage.orders:
        count_misses(actor, game, missing or {}, now)
    game = G.refresh(s, game)
    own = flow.process(actor, game, now)
    turns = G.adjudicate(s, game, now) if own is None else own
    if own is None and queue:
        reporting.queue_turns(actor.outbox, s, turns)
    ahead_complete(actor, turns, now)
    log.info("game %s: %s processed (%s)", game["name"],
             ", ".join(str(t.previous.phase) for t in turns) or stage.title, why)
    return [] if own is not None else turns


def ahead_complete(actor: FlowContext, turns: list[G.Turn], now: datetime) -> None:
    """Orders sent ahead became the new phase's orders (judge/games/ahead.py): when they
    complete every power's orders, the phase is processed early, as if they had just been
    sent (after the settling delay, unless someone waits): the next tick does it."""
    if not turns or not any(t.ahead for t in turns):
        return
    s = actor.s
    game = G.refresh(s, turns[-1].game)
    if game["status"] != "active" or missing_powers(s, game) or waiting_powers(s, game):
        return
    at = now + timedelta(seconds=settle_seconds(actor.cfg, game))
    s.execute("UPDATE games SET early_at = ? WHERE id = ?", (iso(at), game["id"]))


def after_orders(actor: FlowContext, game: dict, now: datetime) -> tuple[str, list[G.Turn]]:
    """Orders changed: if everyone has ordered and nobody waits, process now or after the
    settling delay. Returns (what to tell the sender, turns processed now)."""
    s = actor.s
    game = G.refresh(s, game)
    if game["status"] != "active":
        return "", []
    stage = flow_for(game).stage(s, game)
    if stage.deadline is None:
        return "", []
    if missing_powers(s, game, stage):
        if game["early_at"]:
            s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
        return "", []
    # a wait keeps a phase from being processed early: once its deadline has passed (in
    # grace, or waiting for late orders) the last orders process it as if nobody waited
    waits = waiting_powers(s, game) if now < stage.deadline else []
    if waits:
        return (f"Every power in game {game['name']} has ordered, but "
                f"{', '.join(w.title() for w in waits)} asked to wait (SET WAIT): the phase "
                f"is processed at the deadline or when nobody waits any more.", [])
    settle = settle_seconds(actor.cfg, game)
    done_what = "ordered" if stage.orders else f"sent its {stage.words}"
    if settle <= 0:
        turns = process(actor, game, now, "early", queue=False)
        g = G.refresh(s, game)
        return (f"Every power in game {g['name']} has now {done_what}, so "
                f"{', '.join(str(t.previous.phase) for t in turns) or stage.title} has been "
                f"processed; the report is on its way. Next: {g['phase']}.", turns)
    at = now + timedelta(seconds=settle)
    deadline = stage.deadline
    if now < deadline <= at:  # the deadline comes first and processes it (nobody is missing)
        return (f"Every power in game {game['name']} has now {done_what}: {stage.title} is "
                f"processed at its deadline.", [])
    # before the deadline, or late (in grace, or waiting for orders): after the settling delay
    s.execute("UPDATE games SET early_at = ? WHERE id = ?", (iso(at), game["id"]))
    return (f"Every power in game {game['name']} has now {done_what}: {stage.title} will be "
            f"processed early, at {deadline_text(at, now, S.zone(game))}, unless "
            f"{stage.words} change or someone sends SET WAIT before then.", [])


def run_due(actor: FlowContext, now: datetime) -> int:
    """Tick every running game that has something due; store each game's next wake time
    (what the scheduler reads). Returns how many phases were processed. A game whose turn
    raises is contained (:func:`contain_failure`): the games after it go on."""
    count = 0
    for row in actor.s.all("SELECT id, wake_at FROM games WHERE status IN ('active', "
                           "'paused') ORDER BY id"):
        try:
            count += _run_game(actor, row["id"], row["wake_at"], now)
        except Exception as exc:  # one broken game must not hold up the others
            contain_failure(actor, row["id"], exc, now)
    return count


def _run_game(actor: FlowContext, gid: int, wake_at: str | None, now: datetime) -> int:
    """What is due in one game, in one transaction; how many phases were processed."""
    s = actor.s
    count = 0
    with s.snapshot():  # one view of the game: another thread may commit between reads
        game = s.game_by_id(gid)
        wake = next_wake(s, actor.cfg, game, now) if game else None
    if (wake is None or wake > now) and (iso(wake) if wake else None) == wake_at:
        return 0  # nothing due and the scheduler already knows: no write
    with s.transaction():
        game = s.game_by_id(gid)
        if game is None:
            return 0
        wake = next_wake(s, actor.cfg, game, now)
        for _ in range(20):  # several things may be due at once (a long downtime)
            if wake is None or wake > now:
                break
            count += len(tick(actor, game, now))
            game = s.game_by_id(gid)
            if game is None:
                break
            again = next_wake(s, actor.cfg, game, now)
            if again == wake:
                break
            wake = again
        s.execute("UPDATE games SET wake_at = ? WHERE id = ?",
                  (iso(wake) if wake else None, gid))
    return count


# ------------------------------------------------------------- a game that fails
def short_reason(exc: BaseException, limit: int = 300) -> str:
    """What failed, for the master: the exception's type and message on one line, cut short
    (never the traceback: that is in the log, under the log reference)."""
    try:
        message = f"{exc}"
    except Exception:  # its own message raises: the master still learns its type
        message = "(its message could not be read)"
    text = " ".join(f"{type(exc).__name__}: {message}".split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def log_reference(gid: int | None) -> str:
    """A failure's reference, in the ERROR log line with its traceback and in the mail to the
    game's master (who passes it on to the host)."""
    return f"g{gid}-{secrets.token_hex(4)}" if gid is not None else secrets.token_hex(4)


def render_failed(actor: FlowContext, gid: int, failed: dict[int, tuple[str, str]],
                  now: datetime) -> str:
    """Mail of game ``gid`` could not be rendered after its transaction (``failed``: outbox
    id -> the reason, :func:`short_reason`, and the traceback, from the painter's worker
    process); each was sent a plain text in its place (outbox.plain_message). Log the
    traceback under a log reference, and tell the game's master, once while the game is
    in its phase (a phase's reports fail for every reader alike). Returns the reference."""
    s = actor.s
    ref = log_reference(gid)
    reason, trace = next(iter(failed.values()))
    name, told = f"#{gid}", "its master was told already"
    try:
        # the game read in the transaction that marks it: a master's ROLLBACK committed
        # between a read before it and the mark made the mark name a phase undone (whose
        # notices the ROLLBACK had deleted), and the phase played again was never told
        with s.transaction():
            game = s.game_by_id(gid)
            name = game["name"] if game else name
            key = f"{game['phase']}:render-failed" if game and game["phase"] else None
            if game is not None and key is not None and not done(s, game, key):
                marks = ", ".join("?" * len(failed))
                counts: dict[str, int] = {}
                for r in s.all(f"SELECT subject FROM outbox WHERE id IN ({marks}) "
                               "ORDER BY id", list(failed)):
                    counts[r["subject"]] = counts.get(r["subject"], 0) + 1
                mark(s, game, key, now)
                N.render_failed(actor, game, list(counts.items()), reason, ref)
                told = "its master is told"
    except Exception:  # its master is not told; the readers have their plain text
        told = "its master could not be told"
        log.exception("game %s: could not tell its master that its mail could not be "
                      "rendered (log reference %s)", name, ref)
    log.error("game %s: %d mail(s) could not be rendered, each sent as a plain text in its "
              "place; %s (log reference %s): %s\n%s", name, len(failed), told, ref, reason,
              trace)
    return ref


def contain_failure(actor: FlowContext, gid: int, exc: BaseException, now: datetime) -> str:
    """Doing what was due for game ``gid`` raised ``exc`` (its transaction is rolled back:
    nothing of it was applied). Contain it to that game: log the traceback under a log
    reference, pause the game with the reason (so it is not tried again at every tick; the
    master's RESUME tries again), tell its master what failed and its players that the phase
    is delayed. Returns the log reference."""
    s = actor.s
    ref = log_reference(gid)
    if isinstance(exc, sqlite3.OperationalError) and any(
            word in str(exc) for word in ("locked", "busy")):
        # the database was busy (another process holds it): not this game's fault, and
        # pausing it would fail the same way; it is due again at the next tick
        log.error("game %s: the database was busy, tried again later (log reference %s)",
                  gid, ref, exc_info=exc)
        return ref
    try:
        game = s.game_by_id(gid)
    except Exception:  # the database itself: the log line still goes
        game = None
    name, phase = (game["name"], game["phase"]) if game else (f"#{gid}", None)
    log.error("game %s: processing %s failed, %s (log reference %s)", name, phase or "it",
              "the game is paused" if game and game["status"] == "active" else
              "tried again tomorrow", ref, exc_info=exc)
    for tell in (True, False):  # if even the mail about it fails, the game is still paused
        try:
            with s.transaction():
                _pause_failed(actor, gid, exc, ref, now, tell)
            return ref
        except Exception:
            log.exception("game %s: %s after its failure (log reference %s)", name,
                          "could not tell its master and players" if tell else
                          "could not pause it", ref)
    return ref


def _pause_failed(actor: FlowContext, gid: int, exc: BaseException, ref: str, now: datetime,
                  tell: bool) -> None:
    s = actor.s
    game = s.game_by_id(gid)
    if game is None:
        return
    if game["status"] == "active":
        try:
            what = flow_for(game).stage(s, game).title or game["phase"]
        except Exception:
            what = game["phase"]
        why = (f"internal error while processing {what}: {type(exc).__name__} "
               f"(log reference {ref})")
        game = G.pause_game(s, game, now, why)
        if tell:
            N.failed(actor, game, what, short_reason(exc), ref)
    elif game["status"] == "paused":  # its daily reminder failed: tried again tomorrow
        mark(s, game, paused_reminder(s, game, now)[0], now)
    wake = next_wake(s, actor.cfg, game, now)
    s.execute("UPDATE games SET wake_at = ? WHERE id = ?", (iso(wake) if wake else None, gid))
