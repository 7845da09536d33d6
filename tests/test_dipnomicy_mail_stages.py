"""Dipnomicy on the deadline engine (issue 14): its vote is a stage the engine drives like a
phase (reminders in its own words, early closing once every player has voted), and PAUSE and
RESUME keep the rules' lengths, not the game's DEADLINES. The flow's own tables come from the
flow (GameFlow.storage), also for a database made before they moved there."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

from dipkit import (
    SUPPORT,
    DipGame,
    open_vote,
    play_turn_with_votes,
)

from judge import storage
from judge.storage import Store
from judge.variants.dipnomicy import storage as dip_storage


def test_reminders_in_the_vote_say_votes_not_orders(tmp_path):
    g = DipGame(tmp_path)
    label = open_vote(g)
    r = g.player("GERMANY", f"VOTE {label} FOR", "vote")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.clock.to(g.vote_deadline() - timedelta(days=1, seconds=1))
    assert not [m for m in g.tick() if "reminder" in m.subject]  # not yet
    g.clock.to(g.vote_deadline() - timedelta(hours=23))
    got = g.tick()
    reminders = {m.rcpt: m for m in got if "reminder" in m.subject}
    assert set(reminders) == {a for c, a in g.countries.items() if c != "GERMANY"}
    for m in reminders.values():
        assert "reminder: votes due" in m.subject and "orders" not in m.subject, m.subject
        assert "votes on the proposals of turn 1 are due by" in m.flat, m.body
        assert f"{label}: Support actions" in m.body and "VOTE P1 FOR" in m.body
        assert "orders" not in m.flat, m.body
    assert not [m for m in g.tick() if "reminder" in m.subject]  # once
    # the vote still closes at its deadline, as before
    g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 1")
    assert g.state()["voting"] == 0


def test_the_vote_closes_early_once_every_player_has_voted(tmp_path):
    g = DipGame(tmp_path)
    label = open_vote(g)
    countries = sorted(g.countries)
    for c in countries[:-1]:
        r = g.player(c, f"VOTE {label} FOR", "vote")
        assert "processed early" not in r.flat, r.body
    # six of seven: not early, however long the settling delay (1h in dipkit) has run
    g.clock.advance(hours=2)
    assert not g.published(g.tick(), "votes on")
    assert g.state()["voting"] == 1
    r = g.player(countries[-1], f"VOTE {label} AGAINST", "vote")
    assert ("Every power in game dip has now sent its votes: the vote on the proposals of "
            "turn 1 will be processed early") in r.flat, r.body
    g.clock.advance(hours=1, seconds=1)  # the settling delay (SET SETTLE 1h)
    result = g.to_all(g.tick(), "votes on the proposals of turn 1")
    closed = g.clock.now
    assert closed < g.vote_deadline()  # a day and more before it
    assert g.state()["voting"] == 0
    assert "PASSED: enacted as rule 25" in result.body
    # the next turn's moves run from the close, by the rules (default_move_days)
    assert g.deadline() == closed + timedelta(days=7)


def test_a_change_of_vote_within_the_settling_delay_is_still_counted(tmp_path):
    """Early closing is the deadline engine's: a settling delay, and SET WAIT holds it."""
    g = DipGame(tmp_path)
    label = open_vote(g)
    countries = sorted(g.countries)
    for c in countries:
        g.player(c, f"VOTE {label} FOR", "vote")
    r = g.player(countries[0], "SET WAIT", "wait")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.clock.advance(hours=1, seconds=1)
    assert not g.published(g.tick(), "votes on")  # someone waits: the vote deadline decides
    for c in countries[:5]:
        g.player(c, f"VOTE {label} AGAINST", "vote")
    result = g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 1")
    assert "PASSED" not in result.body


def test_pause_and_resume_keep_the_rules_lengths(tmp_path):
    """The moves deadline passes during a pause; RESUME gives the rules' default_move_days
    (7 days), not the game's DEADLINES movement length; the paused game is reminded daily,
    as any game."""
    g = DipGame(tmp_path)
    g.start()
    game = g.game()
    assert game["movement_seconds"] != 7 * 86400  # the generic length differs
    r = g.sg("PAUSE")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.clock.to(g.deadline() + timedelta(days=1))
    got = g.tick()
    assert not g.published(got, "move report")  # no deadline runs in a pause
    assert [m for m in got if "still paused" in m.subject]
    r = g.sg("RESUME")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert g.deadline() == g.clock.now + timedelta(days=7)
    assert g.deadline() != g.clock.now + timedelta(seconds=game["movement_seconds"])


