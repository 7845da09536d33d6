"""What a game master is told about a game that is paused or over (found by review of the
failure containment, issue 22): STATUS of a paused game says it is paused and gives the
deadline it had (not "passed: the phase is processed now"); the commands that change a game
are refused on a game that has ended, with the reason (ROLLBACK still reopens it, as
documented); PROCESS of a paused game tells the master to RESUME it first; Dipnomicy refuses
ROLLBACK to the phase the game is in, as the judge's own ROLLBACK does."""

from __future__ import annotations

from datetime import timedelta

import pytest
from dipkit import DipGame, open_vote
from gmkit import FakeClock
from mailkit import POWERS, InProcessJudge, only_reply

from judge.storage import parse_iso

GM = "gm@players.test"


def _judge(tmp_path) -> InProcessJudge:
    j = InProcessJudge(tmp_path)
    j.actor.clock = j.actor.outbox.clock = FakeClock()
    j.send(GM, "CREATE rf gm-pass DEADLINES 2d 1d 1d\nOPEN")
    for p in POWERS:
        j.send(f"{p.lower()}@players.test", f"SIGNON {p} rf pw-{p.lower()}")
    j.send(GM, "MASTER rf gm-pass\nSTART")
    return j


def _master(j: InProcessJudge, body: str) -> str:
    return " ".join(only_reply(j.send(GM, f"MASTER rf gm-pass\n{body}"), GM).body.split())


def test_status_of_a_paused_game_says_paused_and_the_deadline_it_had(tmp_path):
    j = _judge(tmp_path)
    deadline = parse_iso(j.store.game("rf")["deadline"])
    _master(j, "PAUSE")
    j.actor.clock.set(deadline + timedelta(hours=5))  # the deadline passes while paused
    for body in ("STATUS rf", "LIST rf"):
        text = " ".join(only_reply(j.send("someone@players.test", body),
                                   "someone@players.test").body.split())
        assert "passed" not in text and "processed now" not in text, text
        assert "Deadline: paused" in text, text
        assert deadline.strftime("%a %d %b %Y %H:%M UTC") in text, text
    # a player's LIST: its orders, and the deadline the same way
    text = " ".join(only_reply(j.send("france@players.test", "SIGNON FRANCE rf pw-france\n"
                                      "LIST"), "france@players.test").body.split())
    assert "passed" not in text and "Deadline: paused (it was " in text, text
    # resumed: the new deadline, as usual
    resumed = _master(j, "RESUME")
    new = parse_iso(j.store.game("rf")["deadline"])
    assert new > j.actor.clock() and new.strftime("%a %d %b %Y %H:%M UTC") in resumed
    text = " ".join(only_reply(j.send("someone@players.test", "STATUS rf"),
                               "someone@players.test").body.split())
    assert f"Deadline: {new.strftime('%a %d %b %Y %H:%M UTC')} (in 2 days)" in text, text


@pytest.mark.parametrize("body", ["EJECT France", "SET GRACE 1d", "SET MOVEMENT 3d",
                                  "REPLACE France new@players.test newpass", "EDIT OWNER BEL "
                                  "France", "PAUSE", "RESUME", "PROCESS", "DEADLINE 3d",
                                  "DEADLINES 3d 1d 1d", "ACT France\nSET GRACE 1d"])
def test_a_finished_game_refuses_the_commands_that_change_it(tmp_path, body):
    j = _judge(tmp_path)
    _master(j, "ENDGAME DRAW")
    tables = ("games", "players", "positions", "player_changes", "observers")
    before = {t: j.store.all(f"SELECT * FROM {t}") for t in tables}
    text = _master(j, body)
    assert "ERROR" in text and "game rf has ended" in text, text
    assert {t: j.store.all(f"SELECT * FROM {t}") for t in tables} == before


def test_rollback_still_reopens_a_finished_game(tmp_path):
    j = _judge(tmp_path)
    _master(j, "PROCESS")
    _master(j, "ENDGAME DRAW")
    text = _master(j, "ROLLBACK S1901M")
    assert "ERROR" not in text and "back in S1901M" in text, text
    assert j.store.game("rf")["status"] == "active"


