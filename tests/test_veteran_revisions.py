"""A player revising orders by mail, as the review of issue 24 found it on main: a typo in one
line of a revision lost that unit's order, a repeated order made the mail [ERROR], a support
naming the supported unit's nationality was refused, a lone "Best" under the orders was asked
"did you mean Brest?". Each test sends real mail to the judge in process (tests/mailkit.py)
and asserts what the player reads and what the judge holds."""

from __future__ import annotations

import pytest
from mailkit import GERMANY_ORDERS as ORDERS
from mailkit import GERMANY_SIGNON as SIGNON
from mailkit import GERMANY_STORED as STORED
from mailkit import judge_with_game_g1  # noqa: F401 (the fixture judge)
from mailkit import reply_to as send
from mailkit import standing_orders as stored

from judge.engine.errors import OrderSyntaxError
from judge.engine.parse import parse_order
from judge.variants import get_variant


# ------------------------------------------- 1: a typo in one line of a revision
# A full set stored, then a revision with a typo for A MUN and a new order for F KIE: A MUN
# held, its earlier order lost, though the player never meant to take it back.
def test_a_typo_in_a_revision_keeps_that_units_earlier_order(judge):
    send(judge, SIGNON + "A BER - KIE\nA MUN - TYR\nF KIE - HOL")
    r = send(judge, SIGNON + "A MUN - Tryol\nF KIE - DEN")
    assert r.subject.startswith("[ERROR]"), r.body  # the typo is still an error of the mail
    assert "A MUN - Tryol <-- ERROR: unknown place 'Tryol' (did you mean Tyrolia?); " \
           "A MUN keeps its earlier order A MUN - TYR" in r.flat, r.body
    # the mail's orders replace the set (A BER's order was not sent again) but for A MUN
    assert stored(judge) == ["A MUN - TYR", "F KIE - DEN"]
    assert "Units without orders: A BER (they hold)." in r.flat, r.body


def test_a_unit_ordered_again_in_the_mail_does_not_keep_its_earlier_order(judge):
    send(judge, SIGNON + ORDERS)
    r = send(judge, SIGNON + "A MUN - Tryol\nA MUN - BOH\nA BER - KIE\nF KIE - DEN")
    assert "keeps its earlier order" not in r.flat, r.body
    assert stored(judge) == ["A MUN - BOH", "A BER - KIE", "F KIE - DEN"]


@pytest.mark.parametrize("bad", ["A PAR - Picardie", "A SIL - Boh", "F Mnu - KIE"])
def test_a_line_in_error_for_no_unit_of_the_power_keeps_nothing(judge, bad):
    send(judge, SIGNON + ORDERS)
    r = send(judge, SIGNON + bad + "\nA BER - KIE")
    assert "keeps its earlier order" not in r.flat, r.body
    assert stored(judge) == ["A BER - KIE"]


def test_a_kept_order_is_kept_again_by_the_next_revision(judge):
    send(judge, SIGNON + ORDERS)
    send(judge, SIGNON + "A MUN - Tryol\nF KIE - HOL\nA BER - KIE")
    r = send(judge, SIGNON + "A MUN - Tyrl\nF KIE - DEN\nA BER - KIE")
    assert "A MUN keeps its earlier order A MUN - RUH" in r.flat, r.body
    assert sorted(stored(judge)) == sorted(STORED)
    r = send(judge, SIGNON + "STATUS")  # shown again: the kept order stands, no error
    assert "Every unit has an order." in r.flat and not r.subject.startswith("[ERROR]"), r.body


def test_the_kept_note_is_said_once_in_the_reply_to_the_mail_with_the_typo(judge):
    send(judge, SIGNON + "A BER - KIE\nA MUN - TYR\nF KIE - HOL")
    r = send(judge, SIGNON + "A MUN - Tryol\nF KIE - DEN")
    assert "A MUN - TYR <-- your earlier order, kept" in r.flat, r.body
    # later the kept order is an order like any other: the note was about that mail
    r = send(judge, SIGNON + "STATUS")
    assert "your earlier order, kept" not in r.flat, r.body
    assert "\n  A MUN - TYR\n" in r.body, r.body
    r = send(judge, SIGNON + "F KIE - HOL")  # a revision with no typo: no note either
    assert "kept" not in r.flat, r.body


