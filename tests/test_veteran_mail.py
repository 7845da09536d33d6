"""A player's mail as a veteran of the classic judges writes it (issue 24): a mistyped
command, an IF without a PHASE line, a friendly line under the orders, njudge's command
words. Each test sends real mail to the judge in process and reads its reply."""

from __future__ import annotations

import pytest
from mailkit import (
    GERMANY,
    GM,
    judge_with_game_g1,  # noqa: F401 (the fixture judge)
    standing_orders,
    stored_lines,
)
from mailkit import GERMANY_ORDERS as ORDERS
from mailkit import GERMANY_SIGNON as SIGNON
from mailkit import reply_to as send


def stored(judge, power="GERMANY"):
    """The orders that stand for ``power``, and its lines as stored."""
    return standing_orders(judge, power), stored_lines(judge, power)


# ------------------------------------------------- 1: a mistyped command
def test_a_mistyped_command_is_an_error_and_keeps_the_stored_orders(judge):
    send(judge, SIGNON + ORDERS)
    r = send(judge, SIGNON + "STAUTS")
    assert r.subject.startswith("[ERROR]")
    assert "did you mean STATUS?" in r.flat
    assert "unknown place" not in r.flat
    orders, lines = stored(judge)
    assert orders == ["A BER - KIE", "A MUN - RUH", "F KIE - DEN"]
    assert all("STAUTS" not in x["text"] for x in lines)
    assert "Every unit has an order." in r.flat


def test_a_stray_word_among_orders_is_refused_alone(judge):
    r = send(judge, SIGNON + "A BER - KIE\nSTAUTS\nA MUN - RUH\nF KIE - DEN")
    assert "did you mean STATUS?" in r.flat
    orders, lines = stored(judge)
    assert orders == ["A BER - KIE", "A MUN - RUH", "F KIE - DEN"]
    assert len(lines) == 3


@pytest.mark.parametrize(("line", "hint"), [
    ("A MUN - Tryol", "did you mean Tyrolia?"),
    ("F KIE - HOL\nA MUN - BLE", "did you mean BEL?"),
])
def test_a_near_miss_for_a_place_is_suggested(judge, line, hint):
    r = send(judge, SIGNON + line)
    assert hint in r.flat, r.body


# ------------------------------------------- 2: IF without a PHASE line
def test_an_if_without_a_phase_line_guards_its_orders_in_the_current_phase(judge):
    send(judge, SIGNON + ORDERS)
    r = send(judge, SIGNON + "IF Russian Prussia\nA BER - SIL\nENDIF")
    assert "unknown place" not in r.flat
    assert "IF Russian Prussia <-- false" in r.flat
    orders, _ = stored(judge)
    assert "A BER - SIL" not in orders
    r = send(judge, SIGNON + "IF Russian Warsaw\nA BER - SIL\nELSE\nA BER - KIE\nENDIF\n"
                             "A MUN - RUH")
    assert "IF Russian Warsaw <-- true" in r.flat and not r.subject.startswith("[ERROR]")
    orders, _ = stored(judge)
    assert orders == ["A BER - SIL", "A MUN - RUH"]


# ------------------------------------------- 4: a friendly line under the orders
@pytest.mark.parametrize("tail", [
    "Cheers, Anna",
    "Bruno",
    "Thanks, and good luck to everyone this season, it is going to be a long one.",
    "Thanks, and good luck to everyone this season, it is going to be a long one.\n"
    "Cheers,\nBruno",
])
def test_a_friendly_line_under_the_orders_is_skipped_and_said_so(judge, tail):
    r = send(judge, SIGNON + ORDERS + "\n" + tail)
    assert not r.subject.startswith("[ERROR]") and "ERROR" not in r.body, r.body
    assert "Skipped '" in r.flat and "like a sign-off" in r.flat
    orders, lines = stored(judge)
    assert orders == ["A BER - KIE", "A MUN - RUH", "F KIE - DEN"] and len(lines) == 3


def test_a_last_line_that_starts_with_a_place_is_still_read_as_an_order(judge):
    r = send(judge, SIGNON + "A BER - KIE\nF KIE - DEN\nMunich to Ruhr, then on to Belgium next.")
    assert "Skipped" not in r.flat and r.subject.startswith("[ERROR]")


# ------------------------------------------- 3: SET WAIT inside a PHASE block
def waits(judge):
    return sorted((r["phase"], r["power"]) for r in judge.store.all("SELECT * FROM waits"))


