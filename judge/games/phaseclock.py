"""A phase's clock: its length, its deadline by the game's settings (time of day, weekdays,
players' absences), starting it and moving it. Below :mod:`judge.games.game` (which starts
phases) and :mod:`judge.games.deadlines` (which acts when they pass)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from judge.games import settings as S
from judge.storage import Store, iso, parse_iso

DAY = timedelta(days=1)


def phase_seconds(game: dict, kind: str) -> int:
    return int({"M": game["movement_seconds"], "R": game["retreat_seconds"],
                "A": game["adjustment_seconds"]}[kind])


# --------------------------------------------------------------- computing a deadline
def align(when: datetime, st: dict[str, Any]) -> datetime:
    """The first moment at or after ``when`` that is at the game's time of day (if set) on
    one of its weekdays (if set), both in the game's time zone."""
    tz = ZoneInfo(st["zone"])
    local = when.astimezone(tz)
    if st["time"]:
        h, m = (int(x) for x in st["time"].split(":"))
        cand = local.replace(hour=h, minute=m, second=0, microsecond=0)
        if cand < local:
            cand = (cand + DAY).replace(hour=h, minute=m)
        local = cand
    days = st["days"]
    for _ in range(8):
        if not days or local.weekday() in days:
            break
        nxt = local + DAY
        # re-localise: a day may be 23 or 25 hours long across a change of summer time
        local = datetime(nxt.year, nxt.month, nxt.day, local.hour, local.minute, tzinfo=tz)
    return local.astimezone(ZoneInfo("UTC"))


def compute_deadline(s: Store, game: dict, start: datetime, kind: str) -> datetime:
    """``start`` plus the phase's length, aligned, and pushed past any player's absence."""
    return fit_deadline(s, game, start + timedelta(seconds=phase_seconds(game, kind)))


def fit_deadline(s: Store, game: dict, when: datetime) -> datetime:
    """``when`` aligned to the game's time of day and weekdays, and pushed past any
    player's absence."""
    st = S.load(game)
    when = align(when, st)
    absences = _absences(s, game)
    for _ in range(len(absences) + 1):  # each absence can push the deadline at most once
        pushed = [until for begin, until in absences if begin <= when < until]
        if not pushed:
            break
        when = align(max(pushed), st)
    return when


def _absences(s: Store, game: dict) -> list[tuple[datetime, datetime]]:
    """The absences that move deadlines: those of powers with an active player."""
    return [(parse_iso(a["start"]), parse_iso(a["until"])) for a in s.all(
        "SELECT a.start, a.until FROM absences a JOIN players p ON p.game_id = a.game_id AND "
        "p.power = a.power WHERE a.game_id = ? AND p.state = 'active'", (game["id"],))]


def inside_absence(s: Store, game: dict, when: datetime) -> bool:
    """Whether ``when`` falls in an absence that moves deadlines: a deadline there was put
    there on purpose (the master's DEADLINE), since the judge's own are moved out."""
    return any(begin <= when < until for begin, until in _absences(s, game))


def begin_phase(s: Store, game: dict, now: datetime, kind: str,
                due: datetime | None = None) -> str:
    """Start the clock of a new phase (or a restarted one): returns the deadline (UTC ISO).
    ``due``: when its flow says it is due (else the game's length for ``kind``)."""
    deadline = iso(compute_deadline(s, game, now, kind) if due is None
                   else fit_deadline(s, game, due))
    s.execute("UPDATE games SET deadline = ?, phase_started = ?, early_at = NULL WHERE id = ?",
              (deadline, iso(now), game["id"]))
    return deadline


def deadline_moved(s: Store, game: dict, key: str | None = None) -> None:
    """The current deadline was changed (by the master, or an absence): the reminder and late
    notices of the phase (or of the stage named ``key``: a flow's own, a vote) are due
    again, relative to the new deadline."""
    prefix = f"{key or game['phase']}:"
    s.execute("DELETE FROM notices WHERE game_id = ? AND substr(key, 1, ?) = ?",
              (game["id"], len(prefix), prefix))
