"""Gunboat (issue 24 item 10): while the game runs, no text the judge mails ties a pseudonym
to a power, or a power (or pseudonym) to a player's address, for anyone but the master.

A Gunboat Stab! game is played by mail (``CREATE g pw VARIANT stab GUNBOAT``); then every
query anyone may send (LIST, STATUS, WHOIS, HISTORY, SUMMARY, from a stranger and from a
player) and a draw proposal; every mail the judge sent to anyone but the master is searched
for a line naming another power's pseudonym together with that power's name, its centre or
unit count, or an address, and for another power's player's address at all.
"""

from __future__ import annotations

import re

from mailkit import POWERS, Got, InProcessBackend, InProcessJudge
from stabkit import play_stab_game

from judge.mail.sender import read_maildir

GM = "gm@p.test"


def addr(p: str) -> str:
    return f"{p.lower()}@p.test"


COUNT = re.compile(r"\b\d+\s+(?:centres?|centers?|units?|supply)", re.IGNORECASE)


def _links(mail: Got, labels: dict[str, str], reader: str | None) -> list[str]:
    """The lines of ``mail`` that tie another power's pseudonym to something that names it."""
    found = []
    for q in POWERS:
        if q == reader:
            continue
        name, alias, address = q.title(), labels[q], addr(q)
        if address in mail.body.lower():
            found.append(f"{address} appears")
        for line in mail.body.splitlines():
            if not re.search(rf"\b{alias}\b", line):
                continue
            if re.search(rf"\b{name}\b", line, re.IGNORECASE) or COUNT.search(line) or "@" in line:
                found.append(f"{alias} ({name}): {line.strip()}")
    return found


def test_no_public_text_ties_a_pseudonym_to_a_power_or_an_address(tmp_path):
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    play_stab_game(b, "gb", addr, GM, tmp_path / "judge.db", gunboat=True)
    labels = {}
    for p in POWERS:
        started = next(m for m in b.got if m.rcpt == addr(p) and "has started" in m.subject)
        labels[p] = re.search(rf"You play {p.title()} \((\w+)\)", started.body).group(1)
    queries = "LIST\nLIST gb\nSTATUS gb\nWHOIS gb\nHISTORY gb\nSUMMARY gb"
    judge.send("stranger@x.test", queries)
    judge.send(addr("FRANCE"), f"SIGNON FRANCE gb pw-france\n{queries}\nWHOIS gb Russia")
    judge.send(addr("ITALY"), "SIGNON ITALY gb pw-italy\nDRAW")
    judge.send(addr("RUSSIA"), "SIGNON RUSSIA gb pw-russia\nBROADCAST\nRussia is peaceful.\n"
               f"ENDPRESS\nPRESS TO {labels['FRANCE']}\nHello France.\nENDPRESS")
    sent = read_maildir(judge.cfg.maildir_path)
    assert any(b"Russia is peaceful" in raw for raw in sent)
    owner = {addr(p): p for p in POWERS}
    leaks = []
    for raw in read_maildir(judge.cfg.maildir_path):
        mail = Got(raw)
        if mail.rcpt.lower() == GM:
            continue  # the master knows who plays what
        for link in _links(mail, labels, owner.get(mail.rcpt.lower())):
            leaks.append(f"to {mail.rcpt}, {mail.subject!r}: {link}")
    assert not leaks, "\n".join(sorted(set(leaks)))
