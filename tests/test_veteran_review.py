"""Review of issue 24 from outside: a veteran's habits, a careless player's mail and a new
player who follows the judge's examples literally. Each test sends real mail to the judge in
process (tests/mailkit.py) and asserts what the player reads and what the judge holds."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from mailkit import (
    GERMANY,
    GM,
    InProcessJudge,
    addr,
    judge_with_game_g1,  # noqa: F401 (the fixture judge)
    stored_lines,
)
from mailkit import GERMANY_ORDERS as ORDERS
from mailkit import GERMANY_SIGNON as SIGNON
from mailkit import GERMANY_STORED as STORED
from mailkit import reply_to as send


def stored(judge, power="GERMANY"):
    """Each stored line's order (None for a line in error)."""
    return [x.get("order") for x in stored_lines(judge, power)]


# njudge's data/syntax: "Multiple orders can be entered on one line by separating them with
# commas or semicolons." A veteran's one-line orders were one error, and all his units held.
def test_orders_separated_by_commas_or_semicolons_are_each_read(judge):
    r = send(judge, SIGNON + "A Ber-Kie, A Mun-Ruh; F Kie-Den")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert stored(judge) == STORED
    assert "Every unit has an order." in r.flat


# A mail whose every order line is wrong (a typo in a place, a unit the power does not have)
# replaced a complete stored set with nothing: every unit would have held.
@pytest.mark.parametrize("bad", ["A MUN - Tryol", "A PAR - BUR", "A MUN - Tryol\nF BER - BAL"])
def test_a_mail_whose_every_order_is_wrong_keeps_the_stored_orders(judge, bad):
    send(judge, SIGNON + ORDERS)
    r = send(judge, SIGNON + bad)
    assert r.subject.startswith("[ERROR]")
    assert stored(judge) == STORED
    for line in bad.splitlines():
        assert f"> {line}" in r.body, r.body
    assert "your orders stored before stand" in r.flat, r.body
    assert "Every unit has an order." in r.flat and "(they hold)" not in r.flat


def test_a_mail_with_one_good_order_still_replaces_the_stored_orders(judge):
    send(judge, SIGNON + ORDERS)
    r = send(judge, SIGNON + "A MUN - Tryol\nA BER - SIL")
    assert "unknown place 'Tryol'" in r.flat
    # the set is replaced (F KIE's order was not sent again), but the line in error keeps
    # its unit's earlier order (test_veteran_revisions.py)
    assert stored(judge) == [None, "A MUN - RUH", "A BER - SIL"]


# SET LAYOUT (item 13) in a game whose variant has no classic layout (Stab!, Chess Dip) said
# "now come in the classic judges' layout", and the reports kept coming in the readable one.
@pytest.mark.parametrize(("variant", "power"), [("stab", "FRANCE"), ("chessdip", "ENGLAND")])
def test_set_layout_classic_is_refused_where_the_game_has_no_classic_layout(tmp_path, variant,
                                                                          power):
    judge = InProcessJudge(tmp_path)
    judge.send(GM, f"CREATE gs masterpw VARIANT {variant}\nOPEN")
    player = addr(power)
    judge.send(player, f"SIGNON {power} gs pw-x")
    for who, body in ((GM, "MASTER gs masterpw\nSET LAYOUT CLASSIC"),
                      (player, f"SIGNON {power} gs pw-x\nSET LAYOUT BOTH")):
        r = send(judge, body, who)
        assert r.subject.startswith("[ERROR]"), r.body
        assert "has no classic layout" in r.flat and "now come in" not in r.flat, r.body
    r = send(judge, f"SIGNON {power} gs pw-x\nSET LAYOUT READABLE", player)
    assert not r.subject.startswith("[ERROR]"), r.body


# A new player follows HELP literally: its date examples (DEADLINE, SET ABSENCE) were fixed
# dates, already past (2026-11-22), so the master copying one was refused.
def test_helps_date_examples_are_still_to_come_and_work(judge):
    r = send(judge, "HELP", "new@players.test")
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    deadline = re.search(r"time such as (\d{4}-\d\d-\d\d 18:00) \(the game's zone\)", r.flat)
    absence = re.search(r"SET ABSENCE <from> TO <to> .*?\(dates: (\d{4}-\d\d-\d\d)\)", r.flat)
    assert deadline and absence, r.body
    assert deadline.group(1)[:10] > today and absence.group(1) > today
    r = send(judge, f"MASTER g1 masterpw\nDEADLINE {deadline.group(1)}", GM)
    assert not r.subject.startswith("[ERROR]"), r.body
    r = send(judge, SIGNON + "SET ABSENCE", GERMANY)
    shown = re.search(r"SET ABSENCE (\d{4}-\d\d-\d\d) TO (\d{4}-\d\d-\d\d)", r.flat)
    assert shown and shown.group(1) > today, r.body
    r = send(judge, SIGNON + f"SET ABSENCE {shown.group(1)} TO {shown.group(2)}", GERMANY)
    assert not r.subject.startswith("[ERROR]"), r.body


# The refusal of a line whose first word is unknown read "send HELP for the commands This
# line changed nothing" (no full stop between the two sentences).
def test_a_line_of_no_command_reads_as_two_sentences(judge):
    r = send(judge, SIGNON + "A BER - KIE\nHallo zusammen\nA MUN - RUH")
    assert "send HELP for the commands. This line changed nothing" in r.flat, r.body


# A short friendly line under correct orders ("Good luck all!") made the mail [ERROR]; "Thanks!"
# and the sentences of six words and more were already skipped (item 4).
@pytest.mark.parametrize("tail", ["Good luck all!", "See you in Munich!", "Have a nice weekend!"])
def test_a_short_exclamation_under_the_orders_is_skipped_and_said_so(judge, tail):
    r = send(judge, SIGNON + ORDERS + tail)
    assert not r.subject.startswith("[ERROR]") and "ERROR" not in r.body, r.body
    assert f"Skipped '{tail}'" in r.flat, r.body
    assert stored(judge) == STORED


def test_an_order_ending_with_an_exclamation_mark_is_still_an_order(judge):
    r = send(judge, SIGNON + "A BER - KIE\nA MUN - RUH\nF Kiel to Denmark!")
    assert stored(judge) == STORED, r.body
