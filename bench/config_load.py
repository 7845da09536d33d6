"""How long the judge takes to import its config module and to load and check a config file
(deploy/judge.toml.example with its passwords filled in). Prints one JSON line.

    .venv/bin/python bench/config_load.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def import_ms(rounds: int = 15) -> float:
    """Median wall time of `import judge.config` in a fresh interpreter, less a bare start."""
    def run(code: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t
    bare = statistics.median(run("pass") for _ in range(rounds))
    full = statistics.median(run("import judge.config") for _ in range(rounds))
    return (full - bare) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2000)
    args = ap.parse_args()
    from judge.config import load_config

    text = (REPO / "deploy" / "judge.toml.example").read_text()
    text = text.replace('password = "..."', 'password = "pw"')
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "judge.toml"
        p.write_text(text)
        times = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            load_config(p)
            times.append(time.perf_counter() - t)
    print(json.dumps({"load_config_median_us": round(statistics.median(times) * 1e6, 1),
                      "import_judge_config_ms": round(import_ms(), 1)}))


if __name__ == "__main__":
    main()
