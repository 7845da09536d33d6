"""Benchmark: wall time of Multiplicity II movement phases with rings of supports.

Rings of supports that cut each other are ruled by trying every way of giving their supports
(variants/multiplicity/movement.py, ``_rule_rings``), one full resolution per way. This
measures random Multiplicity phases (the property tests' generator), phases built round a
ring, and the largest ring searched (six 3A round a circle: 4096 ways). Prints a few human
lines, then one JSON line as the last line.

    .venv/bin/python bench/multiplicity_rings.py [--phases 500] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_multiplicity_properties import random_lines, random_position  # noqa: E402
from test_multiplicity_rings import ring_phase  # noqa: E402

from judge.variants import get_variant  # noqa: E402

V = get_variant("multiplicity")


def timed(cases: list) -> list[float]:
    times = []
    for position, lines in cases:
        t0 = time.perf_counter()
        V.adjudicate_lines(position, lines)
        times.append((time.perf_counter() - t0) * 1000)
    return sorted(times)


def six_ring() -> tuple:
    # A circle of six land provinces, each next to the next, each 3A supporting an attack
    # on the next one: any g, 2 - g, g, ... is consistent, so step 2 rules it.
    circle = ["BEL", "HOL", "KIE", "MUN", "BUR", "PIC"]
    starts = ["NTH", "HEL", "BER", "TYR", "GAS", "BRE"]  # attack the next province
    powers = ["ENGLAND", "GERMANY", "RUSSIA", "AUSTRIA", "FRANCE", "ITALY"]
    units: dict[str, list[str]] = {}
    lines = []
    for i, prov in enumerate(circle):
        nxt = circle[(i + 1) % 6]
        start = starts[(i + 1) % 6]
        kind = "F" if start in ("NTH", "HEL") else "A"
        units.setdefault(powers[i], []).extend([f"3A {prov}", f"{kind} {start}"])
        lines += [(powers[i], f"{kind} {start} - {nxt}"),
                  (powers[i], f"3A {prov} S {kind} {start} - {nxt}")]
    position = V.read_position({"variant": "multiplicity", "phase": "S1901M", "units": units,
                                "centres": {}})
    return position, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    general = []
    for _ in range(args.phases):
        position = random_position(rng, rng.randint(8, 30))
        general.append((position, random_lines(position, rng)))
    rings = [made for made in (ring_phase(rng) for _ in range(args.phases)) if made]
    out: dict[str, object] = {}
    for name, cases in (("random", general), ("ring", rings)):
        times = timed(cases)
        median, p90 = statistics.median(times), times[int(len(times) * 0.9)]
        print(f"{name} phases: {len(times)}: median {median:.2f} ms, p90 {p90:.2f} ms, "
              f"max {times[-1]:.2f} ms")
        out.update({f"{name}_median_ms": round(median, 3), f"{name}_p90_ms": round(p90, 3),
                    f"{name}_max_ms": round(times[-1], 2)})
    six = timed([six_ring()])[0]
    print(f"six 3A round a circle (4096 ways): {six:.0f} ms")
    out["six_ring_ms"] = round(six, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
