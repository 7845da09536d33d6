"""A reply to an address that has never confirmed it reads the judge's mail is cut at
``[limits] unconfirmed_reply_bytes`` (20 KB), saying how to get the rest (attack30): a forged
mail in a victim's name asking ``HISTORY g S1901M F1902M``, ``HISTORY g S1901M S1902M``...
(distinct ranges, so the dedupe of a question asked again does not fold them) got a reply up
to ``reply_max_bytes`` (200 KB), 30 such replies an hour. Through the real mail servers."""

from __future__ import annotations

import itertools

import pytest
from gmkit import FakeClock, LiveJudge, gm, new_game, to
from mailkit import confirmed

VICTIM = "victim@elsewhere.test"
READER = "reader@elsewhere.test"


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False)
    yield j
    j.close()


def _ranges(g: str, phases: list[str]) -> str:
    """Every distinct HISTORY range of ``phases``, plain and CLASSIC: one mail's questions
    that are all different."""
    lines = [f"HISTORY {g} {a} {b}" for a, b in itertools.combinations_with_replacement(
        phases, 2)]
    return "\n".join(lines + [f"{line} CLASSIC" for line in lines])


def test_a_forged_history_flood_gets_a_short_reply_and_a_confirmed_reader_all(judge):
    g = "hi1"
    new_game(judge, g, ["REMINDER OFF"])
    for _ in range(4):  # four phases processed: S1901M, F1901M, S1902M, F1902M
        gm(judge, g, "PROCESS")
    phases = ["S1901M", "F1901M", "S1902M", "F1902M"]
    asked = _ranges(g, phases)
    judge.send(VICTIM, asked)
    [forged] = to(judge.pump(), VICTIM)
    assert len(forged.raw) <= 20_000 + 1_000, len(forged.raw)  # with the relay's headers
    assert "This reply was cut" in forged.flat, forged.flat[-800:]
    assert "has not confirmed that it reads the judge's mail" in forged.flat
    assert f"OBSERVE {g}" in forged.flat or "OBSERVE <game>" in forged.flat
    assert "CONFIRM" in forged.flat
    assert forged.body.rstrip().endswith("Send HELP for the commands.")  # signature kept
    # an address that has confirmed gets today's limit: the whole answer here
    confirmed(judge.store, READER)
    judge.send(READER, asked)
    [whole] = to(judge.pump(), READER)
    assert len(whole.raw) > 40_000, len(whole.raw)
    assert "This reply was cut" not in whole.flat
