"""The command language, as players and game masters see it in the judge's replies."""

from __future__ import annotations

import pytest
from mailkit import GM, POWERS, SPRING, InProcessJudge, addr, new_game, only_reply

from judge.commands.parse import parse_duration
from judge.games.commands import parse_line


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


reply = only_reply  # this file's name for it



def test_parse_durations_and_commands():
    assert parse_duration("48h") == 48 * 3600
    assert parse_duration("1d12h") == 36 * 3600
    assert parse_duration("90m") == 5400
    assert parse_duration("36") == 36 * 3600
    assert parse_duration("soon") is None
    assert parse_line("signon Fgame1 secret").args == ["F", "game1", "secret"]
    assert parse_line("SIGNON MASTER g pw").name == "MASTER"
    assert parse_line("A PAR - BUR").name == "ORDER"
    assert parse_line("SIGNON FRANCE g secret").masked == "SIGNON FRANCE g ****"
    assert parse_line("CREATE g secret VARIANT standard").masked.split()[2] == "****"
    assert "SIGNON needs a power, a game and a password" in parse_line("SIGNON FRANCE").error


def test_create_twice_and_bad_variant_are_refused(judge):
    r = reply(judge.send(GM, "CREATE g1 masterpw"), GM)
    assert "created" in r.flat and not r.subject.startswith("[ERROR]")
    r = reply(judge.send("other@players.test", "CREATE g1 otherpw"), "other@players.test")
    assert r.subject.startswith("[ERROR]") and "a game called 'g1' already exists" in r.flat
    r = reply(judge.send(GM, "CREATE g2 masterpw VARIANT nosuch"), GM)
    assert "there is no variant 'nosuch'" in r.flat
    assert judge.store.game("g2") is None


def test_players_cannot_join_before_open(judge):
    judge.send(GM, "CREATE g1 masterpw")
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france"), addr("FRANCE"))
    assert r.subject.startswith("[ERROR]") and "not open for sign-on yet" in r.flat
    assert judge.store.players(judge.store.game("g1")["id"]) == []


def test_power_taken_and_unknown_power(judge):
    new_game(judge, start=False)
    r = reply(judge.send("late@players.test", "JOIN g1 France latepw"), "late@players.test")
    assert "France in game g1 already has a player" in r.flat
    r = reply(judge.send("late@players.test", "SIGNON Spain g1 latepw"), "late@players.test")
    assert "'Spain' is not a power in Standard Diplomacy" in r.flat


def test_start_needs_every_power_and_the_master_password(judge):
    judge.send(GM, "CREATE g1 masterpw\nOPEN")
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france")
    r = reply(judge.send(GM, "MASTER g1 masterpw\nSTART"), GM)
    assert "cannot start: no player yet for Austria, England, Germany" in r.flat
    r = reply(judge.send("x@players.test", "MASTER g1 wrong\nSTART"), "x@players.test")
    assert "wrong master password for game g1" in r.flat
    assert "not done: the MASTER sign-on above failed" in r.flat
    r = reply(judge.send("x@players.test", "START"), "x@players.test")
    assert "this is a game master's command" in r.flat
    assert judge.store.game("g1")["status"] == "open"


def test_orders_replace_earlier_orders_and_clear(judge):
    new_game(judge)
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR - BUR\nA MAR - SPA")
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nF BRE - MAO"),
              addr("FRANCE"))
    body = r.body.split("Orders for France")[1]
    assert "F BRE - MAO" in body and "A PAR - BUR" not in body  # replaced, not added
    assert "Units without orders: A MAR, A PAR (they hold)." in r.flat
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nCLEAR"), addr("FRANCE"))
    assert "Orders of France for this phase cleared." in r.flat
    assert "(none)" in r.body
    game = judge.store.game("g1")
    assert judge.store.order_set(game["id"], "S1901M", "FRANCE") is None


def test_orders_for_another_power_unit_are_refused_specifically(judge):
    new_game(judge)
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA MUN - BUR\nA PAR H"),
              addr("FRANCE"))
    assert r.subject.startswith("[ERROR]")
    assert "A MUN - BUR" in r.body and "not yours" in r.flat
    assert "A PAR H" in r.body


def test_wrong_password_changes_nothing(judge):
    new_game(judge)
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR - BUR")
    r = reply(judge.send("mallory@x.test", "SIGNON FRANCE g1 nope\nCLEAR\nA PAR - GAS"),
              "mallory@x.test")
    assert "wrong password for France in game g1" in r.flat
    game = judge.store.game("g1")
    [line] = judge.store.order_set(game["id"], "S1901M", "FRANCE")
    assert line["order"] == "A PAR - BUR"
    # and the audit log never holds a password
    rows = judge.store.all("SELECT command FROM audit")
    assert rows and not any("nope" in r["command"] or "pw-france" in r["command"]
                            for r in rows)


def test_status_and_list(judge):
    new_game(judge)
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR H")
    judge.send(addr("ITALY"), "SIGNON ITALY g1 pw-italy\n" + "\n".join(SPRING["ITALY"]))
    r = reply(judge.send("anyone@x.test", "LIST\nSTATUS g1\nLIST nosuch"), "anyone@x.test")
    assert "g1 Standard Diplomacy, active, S1901M" in r.flat
    # one unit of three ordered is not "orders in"
    assert "France player 3 centres, 3 units, orders partial (2 units without an order)" \
        in r.flat
    assert "Italy player 3 centres, 3 units, orders complete" in r.flat
    assert "Germany player 3 centres, 3 units, no orders yet" in r.flat
    assert "there is no game called 'nosuch'" in r.flat


