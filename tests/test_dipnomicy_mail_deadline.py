"""The three-day rule (P5) end to end by email, with the judge's clock moved by the test:
once enacted, each moves deadline is set from the time the last move report was sent, it is
in every report and acknowledgement, and moves arriving after it are refused with a reply
saying so. The same turn without the rule takes the late moves. The scheduler wakes the judge
at vote deadlines as well as moves deadlines."""

from __future__ import annotations

from datetime import timedelta

import pytest
from dipkit import (
    GM,
    P5,
    DipGame,
    clock_text,
    play_turn_with_votes,
    proposal,
)

from judge.scheduler import Clock


@pytest.mark.parametrize("enact", [True, False], ids=["P5 enacted", "P5 voted down"])
def test_three_day_rule_sets_the_deadline_from_the_last_report_and_refuses_late_moves(
        tmp_path, enact):
    g = DipGame(tmp_path)
    g.start()
    g.player("ITALY", P5)
    g.to_deadline()
    report1_sent = g.clock.now  # the move report went out at the moves deadline
    assert g.state()["report_sent"].startswith(report1_sent.isoformat()[:19])
    for c in g.countries:
        g.player(c, "VOTE P1 " + ("FOR" if enact else "AGAINST"), "votes")
    result = g.to_all(g.to_vote_deadline(), "votes on")
    closed = g.clock.now
    if enact:
        # turn 2's moves are due three days after the move report of turn 1
        assert g.deadline() == report1_sent + timedelta(days=3)
        assert "PASSED: enacted as rule 25" in result.body
    else:  # the ruleset's default_move_days (7) from the close of the vote
        assert g.deadline() == closed + timedelta(days=7)
    assert f"Moves for turn 2 are due by {clock_text(g.deadline())}" in result.body
    # an acknowledgement shows the deadline
    r = g.player("FRANCE", "A Par -- Pic", "in time")
    assert f"Deadline: {clock_text(g.deadline())}" in r.body
    # a move after the deadline, before the judge has processed the turn
    due = g.deadline()
    g.clock.to(due + timedelta(minutes=10))
    late = g.player("GERMANY", "A Mun -- Ruh", "late")
    if enact:
        assert late.subject.startswith("[ERROR]"), late.body
        assert f"too late: moves for turn 2 were due by {clock_text(due)}" in late.flat
        assert ("3 days after the last move report (rule 25). Late submissions are not "
                "counted.") in late.flat
    else:
        assert not late.subject.startswith("[ERROR]"), late.body
    report2 = g.to_all(g.mail, "move report, turn 2")  # processed right after the late mail
    report2_sent = g.clock.now
    assert "A Par -- Pic\n" in report2.body
    if enact:
        assert "A Mun H" in report2.body and "A Mun -- Ruh" not in report2.body
        line = [x for x in report2.body.splitlines() if "did not submit moves" in x][0]
        assert "Germany" in line and "France" not in line
        # the next deadline: three days after this report, and the report says so
        assert g.deadline() == report2_sent + timedelta(days=3)
        assert f"Moves for Turn 3 (Spring) are due by {clock_text(g.deadline())}" \
            in report2.body
    else:
        assert "A Mun -- Ruh\n" in report2.body
    # after the turn was processed (no proposals, so no vote): these are turn 3's moves
    r = g.player("GERMANY", "A Ber -- Sil", "next turn")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "Spring 1902 Movement" in r.body and f"Deadline: {clock_text(g.deadline())}" in r.body


