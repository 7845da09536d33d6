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
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from judge import reports
from judge.durations import parse_duration
from judge.games import game as G
from judge.games import notices as N
from judge.games import settings as S
from judge.games.flow import flow_for
from judge.games.phaseclock import (  # noqa: F401 (read from here too)
    DAY,
    align,
    begin_phase,
    compute_deadline,
    deadline_moved,
)
from judge.mail.compose import deadline_text
from judge.storage import Store, iso, parse_iso

if TYPE_CHECKING:
    from judge.games.acting import Actor

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


def missing_powers(s: Store, game: dict) -> dict[str, list[str]]:
    """Power -> what it has not ordered yet, for every power whose orders are incomplete."""
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


def next_wake(s: Store, cfg: Any, game: dict, now: datetime) -> datetime | None:
    """The next moment this game has something to do (None: nothing until mail arrives)."""
    if game["status"] == "paused":
        since = parse_iso(game["paused_at"]) if game["paused_at"] else now
        k = 1
        while done(s, game, f"paused:{game['paused_at']}:{k}"):
            k += 1
        return since + k * DAY
    if game["status"] != "active" or not game["deadline"]:
        return None
    st = S.load(game)
    deadline = parse_iso(game["deadline"])
    times: list[datetime] = []
    if game["early_at"]:
        times.append(parse_iso(game["early_at"]))
    phase = game["phase"]
    if (at := reminder_at(s, game)) is not None:
        times.append(at)
    grace_end = deadline + timedelta(seconds=st["grace"])
    k = 0
    while done(s, game, f"{phase}:late:{k}"):
        k += 1
    if k == 0:
        times.append(deadline)  # not yet handled: process, or the first late notice
    else:  # late notices sent: the next one, and the end of grace
        late_at = deadline + k * DAY
        if late_at < grace_end or st["missed"] == "wait":
            times.append(late_at)
        if st["missed"] == "process" or not done(s, game, f"{phase}:missed"):
            times.append(grace_end)
    # each entry is something not yet done, so a time in the past is due now
    return min(times)


# -------------------------------------------------------------------- the tick
def tick(actor: Actor, game: dict, now: datetime) -> list[G.Turn]:
    """Do what is due for one game at ``now`` (inside the caller's transaction)."""
    s = actor.s
    if game["status"] == "paused":
        k = 1
        while done(s, game, f"paused:{game['paused_at']}:{k}"):
            k += 1
        since = parse_iso(game["paused_at"]) if game["paused_at"] else now
        if now >= since + k * DAY:
            mark(s, game, f"paused:{game['paused_at']}:{k}", now)
            N.paused(actor, game, reminder=True)
        return []
    if game["status"] != "active" or not game["deadline"]:
        return []
    st = S.load(game)
    phase = game["phase"]
    deadline = parse_iso(game["deadline"])
    missing = missing_powers(s, game)
    if game["early_at"] and now >= parse_iso(game["early_at"]):
        if not missing and not waiting_powers(s, game):
            return process(actor, game, now, "early")
        s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
    remind(actor, game, now, missing)
    if now < deadline:
        return []
    if not missing:
        return process(actor, game, now, "deadline")
    grace_end = deadline + timedelta(seconds=st["grace"])
    if now >= grace_end and st["missed"] == "process":
        if not done(s, game, f"{phase}:late:0"):  # no grace (or the judge was down through
            # it): the late powers have not been told yet; they are, before the report
            mark(s, game, f"{phase}:late:0", now)
            N.late(actor, game, missing, grace_end, st["missed"], processed=True)
        return process(actor, game, now, "civil disorder", missing)
    late(actor, game, now, missing, grace_end, st["missed"])
    if now >= grace_end and st["missed"] == "wait" and not done(s, game, f"{phase}:missed"):
        mark(s, game, f"{phase}:missed", now)
        count_misses(actor, game, missing, now)
    return []


def reminder_at(s: Store, game: dict) -> datetime | None:
    """When the reminder of the current phase is due (None: none is, or it has been sent)."""
    st = S.load(game)
    if not st["reminder"] or not game["deadline"] or done(s, game, f"{game['phase']}:reminder"):
        return None
    at = parse_iso(game["deadline"]) - timedelta(seconds=st["reminder"])
    started = parse_iso(game["phase_started"]) if game["phase_started"] else None
    return at if started is None or at > started else None


def remind(actor: Actor, game: dict, now: datetime, missing: dict[str, list[str]]) -> None:
    """The reminder, once it is due: to each power still without complete orders."""
    at = reminder_at(actor.s, game)
    if at is None or now < at:
        return
    mark(actor.s, game, f"{game['phase']}:reminder", now)  # due once, whoever needs it
    if missing and now < parse_iso(game["deadline"]):
        N.reminder(actor, game, missing)


def late(actor: Actor, game: dict, now: datetime, missing: dict[str, list[str]],
         grace_end: datetime, policy: str) -> None:
    """The late notice of the day (the deadline has passed, orders are missing)."""
    s, phase = actor.s, game["phase"]
    k = int((now - parse_iso(game["deadline"])) / DAY)
    if not done(s, game, f"{phase}:late:{k}"):
        for j in range(k + 1):  # late notices not sent (judge down) are not sent in a burst
            mark(s, game, f"{phase}:late:{j}", now)
        N.late(actor, game, missing, grace_end, policy)


def count_misses(actor: Actor, game: dict, missing: dict[str, list[str]], now: datetime
                 ) -> None:
    """Missed phases in a row per power; at the game's limit the power is abandoned."""
    s = actor.s
    limit = int(S.load(game)["abandon"])
    for power in ordering_powers(s, game):
        player = s.player(game["id"], power)
        if player is None:
            continue
        if power not in missing:
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


