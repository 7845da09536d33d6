"""Passwords and limits, tried as a hostile sender would (issue 13): every password form is
masked everywhere the judge keeps or sends text, guessing is throttled within one mail and
across mails, and the limits on lines, games and press answer clearly."""

from __future__ import annotations

import base64
import logging
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from mailkit import (
    GM,
    POWERS,
    SPRING,
    Got,
    InProcessJudge,
    addr,
    compose,
    new_game,
    only_reply,
)

from judge.games.commands import parse_line, parse_lines


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


reply_to = only_reply  # this file's name for it



def everything_stored(judge, but_mail_to: str = "") -> str:
    """Every column of every table, as text (blobs decoded), and every mail sent; with
    ``but_mail_to``, not the mail to that address (a player's own reply address is in it)."""
    parts = []
    tables = [r["name"] for r in judge.store.all(
        "SELECT name FROM sqlite_master WHERE type = 'table'")]
    for t in tables:
        for row in judge.store.all(f"SELECT * FROM {t}"):
            if but_mail_to and (t == "outbox_pictures" or (
                    t == "outbox" and row["rcpt"].lower() == but_mail_to.lower())):
                continue
            for v in row.values():
                parts.append(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
    from judge.mail.sender import read_maildir

    judge.run()
    for raw in read_maildir(judge.cfg.maildir_path):
        m = Got(raw)
        if not but_mail_to or m.rcpt.lower() != but_mail_to.lower():
            parts.append(raw.decode("utf-8", "replace") + m.body)
    return "\n".join(parts)


# ------------------------------------------------------------------ masking
def test_every_password_form_is_masked_when_parsed():
    forms = {
        "SIGNON France g1 Pw-a1": "SIGNON France g1 ****",
        "SIGNON Fg1 Pw-a2": "SIGNON Fg1 ****",
        "SIGNON MASTER g1 Pw-a3": "SIGNON MASTER g1 ****",
        "signon gm g1 Pw-a4": "signon gm g1 ****",
        "LOGIN France g1 Pw-a5": "LOGIN France g1 ****",
        "JOIN g1 France Pw-a6": "JOIN g1 France ****",
        "JOIN g1 Pw-a7": "JOIN g1 ****",
        "MASTER g1 Pw-a8": "MASTER g1 ****",
        "CREATE g1 Pw-a9 VARIANT stab": "CREATE g1 **** VARIANT stab",
        "CREATE GAME g1 Pw-a10": "CREATE GAME g1 ****",
        "TAKEOVER France g1 Pw-a11": "TAKEOVER France g1 ****",
        "REPLACE France new@x.test Pw-a12": "REPLACE France new@x.test ****",
        # malformed: the password's place is unknown, so every word after the command goes
        "SIGNON France g1 Pw-a13 extra": "SIGNON **** **** **** ****",
        "SIGNON MASTER g1 Pw-a14 x": "SIGNON MASTER **** **** ****",
        "TAKEOVER France Pw-a15": "TAKEOVER **** ****",
        "CREATE 9bad Pw-a16": "CREATE **** ****",
    }
    for line, masked in forms.items():
        cmd = parse_line(line)
        assert cmd.masked == masked, line
        assert not any("Pw-a" in x for x in (cmd.masked, cmd.error)), line


def test_no_password_is_kept_or_sent_anywhere(judge, caplog):
    """Every documented command that carries a password, right and wrong, in plain, quoted-
    printable and base64 mail: the database, the outbox, the Maildir and the log hold none."""
    caplog.set_level(logging.DEBUG)
    secrets = [f"Sekrit-{i:02d}x" for i in range(20)]
    s = secrets
    judge.send(GM, f"CREATE GAME g1 {s[0]}\nOPEN")
    judge.send(GM, f"SIGNON MASTER g1 {s[0]}\nSTATUS")
    judge.send(GM, f"SIGNON GM g1 {s[0]}")
    judge.send(GM, f"SIGNON MASTER g1 {s[1]}")  # wrong
    judge.send(GM, f"SIGNON GM g1 {s[2]}")  # wrong
    judge.send(GM, f"MASTER g1 {s[3]}")  # wrong
    judge.send(GM, f"CREATE g2 {s[4]} VARIANT standard")
    judge.send(GM, f"CREATE {s[5]}")  # malformed
    for i, p in enumerate(POWERS[:4]):
        judge.send(addr(p), f"SIGNON {p} g1 {s[6 + i]}")
    judge.send(addr("ITALY"), f"JOIN g1 Italy {s[10]}")
    judge.send(addr("RUSSIA"), f"SIGNON Rg1 {s[11]}")
    judge.deliver(_qp_mail(addr("TURKEY"), f"LOGIN Turkey g1 {s[12]}"))
    judge.send(GM, f"MASTER g1 {s[0]}\nSTART")
    judge.send(addr("FRANCE"), f"SIGNON France g1 {s[13]}\nA PAR H")  # wrong
    judge.deliver(_b64_mail(addr("FRANCE"), f"SIGNON France g1 {s[8]}\nA PAR - BUR"))
    judge.send(GM, f"MASTER g1 {s[0]}\nEJECT Germany\nREPLACE Germany new@players.test {s[14]}")
    judge.send(GM, f"MASTER g1 {s[0]}\nEJECT Germany")
    judge.send("newcomer@players.test", f"TAKEOVER Germany g1 {s[15]}")
    judge.send(addr("ITALY"), f"SIGNON Italy g1 {s[16]} extra words")  # malformed
    judge.send(addr("ITALY"), "orders", subject=f"SIGNON Italy g1 {s[17]}")  # in the subject
    judge.send("nomic@players.test", f"CREATE nomic {s[18]} VARIANT dipnomicy\nOPEN")
    judge.send("p1@players.test", f"JOIN nomic {s[19]}")
    assert set(judge.inbox_states()) <= {"done", "ignored"}
    stored = everything_stored(judge) + "\n".join(r.getMessage() for r in caplog.records)
    found = [x for x in secrets if x in stored]
    assert not found
    # the mails are otherwise whole: what the players wrote is still there
    raws = [r["raw"] for r in judge.store.all("SELECT raw FROM inbox")]
    assert sum(b"SIGNON France g1 ****" in r for r in raws) >= 1
    assert any(b"A PAR H" in r for r in raws)


def test_no_reply_token_is_kept_or_sent_to_anyone_else(judge, caplog):
    """A player's reply address (judge/mail/replytoken.py) is a secret like a password: used
    right, used from another address, forged, revoked, quoted in plain, quoted-printable and
    base64 mail, it is in no table, no log and no mail but the player's own."""
    caplog.set_level(logging.DEBUG)
    sent = new_game(judge)
    start = [m for m in sent if m.rcpt == addr("FRANCE")][0]
    address = start["Reply-To"]
    token = address.split("@")[0].rsplit(".", 1)[1]
    quote = f"\n> Reply-To: {address}\n> Subject: [g1.france.{token}]"
    judge.deliver(compose(addr("FRANCE"), address, "A PAR H" + quote, "Re: x"))
    judge.deliver(compose("stranger@players.test", address, "A PAR - PIC" + quote, "Re: x"))
    judge.deliver(compose(addr("FRANCE"), address, "A PAR H", f"Re: x [g1.france.{token}]"))
    for mail in (_qp_mail, _b64_mail):
        raw = mail(addr("FRANCE"), f"SIGNON France g1 pw-france{quote}")
        judge.deliver(raw.replace(b"To: judge@localhost", f"To: {address}".encode()))
    judge.send(addr("FRANCE"), "SIGNON France g1 pw-france\nNEWTOKEN")
    judge.deliver(compose(addr("FRANCE"), address, "A PAR H", "Re: x"))  # revoked now
    stored = everything_stored(judge, but_mail_to=addr("FRANCE"))
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert token not in (stored + logged).lower()
    france_mail = [r["raw"] for r in judge.store.all(
        "SELECT raw FROM outbox WHERE rcpt = ? ORDER BY id", (addr("FRANCE"),))]
    assert any(token.encode() in r for r in france_mail)  # her own mail carried it


def _qp_mail(frm: str, body: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, "judge@localhost", "orders"
    m["Message-ID"] = make_msgid(domain="players.test")
    m.set_content(body + "\nGr=C3=BC=C3=9Fe \u00e9t\u00e9 " + "x" * 90, cte="quoted-printable")
    return m.as_bytes()


def _b64_mail(frm: str, body: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, "judge@localhost", "orders"
    m["Message-ID"] = make_msgid(domain="players.test")
    m.set_content(body + "\nGr\u00fc\u00dfe", cte="base64")
    raw = m.as_bytes()
    assert body.split()[-1].encode() not in raw  # the password is only there encoded
    return raw


def test_a_masked_base64_mail_still_reads_the_same(judge):
    new_game(judge)
    judge.deliver(_b64_mail(addr("FRANCE"), "SIGNON France g1 pw-france\nA PAR - BUR"))
    raw = judge.store.all("SELECT raw FROM inbox ORDER BY id DESC LIMIT 1")[0]["raw"]
    from judge.mail.reading import read_message

    lines = read_message(raw, None, "judge@localhost").lines
    assert lines[:2] == ["SIGNON France g1 ****", "A PAR - BUR"]
    assert "Grüße" in lines
    assert base64.b64encode(b"pw-france") not in raw


@pytest.mark.password_cost
def test_passwords_are_stored_as_scrypt_at_the_real_cost(judge):
    """The other in-process tests hash at a low cost (tests/conftest.py): here the judge's
    own cost, through the mail that sets the passwords."""
    from judge.games.auth import verify_password

    new_game(judge, start=False)
    master = judge.store.one("SELECT master_hash FROM games WHERE name = 'g1'")["master_hash"]
    players = {r["power"]: r["password_hash"]
               for r in judge.store.all("SELECT power, password_hash FROM players")}
    assert len(players) == 7
    for h in [master, *players.values()]:
        assert h.startswith("scrypt$16384$8$1$"), h
    assert verify_password("masterpw", master) and not verify_password("pw-france", master)
    assert verify_password("pw-france", players["FRANCE"])
    assert not verify_password("pw-france", players["ITALY"])


# ------------------------------------------------------------------ guessing
def test_a_thousand_guesses_in_one_mail_check_only_the_first(judge):
    new_game(judge)
    judge.cfg.limits.commands_per_mail = 2000  # all of it is read
    judge.cfg.reply_quote_lines = 2000  # and all of it is shown in the reply
    judge.cfg.reply_max_bytes = 10_000_000
    guesses = "\n".join(f"SIGNON France g1 guess{i:04d}" for i in range(1000))
    r = reply_to(judge.send("attacker@evil.test", guesses + "\nSIGNON France g1 pw-france\n"
                            "A PAR - BUR"), "attacker@evil.test")
    assert "wrong password for France in game g1" in r.flat
    assert r.flat.count("not checked: an earlier password in this mail was wrong") == 1000
    assert "Signed on" not in r.flat  # the right one, last, was not checked either
    assert "not used: the SIGNON above failed" in r.flat
    # one wrong password was counted, not a thousand
    assert judge.store.one("SELECT count(*) AS n FROM password_failures")["n"] == 1


def test_guessing_across_mails_locks_the_power_and_tells_its_player_once(judge):
    new_game(judge)
    limit = judge.cfg.limits.password_attempts
    for i in range(limit - 1):
        r = reply_to(judge.send(f"bot{i}@evil.test", f"SIGNON France g1 guess{i}"),
                     f"bot{i}@evil.test")
        assert "wrong password for France in game g1" in r.flat
    sent = judge.send("bot@evil.test", "SIGNON France g1 guess-last")
    r = reply_to(sent, "bot@evil.test")
    assert "LIMIT:" in r.flat and "password_attempts" in r.flat
    until = r.flat.split("is checked until ")[1].split(" UTC")[0]
    notices = [m for m in sent if m.rcpt == addr("FRANCE")]
    assert len(notices) == 1 and "locked" in notices[0].subject
    assert until in notices[0].flat and "bot@evil.test" in notices[0].flat
    # locked: even the right password is not checked, and no second notice goes out
    for frm in ("bot@evil.test", addr("FRANCE")):
        sent = judge.send(frm, "SIGNON France g1 pw-france\nA PAR H")
        r = reply_to(sent, frm)
        assert f"no password for it is checked until {until} UTC" in r.flat
        assert "Signed on" not in r.flat
        assert not [m for m in sent if m.rcpt == addr("FRANCE") and m is not r]
    # other powers are not touched
    r = reply_to(judge.send(addr("ENGLAND"), "SIGNON England g1 pw-england"), addr("ENGLAND"))
    assert "Signed on as England" in r.flat


def test_the_lock_ends_after_its_time(judge):
    new_game(judge)
    judge.cfg.limits.password_lock_seconds = 1
    for i in range(judge.cfg.limits.password_attempts):
        judge.send("bot@evil.test", f"SIGNON France g1 guess{i}")
    import time

    time.sleep(1.1)
    r = reply_to(judge.send(addr("FRANCE"), "SIGNON France g1 pw-france"), addr("FRANCE"))
    assert "Signed on as France" in r.flat


def test_master_guessing_locks_the_game_master_and_tells_the_master(judge):
    new_game(judge, start=False)
    for i in range(judge.cfg.limits.password_attempts):
        sent = judge.send("bot@evil.test", f"MASTER g1 guess{i}\nSTART")
    assert [m for m in sent if m.rcpt == GM and "locked" in m.subject]
    r = reply_to(judge.send(GM, "MASTER g1 masterpw\nSTART"), GM)
    assert "no password for it is checked until" in r.flat
    assert "has started" not in r.flat


# ------------------------------------------------------------------ limits
def test_a_hundred_thousand_lines_are_cut_at_the_limit(judge):
    """The lines over the cap are not acted on, and the reply says so."""
    new_game(judge)
    judge.cfg.max_message_bytes = 10**7
    lines = ["A PAR - BUR", "F BRE - MAO", "A MAR H", "nonsense"]
    body = "SIGNON France g1 pw-france\n" + "\n".join(lines[i % 4] for i in range(100_000))
    r = reply_to(judge.send(addr("FRANCE"), body), addr("FRANCE"))
    cap = judge.cfg.limits.commands_per_mail
    assert f"the judge acts on at most {cap} per mail" in r.flat
    assert f"the other {100_001 - cap}" in r.flat
    stored = judge.store.one("SELECT lines FROM orders WHERE power = 'FRANCE'")["lines"]
    # the SIGNON was the first of the cap; 'nonsense' is refused on its own line, no order
    assert stored.count('"text"') == cap - 1 - (cap - 1) // 4


def _steps(fn, folders=("judge/games", "judge/commands", "judge/mail")) -> int:
    """Python lines executed in the judge's own command code while ``fn`` runs."""
    import sys

    count = {"n": 0}

    def tracer(frame, event, arg):
        if not any(f in frame.f_code.co_filename for f in folders):
            return None

        def local(frame, event, arg):
            if event == "line":
                count["n"] += 1
            return local
        return local

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count["n"]


@pytest.mark.parametrize("kind", ["orders", "guesses"])
def test_acting_on_a_big_mail_is_linear_in_its_lines(judge, kind):
    """Four times the lines take about four times the steps (quadratic would be sixteen):
    orders, and distinct password guesses (each masked in the stored copy)."""
    new_game(judge)
    judge.cfg.limits.commands_per_mail = 10**6
    lines = ["A PAR - BUR", "F BRE - MAO", "A MAR H", "nonsense", "A PAR H", "F KIE - DEN"]
    steps = []
    for n in (500, 2_000):
        body = "SIGNON France g1 pw-france\n" + "\n".join(
            lines[i % 6] if kind == "orders" else f"SIGNON France g1 guess{i}" for i in range(n))
        from judge.mail.intake import store_message

        store_message(judge.store, compose(addr("FRANCE"), judge.cfg.address, body), "test")
        steps.append(_steps(judge.actor.process_inbox))
    assert steps[1] < 5 * steps[0], steps


def test_order_reading_is_linear_in_the_lines():
    """A later order replaces an earlier one without comparing every pair of lines."""
    from judge.games import game as G

    v = G.get_variant("standard")
    pos = v.initial_position()
    steps, out = [], []
    for n in (500, 2_000):
        texts = ["A PAR - BUR", "A PAR H"] * (n // 2)
        steps.append(_steps(lambda t=texts: out.append(
            G.read_order_lines(v, pos, "FRANCE", t)), ("judge/games/game.py",)))
    assert steps[1] < 5 * steps[0], steps
    last = out[-1]
    assert [x["order"] for x in last].count(None) == 2_000 - 1
    assert last[-1]["order"] and "replaced by the later order" in last[0]["note"]


def test_ten_thousand_creates_make_three_games_and_say_why(judge):
    body = "\n".join(f"CREATE spam{i} password{i}" for i in range(10_000))
    r = reply_to(judge.send("spammer@evil.test", body), "spammer@evil.test")
    per_day = judge.cfg.limits.games_per_day
    assert judge.store.one("SELECT count(*) AS n FROM games")["n"] == per_day
    assert "[limits] games_per_day" in r.flat and "nothing was created" in r.flat
    assert "commands_per_mail" in r.flat and f"the other {10_000 - 1000}" in r.flat
    # another mail the same day is refused too
    r = reply_to(judge.send("spammer@evil.test", "CREATE more passw0rd"), "spammer@evil.test")
    assert "games_per_day" in r.flat
    assert judge.store.one("SELECT count(*) AS n FROM games")["n"] == per_day


def test_the_day_of_games_per_day_is_the_judges(judge):
    """The games an address created in the last 24 hours are counted on the judge's clock
    (a test's, the season simulator's): a day later on it, the address may create again (the
    games' created was the wall clock's, and so was the day counted: refused still)."""
    from gmkit import FakeClock

    judge.actor.clock = clock = FakeClock()
    per_day = judge.cfg.limits.games_per_day
    body = "\n".join(f"CREATE day{i} password{i}" for i in range(per_day))
    r = reply_to(judge.send("busy@gm.test", body), "busy@gm.test")
    assert "games_per_day" not in r.flat
    clock.set(clock() + timedelta(hours=23))
    r = reply_to(judge.send("busy@gm.test", "CREATE later passw0rd"), "busy@gm.test")
    assert "games_per_day" in r.flat
    clock.set(clock() + timedelta(hours=1, seconds=1))
    r = reply_to(judge.send("busy@gm.test", "CREATE later passw0rd"), "busy@gm.test")
    assert "games_per_day" not in r.flat and judge.store.game("later") is not None


def test_press_over_the_limit_is_refused_whole(judge):
    new_game(judge)
    judge.cfg.limits.press_bytes = 200
    body = "SIGNON France g1 pw-france\nBROADCAST\n" + "blah " * 100 + "\nENDPRESS\nA PAR H"
    sent = judge.send(addr("FRANCE"), body)
    r = reply_to(sent, addr("FRANCE"))
    assert "over the limit of 200 bytes ([limits] press_bytes)" in r.flat
    assert not [m for m in sent if m.rcpt == addr("ENGLAND")]
    assert judge.store.one("SELECT count(*) AS n FROM press")["n"] == 0
    assert "A PAR H" in r.flat  # the rest of the mail was acted on


def test_limits_config_section(tmp_path):
    from judge.config import ConfigError, load_config

    p = tmp_path / "judge.toml"
    p.write_text("[limits]\ncommands_per_mail = 50\ngames_per_day = 1\n")
    cfg = load_config(p)
    assert cfg.limits.commands_per_mail == 50 and cfg.limits.games_per_day == 1
    p.write_text("[limits]\npress_bytes = 0\n")
    with pytest.raises(ConfigError, match="press_bytes"):
        load_config(p)
    p.write_text("[limits]\nnope = 1\n")
    with pytest.raises(ConfigError, match="nope"):
        load_config(p)


def test_parse_lines_stays_linear_on_blank_block_lines():
    cmds = parse_lines(["SIGNON France g1 pw", "PRESS TO ENGLAND"] + [""] * 50_000
                       + ["hi", "ENDPRESS"])
    assert cmds[1].block == ["hi"]


def test_spring_orders_still_work_after_the_changes(judge):
    new_game(judge)
    r = reply_to(judge.send(addr("FRANCE"), "SIGNON France g1 pw-france\n"
                            + "\n".join(SPRING["FRANCE"])), addr("FRANCE"))
    assert not r.subject.startswith("[ERROR]")
    _ = compose  # the helpers above build their own mails


# ------------------------------------------------------------------ intake
def test_the_receiver_answers_250_while_a_huge_mail_is_acted_on(judge):
    """The worker holds the database for seconds (100,000 lines, the line cap lifted); the SMTP
    receiver still answers 250 at once (well within the client's 5-second timeout), and the
    mail it could not store at once is acted on afterwards."""
    import smtplib
    import threading

    from mailkit import free_port

    from judge.mail.intake import SmtpReceiver

    new_game(judge)
    judge.cfg.limits.commands_per_mail = 10**6
    judge.cfg.max_message_bytes = 10**7
    judge.cfg.intake.listen = f"127.0.0.1:{free_port()}"
    body = "SIGNON France g1 pw-france\n" + "\n".join(["A PAR - BUR", "nonsense"] * 50_000)
    from judge.mail.intake import store_message

    store_message(judge.store, compose(addr("FRANCE"), judge.cfg.address, body), "test")
    receiver = SmtpReceiver(judge.cfg, lambda: None)
    receiver.start()
    worker = threading.Thread(target=judge.actor.process_inbox)
    try:
        worker.start()
        while not judge.store.db.conn.in_transaction and worker.is_alive():
            pass  # until the worker holds the database
        answers = []
        for i in range(3):
            with smtplib.SMTP(judge.cfg.intake.listen_host, judge.cfg.intake.listen_port,
                              timeout=5) as smtp:
                raw = compose(addr("ENGLAND"), judge.cfg.address, f"STATUS g1\nHELP {i}")
                smtp.ehlo()
                smtp.mail(addr("ENGLAND"))
                smtp.rcpt(judge.cfg.address)
                answers.append(smtp.data(raw))
        busy = worker.is_alive()
    finally:
        worker.join()
        receiver.stop()
    assert [code for code, _ in answers] == [250, 250, 250], answers
    assert busy  # the worker was still acting on the big mail when the last 250 came
    sent = judge.run()
    assert len([m for m in sent if m.rcpt == addr("ENGLAND")]) == 3
    assert not list(judge.store.spool_dir.glob("*"))


def test_spooled_mail_enters_the_inbox_once(judge):
    raw = compose(addr("ENGLAND"), judge.cfg.address, "HELP")
    judge.store._spool(raw, "smtp", addr("ENGLAND"))
    judge.store._spool(raw, "smtp", addr("ENGLAND"))  # a crash after storing, before unlink
    sent = judge.run()
    assert judge.inbox_states() == ["done"]
    assert len([m for m in sent if m.rcpt == addr("ENGLAND")]) == 1
    assert not list(judge.store.spool_dir.glob("*"))


def test_passwords_per_mail_are_capped(judge):
    """Right passwords cost a deliberate hash each: a mail may carry only so many."""
    new_game(judge)
    most = judge.cfg.limits.passwords_per_mail
    judge.cfg.reply_quote_lines = 100  # every line shown in the reply
    body = "\n".join(["SIGNON France g1 pw-france"] * (most + 5))
    r = reply_to(judge.send(addr("FRANCE"), body), addr("FRANCE"))
    assert r.flat.count("Signed on as France") == most
    assert r.flat.count("[limits] passwords_per_mail") == 5


def test_an_internal_error_keeps_no_password_in_the_log_or_the_database(judge, caplog,
                                                                        monkeypatch):
    """A bug whose message holds the password: the log, the audit and the inbox note hide it."""
    from judge.games import acting

    new_game(judge)

    def broken(self, ses):
        raise RuntimeError(f"boom near {ses.inbound.sender} with Sekrit-bug9")

    monkeypatch.setattr(acting.Actor, "_flush_orders", broken)
    caplog.set_level(logging.DEBUG)
    sent = judge.send(addr("FRANCE"), "SIGNON France g1 Sekrit-bug9\nA PAR H")
    assert judge.inbox_states()[-1] == "error"
    assert [m for m in sent if m.rcpt == addr("FRANCE")]  # the apology
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "boom near france@players.test" in logged and "RuntimeError" in logged
    assert "Sekrit-bug9" not in logged + everything_stored(judge)


def test_an_html_only_mail_is_masked_in_its_html(judge):
    new_game(judge)
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = addr("FRANCE"), "judge@localhost", "orders"
    m["Message-ID"] = make_msgid(domain="players.test")
    m.set_content("<html><body><div>SIGNON France g1&nbsp;pw-france</div><div>A PAR - BUR"
                  "</div><p>Bonne chance</p></body></html>", subtype="html")
    sent = judge.deliver(m.as_bytes())
    assert [x for x in sent if x.rcpt == addr("FRANCE")]
    raw = judge.store.all("SELECT raw FROM inbox ORDER BY id DESC LIMIT 1")[0]["raw"]
    assert b"pw-france" not in raw
    assert b"A PAR - BUR" in raw and b"chance</p>" in raw  # the rest is kept
