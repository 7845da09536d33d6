"""Time: APScheduler jobs that wake the judge.

* one ``date`` job per running game at the next moment it has something to do (``wake_at``,
  stored in UTC by judge/games/deadlines.py: a reminder, the deadline, a late notice, the end
  of grace, early processing, a paused-game reminder); the jobs are rebuilt from the database
  at start-up and after every change, so a restart loses none;
* one ``date`` job at the next digest of mail held past the ceiling (judge/mail/outbox.py);
* an interval job that flushes the outbox (retries with backoff are due then);
* an interval job that pokes the IMAP poller when the server offers no IDLE.

Jobs do no work themselves: they wake the worker thread, which owns the game transactions.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler

from judge.config import Config
from judge.mail.outbox import next_digest
from judge.storage import Store, now_utc, parse_iso

log = logging.getLogger("judge.scheduler")


class Clock:
    """The scheduler. ``now`` injects a clock: then no wall-clock timer is set for games, and
    :meth:`advance` (called by whoever moves that clock, e.g. a test) wakes the worker for
    every game due at ``now()``; everything else (the judge's notion of time) is the same."""

    def __init__(self, wake_worker: Callable[[], None], wake_sender: Callable[[], None],
                 poll: Callable[[], None] | None, poll_seconds: float,
                 flush_seconds: float = 5.0, now: Callable[[], datetime] | None = None,
                 digest_minutes: int = Config().digest_minutes) -> None:
        self.wake_worker = wake_worker
        self.digest_wait = timedelta(minutes=digest_minutes)
        self._digest: datetime | None = None  # the next digest of held mail that is due
        self.now = now or now_utc
        self.manual = now is not None
        self.scheduler = BackgroundScheduler(timezone="UTC", job_defaults={
            "misfire_grace_time": None, "coalesce": True, "max_instances": 1})
        self.scheduler.add_job(wake_sender, "interval", seconds=flush_seconds, id="outbox")
        if poll is not None:
            self.scheduler.add_job(poll, "interval", seconds=max(1.0, poll_seconds),
                                   id="imap-poll")
        self._deadlines: dict[int, datetime] = {}

    def start(self) -> None:
        self.scheduler.start()

    def stop(self) -> None:
        self.scheduler.shutdown(wait=False)

    def sync(self, store: Store) -> None:
        """Make the game jobs match the database: each running game's next wake (the deadline
        engine's ``wake_at``: of any stage, a vote's deadline as well)."""
        wanted: dict[int, datetime] = {}
        for row in store.all("SELECT id, wake_at FROM games WHERE status IN ('active', "
                             "'paused') AND wake_at IS NOT NULL"):
            wanted[row["id"]] = parse_iso(row["wake_at"])
        for gid in list(self._deadlines):
            if gid not in wanted:
                self._remove(gid)
        for gid, when in wanted.items():
            if self.manual:
                self._deadlines[gid] = when
            elif self._deadlines.get(gid) != when:
                self.scheduler.add_job(self.wake_worker, "date", run_date=when,
                                       id=f"deadline-{gid}", replace_existing=True)
                self._deadlines[gid] = when
                log.info("game %s: deadline job at %s", gid, when.isoformat())
        digest = next_digest(store, self.digest_wait)
        if digest is not None and digest != self._digest and not self.manual:
            self.scheduler.add_job(self.wake_worker, "date", run_date=digest, id="digests",
                                   replace_existing=True)
        self._digest = digest

    def advance(self) -> list[int]:
        """With an injected clock: wake the worker if a game is due at ``now()``, or a digest
        of held mail; returns the games that were due (0 for the digests)."""
        now = self.now()
        due = sorted(gid for gid, when in self._deadlines.items() if when <= now)
        if self._digest is not None and self._digest <= now:
            due.append(0)
        if due:
            self.wake_worker()
        return due

    def _remove(self, gid: int) -> None:
        if self.manual:
            self._deadlines.pop(gid, None)
            return
        self._deadlines.pop(gid, None)
        with contextlib.suppress(Exception):  # it may have run already
            self.scheduler.remove_job(f"deadline-{gid}")

    def deadline_jobs(self) -> dict[int, datetime]:
        return dict(self._deadlines)
