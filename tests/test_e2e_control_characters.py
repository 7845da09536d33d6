"""A player's control characters never reach another player's mail: a terminal that shows
mail runs ESC sequences (clear the screen, retitle the window, rewrite a line that seems to
come from the judge), rings the bell, and a form feed or a C1 CSI does the same. Through the
real mail servers (gmkit.LiveJudge)."""

from __future__ import annotations

import re

import pytest
from gmkit import FakeClock, LiveJudge, addr, hold_all, new_game, orders, to
from mailkit import POWERS, confirmed, send_smtp, unique

# C0 but tab and newline, DEL, C1: what a terminal acts on
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
NASTY = "\x1b[2J\x1b]0;pwned\x07\x1b[1A\x0c\x0b\x9b31m\x00\x7f\x85\x08"


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def test_press_and_orders_lose_control_characters(judge):
    g = "ctl1"
    new_game(judge, g, ["REMINDER OFF"])
    france = addr(g, "FRANCE")
    judge.send(france, f"SIGNON FRANCE {g} pw-france\n"
                       f"PRESS TO England\nShall we{NASTY} split Belgium?\nENDPRESS\n"
                       f"BROADCAST\nPeace{NASTY} in our time.\nENDPRESS\n"
                       "A PAR\x07 H\x1b\nA MAR H\x00\x7f\nF BRE\x08 - MAO\x0c")
    out = judge.pump()
    press = [m for m in out if "press from France" in m.subject]
    assert sorted(m.rcpt for m in press if "Belgium" in m.body) == [addr(g, "ENGLAND")]
    assert len([m for m in press if "Peace" in m.body]) == len(POWERS)  # and the master
    for m in press:
        assert not CONTROL.search(m.body), (m.rcpt, m.body)
        assert "Shall we[2J" in m.body or "Peace[2J" in m.body  # the text is kept, harmless
    reply = to(out, france)[0]
    assert not CONTROL.search(reply.body), reply.body
    spring = hold_all(g)
    for p in POWERS:
        if p != "FRANCE":
            orders(judge, g, p, spring[p])
    report = [m for m in judge.pump() if m.subject == f"{g} - S1901M results"]
    assert len(report) == len(POWERS) + 1 and "F BRE - MAO" in report[0].body
    for m in report:
        assert not CONTROL.search(m.body), (m.rcpt, m.body)


def test_an_html_mail_with_control_character_entities(judge):
    """An HTML-only mail: ESC as itself or as ``&#27;`` is cleaned the same."""
    g = "ctl2"
    new_game(judge, g, ["REMINDER OFF"])
    body = (f"<html><body><p>SIGNON FRANCE {g} pw-france</p><p>BROADCAST</p>"
            "<p>Hello&#27;[2J&#7; world&#12;&#x1b;]0;x&#7;\x1b[2J\x07\x9b1m</p><p>ENDPRESS</p></body></html>")
    frm = addr(g, "FRANCE")
    confirmed(judge.store, frm)
    raw = (f"From: {frm}\r\nTo: {judge.address}\r\nSubject: html\r\nMessage-ID: "
           f"<{unique('h')}@players.test>\r\nMIME-Version: 1.0\r\n"
           f"Content-Type: text/html; charset=utf-8\r\n\r\n{body}\r\n").encode()
    send_smtp(judge.env["MAILTEST_HOST"], int(judge.env["MAILTEST_SMTP_PORT"]), frm,
              judge.address, raw)
    judge.expected += 1
    press = [m for m in judge.pump() if "press from France" in m.subject]
    assert len(press) == len(POWERS)  # the other six and the master
    for m in press:
        assert "Hello" in m.body and not CONTROL.search(m.body), m.body
