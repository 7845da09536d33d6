"""The IMAP poller against real dovecot: IDLE or polling, and reconnecting with backoff when
the server goes away (a forwarding proxy in front of dovecot cuts the connection)."""

from __future__ import annotations

import time

import pytest
from mailkit import (
    JudgeProcess,
    TcpProxy,
    compose,
    imap_config,
    send_smtp,
    unique,
    write_config,
)


def _send_help(env, frm: str, subject: str) -> None:
    judge = f"judge@{env['MAILTEST_DOMAIN']}"
    send_smtp(env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]), frm, judge,
              compose(frm, judge, "HELP", subject=subject))


@pytest.mark.parametrize("idle", [True, False], ids=["idle", "polling"])
def test_imap_reconnects_after_the_server_goes_away(judge_mailbox, smtp_sink, tmp_path, idle):
    env = judge_mailbox
    proxy = TcpProxy(env["MAILTEST_HOST"], int(env["MAILTEST_IMAP_PORT"]))
    text = imap_config(env, tmp_path).replace(f"port = {env['MAILTEST_IMAP_PORT']}",
                                              f"port = {proxy.port}")
    text = text.replace("poll_seconds = 2", f"poll_seconds = 1\nidle = {str(idle).lower()}")
    judge = JudgeProcess(write_config(tmp_path, text), tmp_path).start()
    player = f"p@{unique('imap')}.test"
    try:
        judge.wait_log("IMAP: connected")
        assert ("(IDLE)" if idle else "(polling)") in judge.log.read_text()
        _send_help(env, player, "before")
        got = smtp_sink.wait(lambda m: m.rcpt == player and "before" in m.subject, timeout=20)
        assert "SIGNON <power> <game> <password>" in got[0].body

        # the server goes away, and refuses connections for a while
        proxy.refuse = True
        proxy.drop()
        judge.wait_log("reconnecting in")
        _send_help(env, player, "during")  # arrives in the mailbox while the judge is cut off
        time.sleep(1.5)
        proxy.refuse = False
        got = smtp_sink.wait(lambda m: m.rcpt == player and "during" in m.subject, timeout=30)
        assert got[0]["In-Reply-To"]
        assert judge.log.read_text().count("IMAP: connected") >= 2
    finally:
        assert judge.stop() == 0
        proxy.close()
