"""``judge serve``: intake, the worker (acting + deadlines), the scheduler and the sender in one
process; stops cleanly on SIGTERM/SIGINT.

Threads: the intake (aiosmtpd's loop thread, or the IMAP poller) only stores mail and wakes the
worker; the worker acts on the inbox, one transaction per message, and wakes the deadline
worker, which acts on due games, one transaction per game (so mail is answered while a
thousand games are due at once);
the games' mail other than replies is rendered after the transaction: the transaction
stores each message's job (template, context, headers, the picture's SVG) and the painter has
a pool of worker processes (one per core) render the text, rasterise the picture and build
the message, and releases each game's mail in one short transaction (judge/mail/outbox.py);
all the threads' transactions take turns (_Turns);
the sender drains the outbox; APScheduler wakes the deadline worker at deadlines and the sender for
retries. Each thread has its own database connection.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from datetime import UTC, datetime
from typing import Any

from judge.archive import write as archive
from judge.archive.store import release_pictures
from judge.archive.web import ArchiveServer
from judge.check import os_error_words
from judge.config import Config, ConfigError, load_config
from judge.games.acting import Actor
from judge.games.deadlines import render_failed, short_reason
from judge.games.flow import Chance, system_chance
from judge.mail.intake import ImapIntake, SmtpReceiver
from judge.mail.outbox import (
    attach_picture,
    finish_jobs,
    jobs_to_render,
    pictures_to_draw,
    render_job,
)
from judge.mail.sender import Sender
from judge.render.raster import png  # the pure function the pool runs (picklable)
from judge.scheduler import Clock
from judge.storage import Store, UnusableDatabase, hold_database, inspect_database, now_utc

log = logging.getLogger("judge")


class _Loop(threading.Thread):
    """A thread that runs ``step`` whenever woken (and at least every ``every`` seconds)."""

    def __init__(self, name: str, setup: Callable[[], Any], step: Callable[[Any], None],
                 every: float) -> None:
        super().__init__(name=name, daemon=True)
        self.setup, self.step, self.every = setup, step, every
        self.event = threading.Event()
        self.stopping = threading.Event()
        self.ready = threading.Event()

    def wake(self) -> None:
        self.event.set()

    def stop(self) -> None:
        self.stopping.set()
        self.event.set()

    def run(self) -> None:
        state = self.setup()
        self.ready.set()
        while True:
            self.event.clear()
            try:
                self.step(state)
            except Exception:
                log.exception("%s: step failed", self.name)
                self.stopping.wait(1.0)
            if self.stopping.is_set():
                break
            self.event.wait(self.every)
        close = getattr(state, "close", None)
        if callable(close):
            close()


class _Turns:
    """A first-come, first-served lock: SQLite's busy handler lets a thread that commits and
    begins again at once keep the database for itself, so the deadline worker (a thousand
    games' transactions back to back) would starve the worker answering mail. Their
    transactions take turns here instead."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.next_ticket = self.serving = 0

    def __enter__(self) -> None:
        with self.cond:
            ticket, self.next_ticket = self.next_ticket, self.next_ticket + 1
            self.cond.wait_for(lambda: self.serving == ticket)

    def __exit__(self, *exc: object) -> None:
        with self.cond:
            self.serving += 1
            self.cond.notify_all()


class _TakingTurns(Store):
    """A Store whose outermost transactions take turns with the other threads' (_Turns);
    ``after_commit`` is called after each of them commits (the service wakes the painter:
    a game's mail is rendered as soon as its transaction is done, not after the batch)."""

    def __init__(self, path: Any, turns: _Turns, clock: Callable[[], datetime],
                 after_commit: Callable[[], None] | None = None) -> None:
        super().__init__(path, clock)
        self.turns = turns
        self.after_commit = after_commit

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Store]:
        if self.db.conn.in_transaction:  # nested: part of the outer transaction
            with super().transaction():
                yield self
            return
        with self.turns, super().transaction():
            yield self
        if self.after_commit is not None:
            self.after_commit()


def pool_size() -> int:
    """Rendering processes: as many as the machine has cores. The workers' transactions
    are short (the rendering left them), so the pool does most of the work of a deadline;
    while the workers are busy they share the cores with it, and when they are idle the
    pool has them all."""
    return max(1, os.cpu_count() or 2)


def render_pool(size: int | None = None) -> ProcessPoolExecutor:
    """The pool of rendering processes (spawned: a fork would copy the judge's threads and
    open database connections); each process leaves when the judge is gone."""
    return ProcessPoolExecutor(size or pool_size(), mp_context=multiprocessing.get_context("spawn"),
                               initializer=_leave_with_parent, initargs=(os.getpid(),))