def test_a_revision_with_a_typo_reads_each_of_its_lines_once(judge, monkeypatch):
    """Keeping an earlier order reads the mail's lines once (it read them three times: to
    find the lines in error, with the earlier orders before them, and beside them)."""
    from collections import Counter

    from judge.engine.variant import Variant
    from judge.games.game import submit_orders

    send(judge, SIGNON + "A BER - KIE\nA MUN - TYR\nF KIE - HOL")
    reads: Counter[str] = Counter()
    read_order = Variant.read_order

    def counted(self, position, power, text):
        reads[text] += 1
        return read_order(self, position, power, text)

    monkeypatch.setattr(Variant, "read_order", counted)
    status = submit_orders(judge.store, judge.store.game("g1"), "GERMANY",
                           ["A MUN - Tryol", "F KIE - DEN"], None)
    assert [x["order"] for x in status.lines] == [None, "A MUN - TYR", "F KIE - DEN"]
    assert reads["A MUN - Tryol"] == 1 and reads["F KIE - DEN"] == 1, reads


# ------------------------------------------- 2: a line a later order replaced
def test_a_repeated_identical_order_is_no_error(judge):
    r = send(judge, SIGNON + "A BER - KIE\nA BER - KIE\nA MUN - RUH\nF KIE - DEN")
    assert not r.subject.startswith("[ERROR]") and "ERROR" not in r.body, r.body
    assert "replaced" not in r.flat, r.body
    assert stored(judge) == STORED


def test_a_line_a_later_order_replaced_is_a_note_not_an_error(judge):
    r = send(judge, SIGNON + "A BER - KIE\nA BER - MUN\nA MUN - RUH\nF KIE - DEN")
    assert not r.subject.startswith("[ERROR]") and "ERROR" not in r.body, r.body
    assert "A BER - KIE <-- replaced by the later order A BER - MUN" in r.flat, r.body
    assert stored(judge) == ["A BER - MUN", "A MUN - RUH", "F KIE - DEN"]


# ------------------------------------------- 3: nationality in a support or a convoy
@pytest.mark.parametrize(("written", "plain"), [
    ("A MUN S French A Par-Bur", "A MUN S A PAR - BUR"),
    ("A Mun S France A Par-Bur", "A MUN S A PAR - BUR"),
    ("A MUN S French Par - Bur", "A MUN S PAR - BUR"),
    ("A MUN supports the French army in Paris", None),  # prose stays an error
    ("F NTH C English A LON - NWY", "F NTH C A LON - NWY"),
    ("F NTH C England: A LON - NWY", "F NTH C A LON - NWY"),
    ("F NTH S Russian F StP/nc", "F NTH S F STP/NC"),
    ("F LON S English Channel", "F LON S ENG"),  # a place that starts like an adjective
])
def test_a_power_before_the_supported_or_convoyed_unit_is_read(written, plain):
    board = get_variant("standard").board
    if plain is None:
        with pytest.raises(OrderSyntaxError):
            parse_order(board, written)
        return
    assert parse_order(board, written) == parse_order(board, plain)


def test_a_support_naming_the_units_nationality_is_stored(judge):
    r = send(judge, SIGNON + "A MUN S French A Par-Bur\nA BER - KIE\nF KIE - DEN")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert stored(judge) == ["A MUN S A PAR - BUR", "A BER - KIE", "F KIE - DEN"]


# njudge refuses a support or convoy whose unit is not as it names it (po_get.c reads the
# unit's type and place and the order is an error when they do not match); the power written
# before it was read and never checked: "S English A PAR" was taken for the French army.
@pytest.mark.parametrize(("line", "reason"), [
    ("A MUN S English A PAR - BUR", "A PAR is France's, not England's"),
    ("A MUN S Russia A PAR", "A PAR is France's, not Russia's"),
    ("A MUN S French A BER", "A BER is yours, not France's"),
])
def test_a_support_naming_the_wrong_power_is_an_error_line(judge, line, reason):
    r = send(judge, SIGNON + line + "\nA BER - KIE\nF KIE - DEN")
    assert r.subject.startswith("[ERROR]"), r.body
    assert f"{line} <-- ERROR: {reason}" in r.flat, r.body
    assert stored(judge) == ["A BER - KIE", "F KIE - DEN"]


