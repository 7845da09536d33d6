"""Writing the archive's folder: after each public report (``judge serve``'s archive thread,
off the deadline's path) the pages of the games that have new mail, the index and the judge's
feed; ``judge archive --out DIR`` the whole of it. Both write what :mod:`.pages` renders, so
the same database gives the same bytes. Each file is written to a temporary file beside it
and renamed over the old one (a reader never sees half a page), and only when its bytes
changed.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from judge.archive import pages
from judge.archive.store import ensure, present, publish
from judge.config import Config
from judge.storage import Store

log = logging.getLogger("judge.archive")


def make_folder(path: Path) -> None:
    """``path`` and the folders missing above it, each readable by all (0755): the web server
    runs as another user, and the judge's umask (the systemd unit's 0027) would make them
    0750, every page then forbidden. A folder that exists is left as its owner made it."""
    if path.is_dir():
        return
    make_folder(path.parent)
    try:
        path.mkdir()
    except FileExistsError:
        return
    os.chmod(path, 0o755)


def write_file(folder: Path, name: str, data: bytes) -> bool:
    """Write ``data`` to ``folder/name`` atomically; False when it held those bytes already."""
    path = folder / name
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    make_folder(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # served by a web server running as another user
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def write_files(folder: Path, files: dict[str, bytes]) -> int:
    """Write each file (path relative to ``folder``); how many changed."""
    return sum(write_file(folder, name, data) for name, data in sorted(files.items()))


def update(s: Store, cfg: Config) -> int:
    """Publish the public mail that is ready (:func:`.store.publish`) and write the pages it
    changes into the archive folder: each such game's pages and new pictures, then the index
    and the judge's feed. Returns how many files changed."""
    if not cfg.archive.on:
        return 0
    publish(s)
    if not present(s):
        return 0
    ensure(s)
    rows = s.all("SELECT id, game_id FROM archive_mail WHERE state = 'ready' ORDER BY id")
    folder = cfg.archive_path
    games = pages.archived_games(s, cfg)
    # a game's status or phase changes with no new mail too (PAUSE, ROLLBACK, ENDGAME)
    shown = {r["game_id"]: r["facts"] for r in s.all("SELECT game_id, facts FROM "
                                                     "archive_games")}
    facts = {g["id"]: _facts(g) for g in games}
    moved = {gid for gid, f in facts.items() if shown.get(gid) != f}
    if not rows and not moved and (folder / "index.html").exists():
        return 0
    make_folder(folder)
    fresh: dict[int, list[int]] = {}
    for r in rows:
        fresh.setdefault(r["game_id"], []).append(r["id"])
    changed = 0
    for g in games:
        if g["id"] in fresh:
            changed += write_files(folder, pages.game_pictures(s, g, fresh[g["id"]]))
        if g["id"] in fresh or g["id"] in moved:
            changed += write_files(folder, pages.game_pages(s, cfg, g))
    changed += write_files(folder, pages.index_pages(s, cfg, games))
    with s.transaction():
        for r in rows:
            s.execute("UPDATE archive_mail SET state = 'written' WHERE id = ? AND "
                      "state = 'ready'", (r["id"],))
        for gid in moved:
            s.execute("INSERT INTO archive_games (game_id, facts) VALUES (?, ?) ON CONFLICT "
                      "(game_id) DO UPDATE SET facts = excluded.facts", (gid, facts[gid]))
    return changed


def _facts(game: dict) -> str:
    """What a game's pages and the index show of the game itself (not of its mail)."""
    return json.dumps([game["name"], game["variant"], game["status"], game["phase"]])


def rebuild(s: Store, cfg: Config, out: Path) -> int:
    """``judge archive --out``: the whole archive written into ``out`` from the database
    (what is published; nothing is changed in the database). How many files changed."""
    if present(s):  # its columns as the pages read them (the judge adds them at its start)
        ensure(s)
    make_folder(out)
    return write_files(out, pages.site(s, cfg))
