"""Press (white, grey, no-press, the master reading it), observers and the game's mailing list
(List-Id, List-Unsubscribe, one-click List-Unsubscribe-Post), and the queries: LIST <game>,
HISTORY with press only for those who could see it, SUMMARY, WHOIS."""

from __future__ import annotations

import re

import pytest
from gmkit import FakeClock, LiveJudge, addr, gm_addr, hold_all, new_game, orders, subj, to
from mailkit import POWERS


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(),
                  unsubscribe_url="https://judge.example.test/unsubscribe")
    yield j
    j.close()


def say(j: LiveJudge, g: str, power: str, body: str) -> list:
    j.send(addr(g, power), f"SIGNON {power} {g} pw-{power.lower()}\n{body}")
    return j.pump()


def test_white_press_to_one_and_broadcast_and_history(judge):
    g = "pr1"
    new_game(judge, g, ["REMINDER OFF"])
    out = say(judge, g, "FRANCE", "PRESS TO England\nShall we split Belgium?\n\n"
                                  "-- Paris\nENDPRESS\nA PAR H")
    reply = to(out, addr(g, "FRANCE"))[0]
    assert "White (signed) press sent to England in game pr1" in reply.flat
    assert "A PAR H" in reply.body  # the orders after ENDPRESS are read as orders
    press = [m for m in out if m.rcpt != addr(g, "FRANCE")]
    assert [m.rcpt for m in press] == [addr(g, "ENGLAND")]  # not the master: gmpress is off
    assert press[0].subject == f"{g} - press from France"
    assert "from France:" in press[0].body and "Shall we split Belgium?" in press[0].body

    out = say(judge, g, "GERMANY", "BROADCAST\nPeace in our time.\nENDPRESS")
    got = sorted(m.rcpt for m in out if "press from" in m.subject)
    assert got == sorted([addr(g, p) for p in POWERS if p != "GERMANY"] + [gm_addr(g)])

    # grey press is refused in a white game and changes nothing
    out = say(judge, g, "ITALY", "PRESS TO France GREY\nboo\nENDPRESS")
    assert "allows only white (signed) press" in out[0].flat and len(out) == 1
    out = say(judge, g, "ITALY", "PRESS TO Narnia\nhello\nENDPRESS")
    assert "'Narnia' is not a power" in out[0].flat and len(out) == 1

    spring = hold_all(g)
    for p in POWERS:
        orders(judge, g, p, spring[p])
    judge.pump()
    # HISTORY: the broadcast for all; France's note only for France and England
    out = say(judge, g, "ENGLAND", f"HISTORY {g} S1901M")
    assert "Shall we split Belgium?" in out[0].body and "Peace in our time." in out[0].body
    assert "A PAR H: succeeds" in out[0].body
    out = say(judge, g, "RUSSIA", f"HISTORY {g}")
    assert "Peace in our time." in out[0].body and "Belgium" not in out[0].body
    judge.send("stranger@players.test", f"HISTORY {g}")
    out = judge.pump()
    assert "F LON H" in out[0].body and "Peace" not in out[0].body  # no observer press
    judge.send("stranger@players.test", f"HISTORY {g} S1999M")
    assert "has no processed phase S1999M" in judge.pump()[0].flat


def test_grey_press_gm_reads_all_and_no_press(judge):
    g = "pr2"
    new_game(judge, g, ["PRESS GREY", "GMPRESS ON", "REMINDER OFF"])
    out = say(judge, g, "TURKEY", "PRESS TO Russia, Austria\nI will attack Italy.\nENDPRESS")
    got = {m.rcpt: m for m in out if "press from" in m.subject}
    assert sorted(got) == sorted([addr(g, "RUSSIA"), addr(g, "AUSTRIA"), gm_addr(g)])
    for m in got.values():
        assert m.subject == f"{g} - press from an anonymous power"
        assert "Turkey" not in m.body and "I will attack Italy." in m.body
        assert "The master of this game reads all press." in m.body
    # the sender is told too, and the players learnt it at the start of the game
    assert "The master of this game reads all press." in to(out, addr(g, "TURKEY"))[0].flat
    out = say(judge, g, "AUSTRIA", f"HISTORY {g}")
    assert "an anonymous power to Austria, Russia" in out[0].body

    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nSET PRESS NONE")
    judge.pump()
    out = say(judge, g, "TURKEY", "BROADCAST\nhello\nENDPRESS")
    assert "is a no-press game" in out[0].flat and len(out) == 1
    assert judge.store.one("SELECT count(*) AS n FROM press")["n"] == 1


