"""A seat the master gives an address is taken only when that address confirms (issue 23 #2):
the judge mails an address that never wrote to it once, the confirmation request, however
many commands follow in the master's mail; confirmed, the address plays the power and gets
the game's mail; unconfirmed, the request expires and the power stays as it was. Through
the real mail servers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gmkit import FakeClock, LiveJudge, addr, gm, gm_addr, new_game, subj, to

STRANGER = "stranger@elsewhere.test"


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def _code(mail) -> str:
    return mail.flat.split("CONFIRM ")[1].split()[0]


def test_replace_then_process_mails_the_stranger_once(judge):
    g = "seat1"
    new_game(judge, g, ["REMINDER OFF"])
    out = gm(judge, g, f"REPLACE Italy {STRANGER} newpw1\n" + "PROCESS\n" * 50)
    [request] = to(out, STRANGER)
    assert request.subject == f"Confirm: a seat in Diplomacy game {g}"
    reply = to(out, gm_addr(g), lambda m: m.subject.startswith(("Re:", "[ERROR] Re:")))[0]
    assert (f"A confirmation request has been sent to {STRANGER}: it plays Italy in game "
            f"{g}") in reply.flat, reply.body
    assert "Italy stays with its present player" in reply.flat
    assert len(subj(out, "results")) > 8  # the phases were processed, the reports sent...
    # ... to the players, Italy's still its own
    italy = {p["power"]: p["address"] for p in judge.store.players(judge.game(g)["id"])}
    assert italy["ITALY"] == addr(g, "ITALY")
    assert to(out, addr(g, "ITALY"), lambda m: "results" in m.subject)

    # confirmed: the stranger plays Italy, everyone is told, and game mail follows
    judge.send(STRANGER, f"CONFIRM {_code(request)}")
    out = judge.pump()
    mine = to(out, STRANGER)
    assert any(f"now plays Italy in game {g}" in m.flat for m in mine), mine
    assert len(subj(out, "Italy replaced")) == 8
    players = {p["power"]: p["address"] for p in judge.store.players(judge.game(g)["id"])}
    assert players["ITALY"] == STRANGER
    judge.send(STRANGER, f"SIGNON ITALY {g} newpw1\nSTATUS")
    assert not judge.pump()[0].subject.startswith("[ERROR]")
    out = gm(judge, g, "PROCESS")
    assert to(out, STRANGER, lambda m: "results" in m.subject)
    # the old player's password no longer works
    judge.send(addr(g, "ITALY"), f"SIGNON ITALY {g} pw-italy")
    assert judge.pump()[0].subject.startswith("[ERROR]")


def test_an_unconfirmed_seat_expires(judge):
    g = "seat2"
    new_game(judge, g, ["REMINDER OFF"])
    out = gm(judge, g, "PAUSE\n" f"REPLACE Italy {STRANGER} newpw1")
    [request] = to(out, STRANGER)
    judge.clock.set(judge.clock() + timedelta(days=8))
    judge.send(STRANGER, f"CONFIRM {_code(request)}")
    [answer] = to(judge.pump(), STRANGER)  # the reply alone (the players are reminded of
    assert answer.subject.startswith("[ERROR]"), answer.body  # the pause meanwhile)
    assert "is not a confirmation code the judge sent in the last 7 days" in answer.flat
    players = {p["power"]: p["address"] for p in judge.store.players(judge.game(g)["id"])}
    assert players["ITALY"] == addr(g, "ITALY")


def test_a_second_replace_the_same_day_sends_nothing_more(judge):
    g = "seat3"
    new_game(judge, g, ["REMINDER OFF"])
    out = gm(judge, g, f"REPLACE Italy {STRANGER} newpw1")
    assert len(to(out, STRANGER)) == 1
    out = gm(judge, g, f"REPLACE Italy {STRANGER} newpw2\nREPLACE Italy {STRANGER} newpw3")
    assert not to(out, STRANGER)
    assert "was asked less than a day ago" in out[0].flat, out[0].body


def test_a_seat_in_a_game_not_started_reads_sensibly(judge):
    g = "seat4"
    judge.send(gm_addr(g), f"CREATE {g} gm-{g}\nOPEN")
    judge.pump()
    judge.send(addr(g, "ITALY"), f"SIGNON ITALY {g} pw-italy")
    judge.pump()
    out = gm(judge, g, f"REPLACE Italy {STRANGER} newpw1")
    judge.send(STRANGER, f"CONFIRM {_code(to(out, STRANGER)[0])}")
    [told] = to(judge.pump(), STRANGER, lambda m: "Italy replaced" in m.subject)
    assert "(None)" not in told.flat and "Current phase:  " not in told.flat, told.body
    assert f"You now play Italy. Game {g} has not started yet" in told.flat, told.body
