"""Dipnomicy's ROLLBACK undoes the moves and proposals sent for the turn played again, where
the judge's own ROLLBACK restores a phase's orders: the SG who sends ROLLBACK (or ROLLBACK
<phase>, which is this one in a Dipnomicy game) and every player are told so, and the
command docs say so where ROLLBACK is described."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dipkit import SUPPORT, DipGame

DOCS = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


@pytest.mark.parametrize("command", ["ROLLBACK 2", "ROLLBACK F1901M"])
def test_the_sg_and_the_players_are_told_that_the_turns_orders_are_undone(tmp_path, command):
    g = DipGame(tmp_path)
    g.start()
    g.to_all(g.to_deadline(), "move report, turn 1")
    r = g.player("FRANCE", f"A Par -- Pic\n{SUPPORT}", "turn 2")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.to_all(g.to_deadline(), "move report, turn 2")
    assert g.game()["phase"] == "S1902M"

    r = g.sg(command)
    assert not r.subject.startswith("[ERROR]"), r.body
    assert ("The moves and proposals sent for turn 2 are undone, not restored as the "
            "judge's ROLLBACK restores a phase's orders in other variants: the players send "
            "them again.") in r.flat, r.body
    notice = g.to_all(g.mail, "rolled back to turn 2")
    assert ("Everything after it is undone, and the moves and proposals sent for turn 2 "
            "too: send them again.") in notice.flat, notice.body
    # as said: France has no orders for turn 2 (the judge's ROLLBACK would have kept them)
    status = g.player("FRANCE", "", "status")
    assert "Orders for France in game dip, Fall 1901 Movement (F1901M):\n  (none)" \
        in status.body, status.body


def test_the_commands_doc_says_so_where_rollback_is_described():
    text = DOCS.read_text()
    section = text.split("\n## ROLLBACK\n")[1].split("\n## ")[0]
    assert re.search(r"in Dipnomicy .*its orders undone, not restored",
                     " ".join(section.split())), section[:1500]
    row = next(x for x in text.splitlines() if x.startswith("| `ROLLBACK <phase>`"))
    assert "Dipnomicy" in row, row
