"""Issue 23 through ``judge serve`` as a subprocess and the real mail servers: whom a reply
goes to (item 1) and what stays on disk after the judge acted (item 3)."""

from __future__ import annotations

import base64
import contextlib
import html
import quopri
import signal
import sqlite3
import time
from email.header import Header
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

from mailkit import (
    JudgeProcess,
    compose,
    confirmed,
    free_port,
    imap_config,
    send_smtp,
    unique,
    write_config,
)
from test_mail_masking import password_forms


def smtp_judge(env: dict, tmp_path, port: int) -> JudgeProcess:
    """The built-in receiver in, postfix out (to the test's sink)."""
    text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
    text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
    return JudgeProcess(write_config(tmp_path, text), tmp_path).start()


def test_the_reply_reaches_only_the_angle_address(mail_servers, smtp_sink, tmp_path):
    env = mail_servers
    port = free_port()
    judge = smtp_judge(env, tmp_path, port)
    domain = f"{unique('from')}.test"
    victim, attacker = f"victim@{domain}", f"attacker@{domain}"
    judge_address = f"judge@{env['MAILTEST_DOMAIN']}"
    try:
        judge.wait_log("SMTP receiver listening")
        for n, value in enumerate([f"{victim} <{attacker}>", f"Support:{victim}; <{attacker}>",
                                   f"=?utf-8?q?{victim.replace('@', '=40')}?= <{attacker}>"]):
            raw = compose("placeholder@x.test", judge_address, "HELP", subject=f"from {n}")
            raw = raw.replace(b"From: placeholder@x.test", b"From: " + value.encode())
            send_smtp("127.0.0.1", port, attacker, judge_address, raw)
        smtp_sink.wait(lambda m: m.rcpt == attacker, count=3, timeout=30)
        time.sleep(1.0)  # anything else the judge would send has gone by now
        assert smtp_sink.for_rcpt(victim) == []
        assert len(smtp_sink.for_rcpt(attacker)) == 3
    finally:
        assert judge.stop() == 0, judge.log.read_text()


# ------------------------------------------------------------------ passwords on disk
def passwords_in_files(folder: Path, skip: Path, secrets: list[str]
                       ) -> list[tuple[str, bytes, str]]:
    """(password, the form found, file name) for every form of each password that some
    file under ``folder`` (but ``skip``) holds."""
    found = []
    for secret in secrets:
        forms = password_forms(secret)
        for path in [p for p in folder.rglob("*") if p.is_file() and p != skip]:
            try:
                data = path.read_bytes()
            except FileNotFoundError:  # a spool or Maildir tmp file gone meanwhile
                continue
            found += [(secret, form, path.name) for form in forms if form in data]
    return found


def until_no_password(folder: Path, skip: Path, secrets: list[str], timeout: float = 15.0
                      ) -> None:
    """Wait (at most ``timeout``) for the judge's last steps after the mail is acted on:
    the truncating checkpoint of the write-ahead log follows the commit that masked a mail
    (judge/storage.py _scrub_log), and on a loaded machine it came after a fixed pause."""
    deadline = time.monotonic() + timeout
    while passwords_in_files(folder, skip, secrets) and time.monotonic() < deadline:
        time.sleep(0.2)


def mime(frm: str, to: str, subject: str, part: MIMEBase) -> bytes:
    part["From"], part["To"], part["Subject"] = frm, to, subject
    part["Message-ID"] = f"<{unique('m')}@players.test>"
    return part.as_bytes()


def all_acted(db: Path, mails: int, judge: JudgeProcess) -> int:
    """Wait (up to a minute) until the judge has stored ``mails`` mails, acted on each and
    sent every reply; the number of players seated then."""
    deadline = time.monotonic() + 60
    while True:
        with contextlib.closing(sqlite3.connect(db, timeout=10)) as con:
            left = con.execute("SELECT count(*) FROM inbox WHERE state = 'new'").fetchone()[0]
            done = con.execute("SELECT count(*) FROM inbox").fetchone()[0]
            queued = con.execute("SELECT count(*) FROM outbox WHERE state != 'sent'"
                                 ).fetchone()[0]
            signed = con.execute("SELECT count(*) FROM players").fetchone()[0]
        if done == mails and not left and not queued:
            return int(signed)
        assert time.monotonic() < deadline, judge.log.read_text()
        time.sleep(0.2)