def _leave_with_parent(parent: int, every: float = 1.0) -> None:
    """In each rendering process: exit once the judge that started it is gone. A judge
    stopped cleanly shuts its pool down; one killed (SIGKILL, the OOM killer) cannot, and its
    idle rendering processes would wait for work for ever, each holding its caches."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="leave-with-parent", daemon=True).start()


Failed = dict[int, tuple[str, str]]  # outbox id -> why its job could not be rendered, traceback


def _render_one(oid: int, blob: bytes, picture: tuple[str, bytes] | None,
                bad_jobs: Failed) -> bytes | None:
    """One job's message; tried again without its picture when it fails with it. None (and
    why, in ``bad_jobs``): it cannot be rendered, a plain text goes in its place
    (outbox.finish_jobs)."""
    try:
        return render_job(blob, picture)
    except Exception as exc:
        if picture is not None:
            with contextlib.suppress(Exception):
                return render_job(blob, None)
        bad_jobs[oid] = (short_reason(exc), traceback.format_exc())
        return None


def _render_group(jobs: list[tuple[int, int | None, bytes]],
                  pictures: dict[int, tuple[str, str]], kept: frozenset[int] = frozenset()
                  ) -> tuple[list[tuple[int, bytes | None]], dict[int, str], Failed,
                             dict[int, bytes]]:
    """In a worker process: draw one game's pictures (id -> filename, SVG) and render its
    stored jobs (outbox id, picture id, job) with them. Returns the messages (None: could
    not be rendered), the pictures and jobs that failed, with why (the painter logs, and has
    the game's master told of the jobs), and the PNG of each picture of ``kept`` drawn (the
    web archive's: outbox.finish_jobs keeps it)."""
    drawn: dict[int, tuple[str, bytes]] = {}
    bad_pictures: dict[int, str] = {}
    for pid, (filename, svg) in pictures.items():
        try:
            drawn[pid] = (filename, png(svg))
        except Exception as exc:  # the reports go without it
            bad_pictures[pid] = f"{filename}: {type(exc).__name__}: {exc}"
    bad_jobs: Failed = {}
    out = [(oid, _render_one(oid, blob, drawn.get(pid) if pid is not None else None, bad_jobs))
           for oid, pid, blob in jobs]
    return out, bad_pictures, bad_jobs, {pid: drawn[pid][1] for pid in kept if pid in drawn}


class _Painter:
    """Renders the mail that waits in the outbox (jobs stored by the games' transactions:
    the text, the picture, the message) and draws the pictures of reports queued without a
    job, in worker processes, and releases the mail (one short transaction per game). A
    picture that fails or takes more than ``limit`` seconds is logged and its reports go
    without it. A message that cannot be rendered goes as a plain text in its place, and
    ``failed`` is called with its game's id and why (the service's tells its master);
    without ``failed`` it is only logged."""

    def __init__(self, store: Store, wake_sender: Callable[[], None], limit: float = 120.0,
                 stopping: threading.Event | None = None,
                 failed: Callable[[int, Failed], None] | None = None) -> None:
        self.store, self.wake_sender, self.limit = store, wake_sender, limit
        self.stopping = stopping or threading.Event()  # set: stop after the batch in hand
        self.failed = failed
        self.pool: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = render_pool()
        return self.pool

    def step(self) -> None:
        # a batch of pictures (the MAP replies' first), then the games' mail, in turn: a
        # flood of MAP mails kept pictures waiting and held every report back behind them
        while self._draw_pictures() and not self.stopping.is_set():
            self._render_jobs()
        self._render_jobs()

    def _render_jobs(self) -> None:
        """Keep the pool busy with games' jobs (two groups a process in hand) until none is
        left; each group is released in its own transaction as it comes back."""
        hand: dict[Future, tuple[int, list[dict], float]] = {}
        while True:
            room = 2 * pool_size() - len(hand)
            if room > 0 and not self.stopping.is_set():
                groups = jobs_to_render(self.store, room, {g for g, _, _ in hand.values()})
                for g, rows in groups.items():
                    pictures = {r["picture_id"]: (r["filename"], r["svg"]) for r in rows
                                if r["picture_id"] is not None and r["svg"] is not None}
                    jobs = [(r["outbox_id"], r["picture_id"], r["job"]) for r in rows]
                    kept = frozenset(r["picture_id"] for r in rows if r["kept"])
                    try:
                        fut = self._pool().submit(_render_group, jobs, pictures, kept)
                    except Exception:  # a broken pool: a new one next time
                        log.exception("mail of group %s could not be sent to the pool", g)
                        self.close()
                        self._render_here(rows)
                        continue
                    hand[fut] = (g, rows, time.monotonic())
            if not hand:
                return
            done, _ = wait(hand, timeout=1.0, return_when=FIRST_COMPLETED)
            for fut in done:
                g, rows, _ = hand.pop(fut)
                try:
                    rendered, bad_pictures, bad_jobs, drawn = fut.result()
                except Exception:
                    log.exception("mail of group %s could not be rendered in the pool", g)
                    self._render_here(rows)
                    continue
                for why in bad_pictures.values():
                    log.error("map %s could not be drawn: the report goes without it", why)
                self._finish(rendered, g, bad_jobs, drawn)
            for fut, (g, rows, since) in list(hand.items()):
                if time.monotonic() - since > self.limit:
                    log.error("mail of group %s took over %s s: the reports go without their "
                              "map", g, self.limit)
                    fut.cancel()
                    del hand[fut]
                    self._render_here(rows)

    def _render_here(self, rows: list[dict]) -> None:
        """The pool failed them: rendered in this thread, without their pictures."""
        bad_jobs: Failed = {}
        out = [(r["outbox_id"], _render_one(r["outbox_id"], r["job"], None, bad_jobs))
               for r in rows]
        self._finish(out, rows[0]["g"] if rows else 0, bad_jobs)

    def _finish(self, rendered: list[tuple[int, bytes | None]], group: int,
                bad_jobs: Failed, drawn: dict[int, bytes] | None = None) -> None:
        """Release the group's messages (a plain text in place of each that could not be
        rendered), keeping the kept pictures ``drawn``; then have its game's master told of
        those (a group without a game: only logged)."""
        if finish_jobs(self.store, rendered, drawn):
            self.wake_sender()
        if bad_jobs:
            if group > 0 and self.failed is not None:
                try:
                    self.failed(group, bad_jobs)
                except Exception:
                    log.exception("game %s: telling its master of its mail that could not "
                                  "be rendered failed", group)
            else:
                for oid, (why, trace) in bad_jobs.items():
                    log.error("message %s could not be rendered, a plain text sent in its "
                              "place: %s\n%s", oid, why, trace)
            self.wake_sender()  # the master's mail

    def _draw_pictures(self) -> bool:
        """One batch of the pictures waiting; False when none was."""
        if self.stopping.is_set() or not (rows := pictures_to_draw(self.store,
                                                                    4 * pool_size())):
            return False
        jobs: dict[Future, dict] = {}
        for row in rows:
            try:
                jobs[self._pool().submit(png, row["svg"])] = row
            except Exception:  # a broken pool: a new one next time
                log.exception("picture %s could not be sent to the pool", row["id"])
                self.close()
                self._done(row, None)
        done, late = wait(jobs, timeout=self.limit)
        for fut in done:
            try:
                picture: bytes | None = fut.result()
            except Exception:
                log.exception("map %s could not be drawn: the report goes without it",
                              jobs[fut]["filename"])
                picture = None
            self._done(jobs[fut], picture)
        for fut in late:
            log.error("map %s took over %s s: the report goes without it",
                      jobs[fut]["filename"], self.limit)
            fut.cancel()
            self._done(jobs[fut], None)
        return True

    def _done(self, row: dict, picture: bytes | None) -> None:
        if attach_picture(self.store, row["id"], picture):
            self.wake_sender()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


class Service:
    def __init__(self, cfg: Config, clock: Callable[[], datetime] | None = None,
                 chance: Chance = system_chance) -> None:
        """``clock`` injects the judge's notion of now (tests, the season simulator); None is
        the wall clock. It is the one clock of the judge: its deadlines, its ceilings, the
        times every store it opens writes, its mail's Date (time.monotonic() measures only the
        machine's waits: timeouts, retries of a locked database, the archive's yield).
        ``chance`` injects the random source of the games' draws (a Dipnomicy game's
        countries, Gunboat's pseudonyms: judge.games.flow.Chance); a simulator seeds it to
        play the same games again, the judge for real draws from the system's randomness.
        Secrets (codes, tokens, passwords' salts) never come from it."""
        self.cfg = cfg
        self.now = clock or now_utc
        self.chance = chance
        cfg.database_path.parent.mkdir(parents=True, exist_ok=True)
        store = Store(cfg.database_path, self.now)  # create / migrate before anything else runs
        if not cfg.archive.on:  # what the painter kept for an archive now off is let go
            release_pictures(store)
        store.close()
        self.sender = _Loop("sender", self._sender_setup, self._sender_step, 30.0)
        self.worker = _Loop("worker", self._worker_setup, self._worker_step, 30.0)
        self.deadlines = _Loop("deadlines", self._deadlines_setup, self._deadlines_step, 30.0)
        self.painter = _Loop("painter", self._painter_setup, self._painter_step, 30.0)
        # the web archive (off by default): written after the painter releases a game's mail
        self.archive = _Loop("archive", self._archive_setup, self._archive_step, 30.0) \
            if cfg.archive.on else None
        self.web = ArchiveServer(cfg.archive_path, cfg.archive.listen) \
            if cfg.archive.on and cfg.archive.listen else None
        self.intake: SmtpReceiver | ImapIntake | None = None
        self._actors: list[Actor] = []
        self._turns = _Turns()  # the two actors' transactions take turns
        if cfg.intake.mode == "smtp":
            self.intake = SmtpReceiver(cfg, self.worker.wake, self.now)
        elif cfg.intake.mode == "imap":
            self.intake = ImapIntake(cfg, self.worker.wake, self.now)
        poll = self.intake.poke.set if isinstance(self.intake, ImapIntake) else None
        self.clock = Clock(self.deadlines.wake, self.sender.wake, poll,
                           cfg.intake.poll_seconds, now=clock,
                           digest_minutes=cfg.digest_minutes)

    # worker: act on the inbox; deadlines: act on due games (each with its own connection)
    def _actor(self) -> Actor:
        store = _TakingTurns(self.cfg.database_path, self._turns, self.now, self.painter.wake)
        actor = Actor(store, self.cfg, self.now, self.chance)
        actor.outbox.defer_pictures = True  # the painter draws them
        actor.outbox.defer_render = True  # and renders the mail other than replies
        self._actors.append(actor)
        return actor

    def _worker_setup(self) -> Actor:
        return self._actor()

    def _worker_step(self, actor: Actor) -> None:
        if actor.process_inbox():
            self.deadlines.wake()  # orders may make a game due (early processing)
            self.painter.wake()
            self.sender.wake()

    def _deadlines_setup(self) -> Actor:
        return self._actor()

    def _deadlines_step(self, actor: Actor) -> None:
        processed = actor.process_due()
        self.clock.sync(actor.s)
        if processed:
            self.painter.wake()
            self.sender.wake()

    def _painter_setup(self) -> _Painter:
        store = _TakingTurns(self.cfg.database_path, self._turns, self.now)
        # tells a game's master of its mail that could not be rendered; that mail of its
        # own is rendered at once (not deferred: it cannot come back to the painter)
        actor = Actor(store, self.cfg, self.now, self.chance)
        return _Painter(store, self._released, stopping=self.painter.stopping,
                        failed=functools.partial(self._render_failed, actor))

    @staticmethod
    def _render_failed(actor: Actor, gid: int, bad_jobs: Failed) -> None:
        render_failed(actor, gid, bad_jobs, actor.clock())

    def _painter_step(self, painter: _Painter) -> None:
        painter.step()

    def _released(self) -> None:
        """The painter released mail: to the sender, and to the archive (a report's page)."""
        self.sender.wake()
        if self.archive is not None:
            self.archive.wake()

    def _archive_setup(self) -> Store:
        store = _TakingTurns(self.cfg.database_path, self._turns, self.now)
        try:  # a new (or emptied) folder is written whole; then only what changes
            if not (self.cfg.archive_path / "index.html").exists():
                archive.rebuild(store, self.cfg, self.cfg.archive_path)
        except Exception:
            log.exception("archive: the folder %s could not be written", self.cfg.archive_path)
        return store

    ARCHIVE_EVERY = 3.0  # seconds: a deadline's flood of reports is written in a few batches
    ARCHIVE_YIELD = 300.0  # seconds the archive waits at most for the painter to be done

    def _archive_step(self, store: Store) -> None:
        # off the deadline's path: while games' mail waits for the painter (a deadline's
        # flood), the archive waits too, up to ARCHIVE_YIELD seconds, and then catches up
        since = time.monotonic()
        while self.archive is not None and not self.archive.stopping.is_set() and \
                time.monotonic() - since < self.ARCHIVE_YIELD and store.one(
                    "SELECT 1 AS x FROM outbox WHERE state = 'waiting' LIMIT 1") is not None:
            self.archive.stopping.wait(self.ARCHIVE_EVERY)
        archive.update(store, self.cfg)
        # the index and the judge's feed are rendered whole in each batch: gather a batch
        if self.archive is not None:
            self.archive.stopping.wait(self.ARCHIVE_EVERY)

    def _sender_setup(self) -> Sender:
        return Sender(self.cfg, Store(self.cfg.database_path, self.now))

    def _sender_step(self, sender: Sender) -> None:
        sender.flush()

    def start(self) -> None:
        self.sender.start()
        self.painter.start()
        if self.archive is not None:
            self.archive.start()
        if self.web is not None:
            self.web.start()
        self.worker.start()
        self.deadlines.start()
        self.worker.ready.wait(30)
        self.deadlines.ready.wait(30)
        self.clock.start()
        if self.intake is not None:
            self.intake.start()
        log.info("judge %s running: intake %s, outbound %s, database %s", self.cfg.address,
                 self.cfg.intake.mode, self.cfg.outbound.mode, self.cfg.database_path)

    def stop(self) -> None:
        log.info("stopping")
        if isinstance(self.intake, SmtpReceiver):
            self.intake.stop()
        elif isinstance(self.intake, ImapIntake):
            self.intake.stop()
            self.intake.join(10)
        self.clock.stop()
        for actor in self._actors:
            actor.stopping.set()  # finish the message in hand, leave the rest stored
        self.worker.stop()
        self.deadlines.stop()
        self.worker.join(30)
        self.deadlines.join(30)
        self.painter.stop()  # what is left is drawn at the next start
        self.painter.join(30)
        if self.archive is not None:  # what is left is written at the next start
            self.archive.stop()
            self.archive.join(30)
        if self.web is not None:
            self.web.stop()
        self.sender.stop()  # one last flush happens before it exits
        self.sender.join(30)
        log.info("stopped")


class JsonFormatter(logging.Formatter):
    """One JSON object a line (``[log] format = "json"``), for hosts who ship their logs:
    ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``thread``, ``message`` and, after an
    exception, ``exception`` (the traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": datetime.fromtimestamp(record.created, UTC).isoformat(
                   timespec="milliseconds").replace("+00:00", "Z"),
               "level": record.levelname.lower(), "logger": record.name,
               "thread": record.threadName, "message": record.getMessage()}
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup_logging(level: str, fmt: str) -> None:
    """Log to stderr at ``level`` (debug/info/warning/error), as text or JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for noisy in ("mail.log", "apscheduler"):  # their INFO is per message/job: too chatty
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))


