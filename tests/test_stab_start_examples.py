"""Stab!'s start notice (issue 24 item 11): every example order it prints is one the judge
accepts from the reader's power. ``PLACE F BUD`` was Austria's example, and Budapest is
inland: a player who copied it got an error back."""

from __future__ import annotations

import re

from mailkit import POWERS, InProcessBackend, InProcessJudge
from stabkit import StabMailGame

from judge.games.flow import flow_of
from judge.games.game import current_position
from judge.variants import get_variant


def test_every_example_in_the_start_notice_is_valid_for_the_readers_power(tmp_path):
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    game = StabMailGame(b, "ex", lambda p: f"{p.lower()}@p.test", "gm@p.test",
                        tmp_path / "judge.db")
    game.start()
    variant = get_variant("stab")
    pos = current_position(judge.store, judge.store.game("ex"))
    checked = 0
    for power in POWERS:
        notice = next(m for m in b.got
                      if m.rcpt == f"{power.lower()}@p.test" and "has started" in m.subject)
        examples = [line.strip() for line in notice.body.splitlines()
                    if re.match(r"\s+PLACE\s", line)]
        assert examples, notice.body
        for example in examples:
            read = flow_of("stab").read_lines(variant, pos, power, [example])
            assert all(not r.get("error") and r.get("order") is not None for r in read), \
                (power, example, read)
            checked += 1
    assert checked >= len(POWERS)
