"""The sender: drains the outbox over SMTP (or into a Maildir) with retries and backoff.

A message leaves the ``pending`` state only once the server accepted it (or the Maildir file
is in ``new/``). Transient failures (connection refused, 4xx) are retried with exponential
backoff; a permanent refusal (5xx) or too many attempts marks it ``failed`` (kept, never lost).
"""

from __future__ import annotations

import contextlib
import logging
import os
import smtplib
import socket
import ssl
from datetime import timedelta
from pathlib import Path

from judge.config import Config
from judge.storage import Store, now_utc, parse_iso

log = logging.getLogger("judge.sender")


def backoff_seconds(attempts: int, base: float = 5.0) -> float:
    return float(min(base * 2 ** max(0, attempts), 900.0))


class Sender:
    def __init__(self, cfg: Config, store: Store) -> None:
        self.cfg = cfg
        self.store = store

    def flush(self) -> int:
        """Send what is due; returns how many were accepted."""
        sent = 0
        while True:
            rows = self.store.due_outbound(200)
            if not rows:
                return sent
            if self.cfg.outbound.mode == "maildir":
                n = self._to_maildir(rows)
            else:
                n = self._to_smtp(rows)
            sent += n
            if n < len(rows):  # some failed: they wait for their backoff
                return sent

    # ------------------------------------------------------------- Maildir
    def _to_maildir(self, rows: list[dict]) -> int:
        root = self.cfg.maildir_path
        for sub in ("tmp", "new", "cur"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        done = 0
        for row in rows:
            # time.id.host, fixed per outbox row: a retry rewrites the same file
            stamp = int(parse_iso(row["created"]).timestamp())
            name = f"{stamp}.J{row['id']:010d}_{row['kind']}.{socket.gethostname()}"
            tmp = root / "tmp" / name
            try:
                with open(tmp, "wb") as fh:
                    fh.write(_with_envelope(row))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, root / "new" / name)  # same name on a retry: never two copies
            except OSError as exc:
                self._failed(row, f"cannot write {root}: {exc}", final=False)
                continue
            self.store.mark_sent(row["id"])
            done += 1
        return done

    # ---------------------------------------------------------------- SMTP
    def _connect(self) -> smtplib.SMTP:
        o = self.cfg.outbound
        ctx = ssl.create_default_context(cafile=o.ca_file or None)
        smtp: smtplib.SMTP
        if o.ssl:
            smtp = smtplib.SMTP_SSL(o.host, o.port, timeout=o.timeout, context=ctx)
        else:
            smtp = smtplib.SMTP(o.host, o.port, timeout=o.timeout)
            if o.starttls:
                smtp.starttls(context=ctx)
        if o.user:
            smtp.login(o.user, o.password)
        return smtp

    def _to_smtp(self, rows: list[dict]) -> int:
        try:
            smtp = self._connect()
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("SMTP: cannot connect to %s:%s: %s", self.cfg.outbound.host,
                        self.cfg.outbound.port, exc)
            for row in rows:
                self._failed(row, f"connect: {exc}", final=False)
            return 0
        done = 0
        try:
            for row in rows:
                try:
                    smtp.sendmail(row["mail_from"], [row["rcpt"]], row["raw"])
                except smtplib.SMTPRecipientsRefused as exc:
                    code = next(iter(exc.recipients.values()))[0]
                    self._failed(row, f"refused: {exc.recipients}", final=code >= 500)
                except (smtplib.SMTPDataError, smtplib.SMTPSenderRefused) as exc:
                    self._failed(row, f"{exc.smtp_code} {exc.smtp_error!r}",
                                 final=exc.smtp_code >= 500)
                except (OSError, smtplib.SMTPException) as exc:
                    self._failed(row, f"{type(exc).__name__}: {exc}", final=False)
                    break  # the connection is gone; the rest wait for the next flush
                else:
                    self.store.mark_sent(row["id"])
                    done += 1
        finally:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                smtp.quit()
        return done

    def _failed(self, row: dict, error: str, final: bool) -> None:
        attempts = row["attempts"] + 1
        final = final or attempts >= self.cfg.outbound.max_attempts
        when = now_utc() + timedelta(seconds=backoff_seconds(row["attempts"],
                                                               self.cfg.outbound.retry_seconds))
        self.store.mark_failed_attempt(row["id"], error, when, final=final)
        log.warning("outbox %s to %s: %s%s", row["id"], row["rcpt"], error,
                    " (given up)" if final else f" (retry at {when:%H:%M:%S})")


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
