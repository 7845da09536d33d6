"""The deadline worker reads a game (its row, then its position, its stage, its grace) while
another thread may commit a master's ROLLBACK between two of those reads. The nightly season
of seed 20261128 paused a Dipnomicy game so ("internal error while processing"): the worker
read the game row in Fall 1901, the ROLLBACK to Spring 1901 deleted Fall's position, and the
worker's next read found no position for the phase it had read. Every read the worker makes
before it acts is now one snapshot of the database."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from dipkit import GM, DipGame
from mailkit import compose

from judge.games.acting import Actor
from judge.mail.intake import store_message
from judge.storage import Store


def test_a_rollback_committed_between_the_deadline_workers_reads_does_not_pause_the_game(
        tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.to_all(g.to_deadline(), "move report, turn 1")
    assert g.game()["phase"] == "F1901M"

    # the master's mail, acted on by another connection (the intake worker's thread)
    other = Store(g.judge.cfg.database_path, clock=g.clock)
    master = Actor(other, g.judge.cfg)
    master.clock = g.clock

    def rollback_now() -> None:
        store_message(other, compose(GM, g.judge.cfg.address, "MASTER dip sgpass\nROLLBACK 1",
                                     "rollback"), "test", None)
        master.process_inbox()

    # the deadline worker's store: the ROLLBACK commits right after it has read the game row
    worker = g.judge.store
    read_game = worker.game_by_id
    fired: list[bool] = []

    def game_by_id(gid: int) -> dict[str, Any] | None:
        row = read_game(gid)
        if not fired:
            fired.append(True)
            rollback_now()
        return row

    worker.game_by_id = game_by_id  # type: ignore[method-assign]
    g.clock.advance(minutes=1)  # the worker's next look at the game
    g.tick()
    assert fired, "the deadline worker never read the game"
    worker.game_by_id = read_game  # type: ignore[method-assign]

    game = g.game()
    assert game["status"] == "active", game.get("pause_reason") or game
    assert game["phase"] == "S1901M"
    assert not [m for m in g.mail if "internal error" in m.body.lower()]
    # and the game goes on: its deadline processes the replayed turn
    g.clock.to(g.deadline() + timedelta(seconds=1))
    g.tick()
    assert g.game()["phase"] == "F1901M"
    other.close()
