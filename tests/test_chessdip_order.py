"""Chess Dip's rulings do not depend on the order of the order lines (issue 14).

Seed N of ``judge.variants.chessdip.randomgame`` is one random movement phase (2 to 40
pieces, castling, en passant, support-convoys; a Spring's or a Fall's), listed as generated
and shuffled; both listings must get the same outcome, all of it: the next position, the
result and reason of every order, the pieces dislodged (attacker, retreats), disbanded and
built, the centres that changed hands, and the report's events; and the report itself reads
the same (each power's results in the order its player wrote them, the rest word for word).

Budget: a few seconds in CI (seeds 0..CI_PHASES-1, the same every run). The nightly size is
200,000 phases: ``JUDGE_FUZZ_EXAMPLES=200000 .venv/bin/python -m pytest -q
tests/test_chessdip_order.py`` (as the fuzz suite does; it starts at a new seed each run,
``JUDGE_FUZZ_SEED`` sets the first seed to replay one), or split over processes with
``python -m judge.variants.chessdip.randomgame FIRST --count N`` per range of seeds, which
prints the seeds whose listings differ. About 9 ms of CPU a phase, so 200,000 take about
half an hour of one core.
"""

from __future__ import annotations

import os
import random

import pytest

from judge.engine.position import Position
from judge.games.flow import flow_of
from judge.mail.compose import render
from judge.reports import phase_report
from judge.variants.chessdip import VARIANT
from judge.variants.chessdip.randomgame import Lines, listing_matters, random_phase, ruling

CI_PHASES = 1200


def _budget() -> tuple[int, int]:
    """(first seed, number of phases)."""
    size = os.environ.get("JUDGE_FUZZ_EXAMPLES", "").strip()
    first = os.environ.get("JUDGE_FUZZ_SEED", "").strip()
    if not size:
        return (int(first) if first else 0), CI_PHASES
    start = int(first) if first else random.SystemRandom().randrange(1 << 31)
    return start, int(size)


REPORTED_PHASES = 200  # the CI seeds whose reports are rendered too (a few ms each)


def report_text(position: Position, lines: Lines) -> list[str]:
    """The phase's report as every reader gets it, with each run of indented lines (a power's
    results, the centres table, the changes) in sorted order: a power's results come in the
    order its player wrote them, which is the one thing a listing may change."""
    outcome = VARIANT.adjudicate_lines(position, lines)
    orders = []
    for power, line in lines:
        try:
            orders.append((power, VARIANT.read_order(position, power, line)))
        except ValueError:
            continue
    events = VARIANT.rules.events(outcome, orders)
    subject, template, context = phase_report(
        VARIANT, {"name": "shuffled", "deadline": None}, outcome, events, None,
        classic_names=flow_of("chessdip").classic_names(VARIANT))
    context["no_orders"] = []
    text = render(template, judge_address="judge@example.org", **context)
    out, block = [subject], []
    for row in text.splitlines():
        if row.startswith("  "):
            block.append(row)
            continue
        out += sorted(block) + [row]
        block = []
    return out + sorted(block)


def test_report_text_shows_every_outcome() -> None:
    # The comparison below means something only if the report shows what was decided.
    position, lines, _ = random_phase(VARIANT.board, VARIANT.rules, 17)
    text = "\n".join(report_text(position, lines))
    decided = ruling(VARIANT, position, lines)
    assert decided["dislodged"] and decided["centre_changes"]
    for _power, order, result, reason in decided["results"]:
        assert order in text and result in text and reason in text
    for unit in decided["disbanded"]:
        assert unit.title().split(" ", 1)[0] in text and unit.split(" ", 1)[1] in text


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
    report = report_text(position, lines)
    assert report == report_text(position, shuffled)
    assert report == report_text(position, list(reversed(lines)))


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


def test_shuffled_listings_get_the_same_report() -> None:
    start, count = _budget()
    differ = []
    for seed in range(start, start + min(count, REPORTED_PHASES)):
        position, lines, shuffled = random_phase(VARIANT.board, VARIANT.rules, seed)
        if report_text(position, lines) != report_text(position, shuffled):
            differ.append(seed)
    assert differ == []
