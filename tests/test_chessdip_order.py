"""Chess Dip's rulings do not depend on the order of the order lines (issue 14).

Seed N of ``judge.variants.chessdip.randomgame`` is one random movement phase (2 to 40
pieces, castling, en passant, support-convoys), listed as generated and shuffled; both
listings must get the same next position and the same result and reason for every order.

Budget: a few seconds in CI (seeds 0..CI_PHASES-1, the same every run). A nightly run sets
``JUDGE_FUZZ_EXAMPLES`` (as the fuzz suite does) to the number of phases, e.g. 200000, and
starts at a new seed each time; ``JUDGE_FUZZ_SEED`` sets the first seed to replay a run.
"""

from __future__ import annotations

import os
import random

import pytest

from judge.variants.chessdip import VARIANT
from judge.variants.chessdip.randomgame import listing_matters, random_phase, ruling

CI_PHASES = 1500


def _budget() -> tuple[int, int]:
    """(first seed, number of phases)."""
    size = os.environ.get("JUDGE_FUZZ_EXAMPLES", "").strip()
    first = os.environ.get("JUDGE_FUZZ_SEED", "").strip()
    if not size:
        return (int(first) if first else 0), CI_PHASES
    start = int(first) if first else random.SystemRandom().randrange(1 << 31)
    return start, int(size)


# 23060: a phase the resolver once ruled differently when shuffled (issue 14); 40148: a convoy
# paradox, where the backup rule fails a convoy and the resolution starts again; 8111, 104070
# and 145933 once told a different reason when shuffled (path blocked or convoy paradox, which
# convoy the paradox failed, bounced), before the true orders were numbered by the board.
@pytest.mark.parametrize("seed", [23060, 40148, 8111, 104070, 145933])
def test_regression_seeds_get_one_ruling(seed: int) -> None:
    position, lines, shuffled = random_phase(VARIANT.board, VARIANT.rules, seed)
    assert sorted(lines) == sorted(shuffled) and lines != shuffled
    first = ruling(VARIANT, position, lines)
    assert first == ruling(VARIANT, position, shuffled)
    assert first == ruling(VARIANT, position, list(reversed(lines)))


def test_paradox_seed_fails_a_convoy_whatever_the_listing() -> None:
    position, lines, shuffled = random_phase(VARIANT.board, VARIANT.rules, 40148)
    for listing in (lines, shuffled):
        reasons = [r[3] for r in ruling(VARIANT, position, listing)["results"]]
        assert any(r.startswith("convoy paradox: the convoy on") for r in reasons)


def test_shuffled_listings_get_the_same_ruling() -> None:
    start, count = _budget()
    differ = [s for s in range(start, start + count) if listing_matters(VARIANT, s)]
    assert differ == [], (f"seeds {start}..{start + count - 1}: replay one with "
                          f"python -m judge.variants.chessdip.randomgame SEED")
