"""Gunboat: the master's EDIT notice names the powers as each reader knows them. It named them
by their real names ("LON now belongs to Turkey" to England's player, "removed Russia F SEV"),
which told every player whose pseudonym owns what (found by the season simulator's review:
its master EDITs in Gunboat again, tests/seasonkit.py EDIT_KINDS)."""

from __future__ import annotations

import re

from mailkit import POWERS
from test_gunboat_names import GM, addr, gunboat  # noqa: F401 (the fixture)


def test_the_edit_notice_names_each_power_by_its_pseudonym(gunboat):  # noqa: F811
    j, names = gunboat
    sent = j.send(GM, "MASTER gb gm-pass\nEDIT OWNER LON TURKEY\nEDIT ADD RUSSIA F SEV\n"
                      "EDIT REMOVE F SEV\nEDIT ADD AUSTRIA A BOH")
    reply = next(m for m in sent if m.rcpt == GM and "Re: " in m.subject)
    assert "ERROR" not in reply.body, reply.body
    notices: dict[str, str] = {}  # each reader's notices (one an EDIT line), as one text
    for m in sent:
        if "position edited" in m.subject:
            notices[m.rcpt] = notices.get(m.rcpt, "") + " " + " ".join(m.body.split())
    assert set(notices) >= {addr(p) for p in POWERS}, sorted(notices)
    # the board is hidden: each player reads the changes to its own units and centres
    assert f"LON now belongs to {names['TURKEY']}" in notices[addr("ENGLAND")]
    for reader in POWERS:
        text = notices[addr(reader)]
        named = [p for p in POWERS if p != reader and re.search(rf"\b{p}\b", text, re.I)]
        assert not named, (reader, named, text)
    assert "LON now belongs to Turkey" in " ".join(reply.body.split()), reply.body
