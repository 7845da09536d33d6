"""``judge serve``'s Service with an injected clock on the real mail servers: the deadline
fires when the test moves the clock and tells the scheduler, never by waiting for it."""

from __future__ import annotations

from datetime import timedelta
from email.utils import parsedate_to_datetime

from gmkit import START, FakeClock, addr, gm_addr
from mailkit import POWERS, compose, confirmed, imap_config, send_smtp, write_config

from judge.config import load_config
from judge.service import Service
from judge.storage import Store, parse_iso


def test_service_processes_at_the_injected_clocks_deadline(judge_mailbox, smtp_sink, tmp_path):
    env = judge_mailbox
    judge = f"judge@{env['MAILTEST_DOMAIN']}"
    cfg = load_config(write_config(tmp_path, imap_config(env, tmp_path)))
    clock = FakeClock()
    service = Service(cfg, clock=clock)
    service.start()
    g = "sv1"

    def send(frm: str, body: str) -> None:
        confirmed(cfg.database_path, frm)  # players who confirmed their address once
        send_smtp(env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]), frm, judge,
                  compose(frm, judge, body))

    try:
        send(gm_addr(g), f"CREATE {g} gm-{g} DEADLINES 1d 1d 1d\nSET REMINDER OFF\nOPEN")
        smtp_sink.wait(lambda m: m.rcpt == gm_addr(g) and "created" in m.body)
        for p in POWERS:
            send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
        smtp_sink.wait(lambda m: "You have joined" in m.body, count=7)
        send(gm_addr(g), f"MASTER {g} gm-{g}\nSTART")
        smtp_sink.wait(lambda m: "has started" in m.subject, count=8)
        store = Store(cfg.database_path)
        deadline = parse_iso(store.game(g)["deadline"])
        assert deadline == START + timedelta(days=1)
        assert service.clock.advance() == []  # nothing due yet
        clock.set(deadline - timedelta(seconds=1))
        assert service.clock.advance() == []
        clock.set(deadline)
        assert service.clock.advance() == [store.game(g)["id"]]  # wakes the worker thread
        got = smtp_sink.wait(lambda m: m.subject == f"{g} - S1901M results", count=8)
        assert "Deadline: Wed 25 Nov 2026 10:00 UTC (in 1 day)" in got[0].body
        # rendered by the painter's pool after the transaction, dated by the judge's clock
        assert {parsedate_to_datetime(m["Date"]) for m in got} == {deadline}
        assert parse_iso(store.game(g)["deadline"]) == deadline + timedelta(days=1)
        store.close()
    finally:
        service.stop()
