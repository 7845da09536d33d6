"""bench/intake.py runs and ends with its JSON line (small run, against the session's servers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "intake.py"


def test_intake_bench_prints_rates_as_a_json_last_line(mail_servers):
    env = {**os.environ, **mail_servers}
    out = subprocess.run([sys.executable, str(BENCH), "--messages", "60"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["messages"] == 60
    assert result["in_process_per_s"] > 0 and result["imap_per_s"] > 0
