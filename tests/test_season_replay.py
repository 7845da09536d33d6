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
