"""Orders sent ahead and ROLLBACK, CLEAR PENDING: a block used when its phase began is kept,
marked with that phase, and is pending again after a rollback to an earlier phase; CLEAR
PENDING withdraws a player's blocks. Store-level tests, then the whole mail path."""

from __future__ import annotations

import json
import sqlite3
import time

from dipkit import FakeClock
from mailkit import GM, SPRING, InProcessJudge, addr, new_game, only_reply
from test_ahead_mail import send_others, units

from judge.games import ahead as AH
from judge.games import game as G
from judge.storage import MIGRATIONS, Store
from judge.variants import get_variant

STD = get_variant("standard")
SIGNON = "SIGNON GERMANY g1 pw-germany\n"


# ----------------------------------------------------------------- the store
def game_with_germany(tmp_path, joined: str = "2000-01-01T00:00:00+00:00"):
    s = Store(tmp_path / "judge.db")
    game = G.create_game(s, "v1", "masterpw", "standard", (3600, 3600, 3600), "gm@x.test")
    s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) "
              "VALUES (?, 'GERMANY', 'de@x.test', 'x', ?)", (game["id"], joined))
    return s, game, STD.initial_position()


def at(pos, phase: str):
    """``pos`` as if the game were in ``phase`` (the same units)."""
    return STD.read_position({**STD.write_position(pos), "phase": phase})


def pending(s: Store, game: dict) -> dict[str, list[str]]:
    return {r["phase"]: r["lines"] for r in s.pending_blocks(game["id"])}


def test_a_used_block_is_kept_marked_and_pending_again_after_a_rollback(tmp_path):
    s, game, spring = game_with_germany(tmp_path)
    sent = ["PHASE F1901M", "IF A MUN", "A MUN - BOH", "ENDIF"]
    AH.receive(s, game, spring, "GERMANY", sent, None)
    AH.receive(s, game, spring, "GERMANY", ["PHASE S1902M", "A BER H"], None)

    fall = at(spring, "F1901M")
    acts = AH.take_due(s, game, fall)
    assert [(a.phase, a.lines) for a in acts] == [("F1901M", ["A MUN - BOH"])]
    assert list(pending(s, game)) == ["S1902M"]  # used: no longer pending, nor listed
    assert AH.take_due(s, game, fall) == []  # and never used twice
    row = s.one("SELECT used_in FROM pending_orders WHERE phase = 'F1901M'")
    assert row == {"used_in": "F1901M"}

    # back to Spring: the Fall block is pending again exactly as sent; Spring 1902's stays
    assert AH.restore(s, game, spring, ["F1901M"]) == {"GERMANY": ["F1901M"]}
    assert pending(s, game) == {"F1901M": sent, "S1902M": ["PHASE S1902M", "A BER H"]}
    # and is decided again when Fall starts again, against the position then
    moved = STD.read_position({**STD.write_position(fall), "units": {"GERMANY": ["A BER"]}})
    again = AH.take_due(s, game, moved)
    assert [(a.lines, a.trace) for a in again] == [([], [("IF A MUN", False)])]


def test_a_block_used_when_the_target_phase_began_stays_used(tmp_path):
    s, game, spring = game_with_germany(tmp_path)
    AH.receive(s, game, spring, "GERMANY", ["PHASE F1901M", "A MUN H"], None)
    AH.receive(s, game, spring, "GERMANY", ["PHASE W1901A", "BUILD A MUN"], None)
    fall = at(spring, "F1901M")
    AH.take_due(s, game, fall)
    AH.take_due(s, game, at(spring, "W1901A"))
    # back to Fall: its orders (from its block, or sent since) are restored as they stand, so
    # its block is not pending again; the Winter block is
    assert AH.restore(s, game, fall, ["W1901A"]) == {"GERMANY": ["W1901A"]}
    assert list(pending(s, game)) == ["W1901A"]


