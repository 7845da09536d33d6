"""A whole standard game through the judge's real acting code (in-process, Maildir out)."""

from __future__ import annotations

from mailkit import InProcessBackend, InProcessJudge, play_standard_game


def test_standard_game_to_winter_adjustments(tmp_path):
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    reports = play_standard_game(b, "ip1", lambda p: f"{p.lower()}@players.test",
                                 "gm@players.test")
    print(reports["FRANCE"].body)
