"""The judge's database: one SQLite file (WAL) through sqlite-utils.

Tables (see ``MIGRATIONS``): ``games``, ``players``, ``positions`` (every phase: the history),
``orders`` (the current order set of each power for each phase), ``pending_orders``
(PHASE blocks waiting for their phase, and those used, for ROLLBACK), ``inbox`` (every raw
message, stored before it is acted on, keyed by Message-ID or a hash), ``outbox`` (every
message the judge sends, until the server accepted it), ``audit`` (every command and its
outcome, passwords masked). Schema changes are numbered migrations, applied in order at open.

Each thread opens its own :class:`Store`; writes that belong together run in
:meth:`Store.transaction` (``BEGIN IMMEDIATE``), so acting on a message, its replies and marking
it done are one atomic step.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Hashable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import sqlite_utils

from judge.addresses import canonical_address

MIGRATIONS: list[str] = [
    # 1: the first schema
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        variant TEXT NOT NULL,
        status TEXT NOT NULL,            -- forming | open | active | paused | finished
        master_hash TEXT NOT NULL,
        master_address TEXT NOT NULL,
        movement_seconds INTEGER NOT NULL,
        retreat_seconds INTEGER NOT NULL,
        adjustment_seconds INTEGER NOT NULL,
        phase TEXT,                      -- current phase code once started
        deadline TEXT,                   -- UTC ISO 8601, current phase
        created TEXT NOT NULL,
        winner TEXT
    );
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        power TEXT NOT NULL,
        address TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        joined TEXT NOT NULL,
        UNIQUE (game_id, power)
    );
    CREATE TABLE positions (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        phase TEXT NOT NULL,
        position TEXT NOT NULL,          -- JSON, the contract position
        results TEXT,                    -- JSON, the outcome once adjudicated
        created TEXT NOT NULL,
        adjudicated TEXT,
        UNIQUE (game_id, phase)
    );
    CREATE TABLE orders (
        game_id INTEGER NOT NULL REFERENCES games(id),
        phase TEXT NOT NULL,
        power TEXT NOT NULL,
        lines TEXT NOT NULL,             -- JSON [{text, order, error}]
        updated TEXT NOT NULL,
        inbox_id INTEGER,
        PRIMARY KEY (game_id, phase, power)
    );
    CREATE TABLE inbox (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,        -- Message-ID, or sha256: of the raw bytes
        received TEXT NOT NULL,
        source TEXT NOT NULL,            -- imap | smtp | test
        mail_from TEXT,                  -- envelope sender when known ('' = null sender)
        size INTEGER NOT NULL,
        raw BLOB NOT NULL,
        state TEXT NOT NULL DEFAULT 'new', -- new | done | ignored
        acted TEXT,
        note TEXT
    );
    CREATE INDEX inbox_state ON inbox(state, id);
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY,
        created TEXT NOT NULL,
        inbox_id INTEGER,
        game_id INTEGER,
        kind TEXT NOT NULL,              -- reply | report | notice
        mail_from TEXT NOT NULL,
        rcpt TEXT NOT NULL,
        subject TEXT NOT NULL,
        message_id TEXT NOT NULL,
        raw BLOB NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending', -- pending | sent | failed
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt TEXT NOT NULL,
        last_error TEXT,
        sent TEXT
    );
    CREATE INDEX outbox_state ON outbox(state, next_attempt);
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        inbox_id INTEGER,
        address TEXT,
        game TEXT,
        power TEXT,
        command TEXT NOT NULL,           -- passwords masked
        outcome TEXT NOT NULL
    );
    """,
    # 2: find recent replies to one address quickly (the mail-loop guard)
    """
    CREATE INDEX outbox_rcpt ON outbox(rcpt, created);
    """,
    # 3: once a variant's own tables (Dipnomicy's); they are its flow's storage now
    # (GameFlow.storage, applied by Store.migrate_extension), so a new database gets them from
    # there and a database that ran this migration keeps them as they are
    "",
    # 4: settings a variant's games choose at CREATE (JSON: Stab!'s retreat mode, Gunboat
    # pseudonyms); see judge/games/flow.py
    """
    ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
    """,
    # 5: running games like a judge (judge/games/deadlines.py and friends; their settings
    # share the JSON of migration 4, see judge/games/settings.py): the next time the game
    # wants waking, notices already sent (so each goes once, also across a restart), waits,
    # absences, press, observers, draw votes and player changes
    """
    ALTER TABLE games ADD COLUMN wake_at TEXT;
    ALTER TABLE games ADD COLUMN early_at TEXT;
    ALTER TABLE games ADD COLUMN phase_started TEXT;
    ALTER TABLE games ADD COLUMN paused_at TEXT;
    ALTER TABLE games ADD COLUMN result TEXT;
    ALTER TABLE players ADD COLUMN missed INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE players ADD COLUMN state TEXT NOT NULL DEFAULT 'active';
    CREATE TABLE notices (
        game_id INTEGER NOT NULL REFERENCES games(id),
        key TEXT NOT NULL,               -- e.g. S1901M:reminder, S1901M:late:1
        at TEXT NOT NULL,
        PRIMARY KEY (game_id, key)
    );
    CREATE TABLE waits (
        game_id INTEGER NOT NULL REFERENCES games(id),
        phase TEXT NOT NULL,
        power TEXT NOT NULL,
        PRIMARY KEY (game_id, phase, power)
    );
    CREATE TABLE absences (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        power TEXT NOT NULL,
        start TEXT NOT NULL,             -- UTC
        until TEXT NOT NULL              -- UTC
    );
    CREATE TABLE press (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        phase TEXT,
        sender TEXT NOT NULL,            -- a power, or MASTER
        recipients TEXT,                 -- JSON list of powers, NULL for a broadcast
        grey INTEGER NOT NULL DEFAULT 0,
        body TEXT NOT NULL,
        created TEXT NOT NULL
    );
    CREATE TABLE observers (
        game_id INTEGER NOT NULL REFERENCES games(id),
        address TEXT NOT NULL COLLATE NOCASE,
        since TEXT NOT NULL,
        PRIMARY KEY (game_id, address)
    );
    CREATE TABLE votes (
        game_id INTEGER NOT NULL REFERENCES games(id),
        phase TEXT NOT NULL,
        power TEXT NOT NULL,
        kind TEXT NOT NULL,              -- draw | concede
        value TEXT NOT NULL,             -- draw: JSON sorted powers, concede: the power
        PRIMARY KEY (game_id, phase, power, kind)
    );
    CREATE TABLE player_changes (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        phase TEXT,
        power TEXT NOT NULL,
        change TEXT NOT NULL,            -- joined | abandoned | ejected | replaced | took over
        at TEXT NOT NULL
    )
    """,
    # 6: guessing passwords (judge/games/auth.py): each wrong password for a power or a
    # game's master (scope "<game id>:<POWER>" or "<game id>:MASTER"), and the locks that
    # too many of them set; games created per address per day are counted on games itself
    """
    CREATE TABLE password_failures (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        address TEXT,
        inbox_id INTEGER,
        at TEXT NOT NULL                 -- UTC
    );
    CREATE INDEX password_failures_scope ON password_failures(scope, at);
    CREATE TABLE password_locks (
        scope TEXT PRIMARY KEY,
        until TEXT NOT NULL,             -- UTC: no password for this scope is checked before
        since TEXT NOT NULL
    );
    CREATE INDEX games_master_created ON games(master_address COLLATE NOCASE, created);
    """,
    # 7: why the sender gave a message up (judge/mail/sender.py): 'permanent' (the address or
    # the server refused it for good) or 'expired' (temporary failures for longer than
    # [outbound] give_up_hours); NULL while it is pending or once sent
    """
    ALTER TABLE outbox ADD COLUMN failure TEXT;
    """,
    # 8: the inbound policy (docs/operating.md, "Security"): OBSERVE waits until the address
    # confirms (double opt-in: the token it was sent, or a reply to the request's Message-ID);
    # the judge's own Message-IDs (a mail that references one and copies its text is a loop)
    # and the replies to one address in the last hour (the ceiling) are found by index
    """
    CREATE TABLE observer_requests (
        token TEXT PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        address TEXT NOT NULL COLLATE NOCASE,
        role TEXT NOT NULL DEFAULT 'observer', -- observer | list (the game's mailing list) | seat
        requested TEXT NOT NULL,         -- UTC, the request expires after a week
        inbox_id INTEGER,                -- the OBSERVE mail
        message_id TEXT                  -- the mail that asks for confirmation
    );
    CREATE INDEX observer_requests_message ON observer_requests(message_id);
    CREATE INDEX outbox_message_id ON outbox(message_id);
    CREATE INDEX outbox_rcpt_nocase ON outbox(rcpt COLLATE NOCASE, created);
    """,
    # 9: pictures drawn after the game's transaction (judge/mail/outbox.py, judge/service.py):
    # a report whose picture is still being drawn waits in the outbox (state 'waiting', never
    # sent) with what it takes to build it again with its picture; each picture (one per
    # distinct view) keeps its SVG until it is drawn, so a restart draws what was left
    """
    CREATE TABLE pictures (
        id INTEGER PRIMARY KEY,
        created TEXT NOT NULL,
        filename TEXT NOT NULL,
        svg TEXT NOT NULL
    );
    CREATE TABLE outbox_pictures (
        outbox_id INTEGER PRIMARY KEY,
        picture_id INTEGER NOT NULL REFERENCES pictures(id),
        message TEXT NOT NULL            -- JSON: the arguments of build_message
    );
    CREATE INDEX outbox_pictures_picture ON outbox_pictures(picture_id);
    """,
    # 10: orders sent ahead (PHASE blocks, judge/engine/ahead.py): one block per game, power
    # and phase, kept as the lines the player wrote until that phase starts (read then, so
    # the order storage of the phase is whatever submit_orders keeps)
    """
    CREATE TABLE pending_orders (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        power TEXT NOT NULL,
        phase TEXT NOT NULL,             -- judge.engine.ahead.phase_id: F1905M, BC years < 0
        lines TEXT NOT NULL,             -- JSON: the block as written, its PHASE line first
        updated TEXT NOT NULL,
        inbox_id INTEGER,
        UNIQUE (game_id, power, phase)
    );
    """,
    # 11: the storage of a variant's game flow (judge/games/flow.py, GameFlow.storage): its own
    # numbered migrations, how many of them each flow's tables have had
    """
    CREATE TABLE extension_versions (
        name TEXT PRIMARY KEY,           -- the variant whose flow declared the tables
        version INTEGER NOT NULL         -- how many of its migrations have been applied
    );
    """,
    # 12: reply addresses that sign on without a password (judge/mail/replytoken.py): the
    # judge's own signing key when the config gives none (made once), and each seat's secret
    # (game, power); a secret replaced by NEWTOKEN or a change of player is kept, revoked, so
    # that its old address gets a clear refusal rather than counting as a guess
    """
    CREATE TABLE reply_keys (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,             -- hex
        created TEXT NOT NULL
    );
    CREATE TABLE reply_secrets (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        power TEXT NOT NULL,
        secret TEXT NOT NULL,            -- hex
        created TEXT NOT NULL,
        revoked TEXT,                    -- UTC, NULL for the seat's current secret
        why TEXT                         -- newtoken | taken over | replaced | ejected
    );
    CREATE INDEX reply_secrets_seat ON reply_secrets(game_id, power, revoked);
    """,
    # 13: mail rendered after the transaction (judge/mail/outbox.py, judge/service.py): the
    # game's transaction stores what each message is made of (a job: template, context,
    # headers; pickled) with its outbox row waiting, and the pool of worker processes renders
    # it, draws its picture and builds the message; a restart renders what was left
    """
    CREATE TABLE outbox_jobs (
        outbox_id INTEGER PRIMARY KEY,
        game_id INTEGER,
        picture_id INTEGER,              -- the picture it carries (pictures.id), or NULL
        job BLOB NOT NULL
    );
    CREATE INDEX outbox_jobs_game ON outbox_jobs(game_id, outbox_id);
    CREATE INDEX outbox_jobs_picture ON outbox_jobs(picture_id);
    """,
    # 14: orders sent ahead are kept once used (judge/games/ahead.py), marked with the phase
    # whose start used them (or dropped them, their phase never having come); NULL while
    # pending. ROLLBACK to an earlier phase makes those used after it pending again.
    """
    ALTER TABLE pending_orders ADD COLUMN used_in TEXT;
    CREATE INDEX pending_orders_used ON pending_orders(game_id, used_in);
    """,
    # 15: a seat given by the master's REPLACE is a confirmation request too (role 'seat'):
    # the address plays the power once it confirms, with the password the master chose
    """
    ALTER TABLE observer_requests ADD COLUMN power TEXT;
    ALTER TABLE observer_requests ADD COLUMN password_hash TEXT;
    """,
    # 16: the ceiling on all mail to one address (judge/mail/outbox.py, [judge] mail_per_hour):
    # each message queued, on the judge's clock (the outbox's created was the wall clock then,
    # and games on a test's or a benchmark's virtual clock must not pass an hourly ceiling), and
    # what became of it: counted, held past the ceiling, folded into a digest, or the digest
    """
    CREATE TABLE mail_ceiling (
        outbox_id INTEGER PRIMARY KEY,
        rcpt TEXT NOT NULL COLLATE NOCASE,
        at TEXT NOT NULL,
        how TEXT NOT NULL                -- counted | held | folded | digest
    );
    CREATE INDEX mail_ceiling_rcpt ON mail_ceiling(rcpt, at);
    CREATE INDEX mail_ceiling_how ON mail_ceiling(how, rcpt);
    CREATE INDEX mail_ceiling_at ON mail_ceiling(at);
    -- a reply whose MAP pictures the pool draws (judge/mail/outbox.py): it waits in the
    -- outbox (state 'waiting') with what it is made of, until each of its pictures is drawn
    CREATE TABLE reply_waits (
        outbox_id INTEGER PRIMARY KEY,
        message TEXT NOT NULL            -- JSON: headers, text, what fits, pictures drawn
    );
    CREATE TABLE reply_pictures (
        picture_id INTEGER PRIMARY KEY,  -- pictures.id while it waits to be drawn
        outbox_id INTEGER NOT NULL,
        filename TEXT NOT NULL,
        drawn INTEGER NOT NULL DEFAULT 0,
        png BLOB                         -- empty: it could not be drawn
    );
    CREATE INDEX reply_pictures_outbox ON reply_pictures(outbox_id);
    """,
    # 17: why a game is paused when the judge paused it, not its master: processing it failed
    # (judge/games/deadlines.py, contain_failure); NULL for a master's PAUSE. RESUME clears it.
    """
    ALTER TABLE games ADD COLUMN paused_why TEXT;
    """,
    # 18: the addresses that have shown they read the judge's mail (judge/games/signup.py): a
    # sign-on (JOIN, SIGNON, TAKEOVER) from any other waits in observer_requests (roles join,
    # signon, takeover) until the address confirms, and a master's game mail waits for its
    # CREATE's code (role master). Those that played, observed or ran a game before this
    # rule count as confirmed: their sign-ons acted at once, and still do
    """
    CREATE TABLE confirmed_addresses (
        address TEXT PRIMARY KEY COLLATE NOCASE,
        since TEXT NOT NULL,             -- UTC
        how TEXT NOT NULL                -- what confirmed it (a request's role, 'before')
    );
    INSERT OR IGNORE INTO confirmed_addresses (address, since, how)
        SELECT address, min(since), 'before' FROM observers GROUP BY address;
    INSERT OR IGNORE INTO confirmed_addresses (address, since, how)
        SELECT address, min(joined), 'before' FROM players GROUP BY address;
    INSERT OR IGNORE INTO confirmed_addresses (address, since, how)
        SELECT master_address, min(created), 'before' FROM games GROUP BY master_address;
    CREATE INDEX observer_requests_address ON observer_requests(address, role, requested);
    """,
    # 19: a picture kept once drawn (judge/mail/outbox.py, Outbox.keep_picture): the web
    # archive's public picture, the painter's own bytes whatever became of the mail (a mail
    # held past the ceiling goes as text in a digest); its row stays, drawn, with the PNG
    # (NULL: it could not be drawn) until the archive takes it
    """
    ALTER TABLE pictures ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE pictures ADD COLUMN drawn INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE pictures ADD COLUMN png BLOB;
    """,
    # 20: the addresses stored before the one spelling of a mailbox (judge/addresses.py,
    # canonical_address: an internationalised domain in punycode, a local part's non-ASCII
    # letters lower-cased) are written in it, since a sender is read in it and compared so:
    # a player seated from bob@bücher.example was a stranger to its power after the upgrade,
    # its SIGNON a seat moved to a new address and its orders not kept. Only a spelling
    # NOCASE does not fold changes; a row that would repeat one of the new spelling is dropped
    """
    UPDATE players SET address = canonical_address(address)
        WHERE address <> canonical_address(address);
    UPDATE games SET master_address = canonical_address(master_address)
        WHERE master_address <> canonical_address(master_address);
    UPDATE observer_requests SET address = canonical_address(address)
        WHERE address <> canonical_address(address);
    UPDATE OR IGNORE observers SET address = canonical_address(address)
        WHERE address <> canonical_address(address);
    DELETE FROM observers WHERE address <> canonical_address(address);
    UPDATE OR IGNORE confirmed_addresses SET address = canonical_address(address)
        WHERE address <> canonical_address(address);
    DELETE FROM confirmed_addresses WHERE address <> canonical_address(address);
    """,
]


