"""Due games processed exactly once, with several workers and across a crash (issue 15).

Each worker is a process of its own with its own connection to the database, as ``judge
serve``'s deadline worker is beside the inbox worker (and as a second judge process on the
same database would be). The games' mail is rendered after the game's transaction
(``Outbox.defer_render``, judge serve's setting): the game's transaction stores each message's
job, the pool renders it and a short transaction releases it.
"""

from __future__ import annotations

import multiprocessing
import os
from datetime import timedelta
from pathlib import Path

from mailkit import GM, POWERS, InProcessJudge, addr, new_game

import judge.games.game as G
from judge.config import Config
from judge.storage import now_utc

READERS = {addr(p) for p in POWERS} | {GM}
SPAWN = multiprocessing.get_context("spawn")


def _actor(base: str, address: str):
    from judge.games.acting import Actor
    from judge.storage import Store

    cfg = Config(address=address, database=str(Path(base) / "judge.db"), base_dir=Path(base))
    cfg.default_settle = "0s"
    actor = Actor(Store(cfg.database_path), cfg)
    actor.outbox.defer_pictures = actor.outbox.defer_render = True  # as judge serve does
    return actor


def _race(base: str, address: str, barrier, results) -> None:
    """A worker process: wait for the other, then process what is due."""
    actor = _actor(base, address)
    barrier.wait(30)
    results.put(actor.process_due())


def _die_mid_transaction(base: str, address: str) -> None:
    """A worker process killed while a game's transaction is open: after the adjudication,
    in the middle of queueing its mail."""
    from judge.mail.outbox import Outbox

    queue = Outbox.queue
    calls = []

    def dying(self, **kw):
        calls.append(kw)
        if len(calls) == 3:
            os._exit(9)  # no rollback, no cleanup: as SIGKILL
        return queue(self, **kw)

    Outbox.queue = dying  # type: ignore[method-assign]
    _actor(base, address).process_due()


def _die_before_release(base: str, address: str) -> None:
    """A worker process that processes the game (its transaction commits), has the mail
    rendered by the pool and is killed before the transaction that releases it."""
    import judge.service as service
    from judge.storage import Store

    actor = _actor(base, address)
    assert actor.process_due() == 1

    def dying(store, rendered, drawn=None):
        assert rendered  # computed, not written
        # the pool's processes go too (as a killed service's control group does): left
        # alone they would wait for work for ever, long after the test
        assert painter.pool is not None
        painter.pool.shutdown(wait=True)
        os._exit(9)

    service.finish_jobs = dying  # type: ignore[assignment]
    painter = service._Painter(Store(actor.cfg.database_path), lambda: None)
    painter.step()


def due_games(tmp_path: Path, names: list[str]) -> InProcessJudge:
    """A judge with these standard games running, nobody's orders in, all due a minute ago
    (unordered units hold: the phase is processed at its deadline)."""
    j = InProcessJudge(tmp_path)
    for name in names:
        new_game(j, name)
    with j.store.transaction():
        for name in names:
            G.set_deadline(j.store, G.find_game(j.store, name), now_utc() - timedelta(minutes=1))
    return j


def run_child(target, *args) -> int:
    p = SPAWN.Process(target=target, args=args)
    p.start()
    p.join(120)
    assert p.exitcode is not None, "the worker process hung"
    return p.exitcode


def release_and_send(j: InProcessJudge):
    """What ``judge serve`` does next: the painter renders and releases the waiting mail,
    the sender sends it; then whatever is due is processed again (nothing should be)."""
    from judge.service import _Painter

    painter = _Painter(j.store, lambda: None)
    try:
        painter.step()
    finally:
        painter.close()
    return j.run()


def reports_of(sent, game: str) -> list:
    return [m for m in sent if m.subject == f"{game} - S1901M results"]


def test_two_worker_processes_racing_on_the_same_due_games_process_each_once(tmp_path):
    names = ["racea", "raceb", "racec"]
    j = due_games(tmp_path, names)
    barrier, results = SPAWN.Barrier(2), SPAWN.Queue()
    workers = [SPAWN.Process(target=_race, args=(str(tmp_path), j.cfg.address, barrier,
                                                 results)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    processed = [results.get(timeout=5) for _ in workers]
    assert sum(processed) == len(names), processed  # each phase once, between the two
    sent = release_and_send(j)
    for name in names:
        game = G.find_game(j.store, name)
        assert game["phase"] == "F1901M"
        reports = reports_of(sent, name)
        assert sorted(m.rcpt for m in reports) == sorted(READERS), "one report per reader"
        assert j.store.one("SELECT count(*) AS n FROM positions WHERE game_id = ? AND "
                           "adjudicated IS NOT NULL", (game["id"],))["n"] == 1


def test_killed_inside_the_games_transaction_it_is_processed_once_after_restart(tmp_path):
    j = due_games(tmp_path, ["crash1"])
    assert run_child(_die_mid_transaction, str(tmp_path), j.cfg.address) == 9
    game = G.find_game(j.store, "crash1")
    assert game["phase"] == "S1901M", "the transaction that died left nothing"
    assert j.store.one("SELECT count(*) AS n FROM outbox WHERE kind = 'report' AND "
                       "subject LIKE '%results'")["n"] == 0
    # restart: a new worker processes it, once
    actor = _actor(str(tmp_path), j.cfg.address)
    assert actor.process_due() == 1
    assert actor.process_due() == 0
    sent = release_and_send(j)
    assert sorted(m.rcpt for m in reports_of(sent, "crash1")) == sorted(READERS)
    assert G.find_game(j.store, "crash1")["phase"] == "F1901M"


def test_killed_between_rendering_and_release_the_mail_goes_once_after_restart(tmp_path):
    j = due_games(tmp_path, ["crash2"])
    assert run_child(_die_before_release, str(tmp_path), j.cfg.address) == 9
    assert G.find_game(j.store, "crash2")["phase"] == "F1901M", "the game's transaction held"
    waiting = j.store.all("SELECT id FROM outbox WHERE state = 'waiting'")
    assert len(waiting) >= len(READERS), "the mail waits to be rendered again"
    assert [m for m in j.run() if "results" in m.subject] == [], "nothing sent unrendered"
    sent = release_and_send(j)  # restart: rendered again and released, once
    assert sorted(m.rcpt for m in reports_of(sent, "crash2")) == sorted(READERS)
    assert release_and_send(j) == []
    assert j.store.all("SELECT outbox_id FROM outbox_jobs") == []
    assert j.store.all("SELECT id FROM pictures") == []
    assert G.find_game(j.store, "crash2")["phase"] == "F1901M"
