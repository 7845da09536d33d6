"""Outbound duplicates after ``kill -9``: how many replies reach the SMTP server twice.

``judge serve`` runs with its built-in SMTP receiver and SMTP outbound straight into an
aiosmtpd sink in this process. N mails (``CREATE``, each one a database write for the worker)
are handed to the receiver; while the worker acts on them and the sender sends the replies, the
judge is killed with SIGKILL at a few points (after 1/(K+1), 2/(K+1), ... of the replies
reached the sink) and started again on the same database. At the end every mail must have
exactly one reply; a reply the sink received twice is a duplicate (same Message-ID: the server
accepted it, the judge died before it recorded that, and sent it again after the restart).

The last line of output is JSON: {"mails": N, "kills": K, "duplicates": D, "missing": M, ...}.
Usage: python bench/outbound_kill.py [--mails 400] [--kills 3] [--rounds 1] [--jitter-ms 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import smtplib
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sink:
    """aiosmtpd counting every accepted message by Message-ID."""

    def __init__(self, port: int) -> None:
        from aiosmtpd.controller import Controller

        self.ids: list[str] = []
        self.lock = threading.Lock()
        sink = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):  # noqa: ANN001
                head = (envelope.original_content or envelope.content).split(b"\r\n\r\n")[0]
                mid = ""
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"message-id:"):
                        mid = line[11:].strip().decode("ascii", "replace")
                with sink.lock:
                    sink.ids.append(mid)
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=port)

    def count(self) -> int:
        with self.lock:
            return len(set(self.ids))


def mail(frm: str, to: str, body: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, to, "create"
    m["Message-ID"] = make_msgid(domain="bench.test")
    m.set_content(body)
    return m.as_bytes()


def start_judge(config: Path, cwd: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "judge.cli", "serve", "--config",
                             str(config)], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=open(log, "ab"), env=env)  # noqa: SIM115
    deadline = time.monotonic() + 60
    while "SMTP receiver listening" not in log.read_text(errors="replace").split(
            "=== start")[-1]:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"judge did not start:\n{log.read_text()}")
        time.sleep(0.05)
    return proc


def one_round(n: int, kills: int, sink: Sink, sink_port: int, jitter: float) -> dict:
    d = Path(tempfile.mkdtemp(prefix="bench-outkill-"))
    port = free_port()
    config = d / "judge.toml"
    config.write_text(f"""
[judge]
address = "judge@bench.test"
database = "{d / 'judge.db'}"
[intake]
mode = "smtp"
listen = "127.0.0.1:{port}"
[outbound]
mode = "smtp"
host = "127.0.0.1"
port = {sink_port}
starttls = false
retry_seconds = 0.2
""")
    log = d / "judge.log"
    log.write_text("=== start\n")
    before = len(sink.ids)
    proc = start_judge(config, d, log)
    tag = uuid.uuid4().hex[:6]
    t0 = time.monotonic()
    handed = threading.Event()

    def hand_in() -> None:
        """Give the receiver every mail; across a kill, reconnect and give it again (the
        Message-ID makes a mail stored twice one inbox row)."""
        msgs = [mail(f"p{i}@players.bench.test", "judge@bench.test",
                     f"CREATE g{tag}{i} pw{i}") for i in range(n)]
        i = 0
        while i < n:
            try:
                with smtplib.SMTP("127.0.0.1", port, timeout=60) as s:
                    while i < n:
                        s.sendmail(f"p{i}@players.bench.test", ["judge@bench.test"], msgs[i])
                        i += 1
            except (OSError, smtplib.SMTPException):
                time.sleep(0.05)
        handed.set()

    threading.Thread(target=hand_in, daemon=True).start()
    killed_at = []
    for k in range(1, kills + 1):
        target = before + n * k // (kills + 1)
        while len(sink.ids) < target:
            if time.monotonic() - t0 > 600:
                raise SystemExit("no progress")
            time.sleep(0.002)
        time.sleep(random.uniform(0, jitter))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at.append(len(sink.ids) - before)
        with open(log, "a") as fh:
            fh.write("=== start\n")
        proc = start_judge(config, d, log)
    handed.wait(600)
    deadline = time.monotonic() + 600
    while True:
        con = sqlite3.connect(d / "judge.db", timeout=30)
        try:
            done = con.execute("SELECT count(*) FROM inbox WHERE state != 'new'").fetchone()[0]
            open_ = con.execute("SELECT count(*) FROM outbox WHERE state NOT IN "
                                "('sent', 'failed')").fetchone()[0]
        finally:
            con.close()
        if done == n and open_ == 0:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"not finished: {done} acted, {open_} open")
        time.sleep(0.1)
    elapsed = time.monotonic() - t0
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    mine = sink.ids[before:]
    counts = Counter(mine)
    return {"mails": n, "kills": kills, "killed_after_replies": killed_at,
            "received": len(mine), "distinct": len(counts),
            "duplicates": sum(c - 1 for c in counts.values()),
            "missing": n - len(counts), "seconds": round(elapsed, 1), "dir": str(d)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mails", type=int, default=400)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jitter-ms", type=float, default=0.0,
                    help="kill up to this long after the sink accepted the n-th reply "
                         "(0: right at an acceptance, the worst moment)")
    args = ap.parse_args()
    sink_port = free_port()
    sink = Sink(sink_port)
    sink.controller.start()
    try:
        results = []
        for _ in range(args.rounds):
            r = one_round(args.mails, args.kills, sink, sink_port, args.jitter_ms / 1000)
            print(json.dumps(r), flush=True)
            results.append(r)
    finally:
        sink.controller.stop()
    total = {"jitter_ms": args.jitter_ms, "mails": sum(r["mails"] for r in results),
             "kills": sum(r["kills"] for r in results),
             "duplicates": sum(r["duplicates"] for r in results),
             "missing": sum(r["missing"] for r in results),
             "rounds": len(results)}
    print(json.dumps(total))


if __name__ == "__main__":
    main()
