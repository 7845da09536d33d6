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


def test_imaps_intake_flags_mail_only_after_it_is_stored(judge_mailbox, tmp_path,
                                                         monkeypatch):
    """Over implicit TLS (certificate verified): while storing fails, the message stays
    unflagged in the INBOX; once storing works it is stored once, flagged and moved."""
    import threading

    from imapclient import IMAPClient

    from judge.config import Config
    from judge.mail.intake import ImapIntake
    from judge.storage import Store

    env = judge_mailbox
    cfg = Config(address=f"judge@{env['MAILTEST_DOMAIN']}",
                 database=str(tmp_path / "judge.db"), base_dir=tmp_path)
    i = cfg.intake
    i.mode, i.host, i.port, i.ssl = "imap", "localhost", int(env["MAILTEST_IMAPS_PORT"]), True
    i.user, i.password, i.ca_file = "judge", "secret", env["MAILTEST_CA_FILE"]
    store = Store(cfg.database_path)
    mid = f"<{unique('tls')}@players.test>"
    c = IMAPClient(env["MAILTEST_HOST"], port=int(env["MAILTEST_IMAP_PORT"]), ssl=False)
    c.login("judge", "secret")
    c.append("INBOX", compose("p@players.test", cfg.address, "HELP", message_id=mid))

    failing = threading.Event()
    failing.set()
    real = Store.store_inbound

    def store_inbound(self, *args, **kwargs):
        if failing.is_set():
            raise OSError("disk full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "store_inbound", store_inbound)
    stored = threading.Event()
    intake = ImapIntake(cfg, stored.set)
    intake.start()
    try:
        assert intake.connected.wait(10)
        time.sleep(1.0)
        c.select_folder("INBOX")
        uids = c.search(["ALL"])
        assert len(uids) == 1
        assert b"$Judged" not in c.get_flags(uids)[uids[0]]  # not stored: not marked done
        assert store.pending_inbox() == []
        failing.clear()  # the disk is back; the poller reconnects and fetches again
        assert stored.wait(30)
        row = store.one("SELECT key, state FROM inbox")
        assert row["key"].split()[0] == mid and row["state"] == "new"
        deadline = time.monotonic() + 10
        while c.search(["ALL"]) and time.monotonic() < deadline:
            time.sleep(0.1)
            c.noop()
        assert c.search(["ALL"]) == []
        c.select_folder("Processed")
        [uid] = c.search(["ALL"])
        assert b"$Judged" in c.get_flags([uid])[uid]
    finally:
        intake.stop()
        intake.join(10)
        c.logout()
