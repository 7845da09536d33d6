"""One game's failure is contained to that game (issue 22): ``judge serve``'s Service on the
real mail servers, with an injected clock, and a test-only variant whose rules raise in the
phases the test chooses (tests/extra_variants/faulty).

At the deadline the failing game is paused with the reason, nothing of its phase is applied,
its master is mailed what failed (phase, reason, a log reference that is in the ERROR log line
with the traceback) and its players are told the phase is delayed; the other game due at the
same moment is adjudicated and reported, and mail is still answered. Once the master RESUMEs
with the fault gone, the phase is processed, once. A mail whose acting raises (orders that
complete a failing phase, a master's PROCESS) is answered, changes nothing, and the mail after
it is acted on."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from gmkit import START, FakeClock, addr, gm_addr
from mailkit import POWERS, Got, Sink, compose, confirmed, imap_config, send_smtp, write_config

import judge.variants
from judge.config import load_config
from judge.games import flow
from judge.service import Service
from judge.storage import Store, parse_iso

EXTRA = Path(__file__).with_name("extra_variants")


@pytest.fixture
def faulty(monkeypatch) -> Iterator[set[str]]:
    """The faulty variant installed; yields its set of failing phases (emptied after)."""
    monkeypatch.setattr(judge.variants, "__path__", [*judge.variants.__path__, str(EXTRA)])
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()
    from judge.variants import faulty as module

    module.FAIL_IN.clear()
    module.FAIL_STAGE_IN.clear()
    yield module.FAIL_IN
    module.FAIL_IN.clear()
    module.FAIL_STAGE_IN.clear()
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()


class Running:
    """A Service with an injected clock; players' mail goes through postfix and dovecot."""

    def __init__(self, env: dict, sink: Sink, tmp_path: Path) -> None:
        self.env, self.sink = env, sink
        self.address = f"judge@{env['MAILTEST_DOMAIN']}"
        self.cfg = load_config(write_config(tmp_path, imap_config(env, tmp_path)))
        self.clock = FakeClock()
        self.service = Service(self.cfg, clock=self.clock)
        self.service.start()
        self.store = Store(self.cfg.database_path)

    def send(self, frm: str, body: str, subject: str = "orders") -> None:
        confirmed(self.store, frm)  # players and masters who confirmed their address once
        send_smtp(self.env["MAILTEST_HOST"], int(self.env["MAILTEST_SMTP_PORT"]), frm,
                  self.address, compose(frm, self.address, body, subject))

    def wait(self, rcpt: str, subject: str, count: int = 1) -> list[Got]:
        return self.sink.wait(lambda m: m.rcpt == rcpt and subject in m.subject, count)

    def start_game(self, g: str, variant: str = "standard") -> None:
        self.send(gm_addr(g), f"CREATE {g} gm-{g} VARIANT {variant} DEADLINES 1d 1d 1d\n"
                  "SET REMINDER OFF\nOPEN", f"new game {g}")
        self.wait(gm_addr(g), f"new game {g}")
        for p in POWERS:
            self.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}", f"sign-on to {g}")
        for p in POWERS:
            self.wait(addr(g, p), "Re: sign-on to")
        self.send(gm_addr(g), f"MASTER {g} gm-{g}\nSTART", f"starting {g}")
        for p in POWERS:
            self.wait(addr(g, p), "has started")

    def game(self, g: str) -> dict:
        game = self.store.game(g)
        assert game is not None
        return game

    def positions(self, g: str) -> list[dict]:
        return self.store.all("SELECT phase, results, adjudicated FROM positions WHERE "
                              "game_id = ? ORDER BY id", (self.game(g)["id"],))

    def stop(self) -> None:
        self.store.close()
        self.service.stop()


def _failure_record(caplog) -> logging.LogRecord:
    found = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info
             and "bad1" in r.getMessage()]
    assert len(found) == 1, [r.getMessage() for r in caplog.records]
    return found[0]