def test_no_password_is_left_in_any_file_after_the_judge_acted(tmp_path):
    """Mail with passwords in every form is acted on, the judge is killed with SIGKILL, and
    no byte of any file it wrote (database, write-ahead log, shared memory, spool, Maildir,
    log) holds any password in any form."""
    port = free_port()
    cfg = write_config(tmp_path, f'[intake]\nmode = "smtp"\nlisten = "127.0.0.1:{port}"\n')
    judge = JudgeProcess(cfg, tmp_path).start()
    tag = unique("")
    gm, game = "gm@players.test", unique("g")
    master = f"master{tag}pw"
    # one password per power, each with characters the old masking split words on
    pw = {"ENGLAND": f"qp={tag}x", "FRANCE": f"b64&{tag};x", "GERMANY": f"h<t>{tag}'x",
          "ITALY": f'al"t{tag}<x', "RUSSIA": f"sübj{tag}€x", "TURKEY": f"fold{tag}=x",
          "AUSTRIA": f"lät{tag}x"}
    wrong = f"wrong={tag}<x>"
    mails = [compose(gm, "judge@localhost", f"CREATE {game} {master}\nOPEN", subject="new")]
    line = f"SIGNON ENGLAND {game} {pw['ENGLAND']}"  # quoted-printable: '=' as '=3D'
    mails.append(mime("e@players.test", "judge@localhost", "qp", MIMEText(line, "plain", "utf-8")))
    mails[-1] = mails[-1].replace(b"base64", b"quoted-printable").replace(
        base64.encodebytes(line.encode()).strip(), quopri.encodestring(line.encode()))
    line = f"SIGNON FRANCE {game} {pw['FRANCE']}"
    b64 = MIMEText(line, "plain", "utf-8")  # utf-8 MIMEText: base64
    mails.append(mime("f@players.test", "judge@localhost", "b64", b64))
    line = f"SIGNON GERMANY {game} {pw['GERMANY']}"
    mails.append(mime("g@players.test", "judge@localhost", "html",
                      MIMEText(f"<html><body><p>{html.escape(line)}</p></body></html>",
                               "html", "utf-8")))
    alt = MIMEMultipart("alternative")
    line = f"SIGNON ITALY {game} {pw['ITALY']}"
    alt.attach(MIMEText(line, "plain", "utf-8"))
    alt.attach(MIMEText(f"<div>{html.escape(line)}</div>", "html", "utf-8"))
    mails.append(mime("i@players.test", "judge@localhost", "alternative", alt))
    line = f"SIGNON RUSSIA {game} {pw['RUSSIA']}"  # encoded-word Subject, and the body
    mails.append(mime("r@players.test", "judge@localhost", Header(line, "utf-8").encode(),
                      MIMEText(line, "plain", "utf-8")))
    line = f"SIGNON TURKEY {game} {pw['TURKEY']}"  # a folded Subject: the password below
    mails.append(compose("t@players.test", "judge@localhost", line, subject="folded").replace(
        b"Subject: folded", f"Subject: SIGNON TURKEY {game}\n {pw['TURKEY']}".encode()))
    line = f"SIGNON AUSTRIA {game} {pw['AUSTRIA']}"  # Latin-1, 8 bit
    mails.append(b"From: a@players.test\r\nTo: judge@localhost\r\nSubject: latin\r\n"
                 b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
                 b"Content-Transfer-Encoding: 8bit\r\n\r\n" + line.encode("latin-1") + b"\r\n")
    mails.append(compose("x@players.test", "judge@localhost",
                         f"SIGNON ENGLAND {game} {wrong}", subject="wrong"))
    db = tmp_path / "judge.db"
    try:
        judge.wait_log("SMTP receiver listening")
        # players who confirmed their address once: their sign-ons seat them at once
        confirmed(db, gm, *[f"{p[0].lower()}@players.test" for p in pw])
        for raw in mails:
            send_smtp("127.0.0.1", port, "sender@players.test", "judge@localhost", raw)
        signed = all_acted(db, len(mails), judge)
        assert signed == len(pw)  # every password form was read and used
        until_no_password(tmp_path, cfg, [master, wrong, *pw.values()])
    finally:
        judge.stop(signal.SIGKILL)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p != cfg]
    names = {p.name for p in files}
    assert {"judge.db", "judge.log"} <= names and any("outgoing" in str(p) for p in files)
    assert passwords_in_files(tmp_path, cfg, [master, wrong, *pw.values()]) == []