def test_process_of_a_paused_game_tells_the_master_to_resume_it(tmp_path):
    j = _judge(tmp_path)
    _master(j, "PAUSE")
    text = _master(j, "PROCESS")
    assert "ERROR" in text and "game rf is paused" in text, text
    assert "RESUME it first" in text and "orders wait" not in text, text
    assert j.store.game("rf")["phase"] == "S1901M"


def test_dipnomicy_refuses_rollback_to_the_phase_it_is_in(tmp_path):
    """Dipnomicy's ROLLBACK to the turn it is in undid its orders and restarted its 7-day
    clock; the judge's ROLLBACK and Chess Dip refuse a roll back to the current phase."""
    g = DipGame(tmp_path)
    g.start()
    g.player("FRANCE", "A PAR - BUR")
    g.clock.advance(days=3)
    before = (g.game(), g.state())
    orders = g.judge.store.all("SELECT * FROM orders")
    for body in ("ROLLBACK 1", "ROLLBACK S1901M"):
        r = g.sg(body)
        assert r.subject.startswith("[ERROR]") and "already in S1901M" in r.flat, r.body
    assert (g.game(), g.state()) == before
    assert g.judge.store.all("SELECT * FROM orders") == orders
    # with turn 1's vote open the game is in F1901M: back to turn 1 is allowed, not to turn 2
    (tmp_path / "second").mkdir()
    g2 = DipGame(tmp_path / "second")
    open_vote(g2)
    r = g2.sg("ROLLBACK 2")
    assert r.subject.startswith("[ERROR]") and "already in F1901M" in r.flat, r.body
    assert g2.state()["voting"] == 1


def test_process_of_a_game_the_judge_paused_says_resume_processes_it(tmp_path):
    """Paused by the judge because processing failed (judge/games/deadlines.py): RESUME
    processes the phase again at once, so that is what the master is told."""
    from judge.games import game as G

    j = _judge(tmp_path)
    why = "internal error while processing S1901M: EngineFault (log reference g1-0badf00d)"
    with j.store.transaction():
        G.pause_game(j.store, j.store.game("rf"), j.actor.clock(), why)
    text = _master(j, "PROCESS")
    assert "ERROR" in text and "paused by the judge" in text and "g1-0badf00d" in text, text
    assert "RESUME processes it again at once" in text, text


def test_rollback_reopens_a_game_that_ended_in_the_phase_it_is_in(tmp_path):
    """attack31: a game that ends without its phase being adjudicated (every survivor voted
    the draw, or the master's ENDGAME) stays in that phase; ROLLBACK to it was refused
    ('already in S1901M'), so a game that ended in its first phase could never be reopened,
    and a later one only by losing the phase before. Its draw votes go with the result."""
    j = _judge(tmp_path)
    j.send("france@players.test", "SIGNON FRANCE rf pw-france\nA PAR - BUR")
    for p in POWERS:
        j.send(f"{p.lower()}@players.test", f"SIGNON {p} rf pw-{p.lower()}\nDRAW")
    assert j.store.game("rf")["status"] == "finished"
    text = _master(j, "ROLLBACK S1901M")
    assert "ERROR" not in text and "back in S1901M" in text, text
    game = j.store.game("rf")
    assert (game["status"], game["phase"]) == ("active", "S1901M")
    assert parse_iso(game["deadline"]) > j.actor.clock()
    assert "A PAR - BUR" in [x["order"] for x in j.store.order_sets(
        game["id"], "S1901M")["FRANCE"]]
    # the votes that ended it are gone: one power's DRAW does not end it again
    j.send("italy@players.test", "SIGNON ITALY rf pw-italy\nDRAW")
    assert j.store.game("rf")["status"] == "active"
    # a running game still refuses it
    assert "already in S1901M" in _master(j, "ROLLBACK S1901M")


