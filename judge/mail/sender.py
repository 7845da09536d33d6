"""The sender: drains the outbox over SMTP (or into a Maildir), each message on its own.

A message leaves the ``pending`` state only once the server accepted it (or the Maildir file
is in ``new/``). Every message is tried by itself, and whatever goes wrong with one (a refused
recipient, an address the server cannot take, an exception while encoding it) is that
message's failure, never the loop's: the next one is tried straight after. Failures are
classified (:func:`classify`):

* permanent: a 5xx reply, an address that is not an address (undecodable bytes, control
  characters), an internationalised address when the server does not offer SMTPUTF8, a message
  that cannot be encoded; the message is marked ``failed`` at once (``failure = 'permanent'``);
* temporary: no connection, a dropped connection, a 4xx reply; the message is retried with
  exponential backoff (``[outbound] retry_seconds`` doubling up to 15 minutes) and given up
  (``failure = 'expired'``) once it has waited ``give_up_hours`` (two days, as MTAs do).

Every failure is logged and kept in the outbox row (``attempts``, ``last_error``). Outcomes are
written first to the sender's own ledger (:mod:`judge.mail.ledger`), so recording "the server
accepted it" never waits for the worker's database lock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import smtplib
import socket
import sqlite3
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from judge.config import Config
from judge.mail.ledger import Ledger, ledger_path
from judge.storage import Store, iso, parse_iso

log = logging.getLogger("judge.sender")

BATCH = 200
MAX_PER_FLUSH = 20_000  # the rest wait for the next flush (a few seconds later)
FOLD_WAIT = 0.2  # seconds the sender waits for the database lock to copy its ledger over


def backoff_seconds(attempts: int, base: float = 5.0) -> float:
    return float(min(base * 2 ** max(0, attempts), 900.0))


@dataclass(frozen=True, slots=True)
class Failure:
    """Why one message was not delivered this time."""

    reason: str
    permanent: bool
    session: str = "ok"  # the SMTP session afterwards: ok | reset (RSET first) | gone


def _by_code(code: int, text: bytes | str, what: str) -> Failure:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    reason = f"{what}: {code} {' '.join(str(text).split())}".rstrip()
    return Failure(reason, permanent=500 <= code < 600,
                   session="gone" if code == 421 else "ok")


class BadAddress(ValueError):
    """An envelope address that no server could take (see :func:`address_problem`)."""


def classify(exc: BaseException) -> Failure:
    """Permanent (5xx, an address or message that cannot be sent) or temporary (4xx, the
    connection); and whether the SMTP session can be used for the next message."""
    if isinstance(exc, BadAddress):
        return Failure(str(exc), permanent=True)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return Failure(f"the server does not offer SMTPUTF8, needed for this internationalised "
                       f"address ({exc})", permanent=True, session="reset")
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, text = next(iter(exc.recipients.values()), (0, b""))
        return _by_code(code, text, "recipient refused")
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return _by_code(exc.smtp_code, exc.smtp_error, "sender refused")
    if isinstance(exc, smtplib.SMTPDataError):
        return _by_code(exc.smtp_code, exc.smtp_error, "message refused")
    if isinstance(exc, smtplib.SMTPResponseException):
        return _by_code(exc.smtp_code, exc.smtp_error, "server said")
    if isinstance(exc, smtplib.SMTPServerDisconnected | OSError):  # incl. timeouts, TLS
        return Failure(f"connection: {type(exc).__name__}: {exc}", permanent=False,
                       session="gone")
    if isinstance(exc, smtplib.SMTPException):
        return Failure(f"SMTP: {type(exc).__name__}: {exc}", permanent=False, session="reset")
    if isinstance(exc, UnicodeError):
        return Failure(f"cannot be encoded for SMTP: {exc}", permanent=True, session="reset")
    # anything else would fail the same way every time: never let it hold the queue
    return Failure(f"{type(exc).__name__}: {exc}", permanent=True, session="reset")


def address_problem(addr: str) -> str:
    """Why ``addr`` cannot be an envelope address, or '' (the server judges the rest)."""
    if not isinstance(addr, str):
        return "it is not text"
    if any(0xD800 <= ord(c) <= 0xDFFF or c == "\ufffd" for c in addr):
        return "it holds bytes that are not valid UTF-8"
    if any(ord(c) < 32 or ord(c) == 127 for c in addr):
        return "it holds control characters"
    local, at, domain = addr.rpartition("@")
    if not (at and local and domain):
        return "it is not LOCAL@DOMAIN"
    if len(addr.encode("utf-8")) > 254:
        return "it is longer than 254 bytes"
    return ""


class Sender:
    def __init__(self, cfg: Config, store: Store,
                 clock: Callable[[], datetime] | None = None) -> None:
        """``clock``: the judge's; None is the store's (read at each use: an actor on the
        same store may be given another), the clock the outbox's rows are stamped by: a row
        is due when its next attempt, at first its ``created``, is reached on it."""
        self.cfg = cfg
        self.store = store
        self._clock = clock
        self.ledger = Ledger(ledger_path(store.path))
        self._tls: tuple[tuple[str, tuple[int, int, int] | None], ssl.SSLContext] | None = None

    def clock(self) -> datetime:
        return (self._clock or self.store.clock)()

    def close(self) -> None:
        self._fold()
        self.ledger.close()
        self.store.close()

    def flush(self) -> int:
        """Try every message that is due, each once; returns how many were accepted."""
        sent = 0
        tried: set[int] = set()
        self._fold()
        try:
            while len(tried) < MAX_PER_FLUSH and (rows := self._due(tried)):
                tried.update(r["id"] for r in rows)
                if self.cfg.outbound.mode == "maildir":
                    sent += self._to_maildir(rows)
                else:
                    sent += self._to_smtp(rows)
        finally:
            self._fold()
        return sent

    # -------------------------------------------------------------- the queue
    def _due(self, tried: set[int]) -> list[dict]:
        """Due rows of the outbox, as the ledger knows them (outcomes not yet copied over)."""
        now = self.clock()
        marks = self.ledger.marks()
        skip = set(tried)
        for oid, m in marks.items():
            if m["state"] in ("sent", "failed") or (
                    m["state"] == "pending" and parse_iso(m["next_attempt"]) > now):
                skip.add(oid)
        rows = self.store.due_outbound(BATCH, now, skip)
        for row in rows:
            mark = marks.get(row["id"])
            if mark is None or mark["message_id"] != row["message_id"]:
                continue
            row.update(attempts=mark["attempts"], last_error=mark["last_error"],
                       next_attempt=mark["next_attempt"])
            if mark["state"] == "sending":
                log.warning("outbox %s to %s: the judge stopped while sending it; sending "
                            "again (the recipient may get it twice)", row["id"], row["rcpt"])
        return rows

    def _mark(self, row: dict, state: str, *, error: str | None = None,
              failure: str | None = None, next_attempt: datetime | None = None) -> None:
        now = self.clock()
        sending = state == "sending"
        self.ledger.put({
            "id": row["id"], "message_id": row["message_id"], "state": state,
            "attempts": row["attempts"] + (0 if sending else 1),
            "last_error": row.get("last_error") if error is None else error[:500],
            "next_attempt": iso(next_attempt) if next_attempt else row["next_attempt"],
            "failure": failure, "sent": iso(now) if state == "sent" else None})

    def _fold(self) -> None:
        """Copy the ledger's settled outcomes into the outbox table when the database is free
        (else later: the ledger keeps them)."""
        marks = list(self.ledger.marks().values())
        if not marks:
            return
        try:
            with self.store.busy_timeout(FOLD_WAIT):
                stale = self.store.record_outbound(marks)
        except sqlite3.OperationalError as exc:
            log.debug("outbox: %d outcome(s) wait for the database: %s", len(marks), exc)
            return
        self.ledger.drop([m["id"] for m in marks if m["state"] != "sending"] + stale)

    def _failed(self, row: dict, f: Failure, quiet: bool = False) -> None:
        o = self.cfg.outbound
        attempts = row["attempts"] + 1
        now = self.clock()
        waited = now - parse_iso(row["created"])
        failure = None
        if f.permanent:
            failure, note = "permanent", "given up: permanent failure"
        elif waited >= timedelta(hours=o.give_up_hours) or (
                o.max_attempts and attempts >= o.max_attempts):
            failure = "expired"
            note = f"given up after {attempts} attempts in {_duration(waited)}"
        when = now + timedelta(seconds=backoff_seconds(row["attempts"], o.retry_seconds))
        if failure:
            self._mark(row, "failed", error=f"{failure}: {f.reason}", failure=failure)
        else:
            note = f"retry at {when:%Y-%m-%d %H:%M:%S}"
            self._mark(row, "pending", error=f.reason, next_attempt=when)
        (log.debug if quiet and not failure else log.warning)(
            "outbox %s to %s: %s (%s)", row["id"], row["rcpt"], f.reason, note)

    # ------------------------------------------------------------- Maildir
    def _to_maildir(self, rows: list[dict]) -> int:
        root = self.cfg.maildir_path
        done = 0
        for row in rows:
            try:
                for sub in ("tmp", "new", "cur"):
                    (root / sub).mkdir(parents=True, exist_ok=True)
                # time.id.host, fixed per outbox row: a retry rewrites the same file
                stamp = int(parse_iso(row["created"]).timestamp())
                name = f"{stamp}.J{row['id']:010d}_{row['kind']}.{socket.gethostname()}"
                tmp = root / "tmp" / name
                with open(tmp, "wb") as fh:
                    fh.write(_with_envelope(row))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, root / "new" / name)  # same name on a retry: never two copies
            except OSError as exc:
                self._failed(row, Failure(f"cannot write {root}: {exc}", permanent=False))
                continue
            except Exception as exc:  # noqa: BLE001 - this row's failure, not the loop's
                self._failed(row, classify(exc))
                continue
            self._mark(row, "sent")
            done += 1
        return done

    # ---------------------------------------------------------------- SMTP
    def _tls_context(self) -> ssl.SSLContext:
        """The TLS context, made again only when the CA file changes: loading the system's
        CA store costs ~20 ms of CPU, which every connection paid (without TLS too)."""
        ca_file = self.cfg.outbound.ca_file
        version: tuple[int, int, int] | None = None  # a file replaced or rewritten in place
        if ca_file:
            with contextlib.suppress(OSError):
                st = os.stat(ca_file)
                version = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._tls is None or self._tls[0] != (ca_file, version):
            self._tls = ((ca_file, version), ssl.create_default_context(cafile=ca_file or None))
        return self._tls[1]

    def _connect(self) -> smtplib.SMTP:
        o = self.cfg.outbound
        smtp: smtplib.SMTP
        if o.ssl:
            smtp = smtplib.SMTP_SSL(o.host, o.port, timeout=o.timeout,
                                    context=self._tls_context())
        else:
            smtp = smtplib.SMTP(o.host, o.port, timeout=o.timeout)
        # TLS writes a message as 16 KB records, one write each: with Nagle's algorithm every
        # record after the first waited for the server's delayed ACK (about 40 ms a message
        # with a map picture, most of the time a report took to send)
        with contextlib.suppress(OSError):
            smtp.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            if o.starttls and not o.ssl:
                smtp.starttls(context=self._tls_context())
            if o.user:
                smtp.login(o.user, o.password)
            smtp.ehlo_or_helo_if_needed()
        except BaseException:
            smtp.close()
            raise
        return smtp

    def _send_one(self, smtp: smtplib.SMTP, row: dict) -> None:
        mail_from, rcpt = row["mail_from"], row["rcpt"]
        options: list[str] = []
        if not (mail_from + rcpt).isascii():
            if not smtp.has_extn("smtputf8"):
                raise smtplib.SMTPNotSupportedError(f"{self.cfg.outbound.host} refuses {rcpt}")
            options = ["SMTPUTF8"]
        self._mark(row, "sending")
        smtp.sendmail(mail_from, [rcpt], bytes(row["raw"]), mail_options=options)

    def _to_smtp(self, rows: list[dict]) -> int:
        o = self.cfg.outbound
        smtp: smtplib.SMTP | None = None
        used = False  # the session has carried a message (a server may drop it after errors)
        done = 0
        try:
            for i, row in enumerate(rows):
                try:
                    for addr in (row["rcpt"], row["mail_from"]):
                        if problem := address_problem(addr):
                            raise BadAddress(f"bad address {addr!r}: {problem}")
                    for fresh in (False, True):
                        if smtp is None:
                            try:
                                smtp, used = self._connect(), False
                            except Exception as exc:  # noqa: BLE001 - the server's failure
                                log.warning("SMTP: cannot connect to %s:%s: %s (%d message(s) "
                                            "wait)", o.host, o.port, exc, len(rows) - i)
                                for later in rows[i:]:
                                    self._failed(later, Failure(f"connect: {exc}", False),
                                                 quiet=True)
                                return done
                        try:
                            self._send_one(smtp, row)
                            break
                        except smtplib.SMTPServerDisconnected:
                            _close(smtp)
                            smtp = None
                            if fresh or not used:
                                raise
                            # the server closed a session it had used (idle, error limit):
                            # once more on a new one
                        finally:
                            used = True
                except Exception as exc:  # noqa: BLE001 - this row's failure, not the loop's
                    f = classify(exc)
                    if not isinstance(exc, OSError | smtplib.SMTPException | UnicodeError
                                      | BadAddress):
                        log.exception("outbox %s: unexpected error while sending", row["id"])
                    self._failed(row, f)
                    session = f.session if smtp is not None else "ok"
                    if session == "reset":
                        try:
                            smtp.rset()  # type: ignore[union-attr]
                        except Exception:  # noqa: BLE001 - then start a new session
                            session = "gone"
                    if session == "gone":
                        _close(smtp)  # type: ignore[arg-type]
                        smtp = None
                else:
                    self._mark(row, "sent")
                    done += 1
        finally:
            if smtp is not None:
                _close(smtp)
        return done


def _close(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (OSError, smtplib.SMTPException):
        with contextlib.suppress(OSError):
            smtp.close()


def _duration(d: timedelta) -> str:
    hours = d.total_seconds() / 3600
    return f"{hours:.1f} hours" if hours >= 1 else f"{d.total_seconds():.0f} seconds"


def _with_envelope(row: dict) -> bytes:
    """Maildir delivery adds the envelope as Return-Path and Delivered-To (as an MDA does)."""
    head = f"Return-Path: <{row['mail_from']}>\r\nDelivered-To: {row['rcpt']}\r\n"
    return head.encode("utf-8") + bytes(row["raw"])


def read_maildir(root: str | Path) -> list[bytes]:
    """Every message in ``root/new`` in order (for people and tests)."""
    new = Path(root) / "new"
    if not new.is_dir():
        return []
    return [p.read_bytes() for p in sorted(new.iterdir())]