def serve(config_path: str | None, log_level: str | None = None) -> int:
    """``judge serve``: ``log_level`` (``--log-level``) wins over the config's ``[log] level``."""
    try:
        cfg = load_config(config_path)
    except ConfigError as exc:
        print(f"judge: {exc}", file=sys.stderr)
        return 2
    setup_logging(log_level or cfg.log.level, cfg.log.format)
    for warning in cfg.warnings:
        log.warning("%s", warning)
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        cfg.database_path.parent.mkdir(parents=True, exist_ok=True)
        inspect_database(cfg.database_path)
        serving_lock = hold_database(cfg.database_path)  # held until the process ends
        service = Service(cfg)
        service.start()
    except UnusableDatabase as exc:
        print(f"judge: cannot start: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        hint = ""
        if exc.errno == errno.EADDRINUSE and cfg.intake.mode == "smtp" \
                and f", {cfg.intake.listen_port})" in str(exc):  # aiosmtpd's (host, port)
            hint = (" (is a judge already running? to listen elsewhere, set [intake] listen = "
                    "\"127.0.0.1:PORT\" in the config)")
        print(f"judge: cannot start: {os_error_words(exc)}{hint}", file=sys.stderr)
        return 1
    serving = (f"judge: serving {cfg.address} (intake {cfg.intake.mode}"
               f"{' on ' + cfg.intake.listen if cfg.intake.mode == 'smtp' else ''}, "
               f"outbound {cfg.outbound.mode}"
               f"{' to ' + str(cfg.maildir_path) if cfg.outbound.mode == 'maildir' else ''})")
    if cfg.log.format == "json":  # every line of stderr is JSON then; shown at any level
        record = log.makeRecord(log.name, logging.INFO, __file__, 0, serving, None, None)
        for handler in logging.getLogger().handlers:
            handler.handle(record)
    else:
        print(serving, file=sys.stderr, flush=True)
    while not stop.is_set():
        stop.wait(1.0)
    service.stop()
    serving_lock.close()
    return 0
