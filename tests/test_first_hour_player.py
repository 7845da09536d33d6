"""A player's first hour (issue 18, items 7-10), as the player sees it in the judge's mail:
sign-offs under the orders, STATUS and the reports on who has ordered, deadlines in the
game's time zone, and notices that name the player's own power."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from zoneinfo import ZoneInfo

import pytest
from mailkit import GM, POWERS, SPRING, InProcessJudge, addr, compose, new_game, only_reply

from judge.storage import parse_iso

JUDGE = "judge@localhost"


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


reply = only_reply  # this file's name for it


def stored_orders(judge, power):
    game = judge.store.game("g1")
    return judge.store.order_sets(game["id"], game["phase"]).get(power)


# --------------------------------------------------------------- 7: sign-offs
def _gmail(body: str) -> bytes:
    """Gmail: text/plain and text/html alternatives, the quote under "On ... wrote:"."""
    msg = MIMEMultipart("alternative")
    msg["From"], msg["To"], msg["Subject"] = addr("FRANCE"), JUDGE, "Re: g1 - S1901M"
    quoted = (f"{body}\n\nOn Mon, 23 Nov 2026 at 10:00, Diplomacy judge <{JUDGE}> wrote:\n"
              "> Game g1 has started.\n> SIGNON FRANCE g1 <your password>\n")
    msg.attach(MIMEText(quoted, "plain", "utf-8"))
    html = "".join(f"<div>{line or '<br>'}</div>" for line in body.split("\n"))
    msg.attach(MIMEText(f"<html><body>{html}<blockquote>Game g1 has started."
                        "</blockquote></body></html>", "html", "utf-8"))
    return msg.as_bytes()


def _outlook(body: str) -> bytes:
    """Outlook: CRLF, quoted-printable, the quoted message under a From:/Sent: block."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = addr("FRANCE"), JUDGE, "RE: g1 - S1901M"
    msg.set_content(body.replace("\n", "\r\n") + "\r\n\r\n"
                    f"From: Diplomacy judge <{JUDGE}>\r\nSent: Monday, November 23, 2026 "
                    "10:00 AM\r\nTo: France\r\nSubject: g1 - S1901M\r\n\r\nGame g1 has "
                    "started.\r\n", cte="quoted-printable")
    return msg.as_bytes()


def _iphone(body: str) -> bytes:
    """Apple Mail on a phone: format=flowed, "Sent from my iPhone" under the text."""
    return compose(addr("FRANCE"), JUDGE, f"{body}\n\nSent from my iPhone", "orders")


def _thunderbird(body: str) -> bytes:
    """Thunderbird: plain text, a "-- " signature."""
    return compose(addr("FRANCE"), JUDGE, f"{body}\n\n-- \nAnna Martin\nhttps://example.org",
                   "orders")


@pytest.mark.parametrize("shape", [_gmail, _outlook, _iphone, _thunderbird])
@pytest.mark.parametrize(("closing", "skipped"), [
    ("Cheers,", ["'Cheers,'"]),
    ("Grüße", ["'Grüße'"]),
    ("Best regards,\nHans Müller", ["'Best regards,' and 'Hans Müller'"]),
    ("Salut !\n\nAnna", ["'Salut !' and 'Anna'"]),
    ("Thanks!", ["'Thanks!'"]),
])
def test_a_sign_off_under_the_orders_is_skipped_and_said_so(judge, shape, closing, skipped):
    new_game(judge)
    body = "SIGNON FRANCE g1 pw-france\nA PAR - BUR\nA MAR - SPA\nF BRE - MAO\n\n" + closing
    r = reply(judge.deliver(shape(body)), addr("FRANCE"))
    for line in skipped:
        assert f"Skipped {line}: look" in r.flat and "like a sign-off" in r.flat
    assert "ERROR" not in r.body and not r.subject.startswith("[ERROR]")
    assert "unknown place" not in r.flat and "no unit in Greece" not in r.flat
    orders = [x["order"] for x in stored_orders(judge, "FRANCE")]
    assert orders == ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"]


