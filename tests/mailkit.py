"""Helpers for the mail tests: composing player mail, a capturing SMTP sink, running the judge."""

from __future__ import annotations

import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from judge.mail.reading import body_text, parse_bytes

REPO = Path(__file__).resolve().parents[1]
JUDGE = [sys.executable, "-m", "judge.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def compose(frm: str, to: str, body: str, subject: str = "orders", **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = frm
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(__import__("datetime").datetime.now().astimezone())
    msg["Message-ID"] = headers.pop("message_id", None) or make_msgid(domain="players.test")
    for k, v in headers.items():
        msg[k.replace("_", "-")] = v
    msg.set_content(body)
    return msg.as_bytes()


class Got:
    """A message the sink (or a Maildir) received, parsed."""

    def __init__(self, raw: bytes, rcpt: str = "") -> None:
        self.raw = raw
        self.msg = parse_bytes(raw)
        self.rcpt = rcpt or str(self.msg["To"])
        self.subject = str(self.msg["Subject"] or "")
        self.body = body_text(self.msg)

    def __getitem__(self, name: str) -> str:
        return str(self.msg[name] or "")

    def __repr__(self) -> str:
        return f"<Got to={self.rcpt} subject={self.subject!r}>"


class Sink:
    """aiosmtpd capturing every message (thread-safe list of Got)."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[Got] = []
        self.lock = threading.Lock()
        sink = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                raw = envelope.original_content or envelope.content
                with sink.lock:
                    for rcpt in envelope.rcpt_tos:
                        sink.messages.append(Got(raw, rcpt))
                return "250 OK"

        self.controller = Controller(Handler(), hostname=host, port=port)

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()

    def for_rcpt(self, rcpt: str) -> list[Got]:
        with self.lock:
            return [m for m in self.messages if m.rcpt.lower() == rcpt.lower()]

    def wait(self, pred: Callable[[Got], bool], count: int = 1, timeout: float = 30.0
             ) -> list[Got]:
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                found = [m for m in self.messages if pred(m)]
            if len(found) >= count or time.monotonic() > deadline:
                if len(found) < count:
                    raise AssertionError(f"waited {timeout}s for {count} message(s), got "
                                         f"{len(found)}: {found}; all: {self.messages}")
                return found
            time.sleep(0.05)


def send_smtp(host: str, port: int, frm: str, to: str, raw: bytes, mail_from: str | None = None
              ) -> None:
    with smtplib.SMTP(host, port, timeout=30) as s:
        s.sendmail(frm if mail_from is None else mail_from, [to], raw)


def empty_mailbox(env: dict) -> None:
    from imapclient import IMAPClient

    c = IMAPClient(env["MAILTEST_HOST"], port=int(env["MAILTEST_IMAP_PORT"]), ssl=False)
    c.login("judge", "secret")
    for folder in ("INBOX", "Processed"):
        if c.folder_exists(folder):
            c.select_folder(folder)
            uids = c.search(["ALL"])
            if uids:
                c.delete_messages(uids)
                c.expunge()
    c.logout()


def write_config(dirpath: Path, text: str) -> Path:
    p = dirpath / "judge.toml"
    p.write_text(text)
    return p


def imap_config(env: dict, dirpath: Path, processed: str = "Processed") -> str:
    return f"""
[judge]
address = "judge@{env['MAILTEST_DOMAIN']}"
database = "{dirpath / 'judge.db'}"

[intake]
mode = "imap"
host = "{env['MAILTEST_HOST']}"
port = {env['MAILTEST_IMAP_PORT']}
ssl = false
starttls = true
ca_file = "{env['MAILTEST_CA_FILE']}"
user = "judge"
password = "secret"
folder = "INBOX"
processed_folder = "{processed}"
poll_seconds = 2

[outbound]
mode = "smtp"
host = "{env['MAILTEST_HOST']}"
port = {env['MAILTEST_SMTP_PORT']}
ssl = false
starttls = true
ca_file = "{env['MAILTEST_CA_FILE']}"
user = "judge"
password = "secret"
"""


class JudgeProcess:
    """``judge serve --config`` as a subprocess (stderr to a log file)."""

    def __init__(self, config: Path | None, cwd: Path) -> None:
        self.config, self.cwd = config, cwd
        self.log = cwd / "judge.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> JudgeProcess:
        args = [*JUDGE, "serve"] + (["--config", str(self.config)] if self.config else [])
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(args, cwd=self.cwd, stdout=subprocess.DEVNULL,
                                     stderr=open(self.log, "ab"), env=env)  # noqa: SIM115
        return self

    def wait_log(self, text: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log.exists() and text in self.log.read_text(errors="replace"):
                return
            assert self.proc and self.proc.poll() is None, self.log.read_text()
            time.sleep(0.05)
        raise AssertionError(f"judge log never said {text!r}:\n{self.log.read_text()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)


def unique(prefix: str = "t") -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


class InProcessJudge:
    """The judge's real storage, reading, acting and Maildir sender, driven step by step."""

    def __init__(self, dirpath: Path, address: str = "judge@localhost", **settings: Any) -> None:
        from judge.config import Config
        from judge.games.acting import Actor
        from judge.mail.sender import Sender
        from judge.storage import Store

        self.cfg = Config(address=address, database=str(dirpath / "judge.db"),
                          base_dir=dirpath)
        for k, v in settings.items():
            setattr(self.cfg, k, v)
        self.store = Store(self.cfg.database_path)
        self.actor = Actor(self.store, self.cfg)
        self.sender = Sender(self.cfg, self.store)
        self.seen = 0

    def deliver(self, raw: bytes, mail_from: str | None = None) -> list[Got]:
        """Store and act on one message; the messages the judge sent because of it."""
        from judge.mail.intake import store_message

        store_message(self.store, raw, "test", mail_from)
        return self.run()

    def run(self) -> list[Got]:
        self.actor.process_inbox()
        self.actor.process_due()
        self.sender.flush()
        from judge.mail.sender import read_maildir

        all_ = read_maildir(self.cfg.maildir_path)
        new, self.seen = all_[self.seen:], len(all_)
        return [Got(raw) for raw in new]

    def send(self, frm: str, body: str, subject: str = "orders", **headers: str) -> list[Got]:
        return self.deliver(compose(frm, self.cfg.address, body, subject, **headers))

    def inbox_states(self) -> list[str]:
        return [r["state"] for r in self.store.all("SELECT state FROM inbox ORDER BY id")]
