"""The sender: SMTP with STARTTLS/SSL and login through real postfix, retries with backoff
while the server is away, permanent refusals kept as failed, Maildir delivery; every message
tried on its own (a refused or unsendable one never holds the others), failures classified,
internationalised addresses, give-up after [outbound] give_up_hours, and outcomes that never
wait for the worker's database lock."""

from __future__ import annotations

import logging
import smtplib
import sqlite3
from datetime import timedelta

import pytest
from mailkit import Got, Sink, free_port, unique

from judge.config import Config
from judge.mail.outbox import Outbox
from judge.mail.sender import Sender, address_problem, classify, read_maildir
from judge.storage import Store, now_utc


def make(tmp_path, clock=None, **outbound) -> tuple[Sender, Outbox, Store]:
    cfg = Config(address="judge@example.test", database=str(tmp_path / "judge.db"),
                 base_dir=tmp_path)
    for k, v in outbound.items():
        setattr(cfg.outbound, k, v)
    store = Store(cfg.database_path)
    sender = Sender(cfg, store) if clock is None else Sender(cfg, store, clock)
    return sender, Outbox(store, cfg), store


def queue_help(outbox: Outbox, to: str) -> int:
    return outbox.queue(kind="reply", to=to, subject="Re: help", template="reply.txt.j2",
                        context={"items": [{"echo": "HELP", "text": "", "error": False,
                                            "kind": "help",
                                            "data": {"variants": [], "soon": "2030-01-02",
                                                     "away": "2030-01-29"}}],
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


def test_a_replaced_ca_file_is_read_again(mail_servers, smtp_sink, tmp_path):
    """The sender keeps its TLS context between connections, and makes it again when the CA
    file changes: a CA that did not sign the server's certificate fails the next message."""
    import os
    import shutil
    import subprocess

    env = mail_servers
    ca = tmp_path / "ca.pem"
    shutil.copy(env["MAILTEST_CA_FILE"], ca)
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-keyout", other / "key.pem", "-out", other / "cert.pem"],
                   check=True, capture_output=True)
    sender, outbox, store = make(tmp_path, mode="smtp", host=env["MAILTEST_HOST"],
                                 port=int(env["MAILTEST_SMTP_PORT"]), starttls=True,
                                 user="judge", password="secret", ca_file=str(ca))
    domain = unique("ca")
    first = queue_help(outbox, f"a@{domain}.test")
    assert sender.flush() == 1 and state(store, first)["state"] == "sent"
    shutil.copy(other / "cert.pem", ca)
    st = os.stat(ca)
    os.utime(ca, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # surely a new mtime
    second = queue_help(outbox, f"b@{domain}.test")
    assert sender.flush() == 0
    row = state(store, second)
    assert row["state"] == "pending" and "certificate" in row["last_error"].lower(), row
    shutil.copy(env["MAILTEST_CA_FILE"], ca)
    os.utime(ca, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    third = queue_help(outbox, f"c@{domain}.test")
    assert sender.flush() == 1 and state(store, third)["state"] == "sent"
    smtp_sink.wait(lambda m: m.rcpt == f"c@{domain}.test")


def test_wrong_login_keeps_the_message_for_a_retry(own_mail_servers, tmp_path):
    env = own_mail_servers
    sender, outbox, store = make(tmp_path, mode="smtp", host=env["MAILTEST_HOST"],
                                 port=int(env["MAILTEST_SMTP_PORT"]), starttls=True,
                                 user="judge", password="wrong",
                                 ca_file=env["MAILTEST_CA_FILE"])
    oid = queue_help(outbox, "bob@players.test")
    assert sender.flush() == 0
    row = state(store, oid)
    assert row["state"] == "pending" and row["attempts"] == 1 and "535" in row["last_error"]


def test_retries_with_backoff_until_the_server_accepts(tmp_path):
    # the sender's clock is the test's: on the real one, a loaded machine that paused the
    # test for the 0.3 s of backoff between two flushes made the second one due
    now = [now_utc()]
    port = free_port()
    sender, outbox, store = make(tmp_path, clock=lambda: now[0], mode="smtp",
                                 host="127.0.0.1", port=port, starttls=False,
                                 retry_seconds=0.3)
    oid = queue_help(outbox, "carol@players.test")
    now[0] = now_utc()  # the message is due from when it was queued
    assert sender.flush() == 0  # nobody listening
    first = state(store, oid)
    assert first["state"] == "pending" and first["attempts"] == 1 and first["last_error"]
    assert sender.flush() == 0  # not due yet: backoff
    assert state(store, oid)["attempts"] == 1
    sink = Sink(port)
    sink.start()
    try:
        now[0] += timedelta(seconds=0.4)
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


# ------------------------------------------------------------ classification
@pytest.mark.parametrize(("exc", "permanent", "session"), [
    (smtplib.SMTPRecipientsRefused({"a@x.test": (550, b"5.1.1 no such user")}), True, "ok"),
    (smtplib.SMTPRecipientsRefused({"a@x.test": (501, b"5.1.3 Bad address syntax")}), True,
     "ok"),
    (smtplib.SMTPRecipientsRefused({"a@x.test": (450, b"4.2.0 greylisted")}), False, "ok"),
    (smtplib.SMTPSenderRefused(553, b"5.6.7 Must declare SMTPUTF8", "j@x.test"), True, "ok"),
    (smtplib.SMTPDataError(554, b"5.7.1 rejected as spam"), True, "ok"),
    (smtplib.SMTPDataError(452, b"4.3.1 insufficient storage"), False, "ok"),
    (smtplib.SMTPResponseException(421, b"4.3.2 shutting down"), False, "gone"),
    (smtplib.SMTPServerDisconnected("Connection unexpectedly closed"), False, "gone"),
    (ConnectionRefusedError(111, "Connection refused"), False, "gone"),
    (TimeoutError("timed out"), False, "gone"),
    (smtplib.SMTPNotSupportedError("SMTPUTF8 not supported by server"), True, "reset"),
    ("j\udcc3\udcb6rg@x.test".encode, True, "reset"),  # raises UnicodeEncodeError
    (ValueError("anything else that fails the same way every time"), True, "reset"),
])
def test_failures_are_classified(exc, permanent, session):
    if callable(exc):
        with pytest.raises(UnicodeError) as info:
            exc()
        exc = info.value
    f = classify(exc)
    assert (f.permanent, f.session) == (permanent, session), f
    assert f.reason


@pytest.mark.parametrize(("addr", "problem"), [
    ("alice@players.test", ""),
    ("jörg@exämple.test", ""),  # internationalised: fine, needs SMTPUTF8
    ("j\ufffd\ufffdrg@example.com", "not valid UTF-8"),  # raw UTF-8 read as unknown bytes
    ("j\udcc3\udcb6rg@example.com", "not valid UTF-8"),
    ("a@x.test>\r\nRCPT TO:<victim@y.test", "control characters"),
    ("nobody", "not LOCAL@DOMAIN"),
    ("@players.test", "not LOCAL@DOMAIN"),
    ("a" * 250 + "@x.test", "longer than 254"),
])
def test_addresses_that_cannot_be_sent_to(addr, problem):
    got = address_problem(addr)
    assert (problem in got and got) if problem else got == ""


# ------------------------------------------------------- one row at a time
def refusing_sink(**kw) -> tuple[Sink, int]:
    port = free_port()
    sink = Sink(port, **kw)
    sink.start()
    return sink, port


def test_unsendable_and_refused_rows_never_hold_the_others(tmp_path, caplog):
    """Through a server refusing one recipient for good (550) and one for now (450), with an
    undecodable address and one that cannot be encoded in between: the others all go in one
    flush; each failure is recorded in its row and logged."""
    sink, port = refusing_sink(rcpt_reply=lambda a: {
        "gone@players.test": "550 5.1.1 no such user",
        "busy@players.test": "450 4.2.1 mailbox busy"}.get(a))
    try:
        sender, outbox, store = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                     starttls=False)
        to = ["a@players.test", "j\ufffd\ufffdrg@example.com", "b@players.test",
              "gone@players.test", "c@players.test", "busy@players.test", "d@players.test"]
        ids = [queue_help(outbox, t) for t in to]
        store.execute("UPDATE outbox SET rcpt = ? WHERE id = ?",  # raw bytes, not text
                      (b"j\xc3\xb6rg@example.com", ids[2]))
        with caplog.at_level(logging.WARNING, logger="judge.sender"):
            assert sender.flush() == 3
        got = sorted(m.rcpt for m in sink.messages)
        assert got == ["a@players.test", "c@players.test", "d@players.test"]
        rows = [state(store, i) for i in ids]
        assert [r["state"] for r in rows] == ["sent", "failed", "failed", "failed", "sent",
                                              "pending", "sent"]
        assert [r["failure"] for r in rows] == [None, "permanent", "permanent", "permanent",
                                                None, None, None]
        assert "not valid UTF-8" in rows[1]["last_error"]
        assert "not text" in rows[2]["last_error"]
        assert "550" in rows[3]["last_error"] and "no such user" in rows[3]["last_error"]
        assert "450" in rows[5]["last_error"] and rows[5]["attempts"] == 1
        assert rows[5]["next_attempt"] > rows[5]["created"]
        for i in (1, 2, 3, 5):
            assert f"outbox {ids[i]} to" in caplog.text
        assert caplog.text.count("given up: permanent") == 3
        assert sender.flush() == 0  # the 450 waits for its backoff; nothing is sent twice
        assert len(sink.messages) == 3
    finally:
        sink.stop()


def test_internationalised_address_goes_with_smtputf8(mail_servers, tmp_path):
    """Postfix offers SMTPUTF8: the reply to jörg@ goes through it (and on to a relay that
    offers it too); a plain address in the same flush as well."""
    env = mail_servers
    relay = Sink(int(env["MAILTEST_RELAY_PORT"]), smtputf8=True)
    relay.start()
    try:
        sender, outbox, store = make(tmp_path, mode="smtp", host=env["MAILTEST_HOST"],
                                     port=int(env["MAILTEST_SMTP_PORT"]), starttls=True,
                                     user="judge", password="secret",
                                     ca_file=env["MAILTEST_CA_FILE"])
        domain = unique("idn")
        jorg, plain = f"jörg@{domain}.test", f"plain@{domain}.test"
        ids = [queue_help(outbox, jorg), queue_help(outbox, plain)]
        assert sender.flush() == 2
        assert [state(store, i)["state"] for i in ids] == ["sent", "sent"]
        relay.wait(lambda m: m.rcpt == jorg)
        relay.wait(lambda m: m.rcpt == plain)
    finally:
        relay.stop()


def test_internationalised_address_is_refused_cleanly_without_smtputf8(tmp_path, caplog):
    sink, port = refusing_sink(smtputf8=False)
    try:
        sender, outbox, store = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                     starttls=False)
        ids = [queue_help(outbox, "jörg@example.test"), queue_help(outbox, "ann@x.test")]
        with caplog.at_level(logging.WARNING, logger="judge.sender"):
            assert sender.flush() == 1
        jorg, ann = (state(store, i) for i in ids)
        assert jorg["state"] == "failed" and jorg["failure"] == "permanent"
        assert "does not offer SMTPUTF8" in jorg["last_error"]
        assert ann["state"] == "sent" and [m.rcpt for m in sink.messages] == ["ann@x.test"]
        assert "SMTPUTF8" in caplog.text
    finally:
        sink.stop()


def test_temporary_refusal_backs_off_then_delivers(tmp_path):
    replies = ["451 4.7.1 greylisted, try again later"]
    sink, port = refusing_sink(rcpt_reply=lambda a: replies.pop() if replies else None)
    try:
        now = [now_utc()]  # the test's clock: see test_retries_with_backoff_until_...
        sender, outbox, store = make(tmp_path, clock=lambda: now[0], mode="smtp",
                                     host="127.0.0.1", port=port, starttls=False,
                                     retry_seconds=0.3)
        oid = queue_help(outbox, "grey@players.test")
        now[0] = now_utc()  # the message is due from when it was queued
        assert sender.flush() == 0
        row = state(store, oid)
        assert row["state"] == "pending" and row["attempts"] == 1 and "451" in row["last_error"]
        assert sender.flush() == 0 and state(store, oid)["attempts"] == 1  # backing off
        now[0] += timedelta(seconds=0.4)
        assert sender.flush() == 1
        row = state(store, oid)
        assert row["state"] == "sent" and row["attempts"] == 2 and row["failure"] is None
        assert [m.rcpt for m in sink.messages] == ["grey@players.test"]
    finally:
        sink.stop()


def test_temporary_failures_are_given_up_after_give_up_hours(tmp_path, caplog):
    """Nobody listens: retried with backoff while the message is younger than give_up_hours
    (here the default, two days), then marked failed ('expired') and logged."""
    now = [now_utc()]
    sender, outbox, store = make(tmp_path, clock=lambda: now[0], mode="smtp",
                                 host="127.0.0.1", port=free_port(), starttls=False)
    oid = queue_help(outbox, "away@players.test")
    for hours in (0, 1, 24, 47.9):
        now[0] = now_utc() + timedelta(hours=hours)
        assert sender.flush() == 0
        assert state(store, oid)["state"] == "pending", hours
    assert state(store, oid)["attempts"] == 4
    now[0] = now_utc() + timedelta(hours=48.1)
    with caplog.at_level(logging.WARNING, logger="judge.sender"):
        assert sender.flush() == 0
    row = state(store, oid)
    assert row["state"] == "failed" and row["failure"] == "expired" and row["attempts"] == 5
    assert "connect" in row["last_error"]
    assert f"outbox {oid} to away@players.test" in caplog.text and "given up" in caplog.text
    now[0] += timedelta(days=30)
    assert sender.flush() == 0 and state(store, oid)["attempts"] == 5  # never tried again


def test_sent_is_recorded_while_the_worker_holds_the_database(tmp_path):
    """Another connection (the worker in a long transaction) holds the write lock: the
    sender still sends, and what it sent is never sent again, also by a new sender after a
    crash (here: the first one is abandoned, never closed). The outbox table catches up once
    the lock is free."""
    sink, port = refusing_sink()
    try:
        sender, outbox, store = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                     starttls=False)
        ids = [queue_help(outbox, f"p{i}@players.test") for i in range(3)]
        restarted, _, store2 = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                    starttls=False)  # opened now: opening waits for the lock
        worker = sqlite3.connect(tmp_path / "judge.db", isolation_level=None)
        worker.execute("BEGIN IMMEDIATE")
        worker.execute("UPDATE games SET status = status")  # holds the lock
        assert sender.flush() == 3
        assert len(sink.messages) == 3
        assert [state(store, i)["state"] for i in ids] == ["pending"] * 3  # not copied yet
        assert restarted.flush() == 0  # after a crash: nothing sent twice
        worker.execute("COMMIT")
        assert restarted.flush() == 0
        assert [state(store2, i)["state"] for i in ids] == ["sent"] * 3
        assert len(sink.messages) == 3
    finally:
        sink.stop()


