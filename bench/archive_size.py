"""The web archive's size per game-year (issue 27): a standard game's 1901 and a Stab! game's
1901 played by mail through the judge's real acting code in process (the scripted games of
tests/mailkit.py and tests/stabkit.py: Spring, Autumn with a retreat, Winter with builds),
then the archive written; the size of each game's folder (its pages, pictures and feed), of
the index, style sheet and judge's feed, as a JSON last line.

    .venv/bin/python bench/archive_size.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from mailkit import InProcessBackend, InProcessJudge, play_standard_game  # noqa: E402
from stabkit import play_stab_game  # noqa: E402

from judge.archive.write import update  # noqa: E402
from judge.config import ArchiveConfig  # noqa: E402


def size(folder: Path) -> tuple[int, int]:
    files = [f for f in folder.rglob("*") if f.is_file()]
    return sum(f.stat().st_size for f in files), len(files)


def main() -> None:
    d = Path(tempfile.mkdtemp(prefix="bench-archive-"))
    j = InProcessJudge(d, archive=ArchiveConfig(folder="site"))
    addr = lambda p: f"{p.lower()}@players.test"  # noqa: E731
    play_standard_game(InProcessBackend(j), "std", addr, "gm@players.test")
    play_stab_game(InProcessBackend(j), "stab", addr, "gm@players.test", d / "judge.db")
    update(j.store, j.cfg)
    site = d / "site"
    out = {}
    for game in ("std", "stab"):
        total, count = size(site / "game" / game)
        pngs = [f.stat().st_size for f in (site / "game" / game).glob("*.png")]
        reports = j.store.one("SELECT count(*) AS n FROM archive_mail a JOIN games g ON "
                              "g.id = a.game_id WHERE g.name = ? AND a.kind = 'report'",
                              (game,))["n"]
        out[game] = {"bytes_per_year": total, "files": count, "reports": reports,
                     "pictures": len(pngs), "picture_bytes": sum(pngs)}
    shared = sum((site / f).stat().st_size for f in ("index.html", "style.css", "feed.atom"))
    out["index_style_feed_bytes"] = shared
    print(json.dumps(out))


if __name__ == "__main__":
    main()
