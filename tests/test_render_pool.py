"""The rendering pool of ``judge serve`` (judge/service.py): its processes leave with the
judge, also when the judge is killed and cannot shut them down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# a judge process reduced to its pool: start it, make every process run once, print their
# pids, then wait to be killed
CHILD = """
import os, sys, time
from judge.service import render_pool
pool = render_pool(2)
pids = set()
while len(pids) < 2:  # each process answers once it has started
    pids |= {f.result() for f in [pool.submit(os.getpid) for _ in range(8)]}
    pids |= {p.pid for p in pool._processes.values()}
print(" ".join(map(str, sorted(pids))), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """Running, not merely a zombie waiting for whoever adopted it to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_rendering_processes_leave_when_the_judge_is_killed() -> None:
    judge = subprocess.Popen([sys.executable, "-c", CHILD], cwd=REPO, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert judge.stdout is not None
        pids = [int(p) for p in judge.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        os.kill(judge.pid, signal.SIGKILL)
        judge.wait(10)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in pids if _alive(p)], "rendering processes outlived the judge"
    finally:
        judge.kill()
        for p in pids if "pids" in locals() else []:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