def test_many_refused_recipients_in_one_session_never_hold_the_rest(mail_servers, smtp_sink,
                                                                    tmp_path):
    """Postfix refuses each of 25 bad addresses (501) in one session (a server may also drop
    a session after too many errors): the good messages after them go in the same flush."""
    env = mail_servers
    sender, outbox, store = make(tmp_path, mode="smtp", host=env["MAILTEST_HOST"],
                                 port=int(env["MAILTEST_SMTP_PORT"]), starttls=True,
                                 user="judge", password="secret",
                                 ca_file=env["MAILTEST_CA_FILE"])
    domain = unique("many")
    bad = [queue_help(outbox, f"p{i}@{domain}..test") for i in range(25)]
    good = [queue_help(outbox, f"ok{i}@{domain}.test") for i in range(2)]
    assert sender.flush() == 2
    for i, to in enumerate(["ok0", "ok1"]):
        smtp_sink.wait(lambda m, to=to: m.rcpt == f"{to}@{domain}.test")
        assert state(store, good[i])["state"] == "sent"
    failed = [state(store, i) for i in bad]
    assert all(r["state"] in ("failed", "pending") for r in failed)
    assert sum(r["failure"] == "permanent" and "501" in r["last_error"] for r in failed) >= 20


def test_a_session_the_server_closed_is_replaced_without_a_failure(tmp_path):
    """A server that hangs up after every message (as after an idle timeout): each next
    message goes on a new session, none counted as failed."""
    import asyncio

    from aiosmtpd.controller import Controller

    got: list[str] = []

    class HangUp:
        async def handle_DATA(self, server, session, envelope):
            got.extend(envelope.rcpt_tos)
            asyncio.get_running_loop().call_soon(server.transport.close)
            return "250 OK"

    port = free_port()
    c = Controller(HangUp(), hostname="127.0.0.1", port=port)
    c.start()
    try:
        sender, outbox, store = make(tmp_path, mode="smtp", host="127.0.0.1", port=port,
                                     starttls=False)
        ids = [queue_help(outbox, f"p{i}@players.test") for i in range(3)]
        assert sender.flush() == 3
        assert got == [f"p{i}@players.test" for i in range(3)]
        assert [(state(store, i)["attempts"], state(store, i)["last_error"]) for i in ids] \
            == [(1, None)] * 3
    finally:
        c.stop()
