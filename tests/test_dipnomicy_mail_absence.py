"""A player's SET ABSENCE in a Dipnomicy game, by email with the judge's clock moved by the
test: no deadline of the game falls inside an absence (docs/commands.md), the vote's as
much as the moves': the deadline running, the vote's during a vote, is pushed to the end of
the absence and the moves follow it by the rules; under the deadline rule (P5) both are
pushed, and the vote still closes before the turn is adjudicated. A vote opened later
falls outside the absence too. The reply names every deadline that moved."""

from __future__ import annotations

from datetime import datetime, timedelta

from dipkit import (
    P5,
    P5_TITLE,
    SUPPORT,
    DipGame,
    clock_text,
    play_turn_with_votes,
    proposal,
)

DAY = timedelta(days=1)


def absence(first: datetime, last: datetime) -> tuple[str, datetime]:
    """SET ABSENCE from the day of ``first`` to the day of ``last`` (whole days, the game's
    zone is UTC), and when it ends: the midnight after ``last``."""
    until = datetime(last.year, last.month, last.day, tzinfo=last.tzinfo) + DAY
    return f"SET ABSENCE {first:%Y-%m-%d} TO {last:%Y-%m-%d}", until


def test_an_absence_pushes_an_open_votes_deadline_and_the_moves_follow(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", SUPPORT)
    g.to_all(g.to_deadline(), "move report, turn 1")
    old_vote, old_moves = g.vote_deadline(), g.deadline()
    assert old_moves == old_vote + 7 * DAY

    line, until = absence(old_vote - DAY, old_vote + DAY)
    r = g.player("ITALY", line, "away")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert g.vote_deadline() == until
    assert g.deadline() == until + 7 * DAY  # default_move_days after voting closes
    assert (f"No deadline of game dip falls inside it. The deadline of the vote on the "
            f"proposals of turn 1 moves to {clock_text(until)}") in r.flat, r.body
    assert f"that of {g.game()['phase']} moves to {clock_text(until + 7 * DAY)}" in r.flat

    # players see the new time; the vote stays open past its old deadline
    r = g.player("GERMANY", "VOTE P1 FOR", "vote")
    assert f"Votes are due by {clock_text(until)}" in r.flat, r.body
    g.clock.to(old_vote + timedelta(seconds=1))
    assert not g.published(g.tick(), "votes on") and g.state()["voting"] == 1
    # the vote's reminder is due a day before its new deadline
    g.clock.to(until - timedelta(hours=23))
    assert any("reminder" in m.subject for m in g.tick())
    g.clock.to(until)
    result = g.to_all(g.tick(), "votes on the proposals of turn 1")
    assert f"Moves for turn 2 are due by {clock_text(until + 7 * DAY)}" in result.body


def test_an_absence_outside_the_deadlines_moves_none_and_the_reply_says_only_that(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", SUPPORT)
    g.to_all(g.to_deadline(), "move report, turn 1")
    vote, moves = g.vote_deadline(), g.deadline()
    line, _ = absence(vote + DAY, vote + 2 * DAY)
    r = g.player("ITALY", line, "away")
    assert "No deadline of game dip falls inside it. Orders for Italy" in r.flat, r.body
    assert (g.vote_deadline(), g.deadline()) == (vote, moves)


def test_a_vote_opened_during_an_absence_closes_after_it(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    report = g.deadline() + timedelta(seconds=1)
    line, until = absence(report + DAY, report + 3 * DAY)  # vote_days (2) would end inside
    r = g.player("ITALY", line, "away")
    assert "moves to" not in r.flat, r.body  # the moves' deadline is before it
    g.player("FRANCE", SUPPORT)
    report_mail = g.to_all(g.to_deadline(), "move report, turn 1")
    assert g.vote_deadline() == until
    assert f"{clock_text(until)}" in report_mail.body


def test_under_the_deadline_rule_an_absence_pushes_vote_and_moves_and_the_vote_closes_first(
        tmp_path):
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {P5_TITLE: "FOR"})
    g.player("FRANCE", SUPPORT)
    g.to_all(g.to_deadline(), "move report, turn 2")
    vote, moves = g.vote_deadline(), g.deadline()
    assert moves == vote + DAY  # 3 days after the move report; the vote 2

    line, until = absence(vote - DAY, moves + DAY)
    r = g.player("ITALY", line, "away")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert g.vote_deadline() == until and g.deadline() == until
    assert (f"The deadline of the vote on the proposals of turn 2 moves to "
            f"{clock_text(until)}") in r.flat, r.body
    assert f"that of {g.game()['phase']} moves to {clock_text(until)}" in r.flat, r.body

    g.clock.to(moves + timedelta(seconds=1))
    assert not g.published(g.tick(), "move report") and g.state()["voting"] == 1
    g.clock.to(until + timedelta(seconds=1))
    got = g.tick() + g.tick()
    subjects = [m.subject for m in got if m.rcpt == g.countries["FRANCE"]]
    votes = next(k for k, s in enumerate(subjects) if "votes on the proposals of turn 2" in s)
    report = next(k for k, s in enumerate(subjects) if "move report, turn 3" in s)
    assert votes < report, subjects


def test_beside_an_upkeep_phase_processed_first_an_absence_still_pushes_the_vote(tmp_path):
    """Supply centres (P2) in force: after turn 2 an Upkeep phase runs beside the vote; the
    SG gives the vote a later deadline, so the Upkeep is the stage driven first. An absence
    holding the vote's deadline alone pushes it, the Upkeep's stays."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"GERMANY": proposal("Supply centres", "supply_centres")}, None,
                         {"Supply centres": "FOR"})
    g.player("GERMANY", "F Kie -- Den", "turn 2")  # a centre gained: a build to order
    g.player("FRANCE", SUPPORT, "turn 2")
    g.to_all(g.to_deadline(), "move report, turn 2")
    assert g.game()["phase"] == "W1901A" and g.state()["voting"] == 1
    upkeep = g.deadline()
    g.sg("DEADLINE 4 days")
    vote = g.vote_deadline()
    assert upkeep < vote

    line, until = absence(vote - DAY, vote)
    # the absence starts after the Upkeep's deadline
    assert upkeep < (vote - DAY).replace(hour=0, minute=0, second=0, microsecond=0)
    r = g.player("ITALY", line, "away")
    assert (f"No deadline of game dip falls inside it. The deadline of the vote on the "
            f"proposals of turn 2 moves to {clock_text(until)}") in r.flat, r.body
    assert "W1901A" not in r.flat.split("falls inside it.")[1].split("Orders for")[0]
    assert g.vote_deadline() == until and g.deadline() == upkeep


def test_an_abandoned_players_absence_moves_nothing_and_the_reply_says_so(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    while g.judge.store.player(g.game()["id"], "ITALY")["state"] == "active":
        g.to_deadline()  # Italy misses turn after turn
    moves = g.deadline()
    line, _ = absence(moves - DAY, moves + DAY)
    r = g.player("ITALY", line, "away")
    assert "Italy is abandoned (offered for takeover): the absence moves no deadline of " \
           "game dip meanwhile." in r.flat, r.body
    assert "falls inside it" not in r.flat
    assert g.deadline() == moves