# an unanswered confirmation request (judge/games/observers.py) expires after this
CONFIRM_DAYS = 7
BUSY_TIMEOUT_MS = 60_000  # a connection waits this long for another one's write lock


def now_utc() -> datetime:
    return datetime.now(UTC)


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="milliseconds")


def parse_iso(text: str) -> datetime:
    dt = datetime.fromisoformat(text)
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def content_hash(raw: bytes) -> str:
    """A hash of what the author wrote: the From, Subject and Date lines and the body."""
    end = raw.find(b"\r\n\r\n")
    cut = end + 4 if end >= 0 else raw.find(b"\n\n") + 2
    head, body = (raw[:cut], raw[cut:]) if cut > 1 else (raw, b"")
    h = hashlib.sha256()
    for line in head.replace(b"\r\n", b"\n").split(b"\n"):
        if line[:5].lower() in (b"from:", b"date:") or line[:8].lower() == b"subject:":
            h.update(line.strip() + b"\n")
    h.update(b"\n")
    h.update(body.replace(b"\r\n", b"\n"))
    return h.hexdigest()[:32]


class UnusableDatabase(RuntimeError):
    """A database file this judge cannot use; the message names it and says why."""


def inspect_database(path: Path) -> int | None:
    """The schema version of the database at ``path``, read without writing anything (None:
    no file yet, the judge creates it); :class:`UnusableDatabase` for a folder, a file that
    is not SQLite, or the tables of a newer judge (``judge check``, ``judge serve``)."""
    if not path.exists():
        return None
    if not path.is_file():
        raise UnusableDatabase(f"{path}: is a folder, not a database file" if path.is_dir()
                               else f"{path}: is not a file")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise UnusableDatabase(f"{path}: is not a SQLite database ({exc})") from None
    _refuse_newer(path, version)
    return version


