"""Big-mail benchmark: seconds of worker time for one mail of N order lines (linear or not).

A running standard game; France sends one mail: SIGNON, then N order lines (valid orders, bad
orders and unknown words, mixed; about 11 bytes a line, so the size limit is lifted here).
The judge's real actor acts on it (parse, act, reply queued).
Run with the line cap lifted (``--no-cap``) to measure the handling itself, or with the default
``[limits]`` to see what a hostile sender gets today.

Usage: python bench/bigmail.py [--lines 8000 30000 100000] [--no-cap] [--guesses] [--profile]
The last line of output is JSON: {"lines": [...], "seconds": [...], "per_line_us": [...]}.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from intake import mail, setup_game  # noqa: E402

from judge.config import Config  # noqa: E402
from judge.games.acting import Actor  # noqa: E402
from judge.mail.intake import store_message  # noqa: E402
from judge.storage import Store  # noqa: E402

LINES = ["A PAR - PIC", "A MAR - BUR", "F BRE - MAO", "A PAR H", "F KIE - DEN",
         "hello there", "A XYZ - ABC", "F BRE S A PAR - PIC"]


def one(n: int, cap: bool, profile: bool, guesses: bool = False) -> float:
    with tempfile.TemporaryDirectory() as d:
        cfg = Config(database=str(Path(d) / "judge.db"), base_dir=Path(d))
        cfg.max_message_bytes = 10**8  # measure the handling, not the size refusal
        if not cap and hasattr(cfg, "limits"):
            cfg.limits.commands_per_mail = 10**9
        actor = Actor(Store(cfg.database_path), cfg)
        setup_game(actor, cfg.address)
        body = "SIGNON FRANCE bench pw-france\n" + "\n".join(
            f"SIGNON FRANCE bench guess{i}" if guesses else LINES[i % len(LINES)]
            for i in range(n))
        store_message(actor.s, mail("france@bench.test", cfg.address, body), "bench")
        prof = cProfile.Profile() if profile else None
        t0 = time.perf_counter()
        if prof:
            prof.enable()
        acted = actor.process_inbox()
        if prof:
            prof.disable()
        t1 = time.perf_counter()
        assert acted == 1
        if prof:
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        return t1 - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, nargs="+", default=[8000, 30000, 100000])
    ap.add_argument("--no-cap", action="store_true", help="lift [limits] commands_per_mail")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--guesses", action="store_true",
                    help="distinct SIGNON guesses instead of orders (all masked when stored)")
    args = ap.parse_args()
    seconds = []
    for n in args.lines:
        t = one(n, not args.no_cap, args.profile, args.guesses)
        seconds.append(round(t, 2))
        print(f"{n:>7} lines: {t:7.2f} s ({t / n * 1e6:.0f} us/line)", flush=True)
    print(json.dumps({"lines": args.lines, "seconds": seconds,
                      "per_line_us": [round(s / n * 1e6, 1) for s, n in
                                      zip(seconds, args.lines, strict=True)]}))


if __name__ == "__main__":
    main()
