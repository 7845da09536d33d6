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
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from seasonkit import KINDS, Season  # noqa: E402

# what a folder given to --keep may hold before the run empties it: a previous run's files
KEPT = ("judge.db", "judge.sender.db", "judge.log", "outgoing")


def count(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number, at least ``least``."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"{n}: at least {least}")
        return n
    return parse


def main() -> int:
    names = [k for k, _, _ in KINDS]
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games-per-variant", type=count(1), default=1, metavar="N",
                    help="games of each kind (default %(default)s)")
    ap.add_argument("--years", type=count(1), default=2, metavar="Y",
                    help="game years each game is played before its master ends it "
                    "(default %(default)s)")
    ap.add_argument("--seed", type=int, default=1, metavar="S",
                    help="what the players, masters and the judge's chance draw from: the "
                    "same seed plays the same season (default %(default)s)")
    ap.add_argument("--kill", type=count(0), default=0, metavar="K",
                    help="run the judge in a child process and SIGKILL it K times, "
                    "restarting it each time (default %(default)s)")
    ap.add_argument("--only", default="", metavar="KINDS",
                    help="comma-separated kinds to play, each game from the seed the full "
                    f"run gives it (default all: {','.join(names)})")
    ap.add_argument("--keep", default="", metavar="DIR",
                    help="run in DIR and leave the database (judge.db), the Maildir "
                    "(outgoing/) and the judge's log (judge.log) there; DIR must be new, "
                    "empty or a previous run's")
    args = ap.parse_args()
    unknown = [k for k in args.only.split(",") if k and k not in names]
    if unknown:
        ap.error(f"--only: no kind {', '.join(unknown)} (the kinds: {', '.join(names)})")
    d = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="season-"))
    if args.keep and d.exists():
        if not d.is_dir():
            ap.error(f"--keep {d}: not a folder")
        other = sorted(x.name for x in d.iterdir() if not x.name.startswith(KEPT))
        if other:
            ap.error(f"--keep {d}: holds {', '.join(other[:5])}, not a previous run's files "
                     "only; give a new or empty folder")
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
