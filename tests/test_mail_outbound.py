"""The sender: SMTP with STARTTLS/SSL and login through real postfix, retries with backoff
while the server is away, permanent refusals kept as failed, Maildir delivery."""

from __future__ import annotations

import time

import pytest
from mailkit import Got, Sink, free_port, unique

from judge.config import Config
from judge.mail.outbox import Outbox
from judge.mail.sender import Sender, read_maildir
from judge.storage import Store


def make(tmp_path, **outbound) -> tuple[Sender, Outbox, Store]:
    cfg = Config(address="judge@example.test", database=str(tmp_path / "judge.db"),
                 base_dir=tmp_path)
    for k, v in outbound.items():
        setattr(cfg.outbound, k, v)
    store = Store(cfg.database_path)
    return Sender(cfg, store), Outbox(store, cfg), store


def queue_help(outbox: Outbox, to: str) -> int:
    return outbox.queue(kind="reply", to=to, subject="Re: help", template="reply.txt.j2",
                        context={"items": [{"echo": "HELP", "text": "", "error": False,
                                            "kind": "help", "data": None}],
                                 "errors": 0, "judge_name": "Judge"},
                        in_reply_to="<x@players.test>")


def state(store: Store, oid: int) -> dict:
    return store.one("SELECT * FROM outbox WHERE id = ?", (oid,))


@pytest.mark.parametrize("mode", ["starttls", "ssl"])
def test_sends_through_postfix_with_tls_and_login(mail_servers, smtp_sink, tmp_path, mode):
    env = mail_servers
    port = env["MAILTEST_SMTP_PORT"] if mode == "starttls" else env["MAILTEST_SMTPS_PORT"]
    sender, outbox, store = make(tmp_path, mode="smtp", host=env["MAILTEST_HOST"],
                                 port=int(port), ssl=mode == "ssl",
                                 starttls=mode == "starttls", user="judge",
                                 password="secret", ca_file=env["MAILTEST_CA_FILE"])
    to = f"alice@{unique('out')}.test"
    oid = queue_help(outbox, to)
    assert sender.flush() == 1
    assert state(store, oid)["state"] == "sent"
    [got] = smtp_sink.wait(lambda m: m.rcpt == to)
    assert got["Auto-Submitted"] == "auto-replied" and got["In-Reply-To"] == "<x@players.test>"
    assert "SIGNON <power> <game> <password>" in got.body


def test_wrong_login_keeps_the_message_for_a_retry(mail_servers, tmp_path):
    env = mail_servers
    sender, outbox, store = make(tmp_path, mode="smtp", host=env["MAILTEST_HOST"],
                                 port=int(env["MAILTEST_SMTP_PORT"]), starttls=True,
                                 user="judge", password="wrong",
                                 ca_file=env["MAILTEST_CA_FILE"])
    oid = queue_help(outbox, "bob@players.test")
    assert sender.flush() == 0
    row = state(store, oid)
    assert row["state"] == "pending" and row["attempts"] == 1 and "535" in row["last_error"]


def test_retries_with_backoff_until_the_server_accepts(tmp_path):
    port = free_port()
    sender, outbox, store = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                 starttls=False, retry_seconds=0.3)
    oid = queue_help(outbox, "carol@players.test")
    assert sender.flush() == 0  # nobody listening
    first = state(store, oid)
    assert first["state"] == "pending" and first["attempts"] == 1 and first["last_error"]
    assert sender.flush() == 0  # not due yet: backoff
    assert state(store, oid)["attempts"] == 1
    sink = Sink(port)
    sink.start()
    try:
        time.sleep(0.4)
        assert sender.flush() == 1
        assert state(store, oid)["state"] == "sent"
        [got] = sink.wait(lambda m: m.rcpt == "carol@players.test")
        assert got.subject == "Re: help"
    finally:
        sink.stop()


def test_permanent_refusal_is_kept_as_failed(tmp_path):
    from aiosmtpd.controller import Controller

    class Refuse:
        async def handle_RCPT(self, server, session, envelope, address, options):
            return "550 5.1.1 no such user"

    port = free_port()
    c = Controller(Refuse(), hostname="127.0.0.1", port=port)
    c.start()
    try:
        sender, outbox, store = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                     starttls=False)
        oid = queue_help(outbox, "nobody@players.test")
        assert sender.flush() == 0
        row = state(store, oid)
        assert row["state"] == "failed" and "550" in row["last_error"]
    finally:
        c.stop()


def test_maildir_delivery_writes_each_message_once(tmp_path):
    sender, outbox, store = make(tmp_path, mode="maildir")
    oid = queue_help(outbox, "dave@players.test")
    assert sender.flush() == 1
    # a retry of the same row (as after a crash before it was marked sent) never duplicates
    store.execute("UPDATE outbox SET state = 'pending' WHERE id = ?", (oid,))
    assert sender.flush() == 1
    [raw] = read_maildir(tmp_path / "outgoing")
    got = Got(raw)
    assert got.rcpt == "dave@players.test" and got["Return-Path"] == "<judge@example.test>"
    assert list((tmp_path / "outgoing" / "tmp").iterdir()) == []
