"""Telling the people affected (issue 24, item 9), end to end over the real mail servers: the
players (and the game's observers) when the master moves the deadline, a power's player when
the master changed its orders with ACT, the master when the last power has a player; the
sign-on reply and the start notice say that replying to the judge's mail works."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from gmkit import START, FakeClock, LiveJudge, addr, gm, gm_addr, new_game, subj, to
from mailkit import POWERS


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def observe(j: LiveJudge, g: str, who: str) -> None:
    j.send(who, f"OBSERVE {g}")
    out = j.pump()
    code = re.search(r"CONFIRM ([0-9a-f]{16})", out[0].flat).group(1)  # double opt-in
    j.send(who, f"CONFIRM {code}")
    j.pump()


def test_deadline_moved_by_the_master_tells_every_reader_once(judge):
    g = "dl1"
    new_game(judge, g, ["REMINDER OFF"])
    observe(judge, g, "watcher@players.test")
    # several changes in one mail: one notice each, with what stands at the end
    out = gm(judge, g, "DEADLINE 72h\nSET DEADLINE 96h\nSET GRACE 12h")
    reply = to(out, gm_addr(g))
    assert len(reply) == 1 and "Everyone has been told" in reply[0].flat
    notices = subj(out, f"{g} - S1901M deadline moved")
    readers = sorted(m.rcpt for m in notices)
    assert readers == sorted([addr(g, p) for p in POWERS] + ["watcher@players.test"])
    assert len(out) == 1 + 8  # the master reads his own reply, nothing more
    body = notices[0].flat
    assert "The master of game dl1 has moved the deadline of Spring 1901 Movement (S1901M)" in body
    assert "Fri 27 Nov 2026 10:00 UTC" in body  # 96 hours from Monday 10:00
    assert "72" not in body  # only what stands
    assert "Orders that arrive after it are still taken for 12 hours" in body
    # a setting that moves no deadline tells nobody
    out = gm(judge, g, "SET PRESS WHITE")
    assert [m.rcpt for m in out] == [gm_addr(g)]
    # the phase processed in the same mail: its report says the next deadline, no notice
    out = gm(judge, g, "DEADLINE 12h\nPROCESS")
    assert not subj(out, "deadline moved")
    assert len(subj(out, f"{g} - S1901M results")) == 9


def test_deadline_moved_in_a_paused_game_says_so(judge):
    g = "dl2"
    new_game(judge, g, ["REMINDER OFF"])
    gm(judge, g, "PAUSE")
    out = gm(judge, g, "DEADLINE 2026-12-01 18:00")
    notices = subj(out, "deadline moved")
    assert len(notices) == 7
    assert "paused" in notices[0].flat and "Tue 01 Dec 2026 18:00 UTC" in notices[0].flat


def test_orders_changed_by_the_master_tell_that_power_alone(judge):
    g = "ac1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\nA PAR H\nA MAR H\nF BRE H")
    judge.pump()
    out = gm(judge, g, "ACT France\nA PAR - BUR\nA MAR - SPA\nACT Germany\nSET WAIT")
    told = subj(out, "orders changed by the master")
    assert [m.rcpt for m in told] == [addr(g, "FRANCE")]  # Germany's orders did not change
    body = told[0].flat
    assert ("The master of game ac1 has changed the orders of France for Spring 1901 "
            "Movement (S1901M)") in body
    assert "A PAR - BUR" in body and "A MAR - SPA" in body and "A PAR H" not in body
    assert "Units without orders: F BRE (they hold)" in body
    assert told[0]["Reply-To"].startswith(f"judge+{g}.france.")  # France's own, replyable
    assert sorted(m.rcpt for m in out) == sorted([gm_addr(g), addr(g, "FRANCE")])
    # CLEAR for the power is a change too: the notice says nothing stands
    out = gm(judge, g, "ACT France\nCLEAR")
    told = subj(out, "orders changed by the master")
    assert len(told) == 1 and "(none)" in told[0].flat


def test_master_told_when_the_last_power_has_a_player(judge):
    g = "fl1"
    judge.send(gm_addr(g), f"CREATE {g} gm-{g}\nOPEN")
    judge.pump()
    for p in POWERS[:-1]:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
    out = judge.pump()
    assert not to(out, gm_addr(g))
    last = POWERS[-1]
    judge.send(addr(g, last), f"JOIN {g} {last} pw-{last.lower()}")
    out = judge.pump()
    [told] = to(out, gm_addr(g))
    assert told.subject == f"{g} - every power has a player"
    assert "send START" in told.flat and f"MASTER {g} <password>" in told.flat


def test_join_reply_and_start_notice_say_replying_works(judge):
    g = "rp1"
    out = new_game(judge, g)
    start = to(out, addr(g, "FRANCE"), lambda m: "has started" in m.subject)[0]
    assert start["Reply-To"].startswith(f"judge+{g}.france.")
    assert "or simply reply to this mail from this address" in start.flat
    master = to(out, gm_addr(g), lambda m: "has started" in m.subject)[0]
    assert "simply reply" not in master.flat  # no seat, no reply address
    g = "rp2"
    judge.send(gm_addr(g), f"CREATE {g} gm-{g}\nOPEN")
    judge.pump()
    judge.send(addr(g, "ITALY"), f"JOIN {g} Italy pw-italy")
    [reply] = judge.pump()
    assert reply["Reply-To"].startswith(f"judge+{g}.italy.")
    assert ("replying to the judge's mail about this game from this address signs you on as "
            "Italy, without the password") in reply.flat


def test_no_reply_hint_without_reply_addresses(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(START + timedelta(days=1)),
                  reply_tokens="off")
    try:
        g = "rp3"
        out = new_game(j, g)
        start = to(out, addr(g, "FRANCE"), lambda m: "has started" in m.subject)[0]
        assert start["Reply-To"] == "" and "simply reply" not in start.flat
        j.send(gm_addr("rp4"), "CREATE rp4 gm-rp4\nOPEN")
        j.pump()
        j.send(addr("rp4", "ITALY"), "SIGNON Italy rp4 pw-italy")
        [reply] = j.pump()
        assert "replying" not in reply.flat
    finally:
        j.close()


def test_orders_changed_in_gunboat_stab_tell_only_that_power_its_own(judge):
    """Stab! hides the board and Gunboat the powers: the notice goes to the power's player
    alone and names no other power, pseudonym or unit."""
    g = "sb1"
    judge.send(gm_addr(g), f"CREATE {g} gm-{g} VARIANT stab GUNBOAT\nOPEN")
    judge.pump()
    for p in POWERS:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
    judge.pump()
    out = gm(judge, g, "START")
    start = to(out, addr(g, "FRANCE"), lambda m: "has started" in m.subject)[0]
    assert "or simply reply to this mail from this address" in start.flat
    others = [m for m in out if "has started" in m.subject and m.rcpt != gm_addr(g)]
    names = {re.search(r"You play \w+ \((\w+)\)", m.body).group(1) for m in others}
    assert len(names) == 7
    out = gm(judge, g, "ACT France\nPLACE A PAR\nPLACE A MAR\nPLACE F BRE")
    [told] = subj(out, "orders changed by the master")
    assert told.rcpt == addr(g, "FRANCE")
    assert sorted(m.rcpt for m in out) == sorted([gm_addr(g), addr(g, "FRANCE")])
    assert "PLACE F BRE" in told.flat
    mine = re.search(r"You play France \((\w+)\)", start.body).group(1)
    for p in POWERS:
        if p != "FRANCE":
            assert p.title() not in told.body
    assert not [n for n in names - {mine} if n in told.body]


def test_deadline_moved_by_an_absence_tells_every_other_reader_once(judge):
    """attack30: SET ABSENCE from a player moved the phase's deadline and told nobody but
    that player: the others (and the master) found out at the old deadline, when nothing
    was processed. Now every other reader is told once per mail, as for the master's
    DEADLINE; the player who sent it reads it in the reply alone."""
    g = "ab2"
    new_game(judge, g, ["REMINDER OFF"])
    observe(judge, g, "watcher@players.test")
    # two lines over the deadline (Wed 25 Nov 10:00): one notice, with what stands at the end
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               "SET ABSENCE 2026-11-25 TO 2026-11-26\nSET ABSENCE 2026-11-27 TO 2026-11-29")
    out = judge.pump()
    [reply] = to(out, addr(g, "FRANCE"))  # the reply, no notice besides it
    assert "The current deadline moves to Mon 30 Nov 2026" in reply.flat, reply.body
    assert "Everyone has been told" in reply.flat, reply.body
    notices = subj(out, f"{g} - S1901M deadline moved by a player's absence")
    assert sorted(m.rcpt for m in notices) == sorted(
        [addr(g, p) for p in POWERS if p != "FRANCE"] + [gm_addr(g), "watcher@players.test"])
    assert len(out) == 1 + 8
    body = notices[0].flat
    assert "because of the absence of France" in body, body
    assert "New deadline: Mon 30 Nov 2026 00:00 UTC" in body, body
    assert "Orders already sent stand" in body
    # an absence that moves no deadline tells nobody
    judge.send(addr(g, "ITALY"), f"SIGNON ITALY {g} pw-italy\n"
               "SET ABSENCE 2026-12-10 TO 2026-12-12")
    out = judge.pump()
    assert [m.rcpt for m in out] == [addr(g, "ITALY")], [m.subject for m in out]


def test_deadline_moved_by_an_absence_in_gunboat_names_no_power(judge):
    """In a Gunboat game the notice names neither the absent power nor its pseudonym (but
    to the master, who knows who is who)."""
    g = "ab3"
    judge.send(gm_addr(g), f"CREATE {g} gm-{g} VARIANT stab GUNBOAT\nSET REMINDER OFF\nOPEN")
    judge.pump()
    for p in POWERS:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
    judge.pump()
    out = gm(judge, g, "START")
    start = to(out, addr(g, "FRANCE"), lambda m: "has started" in m.subject)[0]
    mine = re.search(r"You play France \((\w+)\)", start.body).group(1)
    deadline = judge.game(g)["deadline"][:10]
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               f"SET ABSENCE {deadline} TO {deadline}")
    out = judge.pump()
    [reply] = to(out, addr(g, "FRANCE"))
    assert "The current deadline moves to" in reply.flat, reply.body
    notices = subj(out, "deadline moved by a player's absence")
    assert len(notices) == 7  # six players and the master
    for m in notices:
        assert "because of a player's absence" in m.flat or m.rcpt == gm_addr(g), m.body
        if m.rcpt != gm_addr(g):
            assert "France" not in m.body and mine not in m.body, m.body
    [master] = to(notices, gm_addr(g))
    assert "because of the absence of France" in master.flat, master.body


@pytest.mark.parametrize("absence_first", [True, False])
def test_deadline_moved_by_the_master_and_an_absence_in_one_mail_says_both(judge,
                                                                             absence_first):
    """A master who plays France sent SET ABSENCE and DEADLINE in one mail: the others
    were told only of whichever line came first (the absence, when the deadline that stood
    was the master's, put inside it; or the master, the absence unsaid), and the master's
    own address read a notice of its own DEADLINE. Now every other reader reads one notice
    that states both, with the deadline that stands after them; the sender reads the reply."""
    g = "ab4" if absence_first else "ab5"
    new_game(judge, g, ["REMINDER OFF"])
    observe(judge, g, "watcher@players.test")
    judge.send(gm_addr(g), f"SIGNON FRANCE {g} pw-france")  # the master plays France
    judge.pump()
    absence = f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-11-25 TO 2026-11-26"
    master = "DEADLINE 2026-11-25 12:00"  # inside the absence: where the master puts it
    out = gm(judge, g, f"{absence}\n{master}" if absence_first else f"{master}\n{absence}")
    [reply] = to(out, gm_addr(g))
    assert "[ERROR]" not in reply.subject, reply.body
    notices = subj(out, f"{g} - S1901M deadline moved by the master and a player's absence")
    assert sorted(m.rcpt for m in notices) == sorted(
        [addr(g, p) for p in POWERS if p != "FRANCE"] + ["watcher@players.test"])
    assert len(out) == 1 + 7, [(m.rcpt, m.subject) for m in out]
    body = notices[0].flat
    assert "The master of game" in body and "has moved the deadline of" in body, body
    assert "the absence of France" in body, body
    # the later line stands: the master's deadline inside the absence, or the absence's end
    stands = "Wed 25 Nov 2026 12:00 UTC" if absence_first else "Fri 27 Nov 2026 00:00 UTC"
    assert f"New deadline: {stands}" in body, body
