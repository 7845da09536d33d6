"""Benchmark: wall time to adjudicate one standard movement phase.

Random movement phases on the standard board with 30 to 34 units and random legal orders
(supports that often match a real move, some convoys) are adjudicated through the variant's
rules (order checking, resolution and the next position). Prints a few human lines, then one
JSON line as the last line: {"phases": N, "median_ms": X, "p90_ms": Y, ...}.

It also times adjudicating the same phases from the orders as a game stores them: from their
canonical text, read and checked again (how the judge did it before orders were stored as
data; still the way for rows stored then), and from their stored JSON data (how it does it
now), the JSON decoding included in both (``stored_text_*`` and ``stored_data_*``).

    .venv/bin/python bench/adjudicate.py [--phases 2000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from judge.engine.position import Position
from judge.engine.randomgame import random_orders, random_position
from judge.variants import get_variant

DATC = Path(__file__).resolve().parents[1] / "tests" / "data" / "datc" / "datc.json"


def bench_phases(phases: int, seed: int) -> list[float]:
    variant = get_variant("standard")
    rng = random.Random(seed)
    cases = []
    for _ in range(phases):
        position = random_position(variant.board, rng, rng.randint(30, 34))
        cases.append((position, random_orders(variant.board, position, rng)))
    for position, orders in cases[:50]:  # warm-up (caches of the board and rules)
        variant.rules.adjudicate(position, orders)
    times = []
    for position, orders in cases:
        t0 = time.perf_counter()
        variant.rules.adjudicate(position, orders)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def bench_stored(phases: int, seed: int) -> tuple[list[float], list[float]]:
    """(times from text, times from data) for the same phases, as stored rows."""
    variant = get_variant("standard")
    rng = random.Random(seed)
    rows = []
    for _ in range(phases):
        position = random_position(variant.board, rng, rng.randint(30, 34))
        orders = random_orders(variant.board, position, rng)
        rows.append((position, json.dumps([{"power": p, "order": str(o),
                                            "data": variant.order_to_data(o)}
                                           for p, o in orders])))
    text_times, data_times = [], []
    for position, row in rows:
        t0 = time.perf_counter()
        variant.adjudicate_lines(position, [(x["power"], x["order"]) for x in json.loads(row)])
        t1 = time.perf_counter()
        variant.adjudicate_lines(position, [(x["power"], variant.order_from_data(x["data"]))
                                            for x in json.loads(row)])
        t2 = time.perf_counter()
        text_times.append((t1 - t0) * 1000)
        data_times.append((t2 - t1) * 1000)
    return sorted(text_times), sorted(data_times)


def bench_datc() -> float | None:
    if not DATC.exists():
        return None
    variant = get_variant("standard")
    cases = json.loads(DATC.read_text(encoding="utf-8"))["cases"]
    t0 = time.perf_counter()
    for case in cases:
        position = Position.from_json({"variant": "standard", "phase": case["phase"],
                                       "units": case["units"],
                                       "centres": case.get("supply_centers", {})})
        lines = [(p, o) for p, os in case["orders"].items() for o in os]
        outcome = variant.adjudicate_lines(position, lines)
        for follow in case.get("followup", []):
            lines = [(p, o) for p, os in follow["orders"].items() for o in os]
            variant.adjudicate_lines(outcome.position, lines)
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    times = bench_phases(max(args.phases, 1000), args.seed)
    times.sort()
    median = statistics.median(times)
    p90 = times[int(len(times) * 0.9)]
    datc_ms = bench_datc()
    from_text, from_data = bench_stored(1000, args.seed)
    print(f"movement phases: {len(times)}, 30-34 units each")
    print(f"median {median:.3f} ms, p90 {p90:.3f} ms, max {times[-1]:.3f} ms")
    if datc_ms is not None:
        print(f"all 165 DATC cases in-process: {datc_ms:.1f} ms")
    print(f"from stored rows, {len(from_text)} phases: text read again median "
          f"{statistics.median(from_text):.3f} ms (total {sum(from_text):.0f} ms); data median "
          f"{statistics.median(from_data):.3f} ms (total {sum(from_data):.0f} ms)")
    print(json.dumps({"phases": len(times), "median_ms": round(median, 4), "p90_ms": round(p90, 4),
                      "datc_all_ms": round(datc_ms, 1) if datc_ms is not None else None,
                      "stored_text_median_ms": round(statistics.median(from_text), 4),
                      "stored_data_median_ms": round(statistics.median(from_data), 4),
                      "stored_text_total_ms": round(sum(from_text), 1),
                      "stored_data_total_ms": round(sum(from_data), 1)}))


if __name__ == "__main__":
    main()
