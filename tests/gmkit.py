"""A judge in this process, on the real mail servers, with a clock the test moves.

Players' mail goes over SMTP to postfix, which delivers it by LMTP into dovecot; the judge
fetches it with its own IMAP intake code, acts on it with an injected clock, and sends over
SMTP through postfix, which relays to the test's sink. Deadlines are driven by the injected
clock and the scheduler's manual mode (:meth:`judge.scheduler.Clock.advance`), so no test
sleeps for a deadline.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mailkit import (
    POWERS,
    Got,
    Sink,
    compose,
    confirmed,
    imap_config,
    send_smtp,
    unique,
    write_config,
)

START = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)  # a Monday


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.t = start

    def __call__(self) -> datetime:
        return self.t

    def set(self, t: datetime) -> None:
        assert t >= self.t, "time only moves forward"
        self.t = t


class LiveJudge:
    """Every address a test sends from has confirmed (mailkit.confirmed) unless
    ``confirm_senders`` is False."""

    def __init__(self, env: dict, sink: Sink, dirpath: Path, clock: FakeClock,
                 settle: str = "0s", confirm_senders: bool = True, **settings: Any) -> None:
        self.env, self.sink, self.dir, self.clock = env, sink, dirpath, clock
        self.address = f"judge@{env['MAILTEST_DOMAIN']}"
        self.settle, self.settings = settle, settings
        self.confirm_senders = confirm_senders
        self.expected = 0  # mails sent to the judge and not yet fetched
        self.returned: set[str] = set()  # Message-IDs already handed to the test
        self.by_id: dict[str, list[tuple[int, Got]]] = {}  # the sink's messages, in order
        self.indexed = 0  # how many of the sink's messages are in by_id
        self.sent = 0  # how many sent rows of the outbox the test has had
        self._open()

    def _open(self) -> None:
        from judge.config import load_config
        from judge.games.acting import Actor
        from judge.mail.intake import ImapIntake
        from judge.mail.sender import Sender
        from judge.scheduler import Clock
        from judge.storage import Store

        text = imap_config(self.env, self.dir).replace(
            'default_settle = "0s"', f'default_settle = "{self.settle}"')
        self.cfg = load_config(write_config(self.dir, text))
        for k, v in self.settings.items():
            setattr(self.cfg, k, v)
        self.store = Store(self.cfg.database_path)
        self.actor = Actor(self.store, self.cfg, self.clock)
        self.sender = Sender(self.cfg, self.store)
        self.intake = ImapIntake(self.cfg, lambda: None)
        self.client = self.intake._connect()
        self.woken = 0
        self.scheduler = Clock(self._wake, lambda: None, None, 30.0, now=self.clock)
        self.scheduler.sync(self.store)

    def _wake(self) -> None:
        self.woken += 1

    def close(self) -> None:
        self.intake._logout()
        self.store.close()

    def restart(self) -> None:
        """A new judge on the same database (what a restart of ``judge serve`` rebuilds)."""
        self.close()
        self._open()

    # ---------------------------------------------------------------- mail
    def send(self, frm: str, body: str, subject: str | None = None, **headers: str) -> str:
        """A player's mail to the judge (acted on at the next :meth:`pump`); its subject."""
        subject = subject or unique("m")
        if self.confirm_senders:
            confirmed(self.store, frm)
        send_smtp(self.env["MAILTEST_HOST"], int(self.env["MAILTEST_SMTP_PORT"]), frm,
                  self.address, compose(frm, self.address, body, subject, **headers))
        self.expected += 1
        return subject

    def pump(self) -> list[Got]:
        """Fetch what was sent, act on it, do what is due now, send; the mail that came out."""
        deadline = time.monotonic() + 30
        while self.expected > 0:
            got = self.intake.fetch_new(self.client, self.store, True)
            self.expected -= got
            if self.expected > 0:
                assert time.monotonic() < deadline, "mail to the judge never arrived"
                time.sleep(0.01)  # postfix delivers into dovecot within ~10 ms
        self.actor.process_inbox()
        self.actor.process_due()
        return self._flush()

    def _flush(self) -> list[Got]:
        self.scheduler.sync(self.store)
        self.sender.flush()
        # mail to the servers' own domain stays in dovecot (e.g. a reply to a stray message
        # from another test); everything else is relayed to the sink
        local = "%@" + self.env["MAILTEST_DOMAIN"]
        where = "FROM outbox WHERE state = 'sent' AND rcpt NOT LIKE ?"
        sent = self.store.one(f"SELECT count(*) AS n {where}", (local,))["n"]
        if sent == self.sent:  # nothing sent since the last time (a sent row stays sent): a
            return []  # tick of a long game with nothing due reads no more than that
        ids = {r["message_id"] for r in self.store.all(f"SELECT message_id {where}",
                                                        (local,))} - self.returned
        deadline = time.monotonic() + 30
        while True:  # everything this judge sent has reached the sink (matched by Message-ID)
            self._index_sink()
            new = sorted((x for i in ids for x in self.by_id.get(i, [])), key=lambda x: x[0])
            if len({m["Message-ID"] for _, m in new}) >= len(ids):
                self.returned |= ids
                self.sent = sent
                return [m for _, m in new]
            assert time.monotonic() < deadline, f"sink has {len(new)} of {len(ids)} messages"
            time.sleep(0.005)  # postfix relays to the sink within ~10 ms

    def _index_sink(self) -> None:
        """Index the sink's new messages by Message-ID (reading every header of every message
        at every tick was most of a long game's time)."""
        with self.sink.lock:
            fresh = self.sink.messages[self.indexed:]
        for k, m in enumerate(fresh, self.indexed):
            self.by_id.setdefault(m["Message-ID"], []).append((k, m))
        self.indexed += len(fresh)

    def tick(self) -> list[Got]:
        """What the scheduler does when it fires: the worker runs if something is due."""
        if self.scheduler.advance():
            self.actor.process_due()
        return self._flush()

    def advance(self, to: datetime, step: timedelta = timedelta(minutes=1)
                ) -> list[tuple[datetime, Got]]:
        """Move the clock to ``to`` one scheduler tick at a time; (time, mail) received."""
        out: list[tuple[datetime, Got]] = []
        t = self.clock()
        while t < to:
            t = min(to, t + step)
            self.clock.set(t)
            out += [(t, m) for m in self.tick()]
        return out

    def game(self, name: str) -> dict:
        g = self.store.game(name)
        assert g is not None
        return g