def process(actor: Actor, game: dict, now: datetime, why: str,
            missing: dict[str, list[str]] | None = None, queue: bool = True) -> list[G.Turn]:
    """Adjudicate; ``queue`` False leaves the reports to the caller (a reply goes first)."""
    s = actor.s
    if why in ("civil disorder", "deadline", "early"):
        count_misses(actor, game, missing or {}, now)
    turns = G.adjudicate(s, G.refresh(s, game), now)
    if queue:
        reports.queue_turns(actor.outbox, s, turns)
    ahead_complete(actor, turns, now)
    log.info("game %s: %s processed (%s)", game["name"],
             ", ".join(str(t.previous.phase) for t in turns), why)
    return turns


def ahead_complete(actor: Actor, turns: list[G.Turn], now: datetime) -> None:
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


def after_orders(actor: Actor, game: dict, now: datetime) -> tuple[str, list[G.Turn]]:
    """Orders changed: if everyone has ordered and nobody waits, process now or after the
    settling delay. Returns (what to tell the sender, turns processed now)."""
    s = actor.s
    game = G.refresh(s, game)
    if game["status"] != "active":
        return "", []
    if missing_powers(s, game):
        if game["early_at"]:
            s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
        return "", []
    waits = waiting_powers(s, game)
    if waits:
        return (f"Every power in game {game['name']} has ordered, but "
                f"{', '.join(w.title() for w in waits)} asked to wait (SET WAIT): the phase "
                f"is processed at the deadline or when nobody waits any more.", [])
    settle = settle_seconds(actor.cfg, game)
    if settle <= 0:
        turns = process(actor, game, now, "early", queue=False)
        g = G.refresh(s, game)
        return (f"Every power in game {g['name']} has now ordered, so "
                f"{', '.join(str(t.previous.phase) for t in turns)} has been processed; "
                f"the report is on its way. Next: {g['phase']}.", turns)
    at = now + timedelta(seconds=settle)
    deadline = parse_iso(game["deadline"]) if game["deadline"] else at
    if now < deadline <= at:  # the deadline comes first and processes it (nobody is missing)
        return (f"Every power in game {game['name']} has now ordered: {game['phase']} is "
                f"processed at its deadline.", [])
    # before the deadline, or late (in grace, or waiting for orders): after the settling delay
    s.execute("UPDATE games SET early_at = ? WHERE id = ?", (iso(at), game["id"]))
    return (f"Every power in game {game['name']} has now ordered: {game['phase']} will be "
            f"processed early, at {deadline_text(at, now, S.zone(game))}, unless orders "
            f"change or someone sends SET WAIT before then.", [])


def grace_end(s: Store, game: dict) -> datetime:
    """When a game's grace ends: its deadline plus its grace as its flow says."""
    return parse_iso(game["deadline"]) + timedelta(seconds=flow_for(game).grace(s, game))


def _own_cycle_wake(s: Store, game: dict) -> datetime | None:
    """The next notice due of a game whose flow runs its own cycle: its reminder, or, in
    its grace, the next late notice or the end of grace."""
    if game["status"] != "active" or not game["deadline"]:
        return None
    times = [t for t in [reminder_at(s, game)] if t is not None]
    deadline, end = parse_iso(game["deadline"]), grace_end(s, game)
    if end > deadline:
        k = 0
        while done(s, game, f"{game['phase']}:late:{k}"):
            k += 1
        times.append(deadline + k * DAY if deadline + k * DAY < end else end)
    return min(times) if times else None


def _notices_own_cycle(actor: Actor, game: dict, known: str | None, now: datetime) -> None:
    """A game whose flow runs its own cycle (GameFlow.due processes it): the deadline
    engine sends its reminder and, while the game's grace runs, its late notices;
    ``wake_at`` is when the next is due (the scheduler also wakes the game at its
    deadline)."""
    s = actor.s
    wake = _own_cycle_wake(s, game)
    if wake is not None and wake <= now:
        try:
            with s.transaction():
                missing = missing_powers(s, game)
                remind(actor, game, now, missing)
                deadline = parse_iso(game["deadline"])
                end = grace_end(s, game)
                if missing and deadline <= now < end:
                    late(actor, game, now, missing, end, "process")
        except Exception:  # one broken game must not hold up the others
            log.exception("game %s: notices failed", game["id"])
        wake = _own_cycle_wake(s, game)
    if (iso(wake) if wake else None) != known:
        s.execute("UPDATE games SET wake_at = ? WHERE id = ?",
                  (iso(wake) if wake else None, game["id"]))


def run_due(actor: Actor, now: datetime) -> int:
    """Tick every running game that has something due; store each game's next wake time
    (what the scheduler reads). Returns how many phases were processed."""
    s = actor.s
    count = 0
    for row in s.all("SELECT id, wake_at FROM games WHERE status IN ('active', 'paused') "
                     "ORDER BY id"):
        gid = row["id"]
        game = s.game_by_id(gid)
        if game and flow_for(game).own_cycle:  # it processes its phases itself
            _notices_own_cycle(actor, game, row["wake_at"], now)
            continue
        wake = next_wake(s, actor.cfg, game, now) if game else None
        if (wake is None or wake > now) and (iso(wake) if wake else None) == row["wake_at"]:
            continue  # nothing due and the scheduler already knows: no write
        try:
            with s.transaction():
                game = s.game_by_id(gid)
                if game is None:
                    continue
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
        except Exception:  # one broken game must not hold up the others
            log.exception("game %s: deadline handling failed", gid)
    return count
