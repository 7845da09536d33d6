"""Intake: the built-in SMTP receiver (aiosmtpd) and the IMAP poller (imapclient).

Both only STORE: each message is written whole to the inbox table (keyed by Message-ID and a
hash of what its author wrote, or a hash of the bytes when it has none: a second, different
mail that reuses a Message-ID is kept and acted on) and then the actor is woken. The SMTP receiver answers
``250`` only after the message is committed; the IMAP poller flags a message ``$Judged`` (and
moves it to the processed folder) only after it is committed, so a crash loses nothing and a
message fetched twice is stored once.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import threading
import time
from collections.abc import Callable
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any

from judge.check import connection_error
from judge.config import Config
from judge.storage import Store, content_hash, now_utc

log = logging.getLogger("judge.intake")

JUDGED = b"$Judged"


def _message_id(raw: bytes) -> str:
    try:
        headers = BytesHeaderParser(policy=compat32).parsebytes(raw[:200_000], headersonly=True)
        return str(headers.get("Message-ID") or "").strip()
    except Exception:
        return ""


def message_key(raw: bytes) -> str:
    return Store.message_key(_message_id(raw), raw)


def store_message(store: Store, raw: bytes, source: str, mail_from: str | None = None
                  ) -> int | None:
    """Store one raw message; None when it was already stored (a duplicate: the same bytes,
    or the same Message-ID with the same author's text)."""
    mid = _message_id(raw)
    if mid:  # stored before keys had the content hash: keyed by the bare Message-ID
        old = store.one("SELECT raw FROM inbox WHERE key = ?", (mid,))
        if old is not None and content_hash(bytes(old["raw"])) == content_hash(raw):
            return None
    return store.store_inbound(Store.message_key(mid, raw), raw, source, mail_from)


# ------------------------------------------------------------ SMTP receiver
def delivered_to(rcpt_tos: list[str]) -> bytes:
    """``Delivered-To:`` lines for the envelope recipients (what an MTA's delivery agent
    adds); none with characters that cannot stand in a header."""
    lines = [f"Delivered-To: {r}\r\n".encode() for r in rcpt_tos
             if r and len(r) < 500 and not any(c in r for c in "\r\n\0")]
    return b"".join(lines)


class _Handler:
    def __init__(self, cfg: Config, on_stored: Callable[[], None],
                 clock: Callable[[], datetime]) -> None:
        self.cfg = cfg
        self.on_stored = on_stored
        self.clock = clock  # the judge's: a mail's time of receipt
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        if self._store is None:  # opened in the receiver's own thread
            self._store = Store(self.cfg.database_path, self.clock)
        return self._store

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        mail_from = envelope.mail_from or ""
        if mail_from == "<>":
            mail_from = ""
        # the envelope recipients, as a delivering MTA records them: a player's reply address
        # (judge+g1.france.<token>@host) is read from here (judge/mail/replytoken.py)
        raw = delivered_to(envelope.rcpt_tos) + raw
        try:
            # never waits long on the worker: spooled beside the database when it is busy
            inbox_id = self.store.store_or_spool(
                lambda: store_message(self.store, raw, "smtp", mail_from), raw, "smtp", mail_from)
        except Exception:
            log.exception("could not store an inbound message")
            return "451 4.3.0 The judge could not store your message; try again later"
        self.on_stored()
        if inbox_id is None:
            return "250 OK (already received)"
        return f"250 OK stored as {inbox_id}" if inbox_id else "250 OK queued"


class SmtpReceiver:
    """The built-in receiver: accepts mail on ``[intake] listen`` into the inbox."""

    def __init__(self, cfg: Config, on_stored: Callable[[], None],
                 clock: Callable[[], datetime] = now_utc) -> None:
        from aiosmtpd.controller import Controller

        self.handler = _Handler(cfg, on_stored, clock)
        # accept far more than the judge reads, so that an oversized mail gets a reply
        limit = max(64 * 1024 * 1024, cfg.max_message_bytes * 4)
        self.controller = Controller(self.handler, hostname=cfg.intake.listen_host,
                                     port=cfg.intake.listen_port, data_size_limit=limit,
                                     ready_timeout=10)

    def start(self) -> None:
        self.controller.start()
        log.info("SMTP receiver listening on %s:%s", self.controller.hostname,
                 self.controller.port)

    def stop(self) -> None:
        self.controller.stop()


# --------------------------------------------------------------- IMAP poller
def ssl_context(ca_file: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=ca_file or None)
    return ctx


class ImapIntake(threading.Thread):
    """Fetch new mail from an IMAP folder: IDLE where offered, else poll when poked."""

    BATCH = 200
    BATCH_BYTES = 16 * 1024 * 1024

    def __init__(self, cfg: Config, on_stored: Callable[[], None],
                 clock: Callable[[], datetime] = now_utc) -> None:
        super().__init__(name="imap-intake", daemon=True)
        self.cfg = cfg
        self.on_stored = on_stored
        self.clock = clock  # the judge's: a mail's time of receipt
        self.stopping = threading.Event()
        self.poke = threading.Event()
        self.connected = threading.Event()
        self.client: Any = None
        # a message that could not be stored: uid -> (when to try again, the wait before),
        # in time.monotonic() seconds: the machine's retry of its own failure, not game time
        self._retry: dict[int, tuple[float, float]] = {}

    def stop(self) -> None:
        self.stopping.set()
        self.poke.set()

    def run(self) -> None:
        store = Store(self.cfg.database_path, self.clock)
        backoff = 1.0
        while not self.stopping.is_set():
            try:
                self._session(store)
                backoff = 1.0
            except Exception as exc:
                self.connected.clear()
                if self.stopping.is_set():
                    break
                log.warning("IMAP %s:%s: %s; reconnecting in %.0f s", self.cfg.intake.host,
                            self.cfg.intake.port, connection_error(exc), backoff)
                self.stopping.wait(backoff)
                backoff = min(backoff * 2, 60.0)
            finally:
                self._logout()
        store.close()

    def _logout(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            try:
                client.logout()
            except Exception:
                with contextlib.suppress(Exception):
                    client.shutdown()

    def _connect(self) -> Any:
        from imapclient import IMAPClient

        c = self.cfg.intake
        ctx = ssl_context(c.ca_file) if (c.ssl or c.starttls) else None
        client = IMAPClient(c.host, port=c.port, ssl=c.ssl, ssl_context=ctx, timeout=60)
        self.client = client
        if c.starttls and not c.ssl:
            client.starttls(ctx)
        client.login(c.user, c.password)
        client.select_folder(c.folder)
        if c.processed_folder and not client.folder_exists(c.processed_folder):
            try:
                client.create_folder(c.processed_folder)
                client.subscribe_folder(c.processed_folder)
            except Exception as exc:
                log.warning("IMAP: cannot create folder %s: %s", c.processed_folder, exc)
        return client

    def _session(self, store: Store) -> None:
        client = self._connect()
        self._retry.clear()  # a new session: UIDs may have been renumbered (UIDVALIDITY)
        caps = client.capabilities()
        idle = b"IDLE" in caps and self.cfg.intake.idle
        move = b"MOVE" in caps
        self.connected.set()
        self._move_judged(client, move)
        log.info("IMAP: connected to %s:%s (%s)", self.cfg.intake.host, self.cfg.intake.port,
                 "IDLE" if idle else "polling")
        while not self.stopping.is_set():
            if self.fetch_new(client, store, move):
                continue
            if idle:
                self._idle(client)
            else:
                self.poke.wait(min(self.cfg.intake.poll_seconds, self._until_retry()))
                self.poke.clear()
                client.noop()

    def _chunks(self, client: Any, uids: list[int]) -> list[list[int]]:
        """Batches of at most BATCH messages and about BATCH_BYTES (big mail comes alone)."""
        sizes = client.fetch(uids, ["RFC822.SIZE"])
        chunks: list[list[int]] = []
        current: list[int] = []
        total = 0
        for uid in uids:
            size = int((sizes.get(uid) or {}).get(b"RFC822.SIZE", 0))
            if current and (len(current) >= self.BATCH or total + size > self.BATCH_BYTES):
                chunks.append(current)
                current, total = [], 0
            current.append(uid)
            total += size
        if current:
            chunks.append(current)
        return chunks

    def _move_judged(self, client: Any, move: bool) -> None:
        """Mail flagged $Judged but still here (a crash between flag and move): move it now."""
        if not self.cfg.intake.processed_folder:
            return
        left = client.search(["KEYWORD", "$Judged"])
        if left:
            self._move(client, left, move)

    def _move(self, client: Any, uids: list[int], move: bool) -> None:
        processed = self.cfg.intake.processed_folder
        try:
            if move:
                client.move(uids, processed)
            else:
                client.copy(uids, processed)
                client.delete_messages(uids, silent=True)
                client.expunge(uids)
        except Exception as exc:  # the $Judged flag already keeps them done
            log.warning("IMAP: could not move mail to %s: %s", processed, exc)

    def _idle(self, client: Any) -> None:
        client.idle()
        try:
            until = time.monotonic() + min(self.cfg.intake.idle_seconds, self._until_retry())
            while not self.stopping.is_set() and time.monotonic() < until:
                responses = client.idle_check(timeout=1)
                if responses or self.poke.is_set():
                    self.poke.clear()
                    break
        finally:
            client.idle_done()

    RETRY_MAX = 300.0  # a message that cannot be stored is tried again after 1, 2, 4 ... s

    def _until_retry(self) -> float:
        """Seconds until a message that could not be stored is to be tried again."""
        if not self._retry:
            return float("inf")
        return max(0.0, min(at for at, _ in self._retry.values()) - time.monotonic())

    def fetch_new(self, client: Any, store: Store, move: bool) -> int:
        """Store every message not yet flagged $Judged; then flag (and move) it. A message
        that cannot be stored is left unflagged on the server and fetched again after a
        while (1 s, then twice as long each time, up to RETRY_MAX), and the others are
        stored meanwhile (it used to roll its whole batch back, again and again). Returns
        how many messages were stored (or found stored already)."""
        uids = client.search(["NOT", "KEYWORD", "$Judged", "NOT", "DELETED"])
        now = time.monotonic()
        uids = [u for u in uids if self._retry.get(u, (0.0, 0.0))[0] <= now]
        if not uids:
            return 0
        done = 0
        for chunk in self._chunks(client, sorted(uids)):
            data = client.fetch(chunk, ["BODY.PEEK[]"])
            failed: set[int] = set()
            with store.transaction():
                for uid in chunk:
                    item = data.get(uid)
                    if not item:
                        continue
                    raw = item.get(b"BODY[]") or b""
                    try:
                        with store.db.atomic():  # a savepoint: this message alone
                            store_message(store, raw, "imap")
                    except Exception:
                        failed.add(uid)
                        wait = min(self.RETRY_MAX, 2 * self._retry.get(uid, (0.0, 0.5))[1])
                        self._retry[uid] = (now + wait, wait)
                        log.exception("IMAP: message %s (%d bytes) could not be stored; left "
                                      "on the server, tried again in %.0f s", uid, len(raw),
                                      wait)
            # only now that they are committed: mark them done on the server
            judged = [u for u in chunk if u not in failed]
            for uid in judged:
                self._retry.pop(uid, None)
            if judged:
                client.add_flags(judged, [b"\\Seen", JUDGED], silent=True)
                if self.cfg.intake.processed_folder:
                    self._move(client, judged, move)
                self.on_stored()
            done += len(judged)
        return done