def test_a_failing_game_is_paused_and_told_while_the_other_game_goes_on(
        judge_mailbox, smtp_sink, tmp_path, faulty, caplog):
    caplog.set_level(logging.INFO)
    j = Running(judge_mailbox, smtp_sink, tmp_path)
    try:
        j.start_game("bad1", "faulty")  # first: processed first of the two due games
        j.start_game("ok1")
        j.send(addr("bad1", "FRANCE"), "SIGNON FRANCE bad1 pw-france\nA PAR - BUR",
               "bad orders")
        j.wait(addr("bad1", "FRANCE"), "bad orders")
        deadline = parse_iso(j.game("bad1")["deadline"])
        assert parse_iso(j.game("ok1")["deadline"]) == deadline == START + timedelta(days=1)
        faulty.add("S1901M")

        j.clock.set(deadline)
        assert sorted(j.service.clock.advance()) == sorted([j.game("bad1")["id"],
                                                            j.game("ok1")["id"]])
        # the other game: adjudicated and reported as usual
        j.sink.wait(lambda m: m.subject == "ok1 - S1901M results", count=8)
        assert j.game("ok1")["phase"] == "F1901M"
        # the failing game: its master is told what failed, and how to find it in the log
        [master] = j.wait(gm_addr("bad1"), "bad1 - S1901M failed")
        record = _failure_record(caplog)
        ref = re.search(r"log reference (\S+)\)", record.getMessage())
        assert ref, record.getMessage()
        assert "EngineFault" in record.exc_text and "Traceback" in record.exc_text
        assert ref.group(1) in master.body, master.body
        assert "S1901M" in master.body
        assert "EngineFault: cannot resolve S1901M: decision cycle without a backup rule" \
            in master.flat, master.body
        assert "Traceback" not in master.body and "gm-bad1" not in master.body
        assert "RESUME" in master.body
        # each player: the phase is delayed, the orders stand
        for p in POWERS:
            [notice] = j.wait(addr("bad1", p), "bad1 - S1901M delayed")
            assert "internal problem" in notice.flat and "Orders already sent stand" in notice.flat, \
                notice.body
            assert "EngineFault" not in notice.body and ref.group(1) not in notice.body
        # paused with the reason; nothing of the phase applied
        game = j.game("bad1")
        assert (game["status"], game["phase"]) == ("paused", "S1901M")
        assert game["paused_why"] and "S1901M" in game["paused_why"], game["paused_why"]
        assert [(r["phase"], r["adjudicated"]) for r in j.positions("bad1")] == [
            ("S1901M", None)]
        assert j.store.all("SELECT id FROM outbox WHERE subject LIKE 'bad1 - S1901M results%'"
                           ) == []
        # no hot loop: the next ticks do not try it again
        caplog.clear()
        j.clock.set(deadline + timedelta(minutes=5))
        j.service.clock.advance()
        j.service.deadlines.wake()
        # mail is still answered; STATUS shows it paused, and why
        j.send("someone@players.test", "HELP", "help please")
        j.wait("someone@players.test", "help please")
        j.send("someone@players.test", "STATUS bad1\nLIST", "status please")
        [status] = j.wait("someone@players.test", "status please")
        assert "Game bad1 (Faulty Diplomacy): paused" in status.body, status.body
        assert "internal error" in status.flat and ref.group(1) in status.flat, status.body
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], \
            [r.getMessage() for r in caplog.records]
        # the orders sent before stand
        france = j.store.all("SELECT lines FROM orders WHERE game_id = ? AND power = "
                             "'FRANCE'", (j.game("bad1")["id"],))
        assert "A PAR - BUR" in str(france), france

        # the fault is fixed; the master resumes: the phase is processed, once
        faulty.clear()
        j.send(gm_addr("bad1"), "MASTER bad1 gm-bad1\nRESUME", "resume")
        [reply] = j.wait(gm_addr("bad1"), "Re: resume")
        assert "resumed" in reply.body and not reply.subject.startswith("[ERROR]"), reply.body
        reports = j.sink.wait(lambda m: m.subject == "bad1 - S1901M results", count=8)
        france_report = next(m for m in reports if m.rcpt == addr("bad1", "FRANCE"))
        assert "A PAR - BUR                    succeeds" in france_report.body
        game = j.game("bad1")
        assert (game["status"], game["phase"], game["paused_why"]) == ("active", "F1901M",
                                                                       None)
        j.clock.set(deadline + timedelta(minutes=10))
        j.service.clock.advance()
        j.send("someone@players.test", "HELP", "help again")
        j.wait("someone@players.test", "help again")
        assert [r["phase"] for r in j.positions("bad1") if r["adjudicated"]] == ["S1901M"]
        assert len([m for m in j.sink.messages if m.subject == "bad1 - S1901M results"]) == 8
    finally:
        j.stop()


