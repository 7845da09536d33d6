"""What an independent review of session 30's changes found (review31), each through the
real mail servers: a player's, a master's or a stranger's mail, and what the judge mailed
back."""

from __future__ import annotations

from datetime import datetime, timedelta

from gmkit import (
    addr,
    gm,
    new_game,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)

NEWCOMER = "newcomer@players.test"


def test_a_replaced_players_absence_does_not_hold_the_game_for_the_new_one(judge):
    """Absences are kept by power, not by player: France's player declared 12 days away,
    was replaced the next day, and every deadline of the new player's game was still pushed
    past the old player's absence (Mon 07 Dec), the master having to move each by hand; the
    new player's SET NOABSENCE said France had no absence to come (it had begun) and its own
    absences counted as one with the old player's. A seat changing hands ends the absences
    of the one who left."""
    g = "rv1"
    new_game(judge, g, ["REMINDER OFF"])  # 48h movement; Mon 23 Nov 10:00
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               "SET ABSENCE 2026-11-24 TO 2026-12-06")
    [r] = to(judge.pump(), addr(g, "FRANCE"))
    assert "The current deadline moves to Mon 07 Dec 2026" in r.flat, r.body
    judge.clock.set(judge.clock() + timedelta(days=1))  # the absence has begun
    out = gm(judge, g, f"REPLACE France {NEWCOMER} newpw")
    [request] = to(out, NEWCOMER)
    judge.send(NEWCOMER, "CONFIRM " + request.flat.split("CONFIRM ")[1].split()[0])
    assert any("now plays France" in m.flat for m in to(judge.pump(), NEWCOMER))
    # the master processes the phase the old player's absence held; the next one is due
    # 48 hours on, not at the end of an absence of a player who is gone
    out = gm(judge, g, "PROCESS")
    [report] = to(out, NEWCOMER, lambda m: "results" in m.subject)
    assert "Deadline: Thu 26 Nov 2026" in report.flat, report.body
    assert "07 Dec" not in report.flat, report.body
    # and the new player's own absence is its own, not one stretch with the old one's
    judge.send(NEWCOMER, f"SIGNON FRANCE {g} newpw\nSET ABSENCE 2026-12-01 TO 2026-12-14")
    [r] = to(judge.pump(), NEWCOMER)
    assert "Absence of France recorded" in r.flat, r.body
    assert datetime.fromisoformat(judge.game(g)["deadline"]).day == 26


def test_the_masters_deadline_inside_an_absence_is_not_undone_by_declaring_it_again(judge):
    """SET NOABSENCE says of an absence that moved the deadline: 'ask the master to move the
    deadline back'. The master did (DEADLINE inside the absence: the game does not wait for
    France), and France's same SET ABSENCE again, or any absence inside it (or SET
    NOABSENCE and the absence again), moved the deadline out once more, everyone told each
    time, as often as France liked. A deadline the master put inside an absence stays
    there: a later absence moves it no more, and that absence is not cancelled."""
    g = "rv2"
    new_game(judge, g, ["REMINDER OFF"])
    me = addr(g, "FRANCE")
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-11-24 TO 2026-12-06")
    [r] = to(judge.pump(), me)
    assert "The current deadline moves to Mon 07 Dec 2026" in r.flat, r.body
    out = gm(judge, g, "DEADLINE 2026-11-26 18:00")
    assert to(out, me, lambda m: "deadline moved by the master" in m.subject)
    for lines in ("SET ABSENCE 2026-11-24 TO 2026-12-06", "SET ABSENCE 2026-11-25 TO 2026-11-30",
                  "SET NOABSENCE\nSET ABSENCE 2026-11-24 TO 2026-12-06"):
        judge.send(me, f"SIGNON FRANCE {g} pw-france\n{lines}")
        out = judge.pump()
        [r] = to(out, me)
        assert "The current deadline moves" not in r.flat, r.body
        assert ("The deadline of S1901M stays at Thu 26 Nov 2026 18:00 UTC, where the master "
                "put it") in r.flat, r.body
        assert "Deadline: Thu 26 Nov 2026 18:00 UTC" in r.flat, r.body
        assert not to(out, addr(g, "ENGLAND")), [m.subject for m in out]
    assert "The absence from Tue 24 Nov 2026 00:00 UTC to Mon 07 Dec 2026 00:00 UTC stays: " \
        "the master put the deadline of S1901M inside it." in r.flat, r.body


def test_a_player_cannot_hold_every_phase_with_a_new_absence(judge):
    """An absence over before the phase began counted no more, so a player could declare 13
    days at the start of every 48-hour phase: the game ran seven times slower for as long
    as the player liked, everyone told each time. A power's absences may cover at most the
    game's ABSENCE (14 days) of any window twice as long: two weeks away then back for a
    day is refused; every weekend, or a fortnight a month apart, is not."""
    g = "rv3"
    new_game(judge, g, ["REMINDER OFF"])  # 48h movement, 24h retreats; Mon 23 Nov 10:00
    me = addr(g, "FRANCE")
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-11-24 TO 2026-12-06")
    [r] = to(judge.pump(), me)
    assert "The current deadline moves to Mon 07 Dec 2026 00:00" in r.flat, r.body
    judge.advance(datetime.fromisoformat(judge.game(g)["deadline"]) + timedelta(minutes=5))
    assert judge.game(g)["phase"] != "S1901M"
    due = judge.game(g)["deadline"]
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-12-08 TO 2026-12-20")
    out = judge.pump()
    [r] = to(out, me)
    assert r.subject.startswith("[ERROR]"), r.body
    assert "with this absence France would be away 26 days of the 28 days from Tue 24 Nov " \
        "2026" in r.flat, r.body
    assert judge.game(g)["deadline"] == due
    assert not to(out, addr(g, "ENGLAND")), [m.subject for m in out]
    # a fortnight after the first ended: its own
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-12-22 TO 2027-01-03")
    [r] = to(judge.pump(), me)
    assert "Absence of France recorded: Tue 22 Dec 2026" in r.flat, r.body
