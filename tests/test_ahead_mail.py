"""Orders sent ahead by mail, through the judge's real reading, acting, storage and sender:
a player sends three phases ahead and never writes again, and the game runs through them."""

from __future__ import annotations

import json

from dipkit import FakeClock
from mailkit import FALL, POWERS, SPRING, InProcessJudge, addr, new_game, only_reply

from judge.games import ahead as AH
from judge.variants import get_variant

GERMANY_AHEAD = """SIGNON GERMANY g1 pw-germany
A BER - MUN
A MUN - RUH
F KIE - DEN
PHASE Fall 1901 Movement
IF A RUH AND NOT French A BUR
  A RUH - BEL
ELSE
  A RUH - HOL
ENDIF
A MUN H
A KIE - BER
F DEN H
PHASE W1901A
IF OWN HOL
  BUILD A BER
  BUILD F KIE
ENDIF
PHASE Spring 1902
IF A BER AND F KIE
  A BER - SIL
  F KIE - BAL
ENDIF
A HOL H
"""


def judge_at(tmp_path):
    judge = InProcessJudge(tmp_path)
    clock = FakeClock()
    judge.actor.clock = clock
    new_game(judge)
    return judge, clock


def units(judge: InProcessJudge, phase: str, power: str) -> list[str]:
    row = judge.store.one("SELECT position FROM positions WHERE phase = ?", (phase,))
    assert row is not None, phase
    return sorted(json.loads(row["position"])["units"].get(power, []))


def send_others(judge: InProcessJudge, orders: dict[str, list[str]]) -> list:
    sent = []
    for p in POWERS:
        if p != "GERMANY":
            sent += judge.send(addr(p), f"SIGNON {p} g1 pw-{p.lower()}\n" + "\n".join(orders[p]))
    return sent


def test_three_phases_ahead_and_the_game_runs_through_them(tmp_path):
    judge, clock = judge_at(tmp_path)
    reply = only_reply(judge.send(addr("GERMANY"), GERMANY_AHEAD), addr("GERMANY"))
    body = reply.body
    assert "[ERROR]" not in reply.subject, body
    assert "Orders for Germany in game g1, Spring 1901 Movement (S1901M):" in body
    assert "Pending orders for Germany in game g1" in body
    for heading in ("Fall 1901 Movement (F1901M):", "Winter 1901 Adjustment (W1901A):",
                    "Spring 1902 Movement (S1902M):"):
        assert heading in body
    assert body.index("F1901M):") < body.index("W1901A):") < body.index("S1902M):")
    assert "\n  IF A RUH AND NOT French A BUR\n    A RUH - BEL\n  ELSE\n" in body

    # Spring: the others order; the Fall block becomes Germany's orders when Fall begins
    sent = send_others(judge, SPRING)
    assert units(judge, "F1901M", "GERMANY") == ["A MUN", "A RUH", "F DEN"]
    notice = [m for m in sent if m.rcpt == addr("GERMANY") and "sent ahead" in m.subject]
    assert len(notice) == 1, [m.subject for m in sent if m.rcpt == addr("GERMANY")]
    text = notice[0].body
    assert "A KIE - BER" in text.split("left out")[1]  # Kiel is empty now
    assert "A RUH - HOL" in text.split("left out")[0]  # a French army stands in Burgundy
    stored = judge.store.one("SELECT lines FROM orders WHERE phase = 'F1901M' AND "
                             "power = 'GERMANY'")
    assert [x["order"] for x in json.loads(stored["lines"])] == [
        "A RUH - HOL", "A MUN H", "F DEN H"]

    # Fall: Germany's orders are in, so the phase is processed once the others' are
    send_others(judge, FALL)
    assert units(judge, "W1901A", "GERMANY") == ["A HOL", "A MUN", "F DEN"]
    winter = judge.store.one("SELECT lines FROM orders WHERE phase = 'W1901A' AND "
                             "power = 'GERMANY'")
    assert [x["order"] for x in json.loads(winter["lines"])] == ["BUILD A BER", "BUILD F KIE"]

    # Winter: the others never order; the deadline passes and the builds are made
    clock.advance(days=10)
    judge.run()
    assert units(judge, "S1902M", "GERMANY") == ["A BER", "A HOL", "A MUN", "F DEN", "F KIE"]

    # Spring 1902: nobody writes; Germany's last block stands and is adjudicated
    clock.advance(days=10)
    judge.run()
    assert units(judge, "F1902M", "GERMANY") == ["A HOL", "A MUN", "A SIL", "F BAL", "F DEN"]
    # nothing is pending; each block is kept, marked with the phase that used it (ROLLBACK)
    assert judge.store.pending_blocks(1) == []
    used = judge.store.all("SELECT phase, used_in FROM pending_orders ORDER BY id")
    assert [(r["phase"], r["used_in"]) for r in used] == [
        ("F1901M", "F1901M"), ("W1901A", "W1901A"), ("S1902M", "S1902M")]