def test_observers_list_headers_and_queries(judge):
    g = "ob1"
    new_game(judge, g, ["REMINDER OFF", "LIST dip-ob1@players.test"])
    # the list address confirms before it receives anything (double opt-in)
    [ask] = judge.sink.for_rcpt("dip-ob1@players.test")
    code = re.search(r"CONFIRM ([0-9a-f]{16})", ask.flat).group(1)
    judge.send("owner@players.test", f"CONFIRM {code}")
    assert "is now the mailing list of game ob1" in judge.pump()[0].flat
    judge.send("watcher@players.test", f"OBSERVE {g}")
    out = judge.pump()
    code = re.search(r"CONFIRM ([0-9a-f]{16})", out[0].flat).group(1)  # double opt-in
    judge.send("watcher@players.test", f"CONFIRM {code}")
    assert "watcher@players.test now observes game ob1" in judge.pump()[0].flat
    judge.send(addr(g, "FRANCE"), f"OBSERVE {g}")
    assert "you already receive its reports" in judge.pump()[0].flat

    spring = hold_all(g)
    for p in POWERS:
        orders(judge, g, p, spring[p])
    out = judge.pump()
    reports = subj(out, f"{g} - S1901M results")
    assert sorted(m.rcpt for m in reports) == sorted(
        [addr(g, p) for p in POWERS] + [gm_addr(g), "watcher@players.test",
                                         "dip-ob1@players.test"])
    for m in reports:
        assert m.subject == "ob1 - S1901M results"
        assert m["List-Id"] == "Diplomacy game ob1 <ob1.games.example.test>"
        assert "<mailto:judge@example.test?subject=UNOBSERVE%20ob1>" in m["List-Unsubscribe"]
        assert "<https://judge.example.test/unsubscribe?game=ob1&address=" in \
            m["List-Unsubscribe"]
        assert m["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    watcher = to(reports, "watcher@players.test")[0]
    assert "F LON H" in watcher.body and "You play" not in watcher.body

    # observers get broadcast press only when the game says so, never private press
    out = say(judge, g, "ITALY", "BROADCAST\nfirst\nENDPRESS")
    assert not to(out, "watcher@players.test") and not to(out, "dip-ob1@players.test")
    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nSET OBSERVERPRESS ON")
    judge.pump()
    out = say(judge, g, "ITALY", "BROADCAST\nsecond\nENDPRESS\nPRESS TO Austria\nthird\n"
                                "ENDPRESS")
    seen = to(out, "watcher@players.test")
    assert len(seen) == 1 and "second" in seen[0].body
    assert "UNOBSERVE ob1 stops these mails" in seen[0].flat
    assert not to(out, "dip-ob1@players.test")  # the list gets reports, not press

    # what the unsubscribe header sends
    judge.send("watcher@players.test", "", subject=f"UNOBSERVE {g}")
    assert "You no longer observe game ob1" in judge.pump()[0].flat
    judge.send("watcher@players.test", f"UNOBSERVE {g}")
    assert "does not observe game ob1" in judge.pump()[0].flat
    for p in POWERS:  # Fall 1901: the same units hold again
        orders(judge, g, p, spring[p])
    out = judge.pump()
    assert not to(out, "watcher@players.test")
    assert to(out, "dip-ob1@players.test")

    # queries
    judge.send("someone@players.test", f"LIST {g}\nSUMMARY {g}\nWHOIS {g} France")
    body = judge.pump()[0].body
    assert "mailing list                       dip-ob1@players.test" in body
    assert f"France   {addr(g, 'FRANCE')}" in body
    assert "S1902M" in body and "Player changes:" in body
    assert f"France: {addr(g, 'FRANCE')}" in body
    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nSET ANONYMOUS ON")
    judge.pump()
    judge.send("someone@players.test", f"WHOIS {g}\nLIST {g}")
    out = judge.pump()[0]
    assert "keeps its players anonymous" in out.flat
    assert addr(g, "FRANCE") not in out.body and "(anonymous)" in out.body