def test_set_wait_inside_a_phase_block_waits_in_that_phase(judge):
    r = send(judge, SIGNON + ORDERS + "PHASE Fall 1901 Movement\nA KIE - HOL\nSET WAIT")
    assert "Germany waits in Fall 1901 Movement (F1901M)" in r.flat, r.body
    assert waits(judge) == [("F1901M", "GERMANY")]
    r = send(judge, SIGNON + "PHASE F1901M\nSET NOWAIT")
    assert waits(judge) == []
    # a block holding only SET NOWAIT withdraws none of the orders waiting for its phase
    assert "A KIE - HOL" in r.body.split("Pending orders")[1]
    # outside a block, SET WAIT is for the phase being played, as ever
    send(judge, SIGNON + "SET WAIT")
    assert waits(judge) == [("S1901M", "GERMANY")]


def test_endif_at_the_end_of_the_mail_is_no_sign_off(judge):
    r = send(judge, SIGNON + ORDERS + "PHASE F1901M\nIF A MUN\nA MUN - TYR\nENDIF")
    assert "Skipped" not in r.flat and not r.subject.startswith("[ERROR]"), r.body
    [row] = judge.store.pending_blocks(1, "GERMANY")
    assert row["lines"] == ["PHASE F1901M", "IF A MUN", "A MUN - TYR", "ENDIF"]


# ------------------------------------------- 5: one mail, several orders for a unit
def test_a_line_a_later_order_replaced_is_marked(judge):
    r = send(judge, SIGNON + "A BER - KIE\nA BER - MUN\nA MUN - RUH\nF KIE - DEN")
    # a note, not an error (test_veteran_revisions.py): the player changed their mind
    assert "A BER - KIE <-- replaced by the later order A BER - MUN" in r.flat
    orders, _ = stored(judge)
    assert orders == ["A BER - MUN", "A MUN - RUH", "F KIE - DEN"]


def test_a_mail_without_orders_is_no_error_for_the_errors_of_an_earlier_one(judge):
    r = send(judge, SIGNON + "A BER - KIE\nA MUN - XYZ\nF KIE - DEN")
    assert r.subject.startswith("[ERROR]")
    r = send(judge, SIGNON.strip())
    assert not r.subject.startswith("[ERROR]") and "ERROR" not in r.body, r.body
    assert "A MUN - XYZ <-- not used: unknown place 'XYZ'" in r.flat


def test_status_in_the_mail_with_the_orders_counts_them(judge):
    r = send(judge, SIGNON + "STATUS\n" + ORDERS)
    assert "Germany player 3 centres, 3 units, orders complete" in r.flat, r.body
    assert r.flat.index("> STATUS") < r.flat.index("Orders for Germany")


# ------------------------------------------- 6: njudge's command words
def test_njudge_master_words_are_read_as_ours(judge):
    before = judge.store.game("g1")["deadline"]
    r = send(judge, "SIGNON Mg1 masterpw\nSET DEADLINE 3 days\nBECOME Germany\nA BER - KIE",
             GM)
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "masterpw" not in r.body and "> SIGNON Mg1 ****" in r.body
    assert "You act as Germany in game g1" in r.flat
    orders, _ = stored(judge)
    assert orders == ["A BER - KIE"]
    assert judge.store.game("g1")["deadline"] > before
    r = send(judge, "WHOGAME g1 FULL", "someone@players.test")
    assert not r.subject.startswith("[ERROR]"), r.body


@pytest.mark.parametrize(("body", "hint"), [
    ("GET info", "send HELP"),
    (SIGNON + "RESIGN", "ask the game master"),
    ("MASTER g1 masterpw\nRESIGN Germany", None),
])
def test_njudge_words_without_an_equal_name_ours(judge, body, hint):
    to = GM if body.startswith("MASTER") else GERMANY
    r = send(judge, body, to)
    if hint is None:  # the master's RESIGN <power> is EJECT
        assert not r.subject.startswith("[ERROR]"), r.body
        assert judge.store.player(judge.store.game("g1")["id"], "GERMANY") is None
    else:
        assert r.subject.startswith("[ERROR]") and hint in r.flat, r.body
        assert "unknown place" not in r.flat


# ------------------------------------------- 7: PHASE blocks as njudge writes them
@pytest.mark.parametrize("header", ["PHASE F1901B", "PHASE Fall 1901 Build"])
def test_njudges_build_phase_code_is_the_winter_adjustment(judge, header):
    r = send(judge, SIGNON + f"{header}\nBUILD A BER")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "Winter 1901 Adjustment (W1901A):" in r.body