def _refuse_newer(path: str | Path, version: int) -> None:
    # an older judge on a newer judge's tables (a host going back to the previous wheel)
    # would read and write what it does not know
    if version > len(MIGRATIONS):
        raise UnusableDatabase(f"{path}: written by a newer judge (schema {version}; this one "
                               f"knows {len(MIGRATIONS)}): run that judge again, or restore "
                               f"the backup taken before the upgrade")


def hold_database(path: Path) -> IO[bytes]:
    """Take the serving lock of the database at ``path`` (``<name>.lock`` beside it, holding
    the process id) for as long as the returned file stays open; the system lets go of it
    when the process ends, however it ends. Two judges serving one database would both send
    the outbox (each message twice): the second is refused with :class:`UnusableDatabase`."""
    lock = path.with_name(f"{path.name}.lock")
    f = open(lock, "a+b")  # noqa: SIM115 - held open for the life of the judge
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().decode(errors="replace").strip() or "?"
        f.close()
        raise UnusableDatabase(f"{path}: a judge is serving it now (process {holder}): two "
                               f"judges on one database send their mail twice; stop it "
                               f"first, or give this one a database of its own") from None
    f.truncate(0)
    f.write(str(os.getpid()).encode())
    f.flush()
    return f


class Store:
    """One connection to the judge's database (open one per thread)."""

    def __init__(self, path: str | Path, clock: Callable[[], datetime] = now_utc) -> None:
        self.path = str(path)
        # the judge's clock, which every time this connection stores is read from: whoever
        # opens the store gives it (judge serve its injected clock, so that a test's or the
        # season simulator's virtual time is the time in every row); the wall clock otherwise
        self.clock = clock
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False)
        # the one spelling of a mailbox, for the migration that writes older rows in it
        conn.create_function("canonical_address", 1, canonical_address, deterministic=True)
        self.db = sqlite_utils.Database(conn)
        if self.path != ":memory:":
            self.db.enable_wal()
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        # deleted and overwritten content is zeroed, not left in free space: a mail's
        # clear copy (passwords) is gone from the pages once it is masked (replace_inbox_raw)
        self.db.execute("PRAGMA secure_delete=ON")
        # the write-ahead log still holds the clear copy until a checkpoint: after a
        # transaction that masked a mail, one that truncates it (_scrub_log)
        self._scrub_pending = False
        # what the transaction under way has derived from the database and keeps for its
        # own later use (judge/games/game.py current_position); emptied when one begins
        # and when it ends, so that nothing derived is ever seen by another transaction
        self.memo: dict[Hashable, Any] = {}
        self._in_snapshot = False  # inside snapshot(): no write, no transaction
        self.migrate()

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------ migrations
    def schema_version(self) -> int:
        return int(next(self.db.query("PRAGMA user_version"))["user_version"])

    def migrate(self) -> None:
        """Apply every numbered migration above the database's ``user_version``."""
        version = self.schema_version()
        _refuse_newer(self.path, version)
        if version >= len(MIGRATIONS):
            return  # up to date: no write lock (a receiver opening while the worker acts)
        with self.transaction():
            version = self.schema_version()
            for number, sql in enumerate(MIGRATIONS, start=1):
                if number <= version:
                    continue
                for statement in sql.split(";"):
                    if statement.strip():
                        self.db.conn.execute(statement)
                self.db.conn.execute(f"PRAGMA user_version={number}")

    def migrate_extension(self, name: str, migrations: list[str]) -> None:
        """Apply the numbered migrations of one extension (a variant's game flow declares its
        own tables) not yet applied to this database, in order, as :meth:`migrate` does."""
        row = self.one("SELECT version FROM extension_versions WHERE name = ?", (name,))
        if row is not None and int(row["version"]) >= len(migrations):
            return  # up to date: no write lock
        with self.transaction():
            row = self.one("SELECT version FROM extension_versions WHERE name = ?", (name,))
            done = int(row["version"]) if row else 0
            for sql in migrations[done:]:
                for statement in sql.split(";"):
                    if statement.strip():
                        self.db.conn.execute(statement)
            self.db.conn.execute("INSERT OR REPLACE INTO extension_versions (name, version) "
                                 "VALUES (?, ?)", (name, len(migrations)))

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Store]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on any exception."""
        conn = self.db.conn
        if self._in_snapshot:  # its deferred BEGIN would be taken for the transaction's
            raise RuntimeError("a transaction inside a snapshot: end the snapshot first")
        if conn.in_transaction:  # nested: part of the outer transaction
            yield self
            return
        conn.execute("BEGIN IMMEDIATE")
        self.memo.clear()
        try:
            yield self
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
        finally:
            self.memo.clear()
        if self._scrub_pending:
            self._scrub_log()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Store]:
        """``BEGIN`` ... ``COMMIT`` for reads only: every read inside sees the database as it
        was at the first, whatever another thread commits meanwhile (a master's ROLLBACK
        deleting the position of the phase a game row just read named). Inside a
        transaction, part of it. Nothing is written inside one (``PRAGMA query_only``: a
        write raises, and :meth:`transaction` too): a write there would take the write lock
        outside the threads' turns, fail at once ('database is locked') if another thread
        had committed since the first read, and be committed otherwise, even when the block
        raised after it. End it, then open a transaction. Keep it short (no rendering, no
        file I/O): a reader holds the write-ahead log, and :meth:`_scrub_log` waits for it."""
        conn = self.db.conn
        if conn.in_transaction:
            yield self
            return
        conn.execute("PRAGMA query_only = ON")
        self._in_snapshot = True
        try:
            conn.execute("BEGIN")
            self.memo.clear()
            yield self
        finally:
            self.memo.clear()
            self._in_snapshot = False
            try:
                if conn.in_transaction:  # nothing written: ending it is all either does
                    conn.execute("ROLLBACK")
            finally:
                conn.execute("PRAGMA query_only = OFF")

    SCRUB_TRIES = 40  # checkpoint attempts, SCRUB_PAUSE apart, while readers hold the log

    SCRUB_PAUSE = 0.05

    def _scrub_log(self) -> bool:
        """Checkpoint the write-ahead log into the database and truncate it to nothing, so
        that the frames that held a mail's clear copy are gone from every file (with
        secure_delete the pages written back hold zeros where the clear copy was). A reader
        in the log makes the checkpoint busy: tried again briefly, then after the next
        transaction. True when the log is empty."""
        if self.path == ":memory:":
            self._scrub_pending = False
            return True
        with self.busy_timeout(self.SCRUB_PAUSE):
            for _ in range(self.SCRUB_TRIES):
                try:
                    busy = self.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                except sqlite3.OperationalError:
                    busy = 1
                if not busy:
                    self._scrub_pending = False
                    return True
                time.sleep(self.SCRUB_PAUSE)
        return False

    # --------------------------------------------------------------- helpers
    def one(self, sql: str, params: Any = ()) -> dict | None:
        return next(self.db.query(sql, params), None)

    def all(self, sql: str, params: Any = ()) -> list[dict]:
        return list(self.db.query(sql, params))

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        return self.db.execute(sql, params)

    # ----------------------------------------------------------------- inbox
    @staticmethod
    def message_key(message_id: str | None, raw: bytes) -> str:
        """The key that makes a delivery a duplicate: the Message-ID with a hash of what the
        author wrote (From, Subject, Date and the body; not the trace headers that differ
        between two deliveries of one mail), so a different mail that reuses a Message-ID is
        kept as a mail of its own. Without a Message-ID: a hash of the bytes."""
        mid = (message_id or "").strip()
        if mid:
            return f"{mid[:300]} {content_hash(raw)}"
        return "sha256:" + hashlib.sha256(raw).hexdigest()

    def store_inbound(self, key: str, raw: bytes, source: str,
                      mail_from: str | None = None) -> int | None:
        """Store a message; returns its id, or None when that key is already stored."""
        cur = self.execute(
            "INSERT OR IGNORE INTO inbox (key, received, source, mail_from, size, raw) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key, iso(self.clock()), source, mail_from, len(raw), raw),
        )
        return cur.lastrowid if cur.rowcount else None

    # The SMTP receiver must answer within a second or two even while the worker holds the
    # database (a big mail being acted on, a backlog): it tries the inbox for up to
    # SPOOL_WAIT seconds (real seconds, time.monotonic(): the SMTP client's wait, whatever the
    # judge's clock says) and otherwise writes the mail, synced, to the spool folder beside
    # the database, which the worker moves into the inbox before it reads the inbox.
    SPOOL_WAIT = 1.0

    @property
    def spool_dir(self) -> Path:
        return Path(self.path + ".spool")

    def store_or_spool(self, store: Callable[[], int | None], raw: bytes, source: str,
                       mail_from: str | None = None) -> int | None:
        """``store()`` (the receiver's own store of ``raw``), never waiting long on the worker:
        when the inbox stays locked, ``raw`` is spooled instead and 0 returned."""
        if self.path == ":memory:":
            return store()
        deadline = time.monotonic() + self.SPOOL_WAIT
        with self.busy_timeout(0):
            while True:
                try:
                    return store()
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) and "busy" not in str(exc):
                        raise
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(0.01)
        self._spool(raw, source, mail_from)
        return 0

    def _spool(self, raw: bytes, source: str, mail_from: str | None) -> None:
        folder = self.spool_dir
        folder.mkdir(exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp = folder / (name + ".tmp")
        head = json.dumps({"source": source, "mail_from": mail_from}).encode() + b"\n"
        with open(tmp, "wb") as f:
            f.write(head + raw)
            f.flush()
            os.fsync(f.fileno())
        tmp.rename(folder / (name + ".mail"))
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def import_spool(self, store_message: Callable[[Store, bytes, str, str | None], None]
                     ) -> int:
        """Move spooled mail into the inbox (each in its own short transaction) with
        ``store_message`` (:func:`judge.mail.intake.store_message`: as the receivers store,
        and key, it); how many."""
        folder = self.spool_dir
        if self.path == ":memory:" or not folder.is_dir():
            return 0
        moved = 0
        for path in sorted(folder.glob("*.mail")):
            data = path.read_bytes()
            head, _, raw = data.partition(b"\n")
            meta = json.loads(head)
            with self.transaction():
                store_message(self, raw, meta["source"], meta["mail_from"])
            path.unlink()  # a crash before this: stored again as a duplicate, and dropped
            moved += 1
        return moved

    def pending_inbox(self, limit: int = 500) -> list[dict]:
        """Messages not yet acted on, oldest first, without their bytes (see inbox_row)."""
        return self.all("SELECT id, key, source, mail_from, size FROM inbox "
                        "WHERE state = 'new' ORDER BY id LIMIT ?", (limit,))

    def inbox_row(self, inbox_id: int) -> dict | None:
        return self.one("SELECT id, key, source, mail_from, size, raw, state FROM inbox "
                        "WHERE id = ?", (inbox_id,))

    def finish_inbox(self, inbox_id: int, state: str, note: str = "") -> None:
        self.execute("UPDATE inbox SET state = ?, acted = ?, note = ? WHERE id = ?",
                     (state, iso(self.clock()), note, inbox_id))

    def replace_inbox_raw(self, inbox_id: int, raw: bytes) -> None:
        """The stored copy with its passwords masked (the size column keeps the size read);
        the clear copy's frames leave the write-ahead log after the commit (_scrub_log)."""
        self.execute("UPDATE inbox SET raw = ? WHERE id = ?", (raw, inbox_id))
        self._scrub_pending = True

    # -------------------------------------------------------------- passwords
    def password_lock(self, scope: str, now: datetime) -> datetime | None:
        """When the lock on ``scope`` ends, if it is locked at ``now``."""
        row = self.one("SELECT until FROM password_locks WHERE scope = ? AND until > ?",
                       (scope, iso(now)))
        return parse_iso(row["until"]) if row else None

    def record_password_failure(self, scope: str, address: str | None, inbox_id: int | None,
                                now: datetime, since: datetime) -> int:
        """Record one wrong password; how many there were for ``scope`` since ``since``."""
        self.execute("INSERT INTO password_failures (scope, address, inbox_id, at) "
                     "VALUES (?, ?, ?, ?)", (scope, address, inbox_id, iso(now)))
        row = self.one("SELECT count(*) AS n FROM password_failures WHERE scope = ? AND at >= ?",
                       (scope, iso(since)))
        return int(row["n"]) if row else 0

    def lock_passwords(self, scope: str, now: datetime, until: datetime) -> None:
        self.execute("INSERT OR REPLACE INTO password_locks (scope, until, since) "
                     "VALUES (?, ?, ?)", (scope, iso(until), iso(now)))
        # the failures that led here are spent: after the lock, the count starts again
        self.execute("DELETE FROM password_failures WHERE scope = ?", (scope,))

    def confirmed(self, address: str) -> bool:
        """Whether ``address`` has shown that it reads the judge's mail (it confirmed a
        request once, or played or observed before the rule: migration 18)."""
        return self.one("SELECT 1 AS x FROM confirmed_addresses WHERE address = ?",
                        (canonical_address(address),)) is not None

    def created_unconfirmed(self, address: str) -> str | None:
        """The name of the newest game whose CREATE from ``address`` waits for the address
        to confirm (its reply carried the request, judge/games/observers.py
        master_request), or None: what a reply cut short tells that reader to do."""
        row = self.one("SELECT g.name FROM observer_requests r JOIN games g ON g.id = "
                       "r.game_id WHERE r.address = ? AND r.role = 'master' AND "
                       "r.requested >= ? ORDER BY r.requested DESC LIMIT 1",
                       (canonical_address(address),
                        iso(self.clock() - timedelta(days=CONFIRM_DAYS))))
        return str(row["name"]) if row else None

    def games_created_by(self, address: str, since: datetime) -> int:
        row = self.one("SELECT count(*) AS n FROM games WHERE master_address = ? COLLATE NOCASE "
                       "AND created >= ?", (address, iso(since)))
        return int(row["n"]) if row else 0

    # ---------------------------------------------------------------- outbox
    def queue_outbound(self, *, kind: str, mail_from: str, rcpt: str, subject: str,
                       message_id: str, raw: bytes, inbox_id: int | None = None,
                       game_id: int | None = None, state: str = "pending") -> int:
        """``state`` 'waiting': not to be sent before its picture is attached (migration 9)."""
        now = iso(self.clock())
        cur = self.execute(
            "INSERT INTO outbox (created, inbox_id, game_id, kind, mail_from, rcpt, subject, "
            "message_id, raw, next_attempt, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (now, inbox_id, game_id, kind, mail_from, rcpt, subject, message_id, raw, now,
             state),
        )
        return int(cur.lastrowid or 0)

    def recent_error_replies(self, rcpt: str, since: datetime) -> int:
        row = self.one("SELECT count(*) AS n FROM outbox WHERE rcpt = ? COLLATE NOCASE AND "
                       "created >= ? AND kind = 'reply' AND subject LIKE '[ERROR]%'",
                       (rcpt, iso(since)))
        return int(row["n"]) if row else 0

    def due_outbound(self, limit: int = 200, now: datetime | None = None,
                     skip: Iterable[int] = ()) -> list[dict]:
        """Pending messages whose next attempt is due, replies first, then oldest first,
        except the ids in ``skip`` (the sender's own records that the database does not hold
        yet). Replies first: when a thousand games' reports are queued at once, a player's
        answer does not wait behind them."""
        skip = sorted(set(skip))
        not_in = f" AND id NOT IN ({', '.join('?' * len(skip))})" if skip else ""
        return self.all("SELECT * FROM outbox WHERE state = 'pending' AND next_attempt <= ?"
                        f"{not_in} ORDER BY kind IN ('reply', 'limit') DESC, id LIMIT ?",
                        (iso(now or self.clock()), *skip, limit))

    def mark_sent(self, outbox_id: int) -> None:
        self.execute("UPDATE outbox SET state = 'sent', sent = ?, attempts = attempts + 1 "
                     "WHERE id = ?", (iso(self.clock()), outbox_id))

    def mark_failed_attempt(self, outbox_id: int, error: str, next_attempt: datetime,
                            final: bool = False) -> None:
        self.execute("UPDATE outbox SET attempts = attempts + 1, last_error = ?, "
                     "next_attempt = ?, state = ? WHERE id = ?",
                     (error[:500], iso(next_attempt), "failed" if final else "pending",
                      outbox_id))

    def record_outbound(self, outcomes: list[dict]) -> list[int]:
        """Write the sender's outcomes (``id, message_id, state, attempts, last_error,
        next_attempt, failure, sent``: absolute values, so writing one twice changes nothing)
        in one transaction; a row already sent or given up stays as it is, and ``sending``
        (in flight) is not written. Returns the ids of outcomes whose row is not pending (or
        is another message now): there is nothing left for them to say."""
        stale = []
        with self.transaction():
            for o in outcomes:
                row = self.one("SELECT state, message_id FROM outbox WHERE id = ?", (o["id"],))
                if not row or row["state"] != "pending" or row["message_id"] != o["message_id"]:
                    stale.append(o["id"])
                elif o["state"] != "sending":
                    self.execute(
                        "UPDATE outbox SET state = ?, attempts = ?, last_error = ?, "
                        "next_attempt = ?, failure = ?, sent = ? WHERE id = ?",
                        (o["state"], o["attempts"], (o["last_error"] or "")[:500] or None,
                         o["next_attempt"], o["failure"], o["sent"], o["id"]))
        return stale

    @contextlib.contextmanager
    def busy_timeout(self, seconds: float) -> Iterator[None]:
        """Wait at most ``seconds`` for another connection's write lock inside the block
        (sqlite3.OperationalError 'database is locked' after that)."""
        self.db.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
        try:
            yield
        finally:
            self.db.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    # ----------------------------------------------------------------- audit
    def audit(self, *, command: str, outcome: str, inbox_id: int | None = None,
              address: str | None = None, game: str | None = None,
              power: str | None = None) -> None:
        self.execute("INSERT INTO audit (at, inbox_id, address, game, power, command, outcome) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (iso(self.clock()), inbox_id, address, game, power, command, outcome))

    # ----------------------------------------------------------------- games
    def game(self, name: str) -> dict | None:
        return self.one("SELECT * FROM games WHERE name = ? COLLATE NOCASE", (name,))

    def game_by_id(self, game_id: int) -> dict | None:
        return self.one("SELECT * FROM games WHERE id = ?", (game_id,))

    def players(self, game_id: int) -> list[dict]:
        return self.all("SELECT * FROM players WHERE game_id = ? ORDER BY power", (game_id,))

    def player(self, game_id: int, power: str) -> dict | None:
        return self.one("SELECT * FROM players WHERE game_id = ? AND power = ?",
                        (game_id, power))

    def position(self, game_id: int, phase: str) -> dict | None:
        return self.one("SELECT * FROM positions WHERE game_id = ? AND phase = ?",
                        (game_id, phase))

    def save_position(self, game_id: int, phase: str, position: dict) -> None:
        self.execute("INSERT OR REPLACE INTO positions (game_id, phase, position, created) "
                     "VALUES (?, ?, ?, ?)",
                     (game_id, phase, json.dumps(position), iso(self.clock())))

    def order_set(self, game_id: int, phase: str, power: str) -> list[dict] | None:
        row = self.one("SELECT lines FROM orders WHERE game_id = ? AND phase = ? AND power = ?",
                       (game_id, phase, power))
        return json.loads(row["lines"]) if row else None

    def order_sets(self, game_id: int, phase: str) -> dict[str, list[dict]]:
        return {r["power"]: json.loads(r["lines"]) for r in self.all(
            "SELECT power, lines FROM orders WHERE game_id = ? AND phase = ?", (game_id, phase))}

    def save_order_set(self, game_id: int, phase: str, power: str, lines: list[dict],
                       inbox_id: int | None) -> None:
        """A power's lines as read: ``{text, order, data, unit, error}`` each (the order as
        data and its canonical text: ``docs/engine.md``, "Orders as data"; rows of earlier
        versions have no ``data``)."""
        self.execute("INSERT OR REPLACE INTO orders (game_id, phase, power, lines, updated, "
                     "inbox_id) VALUES (?, ?, ?, ?, ?, ?)",
                     (game_id, phase, power, json.dumps(lines), iso(self.clock()), inbox_id))

    def clear_order_set(self, game_id: int, phase: str, power: str) -> None:
        self.execute("DELETE FROM orders WHERE game_id = ? AND phase = ? AND power = ?",
                     (game_id, phase, power))

    # ------------------------------------------------------------ orders sent ahead
    def pending_blocks(self, game_id: int, power: str | None = None) -> list[dict]:
        """The PHASE blocks waiting in a game (of one power), each with ``lines`` decoded;
        blocks already used are not among them."""
        sql = "SELECT * FROM pending_orders WHERE game_id = ? AND used_in IS NULL"
        params: tuple = (game_id,)
        if power is not None:
            sql, params = sql + " AND power = ?", (game_id, power)
        rows = self.all(sql + " ORDER BY power, id", params)
        for r in rows:
            r["lines"] = json.loads(r["lines"])
        return rows

    def used_blocks(self, game_id: int, phases: Iterable[str]) -> list[dict]:
        """The blocks used (or dropped) when one of ``phases`` began, ``lines`` decoded."""
        wanted = list(phases)
        if not wanted:
            return []
        marks = ", ".join("?" * len(wanted))
        rows = self.all(f"SELECT * FROM pending_orders WHERE game_id = ? AND used_in IN "  # noqa: S608
                        f"({marks}) ORDER BY power, id", (game_id, *wanted))
        for r in rows:
            r["lines"] = json.loads(r["lines"])
        return rows

    def save_pending_block(self, game_id: int, power: str, phase: str, lines: list[str],
                           inbox_id: int | None) -> None:
        """Keep a block for ``phase``, replacing the power's earlier one for that phase (a
        used one too: the player's latest word for the phase)."""
        self.execute("INSERT OR REPLACE INTO pending_orders (game_id, power, phase, lines, "
                     "updated, inbox_id) VALUES (?, ?, ?, ?, ?, ?)",
                     (game_id, power, phase, json.dumps(lines), iso(self.clock()), inbox_id))

    def mark_pending_used(self, block_id: int, phase: str | None) -> None:
        """``phase``: the phase whose start used the block; None makes it pending again."""
        self.execute("UPDATE pending_orders SET used_in = ? WHERE id = ?", (phase, block_id))

    def drop_pending_block(self, block_id: int) -> None:
        self.execute("DELETE FROM pending_orders WHERE id = ?", (block_id,))

    def drop_pending(self, game_id: int, power: str, phase: str) -> None:
        self.execute("DELETE FROM pending_orders WHERE game_id = ? AND power = ? AND phase = ?",
                     (game_id, power, phase))

    def drop_all_pending(self, game_id: int, power: str) -> int:
        """Withdraw every block of ``power`` still waiting (the used ones stay, for a
        ROLLBACK); how many."""
        return self.execute("DELETE FROM pending_orders WHERE game_id = ? AND power = ? AND "
                            "used_in IS NULL", (game_id, power)).rowcount
