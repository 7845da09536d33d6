"""The sender's ledger: what happened to each outgoing message, written the moment it happened.

The judge's database has one writer at a time, and the worker holds it for a whole message or
game. If the sender had to wait for that lock to record "the server accepted it", a ``kill -9``
while it waited would make it send the message again after a restart. So the sender writes its
outcomes first into this small SQLite file of its own (beside the database, ``<name>.sender<ext>``,
only the sender opens it): a commit there never waits for anyone. It then copies them into the
``outbox`` table whenever the database is free (:meth:`judge.storage.Store.record_outbound`) and
forgets them. A mark names its row by id and Message-ID, so a database restored from a backup
(where ids are given again to other mail) is never confused by an old mark. Values are absolute (attempts so far, not "one more"), so copying one twice, as
after a crash between the two steps, changes nothing.

States: ``sending`` (written just before the SMTP transaction; found at start-up, the message may
have reached the server), ``sent``, ``pending`` (a temporary failure; ``next_attempt``) and
``failed`` (given up; ``failure`` says why).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS marks (  -- one per outbox row the sender has news of
    id INTEGER PRIMARY KEY,          -- outbox.id in the judge's database
    message_id TEXT NOT NULL,        -- outbox.message_id: a mark never applies to another row
    state TEXT NOT NULL,             -- sending | sent | pending | failed
    attempts INTEGER NOT NULL,
    last_error TEXT,
    next_attempt TEXT NOT NULL,
    failure TEXT,                    -- permanent | expired, once failed
    sent TEXT
)
"""
FIELDS = ("id", "message_id", "state", "attempts", "last_error", "next_attempt", "failure", "sent")


def ledger_path(database: str | Path) -> str:
    """``judge.db`` -> ``judge.sender.db`` (``:memory:`` stays in memory)."""
    if str(database) == ":memory:":
        return ":memory:"
    p = Path(database)
    return str(p.with_name(f"{p.stem}.sender{p.suffix}"))


class Ledger:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        # autocommit: every put is its own transaction, durable when it returns
        self.conn = sqlite3.connect(self.path, timeout=10, isolation_level=None,
                                    check_same_thread=False)
        if self.path != ":memory:":
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")  # as the database: survives kill -9
        self.conn.execute(SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def put(self, mark: dict) -> None:
        self.conn.execute(f"INSERT OR REPLACE INTO marks ({', '.join(FIELDS)}) "
                          f"VALUES ({', '.join('?' * len(FIELDS))})",
                          tuple(mark[f] for f in FIELDS))

    def marks(self) -> dict[int, dict]:
        cur = self.conn.execute(f"SELECT {', '.join(FIELDS)} FROM marks")
        return {row[0]: dict(zip(FIELDS, row, strict=True)) for row in cur}

    def drop(self, ids: Iterable[int]) -> None:
        self.conn.execute("BEGIN")
        try:
            self.conn.executemany("DELETE FROM marks WHERE id = ?", [(i,) for i in ids])
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
