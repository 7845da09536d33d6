"""The SG's clock commands while a Dipnomicy vote is open, by email with the judge's clock
moved by the test: DEADLINE moves the deadline that is running, the vote's (its reminder and
its closing follow the new time, the reply says which deadline moved and to when), and the
next turn's moves deadline is still the rules' (default_move_days after voting closes; under
the deadline rule P5, its days after the last move report, which DEADLINE does not move).
Outside a vote DEADLINE moves the moves deadline, as before. RESUME names the vote's
deadline too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dipkit import (
    GM,
    P5,
    P5_TITLE,
    SUPPORT,
    DipGame,
    clock_text,
    open_vote,
    play_turn_with_votes,
    proposal,
)

from judge.games.errors import GameError
from judge.games.flow import GameFlow, Stage

DAY = timedelta(days=1)


def _reminders(got: list) -> dict:
    return {m.rcpt: m for m in got if "reminder" in m.subject}


def test_deadline_in_a_vote_moves_the_vote_and_its_reminder_and_closing_follow(tmp_path):
    g = DipGame(tmp_path)
    label = open_vote(g)
    old_vote = g.vote_deadline()
    assert g.deadline() == old_vote + 7 * DAY  # the moves wait for the vote
    g.player("GERMANY", f"VOTE {label} FOR", "vote")
    # the reminder for the old vote deadline goes, a day before it
    g.clock.to(old_vote - timedelta(hours=23))
    assert len(_reminders(g.tick())) == len(g.countries) - 1

    r = g.sg("DEADLINE 3 days")
    assert not r.subject.startswith("[ERROR]"), r.body
    new = g.clock.now + 3 * DAY
    assert g.vote_deadline() == new
    assert (f"Deadline of the vote on the proposals of turn 1 set to {clock_text(new)} "
            f"(in 3 days).") in r.flat, r.body
    # the moves follow the vote by the rules: default_move_days after it
    assert g.deadline() == new + 7 * DAY
    assert (f"Moves for turn 2 are now due by {clock_text(new + 7 * DAY)} (in 10 days), 7 "
            f"days after voting closes (default_move_days") in r.flat, r.body
    # players see the new time in what they are told
    r = g.player("ITALY", f"VOTE {label} AGAINST", "vote")
    assert f"Votes are due by {clock_text(new)}" in r.flat, r.body

    # the old vote deadline passes: the vote stays open
    g.clock.to(old_vote + timedelta(seconds=1))
    assert not g.published(g.tick(), "votes on")
    assert g.state()["voting"] == 1
    # the reminder is due again, a day before the new deadline, with the new time
    g.clock.to(new - DAY - timedelta(seconds=1))
    assert not _reminders(g.tick())
    g.clock.to(new - timedelta(hours=23))
    reminders = _reminders(g.tick())
    assert set(reminders) == {a for c, a in g.countries.items() if c not in ("GERMANY",
                                                                           "ITALY")}
    for m in reminders.values():
        assert "reminder: votes due" in m.subject, m.subject
        assert f"votes on the proposals of turn 1 are due by {clock_text(new)}" in m.flat

    # the vote closes at the new deadline; the moves deadline is then computed as before
    result = g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 1")
    closed = g.clock.now
    assert closed == new + timedelta(seconds=1)
    assert g.state()["voting"] == 0
    assert g.deadline() == closed + 7 * DAY
    assert f"Moves for turn 2 are due by {clock_text(g.deadline())}" in result.body


def test_deadline_in_a_vote_can_close_it_sooner(tmp_path):
    g = DipGame(tmp_path)
    open_vote(g)
    r = g.sg("DEADLINE 6h")
    new = g.clock.now + timedelta(hours=6)
    assert f"Deadline of the vote on the proposals of turn 1 set to {clock_text(new)}" \
        in r.flat, r.body
    status = g.reply(GM, "STATUS dip", "status")
    assert f"open until {clock_text(new)}" in status.flat, status.body
    g.clock.to(new - timedelta(seconds=1))
    assert not g.published(g.tick(), "votes on")
    g.clock.to(new)
    g.to_all(g.tick(), "votes on the proposals of turn 1")
    assert g.deadline() == new + 7 * DAY


def test_under_the_deadline_rule_deadline_in_a_vote_keeps_the_rules_moves_deadline(
        tmp_path):
    """P5 in force: the vote's deadline moves, the moves stay due 3 days after the move
    report, and the reply says so; a vote closing at or after them is refused."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {P5_TITLE: "FOR"})
    g.player("FRANCE", SUPPORT)
    g.to_all(g.to_deadline(), "move report, turn 2")
    report_sent = g.clock.now
    moves = g.deadline()
    assert moves == report_sent + 3 * DAY and g.state()["voting"] == 1

    r = g.sg("DEADLINE 36h")
    assert not r.subject.startswith("[ERROR]"), r.body
    new = g.clock.now + timedelta(hours=36)
    assert g.vote_deadline() == new
    assert f"Deadline of the vote on the proposals of turn 2 set to {clock_text(new)}" \
        in r.flat, r.body
    assert (f"Moves for turn 3 stay due by {clock_text(moves)} (in 3 days): rule 25 (the "
            f"deadline rule) sets that deadline, 3 days after the last move report, and DEADLINE does not "
            f"move it.") in r.flat, r.body
    assert g.deadline() == moves

    r = g.sg("DEADLINE 3 days")
    assert r.subject.startswith("[ERROR]"), r.body
    assert ("the vote on the proposals of turn 2 cannot close at "
            f"{clock_text(g.clock.now + 3 * DAY)}") in r.flat, r.body
    assert (f"under rule 25 (the deadline rule) moves for turn 3 are due by "
            f"{clock_text(moves)} (in 3 days), 3 days after the last move report, which "
            f"DEADLINE does not move, and a turn is adjudicated only once its vote has "
            f"closed: give the vote a deadline before then") in r.flat, r.body
    assert g.vote_deadline() == new and g.deadline() == moves

    g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 2")
    assert g.clock.now == new + timedelta(seconds=1)
    assert g.deadline() == moves  # still the rule's, after the vote closed