def test_a_convoy_naming_the_wrong_power_is_refused_and_the_right_one_read():
    from judge.engine.errors import OrderError
    from judge.engine.orders import Unit
    from judge.engine.position import Phase, Position

    variant = get_variant("standard")
    pos = Position("standard", Phase("S", 1901, "M"),
                   [Unit("ENGLAND", "F", "NTH"), Unit("FRANCE", "A", "LON")],
                   {"ENGLAND": {"LON"}, "FRANCE": {"PAR"}})
    with pytest.raises(OrderError, match="A LON is France's, not England's"):
        variant.read_order(pos, "ENGLAND", "F NTH C English A LON - NWY")
    read = variant.read_order(pos, "ENGLAND", "F NTH C French A LON - NWY")
    assert str(read) == "F NTH C A LON - NWY"
    # what is stored is the order itself: the word written is checked, not kept
    assert variant.order_to_data(read) == variant.order_to_data(
        variant.read_order(pos, "ENGLAND", "F NTH C A LON - NWY"))


def test_stab_a_power_named_before_a_hidden_unit_is_neither_confirmed_nor_denied():
    """Stab! hides the other powers' units: a support naming the supported unit's power
    reads the same whoever owns the unit there, or when none stands there (the support is
    void at adjudication, never told); only the player's own units are checked."""
    from stabkit import VARIANT

    from judge.engine.orders import Unit
    from judge.engine.position import Phase, Position
    from judge.games.game import read_order_lines

    centres = {"GERMANY": {"MUN", "BER"}, "FRANCE": {"PAR", "BRE", "MAR"}}
    lines = ["A MUN S French A BUR", "A BER S Italian A MUN - SIL", "A KIE S English A RUH"]
    said = []
    for owner in ("FRANCE", "ITALY", "ENGLAND", None):
        units = [Unit("GERMANY", "A", "MUN"), Unit("GERMANY", "A", "BER"),
                 Unit("GERMANY", "A", "KIE")]
        if owner:
            units += [Unit(owner, "A", "BUR"), Unit(owner, "A", "RUH")]
        pos = Position("stab", Phase("F", 1901, "M"), units, centres,
                       extra={"retreats": "with_orders"})
        said.append([(x["order"], x["error"]) for x in
                     read_order_lines(VARIANT, pos, "GERMANY", lines)])
        if owner:  # adjudicated on the whole board (an order stored unchecked while the
            # units are being placed): whose unit it is is not told there either
            order = parse_order(VARIANT.board, "A MUN S French A BUR")
            assert str(VARIANT.rules.check(pos, "GERMANY", order)) == "A MUN S A BUR"
    assert all(x == said[0] for x in said), said
    assert said[0][0] == ("A MUN S A BUR", None)
    # a unit of the player's own, named as another power's: that the player knows
    assert said[0][1] == (None, "A MUN is yours, not Italy's")


def test_a_word_for_no_power_before_the_supported_unit_says_how_to_write_it():
    # a Gunboat pseudonym is no power's name: the refusal is the same for any such word, so
    # it confirms nobody's identity, and says what would be read
    board = get_variant("standard").board
    with pytest.raises(OrderSyntaxError) as exc:
        parse_order(board, "A MUN S Gherkin A PAR - BUR")
    assert "unknown place 'Gherkin'" in str(exc.value)
    assert "a unit's power is written as its name or adjective, such as Austria, or left out" \
        in str(exc.value)


# ------------------------------------------- 4: a lone closing word under the orders
@pytest.mark.parametrize("tail", ["Best\nA.", "Cheers\nJ.", "Best\nAnna (Germany)",
                                  "Thanks\n+49 30 1234567", "Regards"])
