"""End to end over the real servers: ``judge serve`` (built-in SMTP receiver, outbound through
postfix) against auto-responders that paste every mail they get back to the judge without
">" and without RFC 3834 headers. Each loop must stop: at the first copy when it carries the
judge's mark, or names the judge's Message-ID and repeats its text; at the hourly reply
ceiling when the responder strips both."""

from __future__ import annotations

import sqlite3
import time

from mailkit import (
    Got,
    JudgeProcess,
    compose,
    free_port,
    imap_config,
    send_smtp,
    unique,
    write_config,
)

CEILING = 4


def test_inline_copying_responders_are_stopped(mail_servers, smtp_sink, tmp_path):
    env = mail_servers
    port = free_port()
    text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
    text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
    text = text.replace("[judge]\n", f"[judge]\nreplies_per_hour = {CEILING}\n")
    judge_address = f"judge@{env['MAILTEST_DOMAIN']}"
    domain = f"{unique('loop')}.test"
    robots = {f"whole@{domain}": "whole", f"nomark@{domain}": "no mark",
              f"bare@{domain}": "no mark, no thread"}

    def paste_back(robot: str, m: Got) -> None:
        body = m.body
        headers: dict[str, str] = {"In_Reply_To": m["Message-ID"],
                                   "References": m["Message-ID"]}
        if robots[robot] != "whole":
            body = "\n".join(x for x in body.splitlines() if "JR-" not in x)
        if robots[robot] == "no mark, no thread":
            headers = {}
        raw = compose(robot, judge_address, "I am away. Your message:\n\n" + body,
                          subject="Re: " + m.subject, **headers)
        # smtplib sends bytes as they are: CRLF lines, as a real responder's MTA would
        send_smtp("127.0.0.1", port, robot, judge_address, raw.replace(b"\n", b"\r\n"))

    def settled(sent: int) -> bool:
        """The judge has acted on every mail sent to it, and every mail it queued for a
        robot has reached the sink: nothing more can come (no timer sends to them)."""
        if (tmp_path / "judge.db.spool").is_dir() and any((tmp_path / "judge.db.spool")
                                                          .iterdir()):
            return False
        con = sqlite3.connect(tmp_path / "judge.db", timeout=10)
        try:
            states = [s for (s,) in con.execute("SELECT state FROM inbox")]
            queued = {i for (i,) in con.execute(
                f"SELECT message_id FROM outbox WHERE rcpt IN ({','.join('?' * len(robots))})",
                list(robots))}
        finally:
            con.close()
        with smtp_sink.lock:
            arrived = {m["Message-ID"] for m in smtp_sink.messages}
        return len(states) == sent and "new" not in states and queued <= arrived

    judge = JudgeProcess(write_config(tmp_path, text), tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening")
        for robot in robots:
            send_smtp("127.0.0.1", port, robot, judge_address,
                      compose(robot, judge_address, "HELP", subject="hello"))
        sent = len(robots)
        answered: set[int] = set()
        quiet_since = time.monotonic()
        deadline = time.monotonic() + 120
        # until all is settled, then a second more in which nothing comes
        while not settled(sent) or time.monotonic() - quiet_since < 1:
            assert time.monotonic() < deadline, "the responders were still answered"
            with smtp_sink.lock:
                new = [m for m in smtp_sink.messages
                       if m.rcpt in robots and id(m) not in answered]
            for m in new:
                answered.add(id(m))
                paste_back(m.rcpt, m)
                sent += 1
                quiet_since = time.monotonic()
            time.sleep(0.05)
    finally:
        assert judge.stop() == 0, judge.log.read_text()
    got = {robot: smtp_sink.for_rcpt(robot) for robot in robots}
    assert len(got[f"whole@{domain}"]) == 1, got
    assert len(got[f"nomark@{domain}"]) == 1, got
    bare = got[f"bare@{domain}"]
    assert 1 < len(bare) <= CEILING + 1, bare
    assert all(m["X-Judge-Mark"].startswith("JR-") for ms in got.values() for m in ms)
