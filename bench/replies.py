"""Benchmark: what a hostile mail costs in replies (docs/operating.md, "Security").

Sends, in-process (Maildir out), the attacks of issue 13 and prints the bytes the judge sent
back for the bytes it received, and the wall time it took:

* one mail of N lines of spam after a HELP (default 100,000 lines, about 800 KB);
* an inline-copying responder (the judge's reply pasted back without ">") for R rounds;
* F fresh HELP mails from one address (the hourly ceiling).

Prints a few human lines, then one JSON line as the last line.

    .venv/bin/python bench/replies.py [--lines 100000] [--rounds 50] [--flood 100]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mailkit import InProcessJudge, compose  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--flood", type=int, default=100)
    args = ap.parse_args()
    out: dict = {}

    judge = InProcessJudge(Path(tempfile.mkdtemp()))
    body = "HELP\n" + "\n".join(f"spam{i}" for i in range(args.lines))
    raw = compose("a@evil.test", judge.cfg.address, body, Reply_To="victim@innocent.test")
    t0 = time.perf_counter()
    sent = judge.deliver(raw)
    t = time.perf_counter() - t0
    size = sum(len(m.raw) for m in sent)
    print(f"{args.lines} spam lines: {len(raw)} bytes in, {size} bytes out in {len(sent)} "
          f"mail(s) to {[m.rcpt for m in sent]}, {t:.2f} s")
    out.update(spam_in=len(raw), spam_out=size, spam_amplification=round(size / len(raw), 4),
               spam_seconds=round(t, 2), victim_mails=sum(m.rcpt.startswith("victim")
                                                          for m in sent))

    judge = InProcessJudge(Path(tempfile.mkdtemp()))
    got = judge.send("robot@remote.test", "HELP")
    answered = len(got)
    for _ in range(args.rounds):
        if not got:
            break
        m = got[0]
        got = judge.deliver(compose("robot@remote.test", judge.cfg.address, m.body,
                                    subject="Re: " + m.subject))
        answered += len(got)
    print(f"inline-copying responder, {args.rounds} rounds: {answered} replies")
    out["responder_replies"] = answered

    judge = InProcessJudge(Path(tempfile.mkdtemp()))
    t0 = time.perf_counter()
    flood = sum(len(judge.send("flood@remote.test", "HELP", subject=f"n{i}"))
                for i in range(args.flood))
    t = time.perf_counter() - t0
    print(f"{args.flood} HELP mails from one address: {flood} replies "
          f"(ceiling {getattr(judge.cfg, 'replies_per_hour', None)}/hour), {t:.2f} s")
    out.update(flood_mails=args.flood, flood_replies=flood, flood_seconds=round(t, 2))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