def test_a_block_whose_phase_never_came_is_pending_again_if_it_may_come(tmp_path):
    s, game, spring = game_with_germany(tmp_path)
    AH.receive(s, game, spring, "GERMANY", ["PHASE F1901R", "A MUN - BOH"], None)
    fall = at(spring, "F1901M")
    assert AH.take_due(s, game, fall) == []
    winter = at(spring, "W1901A")
    expired = AH.take_due(s, game, winter)  # no retreats were needed
    assert [a.expired for a in expired] == [True]
    assert AH.restore(s, game, winter, ["S1902M"]) == {}  # not used after Winter: stays
    # back to Fall movement: the retreat phase may come this time
    assert AH.restore(s, game, fall, ["W1901A"]) == {"GERMANY": ["F1901R"]}
    assert list(pending(s, game)) == ["F1901R"]


def test_a_replaced_players_used_blocks_are_not_restored(tmp_path):
    s, game, spring = game_with_germany(tmp_path)
    AH.receive(s, game, spring, "GERMANY", ["PHASE F1901M", "A MUN H"], None)
    AH.take_due(s, game, at(spring, "F1901M"))
    s.execute("UPDATE players SET address = 'new@x.test', joined = '2999-01-01T00:00:00+00:00'")
    assert AH.restore(s, game, spring, ["F1901M"]) == {}
    assert s.all("SELECT * FROM pending_orders") == []


def test_a_bc_calendar_is_marked_and_restored_by_the_games_own_phase_codes(tmp_path):
    hop = get_variant("hoplite")
    s = Store(tmp_path / "judge.db")
    game = G.create_game(s, "h1", "masterpw", "hoplite", (3600, 3600, 3600), "gm@x.test")
    s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) "
              "VALUES (?, 'ACHEA', 'a@x.test', 'x', '2000-01-01T00:00:00+00:00')",
              (game["id"],))
    winter = hop.initial_position()
    AH.receive(s, game, winter, "ACHEA", ["PHASE Spring 450 BC", "WAIVE"], None)
    spring = hop.read_position({**hop.write_position(winter), "phase": "S450BCM"})
    assert [a.phase for a in AH.take_due(s, game, spring)] == ["S450BCM"]
    # ROLLBACK names the phases by the game's codes (W451BCA, S450BCM), as positions do
    assert s.one("SELECT used_in FROM pending_orders") == {"used_in": "S450BCM"}
    assert AH.restore(s, game, winter, ["S450BCM"]) == {"ACHEA": ["S450BCM"]}
    assert [r["lines"] for r in s.pending_blocks(game["id"])] == [["PHASE Spring 450 BC",
                                                                   "WAIVE"]]