def test_a_closing_word_after_the_last_order_is_a_sign_off(judge, tail):
    r = send(judge, SIGNON + ORDERS + tail)
    first = tail.splitlines()[0]
    assert f"Skipped '{first}'" in r.flat, r.body
    assert "Brest" not in r.flat, r.body
    assert stored(judge) == STORED


def test_a_closing_word_between_orders_is_still_read_as_an_order_line(judge):
    r = send(judge, SIGNON + "A BER - KIE\nBest\nA MUN - RUH\nF KIE - DEN")
    assert "Skipped" not in r.flat and "did you mean Brest?" in r.flat, r.body
    assert stored(judge) == STORED


def test_a_place_name_after_the_orders_is_still_an_order(judge):
    r = send(judge, SIGNON + "A BER - KIE\nF KIE - DEN\nMunich")
    assert "Skipped" not in r.flat, r.body
    assert stored(judge) == ["A BER - KIE", "F KIE - DEN", "A MUN H"]


# ------------------------------------------- 1, in a variant that stacks units
@pytest.mark.parametrize(("revision", "stands"), [
    # the whole stack keeps its earlier order
    (["2A WAR - Ukrx"], ["2A WAR - UKR"]),
    # one army of the stack ordered anew: the other keeps its share of the earlier order,
    # as Stack 'em counts orders per unit (Variant.replaced_orders)
    (["A WAR - SIL", "2A WAR - Ukrx"], ["A WAR - UKR", "A WAR - SIL"]),
    # both armies ordered anew: nothing is kept
    (["2A WAR - SIL", "A WAR - Ukrx"], ["2A WAR - SIL"]),
])
def test_stackem_a_line_in_error_keeps_what_the_stack_had(revision, stands):
    from judge.games.game import keep_earlier_orders, read_order_lines

    stackem = get_variant("stackem")
    pos = stackem.read_position({"variant": "stackem", "phase": "S1901M",
                                 "units": {"RUSSIA": ["2A WAR", "A MOS"]}})
    earlier = read_order_lines(stackem, pos, "RUSSIA", ["2A WAR - UKR", "A MOS H"])
    lines = keep_earlier_orders(stackem, pos, "RUSSIA", revision,
                                read_order_lines(stackem, pos, "RUSSIA", revision), earlier)
    assert [x["order"] for x in lines if x["order"]] == stands
    # what is stored is what the adjudicator obeys, however it is listed
    kept = [("RUSSIA", x["text"]) for x in lines if x["order"]]
    alone = stackem.adjudicate_lines(pos, kept).results
    assert not [r for r in alone if "already has an order" in r.reason], alone


def test_stab_what_a_line_in_error_keeps_depends_on_no_other_powers_unit():
    """Stab! hides the other powers' units: what a line in error keeps, and what the reply
    says of it, are the same with and without them on the board (only the power's own
    stored orders are looked at)."""
    from stabkit import VARIANT

    from judge.engine.orders import Unit
    from judge.engine.position import Phase, Position
    from judge.games.game import keep_earlier_orders, read_order_lines

    units = [Unit("GERMANY", "A", "MUN"), Unit("GERMANY", "A", "BER"),
             Unit("FRANCE", "A", "BUR")]
    centres = {"GERMANY": {"MUN", "BER"}, "FRANCE": {"PAR", "BRE", "MAR"}}
    pos = Position("stab", Phase("F", 1901, "M"), units, centres,
                   extra={"retreats": "with_orders"})
    alone = Position("stab", pos.phase, units[:2], centres, extra=dict(pos.extra))
    revision = ["A MUN - Tryol", "A BUR - Pikardy", "A BER - KIE"]
    said = []
    for board in (pos, alone):
        earlier = read_order_lines(VARIANT, board, "GERMANY", ["A MUN - TYR", "A BER H"])
        said.append(keep_earlier_orders(VARIANT, board, "GERMANY", revision,
                                        read_order_lines(VARIANT, board, "GERMANY", revision),
                                        earlier))
    assert said[0] == said[1]
    assert [x["order"] for x in said[0] if x["order"]] == ["A MUN - TYR", "A BER - KIE"]
    assert "A MUN keeps its earlier order A MUN - TYR" in said[0][0]["error"]
    assert "keeps" not in said[0][2]["error"]
