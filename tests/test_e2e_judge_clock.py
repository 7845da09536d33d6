"""The judge's one clock governs its mail too: ``judge serve``'s Service on an injected clock
(as the season simulator and the deadline tests run it), mail in through its SMTP receiver and
out through postfix to the sink. The hourly reply ceiling, the mail-loop guard and the Date
header follow that clock, not the wall clock: a season where days pass in milliseconds must not
silence a player for mail spread over virtual hours, nor date its mail in another time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest
from gmkit import FakeClock
from mailkit import Got, Sink, compose, free_port, imap_config, send_smtp, unique, write_config

from judge.config import load_config
from judge.service import Service
from judge.storage import Store, iso


class VirtualJudge:
    """The Service on a FakeClock; each mail is acted on before the next is sent."""

    def __init__(self, env: dict, sink: Sink, tmp_path: Path, **judge: int) -> None:
        self.sink, self.port = sink, free_port()
        text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
        text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{self.port}"')
        for key, value in judge.items():
            text = text.replace("[judge]", f"[judge]\n{key} = {value}")
        self.cfg = load_config(write_config(tmp_path, text))
        self.clock = FakeClock()
        self.service = Service(self.cfg, clock=self.clock)
        self.service.start()
        self.store = Store(self.cfg.database_path)
        self.acted = 0

    def send(self, frm: str, body: str, subject: str) -> None:
        """One mail, acted on (answered or not) when this returns."""
        send_smtp("127.0.0.1", self.port, frm, self.cfg.address,
                  compose(frm, self.cfg.address, body, subject))
        self.acted += 1
        deadline = time.monotonic() + 30
        while self.store.one("SELECT count(*) AS n FROM inbox WHERE state != 'new'")["n"] \
                < self.acted:
            assert time.monotonic() < deadline, "the judge never acted on the mail"
            time.sleep(0.02)

    def answers(self, rcpt: str, count: int) -> list[Got]:
        """The ``count`` mails the judge sent to ``rcpt``, once all are in the sink, and
        no more queued for it."""
        got = self.sink.wait(lambda m: m.rcpt == rcpt, count)
        queued = self.store.one("SELECT count(*) AS n FROM outbox WHERE rcpt = ?", (rcpt,))
        assert (len(got), queued["n"]) == (count, count), [m.subject for m in got]
        return got

    def stop(self) -> None:
        self.store.close()
        self.service.stop()


@pytest.fixture
def virtual_judge(mail_servers, smtp_sink, tmp_path) -> Iterator:
    judges: list[VirtualJudge] = []

    def start(**judge: int) -> VirtualJudge:
        judges.append(VirtualJudge(mail_servers, smtp_sink, tmp_path, **judge))
        return judges[-1]

    yield start
    for j in judges:
        j.stop()


def test_the_reply_ceiling_counts_the_judges_hours_and_replies_are_dated_by_them(
        virtual_judge):
    """Five mails an hour apart on the judge's clock, with three replies an hour allowed:
    five replies, each dated at the judge's time (the ceiling counted wall time: the three
    replies of the last few seconds silenced the fourth mail, dated now). Four mails within
    one hour of that clock: three replies and the one [LIMIT] notice."""
    j = virtual_judge(replies_per_hour=3)
    player = f"player@{unique('p')}.test"
    for k in range(5):
        j.send(player, "LIST", f"list {k}")
        (reply,) = j.sink.wait(lambda m, k=k: m.rcpt == player and m.subject == f"Re: list {k}")
        assert parsedate_to_datetime(reply["Date"]) == j.clock()
        # what the judge stored of it is stamped with its time too (not `sent`: the sender
        # writes that once the sink has the mail)
        stamps = j.store.one("SELECT i.received, i.acted, o.created FROM inbox i JOIN "
                             "outbox o ON o.inbox_id = i.id ORDER BY i.id DESC LIMIT 1")
        assert set(stamps.values()) == {iso(j.clock())}
        j.clock.set(j.clock() + timedelta(hours=1, minutes=1))
    j.answers(player, 5)

    j.clock.set(j.clock() + timedelta(hours=1))
    for k in range(4):
        j.send(player, "LIST", f"again {k}")
        j.clock.set(j.clock() + timedelta(minutes=5))
    got = j.answers(player, 9)
    assert sorted(m.subject for m in got[5:]) == [
        "Re: again 0", "Re: again 1", "Re: again 2",
        "[LIMIT] Replies to you are paused for an hour"]


def test_the_mail_loop_guard_counts_the_judges_minutes(virtual_judge):
    """A robot answering every error reply at once, twelve mails in one minute of the judge's
    clock: ten error replies, then silence. Twelve such mails a day apart: each answered (the
    guard counted wall time: the eleventh and twelfth, sent seconds after the first, went
    unanswered whatever the judge's clock said)."""
    j = virtual_judge()
    robot = f"robot@{unique('r')}.test"
    for k in range(12):
        j.send(robot, "Thank you for your message.", f"fast {k}")
        j.clock.set(j.clock() + timedelta(seconds=5))
    assert all(m.subject.startswith("[ERROR]") for m in j.answers(robot, 10))

    slow = f"robot@{unique('s')}.test"
    for k in range(12):
        j.send(slow, "Thank you for your message.", f"slow {k}")
        j.clock.set(j.clock() + timedelta(days=1))
    assert all(m.subject.startswith("[ERROR]") for m in j.answers(slow, 12))