def test_blocks_waiting_when_the_database_is_upgraded_stay_pending(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for number, sql in enumerate(MIGRATIONS[:13], start=1):
        conn.executescript(sql)
        conn.execute(f"PRAGMA user_version={number}")
    conn.execute("INSERT INTO games (id, name, variant, status, master_hash, master_address, "
                 "movement_seconds, retreat_seconds, adjustment_seconds, phase, created) "
                 "VALUES (1, 'old', 'standard', 'active', 'x', 'gm@x.test', 1, 1, 1, "
                 "'S1901M', '2026-01-01')")
    conn.execute("INSERT INTO pending_orders (game_id, power, phase, lines, updated) VALUES "
                 "(1, 'GERMANY', 'F1901M', ?, '2026-01-01')",
                 (json.dumps(["PHASE F1901M", "A MUN H"]),))
    conn.commit()
    conn.close()
    s = Store(path)
    assert s.schema_version() == len(MIGRATIONS)
    assert [r["lines"] for r in s.pending_blocks(1)] == [["PHASE F1901M", "A MUN H"]]


# ------------------------------------------------------------- the mail path
TWO_AHEAD = SIGNON + """A BER - MUN
A MUN - RUH
F KIE - DEN
PHASE Fall 1901 Movement
IF A RUH AND NOT French A BUR
  A RUH - BEL
ELSE
  A RUH - HOL
ENDIF
A MUN H
PHASE Spring 1902
A RUH H
"""


def fall_orders(judge: InProcessJudge) -> list[str]:
    row = judge.store.one("SELECT lines FROM orders WHERE phase = 'F1901M' AND "
                          "power = 'GERMANY'")
    return [x["order"] for x in json.loads(row["lines"])] if row else []


def test_rollback_by_mail_makes_used_orders_ahead_pending_again_and_they_activate(tmp_path):
    judge = InProcessJudge(tmp_path)
    judge.actor.clock = FakeClock()
    new_game(judge)
    germany = addr("GERMANY")
    judge.send(germany, TWO_AHEAD)

    # Spring is played: Fall's block becomes Germany's orders (a French army is in Burgundy)
    send_others(judge, SPRING)
    assert judge.store.game("g1")["phase"] == "F1901M"
    assert fall_orders(judge) == ["A RUH - HOL", "A MUN H"]
    # during Fall, Germany sends a block for a later phase
    judge.send(germany, SIGNON + "PHASE Fall 1902\nA MUN - BOH")

    sent = judge.send(GM, "MASTER g1 masterpw\nROLLBACK S1901M")
    reply = only_reply(sent, GM).body
    assert "Game g1 is back in S1901M; the orders of 7 power(s) for that phase are restored, " \
           "and the orders sent ahead that the phases after it used are pending again " \
           "(Germany: F1901M)." in " ".join(reply.split())
    notice = [m for m in sent if m.rcpt == germany and "rolled back" in m.subject]
    assert len(notice) == 1
    assert "Your orders sent ahead for F1901M are pending again" in notice[0].body
    french = [m for m in sent if m.rcpt == addr("FRANCE") and "rolled back" in m.subject]
    assert "sent ahead" not in french[0].body  # France sent nothing ahead

    # every reply to Germany lists the three blocks again, the Fall one as it was sent
    body = only_reply(judge.send(germany, SIGNON), germany).body
    assert "Pending orders for Germany in game g1" in body
    assert body.index("(F1901M):") < body.index("(S1902M):") < body.index("(F1902M):")
    assert "\n  IF A RUH AND NOT French A BUR\n    A RUH - BEL\n  ELSE\n    A RUH - HOL\n" \
           "  ENDIF\n  A MUN H\n" in body
    assert "  A MUN - BOH" in body and "  A RUH H" in body

    # France plays Spring otherwise this time; when Fall starts again the block is decided
    # against the new position: no French army in Burgundy
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR - PIC\nA MAR H\nF BRE - MAO")
    assert judge.store.game("g1")["phase"] == "F1901M"
    assert units(judge, "F1901M", "FRANCE") == ["A MAR", "A PIC", "F MAO"]
    assert fall_orders(judge) == ["A RUH - BEL", "A MUN H"]
    assert sorted(r["phase"] for r in judge.store.pending_blocks(1)) == ["F1902M", "S1902M"]


def test_rollback_with_nothing_used_says_orders_ahead_stay_pending(tmp_path):
    judge = InProcessJudge(tmp_path)
    judge.actor.clock = FakeClock()
    new_game(judge)
    send_others(judge, SPRING)
    judge.send(addr("GERMANY"), SIGNON + "A BER H\nA MUN H\nF KIE H\nPHASE Spring 1902\nA BER H")
    assert judge.store.game("g1")["phase"] == "F1901M"
    reply = only_reply(judge.send(GM, "MASTER g1 masterpw\nROLLBACK S1901M"), GM).body
    assert "restored; orders sent ahead for later phases stay pending." in " ".join(
        reply.split())
    assert [r["phase"] for r in judge.store.pending_blocks(1)] == ["S1902M"]


def test_clear_pending_withdraws_every_block_and_keeps_the_orders(tmp_path):
    judge = InProcessJudge(tmp_path)
    judge.actor.clock = FakeClock()
    new_game(judge)
    germany = addr("GERMANY")
    judge.send(germany, TWO_AHEAD)

    # CLEAR alone is this phase's orders: the blocks stay, and the reply says how to go
    body = only_reply(judge.send(germany, SIGNON + "CLEAR"), germany).body
    assert "The orders sent ahead for later phases stay pending (CLEAR PENDING withdraws " \
           "them)." in " ".join(body.split())
    assert "(F1901M):" in body and "(S1902M):" in body
    judge.send(germany, SIGNON + "A BER - MUN")

    # CLEAR PENDING: the stored blocks and the mail's blocks before it go; a block after it
    # is kept; the orders for the phase stay
    reply = only_reply(judge.send(germany, SIGNON + "PHASE F1902M\nA MUN H\nCLEAR PENDING\n"
                                  "PHASE W1901A\nBUILD A KIE"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert "Orders sent ahead by Germany withdrawn (blocks for 3 phase(s)); the orders for " \
           "this phase stay." in " ".join(reply.body.split())
    assert "  A BER - MUN" in reply.body
    assert [r["phase"] for r in judge.store.pending_blocks(1)] == ["W1901A"]
    assert "Winter 1901 Adjustment (W1901A):\n  BUILD A KIE\n" in reply.body

    # a phase both stored and sent again in the mail is one phase withdrawn, not two
    reply = only_reply(judge.send(germany, SIGNON + "PHASE Winter 1901 Adjustment\n"
                                  "BUILD F KIE\nCLEAR PENDING"), germany)
    assert "Orders sent ahead by Germany withdrawn (blocks for 1 phase(s))" \
        in " ".join(reply.body.split()), reply.body
    assert judge.store.pending_blocks(1) == []

    # with nothing left, the reply still shows the heading, and the list empty
    body = only_reply(judge.send(germany, SIGNON + "ORDERS-CLEAR pending"), germany).body
    assert "Pending orders for Germany in game g1 (used when each phase starts):\n" \
           "  (none)\n" in body
    body = only_reply(judge.send(germany, SIGNON + "CLEAR PENDING"), germany).body
    assert "Germany had no orders sent ahead to withdraw." in body
    assert "  A BER - MUN" in body

    reply = only_reply(judge.send(germany, SIGNON + "CLEAR ALL"), germany)
    assert reply.subject.startswith("[ERROR]")
    assert "CLEAR takes nothing after it, or PENDING" in reply.body
    assert "  A BER - MUN" in reply.body


def test_lines_after_clear_pending_inside_a_block_stay_in_that_block(tmp_path):
    # CLEAR PENDING written inside a PHASE block withdrew the block's header with it: the
    # lines after it became this phase's orders, replacing the power's, while the reply said
    # "the orders for this phase stay"
    judge = InProcessJudge(tmp_path)
    judge.actor.clock = FakeClock()
    new_game(judge)
    germany = addr("GERMANY")
    judge.send(germany, TWO_AHEAD)
    reply = only_reply(judge.send(germany, SIGNON + "PHASE F1902M\nA MUN H\nClear  Pending\n"
                                  "A BER H"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert "the orders for this phase stay" in " ".join(reply.body.split())
    assert "  A BER - MUN\n  A MUN - RUH\n  F KIE - DEN\n" in reply.body
    assert [(r["phase"], r["lines"]) for r in judge.store.pending_blocks(1)] == [
        ("F1902M", ["PHASE F1902M", "A BER H"])]
    # at the end of a block it withdraws that block as any other, and nothing is stored
    reply = only_reply(judge.send(germany, SIGNON + "PHASE S1902M\nA MUN H\nCLEAR PENDING"),
                       germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert judge.store.pending_blocks(1) == []
    assert "  A BER - MUN\n  A MUN - RUH\n  F KIE - DEN\n" in reply.body


def test_clear_speaks_only_of_the_present_players_orders_sent_ahead(tmp_path):
    # the blocks of a player since replaced are not the new player's: CLEAR told him they
    # "stay pending" and CLEAR PENDING counted them as his (the real clock: a block's time is
    # the real one)
    judge = InProcessJudge(tmp_path)
    new_game(judge)
    judge.send(addr("GERMANY"), TWO_AHEAD)
    time.sleep(0.01)  # the blocks' times are the real clock's
    sent = judge.send(GM, "MASTER g1 masterpw\nREPLACE GERMANY new@x.test newpw")
    assert not only_reply(sent, GM).subject.startswith("[ERROR]")
    [request] = [m for m in sent if m.rcpt == "new@x.test"]  # the seat, once confirmed
    judge.send("new@x.test", "CONFIRM " + request.flat.split("CONFIRM ")[1].split()[0])
    time.sleep(0.01)  # the blocks' times are the real clock's
    new = "SIGNON GERMANY g1 newpw\n"
    body = " ".join(only_reply(judge.send("new@x.test", new + "CLEAR"), "new@x.test")
                    .body.split())
    assert "Orders of Germany for this phase cleared." in body
    assert "sent ahead" not in body
    body = only_reply(judge.send("new@x.test", new + "CLEAR PENDING"), "new@x.test").body
    assert "Germany had no orders sent ahead to withdraw." in body
