"""Issue 23 through ``judge serve`` as a subprocess and the real mail servers: whom a reply
goes to (item 1) and what stays on disk after the judge acted (item 3)."""

from __future__ import annotations

import time

from mailkit import JudgeProcess, compose, free_port, imap_config, send_smtp, unique, write_config


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