def test_no_password_is_left_in_mail_the_judge_does_not_answer(tmp_path):
    """Mail the judge does not answer (marked as automatic, list mail, the judge's own text
    pasted back unquoted) is not acted on, but a player's password in it is masked all the
    same: a player who pastes the judge's reply, mark line and all, above a SIGNON left the
    password in the database for good."""
    port = free_port()
    cfg = write_config(tmp_path, f'[intake]\nmode = "smtp"\nlisten = "127.0.0.1:{port}"\n')
    judge = JudgeProcess(cfg, tmp_path).start()
    tag = unique("")
    from judge.mail.compose import marker

    pw = {"auto": f"auto{tag}x", "list": f"list{tag}x", "mark": f"mark{tag}x",
          "bulk": f"bulk{tag}=x"}
    mails = [compose("a@players.test", "judge@localhost", f"SIGNON FRANCE g1 {pw['auto']}",
                     subject="auto", Auto_Submitted="auto-replied"),
             compose("l@players.test", "judge@localhost", f"SIGNON ITALY g1 {pw['list']}",
                     subject="list", List_Id="<players.lists.test>"),
             compose("m@players.test", "judge@localhost",
                     f"{marker('judge@localhost')} An automatic reply\nSIGNON TURKEY g1 "
                     f"{pw['mark']}", subject="pasted"),
             mime("b@players.test", "judge@localhost", "bulk",
                  MIMEText(f"SIGNON RUSSIA g1 {pw['bulk']}", "plain", "utf-8"))]
    mails[-1] = mails[-1].replace(b"Subject: bulk", b"Subject: bulk\nPrecedence: bulk")
    db = tmp_path / "judge.db"
    try:
        judge.wait_log("SMTP receiver listening")
        for raw in mails:
            send_smtp("127.0.0.1", port, "sender@players.test", "judge@localhost", raw)
        deadline = time.monotonic() + 60
        while True:
            with contextlib.closing(sqlite3.connect(db, timeout=10)) as con:
                states = [r[0] for r in con.execute("SELECT state FROM inbox")]
            if states == ["ignored"] * len(mails):
                break
            assert time.monotonic() < deadline, (states, judge.log.read_text())
            time.sleep(0.2)
        until_no_password(tmp_path, cfg, list(pw.values()))
    finally:
        judge.stop(signal.SIGKILL)
    assert passwords_in_files(tmp_path, cfg, list(pw.values())) == []


# ------------------------------------------------------------------ plus tags
def test_plus_tags_share_their_mailbox_s_ceiling_and_requests(mail_servers, smtp_sink, tmp_path):
    """victim+1@x.test, victim+2@x.test... are victim@x.test's mail on most hosts (postfix's
    recipient_delimiter, Gmail, Fastmail, Outlook): each spelling had its own reply ceiling
    and its own confirmation requests, so forged mail from a new tag each time made the judge
    mail one mailbox without bound."""
    env = mail_servers
    port = free_port()
    text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
    text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
    text = text.replace("[judge]", "[judge]\nreplies_per_hour = 3")
    judge = JudgeProcess(write_config(tmp_path, text), tmp_path).start()
    domain = f"{unique('tag')}.test"
    judge_address = f"judge@{env['MAILTEST_DOMAIN']}"

    def mailbox(m) -> bool:
        return m.rcpt.split("+")[0].split("@")[0] == "victim" and m.rcpt.endswith(domain)

    try:
        judge.wait_log("SMTP receiver listening")
        for k in range(8):  # forged HELPs, a new tag each: 3 replies, the notice, silence
            frm = f"victim+{k}@{domain}"
            send_smtp("127.0.0.1", port, frm, judge_address,
                      compose(frm, judge_address, "HELP", subject=f"help {k}"))
        smtp_sink.wait(mailbox, count=4, timeout=30)
        time.sleep(2.0)  # anything else the judge would send has gone by now
        got = [m for m in smtp_sink.messages if mailbox(m)]
        assert len(got) == 4, [m.subject for m in got]
        # three replies and the one notice (postfix may relay them in any order)
        assert sum(m.subject.startswith("[LIMIT]") for m in got) == 1, [m.subject for m in got]
        # masters (each a new sender) name a new tag each: one request a day to the mailbox
        for k in range(4):
            gm = f"gm{k}@{unique('gm')}.test"
            send_smtp("127.0.0.1", port, gm, judge_address,
                      compose(gm, judge_address, f"CREATE t{k}{domain[:6]} mpass{k}\nOPEN\n"
                              f"SET LIST victim+list{k}@{domain}", subject=f"create {k}"))
        smtp_sink.wait(lambda m: m.rcpt.startswith("gm3@"), timeout=30)
        # the one request (postfix may relay it after gm3's reply), then time for a second
        smtp_sink.wait(lambda m: mailbox(m) and "Confirm:" in m.subject, timeout=30)
        time.sleep(2.0)
        asked = [m for m in smtp_sink.messages if mailbox(m) and "Confirm:" in m.subject]
        assert len(asked) == 1, [m.rcpt for m in asked]
    finally:
        assert judge.stop() == 0, judge.log.read_text()
