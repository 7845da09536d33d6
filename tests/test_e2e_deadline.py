"""Deadlines: the scheduler wakes a game at its deadline, also after a restart (the jobs are
rebuilt from the database), and the report goes to every player.

The judge is a subprocess on the real clock: the game's deadline is 12 s after its start,
room for the first judge to be stopped before it on a loaded machine (it was 8 s, with 10 s
allowed to see the start: a slow start let the first judge process the phase itself)."""

from __future__ import annotations

import signal
import time

from mailkit import (
    POWERS,
    Got,
    JudgeProcess,
    compose,
    confirmed,
    free_port,
    send_smtp,
    write_config,
)

from judge.storage import Store, parse_iso


def test_deadline_survives_a_restart_and_processes_the_phase(tmp_path):
    port = free_port()
    cfg = write_config(tmp_path, f'[judge]\naddress = "judge@localhost"\n'
                                 f'[intake]\nmode = "smtp"\nlisten = "127.0.0.1:{port}"\n')
    outgoing = tmp_path / "outgoing" / "new"

    def send(frm: str, body: str) -> None:
        confirmed(tmp_path / "judge.db", frm)  # players who confirmed their address once
        send_smtp("127.0.0.1", port, frm, "judge@localhost",
                  compose(frm, "judge@localhost", body))

    def mail() -> list[Got]:
        return [Got(p.read_bytes()) for p in sorted(outgoing.iterdir())] \
            if outgoing.is_dir() else []

    judge = JudgeProcess(cfg, tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening")
        send("gm@players.test", "CREATE dl masterpw DEADLINES 12s 12s 12s\nOPEN")
        for p in POWERS:
            send(f"{p.lower()}@players.test", f"SIGNON {p} dl pw-{p.lower()}")
        send("france@players.test", "SIGNON FRANCE dl pw-france\nA PAR - BUR")
        send("gm@players.test", "MASTER dl masterpw\nSTART")
        t0 = time.monotonic()
        while not any("has started" in m.subject for m in mail()):
            assert time.monotonic() - t0 < 30, judge.log.read_text()
            time.sleep(0.05)
        send("france@players.test", "SIGNON FRANCE dl pw-france\nA PAR - BUR")
        time.sleep(0.5)
    except BaseException:
        judge.stop(signal.SIGKILL)  # a failure here left the judge running after the test
        raise
    assert judge.stop() == 0  # SIGTERM: a clean stop

    store = Store(tmp_path / "judge.db")
    deadline = parse_iso(store.game("dl")["deadline"])
    # the restart is what this tests: the first judge stopped before the deadline
    assert store.game("dl")["phase"] == "S1901M", "the first judge reached the deadline"
    store.close()

    judge = JudgeProcess(cfg, tmp_path).start()  # the deadline must come from the database
    try:
        judge.wait_log("SMTP receiver listening")
        t0 = time.monotonic()
        while True:
            reports = [m for m in mail() if " - S1901M results" in m.subject]
            if len(reports) == len(POWERS) + 1:
                break
            assert time.monotonic() - t0 < 45, judge.log.read_text()
            time.sleep(0.1)
        from judge.storage import now_utc

        assert now_utc() >= deadline  # not before the deadline
        assert (now_utc() - deadline).total_seconds() < 10  # and promptly after it
        france = [m for m in reports if m.rcpt == "france@players.test"][0]
        assert "A PAR - BUR                    succeeds" in france.body
        assert "A MAR H                        succeeds (no order: holds)" in france.body
        assert "Next phase: Fall 1901 Movement (F1901M)" in france.body
    finally:
        assert judge.stop() == 0