def test_dipnomicy_rollback_reopens_a_game_that_ended_in_the_turn_it_is_in(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    r = g.sg("ENDGAME")
    assert g.game()["status"] == "finished", r.body
    r = g.sg("ROLLBACK 1")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert (g.game()["status"], g.game()["phase"]) == ("active", "S1901M")
    assert g.deadline() > g.clock.now


def test_dipnomicy_rollback_of_a_game_ended_during_a_vote_opens_the_vote_again(tmp_path):
    """Reviewer of d8ff048: a Dipnomicy game ended (ENDGAME) while the vote on turn 1's
    proposals was open, in turn 2, was reopened by ROLLBACK 2 with no vote: turn 1's
    proposals were never voted on, and nobody was told. The vote is open again, with its
    votes cast and a deadline ahead; the SG and every player are told; it closes as any."""
    g = DipGame(tmp_path)
    label = open_vote(g)
    r = g.player("FRANCE", f"VOTE {label} FOR", "vote")
    assert not r.subject.startswith("[ERROR]"), r.body
    r = g.sg("ENDGAME")
    assert g.game()["status"] == "finished", r.body
    g.clock.advance(days=30)  # reopened long after: the vote's old deadline has passed
    g.tick()
    r = g.sg("ROLLBACK 2")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert (g.game()["status"], g.game()["phase"]) == ("active", "F1901M")
    assert (g.state()["voting"], g.state()["turn"]) == (1, 1)
    assert g.vote_deadline() > g.clock.now
    assert g.deadline() > g.vote_deadline()  # turn 2 is adjudicated after the vote closes
    said = "The vote on the proposals of turn 1 is open again"
    assert said in r.flat, r.body
    notice = g.to_all(g.mail, "rolled back to turn 2")
    assert said in notice.flat and "votes already cast stand" in notice.flat, notice.body
    # France's vote stands; the others vote and the vote closes with its result
    for country in g.countries:
        if country != "FRANCE":
            g.player(country, f"VOTE {label} AGAINST", "vote")
    result = g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 1")
    assert "For 1 (France), against 6" in result.flat, result.body
    assert (g.state()["voting"], g.state()["turn"]) == (0, 2)


@pytest.mark.parametrize("name", ["Autoreply", "AutoResponse", "Abwesenheitsnotiz", "autosvar"])
def test_a_game_cannot_be_named_as_an_automatic_replys_subject_starts(tmp_path, name):
    """Mail whose subject starts "Autoreply:" is an auto-responder's and never answered; a game
    of that name has its reports go out as "Autoreply: ...", so its players' replies to them
    would never be read (found by review32)."""
    j = InProcessJudge(tmp_path)
    reply = only_reply(j.send(GM, f"CREATE {name} gm-pass"), GM)
    text = " ".join(reply.body.split())
    assert "cannot be a game name: automatic replies begin their subjects so" in text, text
    assert j.store.game(name) is None
    # a name that only begins like one is fine
    reply = only_reply(j.send(GM, "CREATE autumn gm-pass"), GM)
    assert "ERROR" not in reply.body, reply.body


def test_rollback_to_the_phase_after_a_solo_names_the_phase_to_roll_back_to(tmp_path):
    """review33 of dd30268: ROLLBACK to the phase a solo left the game in is refused (it
    would play on from the won position), with 'ROLLBACK to that phase', which one unsaid
    (the phase before: the Fall movement, or its retreats, the Winter...). It names it; and
    that ROLLBACK reopens the game."""
    j = _judge(tmp_path)
    _master(j, "EDIT REMOVE F LON\nEDIT REMOVE A LVP\nEDIT REMOVE F EDI")
    centres = ["NWY", "SWE", "DEN", "HOL", "BEL", "SPA", "POR", "TUN", "RUM", "BUL", "GRE",
               "SER", "LON", "LVP", "EDI"]
    for k in range(0, len(centres), 5):
        text = _master(j, "\n".join(f"EDIT OWNER {c} FRANCE" for c in centres[k:k + 5]))
        assert "ERROR" not in text, text
    _master(j, "PROCESS")
    _master(j, "PROCESS")
    game = j.store.game("rf")
    assert (game["status"], game["phase"], game["winner"]) == ("finished", "S1902M", "FRANCE")
    text = _master(j, "ROLLBACK S1902M")
    assert "ERROR" in text and "ROLLBACK F1901M" in text, text
    text = _master(j, "ROLLBACK F1901M")
    assert "ERROR" not in text and "back in F1901M" in text, text
    assert j.store.game("rf")["status"] == "active"