def test_pending_orders_in_every_reply_replaced_withdrawn_and_errors(tmp_path):
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    signon = "SIGNON GERMANY g1 pw-germany\n"
    judge.send(germany, signon + "PHASE F1901M\nA MUN H\nPHASE F1902M\nA BER H")
    # a later block for a phase is added after the earlier one (njudge appends), its order
    # for a unit replacing the earlier one's, as the reply says; other blocks stay
    body = only_reply(judge.send(germany, signon + "PHASE Fall 1901\nA MUN - BOH"),
                      germany).body
    assert "  A MUN H                       <-- replaced by the later order A MUN - BOH\n" \
        "  PHASE Fall 1901\n  A MUN - BOH\n" in body and "A BER H" in body
    # a reply to a mail with no PHASE line still lists them; current orders are kept
    body = only_reply(judge.send(germany, signon + "A MUN - RUH"), germany).body
    assert "Pending orders for Germany" in body and "A MUN - BOH" in body
    assert "  A MUN - RUH" in body
    # an empty block withdraws the phase's blocks, without touching the current orders
    body = only_reply(judge.send(germany, signon + "PHASE F1901M"), germany).body
    assert "A MUN - BOH" not in body and "A MUN H" not in body
    assert "Fall 1902 Movement (F1902M):" in body
    assert "  A MUN - RUH" in body
    # lines that cannot be read are ERROR lines with the reason; a bad PHASE line keeps nothing
    reply = only_reply(judge.send(germany, signon + "PHASE F1901M\nIF Foo\nA MUN H\nENDIF\n"
                                  "PHASE Fall 1909\nA MUN H"), germany)
    assert reply.subject.startswith("[ERROR]")
    assert "IF Foo" in reply.body and "<-- ERROR: 'Foo' is not a province" in reply.body
    assert "<-- ERROR: Fall 1909 Movement is more than 5 years ahead" in reply.body
    rows = judge.store.all("SELECT phase FROM pending_orders ORDER BY phase")
    assert [r["phase"] for r in rows] == ["F1901M", "F1902M"]


def test_a_block_for_the_current_phase_is_decided_at_once(tmp_path):
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    body = only_reply(judge.send(germany, "SIGNON GERMANY g1 pw-germany\nPHASE S1901M\n"
                                 "IF Russian A WAR\nA MUN - SIL\nELSE\nA MUN H\nENDIF"),
                      germany).body
    assert "  A MUN - SIL" in body
    assert judge.store.all("SELECT * FROM pending_orders") == []


def test_when_orders_sent_ahead_complete_a_phase_it_is_processed_early(tmp_path):
    judge, _ = judge_at(tmp_path)
    for p in POWERS:  # everyone sends Spring and, ahead, Fall
        judge.send(addr(p), f"SIGNON {p} g1 pw-{p.lower()}\n" + "\n".join(SPRING[p])
                   + "\nPHASE Fall 1901\n" + "\n".join(FALL[p]))
    game = judge.store.one("SELECT phase FROM games WHERE name = 'g1'")
    # Fall was processed without waiting for its deadline (and dislodged a unit)
    assert game["phase"] == "F1901R"
    fall = judge.store.one("SELECT adjudicated FROM positions WHERE phase = 'F1901M'")
    assert fall["adjudicated"] is not None
    assert units(judge, "F1901R", "ITALY") == ["A TUN", "A TYR", "F ION"]


def store_game(tmp_path, variant: str):
    from judge.games import game as G
    from judge.storage import Store

    s = Store(tmp_path / "judge.db")
    game = G.create_game(s, "v1", "masterpw", variant, (3600, 3600, 3600), "gm@x.test")
    return s, game, get_variant(variant).initial_position()


def test_hidden_movement_refuses_tests_of_what_the_player_cannot_see(tmp_path):
    s, game, pos = store_game(tmp_path, "stab")
    got = AH.receive(s, game, pos, "GERMANY", [
        "PHASE F1901M", "IF French A BUR", "A MUN H", "ENDIF",
        "IF Germany A RUH AND OWN MUN", "A RUH - BUR", "ENDIF",
        "IF DISLODGED A RUH R KIE"], None)
    problems = got.blocks[0].problems()
    assert problems == [("IF French A BUR",
                         "'France A BUR' asks about another power's unit, which you cannot see "
                         "in this game")]
    # the Stab! retreat form inside a block is an order line, not a condition
    assert s.pending_blocks(game["id"], "GERMANY")[0]["lines"][-1] == "IF DISLODGED A RUH R KIE"
    item = AH.reply_item(s, game, pos, "GERMANY", got)
    assert item is not None and item["error"]


