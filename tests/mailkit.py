"""Helpers for the mail tests: composing player mail, a capturing SMTP sink, running the judge."""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import random
import re
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any, TypeVar

import pytest

from judge.mail.reading import _header, body_text, parse_bytes

REPO = Path(__file__).resolve().parents[1]
JUDGE = [sys.executable, "-m", "judge.cli"]
T = TypeVar("T")


def _ephemeral_ports() -> tuple[int, int]:
    """The range the kernel draws the local ports of outgoing connections (and of port 0)
    from."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def free_port() -> int:
    """A port on 127.0.0.1 that nothing uses now, for a server a test starts later. Not one
    of the ephemeral range (port 0 drew from it): between the choice and the server's bind,
    any outgoing connection of the machine (postfix relaying, a judge's IMAP) could take
    it. Another test's choice still can: a server that finds its port taken is started
    again on another (:func:`on_free_port`)."""
    low, _ = _ephemeral_ports()
    candidates = range(20000, low) if low - 20000 >= 1000 else range(1024, low)
    rng = random.SystemRandom()
    for _ in range(100):
        port = rng.choice(candidates) if len(candidates) else 0
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError(errno.EADDRINUSE, "no free port below the ephemeral range")


def port_taken(error: BaseException) -> bool:
    """Whether ``error`` is a bind that found its port taken."""
    return isinstance(error, OSError) and error.errno == errno.EADDRINUSE


def on_free_port(start: Callable[[int], T], attempts: int = 5) -> T:
    """``start(port)`` on a :func:`free_port`, again on another while the port it chose was
    taken before it bound it (an ``OSError`` EADDRINUSE, or :class:`PortTaken`)."""
    for attempt in range(attempts):
        try:
            return start(free_port())
        except (OSError, PortTaken) as error:
            if attempt == attempts - 1 or not (isinstance(error, PortTaken)
                                               or port_taken(error)):
                raise
    raise AssertionError("unreachable")


class PortTaken(Exception):
    """A judge started on a port another process took first (its log says so)."""


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
        self.rcpt = rcpt or _header(self.msg, "To")
        self.subject = _header(self.msg, "Subject")
        self.body = body_text(self.msg).replace("\r\n", "\n")
        self.flat = " ".join(self.body.split())  # for phrases a line wrap may break

    def __getitem__(self, name: str) -> str:
        return _header(self.msg, name)

    def __repr__(self) -> str:
        return f"<Got to={self.rcpt} subject={self.subject!r}>"


class Sink:
    """aiosmtpd capturing every message (thread-safe list of Got). ``smtputf8`` offers
    SMTPUTF8; ``rcpt_reply(address)`` may return a reply refusing that recipient ("550 ...")."""

    def __init__(self, port: int, host: str = "127.0.0.1", smtputf8: bool = False,
                 rcpt_reply: Callable[[str], str | None] | None = None) -> None:
        from aiosmtpd.controller import Controller

        self.messages: list[Got] = []
        self.lock = threading.Lock()
        sink = self

        class Handler:
            async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                                  options: list[str]) -> str:
                refusal = rcpt_reply(address) if rcpt_reply else None
                if refusal:
                    return refusal
                envelope.rcpt_tos.append(address)
                envelope.rcpt_options.extend(options)
                return "250 OK"

            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                raw = envelope.original_content or envelope.content
                with sink.lock:
                    for rcpt in envelope.rcpt_tos:
                        sink.messages.append(Got(raw, rcpt))
                return "250 OK"

        self.controller = Controller(Handler(), hostname=host, port=port,
                                     enable_SMTPUTF8=smtputf8)

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
        s.sendmail(frm if mail_from is None else mail_from, [to], crlf(raw))


def crlf(raw: bytes) -> bytes:
    """``raw`` with CRLF line ends, as SMTP wants them: smtplib sends bytes as they are, and
    the judge's receiver (aiosmtpd) reads a mail whose lines end in a bare LF as one line,
    refused past 1,001 bytes ("Line too long"); postfix mends them, the receiver does not."""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


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
default_settle = "0s"  # scripted games expect processing once every power has ordered

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
    """``judge serve --config`` as a subprocess (stderr to a log file), in a process group
    of its own with the render pool it starts: whatever befalls the test, the group is
    killed (:meth:`kill`, also at exit), so no judge outlives it."""

    def __init__(self, config: Path | None, cwd: Path) -> None:
        self.config, self.cwd = config, cwd
        self.log = cwd / "judge.log"
        self.proc: subprocess.Popen | None = None
        self.log_from = 0  # where this run's lines begin in the log (a judge run again)

    def start(self) -> JudgeProcess:
        args = [*JUDGE, "serve"] + (["--config", str(self.config)] if self.config else [])
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.log_from = self.log.stat().st_size if self.log.exists() else 0
        self.proc = subprocess.Popen(args, cwd=self.cwd, stdout=subprocess.DEVNULL,
                                     stderr=open(self.log, "ab"), env=env,  # noqa: SIM115
                                     start_new_session=True)
        atexit.register(self.kill)  # an interrupted run leaves no judge behind
        return self

    def log_text(self) -> str:
        """What this run wrote to the log (not an earlier run's, in the same folder)."""
        if not self.log.exists():
            return ""
        with self.log.open("rb") as f:
            f.seek(self.log_from)
            return f.read().decode(errors="replace")

    def wait_log(self, text: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_text():
                return
            assert self.proc and self.proc.poll() is None, self.log_text()
            time.sleep(0.05)
        raise AssertionError(f"judge log never said {text!r}:\n{self.log_text()}")

    def listening(self, text: str = "SMTP receiver listening", timeout: float = 20.0
                  ) -> JudgeProcess:
        """Wait for ``text``; the judge is killed if it never comes (:class:`PortTaken` when
        its port was taken first), never left running behind the failure."""
        try:
            self.wait_log(text, timeout)
        except BaseException:
            self.kill()
            if "address already in use" in self.log_text().lower():
                raise PortTaken(self.log_text()[-2000:]) from None
            raise
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send ``sig`` to the judge and wait for it; past ``timeout`` its group is killed
        (and the timeout raised)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        """SIGKILL to the judge's process group (the judge and its render pool) while the
        judge runs: once it has exited and been reaped, its group id may be another's."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


def unique(prefix: str = "t") -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def confirmed(store: Any, *addresses: str) -> None:
    """These addresses have confirmed to the judge that they read its mail, as a player does
    once by answering the judge's first request (judge/games/signup.py): their sign-ons act at
    once, and a master's game mail is sent. ``store``: the judge's Store, or its database's
    path (a judge in another process). The kits' judges record every address a test sends
    from so (``confirm_senders``); a test of the confirmation itself turns that off."""
    from email.utils import parseaddr

    from judge.games.observers import prove
    from judge.storage import Store

    opened = Store(store) if isinstance(store, str | Path) else None  # a judge's database
    try:
        for a in addresses:
            if address := parseaddr(a)[1] or a.strip():
                prove(opened or store, address, datetime.now(UTC), "test kit")
    finally:
        if opened is not None:
            opened.close()


class InProcessJudge:
    """The judge's real storage, reading, acting and Maildir sender, driven step by step.
    Every address a test sends from has confirmed (:func:`confirmed`) unless
    ``confirm_senders`` is False."""

    def __init__(self, dirpath: Path, address: str = "judge@localhost",
                 confirm_senders: bool = True, **settings: Any) -> None:
        from judge.config import Config
        from judge.games.acting import Actor
        from judge.mail.sender import Sender
        from judge.storage import Store

        self.cfg = Config(address=address, database=str(dirpath / "judge.db"),
                          base_dir=dirpath)
        # these tests expect processing the moment every power has ordered (no settling delay)
        self.cfg.default_settle = "0s"
        for k, v in settings.items():
            setattr(self.cfg, k, v)
        self.store = Store(self.cfg.database_path)
        self.actor = Actor(self.store, self.cfg)
        self.sender = Sender(self.cfg, self.store)
        self.seen = 0
        self.confirm_senders = confirm_senders

    def deliver(self, raw: bytes, mail_from: str | None = None) -> list[Got]:
        """Store and act on one message; the messages the judge sent because of it."""
        from email.parser import BytesHeaderParser

        from judge.mail.intake import store_message

        if self.confirm_senders:  # its headers only: hostile bodies are these tests' own
            head = BytesHeaderParser().parsebytes(raw)
            confirmed(self.store, str(head["From"] or mail_from or ""))
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


# ----------------------------------------------------------------- a scripted game
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]


# ------------------------------------------------- a standard game by mail, in process
GM = "gm@players.test"


def addr(power: str) -> str:
    """The test address of the player of ``power``."""
    return f"{power.lower()}@players.test"


def only_reply(sent: list[Got], to: str) -> Got:
    """The one reply (``Re: ...``) among ``sent`` that went to ``to``."""
    mine = [m for m in sent if m.rcpt == to and "Re: " in m.subject]
    assert len(mine) == 1, sent
    return mine[0]


def new_game(judge: InProcessJudge, name: str = "g1", start: bool = True) -> list[Got]:
    """CREATE and OPEN ``name`` (master password ``masterpw``), every power signed on with
    ``pw-<power>``; START it unless told not to. Returns what the START mail sent."""
    judge.send(GM, f"CREATE {name} masterpw\nOPEN")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p} {name} pw-{p.lower()}")
    return judge.send(GM, f"MASTER {name} masterpw\nSTART") if start else []


# The tests of a player's mail (tests/test_veteran_*.py) write as Germany's player in game g1.
GERMANY = addr("GERMANY")
GERMANY_SIGNON = "SIGNON GERMANY g1 pw-germany\n"
GERMANY_ORDERS = "A BER - KIE\nA MUN - RUH\nF KIE - DEN\n"
GERMANY_STORED = ["A BER - KIE", "A MUN - RUH", "F KIE - DEN"]


@pytest.fixture(name="judge")
def judge_with_game_g1(tmp_path: Path) -> InProcessJudge:
    """The fixture ``judge`` of a test module that imports this: a judge in process whose
    game g1 has started (:func:`new_game`)."""
    judge = InProcessJudge(tmp_path)
    new_game(judge)
    return judge


def stored_lines(judge: InProcessJudge, power: str = "GERMANY", game: str = "g1") -> list[dict]:
    """``power``'s lines stored for the current phase of ``game``, as read ([] when none)."""
    row = judge.store.game(game)
    return judge.store.order_sets(row["id"], row["phase"]).get(power) or []


def standing_orders(judge: InProcessJudge, power: str = "GERMANY", game: str = "g1"
                    ) -> list[str]:
    """The orders that stand for ``power`` (the lines in error and replaced left out)."""
    return [x["order"] for x in stored_lines(judge, power, game) if x.get("order")]


def reply_to(judge: InProcessJudge, body: str, to: str = GERMANY) -> Got:
    """Send ``body`` from ``to``; the judge's one reply to it."""
    return only_reply(judge.send(to, body), to)

SPRING = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["A PAR - PIC", "A MAR - BUR", "F BRE - MAO"],
    "GERMANY": ["A BER - MUN", "A MUN - RUH", "F KIE - DEN"],
    "ITALY": ["A VEN H", "A ROM - APU", "F NAP - ION"],
    "RUSSIA": ["A WAR - UKR", "A MOS - STP", "F SEV - BLA", "F STP/SC - BOT"],
    "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - ARM"],
}
FALL = {
    "AUSTRIA": ["A SER - GRE", "A GAL - RUM", "F ALB S A SER - GRE"],
    "ENGLAND": ["F NTH - NWY", "F NWG - BAR", "A YOR - EDI"],
    "FRANCE": ["A BUR H", "A PIC - BEL", "F MAO - POR"],
    "GERMANY": ["A RUH - BUR", "A MUN S A RUH - BUR", "F DEN H"],
    "ITALY": ["A VEN - TYR", "A APU - TUN", "F ION C A APU - TUN"],
    "RUSSIA": ["A UKR - RUM", "A STP - NWY", "F SEV H", "F BOT - SWE"],
    "TURKEY": ["F ANK H", "A BUL H", "A ARM - SEV"],
}


class Backend:
    """How a scripted game talks to a judge: send a mail, wait for what someone received."""

    def send(self, frm: str, body: str, subject: str) -> None:
        raise NotImplementedError

    def wait(self, rcpt: str, pred: Callable[[Got], bool], timeout: float = 30.0) -> Got:
        raise NotImplementedError

    def sign_on(self, mails: list[tuple[str, str]], subject: str, timeout: float = 30.0
                ) -> list[Got]:
        """Send each sign-on ``(from, body)`` and answer the judge's confirmation request
        where it asks one (an address's first sign-on), as a player does; the replies that
        say what was done, in order."""
        for frm, body in mails:
            self.send(frm, body, subject)
        out = [self.wait(frm, subject_has(subject), timeout) for frm, _ in mails]
        asked = {k: frm for k, ((frm, _), r) in enumerate(zip(mails, out, strict=True))
                 if self.confirm(frm, r, f"confirm {subject}")}
        for k, frm in asked.items():
            out[k] = self.wait(frm, subject_has(f"confirm {subject}"), timeout)
        return out

    def confirm(self, frm: str, reply: Got, subject: str) -> bool:
        """Answer the confirmation request the judge's ``reply`` carries (a sign-on's, a new
        master's CREATE), if any, with CONFIRM <code> as a person does; whether it did."""
        m = re.search(r"send the line CONFIRM (\w+)", reply.flat)
        if m is not None:
            self.send(frm, f"CONFIRM {m.group(1)}", subject)
        return m is not None


class InProcessBackend(Backend):
    def __init__(self, judge: InProcessJudge) -> None:
        self.judge = judge
        self.got: list[Got] = []

    def send(self, frm: str, body: str, subject: str) -> None:
        self.got += self.judge.send(frm, body, subject)

    def wait(self, rcpt: str, pred: Callable[[Got], bool], timeout: float = 30.0) -> Got:
        found = [m for m in self.got if m.rcpt.lower() == rcpt.lower() and pred(m)]
        assert found, f"nothing for {rcpt}: {[m for m in self.got if m.rcpt == rcpt]}"
        return found[-1]


class ReversedRelayBackend(InProcessBackend):
    """An in-process judge that is handed the mails sent since the last wait in the reverse
    of the order they were sent, as postfix may relay mails sent together: a scripted game
    that passes with this and with :class:`InProcessBackend` does not depend on the relay's
    order (the kits' games over the real servers failed in CI on it twice)."""

    def __init__(self, judge: InProcessJudge) -> None:
        super().__init__(judge)
        self.queued: list[tuple[str, str, str]] = []

    def send(self, frm: str, body: str, subject: str) -> None:
        self.queued.append((frm, body, subject))

    def wait(self, rcpt: str, pred: Callable[[Got], bool], timeout: float = 30.0) -> Got:
        queued, self.queued = self.queued, []
        for frm, body, subject in reversed(queued):
            super().send(frm, body, subject)
        return super().wait(rcpt, pred, timeout)


class SinkBackend(Backend):
    """Players send over SMTP (to postfix or the judge's receiver); replies arrive in a sink."""

    def __init__(self, sink: Sink, host: str, port: int, judge_address: str) -> None:
        self.sink, self.host, self.port, self.judge_address = sink, host, port, judge_address
        self.used: set[int] = set()  # messages already matched, so each wait needs a new one

    def send(self, frm: str, body: str, subject: str) -> None:
        send_smtp(self.host, self.port, frm, self.judge_address,
                  compose(frm, self.judge_address, body, subject))

    def wait(self, rcpt: str, pred: Callable[[Got], bool], timeout: float = 30.0) -> Got:
        deadline = time.monotonic() + timeout
        while True:
            with self.sink.lock:
                for m in self.sink.messages:
                    if id(m) not in self.used and m.rcpt.lower() == rcpt.lower() and pred(m):
                        self.used.add(id(m))
                        return m
            if time.monotonic() > deadline:
                raise AssertionError(f"{rcpt} received nothing matching within {timeout}s; "
                                     f"got {self.sink.for_rcpt(rcpt)}")
            time.sleep(0.05)


def subject_has(text: str) -> Callable[[Got], bool]:
    return lambda m: text in m.subject


def play_standard_game(b: Backend, game: str, addr: Callable[[str], str], gm: str,
                       timeout: float = 30.0) -> dict[str, Got]:
    """Create, open, join seven players, start, play S1901M, F1901M, F1901R, W1901A.

    Asserts on what the players receive; returns the last report each player got.
    """
    pw = {p: f"pw-{p.lower()}" for p in POWERS}
    b.send(gm, f"CREATE {game} master-{game} DEADLINES 48h 24h 24h\nOPEN", "new game")
    r = b.wait(gm, subject_has("new game"), timeout)
    assert "created; you are its master" in r.body and f"Game {game} is open" in r.body, r.body
    assert "****" in r.body and f"master-{game}" not in r.body  # password never echoed
    if b.confirm(gm, r, "confirm master"):  # the game's mail is sent to the master from then
        b.wait(gm, subject_has("confirm master"), timeout)

    joined = b.sign_on([(addr(p), f"SIGNON {p.title()} {game} {pw[p]}") for p in POWERS],
                       "join", timeout)
    for p, r in zip(POWERS, joined, strict=True):
        assert f"You have joined game {game} as {p.title()}" in r.flat, r.body

    b.send(gm, f"MASTER {game} master-{game}\nSTART", "start")
    assert "has started" in b.wait(gm, subject_has("Re: start"), timeout).body
    for p in POWERS:
        r = b.wait(addr(p), subject_has("the game has started"), timeout)
        assert f"You play {p.title()}" in r.body and "Spring 1901 Movement" in r.body

    # a stranger with the wrong password changes nothing
    b.send("mallory@players.test", f"SIGNON FRANCE {game} guess\nA PAR - GAS", "hijack")

    # France first sends orders with mistakes, then the right ones
    b.send(addr("FRANCE"), f"SIGNON F{game} {pw['FRANCE']}\nA PAR - PIC\nA MAR - Brgundy\n"
                           "F BRE - LON", "orders draft")
    r = b.wait(addr("FRANCE"), subject_has("orders draft"), timeout)
    assert r.subject.startswith("[ERROR]"), r.subject
    assert "A PAR - PIC\n" in r.body, r.body
    assert "A MAR - Brgundy" in r.body and "<-- ERROR:" in r.body
    assert "F BRE - LON" in r.body
    assert "Units without orders: F BRE, A MAR (they hold)." in r.body
    assert "Deadline:" in r.body and "(in 1 day 23 hours" in r.body
    r = b.wait("mallory@players.test", subject_has("hijack"), timeout)
    assert r.subject.startswith("[ERROR]") and "wrong password for France" in r.flat
    assert "not used: the SIGNON above failed" in r.flat

    def play(orders: dict[str, list[str]], label: str) -> None:
        for p, lines in orders.items():
            b.send(addr(p), f"SIGNON {p} {game} {pw[p]}\n" + "\n".join(lines), label)
        for p, lines in orders.items():
            r = b.wait(addr(p), subject_has(label), timeout)
            assert not r.subject.startswith("[ERROR]"), r.body
            for line in lines:
                assert line in r.body, (line, r.body)

    play(SPRING, "spring orders")
    reports: dict[str, Got] = {}
    for p in POWERS:
        r = reports[p] = b.wait(addr(p), subject_has(" - S1901M results"), timeout)
        assert "A MAR - BUR                    succeeds" in r.body, r.body
        assert "A PAR - GAS" not in r.body  # mallory's order never counted
        assert "F SEV - BLA                    fails (bounced)" in r.body
        assert "Next phase: Fall 1901 Movement (F1901M)" in r.body
        assert f"You play {p.title()}" in r.body
    b.wait(gm, subject_has(" - S1901M results"), timeout)

    play(FALL, "fall orders")
    for p in POWERS:
        r = reports[p] = b.wait(addr(p), subject_has(" - F1901M results"), timeout)
        assert "A RUH - BUR                    succeeds" in r.body
        assert "Dislodged units" in r.body
        assert "France A BUR (dislodged by the unit from RUH): may retreat to" in r.body
        options = r.body.split("may retreat to")[1].splitlines()[0]
        assert "Gascony (GAS)" in options and "Picardy (PIC)" in options
        assert "(RUH)" not in options and "(BEL)" not in options  # attacker's origin; occupied
        assert "Next phase: Fall 1901 Retreat (F1901R)" in r.body

    play({"FRANCE": ["A BUR R GAS"]}, "retreat")
    for p in POWERS:
        r = reports[p] = b.wait(addr(p), subject_has(" - F1901R results"), timeout)
        assert "A BUR R GAS" in r.body and "succeeds" in r.body
        assert "Next phase: Winter 1901 Adjustment (W1901A)" in r.body
        assert "Supply centre ownership" in r.body and "builds due" in r.body
        assert "  France    5 centres: BEL BRE MAR PAR POR" in r.body, r.body
        assert "builds due: 2" in r.body

    # England has nothing to build (and is told so); Austria waives; the others build
    builds = {"AUSTRIA": ["WAIVE"], "FRANCE": ["BUILD F BRE", "BUILD A PAR"],
              "GERMANY": ["BUILD F KIE"], "ITALY": ["BUILD F NAP"], "RUSSIA": ["BUILD A WAR"],
              "TURKEY": ["BUILD A SMY"]}
    b.send(addr("ENGLAND"), f"SIGNON ENGLAND {game} {pw['ENGLAND']}\nBUILD F LON", "greedy")
    r = b.wait(addr("ENGLAND"), subject_has("greedy"), timeout)
    assert r.subject.startswith("[ERROR]") and "England has nothing to order" in r.flat, r.body
    play(builds, "builds")
    for p in POWERS:
        r = reports[p] = b.wait(addr(p), subject_has(" - W1901A results"), timeout)
        assert "Built: " in r.body and "France F BRE" in r.body and "Russia A WAR" in r.body
        assert "Next phase: Spring 1902 Movement (S1902M)" in r.body
    return reports


class TcpProxy:
    """Forwards a local port to a real server; ``drop()`` cuts every open connection (the
    server 'goes away' for the client) and ``refuse`` makes new connections fail."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(50)
        self.port = self.listener.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.refuse = False
        self.accepted = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refuse:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, upstream]
                self.accepted += 1
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def drop(self) -> None:
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def close(self) -> None:
        self.listener.close()
        self.drop()