def test_game_processes_when_every_power_has_ordered(judge):
    new_game(judge)
    sent = []
    for p, lines in SPRING.items():
        sent = judge.send(addr(p), f"SIGNON {p} g1 pw-{p.lower()}\n" + "\n".join(lines))
    last = reply(sent, addr("TURKEY"))
    assert "S1901M has been processed" in last.flat
    assert judge.store.game("g1")["phase"] == "F1901M"
    # replies go out before the reports
    assert sent[0].rcpt == addr("TURKEY") and "results" in sent[1].subject


def test_process_now_and_deadline_commands(judge):
    new_game(judge)
    r = reply(judge.send(GM, "MASTER g1 masterpw\nDEADLINE 2h\nDEADLINES 24h 12h 12h"), GM)
    assert "Deadline of S1901M set to" in r.flat and "(in 1 hour 59 minutes" in r.flat
    assert "Phase lengths: movement 1 day, retreat 12 hours, adjustment 12 hours" in r.flat
    sent = judge.send(GM, "MASTER g1 masterpw\nPROCESS")
    assert "Processed S1901M" in reply(sent, GM).flat
    reports = [m for m in sent if " - S1901M results" in m.subject]
    assert sorted(m.rcpt for m in reports) == sorted([addr(p) for p in POWERS] + [GM])
    assert "A PAR H                        succeeds (no order: holds)" in reports[0].body
    game = judge.store.game("g1")
    assert game["phase"] == "F1901M"
    r = reply(judge.send(GM, "MASTER g1 masterpw\nDEADLINE 1999-01-01 10:00"), GM)
    assert "has already passed" in r.flat


def test_pause_and_resume(judge):
    new_game(judge)
    judge.send(GM, "MASTER g1 masterpw\nPAUSE")
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR H"),
              addr("FRANCE"))
    assert "game g1 is paused" in r.flat
    r = reply(judge.send(GM, "MASTER g1 masterpw\nRESUME"), GM)
    assert "Game g1 resumed" in r.flat
    assert judge.store.game("g1")["status"] == "active"


def test_deadline_passing_processes_the_phase(judge):
    new_game(judge)
    game = judge.store.game("g1")
    judge.store.execute("UPDATE games SET deadline = '2000-01-01T00:00:00+00:00' WHERE id = ?",
                        (game["id"],))
    sent = judge.run()
    assert len([m for m in sent if " - S1901M results" in m.subject]) == 8
    assert judge.store.game("g1")["phase"] == "F1901M"


def test_sign_off_stops_reading(judge):
    r = reply(judge.send("a@x.test", "LIST\nSIGNOFF\nCREATE late secret"), "a@x.test")
    assert judge.store.game("late") is None and not r.subject.startswith("[ERROR]")


def test_one_mail_orders_in_two_games(judge):
    new_game(judge, "g1")
    new_game(judge, "g2")
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR - BUR\n"
                                         "SIGNON FRANCE g2 pw-france\nA PAR - PIC"),
              addr("FRANCE"))
    g1 = r.body.split("Orders for France in game g1")[1].split("Deadline")[0]
    g2 = r.body.split("Orders for France in game g2")[1].split("Deadline")[0]
    assert "A PAR - BUR" in g1 and "A PAR - PIC" not in g1
    assert "A PAR - PIC" in g2 and "A PAR - BUR" not in g2


def test_two_builds_in_one_centre_are_refused(judge):
    from mailkit import FALL

    new_game(judge)
    for orders in (SPRING, FALL):
        for p, lines in orders.items():
            judge.send(addr(p), f"SIGNON {p} g1 pw-{p.lower()}\n" + "\n".join(lines))
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA BUR R GAS")
    assert judge.store.game("g1")["phase"] == "W1901A"
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nBUILD A PAR\n"
                                         "BUILD A PAR\nBUILD A MAR\nBUILD F BRE"),
              addr("FRANCE"))
    assert r.subject.startswith("[ERROR]")
    assert "PAR already has an order in this mail" in r.flat
    assert "France has only 2 builds this phase" in r.flat  # the third valid build


def test_a_mistyped_signon_never_puts_the_password_in_the_audit_log(judge):
    new_game(judge)
    r = reply(judge.send(addr("FRANCE"), "SIGNIN FRANCE g1 pw-france\nA PAR H"),
              addr("FRANCE"))
    assert r.subject.startswith("[ERROR]")
    rows = judge.store.all("SELECT command, outcome FROM audit")
    assert not any("pw-france" in (x["command"] + x["outcome"]) for x in rows)


def test_stacked_units_each_take_an_order(judge):
    """Stack 'em: two armies in one space take two orders; a third replaces the first."""
    judge.send(GM, "CREATE sk masterpw VARIANT stackem\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} sk pw-{p.lower()}")
    judge.send(GM, "MASTER sk masterpw\nSTART")
    judge.send(addr("FRANCE"), "SIGNON FRANCE sk pw-france\nA MAR - BUR\nA PAR - BUR")
    judge.send(GM, "MASTER sk masterpw\nPROCESS")  # both French armies now in Burgundy
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE sk pw-france\nA BUR - MUN\n"
                                         "A BUR - BEL"), addr("FRANCE"))
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "Units without orders: F BRE (they hold)." in r.flat
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE sk pw-france\nA BUR - MUN\n"
                                         "A BUR - BEL\nA BUR H"), addr("FRANCE"))
    assert "replaced by the later order A BUR H" in r.flat
