"""Orders sent ahead as a veteran of njudge sends them (issue 24, item 7), by mail through the
judge's real reading, acting, storage and sender: two PHASE blocks for one phase add up (a
later order for a unit wins), each player whose blocks a phase used is mailed which way each
IF went and the orders that now stand, and a coast in a condition is written as in orders."""

from __future__ import annotations

import json

from mailkit import POWERS, SPRING, addr, only_reply
from test_ahead_mail import judge_at, send_others

SIGNON = "SIGNON GERMANY g1 pw-germany\n"
GERMANY_SPRING = "A BER - MUN\nA MUN - RUH\nF KIE - DEN\n"


def stored(judge, phase: str, power: str = "GERMANY") -> list[str]:
    row = judge.store.one("SELECT lines FROM orders WHERE phase = ? AND power = ?",
                          (phase, power))
    return [x["order"] for x in json.loads(row["lines"]) if x.get("order")] if row else []


def ahead_notices(sent: list, power: str) -> list:
    return [m for m in sent if m.rcpt == addr(power) and "sent ahead" in m.subject]


def test_two_blocks_for_one_phase_add_up_and_the_later_order_for_a_unit_wins(tmp_path):
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    judge.send(germany, SIGNON + GERMANY_SPRING + "PHASE F1901M\nA MUN H\nA RUH - BEL")
    reply = only_reply(judge.send(germany, SIGNON + "PHASE Fall 1901\nA MUN - BOH"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    pending = reply.body.split("Pending orders for Germany")[1]
    # the earlier block stays; its line for the unit ordered again is marked, not an error
    assert ("Fall 1901 Movement (F1901M):\n"
            "  A MUN H                       <-- replaced by the later order A MUN - BOH\n"
            "  A RUH - BEL\n"
            "  PHASE Fall 1901\n"
            "  A MUN - BOH\n") in pending
    # in one mail too: a third block for the phase adds its line after the others
    reply = only_reply(judge.send(germany, SIGNON + "PHASE F1901M\nF DEN H\n"
                                  "PHASE F1901M\nA RUH - HOL"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert "<-- replaced by the later order A RUH - HOL" in reply.flat
    [row] = judge.store.pending_blocks(1, "GERMANY")
    assert row["lines"] == ["PHASE F1901M", "A MUN H", "A RUH - BEL", "PHASE Fall 1901",
                            "A MUN - BOH", "PHASE F1901M", "F DEN H", "PHASE F1901M",
                            "A RUH - HOL"]
    # Fall begins: the later order for each unit stands, the other units' orders stay
    send_others(judge, SPRING)
    assert sorted(stored(judge, "F1901M")) == ["A MUN - BOH", "A RUH - HOL", "F DEN H"]


def test_an_empty_block_withdraws_every_block_for_its_phase(tmp_path):
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    judge.send(germany, SIGNON + "PHASE F1901M\nA MUN H\nPHASE F1901M\nA BER H\n"
                                 "PHASE F1902M\nA KIE H")
    body = only_reply(judge.send(germany, SIGNON + "PHASE Fall 1901"), germany).body
    assert "A MUN H" not in body and "A BER H" not in body and "A KIE H" in body
    assert [r["phase"] for r in judge.store.pending_blocks(1, "GERMANY")] == ["F1902M"]


def test_each_player_is_mailed_the_orders_that_stand_when_the_phase_starts(tmp_path):
    # issue 24, 7: a notice went only when a line was left out; njudge mails "Pending
    # Orders" whenever a phase uses a player's orders sent ahead
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    judge.send(germany, SIGNON + GERMANY_SPRING + "PHASE Fall 1901 Movement\n"
               "IF A RUH AND NOT French A BUR\n  A RUH - BEL\nELSE\n  A RUH - HOL\nENDIF\n"
               "A MUN H\nPHASE F1901M\nF DEN H")
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nPHASE F1901M\nA PAR H")
    sent = []
    for p in POWERS:
        if p != "GERMANY":
            sent += judge.send(addr(p), f"SIGNON {p} g1 pw-{p.lower()}\n" + "\n".join(SPRING[p]))
    [notice] = ahead_notices(sent, "GERMANY")
    body = notice.body
    assert "IF A RUH AND NOT French A BUR" in body
    assert "<-- false" in body.split("IF A RUH AND NOT French A BUR")[1].splitlines()[0]
    standing = body.split("now stand as your orders for the phase:\n")[1].split("\n\n")[0]
    assert [x.strip() for x in standing.strip().splitlines()] == [
        "A RUH - HOL", "A MUN H", "F DEN H"]
    assert "left out" not in body  # every line stood
    # one mail per player whose orders sent ahead were used; nobody else's orders in it
    assert len(ahead_notices(sent, "FRANCE")) == 1
    assert "A PAR H" not in body and "A RUH" not in ahead_notices(sent, "FRANCE")[0].body
    for p in POWERS:
        if p not in ("GERMANY", "FRANCE"):
            assert ahead_notices(sent, p) == []


def test_a_coast_in_a_condition_is_written_as_in_orders(tmp_path):
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    reply = only_reply(judge.send(germany, SIGNON + GERMANY_SPRING + "PHASE F1901M\n"
                                  "IF Russian St Petersburg (south coast)\n  A MUN - SIL\n"
                                  "ELSE IF Russian F STP(SC) OR Russia StP/nc\n  A MUN - BOH\n"
                                  "ELSE\n  A MUN H\nENDIF"), germany)
    assert not reply.subject.startswith("[ERROR]"), reply.body
    sent = send_others(judge, SPRING)  # Russia's fleet leaves the south coast for Bothnia
    assert stored(judge, "F1901M") == ["A MUN H"]
    [notice] = ahead_notices(sent, "GERMANY")
    assert "IF Russian St Petersburg (south coast)" in notice.body


def test_stab_the_mail_at_the_phase_start_tells_only_what_the_player_sees(tmp_path):
    # hidden movement: a condition tests only the player's own units and centres, and the
    # mail names no unit but the player's own and those it wrote
    from mailkit import GM, InProcessJudge
    from stabkit import PLACEMENT, RULES, check_reply
    from stabkit import SPRING as STAB_SPRING

    judge = InProcessJudge(tmp_path)
    judge.send(GM, "CREATE st masterpw VARIANT stab\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}")
    judge.send(GM, "MASTER st masterpw\nSTART")
    ahead = ("PHASE Autumn 1901\nIF Germany A RUH\n  A RUH - BUR\n  A MUN S A RUH - BUR\n"
             "ELSE\n  A MUN H\nENDIF\nF DEN - SWE")
    sent = []
    for p in POWERS:
        body = f"SIGNON {p} st pw-{p.lower()}\n" + "\n".join(PLACEMENT[p] + STAB_SPRING[p])
        if p == "GERMANY":
            body += "\n" + ahead
            reply = only_reply(judge.send(addr(p), body), addr(p))
            assert not reply.subject.startswith("[ERROR]"), reply.body
            continue
        sent += judge.send(addr(p), body)
    [notice] = ahead_notices(sent, "GERMANY")
    assert "IF Germany A RUH              <-- true: the lines under it stand" in notice.body
    assert "These now stand as your orders for the phase:\n  A RUH - BUR\n" \
        "  A MUN S A RUH - BUR\n  F DEN - SWE\n" in notice.body, notice.body
    own = {"RUH", "MUN", "DEN", *RULES.board.home_centres["GERMANY"]}
    check_reply(notice, "GERMANY", ahead, own)
    assert [m for m in sent if "sent ahead" in m.subject] == [notice]


def test_blocks_waiting_for_one_phase_are_bounded(tmp_path):
    # every reply reads and lists what waits: bounded as one block is
    judge, _ = judge_at(tmp_path)
    germany = addr("GERMANY")
    judge.send(germany, SIGNON + "PHASE F1901M\nA MUN H\n" * 30)
    reply = only_reply(judge.send(germany, SIGNON + "PHASE F1901M\nA MUN - BOH"), germany)
    assert reply.subject.startswith("[ERROR]"), reply.body
    assert ("at most 30 PHASE blocks of at most 300 lines in all may wait for one phase; "
            "this one was not kept") in reply.flat
    [row] = judge.store.pending_blocks(1, "GERMANY")
    assert "A MUN - BOH" not in row["lines"] and len(row["lines"]) == 60
    judge.send(germany, SIGNON + "PHASE F1902M\n" + "A MUN H\n" * 200)
    reply = only_reply(judge.send(germany, SIGNON + "PHASE F1902M\n" + "A BER H\n" * 101),
                       germany)
    assert "this one was not kept" in reply.flat and "A BER H" not in reply.body.split(
        "Pending orders")[1].split("Not kept")[0]


def _stab_next_season_to_the_retreats(tmp_path, ahead: list[str]) -> tuple:
    """A Stab! game with RETREATS NEXT_SEASON played to F1901R (A(Bur) dislodged), France's
    Autumn mail carrying ``ahead``: (the judge, the mail the Autumn's mails made)."""
    from mailkit import GM, InProcessJudge
    from stabkit import AUTUMN, PLACEMENT
    from stabkit import SPRING as STAB_SPRING

    judge = InProcessJudge(tmp_path)
    judge.send(GM, "CREATE st masterpw VARIANT stab RETREATS NEXT_SEASON\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}")
    judge.send(GM, "MASTER st masterpw\nSTART")
    for p in ["FRANCE"] + [p for p in POWERS if p != "FRANCE"]:
        judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}\n" +
                   "\n".join(PLACEMENT[p] + STAB_SPRING[p]))
    sent = []
    for p in ["FRANCE"] + [p for p in AUTUMN if p != "FRANCE"]:
        lines = [x for x in AUTUMN[p] if not x.startswith("IF")]
        if p == "FRANCE":  # A(Bur) is dislodged this Autumn: the Spring's orders go ahead
            lines += ahead
        sent += judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}\n" + "\n".join(lines))
    assert judge.store.game("st")["phase"] == "F1901R"
    return judge, sent


def test_stab_next_season_takes_a_block_for_the_season_whose_orders_it_waits_for(tmp_path):
    """attack31: with RETREATS NEXT_SEASON the game waits in the retreat phase (or the
    Winter) for the next season's orders, and never in that season's movement; a block sent
    ahead for Spring 1902 waited for a phase that never began, was dropped with 'the game went
    past S1902M without playing it (no such phase was needed)', and France's units held.
    It is taken when the game begins to wait for that season's mail, as if sent then."""
    from mailkit import GM

    judge, sent = _stab_next_season_to_the_retreats(tmp_path, ["PHASE S1902M", "A PIC - BEL"])
    [notice] = ahead_notices(sent, "FRANCE")
    assert "A PIC - BEL" in notice.body and "went past" not in notice.body, notice.body
    assert "A PIC - BEL" in stored(judge, "F1901R", "FRANCE")
    sent = judge.send(GM, "MASTER st masterpw\nPROCESS")
    [report] = [m for m in sent if m.rcpt == addr("FRANCE") and "Spring 1902" in m.subject]
    assert "A(Bel)" in report.body, report.body


def test_stab_next_season_mail_of_a_block_taken_names_the_phase_it_was_sent_for(tmp_path):
    """Reviewer of the commit above: the mail that tells France its block for S1902M was
    used, the game waiting in F1901R for that season's orders, said 'your orders sent ahead
    for F1901R' and 'Fall 1901 Retreat (F1901R) has begun, and your orders sent ahead for it
    were used': France sent none for F1901R. It names the phase of France's PHASE line,
    and the phase that took it."""
    _, sent = _stab_next_season_to_the_retreats(tmp_path, ["PHASE Spring 1902", "A PIC - BEL"])
    [notice] = ahead_notices(sent, "FRANCE")
    assert notice.subject.endswith("your orders sent ahead for S1902M"), notice.subject
    assert ("Game st: Fall 1901 Retreat (F1901R) has begun, which takes the orders of "
            "Spring 1902 Movement (S1902M), and your orders sent ahead for Spring 1902 "
            "Movement (S1902M) were used.") in notice.flat, notice.body


def test_stab_with_orders_a_retreat_sent_ahead_is_told_how_this_game_takes_retreats(tmp_path):
    """attack leftover: with RETREATS WITH_ORDERS a retreat phase takes no orders of its own
    (the conditional retreats come with the movement orders), so a block sent ahead for it is
    read with the movement orders when that phase begins; its retreat was refused with
    'retreats are made in the retreat phase', which is NEXT_SEASON's way, not this game's,
    and a retreat written as a move (A BUR - GAS) became a movement order, replacing the one
    sent for the Autumn. Each such line is refused saying how to write it in this game, as a
    retreat written in a movement phase's orders is told."""
    from mailkit import GM, InProcessJudge
    from stabkit import PLACEMENT
    from stabkit import SPRING as STAB_SPRING

    judge = InProcessJudge(tmp_path)

    def spring(game: str, ahead: list[str]) -> list:
        """A game played to F1901M, France's Spring mail carrying ``ahead``: the mail made."""
        judge.send(GM, f"CREATE {game} masterpw VARIANT stab RETREATS WITH_ORDERS\nOPEN")
        for p in POWERS:
            judge.send(addr(p), f"SIGNON {p} {game} pw-{p.lower()}")
        judge.send(GM, f"MASTER {game} masterpw\nSTART")
        sent = []
        for p in ["FRANCE"] + [p for p in POWERS if p != "FRANCE"]:
            lines = PLACEMENT[p] + STAB_SPRING[p] + (ahead if p == "FRANCE" else [])
            sent += judge.send(addr(p), f"SIGNON {p} {game} pw-{p.lower()}\n"
                               + "\n".join(lines))
        assert judge.store.game(game)["phase"] == "F1901M"
        return sent

    [notice] = ahead_notices(spring("st", ["PHASE F1901R", "A BUR R GAS", "A BUR D"]),
                             "FRANCE")
    text = " ".join(notice.body.split())
    assert "retreats are made in the retreat phase" not in text, notice.body
    assert ("in this game a retreat is sent with the movement orders, as a conditional "
            "retreat: IF DISLODGED A BUR R GAS") in text, notice.body
    assert "IF DISLODGED A BUR D" in text, notice.body
    # the same line among the movement orders is told the same
    reply = only_reply(judge.send(addr("FRANCE"), "SIGNON FRANCE st pw-france\nA BUR R GAS"),
                       addr("FRANCE"))
    assert ("in this game a retreat is sent with the movement orders, as a conditional "
            "retreat: IF DISLODGED A BUR R GAS") in reply.flat, reply.body

    # a retreat written as a move, in a block for the retreat phase, is not a movement order
    [notice] = ahead_notices(spring("st2", ["PHASE F1901M", "A BUR H", "PHASE F1901R",
                                            "A BUR - GAS", "IF DISLODGED A PIC R BRE",
                                            "A MAR H"]), "FRANCE")
    text = " ".join(notice.body.split())
    assert "These now stand as your orders for the phase: A BUR H IF DISLODGED A PIC R BRE " \
        "These lines were left out:" in text, notice.body
    assert ("A BUR - GAS <-- in this game a retreat is sent with the movement orders, as a "
            "conditional retreat: IF DISLODGED A BUR R GAS") in text, notice.body
    assert "A MAR H <-- in this game the retreat phase takes no orders of its own" in text


def test_stab_with_orders_does_not_read_a_retreat_block_as_movement_orders(tmp_path):
    """review33 of 09e51d4: GameFlow.sent_with gave Stab!'s folded phases in both retreat
    modes; with RETREATS WITH_ORDERS that is the movement's own retreat phase, whose
    retreats come as IF DISLODGED lines with the movement orders, so a block sent ahead for
    F1901R ('A BUR - GAS', the retreat France meant if dislodged) was read with the F1901M
    block as one mail's movement orders: A BUR - GAS replaced A BUR H, a move France never
    ordered. The block is not taken as the movement's orders."""
    from mailkit import GM, InProcessJudge
    from stabkit import PLACEMENT
    from stabkit import SPRING as STAB_SPRING

    judge = InProcessJudge(tmp_path)
    judge.send(GM, "CREATE st masterpw VARIANT stab RETREATS WITH_ORDERS\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}")
    judge.send(GM, "MASTER st masterpw\nSTART")
    for p in ["FRANCE"] + [p for p in POWERS if p != "FRANCE"]:
        ahead = ["PHASE F1901M", "A BUR H", "PHASE F1901R", "A BUR - GAS"] \
            if p == "FRANCE" else []
        judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}\n" +
                   "\n".join(PLACEMENT[p] + STAB_SPRING[p] + ahead))
    assert judge.store.game("st")["phase"] == "F1901M"
    assert stored(judge, "F1901M", "FRANCE") == ["A BUR H"]


