"""The season's oracle of invariant 7 in Dipnomicy (issue 25): a ROLLBACK undoes the turn's
orders, and the simulated players send again the mails that were that turn's orders. The
nightly run (seed 9001, game dipnomicy34) flagged a ROLLBACK F1901M as giving other results:
the master had PROCESSed F1901M in a round, its players mailed after that in the same round
(their mails were S1902M's orders), and the oracle counted those mails as F1901M's and sent
them again after the ROLLBACK. The judge was right; the oracle resent other orders."""

from __future__ import annotations

from seasonkit import ChildJudge, Season

PROCESS, ROLLBACK, NOTHING = 0.30, 0.0, 0.5  # Season.master_acts's rolls


class ProcessThenRollback(Season):
    """The master PROCESSes a movement phase its players have already mailed for, then, in
    the next phase, rolls back to it; nothing else."""

    script: list[str]

    def master_roll(self, g, phase, d):
        self.script = getattr(self, "script", [])
        if not self.script and phase.endswith("M") and g.mails_by_phase.get(phase):
            self.script.append(f"PROCESS {phase}")
            return PROCESS
        if len(self.script) == 1:
            self.script.append(f"ROLLBACK in {phase}")
            return ROLLBACK
        return NOTHING


def test_a_rollback_after_the_masters_process_resends_the_orders_in_force(tmp_path):
    season = ProcessThenRollback(tmp_path / "season", games_per_variant=1, years=2, seed=3,
                                 kinds=["dipnomicy"])
    out = season.run()
    (g,) = season.games
    assert len(season.script) == 2, season.script
    assert g.rolled_back == 1 and g.replay is None, g.master_log  # played again and checked
    assert out["finished"] == 1
    problems = "\n".join(f"{v['phase']}: {v['what'][:800]}" for v in out["violations"])
    assert not problems, f"{g.master_log}\n{problems}"


def test_a_deep_tracebacks_exception_is_reported(tmp_path):
    """The nightly season of seed 20261128 (--kill 20) saw a Dipnomicy game paused by an
    internal error whose traceback was reported cut at 12 lines: the frames, not what was
    raised. The whole traceback is reported, to the exception's own line."""
    frames = [f'  File "/x/judge/f{k}.py", line {k}, in f{k}\n    f{k + 1}()' for k in range(9)]
    (tmp_path / "judge.log").write_text(
        "2026-11-27 23:56:51,496 ERROR judge.deadlines: game g: processing failed\n"
        "Traceback (most recent call last):\n" + "\n".join(frames) +
        "\nKeyError: 'S1901M'\n2026-11-27 23:56:52,000 INFO judge.acting: next\n")
    judge = ChildJudge.__new__(ChildJudge)  # its log only, no child started
    judge.log, judge.orphans = tmp_path / "judge.log", 0
    [error, traceback] = judge.error_lines()
    assert "processing failed" in error
    assert traceback.endswith("KeyError: 'S1901M'"), traceback
    assert "next" not in traceback


def test_a_second_rollback_to_a_turn_compares_the_turns_report_not_the_rollback_notice(
        tmp_path):
    """The nightly of seed 20261201 (game dipnomicy1) flagged a second ROLLBACK to turn 1:
    the oracle took as 'the report of the phase played again' the first report since the
    ROLLBACK whose subject the game had had before, and the 'rolled back to turn 1' notice had
    been sent at the first ROLLBACK, so the two notices were compared (they differ rightly:
    the second told of orders sent ahead pending again). The turn's own report is compared."""
    import sqlite3
    from email.message import EmailMessage
    from types import SimpleNamespace

    def raw(text: str) -> bytes:
        m = EmailMessage()
        m["Subject"] = "x"
        m.set_content(text)
        return bytes(m)

    path = tmp_path / "judge.db"
    c = sqlite3.connect(path)
    c.execute("CREATE TABLE outbox (id INTEGER PRIMARY KEY, game_id INT, kind TEXT, "
              "subject TEXT, rcpt TEXT, raw BLOB)")
    rows = [("dip: move report, turn 1", "report one"),
            ("dip: rolled back to turn 1", "first notice"),  # the first ROLLBACK
            ("dip: move report, turn 1", "report one"),  # its turn played again
            ("dip: rolled back to turn 1", "second notice, blocks pending again"),  # second
            ("dip: move report, turn 1", "report one")]  # the turn played again again
    for subject, text in rows:
        c.execute("INSERT INTO outbox (game_id, kind, subject, rcpt, raw) VALUES "
                  "(1, 'report', ?, 'p@x', ?)", (subject, raw(text)))
    c.commit()
    c.close()

    def db() -> sqlite3.Connection:
        conn = sqlite3.connect(path)
        conn.row_factory = sqlite3.Row
        return conn

    season = SimpleNamespace(db=db)
    got = Season.replayed_reports(season, SimpleNamespace(gid=1), 3)  # type: ignore[arg-type]
    assert got is not None
    subject, before, after = got
    assert subject == "dip: move report, turn 1", subject
    assert after["p@x"].strip() == "report one"
