"""Dipnomicy's rulings do not depend on the order of the order lines (issue 22).

Seed N of ``tests/dipnomicy_random.py`` is one random movement phase under a random ruleset
(convoys, P1 support, P2/P3 centres, P4 double moves, P6 sizes and merges, each on or off),
listed as generated and shuffled; both listings must get the same outcome, all of it: the
next position (sizes and rules included), the result and reason of every order, the units
beaten out (by whom, where they may go) and merged away, and the move report (each country's
moves in the order its player wrote them, the rest word for word).

The listing mattered with P6 when a unit was named in two merges (``Me A Ber A Mun`` and
``Me A Mun A Ber``: the first listed happened): now every merge naming a unit that another
merge names fails, with the reason (``description.md``).

Budget: a few seconds in CI (seeds 0..CI_PHASES-1, the same every run). The nightly size:
``JUDGE_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q -n 0 tests/test_dipnomicy_order.py``
(a new first seed each run, ``JUDGE_FUZZ_SEED`` replays one), or ``.venv/bin/python
tests/dipnomicy_random.py FIRST --count N`` per range of seeds, which prints the seeds whose
listings differ or raise. About 6 ms of CPU a phase (both listings, with their reports).
"""

from __future__ import annotations

import os
import random

import pytest
from dipnomicy_random import check_seed, random_phase, ruling
from test_dipnomicy_rules import enact, play, setup, units

CI_PHASES = 400


def _budget() -> tuple[int, int]:
    """(first seed, number of phases)."""
    size = os.environ.get("JUDGE_FUZZ_EXAMPLES", "").strip()
    first = os.environ.get("JUDGE_FUZZ_SEED", "").strip()
    if not size:
        return (int(first) if first else 0), CI_PHASES
    start = int(first) if first else random.SystemRandom().randrange(1 << 31)
    return start, int(size)


def merging(units_of: dict[str, list[str]]):  # noqa: ANN201 - a Position
    return enact(setup(units_of), "Merging units")


# Two merges naming one unit, in both listings: every one of them fails, and says why.
TWO_MERGES = [
    ({"GERMANY": ["A BER", "A MUN"]}, ["Me A Ber A Mun", "Me A Mun A Ber"],
     ["A BER", "A MUN"], ["A BER and A MUN are", "A MUN and A BER are"]),
    ({"GERMANY": ["A BER", "A MUN", "A KIE"]}, ["Me A Ber A Mun", "Me A Kie A Mun"],
     ["A BER", "A KIE", "A MUN"], ["A MUN is", "A MUN is"]),
    ({"GERMANY": ["A BER", "A MUN", "A TYR"]}, ["Me A Ber A Mun", "Me A Mun A Tyr"],
     ["A BER", "A MUN", "A TYR"], ["A MUN is", "A MUN is"]),
]


@pytest.mark.parametrize(("start", "lines", "after", "named"), TWO_MERGES)
def test_a_unit_named_in_two_merges_makes_both_fail_in_any_listing(
        start: dict[str, list[str]], lines: list[str], after: list[str],
        named: list[str]) -> None:
    position = merging(start)
    for listing in (lines, list(reversed(lines))):
        out = play(position, {"GERMANY": listing})
        assert sorted(units(out.position)["GERMANY"]) == after, listing
        merges = [r for r in out.results if r.order.startswith("ME ")]
        assert len(merges) == 2 and all(r.result == "fails" for r in merges)
        assert sorted(r.reason for r in merges) == [
            f"{who} named in more than one merge: a unit takes part in one merge a turn, "
            "so none of them happens" for who in named]


def test_merges_naming_different_units_all_happen() -> None:
    # Unrelated to the rule above: two merges of four distinct units both happen.
    position = merging({"GERMANY": ["A BER", "A MUN", "A KIE", "A RUH"]})
    out = play(position, {"GERMANY": ["Me A Ber A Mun", "Me A Kie A Ruh"]})
    assert [r.result for r in out.results[:2]] == ["succeeds", "succeeds"]
    assert sorted(units(out.position)["GERMANY"]) == ["2A MUN", "2A RUH"]


# Seeds whose listings once got different rulings: 95 (two units merging into each other,
# "Me F Bul A Ser" and "Me A Ser F Bul"), 225 (two such pairs), 262 (A Sil merged into twice).
@pytest.mark.parametrize("seed", [95, 225, 262])
def test_regression_seeds_get_one_ruling(seed: int) -> None:
    position, lines, shuffled = random_phase(seed)
    assert sorted(lines) == sorted(shuffled) and lines != shuffled
    first = ruling(position, lines)
    assert first == ruling(position, shuffled)
    assert first == ruling(position, list(reversed(lines)))


def test_the_ruling_shows_every_outcome() -> None:
    # The comparison below means something only if the random phases play every rule:
    # double moves through a two-coast territory, merges made and voided, units beaten out.
    seen = set()
    for seed in range(100):
        position, lines, _ = random_phase(seed)
        decided = ruling(position, lines)
        reasons = " ".join(r[3] for r in decided["results"])
        orders = " ".join(r[1] for r in decided["results"] if r[2] == "succeeds")
        seen.update(k for k, hit in [
            ("merged", decided["disbanded"]), ("beaten", decided["dislodged"]),
            ("voided", "named in more than one merge" in reasons),
            ("passed coast", any(f" - {c} - " in orders for c in (
                "STP/SC", "STP/NC", "SPA/SC", "SPA/NC", "BUL/EC", "BUL/SC"))),
            ("convoyed", "C A" in orders), ("supported", " S " in orders)] if hit)
    assert seen == {"merged", "beaten", "voided", "passed coast", "convoyed", "supported"}


def test_shuffled_listings_get_the_same_ruling() -> None:
    start, count = _budget()
    problems = {s: p for s in range(start, start + count) if (p := check_seed(s))}
    assert problems == {}, (f"seeds {start}..{start + count - 1}: replay one with "
                            f".venv/bin/python tests/dipnomicy_random.py SEED")