def test_a_mail_whose_acting_fails_is_answered_and_changes_nothing(
        judge_mailbox, smtp_sink, tmp_path, faulty):
    j = Running(judge_mailbox, smtp_sink, tmp_path)  # no settling delay: the last orders in
    try:  # process the phase at once, in that mail's transaction
        j.start_game("bad2", "faulty")
        faulty.add("S1901M")
        for p in POWERS[:-1]:
            j.send(addr("bad2", p), f"SIGNON {p} bad2 pw-{p.lower()}\n"
                   + "\n".join(f"{u} H" for u in UNITS[p]), "my orders")
        for p in POWERS[:-1]:
            [reply] = j.wait(addr("bad2", p), "Re: my orders")
            assert not reply.subject.startswith("[ERROR]"), reply.body
        last = POWERS[-1]
        j.send(addr("bad2", last), f"SIGNON {last} bad2 pw-{last.lower()}\n"
               + "\n".join(f"{u} H" for u in UNITS[last]), "my orders")
        j.send(addr("bad2", last), "HELP", "and help")  # the same sender's next mail
        j.send(gm_addr("bad2"), "MASTER bad2 gm-bad2\nPROCESS", "process it")
        j.send("someone@players.test", "HELP", "help please")  # another sender's
        [failed] = j.wait(addr("bad2", last), "Re: my orders")
        assert failed.subject.startswith("[ERROR]"), failed.subject
        assert "could not handle your mail" in failed.flat, failed.body
        assert "nothing was changed" in failed.flat, failed.body
        assert "pw-" not in failed.body and "EngineFault" not in failed.body
        [master] = j.wait(gm_addr("bad2"), "Re: process it")
        assert master.subject.startswith("[ERROR]") and "nothing was changed" in master.flat
        j.wait(addr("bad2", last), "Re: and help")
        j.wait("someone@players.test", "Re: help please")
        # nothing changed: the last power's orders are not stored, the phase not processed
        game = j.game("bad2")
        assert (game["status"], game["phase"]) == ("active", "S1901M")
        assert [r["adjudicated"] for r in j.positions("bad2")] == [None]
        stored = {r["power"] for r in j.store.all("SELECT power FROM orders WHERE game_id = ?",
                                                  (game["id"],))}
        assert stored == set(POWERS[:-1]), stored
        # the mails are kept, marked as failed
        rows = j.store.all("SELECT state, raw FROM inbox WHERE state = 'error'")
        assert len(rows) == 2 and all(r["raw"] for r in rows), rows
    finally:
        j.stop()


UNITS = {"AUSTRIA": ["A VIE", "A BUD", "F TRI"], "ENGLAND": ["F LON", "F EDI", "A LVP"],
         "FRANCE": ["A PAR", "A MAR", "F BRE"], "GERMANY": ["A BER", "A MUN", "F KIE"],
         "ITALY": ["A VEN", "A ROM", "F NAP"], "RUSSIA": ["A WAR", "A MOS", "F SEV", "F STP/SC"],
         "TURKEY": ["F ANK", "A CON", "A SMY"]}


def test_a_game_that_fails_before_its_transaction_does_not_hold_up_the_games_after_it(
        judge_mailbox, smtp_sink, tmp_path, faulty):
    """The deadline worker asks each game whether something is due before it opens the
    game's transaction; a game that raises there is contained too."""
    from judge.variants.faulty import FAIL_STAGE_IN

    j = Running(judge_mailbox, smtp_sink, tmp_path)
    try:
        j.start_game("bad3", "faulty")
        j.start_game("ok3")
        FAIL_STAGE_IN.add("S1901M")
        j.clock.set(parse_iso(j.game("ok3")["deadline"]))
        j.service.clock.advance()
        j.sink.wait(lambda m: m.subject == "ok3 - S1901M results", count=8)
        [master] = j.wait(gm_addr("bad3"), "bad3 - S1901M failed")
        assert "EngineFault: no stage for S1901M" in master.flat, master.body
        j.wait(addr("bad3", "ITALY"), "bad3 - S1901M delayed")
        assert j.game("bad3")["status"] == "paused"
    finally:
        j.stop()


@pytest.mark.parametrize("also_failing", ["the apology", "marking it failed"])
def test_a_mail_whose_failure_cannot_be_answered_does_not_stop_the_inbox(
        tmp_path, monkeypatch, also_failing):
    """Acting on a mail raises, and so does what the judge does about it (its apology, or
    even marking it 'error'): the worker goes on with the next mail, not round and round on
    that one (it was acted on again at every step, and every mail after it waited)."""
    from mailkit import InProcessJudge, only_reply

    from judge.games import acting

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    j = InProcessJudge(tmp_path)
    j.send("alice@players.test", "CREATE crashy secret")
    monkeypatch.setattr(acting.G, "game_summary", boom)
    if also_failing == "the apology":
        monkeypatch.setattr(acting.Actor, "_apologise", boom)
    else:
        finish = Store.finish_inbox
        monkeypatch.setattr(Store, "finish_inbox", lambda self, i, state, note="": boom()
                            if state == "error" else finish(self, i, state, note))
    from judge.mail.intake import store_message

    store_message(j.store, compose("alice@players.test", j.cfg.address, "STATUS crashy"),
                  "test")
    sent = j.send("bob@players.test", "HELP")
    assert "HELP" in only_reply(sent, "bob@players.test").body
    assert j.inbox_states() == ["done", "error" if also_failing == "the apology" else "new",
                                "done"]


