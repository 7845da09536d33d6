"""The deadline arithmetic (time of day, weekdays, summer time, absences) and the refusals of
the game-running commands, through the judge's real acting code (in-process, Maildir out)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from mailkit import POWERS, InProcessJudge

from judge.games.deadlines import align
from judge.games.settings import DEFAULTS, parse_days


def st(**kw):
    return {**DEFAULTS, **kw}


def test_align_time_of_day_weekdays_and_summer_time():
    paris = st(zone="Europe/Paris", time="18:00")
    # 10:00 UTC on Mon 23 Nov = 11:00 Paris: 18:00 Paris the same day
    assert align(datetime(2026, 11, 23, 10, tzinfo=UTC), paris) == \
        datetime(2026, 11, 23, 17, tzinfo=UTC)
    # just after 18:00 Paris: the next day
    assert align(datetime(2026, 11, 23, 17, 1, tzinfo=UTC), paris) == \
        datetime(2026, 11, 24, 17, tzinfo=UTC)
    # weekdays only: Saturday -> Monday
    weekdays = st(zone="Europe/Paris", time="18:00", days=parse_days("MON-FRI"))
    assert align(datetime(2026, 11, 28, 9, tzinfo=UTC), weekdays) == \
        datetime(2026, 11, 30, 17, tzinfo=UTC)
    # across the end of summer time (25 Oct 2026): 18:00 local is 16:00 UTC before, 17:00 after
    assert align(datetime(2026, 10, 24, 17, tzinfo=UTC), paris) == \
        datetime(2026, 10, 25, 17, tzinfo=UTC)
    assert align(datetime(2026, 10, 24, 15, tzinfo=UTC), paris) == \
        datetime(2026, 10, 24, 16, tzinfo=UTC)
    # no time, every day: unchanged
    t = datetime(2026, 11, 23, 10, 7, 3, tzinfo=UTC)
    assert align(t, st()) == t
    assert parse_days("FRI-MON") == [0, 4, 5, 6] and parse_days("ALL") == []


@pytest.fixture
def judge(tmp_path):
    j = InProcessJudge(tmp_path)
    j.send("gm@players.test", "CREATE rf gm-pass\nOPEN")
    for p in POWERS:
        j.send(f"{p.lower()}@players.test", f"SIGNON {p} rf pw-{p.lower()}")
    j.send("gm@players.test", "MASTER rf gm-pass\nSTART")
    return j


def reply(j: InProcessJudge, frm: str, body: str) -> str:
    out = j.send(frm, body)
    return " ".join(out[0].body.split())


@pytest.mark.parametrize("body, reason", [
    ("ROLLBACK", "ROLLBACK needs one phase (e.g. S1901M)"),
    ("ROLLBACK yesterday", "ROLLBACK needs one phase"),
    ("PROCESS now please", "PROCESS takes no arguments"),
    ("EDIT MOVE A PAR", "EDIT needs ADD, REMOVE or OWNER"),
    ("EDIT ADD France", "EDIT ADD takes 3 words after it"),
    ("EDIT REMOVE ARMY A PAR", "EDIT REMOVE takes a unit (EDIT REMOVE A PAR), or DISLODGED"),
    ("EDIT REMOVE DISLODGED BUR", "EDIT REMOVE DISLODGED takes a unit: its type and place "
     "(EDIT REMOVE DISLODGED A BUR)"),
    ("EJECT", "EJECT needs one power"),
    ("REPLACE France nobody pw", "REPLACE needs a power, the new player's address"),
    ("ACT Narnia", "'Narnia' is not a power in Standard Diplomacy"),
    ("ENDGAME SOON", "write ENDGAME, ENDGAME DRAW"),
    ("SET", "SET needs a setting"),
    ("SET ABANDON lots", "SET ABANDON: write a number of phases"),
])
def test_master_command_refusals_change_nothing(judge, body, reason):
    before = judge.store.all("SELECT * FROM games")
    positions = judge.store.all("SELECT phase, position FROM positions")
    text = reply(judge, "gm@players.test", f"MASTER rf gm-pass\n{body}")
    assert reason in text and "ERROR" in text, text
    assert judge.store.all("SELECT * FROM games") == before
    assert judge.store.all("SELECT phase, position FROM positions") == positions


@pytest.mark.parametrize("body, reason", [
    ("PRESS France\nhi\nENDPRESS", "PRESS needs TO and one or more powers"),
    ("PRESS TO England\nENDPRESS", "the message is empty"),
    ("PRESS TO France\nhi\nENDPRESS", "press to yourself only"),
    ("BROADCAST LOUD\nhi\nENDPRESS", "press does not understand LOUD"),
    ("DRAW Narnia", "allows only a draw of all survivors"),
    ("CONCEDE", "CONCEDE needs one power"),
    ("SET WAIT now", "SET WAIT takes nothing after it"),
    ("SET ABSENCE tomorrow", "SET ABSENCE needs two dates"),
    ("SET ABSENCE 2026-13-01 TO 2026-13-02", "'2026-13-01' is not a date"),
    ("SET ABSENCE 2020-01-01 TO 2020-01-02", "that absence is already over"),
    ("SET ABSENCE 2027-01-05 TO 2027-01-01", "the absence ends before it begins"),
    ("SET GRACE 1d", "this is a game master's command"),
    ("HISTORY rf yesterday", "'yesterday' is not a phase"),
    ("WHOIS", "WHOIS needs a game name"),
    ("OBSERVE", "OBSERVE needs one game name"),
    ("OBSERVE nosuchgame", "there is no game called 'nosuchgame'"),
    ("TAKEOVER France rf", "TAKEOVER needs a power, a game and a password"),
])
def test_player_command_refusals_change_nothing(judge, body, reason):
    tables = ("games", "press", "waits", "absences", "votes", "observers", "players")
    before = {t: judge.store.all(f"SELECT * FROM {t}") for t in tables}
    text = reply(judge, "france@players.test", f"SIGNON France rf pw-france\n{body}")
    assert reason in text and "ERROR" in text, text
    assert {t: judge.store.all(f"SELECT * FROM {t}") for t in tables} == before


def test_commands_need_a_signon_or_the_master(judge):
    text = reply(judge, "x@players.test", "SET WAIT\nDRAW\nPRESS TO France\nhi\nENDPRESS")
    assert text.count("needs a SIGNON before it") == 3
    text = reply(judge, "x@players.test", "SIGNON France rf wrong\nSET WAIT")
    assert "wrong password for France" in text and "the SIGNON above failed" in text
    text = reply(judge, "x@players.test", "ROLLBACK S1901M\nPREVIEW")
    assert text.count("this is a game master's command") == 2
    assert judge.store.all("SELECT * FROM waits") == []


def test_press_mid_mail_keeps_orders_apart(judge):
    out = judge.send("france@players.test", "SIGNON France rf pw-france\nA PAR - BUR\n"
                     "PRESS TO England\nA MAR - SPA is what I will do\nENDPRESS\nA MAR H")
    body = out[0].body
    assert "A PAR - BUR" in body and "A MAR H" in body and "A MAR - SPA" not in body
    press = [m for m in out if "press from France" in m.subject]
    assert len(press) == 1 and "A MAR - SPA is what I will do" in press[0].body


def test_subset_draw_ends_when_every_survivor_names_the_same_powers(judge):
    reply(judge, "gm@players.test", "MASTER rf gm-pass\nSET DRAW SUBSET")
    for p in POWERS[:-1]:
        text = reply(judge, f"{p.lower()}@players.test",
                     f"SIGNON {p} rf pw-{p.lower()}\nDRAW France Germany")
        assert "Your draw vote (France, Germany) is recorded" in text
    # Turkey names other powers: no agreement, nothing is revealed
    text = reply(judge, "turkey@players.test", "SIGNON Turkey rf pw-turkey\nDRAW Turkey")
    assert "is recorded" in text and judge.store.game("rf")["status"] == "active"
    out = judge.send("turkey@players.test", "SIGNON Turkey rf pw-turkey\nDRAW Germany, France")
    assert "ends in a draw" in " ".join(out[0].body.split())
    ended = [m for m in out if m.subject == "rf - game over"]
    assert len(ended) == 8 and "draw shared by France, Germany" in " ".join(ended[0].body.split())
    assert judge.store.game("rf")["result"] == "drawn: France, Germany"


def test_an_absence_pushes_a_later_phases_deadline(judge):
    from datetime import timedelta

    from judge.storage import parse_iso

    today = datetime.now(UTC).date()
    start, end = today + timedelta(days=3), today + timedelta(days=6)
    text = reply(judge, "france@players.test",
                 f"SIGNON France rf pw-france\nSET ABSENCE {start} TO {end}")
    assert "Absence of France recorded" in text and "current deadline moves" not in text
    before = parse_iso(judge.store.game("rf")["deadline"])  # in two days: not inside
    judge.send("gm@players.test", "MASTER rf gm-pass\nSET MOVEMENT 80h\nPROCESS S1901M")
    game = judge.store.game("rf")
    assert game["phase"] == "F1901M"
    # F1901M's 80 hours would end inside the absence: the deadline is its end instead
    assert parse_iso(game["deadline"]) == datetime(end.year, end.month, end.day,
                                                   tzinfo=UTC) + timedelta(days=1)
    assert parse_iso(game["deadline"]) > before


def test_rollback_word_shared_with_dipnomicy():
    from judge.games.commands import parse_line

    ours = parse_line("ROLLBACK S1901M")
    theirs = parse_line("ROLLBACK 2")  # Dipnomicy's ROLLBACK <turn>
    bad = parse_line("ROLLBACK soon")
    assert ours.name == theirs.name == "ROLLBACK" and not ours.error and not theirs.error
    assert "ROLLBACK needs one phase" in bad.error


def test_gunboat_press_and_whois_never_tell_who_plays_what(tmp_path):
    j = InProcessJudge(tmp_path)
    j.send("gm@players.test", "CREATE gb gm-pass VARIANT stab GUNBOAT\nOPEN")
    for p in POWERS:
        j.send(f"{p.lower()}@players.test", f"SIGNON {p} gb pw-{p.lower()}")
    j.send("gm@players.test", "MASTER gb gm-pass\nSTART")
    names = __import__("json").loads(j.store.game("gb")["settings"])["pseudonyms"]
    out = j.send("france@players.test", f"SIGNON France gb pw-france\nPRESS TO "
                 f"{names['ENGLAND']}\nAn alliance?\nENDPRESS")  # the name France knows
    press = [m for m in out if "press from" in m.subject]
    assert len(press) == 1 and press[0].subject == f"gb - press from {names['FRANCE']}"
    assert "FRANCE" not in press[0].body.upper() and "An alliance?" in press[0].body
    text = reply(j, "someone@players.test", "WHOIS gb\nLIST gb")
    assert "keeps its players anonymous" in text and "france@players.test" not in text


def test_gunboat_player_notices_never_tie_a_pseudonym_to_a_power(tmp_path):
    """EJECT, TAKEOVER and the end of the game are told to everyone: each reader reads the
    power by the name he knows it by (his own power, or the pseudonym); only the master
    reads both. The notices named the real power in the subject and body, which with the
    pseudonym beside it in reports told everyone who was who (found by the season
    simulator)."""
    j = InProcessJudge(tmp_path)
    j.send("gm@players.test", "CREATE gb gm-pass VARIANT stab GUNBOAT\nOPEN")
    for p in POWERS:
        j.send(f"{p.lower()}@players.test", f"SIGNON {p} gb pw-{p.lower()}")
    j.send("gm@players.test", "MASTER gb gm-pass\nSTART")
    names = __import__("json").loads(j.store.game("gb")["settings"])["pseudonyms"]
    sent = j.send("gm@players.test", "MASTER gb gm-pass\nEJECT Russia")
    sent += j.send("new@players.test", "TAKEOVER Russia gb new-pass")
    sent += j.send("gm@players.test", "MASTER gb gm-pass\nENDGAME DRAW England France")
    notices = [m for m in sent if m.rcpt not in ("gm@players.test", "new@players.test",
                                                 "russia@players.test")]
    assert any("ejected" in m.subject for m in notices)
    assert any("game over" in m.subject for m in notices)
    for m in notices:
        reader = m.rcpt.split("@")[0].upper()
        text = (m.subject + "\n" + m.body).upper()
        for power in POWERS:
            if power != reader:
                assert power not in text, (m.rcpt, m.subject, power)
    ejected = [m for m in notices if "ejected" in m.subject]
    assert all(names["RUSSIA"] in m.subject for m in ejected)
    master = [m for m in sent if m.rcpt == "gm@players.test" and "ejected" in m.subject]
    assert master and f"Russia ({names['RUSSIA']})" in master[0].body


def test_civil_disorder_in_a_retreat_phase_disbands_the_unordered_unit(tmp_path):
    """At the end of a retreat phase nobody ordered, the dislodged unit is disbanded (and the
    report says so), by the clock alone."""
    from datetime import timedelta

    from gmkit import FakeClock
    from mailkit import FALL, SPRING

    from judge.games.acting import Actor
    from judge.storage import parse_iso

    j = InProcessJudge(tmp_path)
    clock = FakeClock(datetime.now(UTC))
    j.actor = Actor(j.store, j.cfg, clock)
    j.send("gm@players.test", "CREATE cd gm-pass\nSET REMINDER OFF\nOPEN")
    for p in POWERS:
        j.send(f"{p.lower()}@players.test", f"SIGNON {p} cd pw-{p.lower()}")
    j.send("gm@players.test", "MASTER cd gm-pass\nSTART")
    for season in (SPRING, FALL):
        for p, lines in season.items():
            j.send(f"{p.lower()}@players.test", f"SIGNON {p} cd pw-{p.lower()}\n"
                   + "\n".join(lines))
    game = j.store.game("cd")
    assert game["phase"] == "F1901R"
    clock.set(parse_iso(game["deadline"]) - timedelta(seconds=1))
    assert j.run() == [] and j.store.game("cd")["phase"] == "F1901R"  # not a second early
    clock.set(parse_iso(game["deadline"]))
    out = j.run()
    reports = [m for m in out if m.subject == "cd - F1901R results"]
    assert len(reports) == 8
    assert "Disbanded: France A BUR" in reports[0].body, reports[0].body
    assert j.store.game("cd")["phase"] == "W1901A"