def test_dipnomicy_takes_moves_ahead_only(tmp_path):
    s, game, pos = store_game(tmp_path, "dipnomicy")
    got = AH.receive(s, game, pos, "GERMANY", ["PHASE F1901M", "A MUN H", "PHASE W1901A",
                                               "BUILD A MUN", "PHASE F1901R", "A MUN - BOH"],
                     None)
    assert [b.error for b in got.blocks] == [
        None,
        "this game takes orders ahead for movement phases only, not for Winter 1901 Adjustment",
        "this game takes orders ahead for movement phases only, not for Fall 1901 Retreat"]
    assert [r["phase"] for r in s.pending_blocks(game["id"])] == ["F1901M"]


def test_a_new_player_does_not_inherit_the_old_players_blocks(tmp_path):
    s, game, pos = store_game(tmp_path, "standard")
    s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) "
              "VALUES (?, 'GERMANY', 'old@x.test', 'x', '2000-01-01T00:00:00+00:00')",
              (game["id"],))
    AH.receive(s, game, pos, "GERMANY", ["PHASE F1902M", "A MUN - BOH"], None)
    AH.receive(s, game, pos, "GERMANY", ["PHASE F1901M", "A MUN H"], None)
    assert AH.reply_item(s, game, pos, "GERMANY", None) is not None
    s.execute("UPDATE players SET address = 'new@x.test', joined = '2999-01-01T00:00:00+00:00'")
    assert AH.reply_item(s, game, pos, "GERMANY", None) is None
    fall = get_variant("standard").read_position({**get_variant("standard").write_position(pos),
                                                  "phase": "F1901M"})
    assert AH.take_due(s, game, fall) == []
    assert s.pending_blocks(game["id"]) == []


def test_an_order_line_that_cannot_be_read_is_an_error_when_sent(tmp_path):
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    reply = only_reply(judge.send(germany, "SIGNON GERMANY g1 pw-germany\nPHASE F1901M\n"
                                  "IF A MUN\n  A MUN - Bohemiaa\nENDIF\nA KIE - HOL\n"
                                  "PHASE W1901A\nBUILD A PAR"), germany)
    assert reply.subject.startswith("[ERROR]")
    assert "A MUN - Bohemiaa" in reply.body and "<-- ERROR: unknown place 'Bohemiaa'" in \
        reply.body
    # readable, though not possible today (no army in Kiel, Paris is not German): kept as is
    assert "  A KIE - HOL\n" in reply.body and "  BUILD A PAR\n" in reply.body


def test_two_blocks_for_a_phase_in_one_mail_are_both_kept_and_an_error_in_either_shown(tmp_path):
    # found by tests/test_fuzz_ahead_mail.py: the reply said "[ERROR] ... look for ERROR
    # below" for a line of a block the mail itself replaced, and showed no ERROR line; since
    # blocks for a phase add up (njudge appends them), the first block stays, its ERROR shown
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    reply = only_reply(judge.send(germany, "SIGNON GERMANY g1 pw-germany\nPHASE F1901M\n"
                                  "IF Foo\nA MUN H\nENDIF\nPHASE Fall 1901\nA MUN - BOH"),
                       germany)
    assert reply.subject.startswith("[ERROR]"), reply.body
    assert "IF Foo                        <-- ERROR: 'Foo' is not a province" in reply.body
    assert "  A MUN - BOH" in reply.body
    [row] = judge.store.pending_blocks(1, "GERMANY")
    assert row["lines"] == ["PHASE F1901M", "IF Foo", "A MUN H", "ENDIF", "PHASE Fall 1901",
                            "A MUN - BOH"]
    # a block withdrawing the phase later in the mail takes the error with it
    reply = only_reply(judge.send(germany, "SIGNON GERMANY g1 pw-germany\nPHASE F1901M\n"
                                  "IF Foo\nA MUN H\nENDIF\nPHASE Fall 1901"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert judge.store.pending_blocks(1, "GERMANY") == []


def test_order_lines_after_clear_inside_a_block_stay_in_that_block(tmp_path):
    # found by tests/test_fuzz_ahead_mail.py: after CLEAR written inside a PHASE block, the
    # block's remaining lines (its ENDIF, orders meant for Fall) became the orders for now,
    # as CLEAR PENDING already made them stay in the block
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    reply = only_reply(judge.send(germany, "SIGNON GERMANY g1 pw-germany\nA MUN H\n"
                                  "PHASE F1901M\nA MUN - BOH\nCLEAR\nIF A MUN\nA MUN - TYR\n"
                                  "ENDIF"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert "Orders of Germany for this phase cleared." in reply.body
    assert "Spring 1901 Movement (S1901M):\n  (none)" in reply.body
    [row] = judge.store.pending_blocks(1, "GERMANY")
    assert row["lines"] == ["PHASE F1901M", "IF A MUN", "A MUN - TYR", "ENDIF"]
    assert judge.store.all("SELECT * FROM orders WHERE power = 'GERMANY'") == [] or all(
        json.loads(r["lines"]) == [] for r in judge.store.all(
            "SELECT lines FROM orders WHERE power = 'GERMANY'"))