def test_pause_and_resume_in_the_vote_keep_the_vote_days(tmp_path):
    """A pause in the vote: RESUME gives the vote the rules' vote_days (2) from now, and the
    next turn's moves still follow the vote (default_move_days after it closes)."""
    g = DipGame(tmp_path)
    open_vote(g)
    g.sg("PAUSE")
    g.clock.to(g.deadline() + timedelta(days=1))  # past the vote's and the moves' deadlines
    g.tick()
    g.sg("RESUME")
    resumed = g.clock.now
    assert g.vote_deadline() == resumed + timedelta(days=2)
    assert g.deadline() == g.vote_deadline() + timedelta(days=7)
    g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 1")
    assert g.state()["voting"] == 0


def test_processing_the_vote_is_the_sgs_process_too(tmp_path):
    g = DipGame(tmp_path)
    open_vote(g)
    r = g.sg("PROCESS")
    assert "Processed the vote on the proposals of turn 1" in r.flat, r.body
    g.to_all(g.mail, "votes on the proposals of turn 1")
    assert g.state()["voting"] == 0


# ------------------------------------------------------------------ storage
def _old_layout(path) -> None:
    """A database as the judge made it while Dipnomicy's tables were its migration 3."""
    old = list(storage.MIGRATIONS[:9])
    old[2] = dip_storage.MIGRATIONS[0].replace(" IF NOT EXISTS", "")
    saved = storage.MIGRATIONS
    storage.MIGRATIONS = old
    try:
        Store(path).close()
    finally:
        storage.MIGRATIONS = saved


def _columns(path) -> dict[str, list[tuple]]:
    con = sqlite3.connect(path)
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name LIKE 'dipnomicy%' ORDER BY name")]
    out = {n: con.execute(f"PRAGMA table_info({n})").fetchall() for n in names}
    con.close()
    return out


def test_an_old_database_keeps_its_tables_and_a_new_one_gets_the_same(tmp_path):
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    old_dir.mkdir()
    new_dir.mkdir()
    _old_layout(old_dir / "judge.db")
    con = sqlite3.connect(old_dir / "judge.db")
    assert con.execute("PRAGMA user_version").fetchone()[0] == 9
    assert "extension_versions" not in {r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    con.close()
    before = _columns(old_dir / "judge.db")
    assert set(before) == {"dipnomicy_games", "dipnomicy_proposals", "dipnomicy_votes",
                           "dipnomicy_settings"}
    # the judge opens the old database: a game is played on it as on a new one
    for d in (old_dir, new_dir):
        g = DipGame(d)
        g.start()
        play_turn_with_votes(g, {"FRANCE": SUPPORT}, None, {"Support actions": "FOR"})
        assert g.state()["turn"] == 2
        row = g.judge.store.one("SELECT version FROM extension_versions WHERE name = ?",
                                ("dipnomicy",))
        assert row["version"] == len(dip_storage.MIGRATIONS)
        assert g.judge.store.schema_version() == len(storage.MIGRATIONS)
    assert _columns(old_dir / "judge.db") == before == _columns(new_dir / "judge.db")


def test_a_turn_rolled_back_gets_its_reminder_again(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.clock.to(g.deadline() - timedelta(hours=23))
    assert [m for m in g.tick() if "reminder: orders due" in m.subject]
    g.to_deadline()  # turn 1 adjudicated, nothing to vote on
    r = g.sg("ROLLBACK 1")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.clock.to(g.deadline() - timedelta(hours=23))
    reminders = [m for m in g.tick() if "reminder: orders due" in m.subject]
    assert {m.rcpt for m in reminders} == set(g.countries.values())
    assert "moves and proposals for turn 1 are due by" in reminders[0].flat


def test_without_grace_the_late_players_are_told_the_turn_is_adjudicated_now(tmp_path):
    """No SET GRACE (the default): at the moves deadline the players without complete moves
    are told, in Dipnomicy's words, just before the move report, as in any game."""
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", "A Par H\nA Mar H\nF Bre H")
    got = g.to_deadline()
    told = {m.rcpt: m for m in got if "late: processed without your orders" in m.subject}
    assert set(told) == {a for c, a in g.countries.items() if c != "FRANCE"}
    for m in told.values():
        assert "the deadline of the moves for turn 1 has passed" in m.flat, m.body
        assert "There is no grace period, so Turn 1 (Spring) is adjudicated now" in m.flat
    g.to_all(got, "move report, turn 1")
    subjects = [m.subject for m in got if m.rcpt == g.countries["GERMANY"]]
    assert subjects.index(told[g.countries["GERMANY"]].subject) < \
        [i for i, s in enumerate(subjects) if "move report" in s][0]
