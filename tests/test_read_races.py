"""Read races between the judge's threads beyond the deadline worker's (test_deadline_read_race):
each thread has its own connection, and two reads made outside a transaction are two views of
the database, another thread's commit (a master's ROLLBACK) possibly between them; so is a
read and the transaction that acts on it. Each test here makes one such interleaving
deterministic: a second store on the same database commits the master's mail at the moment
the race needs, by wrapping a method of the first store. And Store.snapshot, the read-only
view the deadline worker reads a game in, holds no write: none inside, no transaction
inside, nothing left open when its block raises."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import pytest
from mailkit import GM, InProcessJudge, compose, new_game
from mailkit import addr as player

from judge.games.acting import Actor
from judge.games.deadlines import render_failed
from judge.mail.intake import store_message
from judge.storage import Store


def _master_mail(j: InProcessJudge, body: str) -> None:
    """The master's mail acted on by another connection (the intake worker's thread)."""
    other = Store(j.cfg.database_path)
    try:
        store_message(other, compose(GM, j.cfg.address, body, "master"), "test", None)
        Actor(other, j.cfg).process_inbox()
    finally:
        other.close()


def _broken_mail(j: InProcessJudge, gid: int) -> int:
    """Mail of the game its painter cannot render: its outbox id."""
    j.actor.outbox.defer_render = True  # as judge serve does: rendered by the painter
    try:
        with j.store.transaction():
            return j.actor.outbox.queue(kind="notice", to=player("FRANCE"),
                                        subject="race - news",
                                        template="no-such-notice.txt.j2", context={},
                                        game_id=gid)
    finally:
        j.actor.outbox.defer_render = False


def test_a_rollback_between_the_painters_reads_and_its_notice_loses_no_later_notice(
        tmp_path):
    """The painter tells a game's master once per phase that its mail could not be built
    (deadlines.render_failed, the notice key ``<phase>:render-failed``). It read the game
    (F1901M) and whether the master was told, outside its transaction; a master's ROLLBACK
    to S1901M committed (deleting F1901M's notices); its transaction then marked
    F1901M:render-failed, a phase the game was no longer in. When the game came to F1901M
    again and its mail failed there, its master was never told."""
    j = InProcessJudge(tmp_path)
    new_game(j, "race")
    j.send(GM, "MASTER race masterpw\nPROCESS")
    gid = j.store.game("race")["id"]
    assert j.store.game("race")["phase"] == "F1901M"
    j.run()
    failed = {_broken_mail(j, gid): ("TemplateNotFound: x", "trace")}

    painter = j.store  # the painter's store: the ROLLBACK commits just before its transaction
    begin = painter.transaction
    fired: list[bool] = []

    @contextlib.contextmanager
    def transaction() -> Iterator[Store]:
        if not fired:
            fired.append(True)
            _master_mail(j, "MASTER race masterpw\nROLLBACK S1901M")
        with begin() as s:
            yield s

    painter.transaction = transaction  # type: ignore[method-assign]
    render_failed(j.actor, gid, failed, j.actor.clock())
    painter.transaction = begin  # type: ignore[method-assign]
    assert fired, "the painter never opened its transaction"
    assert j.store.game("race")["phase"] == "S1901M"
    told = [m for m in j.run() if "could not be built" in m.subject]
    assert [m.rcpt for m in told] == [GM] and "S1901M" in told[0].flat, told

    # the game plays F1901M again, and its mail fails there: its master hears of it
    j.send(GM, "MASTER race masterpw\nPROCESS")
    assert j.store.game("race")["phase"] == "F1901M"
    j.run()
    render_failed(j.actor, gid, {_broken_mail(j, gid): ("TemplateNotFound: x", "trace")},
                  j.actor.clock())
    told = [m for m in j.run() if "could not be built" in m.subject]
    assert [m.rcpt for m in told] == [GM], "the master was not told of F1901M's mail"
    assert "F1901M" in told[0].flat, told[0].body


# ------------------------------------------------------------------ Store.snapshot
def _store(tmp_path) -> Store:
    s = Store(tmp_path / "judge.db")
    with s.transaction():
        s.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'first', 'ok')")
    return s


def _commands(s: Store) -> list[str]:
    return [r["command"] for r in s.all("SELECT command FROM audit ORDER BY id")]


def test_a_write_inside_a_snapshot_is_refused_and_nothing_of_it_is_kept(tmp_path):
    """A snapshot is a deferred BEGIN: a write in it took the write lock outside the
    threads' turns, failed 'database is locked' at once whenever another connection had
    committed since its first read, and was committed otherwise, also when its block raised
    after it. It is refused now, whatever the timing."""
    s = _store(tmp_path)
    with pytest.raises(sqlite3.OperationalError, match="readonly"), s.snapshot():
        s.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'inside', 'ok')")
    assert not s.db.conn.in_transaction
    assert _commands(s) == ["first"]
    # and the connection writes as before once it is over
    with s.transaction():
        s.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'after', 'ok')")
    assert _commands(Store(tmp_path / "judge.db")) == ["first", "after"]


def test_a_transaction_inside_a_snapshot_is_refused(tmp_path):
    """transaction() inside a snapshot was taken for a nested one: no BEGIN IMMEDIATE, no
    turn, and when its block raised nothing was rolled back: the snapshot's end committed
    its writes."""
    s = _store(tmp_path)
    with pytest.raises(RuntimeError, match="snapshot"), s.snapshot(), s.transaction():
        s.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'half', 'ok')")
        raise ValueError("the rest of the transaction failed")
    assert not s.db.conn.in_transaction
    assert _commands(Store(tmp_path / "judge.db")) == ["first"]


def test_a_snapshot_whose_block_raises_leaves_no_transaction_open(tmp_path):
    s = _store(tmp_path)
    with pytest.raises(ValueError), s.snapshot():
        assert _commands(s) == ["first"]
        raise ValueError("a read failed")
    assert not s.db.conn.in_transaction
    other = Store(tmp_path / "judge.db")
    with other.transaction():  # no reader left in the log: a checkpoint truncates it
        other.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'x', 'ok')")
    assert other.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0


def test_a_snapshot_sees_one_database_and_inside_a_transaction_is_part_of_it(tmp_path):
    s = _store(tmp_path)
    other = Store(tmp_path / "judge.db")
    with s.snapshot():
        assert _commands(s) == ["first"]
        with other.transaction():  # another thread commits meanwhile
            other.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'b', 'ok')")
        assert _commands(s) == ["first"]
    assert _commands(s) == ["first", "b"]
    with s.transaction():  # a snapshot in a transaction reads (and writes) as its part
        with s.snapshot():
            s.execute("INSERT INTO audit (at, command, outcome) VALUES ('t', 'c', 'ok')")
        assert _commands(s) == ["first", "b", "c"]
    assert _commands(other) == ["first", "b", "c"]