def addr(game: str, power: str) -> str:
    return f"{power.lower()}.{game}@players.test"


def gm_addr(game: str) -> str:
    return f"gm.{game}@players.test"


def new_game(j: LiveJudge, game: str, settings: list[str] | None = None,
             deadlines: str = "48h 24h 24h", players: list[str] | None = None) -> list[Got]:
    """Create, set, open, sign on every power, start; the mail of the start."""
    body = f"CREATE {game} gm-{game} DEADLINES {deadlines}\n" + "\n".join(
        f"SET {s}" for s in settings or []) + "\nOPEN"
    j.send(gm_addr(game), body)
    out = j.pump()  # mail is not delivered in the order sent: the game must exist first
    confirmed(j.store, *[addr(game, p) for p in players or POWERS])  # even in a test of it
    for p in players or POWERS:
        j.send(addr(game, p), f"SIGNON {p} {game} pw-{p.lower()}")
    out += j.pump()
    errors = [m for m in out if m.subject.startswith("[ERROR]")]
    assert not errors, errors[0].body
    j.send(gm_addr(game), f"MASTER {game} gm-{game}\nSTART")
    return j.pump()


def gm(j: LiveJudge, g: str, body: str) -> list[Got]:
    """A mail of the master of game ``g`` (signed on with ``gm-<g>``) and what the judge
    sent for it."""
    j.send(gm_addr(g), f"MASTER {g} gm-{g}\n{body}", subject="gm")
    return j.pump()


def orders(j: LiveJudge, game: str, power: str, lines: list[str]) -> str:
    return j.send(addr(game, power), f"SIGNON {power} {game} pw-{power.lower()}\n"
                  + "\n".join(lines))


def to(mail: list[Got], rcpt: str, pred: Callable[[Got], bool] = lambda m: True) -> list[Got]:
    return [m for m in mail if m.rcpt.lower() == rcpt.lower() and pred(m)]


def subj(mail: list[Got], text: str) -> list[Got]:
    return [m for m in mail if text in m.subject]


def hold_all(game: str) -> dict[str, list[str]]:
    """Spring 1901: every unit holds (one order line per unit)."""
    units = {"AUSTRIA": ["A VIE", "A BUD", "F TRI"], "ENGLAND": ["F LON", "F EDI", "A LVP"],
             "FRANCE": ["A PAR", "A MAR", "F BRE"], "GERMANY": ["A BER", "A MUN", "F KIE"],
             "ITALY": ["A VEN", "A ROM", "F NAP"],
             "RUSSIA": ["A WAR", "A MOS", "F SEV", "F STP/SC"],
             "TURKEY": ["F ANK", "A CON", "A SMY"]}
    return {p: [f"{u} H" for u in us] for p, us in units.items()}


@pytest.fixture(name="judge")
def unconfirmed_judge(judge_mailbox, smtp_sink, tmp_path):  # noqa: ANN001, ANN201
    """The ``judge`` fixture of the tests of mail from strangers: a :class:`LiveJudge` on a
    :class:`FakeClock` where no address has confirmed that it reads its mail but those the
    kit's :func:`new_game` seats (the victim of a forged mail never answers). A test file
    takes it with ``from gmkit import unconfirmed_judge``."""
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False)
    yield j
    j.close()


def open_game(j: LiveJudge, g: str) -> None:
    """A new game ``g`` open for sign-ons, its master ``gm_addr(g)`` (password gm-<g>)."""
    j.send(gm_addr(g), f"CREATE {g} gm-{g}\nOPEN")
    j.pump()


def seats(j: LiveJudge, g: str) -> dict[str, str]:
    """Power -> the address that plays it in game ``g``."""
    return {p["power"]: p["address"] for p in j.store.players(j.game(g)["id"])}


def confirm_code(reply: Got) -> str:
    """The confirmation code a request or reply carries (the first one)."""
    m = re.search(r"CONFIRM (\w{16})", reply.flat)
    assert m, reply.body
    return m.group(1)
