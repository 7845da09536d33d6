"""A season in a box (issue 25): N games of every variant played to their end by simulated
players and a simulated master, through the real judge (judge.service.Service: the SMTP
receiver, the workers, the scheduler, the painter, the sender to a Maildir) on a virtual
clock, with the invariants of tests/invariants.py checked on every game.

    .venv/bin/python bench/season.py --games-per-variant N --years Y --seed S [--kill K]

A progress line on stderr while it runs; the last line of stdout is JSON: games, finished,
phases, mails_in, mails_out, violations (a list: game, variant, phase, what), internal_errors,
wall_s, peak_rss_mb, db_mb_per_game_year, and a few more. Exit status 0 when there is no
violation, 1 otherwise. The same seed plays the same season: the same JSON but wall_s,
peak_rss_mb, peak_rss_judge_mb and db_mb_per_game_year (``outcomes``: a digest of each game's
end). ``--kill K`` runs the judge in a child process and kills it (SIGKILL) K times at moments
drawn from the seed, restarting it each time; where a kill lands in the judge's work depends on
its threads' timing, so a run with kills is not promised to be the same twice.
``--keep DIR`` leaves the database, the Maildir and the log there.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from seasonkit import KINDS, Season  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games-per-variant", type=int, default=1)
    ap.add_argument("--years", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kill", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated kinds: "
                    + ",".join(k for k, _, _ in KINDS))
    ap.add_argument("--keep", default="", help="a folder to run in and keep")
    args = ap.parse_args()
    d = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="season-"))
    if args.keep and d.exists():
        shutil.rmtree(d)
    kinds = [k for k in args.only.split(",") if k] or None
    season = Season(d, args.games_per_variant, args.years, args.seed, args.kill,
                    progress=lambda s: print(s, file=sys.stderr, flush=True), kinds=kinds)
    try:
        out = season.run()
    finally:
        if not args.keep:
            shutil.rmtree(d, ignore_errors=True)
    for v in out["violations"]:
        print(f"VIOLATION {v['game']} ({v['variant']}) {v['phase']}: {v['what']}",
              file=sys.stderr)
    print(json.dumps(out))
    return 1 if out["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
