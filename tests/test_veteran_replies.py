"""Replies a veteran of the classic judges trips over (issue 24 item 12): a phase length for a
phase the variant does not have, HELP that never names the variants, MAP <phase> read as a
game's name, and a refused deadline whose example date is already past."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from mailkit import InProcessJudge, addr, new_game

from judge.variants import variant_names

GM = "gm@players.test"


def test_chess_dip_announces_no_retreat_phase_length(tmp_path):
    judge = InProcessJudge(tmp_path)
    created = judge.send(GM, "CREATE cd1 masterpw VARIANT chessdip")[0].body
    assert "Phase lengths: movement 2 days, adjustment 1 day." in " ".join(created.split())
    assert "retreat" not in created
    assert "retreat" not in judge.send("someone@x.test", "LIST cd1")[0].body
    reply = judge.send(GM, "MASTER cd1 masterpw\nDEADLINES 36h 12h 12h")[0].body
    assert "Phase lengths: movement 1 day 12 hours, adjustment 12 hours." in reply
    refused = judge.send(GM, "MASTER cd1 masterpw\nSET RETREAT 2d")[0].body
    assert "Chess Dip has no retreat phase" in refused, refused
    # the standard game keeps its three
    created = judge.send(GM, "CREATE st1 masterpw")[0].body
    assert "retreat 1 day" in " ".join(created.split())


def test_help_names_the_variants_create_takes(tmp_path):
    judge = InProcessJudge(tmp_path)
    body = " ".join(judge.send("someone@x.test", "HELP")[0].body.split())
    for name in variant_names():
        assert re.search(rf"\b{name}\b", body), name


def test_help_says_the_rule_of_replacing_orders_with_its_exception(tmp_path):
    # HELP said only "the orders in a mail replace your earlier orders", but a line in error
    # that names a unit keeps that unit's earlier order (keep_earlier_orders), and a mail
    # with no usable order leaves the stored ones standing
    judge = InProcessJudge(tmp_path)
    body = " ".join(judge.send("someone@x.test", "HELP")[0].body.split())
    assert "The orders in a mail replace your earlier orders for the phase, but a line in " \
           "error keeps the earlier order of the unit it names, and a mail with no usable " \
           "order changes nothing." in body, body


def test_map_with_a_phase_alone_is_the_signed_on_games_phase(tmp_path):
    judge = InProcessJudge(tmp_path)
    new_game(judge, "mp1")
    judge.send(GM, "MASTER mp1 masterpw\nPROCESS")
    reply = judge.send(addr("FRANCE"), "SIGNON FRANCE mp1 pw-france\nMAP S1901M SVG")[0]
    assert "no game called" not in reply.body, reply.body
    assert "mp1-S1901M.svg" in reply.raw.decode("utf-8", "replace"), reply.body
    alone = judge.send("someone@x.test", "MAP S1901M")[0].body
    assert "S1901M is a phase" in " ".join(alone.split()), alone


def test_a_refused_deadline_gives_an_example_still_to_come(tmp_path):
    judge = InProcessJudge(tmp_path)
    new_game(judge, "dl1")
    body = " ".join(judge.send(GM, "MASTER dl1 masterpw\nDEADLINE tomorrow evening")[0]
                    .body.split())
    assert "is neither a duration" in body, body
    shown = re.search(r"write (\d{4}-\d{2}-\d{2} \d{2}:\d{2})", body)
    assert shown, body
    assert datetime.strptime(shown.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC) > \
        datetime.now(UTC)
    # and the example, sent as it is, is taken
    taken = judge.send(GM, f"MASTER dl1 masterpw\nDEADLINE {shown.group(1)}")[0].body
    assert "ERROR" not in taken, taken