def test_what_reads_as_an_order_or_command_is_never_skipped(judge):
    new_game(judge)
    # a unit in Greece ordered as the last line stays an order (Greece is no sign-off)...
    judge.send(GM, "MASTER g1 masterpw\nEDIT ADD TURKEY A GRE")
    r = reply(judge.send(addr("TURKEY"), "SIGNON TURKEY g1 pw-turkey\nF ANK - BLA\nA GRE H"),
              addr("TURKEY"))
    assert "Skipped" not in r.flat
    assert [x["order"] for x in stored_orders(judge, "TURKEY")] == ["F ANK - BLA", "A GRE H"]
    # ... a closing in the middle of the orders is not at the end: read (and refused) as
    # the order it claims to be, so the player sees it
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nCheers,\nA PAR H"),
              addr("FRANCE"))
    assert "Skipped" not in r.flat and r.subject.startswith("[ERROR]")
    # a bare name with no closing above it is no sign-off either
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR H\nGreece"),
              addr("FRANCE"))
    assert "Skipped" not in r.flat and r.subject.startswith("[ERROR]")
    # and a command at the end is a command (BYE is END: nothing after it is read)
    r = reply(judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR H\nStatus"),
              addr("FRANCE"))
    assert "Skipped" not in r.flat and "Game g1 (Standard Diplomacy)" in r.flat


def test_a_sign_off_under_commands_without_a_signon_is_skipped_too(judge):
    new_game(judge, start=False)
    r = reply(judge.send("new@players.test", "LIST\n\nMerci beaucoup\nJ.-P. Martin"),
              "new@players.test")
    assert "Skipped 'Merci beaucoup' and 'J.-P. Martin': look like a sign-off" in r.flat
    assert not r.subject.startswith("[ERROR]")


# --------------------------------------------------- 8: who has ordered, who has not
def test_status_tells_complete_partial_and_none_and_the_report_names_who_sent_nothing(judge):
    new_game(judge)
    judge.send(GM, "MASTER g1 masterpw\nSET ANONYMOUS ON")
    judge.send(addr("FRANCE"), "SIGNON FRANCE g1 pw-france\nA PAR - BUR")  # 1 of 3 units
    judge.send(addr("ITALY"), "SIGNON ITALY g1 pw-italy\n" + "\n".join(SPRING["ITALY"]))
    judge.send(addr("RUSSIA"), "SIGNON RUSSIA g1 pw-russia\n" + "\n".join(SPRING["RUSSIA"]))
    r = reply(judge.send(addr("GERMANY"), "STATUS g1"), addr("GERMANY"))
    assert "France player 3 centres, 3 units, orders partial (2 units without an order)" \
        in r.flat
    assert "Italy player 3 centres, 3 units, orders complete" in r.flat
    assert "Russia player 4 centres, 4 units, orders complete" in r.flat
    assert "Germany player 3 centres, 3 units, no orders yet" in r.flat

    sent = judge.send(GM, "MASTER g1 masterpw\nPROCESS")
    reports = [m for m in sent if m.subject == "g1 - S1901M results"]
    assert len(reports) == len(POWERS) + 1
    for m in reports:
        assert "No orders received from: Austria, England, Germany, Turkey." in m.flat
        assert "@players.test" not in m.body  # an anonymous game: names of powers only
    # in the autumn, everyone ordered: the line is left out, not printed empty
    for p in POWERS:
        sent = judge.send(addr(p), f"SIGNON {p} g1 pw-{p.lower()}\n" + "\n".join(
            f"{u.split()[0]} {u.split()[1]} H" for u in _units(judge, p)))
    fall = [m for m in sent if m.subject == "g1 - F1901M results"]
    assert fall and all("No orders received" not in m.flat for m in fall)


def _units(judge, power):
    from judge.games import game as G

    game = judge.store.game("g1")
    return [str(u) for u in G.current_position(judge.store, game).units_of(power)]


