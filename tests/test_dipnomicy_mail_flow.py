"""Dipnomicy's game flow by email (issue 17, item 9): the next turn's moves and proposal are
taken from the move report on, in the same mails as the votes, and read again under the
rules in force when voting closes (the player is told what changed); the deadlines the judge
states (CREATE, STATUS, RESUME, a late move's refusal, a pause) are the ones the game keeps."""

from __future__ import annotations

from datetime import timedelta

from dipkit import (
    GM,
    P5,
    P5_TITLE,
    SUPPORT,
    DipGame,
    clock_text,
    labels,
    play_turn_with_votes,
    proposal,
)


def vote_all(g: DipGame, report, choices: dict[str, str], extra: dict[str, str] | None = None
             ) -> dict:
    """Every player votes (``choices``: {title: FOR|AGAINST}); ``extra`` lines (moves, a
    proposal) go in the same mail for some countries. The replies by country."""
    label = labels(report)
    replies = {}
    for country in g.countries:
        lines = [f"VOTE {label[t]} {c}" for t, c in choices.items()]
        replies[country] = g.player(country, "\n".join([*lines, (extra or {}).get(country, "")]),
                                    "votes and moves")
    return replies


def test_three_day_rule_with_three_vote_days_leaves_time_to_move(tmp_path):
    """vote_days 3 and P5 passing: turn 2 is adjudicated the moment voting closes, and the
    moves and proposal sent with the votes are in it (nobody is reported without moves)."""
    g = DipGame(tmp_path)
    g.reply(GM, "CREATE dip sgpass VARIANT dipnomicy", "new")
    g.sg("SETTING vote_days 3")
    g.start()
    g.player("ITALY", P5)
    report = g.to_all(g.to_deadline(), "move report, turn 1")
    moves = {c: "" for c in g.countries}
    moves.update({"FRANCE": "A Par -- Bur\n" + SUPPORT, "GERMANY": "A Mun -- Ruh",
                  "ITALY": "A Ven -- Tyr", "AUSTRIA": "A Vie -- Gal",
                  "ENGLAND": "F Lon -- NTH", "RUSSIA": "A War -- Ukr", "TURKEY": "A Con -- Bul"})
    replies = vote_all(g, report, {P5_TITLE: "FOR"}, moves)
    fr = replies["FRANCE"]
    assert not fr.subject.startswith("[ERROR]"), fr.body
    assert "Vote of France recorded: P1 FOR" in fr.flat
    assert "Proposal of France for turn 2 received: \"Support actions\"" in fr.flat
    assert "A PAR - BUR" in fr.body
    got = g.to_vote_deadline()  # voting closes at the moves deadline: both at once
    result = g.to_all(got, "votes on the proposals of turn 1")
    assert "PASSED: enacted as rule 25" in result.body
    report2 = g.to_all(got, "move report, turn 2")
    assert "did not submit moves" not in report2.body, report2.body
    for line in ("A Par -- Bur", "A Mun -- Ruh", "F Lon -- NTH", "A Con -- Bul"):
        assert line + "\n" in report2.body
    assert "P1: Support actions" in report2.body  # the proposal sent with the votes


def test_a_move_a_passed_rule_makes_legal_is_read_again_and_the_player_told(tmp_path):
    """A support sent while the support rule is being voted on is refused under the rules
    in force then; when the rule passes it is read again, counted, and Austria is told."""
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", SUPPORT)
    report = g.to_all(g.to_deadline(), "move report, turn 1")
    assert "They are taken from now on, with your votes" in report.flat, report.body
    replies = vote_all(g, report, {"Support actions": "FOR"},
                       {"AUSTRIA": "A Bud -- Gal\nA Vie S A Bud -- Gal",
                        "RUSSIA": "A War -- Gal"})
    au = replies["AUSTRIA"]
    assert "support actions are not in the rules" in au.flat  # read under today's rules
    got = g.to_vote_deadline()
    told = [m for m in got if "your orders under the new rules" in m.subject]
    assert [m.rcpt for m in told] == [g.countries["AUSTRIA"]]
    assert "A Vie S A Bud -- Gal: now legal, read as A VIE S A BUD - GAL" in told[0].flat
    assert "Every unit has an order" not in told[0].flat and "Units without orders: F TRI" in told[0].flat
    report2 = g.to_all(g.to_deadline(), "move report, turn 2")
    assert "A Bud -- Gal\n" in report2.body and "A Vie S A Bud -- Gal\n" in report2.body
    assert "A War -- Gal (failed" in report2.body


def test_a_move_and_a_proposal_a_passed_rule_makes_illegal_are_reported_at_vote_close(
        tmp_path):
    """Repealing the convoy rule: England's convoy sent with its vote is no longer legal, and
    its proposal to amend the repealed rule is withdrawn; England is told at vote close."""
    g = DipGame(tmp_path)
    g.start()
    g.player("ENGLAND", "F Lon -- NTH\nA Lvp -- Yor\nPROPOSE No convoys\nRepeal rule 17.\nEND")
    report = g.to_all(g.to_deadline(), "move report, turn 1")
    amend = "\n".join(["PROPOSE Convoys again", "Amend rule 17 to read:",
                       "Fleets convoy armies as in the original game.", "END"])
    replies = vote_all(g, report, {"No convoys": "FOR"},
                       {"ENGLAND": f"F NTH C A Yor -- Nwy\nA Yor -- Nwy\n{amend}"})
    assert not replies["ENGLAND"].subject.startswith("[ERROR]"), replies["ENGLAND"].body
    got = g.to_vote_deadline()
    told = {m.rcpt: m for m in got if "your orders under the new rules" in m.subject}
    assert set(told) == {g.countries["ENGLAND"]}
    en = told[g.countries["ENGLAND"]].flat
    assert "F NTH C A Yor -- Nwy: no longer legal: convoy actions are not in the rules" in en
    assert "A Yor -- Nwy: no longer legal" in en
    assert "Your proposal \"Convoys again\" cannot be made under the new rules" in en
    assert "there is no rule 17" in en
    report2 = g.to_all(g.to_deadline(), "move report, turn 2")
    assert "No proposals were submitted this turn." in report2.body
    assert "A Yor H" in report2.body


