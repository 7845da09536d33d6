"""Benchmark: what a victim's mailbox receives from forged HISTORY mail (attack30).

A stranger forges mail in a victim's name asking ``HISTORY g S1901M F1905M``, ``HISTORY g
S1901M F1904M``... (every range different, so the dedupe of a question asked again does not
fold them). In-process (the judge's real storage, acting and Maildir sender): a game whose
master has processed P phases, then M forged mails from one address that never confirmed
it reads the judge's mail, all within the hour; then the same mail once from an address
that has confirmed. Prints the bytes each reply took as sent and the total for the hour.

Prints a few human lines, then one JSON line as the last line.

    .venv/bin/python bench/forged_history.py [--phases 10] [--mails 40]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from mailkit import GM, InProcessJudge, confirmed, new_game  # noqa: E402

VICTIM = "victim@elsewhere.test"
READER = "reader@elsewhere.test"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phases", type=int, default=10, help="phases processed before")
    ap.add_argument("--mails", type=int, default=40, help="forged mails in one hour")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        judge = InProcessJudge(Path(tmp))
        new_game(judge, "g")
        for _ in range(args.phases):
            judge.send(GM, "MASTER g masterpw\nPROCESS")
        phases = [r["phase"] for r in judge.store.all(
            "SELECT p.phase FROM positions p JOIN games g ON g.id = p.game_id "
            "WHERE g.name = 'g' AND p.results IS NOT NULL ORDER BY p.id")]
        ranges = [f"HISTORY g {a} {b}" for a, b in itertools.combinations_with_replacement(
            phases, 2)]
        judge.confirm_senders = False  # the victim has never confirmed anything
        sizes: list[int] = []
        kinds: list[str] = []
        for k in range(args.mails):
            # each mail its own questions: a rotation of the ranges, some CLASSIC
            lines = ranges[k % len(ranges):] + ranges[:k % len(ranges)]
            body = "\n".join(lines + [f"{x} CLASSIC" for x in lines[:5]])
            for got in judge.send(VICTIM, body, subject=f"history {k}"):
                if got.rcpt.lower() == VICTIM:
                    sizes.append(len(got.raw))
                    kinds.append("limit" if got.subject.startswith("[LIMIT]") else "reply")
        confirmed(judge.store, READER)
        whole = [len(g.raw) for g in judge.send(READER, "\n".join(ranges), subject="whole")
                 if g.rcpt.lower() == READER]
    replies = [s for s, k in zip(sizes, kinds, strict=True) if k == "reply"]
    out = {"phases": len(phases), "ranges": len(ranges), "mails": args.mails,
           "replies": len(replies), "limit_notices": kinds.count("limit"),
           "largest_reply": max(replies, default=0), "bytes_per_hour": sum(sizes),
           "confirmed_reply": max(whole, default=0)}
    print(f"{len(phases)} phases, {len(ranges)} ranges; {args.mails} forged mails in an hour")
    print(f"victim got {len(replies)} replies (largest {out['largest_reply']:,} bytes) and "
          f"{kinds.count('limit')} limit notice(s): {sum(sizes):,} bytes")
    print(f"a confirmed address asking the same: {out['confirmed_reply']:,} bytes")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