# ------------------------------------------------------ 9: deadlines in the game's zone
def test_deadline_is_read_in_the_games_zone_unless_a_zone_is_written(judge):
    new_game(judge)
    judge.send(GM, "MASTER g1 masterpw\nSET ZONE Europe/Paris")

    def deadline(text):
        r = reply(judge.send(GM, f"MASTER g1 masterpw\nDEADLINE {text}"), GM)
        return r, parse_iso(judge.store.game("g1")["deadline"])

    # the next 15 January and 15 July: ahead, and within the year a deadline may be set
    today = datetime.now(UTC).date()
    jan, jul = (next(date(y, m, 15) for y in (today.year, today.year + 1)
                     if date(y, m, 15) > today + timedelta(days=1)) for m in (1, 7))
    r, when = deadline(f"{jan} 18:00")  # Paris is UTC+1 in January
    assert when == datetime(jan.year, 1, 15, 17, 0, tzinfo=UTC)
    assert f"set to {jan:%a} 15 Jan {jan.year} 18:00 CET" in r.flat
    assert f"in UTC {jan:%a} 15 Jan {jan.year} 17:00 UTC" in r.flat
    assert deadline(f"{jan} 18:00 UTC")[1] == datetime(jan.year, 1, 15, 18, 0, tzinfo=UTC)
    assert deadline(f"{jan} 18:00 CET")[1] == datetime(jan.year, 1, 15, 17, 0, tzinfo=UTC)
    assert deadline(f"{jan} 18:00 +03:00")[1] == datetime(jan.year, 1, 15, 15, 0, tzinfo=UTC)
    r, when = deadline(f"{jul} 18:00 Europe/London")  # London is UTC+1 in July
    assert when == datetime(jul.year, 7, 15, 17, 0, tzinfo=UTC)
    assert f"set to {jul:%a} 15 Jul {jul.year} 19:00 CEST" in r.flat  # in the game's zone

    r, when = deadline(f"{jan} 18:00 Mars/Olympus")
    assert "'Mars/Olympus' is not a time zone" in r.flat and r.subject.startswith("[ERROR]")
    assert when == datetime(jul.year, 7, 15, 17, 0, tzinfo=UTC)  # unchanged

    before = datetime.now(UTC)
    r, when = deadline("2 days")
    assert 47 * 3600 < (when - before).total_seconds() <= 48 * 3600 + 60
    # the game's clock, as the master sees it on RESUME: its zone and UTC
    r = reply(judge.send(GM, "MASTER g1 masterpw\nPAUSE\nRESUME"), GM)
    local = when.astimezone(ZoneInfo("Europe/Paris"))
    assert f"resumed; deadline {local:%a %d %b %Y %H:%M} {local.tzname()}" in r.flat
    assert f"in UTC {when:%a %d %b %Y %H:%M} UTC" in r.flat


def test_durations_in_words_are_accepted_wherever_a_duration_is(judge):
    r = reply(judge.send(GM, "CREATE g1 masterpw DEADLINES 48 hours, 1 day, 12 hours"), GM)
    assert "movement 2 days, retreat 1 day, adjustment 12 hours" in r.flat
    r = reply(judge.send(GM, "MASTER g1 masterpw\nDEADLINES 2 days 1 day and 12 hours 1d\n"
                             "SET MOVEMENT 3 days\nSET GRACE 6 hours"), GM)
    assert "movement 2 days, retreat 1 day 12 hours, adjustment 1 day" in r.flat
    assert "Movement phases of game g1 now last 3 days" in r.flat
    assert "grace: 6 hours" in r.flat
    game = judge.store.game("g1")
    assert (game["movement_seconds"], game["retreat_seconds"]) == (3 * 86400, 36 * 3600)
    r = reply(judge.send(GM, "MASTER g1 masterpw\nDEADLINES 2 fortnights"), GM)
    assert "'fortnights' is not a duration" in r.flat and r.subject.startswith("[ERROR]")
    assert judge.store.game("g1")["movement_seconds"] == 3 * 86400


# ----------------------------------------------- 10: notices name the player's power
def test_the_start_notice_and_other_notices_name_the_players_own_power(judge):
    sent = new_game(judge)
    start = {m.rcpt: m for m in sent if "the game has started" in m.subject}
    assert "SIGNON FRANCE g1 <your password>" in start[addr("FRANCE")].body
    assert "signed on as France" in start[addr("FRANCE")].flat
    assert "SIGNON <power>" not in start[addr("FRANCE")].body
    assert "SIGNON TURKEY g1 <your password>" in start[addr("TURKEY")].body
    assert "FRANCE g1" not in start[addr("TURKEY")].body
    assert "SIGNON <power> g1 <password>" in start[GM].flat  # the master plays no power

    sent = judge.send(GM, "MASTER g1 masterpw\nPAUSE")
    paused = {m.rcpt: m for m in sent if m.subject == "g1 - paused"}
    assert "You play Italy in game g1; sign on with: SIGNON ITALY g1 <your password>" \
        in paused[addr("ITALY")].flat
    assert "You play" not in paused[GM].flat


def test_a_stab_start_notice_names_the_players_own_power_only(judge):
    judge.send(GM, "CREATE sb masterpw VARIANT stab GUNBOAT\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} sb pw-{p.lower()}")
    sent = judge.send(GM, "MASTER sb masterpw\nSTART")
    start = {m.rcpt: m for m in sent if "the game has started" in m.subject}
    assert "SIGNON ENGLAND sb <your password>" in start[addr("ENGLAND")].body
    assert all(p not in start[addr("ENGLAND")].body.upper() for p in POWERS if p != "ENGLAND")
    assert "SIGNON <power> sb <password>" in start[GM].flat
