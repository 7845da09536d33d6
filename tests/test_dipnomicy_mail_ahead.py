"""Dipnomicy's orders sent ahead (PHASE blocks, moves only) and the SG's ROLLBACK <turn>, by
email with the judge's clock moved by the test: the blocks the undone turns used are pending
again, as the generic ROLLBACK makes them; the turn played again uses its own block again as
it starts, since its orders are undone; the reply and each player's notice say which."""

from __future__ import annotations

import json

from dipkit import DipGame

AHEAD = """A Par -- Pic
PHASE Fall 1901 Movement
IF A Pic
  A Pic -- Bel
ENDIF
PHASE Spring 1902 Movement
A Bel -- Hol
"""


def orders(g: DipGame, phase: str, power: str = "FRANCE") -> list[str]:
    s = g.judge.store
    row = s.one("SELECT lines FROM orders WHERE game_id = ? AND phase = ? AND power = ?",
                (g.game()["id"], phase, power))
    return [x["text"] for x in json.loads(row["lines"])] if row else []


def pending(g: DipGame) -> list[str]:
    return [r["phase"] for r in g.judge.store.pending_blocks(g.game()["id"])]


def french_units(g: DipGame, phase: str) -> list[str]:
    s = g.judge.store
    pos = json.loads(s.position(g.game()["id"], phase)["position"])
    return sorted(pos["units"]["FRANCE"])


def test_rollback_makes_the_blocks_the_undone_turns_used_pending_again(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    r = g.player("FRANCE", AHEAD, "ahead")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert pending(g) == ["F1901M", "S1902M"]

    # turn 1 runs: turn 2 starts with France's block as its orders; turn 2 runs: turn 3
    # starts with the other one
    sent = g.to_deadline()
    g.to_all(sent, "move report, turn 1")
    assert g.game()["phase"] == "F1901M"
    assert orders(g, "F1901M") == ["A Pic -- Bel"]
    # France alone is mailed which way its IF went and the orders that now stand
    [ahead] = [m for m in sent if "sent ahead" in m.subject]
    assert ahead.rcpt == g.countries["FRANCE"]
    assert "IF A Pic                      <-- true: the lines under it stand" in ahead.body
    assert "These now stand as your orders for the phase:\n  A Pic -- Bel\n" in ahead.body
    g.to_all(g.to_deadline(), "move report, turn 2")
    assert g.game()["phase"] == "S1902M"
    assert orders(g, "S1902M") == ["A Bel -- Hol"]
    assert pending(g) == []

    r = g.sg("ROLLBACK 2")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert ("Game dip is back at the start of turn 2. Moves for turn 2 are due by"
            in r.flat), r.body
    assert ("The orders sent ahead for turn 2 are its orders again (France: F1901M). The "
            "orders sent ahead that the phases after it used are pending again (France: "
            "S1902M). Every player has been told.") in r.flat, r.body
    # turn 2's orders were undone with it; its block gave them again as it started again
    assert g.game()["phase"] == "F1901M"
    assert orders(g, "F1901M") == ["A Pic -- Bel"]
    assert pending(g) == ["S1902M"]

    notices = g.published(g.mail, "rolled back to turn 2")
    assert set(notices) == {*g.countries.values(), "sg@players.test"}
    french = " ".join(notices[g.countries["FRANCE"]].body.split())
    assert ("Your orders sent ahead for F1901M are your orders for it again, as you sent "
            "them: the turn starts again.") in french
    assert ("Your orders sent ahead for S1902M are pending again, as you sent them: each is "
            "used when its phase starts, as before.") in french
    assert "The rules in force" in french and "Moves for turn 2 are due by" in french
    for address in (g.countries["ITALY"], "sg@players.test"):
        assert "sent ahead" not in notices[address].body  # one's own blocks are private

    # every reply to France lists the block pending again, as it was sent
    r = g.player("FRANCE", "", "status")
    assert "Pending orders for France in game dip" in r.body
    assert "(S1902M):\n  A Bel -- Hol\n" in r.body, r.body

    # turn 2 is played again; turn 3 starts with the block, used again
    g.to_all(g.to_deadline(), "move report, turn 2")
    assert french_units(g, "S1902M") == ["A BEL", "A MAR", "F BRE"]
    assert orders(g, "S1902M") == ["A Bel -- Hol"]
    assert pending(g) == []


def test_rollback_with_nothing_used_says_orders_ahead_stay_pending(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    g.to_all(g.to_deadline(), "move report, turn 1")
    r = g.player("FRANCE", "A Par -- Pic\nPHASE Spring 1903 Movement\nA Pic H", "ahead")
    assert not r.subject.startswith("[ERROR]"), r.body
    r = g.sg("ROLLBACK 1")
    assert "Orders sent ahead for later phases stay pending. Every player has been told." \
        in r.flat, r.body
    assert pending(g) == ["S1903M"]
    notice = g.to_all(g.mail, "rolled back to turn 1")  # the same text for everyone
    assert "sent ahead" not in notice.body
