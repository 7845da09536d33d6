"""Time: APScheduler jobs that wake the judge.

* one ``date`` job per running game at its deadline (stored in UTC in the database; the jobs
  are rebuilt from the database at start-up and after every change, so a restart loses none);
* an interval job that flushes the outbox (retries with backoff are due then);
* an interval job that pokes the IMAP poller when the server offers no IDLE.

Jobs do no work themselves: they wake the worker thread, which owns the game transactions.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from apscheduler.schedulers.background import BackgroundScheduler

from judge.games import drivers
from judge.storage import Store, parse_iso

log = logging.getLogger("judge.scheduler")


class Clock:
    def __init__(self, wake_worker: Callable[[], None], wake_sender: Callable[[], None],
                 poll: Callable[[], None] | None, poll_seconds: float,
                 flush_seconds: float = 5.0) -> None:
        self.wake_worker = wake_worker
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
        """Make the deadline jobs match the database (active games and their deadlines)."""
        wanted = {row["id"]: parse_iso(row["deadline"]) for row in store.all(
            "SELECT id, deadline FROM games WHERE status = 'active' AND deadline IS NOT NULL")}
        for gid, when in drivers.wakeups(store).items():  # e.g. Dipnomicy's vote deadlines
            wanted[gid] = min(when, wanted.get(gid, when))
        for gid in list(self._deadlines):
            if gid not in wanted:
                self._remove(gid)
        for gid, when in wanted.items():
            if self._deadlines.get(gid) != when:
                self.scheduler.add_job(self.wake_worker, "date", run_date=when,
                                       id=f"deadline-{gid}", replace_existing=True)
                self._deadlines[gid] = when
                log.info("game %s: deadline job at %s", gid, when.isoformat())

    def _remove(self, gid: int) -> None:
        self._deadlines.pop(gid, None)
        with contextlib.suppress(Exception):  # it may have run already
            self.scheduler.remove_job(f"deadline-{gid}")

    def deadline_jobs(self) -> dict[int, datetime]:
        return dict(self._deadlines)