def test_a_message_that_cannot_be_stored_does_not_hold_up_the_mailbox(
        judge_mailbox, tmp_path, monkeypatch):
    """The IMAP intake stores a batch of mail in one transaction; a message that cannot be
    stored is left on the server and tried again later, and the others are stored (it used
    to roll the batch back and reconnect, again and again: no mail got in)."""
    import time

    from judge.mail import intake

    env = judge_mailbox
    cfg = load_config(write_config(tmp_path, imap_config(env, tmp_path)))
    address = f"judge@{env['MAILTEST_DOMAIN']}"
    for who, body in (("a@players.test", "HELP"), ("b@players.test", "POISON"),
                      ("c@players.test", "LIST")):
        send_smtp(env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]), who, address,
                  compose(who, address, body))
    from imapclient import IMAPClient

    # all three in the mailbox before the first fetch (postfix delivers them in any order,
    # and a POISON arriving after the others' fetch would never meet the failing store)
    seen = IMAPClient(env["MAILTEST_HOST"], port=int(env["MAILTEST_IMAP_PORT"]), ssl=False)
    seen.login("judge", "secret")
    try:
        t0 = time.monotonic()
        while True:
            seen.select_folder("INBOX", readonly=True)  # again: a fresh view of the folder
            if len(seen.search(["ALL"])) >= 3:
                break
            assert time.monotonic() - t0 < 30, "postfix never delivered the three mails"
            time.sleep(0.05)
    finally:
        seen.logout()
    real = intake.store_message
    monkeypatch.setattr(intake, "store_message", lambda store, raw, *a: (_ for _ in ()).throw(
        RuntimeError("cannot store")) if b"POISON" in raw else real(store, raw, *a))
    imap = intake.ImapIntake(cfg, lambda: None)
    client = imap._connect()
    store = Store(cfg.database_path)
    try:
        stored, t0 = 0, time.monotonic()
        while stored < 2:  # postfix delivers into dovecot within moments
            stored += imap.fetch_new(client, store, True)
            assert time.monotonic() - t0 < 30, stored
            time.sleep(0.05)
        senders = {r["mail_from"] or "" for r in store.all("SELECT mail_from FROM inbox")}
        assert len(store.all("SELECT id FROM inbox")) == 2, senders
        assert imap.fetch_new(client, store, True) == 0  # not again at once: no busy loop
        monkeypatch.setattr(intake, "store_message", real)  # fixed; and the time has come
        assert imap._until_retry() <= 1.0  # the session waits no longer than that
        time.sleep(1.0)
        assert imap.fetch_new(client, store, True) == 1
        assert len(store.all("SELECT id FROM inbox")) == 3
    finally:
        imap._logout()
        store.close()


class _Unprintable(Exception):
    """An exception whose message itself raises (a variant's bug in its __str__)."""

    def __str__(self) -> str:
        raise TypeError("no text")


def test_a_mail_whose_exception_cannot_be_printed_does_not_stop_the_inbox(tmp_path, monkeypatch):
    """Found by review: the failed mail's reason was read outside any guard, so the error
    out of the exception's own __str__ left the inbox loop: that mail stayed 'new' and no
    mail after it was ever acted on."""
    from mailkit import InProcessJudge, only_reply

    from judge.games import acting

    def boom(*args, **kwargs):
        raise _Unprintable()

    j = InProcessJudge(tmp_path)
    j.send("alice@players.test", "CREATE crashy secret")
    monkeypatch.setattr(acting.G, "game_summary", boom)
    sent = j.send("alice@players.test", "STATUS crashy")
    assert only_reply(sent, "alice@players.test").subject.startswith("[ERROR]")
    sent = j.send("bob@players.test", "HELP")
    assert "HELP" in only_reply(sent, "bob@players.test").body
    assert j.inbox_states() == ["done", "error", "done"]


def test_a_game_whose_exception_cannot_be_printed_is_paused_and_its_master_told(
        tmp_path, monkeypatch):
    """Found by review: the master's notice read the exception's message unguarded; the
    game was paused but nobody was told."""
    from mailkit import GM, InProcessJudge, new_game

    from judge.games import game as G

    j = InProcessJudge(tmp_path)
    new_game(j)

    def boom(*args, **kwargs):
        raise _Unprintable()

    monkeypatch.setattr(G, "adjudicate", boom)
    game = j.store.game("g1")
    j.actor.clock = lambda: parse_iso(game["deadline"]) + timedelta(seconds=1)
    sent = j.run()
    assert j.store.game("g1")["status"] == "paused"
    [master] = [m for m in sent if m.rcpt == GM]
    assert "_Unprintable" in master.flat and "failed" in master.subject, master.body
