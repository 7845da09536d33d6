"""End to end over the real servers: mail the judge cannot send never delays anyone else's.

``judge serve`` (built-in SMTP receiver, SMTP outbound through postfix with STARTTLS + AUTH,
relayed to the test's aiosmtpd sink) runs a game in which:

* Austria plays from an address postfix itself refuses at RCPT (``501 Bad recipient address
  syntax``): every mail to Austria fails for good, and each of the others' replies and reports
  still arrives;
* in the middle of the game, someone writes from a raw UTF-8 address (``From:
  j\\xc3\\xb6rg@...``): the reply to them is sent or given up, never left to block the queue.

Then a temporary failure: postfix is out of reach (a proxy refusing connections) while a reply
is queued; the judge backs off, and delivers it once postfix is back.
"""

from __future__ import annotations

import smtplib
import sqlite3
import time
from email.utils import format_datetime, make_msgid

from mailkit import (
    POWERS,
    SPRING,
    JudgeProcess,
    SinkBackend,
    TcpProxy,
    confirmed,
    imap_config,
    on_free_port,
    subject_has,
    unique,
    write_config,
)

from judge.storage import now_utc


def raw_mail(frm: bytes, to: str, subject: str, body: str) -> bytes:
    """A message built by hand: the From line exactly as given (raw 8-bit, odd syntax)."""
    head = (b"From: " + frm + b"\r\n"
            + f"To: {to}\r\nSubject: {subject}\r\nDate: {format_datetime(now_utc())}\r\n"
              f"Message-ID: {make_msgid(domain='players.test')}\r\n"
              "Content-Type: text/plain; charset=utf-8\r\n\r\n".encode())
    return head + body.replace("\n", "\r\n").encode() + b"\r\n"


def rows(db, sql: str, params=()) -> list[tuple]:
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def serve(env, tmp_path, outbound_port: int | None = None) -> tuple[JudgeProcess, int]:
    """``judge serve`` receiving by SMTP on a free port (another if that one was taken
    before it bound it), killed if it never listens."""
    def start(port: int) -> tuple[JudgeProcess, int]:
        text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
        text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
        if outbound_port is not None:  # through a proxy; the certificate still names 127.0.0.1
            text = text.replace(f"port = {env['MAILTEST_SMTP_PORT']}",
                                f"port = {outbound_port}")
            text += "retry_seconds = 1\n"
        return JudgeProcess(write_config(tmp_path, text), tmp_path).start().listening(), port

    return on_free_port(start)


def test_refused_and_unicode_recipients_never_delay_a_game(mail_servers, smtp_sink, tmp_path):
    env = mail_servers
    judge, port = serve(env, tmp_path)
    judge_addr = f"judge@{env['MAILTEST_DOMAIN']}"
    domain = f"{unique('bad')}.test"
    bad = f"austria@{domain[:-5]}..test"  # postfix: 501 5.1.3 Bad recipient address syntax

    def addr(power: str) -> str:
        return bad if power == "AUSTRIA" else f"{power.lower()}@{domain}"

    def send_as(frm: bytes, subject: str, body: str) -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as s:
            s.sendmail(f"player@{domain}", [judge_addr],
                       raw_mail(frm, judge_addr, subject, body))

    def jorg_writes(subject: str) -> None:
        send_as(f"J\u00f6rg <j\u00f6rg@{domain}>".encode(), subject, "HELP")

    b = SinkBackend(smtp_sink, "127.0.0.1", port, judge_addr)
    game, gm = unique("g"), f"gm@{domain}"
    confirmed(tmp_path / "judge.db", gm, *[addr(p) for p in POWERS])  # they confirmed once
    try:
        b.send(gm, f"CREATE {game} master-{game} DEADLINES 48h 24h 24h\nOPEN", "new game")
        assert "you are its master" in b.wait(gm, subject_has("new game"), 60).flat
        jorg_writes("hello from jorg")
        for p in POWERS:
            send_as(addr(p).encode(), "join", f"SIGNON {p} {game} pw-{p.lower()}")
        for p in POWERS[1:]:
            r = b.wait(addr(p), subject_has("join"), 60)
            assert f"You have joined game {game} as {p.title()}" in r.body, r.body
        b.send(gm, f"MASTER {game} master-{game}\nSTART", "start")
        for p in POWERS[1:]:
            assert "You play" in b.wait(addr(p), subject_has("the game has started"), 60).body
        jorg_writes("orders from jorg")
        for p, lines in SPRING.items():
            send_as(addr(p).encode(), "orders",
                    f"SIGNON {p} {game} pw-{p.lower()}\n" + "\n".join(lines))
        for p in POWERS[1:]:
            r = b.wait(addr(p), subject_has(" - S1901M results"), 60)
            assert "A VIE - GAL" in r.body and "A MAR - BUR" in r.body, r.body  # Austria's too

        # nothing is left waiting: each mail to Austria was refused for good, and recorded
        db = tmp_path / "judge.db"
        deadline = time.monotonic() + 30
        while rows(db, "SELECT id FROM outbox WHERE state = 'pending'"):
            assert time.monotonic() < deadline, rows(db, "SELECT * FROM outbox WHERE state = "
                                                         "'pending'")
            time.sleep(0.2)
        to_bad = rows(db, "SELECT id, state, failure, last_error FROM outbox WHERE rcpt = ?",
                      (bad,))
        assert len(to_bad) >= 3  # the joining reply, the start report, the orders reply...
        for oid, st, failure, error in to_bad:
            assert (st, failure) == ("failed", "permanent") and "501" in error, error
            assert f"outbox {oid} to {bad}" in judge.log.read_text()
        to_jorg = rows(db, "SELECT state, failure, last_error FROM outbox WHERE rcpt LIKE 'j%"
                           "rg@' || ?", (domain,))
        assert len(to_jorg) == 2 and {r[0] for r in to_jorg} <= {"sent", "failed"}, to_jorg
        assert "step failed" not in judge.log.read_text()
    finally:
        assert judge.stop() == 0, judge.log.read_text()


def test_postfix_away_then_back_the_reply_arrives(mail_servers, smtp_sink, tmp_path):
    env = mail_servers
    proxy = TcpProxy(env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]))
    proxy.refuse = True
    judge, port = serve(env, tmp_path, outbound_port=proxy.port)
    try:
        b = SinkBackend(smtp_sink, "127.0.0.1", port, f"judge@{env['MAILTEST_DOMAIN']}")
        who = f"patient@{unique('away')}.test"
        b.send(who, "HELP", "while postfix is away")
        db = tmp_path / "judge.db"
        deadline = time.monotonic() + 30
        while not rows(db, "SELECT attempts FROM outbox WHERE rcpt = ? AND attempts > 0",
                       (who,)):
            assert time.monotonic() < deadline, judge.log.read_text()
            time.sleep(0.1)
        assert "cannot connect" in judge.log.read_text()
        [(st, error)] = rows(db, "SELECT state, last_error FROM outbox WHERE rcpt = ?", (who,))
        assert st == "pending" and "connect" in error
        proxy.refuse = False
        r = b.wait(who, subject_has("while postfix is away"), 60)
        assert "Commands:" in r.body
        [(st, attempts)] = rows(db, "SELECT state, attempts FROM outbox WHERE rcpt = ?", (who,))
        assert st == "sent" and attempts >= 2
    finally:
        assert judge.stop() == 0, judge.log.read_text()
        proxy.close()
