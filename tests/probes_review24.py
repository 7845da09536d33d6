"""Scratch probes of review 24 (not collected by the suite: run them with
.venv/bin/python -m pytest -n 0 -q -s tests/probes_review24.py): they print what a player
sees for the mails of the review (veteran habits, careless mail, gunboat headers, HELP)."""
from __future__ import annotations

import pytest
from mailkit import InProcessJudge, addr, new_game, only_reply

GERMANY = addr("GERMANY")
SIGNON = "SIGNON GERMANY g1 pw-germany\n"
ORDERS = "A BER - KIE\nA MUN - RUH\nF KIE - DEN\n"


@pytest.fixture
def judge(tmp_path):
    j = InProcessJudge(tmp_path)
    new_game(j)
    return j


def stored(judge, power="GERMANY"):
    game = judge.store.game("g1")
    rows = judge.store.order_sets(game["id"], game["phase"]).get(power) or []
    return [x.get("order") for x in rows], [x["text"] for x in rows]


def show(judge, body, to=GERMANY, power="GERMANY", **kw):
    r = only_reply(judge.send(to, body, **kw), to)
    print("=" * 70)
    print(">>> SENT:\n" + body)
    print("<<< SUBJECT:", r.subject)
    print(r.body)
    print("STORED:", stored(judge, power))
    return r


BODIES = [
    SIGNON + "A MUN - Tryol",
    SIGNON + "A PAR - BUR",
    SIGNON + "A Ber-Kie, A Mun-Ruh; F Kie-Den",
    SIGNON + "Ber-Kie\nA Mun m Ruh\nF Kie move to Den",
    SIGNON + "A Ber moves to Kie\nA Mun stands\nF Kie holds",
    SIGNON + ORDERS + "SIGNOFF\n-- \nAnna\nA small sig line that could look like Berlin",
    "A BER - SIL\n\nOn Fri, Nov 27, 2026 judge wrote:\n> " + SIGNON.strip() + "\n> A BER - KIE\n> A MUN - RUH <-- ERROR\n",
    SIGNON + "A BER - SIL\n\nOn Fri, Nov 27, 2026 judge@localhost wrote:\n> Orders for Germany:\n> A BER - KIE\n> A MUN - RUH\n> F KIE - DEN\n",
    SIGNON + ORDERS + "-- \nAnna Schmidt\n+49 30 1234567\nhttp://example.com/anna\n",
    SIGNON + "A BER \u2013 KIE\nA MUN \u2014 RUH\nF KIE \u2192 DEN",
    SIGNON + "A BER -> KIE\nA MUN - RUH.\nF KIE - DEN.",
    SIGNON + "Army Berlin - Kiel\nArmy Munich -> Ruhr\nFleet Kiel - Denmark",
    SIGNON + "\tA BER - KIE  \n\u00a0A MUN\u00a0-\u00a0RUH\n   F KIE - DEN\n\n\n",
    "signon germany g1 pw-germany\na ber - kie\na mun - ruh\nf kie - den",
    "SIGNON Gg1 pw-germany\nA BER - KIE",
    SIGNON + "A BER - KIE\nA BER - MUN\na ber - sil\nA MUN - RUH\nF KIE - DEN",
    SIGNON + "STATSU",
    SIGNON + "HISTROY g1",
    SIGNON + "SIGNOF",
    SIGNON + "CLEAR",
    SIGNON + "A BER - KIE\nPRESS TO ALL\nHello all\nENDPRESS\nA MUN - RUH",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nThanks!",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nBest\nA.",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nRegards, Anna Schmidt-Berlin",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nGood luck all!",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nSee you in Munich!",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nLove,\nKiel",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nHOLD",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nthx",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nok",
    SIGNON + "A BER H\nA MUN H\nF KIE H\nBerlin",
]


@pytest.mark.parametrize("body", BODIES)
def test_probe(judge, body):
    show(judge, SIGNON + ORDERS)
    show(judge, body)


def test_html_only(judge):
    from email.message import EmailMessage
    show(judge, SIGNON + ORDERS)
    msg = EmailMessage()
    msg["From"] = GERMANY
    msg["To"] = judge.cfg.address
    msg["Subject"] = "orders"
    msg.set_content("<html><body><div>SIGNON GERMANY g1 pw-germany</div><div>A BER - SIL</div>"
                    "<div>A MUN&nbsp;-&nbsp;RUH</div><p>F KIE - DEN</p><br><div>--&nbsp;</div>"
                    "<div>Anna</div></body></html>", subtype="html")
    sent = judge.deliver(msg.as_bytes())
    r = only_reply(sent, GERMANY)
    print(r.subject, r.body)
    print(stored(judge))


def test_help(judge):
    r = only_reply(judge.send("new@players.test", "HELP"), "new@players.test")
    print(r.body)


def test_gunboat_headers(tmp_path):
    import re

    from mailkit import POWERS, Got, InProcessBackend
    from stabkit import play_stab_game

    from judge.mail.sender import read_maildir
    gm = "gm@p.test"
    a = lambda p: f"{p.lower()}@p.test"  # noqa: E731
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    play_stab_game(b, "gb", a, gm, tmp_path / "judge.db", gunboat=True)
    labels = {}
    for p in POWERS:
        started = next(m for m in b.got if m.rcpt == a(p) and "has started" in m.subject)
        labels[p] = re.search(rf"You play {p.title()} \((\w+)\)", started.body).group(1)
    print(labels)
    judge.send(a("RUSSIA"), "SIGNON RUSSIA gb pw-russia\nBROADCAST\nRussia is peaceful.\n"
               f"ENDPRESS\nPRESS TO {labels['FRANCE']}\nHello France.\nENDPRESS\n"
               f"PRESS TO {labels['FRANCE']} GREY\nGrey hello.\nENDPRESS")
    judge.send(a("ITALY"), "SIGNON ITALY gb pw-italy\nDRAW")
    judge.send(a("FRANCE"), "SIGNON FRANCE gb pw-france\nSTATUS\nLIST gb\nWHOIS gb\nSUMMARY gb\nHISTORY gb CLASSIC\nSET LAYOUT CLASSIC")
    seen = set()
    for raw in read_maildir(judge.cfg.maildir_path):
        m = Got(raw)
        key = (m.rcpt, m.subject, m["From"], m["Reply-To"], m["To"], m["Cc"])
        if key in seen:
            continue
        seen.add(key)
        print("HDR", key)
    for raw in read_maildir(judge.cfg.maildir_path)[-12:]:
        m = Got(raw)
        if m.rcpt == a("FRANCE"):
            print("=====", m.subject)
            print(m.body)