def test_a_move_after_the_turn_was_adjudicated_is_the_next_turns(tmp_path):
    """P5 in force, a proposal on the table: a move arriving after turn 2's deadline finds
    turn 2 adjudicated and voting open; it is taken as a move of turn 3, and says so."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {"Speed up the game (and clarify the "
                                                  "deadline)": "FOR"})
    g.player("FRANCE", proposal("Support actions", "support"))
    g.to_deadline()
    assert g.state()["voting"] == 1
    r = g.player("GERMANY", "A Mun -- Ruh", "late")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "Orders for Germany in game dip, Spring 1902 Movement (S1902M)" in r.flat
    assert f"Deadline: {clock_text(g.deadline())}" in r.flat


def test_the_scheduler_wakes_the_judge_at_the_vote_deadline(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", proposal("Support actions", "support"))
    g.to_deadline()
    clock = Clock(lambda: None, lambda: None, None, 60)  # not started: jobs only recorded
    clock.sync(g.judge.store)
    gid = g.game()["id"]
    # the vote is the stage the deadline engine drives (before the moves): its reminder, a
    # day before the vote deadline, then the vote deadline, earlier than the moves deadline
    assert clock.deadline_jobs()[gid] == g.vote_deadline() - timedelta(days=1)
    g.clock.to(g.vote_deadline() - timedelta(hours=23))
    g.tick()
    clock.sync(g.judge.store)
    assert clock.deadline_jobs()[gid] == g.vote_deadline()
    assert g.vote_deadline() < g.deadline()
    g.to_vote_deadline()
    clock.sync(g.judge.store)
    # then the reminder a day before the moves deadline (the deadline engine's), and the
    # moves deadline once it has been sent
    assert clock.deadline_jobs()[gid] == g.deadline() - timedelta(days=1)
    g.clock.to(g.deadline() - timedelta(hours=23))
    g.tick()
    clock.sync(g.judge.store)
    assert clock.deadline_jobs()[gid] == g.deadline()


def test_the_deadline_engine_reminds_players_without_moves_in_dipnomicy_words(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", "A Par -- Bur\nA Mar -- Spa\nF Bre -- Mid")
    assert not [m for m in g.tick() if "reminder" in m.subject]
    g.clock.to(g.deadline() - timedelta(days=1, seconds=1))
    assert not [m for m in g.tick() if "reminder" in m.subject]  # not yet
    g.clock.to(g.deadline() - timedelta(hours=23))
    reminders = {m.rcpt: m for m in g.tick() if "reminder" in m.subject}
    assert set(reminders) == {a for c, a in g.countries.items() if c != "FRANCE"}
    for m in reminders.values():
        assert "moves and proposals for turn 1 are due by" in m.flat, m.body
        assert "PROPOSE" in m.body
    assert not [m for m in g.tick() if "reminder" in m.subject]  # once
    got = g.to_deadline()  # the turn is adjudicated as before
    g.to_all(got, "move report, turn 1")


def test_with_grace_late_players_are_told_and_the_turn_waits_for_its_end(tmp_path):
    """SET GRACE (no deadline rule in force): at the moves deadline the deadline engine
    sends late notices and the turn is adjudicated when grace ends; moves are taken
    meanwhile."""
    g = DipGame(tmp_path)
    g.reply(GM, "CREATE dip sgpass VARIANT dipnomicy\nSET GRACE 2d", "new")
    g.start()
    g.player("FRANCE", "A Par H\nA Mar H\nF Bre H")
    deadline = g.deadline()
    got = g.to_deadline()
    assert not g.published(got, "move report")
    late = {m.rcpt: m for m in got if "late: orders missing" in m.subject and m.rcpt != GM}
    assert set(late) == {a for c, a in g.countries.items() if c != "FRANCE"}
    for m in late.values():
        assert "the deadline of the moves for turn 1 has passed" in m.flat, m.body
        assert "orders and proposals are still taken" in m.flat, m.body
    assert [m for m in got if m.rcpt == GM and "late: orders missing" in m.subject]
    r = g.player("GERMANY", "A Ber H\nA Mun H\nF Kie H", "in grace")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.clock.to(deadline + timedelta(days=1, seconds=1))
    again = {m.rcpt for m in g.tick() if "late: orders missing" in m.subject and m.rcpt != GM}
    assert again == {a for c, a in g.countries.items() if c not in ("FRANCE", "GERMANY")}
    assert not g.published(g.tick(), "move report")
    g.clock.to(deadline + timedelta(days=2, seconds=1))
    g.to_all(g.tick(), "move report, turn 1")


def test_under_the_deadline_rule_there_is_no_grace(tmp_path):
    """P5 says late moves are not counted: SET GRACE then gives no late notice, and the
    turn is adjudicated at its deadline."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {"Speed up the game (and clarify the "
                                                  "deadline)": "FOR"})
    r = g.sg("SET GRACE 2d")
    assert not r.subject.startswith("[ERROR]"), r.body
    got = g.to_deadline()
    g.to_all(got, "move report, turn 2")
    assert not [m for m in g.mail if "late: orders missing" in m.subject]