def test_under_the_deadline_rule_a_moves_deadline_passed_in_a_pause_says_resume_first(
        tmp_path):
    """P5 in force, the game paused in a vote until the moves deadline has passed: DEADLINE
    for the vote is refused with what to do (RESUME renews the deadlines), not with a time
    already gone; after RESUME the same DEADLINE is taken."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {P5_TITLE: "FOR"})
    g.player("FRANCE", SUPPORT)
    g.to_all(g.to_deadline(), "move report, turn 2")
    moves = g.deadline()
    assert g.sg("PAUSE").subject.startswith("Re:")
    g.clock.to(moves + DAY)

    r = g.sg("DEADLINE 36h")
    assert r.subject.startswith("[ERROR]"), r.body
    assert ("that time has passed while the game is paused; RESUME first (it renews the "
            "deadlines), then set the vote's") in r.flat, r.body
    assert "give the vote a deadline before then" not in r.flat, r.body

    r = g.sg("RESUME")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert g.deadline() > g.clock.now
    r = g.sg("DEADLINE 36h")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert g.vote_deadline() == g.clock.now + timedelta(hours=36)


def test_deadline_outside_a_vote_moves_the_moves_deadline_as_before(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    r = g.sg("DEADLINE 2 days")
    new = g.clock.now + 2 * DAY
    assert f"Deadline of {g.game()['phase']} set to {clock_text(new)} (in 2 days)." in r.flat
    assert "vote" not in r.flat and "Moves for turn" not in r.flat, r.body
    assert g.deadline() == new
    g.clock.to(new - timedelta(seconds=1))
    assert not g.published(g.tick(), "move report")
    g.clock.to(new)
    g.to_all(g.tick(), "move report, turn 1")


def test_resume_in_a_vote_names_the_votes_deadline_and_the_moves_follow_it(tmp_path):
    """The vote's deadline passes in a pause, the moves' does not: RESUME gives the vote
    vote_days from now, the moves default_move_days after that, and the reply names both."""
    g = DipGame(tmp_path)
    open_vote(g)
    g.sg("PAUSE")
    g.clock.to(g.vote_deadline() + DAY)
    assert g.clock.now < g.deadline()
    r = g.sg("RESUME")
    vote = g.clock.now + 2 * DAY
    assert g.vote_deadline() == vote
    assert g.deadline() == vote + 7 * DAY
    assert (f"Game dip resumed; deadline of the vote on the proposals of turn 1: "
            f"{clock_text(vote)} (in 2 days); then of {g.game()['phase']}: "
            f"{clock_text(vote + 7 * DAY)}") in r.flat, r.body


def test_a_flow_that_does_not_say_how_to_move_its_own_stage_refuses_deadline():
    """The generic hook: the phase's deadline is the standard's to move (None); a flow's own
    stage is not moved as if it were the phase."""
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    game = {"name": "g", "phase": "S1901M"}
    phase = Stage(key="S1901M", deadline=now + DAY, started=now, title="S1901M")
    assert GameFlow().move_deadline(None, game, phase, now + 2 * DAY, now) is None  # type: ignore[arg-type]
    vote = Stage(key="votes:1", deadline=now + DAY, started=now, title="the vote",
                 orders=False)
    with pytest.raises(GameError, match="game g is in the vote, whose deadline its variant "
                                        "sets: DEADLINE cannot move it"):
        GameFlow().move_deadline(None, game, vote, now + 2 * DAY, now)  # type: ignore[arg-type]


def test_beside_an_upkeep_phase_deadline_moves_the_vote_and_says_which_comes_first(
        tmp_path):
    """Supply centres (P2) in force: after turn 2 an Upkeep phase runs beside the vote on
    turn 2's proposals, both due 2 days after the move report (the vote runs first). The
    SG's DEADLINE moves the vote; set after the Upkeep's, the Upkeep is processed at its own
    deadline and the vote closes at the new one."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"GERMANY": proposal("Supply centres", "supply_centres")}, None,
                         {"Supply centres": "FOR"})
    g.player("GERMANY", "F Kie -- Den", "turn 2")
    g.player("FRANCE", SUPPORT, "turn 2")
    g.to_all(g.to_deadline(), "move report, turn 2")
    assert g.game()["phase"] == "W1901A" and g.state()["voting"] == 1
    upkeep = g.deadline()
    assert g.vote_deadline() <= upkeep

    r = g.sg("DEADLINE 1 day")
    sooner = g.clock.now + DAY
    assert (f"Deadline of the vote on the proposals of turn 2 set to {clock_text(sooner)} "
            f"(in 1 day). Upkeep after turn 2 (W1901A) stays due by {clock_text(upkeep)} "
            f"(in 2 days).") in r.flat, r.body
    assert g.vote_deadline() == sooner and g.deadline() == upkeep

    r = g.sg("DEADLINE 3 days")
    later = g.clock.now + 3 * DAY
    assert (f"Deadline of the vote on the proposals of turn 2 set to {clock_text(later)} "
            f"(in 3 days). Upkeep after turn 2 (W1901A) stays due by {clock_text(upkeep)} "
            f"(in 2 days), before the vote closes: it is processed first.") in r.flat, r.body
    g.clock.to(upkeep)
    got = g.tick()
    g.to_all(got, "Upkeep after turn 2 (W1901A)")
    assert not g.published(got, "votes on") and g.state()["voting"] == 1
    assert g.game()["phase"] == "S1902M"
    g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 2")
    assert g.clock.now == later + timedelta(seconds=1)
    assert g.deadline() == g.clock.now + 7 * DAY


def test_process_after_deadline_in_a_vote_closes_the_vote_and_the_moves_run_from_then(
        tmp_path):
    g = DipGame(tmp_path)
    open_vote(g)
    g.sg("DEADLINE 3 days")
    g.clock.advance(hours=5)
    r = g.sg("PROCESS")
    assert ("Processed the vote on the proposals of turn 1; game dip is now in "
            f"{g.game()['phase']}.") in r.flat, r.body
    result = g.to_all(g.mail, "votes on the proposals of turn 1")
    assert g.state()["voting"] == 0
    assert g.deadline() == g.clock.now + 7 * DAY  # default_move_days from the close
    assert f"Moves for turn 2 are due by {clock_text(g.deadline())}" in result.body
    # the vote is closed: DEADLINE is the moves' again
    r = g.sg("DEADLINE 2 days")
    assert (f"Deadline of {g.game()['phase']} set to {clock_text(g.clock.now + 2 * DAY)} "
            "(in 2 days).") in r.flat, r.body
    assert g.deadline() == g.clock.now + 2 * DAY
