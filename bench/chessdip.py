"""Benchmark: wall time to adjudicate one Chess Dip phase.

Random Chess Dip movement phases (seeds 0..N-1 of ``judge.variants.chessdip.randomgame``:
2 to 40 pieces, castling, en passant, support-convoys) and the adjustment phases of random
games are adjudicated from their order lines (reading, checking, resolution and the next
position). Prints a few human lines, then one JSON line as the last line:
{"movement_phases": N, "movement_median_ms": X, ...}.

    .venv/bin/python bench/chessdip.py [--phases 5000]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from judge.variants.chessdip import VARIANT
from judge.variants.chessdip.randomgame import adjustment_lines, movement_lines, random_phase


def _timed(cases: list) -> list[float]:
    for position, lines in cases[:50]:  # warm-up
        VARIANT.adjudicate_lines(position, lines)
    times = []
    for position, lines in cases:
        t0 = time.perf_counter()
        VARIANT.adjudicate_lines(position, lines)
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)


def _adjustment_cases(count: int) -> list:
    cases: list = []
    seed = 0
    while len(cases) < count:
        rng = random.Random(seed)
        seed += 1
        pos = VARIANT.initial_position()
        for _ in range(12):
            if pos.winner:
                break
            if pos.phase.kind == "M":
                lines = movement_lines(VARIANT.board, VARIANT.rules, pos, rng)
            else:
                lines = adjustment_lines(VARIANT.board, VARIANT.rules, pos, rng)
                cases.append((pos, lines))
            pos = VARIANT.adjudicate_lines(pos, lines).position
    return cases[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", type=int, default=5000)
    args = parser.parse_args()
    movement = _timed([random_phase(VARIANT.board, VARIANT.rules, s)[:2]
                       for s in range(args.phases)])
    adjust = _timed(_adjustment_cases(max(args.phases // 10, 100)))
    out = {"movement_phases": len(movement),
           "movement_median_ms": round(statistics.median(movement), 4),
           "movement_p90_ms": round(movement[int(len(movement) * 0.9)], 4),
           "movement_max_ms": round(movement[-1], 2),
           "adjustment_phases": len(adjust),
           "adjustment_median_ms": round(statistics.median(adjust), 4)}
    print(f"movement phases: {len(movement)}, median {out['movement_median_ms']} ms, "
          f"p90 {out['movement_p90_ms']} ms, max {out['movement_max_ms']} ms")
    print(f"adjustment phases: {len(adjust)}, median {out['adjustment_median_ms']} ms")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
