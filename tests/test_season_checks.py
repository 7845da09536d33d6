"""The season's checks (tests/invariants.py) fed a database a bad judge left: each must say
what broke. Found by planting plausible bugs in a scratch copy of the judge and playing a
small season on it (review of issue 25): these went through unnoticed."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from datetime import UTC, datetime, timedelta

from invariants import ceiling_breaches, orphan_rows, repeated_reports
from seasonkit import overdue_stages

from judge.games import game as G
from judge.storage import Store
from judge.variants import get_variant

STD = get_variant("standard")


def rows_of(path) -> sqlite3.Connection:
    c = sqlite3.connect(str(path))
    c.row_factory = sqlite3.Row  # as Season.db()
    return c


def a_game(tmp_path) -> tuple[Store, dict]:
    s = Store(tmp_path / "judge.db")
    game = G.create_game(s, "g1", "masterpw", "standard", (3600, 3600, 3600), "gm@x.test")
    return s, game


def mail_in(s: Store, n: int) -> int:
    return int(s.execute("INSERT INTO inbox (key, received, source, mail_from, size, raw, "
                         "state, note) VALUES (?, '2026-11-23T10:00:00+00:00', 'smtp', "
                         "'de@x.test', 5, x'00', 'done', '1 command(s), 0 error(s)')",
                         (f"<s1.{n}@players.test>",)).lastrowid)


def test_a_reply_ceiling_that_closes_in_a_season_is_a_breach(tmp_path):
    """A judge whose reply ceiling counted wrong (planted: two replies an hour) answered a
    player's third mail of the hour with its [LIMIT] notice and the fourth with nothing,
    audited as the documented silence 'not answered: reply ceiling': invariant 3 took both
    as answered. The season puts the ceiling out of its players' reach, so either is a
    reply that went unsent."""
    s, _ = a_game(tmp_path)
    good = mail_in(s, 1)
    s.queue_outbound(kind="reply", mail_from="judge@x.test", rcpt="de@x.test",
                     subject="Re: orders", message_id="<r1@x.test>", raw=b"x", inbox_id=good)
    with contextlib.closing(rows_of(tmp_path / "judge.db")) as c:
        assert ceiling_breaches(c) == []  # a reply to every mail: nothing to say
    third, fourth = mail_in(s, 2), mail_in(s, 3)
    s.queue_outbound(kind="limit", mail_from="judge@x.test", rcpt="de@x.test",
                     subject="[LIMIT] Replies to you are paused for an hour",
                     message_id="<r2@x.test>", raw=b"x", inbox_id=third)
    s.audit(command="(message)", outcome="not answered: reply ceiling (silent)",
            inbox_id=fourth, address="de@x.test")
    with contextlib.closing(rows_of(tmp_path / "judge.db")) as c:
        found = ceiling_breaches(c)
    assert [i for i, _ in found] == [third, fourth]
    assert "[LIMIT]" in found[0][1] and "reply ceiling (silent)" in found[1][1]


def test_the_rows_of_a_phase_the_game_no_longer_has_are_a_breach(tmp_path):
    """A ROLLBACK that deleted the undone phase but not its orders (planted in a scratch
    copy) left rows the phase gets back when it comes again: invariant 8 ('holds exactly
    the phases the run made') never looked at them."""
    s, game = a_game(tmp_path)
    spring = STD.initial_position()
    s.save_position(game["id"], "S1901M", STD.write_position(spring))
    s.save_position(game["id"], "F1901M", STD.write_position(spring))
    for phase in ("S1901M", "F1901M"):
        s.execute("INSERT INTO orders (game_id, phase, power, lines, updated) VALUES "
                  "(?, ?, 'GERMANY', '[]', '2026-11-23T10:00:00+00:00')", (game["id"], phase))
    s.execute("INSERT INTO votes (game_id, phase, power, kind, value) VALUES "
              "(?, 'F1901M', 'GERMANY', 'draw', '[]')", (game["id"],))
    with contextlib.closing(rows_of(tmp_path / "judge.db")) as c:
        assert orphan_rows(c) == []
    # the ROLLBACK to S1901M as the planted bug did it: the position goes, its rows stay
    s.execute("DELETE FROM positions WHERE game_id = ? AND phase = 'F1901M'", (game["id"],))
    with contextlib.closing(rows_of(tmp_path / "judge.db")) as c:
        found = orphan_rows(c)
    assert [(gid, what.split(",")[0]) for gid, what in found] == [
        (game["id"], "1 row(s) of orders for F1901M"), (game["id"], "1 row(s) of votes for F1901M")]


def report(s: Store, game: dict, rcpt: str, subject: str, kind: str = "report") -> int:
    return s.queue_outbound(kind=kind, mail_from="judge@x.test", rcpt=rcpt, subject=subject,
                            message_id=f"<{subject}.{rcpt}@x.test>", raw=b"x",
                            game_id=game["id"])


def test_a_phase_reported_twice_in_a_game_rolled_back_once_is_a_breach(tmp_path):
    """A judge that sent a phase's reports twice (planted: at each civil-disorder processing)
    was caught in five games of nine; in the game whose master had rolled back once, every
    repeated report was excused, so the phases processed twice there went unseen. A copy
    is excused only by a ROLLBACK of its game between the two."""
    s, game = a_game(tmp_path)
    report(s, game, "de@x.test", "g1 - S1901M results")
    report(s, game, "de@x.test", "g1 - F1901M results")
    report(s, game, "de@x.test", "g1 - rolled back to F1901M", kind="notice")
    report(s, game, "de@x.test", "g1 - F1901M results")  # played again: its right
    with contextlib.closing(rows_of(tmp_path / "judge.db")) as c:
        assert repeated_reports(c) == []
    report(s, game, "DE@x.test", "g1 - F1901M results")  # processed twice, no rollback
    with contextlib.closing(rows_of(tmp_path / "judge.db")) as c:
        found = repeated_reports(c)
    assert len(found) == 1 and found[0][0] == game["id"], found
    assert "de@x.test got 2 copies of 'g1 - F1901M results' with no ROLLBACK" in found[0][1]


def test_a_phase_waiting_past_its_deadline_plus_grace_is_a_breach(tmp_path):
    """A judge whose deadline worker woke a day after the end of grace (planted: the grace's
    end in next_wake three days late) processed the phases of games with a silent power a
    day late, and the season said nothing: the clock went to the judge's own next wake, and
    only a wake already passed and not acted on was checked. The stage the judge states
    (its deadline and grace) must be over by the time the clock passes its end."""
    s, game = a_game(tmp_path)
    for power in STD.board.powers:
        s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) VALUES "
                  "(?, ?, ?, 'x', '2026-11-23')", (game["id"], power, f"{power.lower()}@x.test"))
    start = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
    game = G.start_game(s, G.refresh(s, game), start)  # deadline in an hour: (3600, ...)
    s.execute("UPDATE games SET settings = ? WHERE id = ?",
              (json.dumps({**json.loads(game["settings"]), "grace": 6 * 3600}), game["id"]))
    end = start + timedelta(hours=7)
    assert overdue_stages(tmp_path / "judge.db", end) == []  # within grace: it may wait
    [(name, phase, what)] = overdue_stages(tmp_path / "judge.db", end + timedelta(hours=18))
    assert (name, phase) == ("g1", "S1901M")
    assert "waits past its deadline 2026-11-23 11:00:00+00:00 plus grace 21600 s" in what
    # a game set to wait for a missing player (SET MISSED WAIT) waits by rule
    s.execute("UPDATE games SET settings = ? WHERE id = ?",
              (json.dumps({**json.loads(game["settings"]), "grace": 6 * 3600,
                           "missed": "wait"}), game["id"]))
    assert overdue_stages(tmp_path / "judge.db", end + timedelta(days=9)) == []