def test_stab_with_orders_a_retreat_block_is_told_how_this_game_takes_retreats_at_once(
        tmp_path):
    """Reviewer of 45fca02: with RETREATS WITH_ORDERS a block sent ahead for a retreat phase
    was kept as sent, its lines shown as pending orders; only when the movement phase began
    were its lines other than IF DISLODGED ones left out, saying how this game takes
    retreats, too late to send them again. The reply to the mail that sent it says so beside
    each such line, and every later reply listing it; the IF DISLODGED line stands."""
    from mailkit import GM, InProcessJudge
    from stabkit import PLACEMENT
    from stabkit import SPRING as STAB_SPRING

    judge = InProcessJudge(tmp_path)
    judge.send(GM, "CREATE st masterpw VARIANT stab RETREATS WITH_ORDERS\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} st pw-{p.lower()}")
    judge.send(GM, "MASTER st masterpw\nSTART")
    france = addr("FRANCE")
    ahead = ["PHASE F1901R", "A BUR R GAS", "A MAR H", "IF DISLODGED A PIC R BRE"]
    reply = only_reply(judge.send(france, "SIGNON FRANCE st pw-france\n" + "\n".join(
        PLACEMENT["FRANCE"] + STAB_SPRING["FRANCE"] + ahead)), france)
    pending = " ".join(reply.body.split("Pending orders for France")[1].split())
    assert ("A BUR R GAS <-- ERROR: in this game a retreat is sent with the movement orders, "
            "as a conditional retreat: IF DISLODGED A BUR R GAS") in pending, reply.body
    assert ("A MAR H <-- ERROR: in this game the retreat phase takes no orders of its own"
            in pending), reply.body
    assert "IF DISLODGED A PIC R BRE <--" not in pending, reply.body
    # a later reply lists it the same
    reply = only_reply(judge.send(france, "SIGNON FRANCE st pw-france\nLIST"), france)
    assert ("A BUR R GAS <-- ERROR: in this game a retreat is sent with the movement orders"
            in reply.flat), reply.body
