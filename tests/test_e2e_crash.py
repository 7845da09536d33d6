"""SIGKILL in the middle of a batch, then restart: every message acted on exactly once, every
reply sent exactly once.

A batch of CREATE mails is put in the judge's real IMAP mailbox (dovecot). Each CREATE changes
the database, and acting on one twice would be visible (a second "already exists" error
reply). The judge (``judge serve --config``, IMAP intake, Maildir out) is killed with SIGKILL
while it works through the batch, then started again on the same database and mailbox.
"""

from __future__ import annotations

import signal
import sqlite3
import time

from imapclient import IMAPClient
from mailkit import Got, JudgeProcess, compose, imap_config, unique, write_config

N = 120


def _count(db, sql: str) -> int:
    try:
        con = sqlite3.connect(db, timeout=10)
        try:
            return con.execute(sql).fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def test_sigkill_during_batch_then_restart(judge_mailbox, tmp_path):
    env = judge_mailbox
    text = imap_config(env, tmp_path)
    text = text[: text.index("[outbound]")] + '[outbound]\nmode = "maildir"\n'
    cfg = write_config(tmp_path, text)
    db = tmp_path / "judge.db"
    domain = f"{unique('crash')}.test"
    tag = unique("k")
    sent_ids = []
    c = IMAPClient(env["MAILTEST_HOST"], port=int(env["MAILTEST_IMAP_PORT"]), ssl=False)
    c.login("judge", "secret")
    for i in range(N):
        mid = f"<{tag}-{i}@{domain}>"
        sent_ids.append(mid)
        c.append("INBOX", compose(f"p{i}@{domain}", f"judge@{env['MAILTEST_DOMAIN']}",
                                  f"CREATE {tag}{i} secret{i}", subject=f"create {i}",
                                  message_id=mid))
    c.logout()

    first = JudgeProcess(cfg, tmp_path).start()
    try:
        deadline = time.monotonic() + 60
        while _count(db, "SELECT count(*) FROM inbox WHERE state = 'done'") < N // 4:
            assert time.monotonic() < deadline, first.log.read_text()
            time.sleep(0.01)
    finally:
        first.stop(signal.SIGKILL)  # also when the wait failed: no judge left running
    acted_before = _count(db, "SELECT count(*) FROM inbox WHERE state = 'done'")
    assert 0 < acted_before < N, "the kill must land in the middle of the batch"

    second = JudgeProcess(cfg, tmp_path).start()
    try:
        deadline = time.monotonic() + 90
        while True:
            done = _count(db, "SELECT count(*) FROM inbox WHERE state = 'done'")
            sent = _count(db, "SELECT count(*) FROM outbox WHERE state = 'sent'")
            if done == N and sent == N:
                break
            assert time.monotonic() < deadline, (done, sent, second.log.read_text())
            time.sleep(0.1)
    finally:
        assert second.stop() == 0

    # exactly once: one inbox row per message, one game per CREATE, one reply per message
    assert _count(db, "SELECT count(*) FROM inbox") == N
    assert _count(db, f"SELECT count(*) FROM games WHERE name LIKE '{tag}%'") == N
    replies = [Got(p.read_bytes()) for p in sorted((tmp_path / "outgoing" / "new").iterdir())]
    assert len(replies) == N
    assert sorted(r["In-Reply-To"] for r in replies) == sorted(sent_ids)
    for r in replies:
        assert not r.subject.startswith("[ERROR]"), r.body  # no CREATE acted on twice
        assert "created; you are its master" in r.flat
    assert list((tmp_path / "outgoing" / "tmp").iterdir()) == []

    # and the mailbox: every message flagged and moved once
    c = IMAPClient(env["MAILTEST_HOST"], port=int(env["MAILTEST_IMAP_PORT"]), ssl=False)
    c.login("judge", "secret")
    c.select_folder("INBOX")
    assert c.search(["ALL"]) == []
    c.select_folder("Processed")
    assert len(c.search(["ALL"])) == N
    c.logout()