def test_create_status_and_deadlines_say_the_rules_deadlines(tmp_path):
    g = DipGame(tmp_path)
    r = g.reply(GM, "CREATE dip sgpass VARIANT dipnomicy", "new")
    assert "Phase lengths" not in r.flat and "movement 2 days" not in r.flat
    assert ("moves 7 days after voting closes, or after the start or a move report with "
            "nothing to vote on (default_move_days); votes 2 days after the move report") \
        in r.flat
    r = g.sg("DEADLINES 48h 24h 24h")
    assert r.subject.startswith("[ERROR]") and "DEADLINES does not apply" in r.flat
    g.start()
    status = g.reply(GM, "STATUS dip", "status")
    assert "Phase lengths" not in status.flat
    assert "moves 7 days after voting closes" in status.flat
    assert g.deadline() == g.clock.now + timedelta(days=7)
    play_turn_with_votes(g, {"ITALY": P5}, None, {P5_TITLE: "FOR"})
    status = g.reply(GM, "STATUS dip", "status")
    assert "moves 3 days after the last move report (the deadline rule)" in status.flat


def test_resume_under_the_three_day_rule_gives_its_three_days(tmp_path):
    """A pause: no move is refused as late while it lasts (the pause notice says no deadline
    runs); RESUME after the deadline passed gives the rule's 3 days."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {P5_TITLE: "FOR"})
    r = g.sg("PAUSE")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.clock.to(g.deadline() + timedelta(days=2))
    r = g.player("GERMANY", "A Mun -- Ruh", "during the pause")
    assert "too late" not in r.flat and "is paused" in r.flat
    r = g.sg("RESUME")
    assert g.deadline() == g.clock.now + timedelta(days=3)
    assert f"deadline {clock_text(g.deadline())}" in r.flat
    r = g.player("GERMANY", "A Mun -- Ruh", "after the pause")
    assert not r.subject.startswith("[ERROR]"), r.body


def test_resume_renews_a_vote_deadline_that_passed_in_the_pause(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", SUPPORT)
    g.to_deadline()
    g.sg("PAUSE")
    g.clock.to(g.vote_deadline() + timedelta(days=1))
    g.tick()
    assert g.state()["voting"] == 1  # no deadline runs in a pause: the vote stays open
    got = g.send(GM, "MASTER dip sgpass\nRESUME", "resume")
    assert g.vote_deadline() == g.clock.now + timedelta(days=2)
    notice = [m for m in got if m.rcpt == g.countries["FRANCE"] and "resumed" in m.subject]
    assert "Voting on the 1 proposal(s) of turn 1 is open until" in notice[0].flat


def test_a_late_move_after_the_sgs_deadline_is_refused_for_that_deadline(tmp_path):
    """P5 in force, but the SG set this turn's deadline: the refusal names that deadline,
    not "3 days after the last move report"."""
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"ITALY": P5}, None, {P5_TITLE: "FOR"})
    r = g.sg("DEADLINE 12h")
    assert not r.subject.startswith("[ERROR]"), r.body
    due = g.deadline()
    assert due == g.clock.now + timedelta(hours=12)
    g.clock.to(due + timedelta(minutes=5))
    late = g.player("GERMANY", "A Mun -- Ruh", "late")
    assert late.subject.startswith("[ERROR]")
    assert (f"too late: moves for turn 2 were due by {clock_text(due)}, the deadline set for "
            f"this turn. Late submissions are not counted (rule 25).") in late.flat
    assert "after the last move report" not in late.flat


def test_orders_are_read_again_when_the_sg_attaches_a_module(tmp_path):
    """A support sent under a rule passed as text is refused; once the SG attaches the
    support module to the rule, it is read again and Austria is told."""
    g = DipGame(tmp_path)
    g.start()
    _, result = play_turn_with_votes(g, {"FRANCE": proposal("Support actions")}, None,
                                     {"Support actions": "FOR"})
    assert "PASSED: enacted as rule 25" in result.body
    r = g.player("AUSTRIA", "A Bud -- Gal\nA Vie S A Bud -- Gal")
    assert "support actions are not in the rules" in r.flat
    got = g.send(GM, "MASTER dip sgpass\nATTACH 25 support", "attach")
    told = [m for m in got if "your orders under the new rules" in m.subject]
    assert [m.rcpt for m in told] == [g.countries["AUSTRIA"]]
    assert ("The Secretary General has changed the rules in force in game dip (rule 25: "
            "module support).") in told[0].flat
    assert "A Vie S A Bud -- Gal: now legal, read as A VIE S A BUD - GAL" in told[0].flat
