"""End to end: ``judge serve`` as a subprocess against real mail servers.

* IMAP intake: players send over SMTP to postfix, which delivers into the judge's dovecot
  mailbox; the judge reads it over IMAP (STARTTLS, IDLE) and sends through postfix (STARTTLS +
  AUTH), which relays the players' mail to the test's aiosmtpd sink.
* SMTP intake: players send straight to the judge's built-in receiver; mail out as above.
* The embedded default (no config): HELP to 127.0.0.1:2525 is answered in outgoing/new.
"""

from __future__ import annotations

import smtplib
import time
from pathlib import Path

from imapclient import IMAPClient
from mailkit import (
    Got,
    JudgeProcess,
    SinkBackend,
    compose,
    free_port,
    imap_config,
    play_standard_game,
    send_smtp,
    unique,
    write_config,
)


def players(domain: str):
    return lambda power: f"{power.lower()}@{domain}"


def test_game_over_imap_intake(judge_mailbox, smtp_sink, tmp_path):
    env = judge_mailbox
    cfg = write_config(tmp_path, imap_config(env, tmp_path))
    judge = JudgeProcess(cfg, tmp_path).start()
    try:
        judge.wait_log("IMAP: connected")
        judge_address = f"judge@{env['MAILTEST_DOMAIN']}"
        domain = f"{unique('imap')}.test"
        b = SinkBackend(smtp_sink, env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]),
                        judge_address)
        play_standard_game(b, unique("g"), players(domain), f"gm@{domain}", timeout=60)
        # every reply and report came from the judge, threaded replies, RFC 3834 marked
        mine = [m for m in smtp_sink.messages if m.rcpt.endswith("@" + domain)]
        assert all(m["From"].endswith(f"<{judge_address}>") for m in mine)
        replies = [m for m in mine if m.subject.removeprefix("[ERROR] ").startswith("Re:")]
        assert replies and all(m["In-Reply-To"] and m["Auto-Submitted"] == "auto-replied"
                               for m in replies)
    finally:
        assert judge.stop() == 0, judge.log.read_text()
    assert "stopped" in judge.log.read_text()
    # on the server: every handled message was flagged and moved out of the INBOX
    c = IMAPClient(env["MAILTEST_HOST"], port=int(env["MAILTEST_IMAP_PORT"]), ssl=False)
    c.login("judge", "secret")
    c.select_folder("INBOX")
    assert c.search(["ALL"]) == []
    c.select_folder("Processed")
    uids = c.search(["ALL"])
    assert len(uids) >= 30
    flags = c.get_flags(uids)
    assert all(b"$Judged" in f and b"\\Seen" in f for f in flags.values())
    c.logout()


def test_game_over_builtin_smtp_receiver(mail_servers, smtp_sink, tmp_path):
    env = mail_servers
    port = free_port()
    text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
    text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
    judge = JudgeProcess(write_config(tmp_path, text), tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening")
        domain = f"{unique('smtp')}.test"
        b = SinkBackend(smtp_sink, "127.0.0.1", port, f"judge@{env['MAILTEST_DOMAIN']}")
        play_standard_game(b, unique("g"), players(domain), f"gm@{domain}", timeout=60)
    finally:
        assert judge.stop() == 0, judge.log.read_text()


def test_embedded_default_answers_help_within_seconds(tmp_path):
    judge = JudgeProcess(None, tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening on 127.0.0.1:2525")
        raw = compose("newcomer@players.test", "judge@localhost", "HELP", subject="hello")
        t0 = time.monotonic()
        send_smtp("127.0.0.1", 2525, "newcomer@players.test", "judge@localhost", raw)
        new = tmp_path / "outgoing" / "new"
        while not (new.is_dir() and any(new.iterdir())):
            assert time.monotonic() - t0 < 5, judge.log.read_text()
            time.sleep(0.05)
        [path] = list(new.iterdir())
        reply = Got(path.read_bytes())
        assert reply.rcpt == "newcomer@players.test"
        assert reply.subject == "Re: hello"
        assert "SIGNON <power> <game> <password>" in reply.body
        assert (tmp_path / "judge.db").exists()
    finally:
        assert judge.stop() == 0


def test_bad_config_is_refused_with_a_clear_message(tmp_path):
    import subprocess
    import sys

    cfg = write_config(tmp_path, '[intake]\nmode = "pigeon"\n')
    out = subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--config", str(cfg)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert "[intake] mode" in out.stderr and "pigeon" in out.stderr


def test_receiver_refuses_nothing_it_can_store(tmp_path):
    """A null-sender bounce is accepted by the receiver (250) but never answered."""
    port = free_port()
    cfg = write_config(tmp_path, f'[intake]\nmode = "smtp"\nlisten = "127.0.0.1:{port}"\n')
    judge = JudgeProcess(cfg, tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening")
        with smtplib.SMTP("127.0.0.1", port) as s:
            s.sendmail("", ["judge@localhost"],
                       compose("postmaster@x.test", "judge@localhost", "HELP"))
            s.sendmail("ok@players.test", ["judge@localhost"],
                       compose("ok@players.test", "judge@localhost", "HELP"))
        new = Path(tmp_path) / "outgoing" / "new"
        t0 = time.monotonic()
        while not (new.is_dir() and any(new.iterdir())):
            assert time.monotonic() - t0 < 5
            time.sleep(0.05)
        time.sleep(0.5)
        got = [Got(p.read_bytes()) for p in new.iterdir()]
        assert [g.rcpt for g in got] == ["ok@players.test"]
    finally:
        assert judge.stop() == 0


def test_receiver_answers_a_long_reply_that_quotes_the_judges_request(tmp_path):
    """A player's reply quoting the judge's whole request runs past 1,001 bytes. Sent as SMTP
    wants it (CRLF line ends), the built-in receiver takes it; the season simulator sent its
    mails with bare LF, which the receiver reads as one line and refuses ("500 Line too
    long"): bench/season.py --seed 112358 stopped on a quoted seat request."""
    port = free_port()
    cfg = write_config(tmp_path, f'[intake]\nmode = "smtp"\nlisten = "127.0.0.1:{port}"\n')
    judge = JudgeProcess(cfg, tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening")
        quoted = "\n".join(f"> line {k} of the judge's request, quoted by the mail program"
                           for k in range(60))
        raw = compose("long@players.test", "judge@localhost", f"HELP\n\n{quoted}")
        assert len(raw) > 3000 and b"\r\n" not in raw  # as EmailMessage writes it
        send_smtp("127.0.0.1", port, "long@players.test", "judge@localhost", raw)
        new = Path(tmp_path) / "outgoing" / "new"
        t0 = time.monotonic()
        while not (new.is_dir() and any(new.iterdir())):
            assert time.monotonic() - t0 < 10, judge.log.read_text()
            time.sleep(0.05)
        [reply] = [Got(p.read_bytes()) for p in new.iterdir()]
        assert reply.rcpt == "long@players.test"
        assert "SIGNON <power> <game> <password>" in reply.body
    finally:
        assert judge.stop() == 0
