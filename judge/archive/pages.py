"""The archive's pages and feeds, rendered from the stored public mail (:mod:`.store`) and the
games' public columns (name, variant, status, phase) alone: a pure function of the database,
so the folder written after each report and ``judge archive --out`` hold the same bytes.

The layout (every link relative, so the folder can be served under any path)::

    index.html  style.css  feed.atom          the games; the judge's feed (latest mail)
    game/<name>/index.html                    a game: players, centre counts, its history
    game/<name>/<page>.html, <page>.png       one mail: its text, picture and orders
    game/<name>/feed.atom                     the game's feed

HTML5 and CSS from the Jinja2 templates in ``templates/archive/``, autoescaped; no script.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterable
from functools import cache
from typing import Any

import jinja2

from judge.archive.store import game_folder, present, slug_base
from judge.config import Config
from judge.resources import template_loader
from judge.storage import Store, parse_iso
from judge.variants import get_variant

FEED_ENTRIES = 50  # entries of the judge's feed (a game's feed has all of its mail)
PUBLIC = "state IN ('ready', 'written')"
# What neither XML 1.0 nor HTML5 takes (C0 and C1 controls but tab and newlines, lone
# surrogates, U+FFFE/U+FFFF): a player's own text (a proposal's title) may hold them, and one
# such character made a whole feed unreadable to every feed reader.
NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
COLUMNS = ("id, game_id, slug, phase, kind, at, subject, names, counts, orders, text, "
           "filename, png IS NOT NULL AS has_png, substr(png, 17, 8) AS ihdr, undone_at, "
           "undone_to, undone_by")


def _text(value: Any) -> Any:
    """Every value a page or feed shows, without the characters XML and HTML refuse."""
    return type(value)(NOT_TEXT.sub("", value)) if isinstance(value, str) else value  # Markup stays


@cache
def environment() -> jinja2.Environment:
    """The archive's own environment over the judge's templates: HTML is autoescaped."""
    env = jinja2.Environment(loader=template_loader(), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True,
                             finalize=_text)
    env.filters["shown"] = lambda at: parse_iso(at).strftime("%Y-%m-%d %H:%M UTC")
    env.filters["atom_time"] = lambda at: parse_iso(at).strftime("%Y-%m-%dT%H:%M:%SZ")
    return env


def _render(template: str, **context: Any) -> bytes:
    return environment().get_template(f"archive/{template}").render(**context).encode()


def _size(ihdr: bytes | None) -> tuple[int, int] | None:
    """Width and height of a PNG from its header's 8 bytes (IHDR)."""
    if not ihdr or len(ihdr) != 8:
        return None
    width, height = struct.unpack(">II", bytes(ihdr))
    return int(width), int(height)


def _entry(row: dict, game: dict) -> dict:
    size = _size(row["ihdr"]) if row["has_png"] else None
    return {**row, "names": json.loads(row["names"]),
            "counts": json.loads(row["counts"]) if row["counts"] else None,
            "orders": json.loads(row["orders"]) if row["orders"] else None,
            "page": f"{row['slug']}.html", "label": _label(row), "picture": f"{row['slug']}.png" if size else None,
            "width": size[0] if size else 0, "height": size[1] if size else 0,
            "alt": _alt(row, game), "folder": game_folder(game["name"]),
            "id_uri": _tag(game, row["slug"])}


def _undone(rows: list[dict]) -> None:
    """Each mail a ROLLBACK made void: ``replaced`` the page of the same mail sent again
    after it (the phase played again: ``S1901M-2``) or None, ``told`` the page of the
    rollback's notice or None."""
    by_id = {r["id"]: r for r in rows}
    for k, r in enumerate(rows):
        r["replaced"] = r["told"] = None
        if not r["undone_at"]:
            continue
        same = slug_base(r["kind"], r["phase"], r["subject"])
        r["replaced"] = next((x for x in rows[k + 1:] if x["kind"] == r["kind"] and
                              slug_base(x["kind"], x["phase"], x["subject"]) == same), None)
        r["told"] = by_id.get(r["undone_by"])


def _label(row: dict) -> str:
    """The mail's short name in links: its phase, "start", "move report turn 1"."""
    return {"report": row["slug"], "start": "start"}.get(row["kind"], row["slug"].replace(
        "-", " "))


def _alt(row: dict, game: dict) -> str:
    """The picture's text alternative (the report's text follows it on the page)."""
    if row["kind"] == "report":
        return (f"{game['picture_name']} of game {game['name']} after {row['phase']}: "
                f"{game['picture_shows']}, the phase's orders drawn as arrows, a failed order "
                "crossed in red. The report below says the same in text.")
    return f"{game['picture_name']} of game {game['name']} at {row['phase']}."


def _tag(game: dict, slug: str) -> str:
    """A stable Atom id (RFC 4151 tag URI): the judge's domain, the game's creation date."""
    return f"tag:{game['domain']},{game['created'][:10]}:{game['name'].lower()}/{slug}"


def _root(cfg: Config) -> str:
    """The archive's address with its slash (``https://host/archive/``), or '' without one
    (``judge archive --out`` reads it with no folder set: the same bytes as the judge's)."""
    base = cfg.archive.base_url.strip().rstrip("/")
    return f"{base}/" if base else ""


def _judge_feed_id(s: Store, cfg: Config) -> str:
    """The judge feed's Atom id (a tag URI): the judge's domain and its first game's
    creation date, which no rebuild or new year changes (the date's year once was fixed in
    the code, the id bound to change)."""
    row = s.one("SELECT min(created) AS at FROM games")
    since = str(row["at"])[:10] if row and row["at"] else "1970-01-01"
    return f"tag:{cfg.domain},{since}:archive"


def _game(s: Store, cfg: Config, row: dict) -> dict:
    try:
        variant = get_variant(row["variant"])
        title, picture = variant.title, (variant.picture_name, variant.picture_shows)
    except Exception:  # a variant this judge no longer runs: its name, the engine's words
        title, picture = row["variant"], ("Map", "every unit and supply centre")
    return {"id": row["id"], "name": row["name"], "variant": title, "status": row["status"],
            "picture_name": picture[0], "picture_shows": picture[1],
            "phase": row["phase"] or "", "created": row["created"], "domain": cfg.domain,
            "folder": game_folder(row["name"])}


def archived_games(s: Store, cfg: Config) -> list[dict]:
    """Every game with public mail archived, by name."""
    if not present(s):
        return []
    return [_game(s, cfg, r) for r in s.all(
        "SELECT id, name, variant, status, phase, created FROM games WHERE id IN (SELECT "
        f"game_id FROM archive_mail WHERE {PUBLIC}) ORDER BY name COLLATE NOCASE")]


def game_pages(s: Store, cfg: Config, game: dict) -> dict[str, bytes]:
    """A game's pages and feed (without the pictures: :func:`game_pictures`)."""
    rows = [_entry(r, game) for r in s.all(
        f"SELECT {COLUMNS} FROM archive_mail WHERE game_id = ? AND {PUBLIC} ORDER BY id",
        (game["id"],))]
    if not rows:
        return {}
    _undone(rows)
    folder = game["folder"]
    names = rows[-1]["names"]
    counted = [r for r in rows if r["counts"] and not r["undone_at"]]  # void ones left out
    columns = sorted({n for r in counted for n in r["counts"]})
    latest = next((r for r in reversed(rows) if r["picture"] and not r["undone_at"]), None)
    files = {f"{folder}index.html": _render(
        "game.html.j2", root="../../", game=game, entries=rows, names=names,
        counted=counted, columns=columns, latest=latest)}
    for k, r in enumerate(rows):
        files[f"{folder}{r['page']}"] = _render(
            "page.html.j2", root="../../", game=game, entry=r,
            previous=rows[k - 1] if k else None, following=rows[k + 1] if k + 1 < len(rows)
            else None)
    # a feed's links absolute when the archive has an address: a feed reader keeps the
    # entries away from the feed (relative links otherwise, the folder served anywhere)
    here = f"{_root(cfg)}{folder}" if _root(cfg) else ""
    files[f"{folder}feed.atom"] = _render(
        "feed.atom.j2", title=f"Diplomacy game {game['name']}", entries=list(reversed(rows)),
        self_href=f"{here}feed.atom", home=f"{here}index.html", entry_root=here,
        site_feed=False, notes=_feed_notes(rows, here),
        feed_id=f"tag:{game['domain']},{game['created'][:10]}:{game['name'].lower()}",
        updated=rows[-1]["at"], texts={r["id"]: r["text"] for r in rows})
    return files


def _feed_notes(rows: list[dict], here: str) -> dict[int, str]:
    """What a feed entry of a void mail says first: rolled back, and where its phase was
    played again (``here``: the game folder's address, or '' for links within the feed)."""
    notes = {}
    for r in rows:
        if r["undone_at"]:
            again = (f"played again: {here}{r['replaced']['page']}" if r["replaced"] else
                     "not played again yet")
            notes[r["id"]] = (f"[Rolled back to {r['undone_to']}: these results are void; "
                              f"{again}.]\n\n")
    return notes


def game_pictures(s: Store, game: dict, ids: Iterable[int] | None = None) -> dict[str, bytes]:
    """The pictures of a game's pages (of the rows ``ids`` only, when given)."""
    sql = (f"SELECT id, slug, png FROM archive_mail WHERE game_id = ? AND {PUBLIC} AND png "
           "IS NOT NULL")
    wanted = None if ids is None else set(ids)
    return {f"{game['folder']}{r['slug']}.png": bytes(r["png"])
            for r in s.all(sql, (game["id"],)) if wanted is None or r["id"] in wanted}


def index_pages(s: Store, cfg: Config, games: list[dict]) -> dict[str, bytes]:
    """The index of games, the judge's feed and the style sheet."""
    last: dict[int, dict] = {}
    if games:
        for r in s.all(f"SELECT game_id, names, at FROM archive_mail WHERE {PUBLIC} AND id IN "
                       f"(SELECT max(id) FROM archive_mail WHERE {PUBLIC} GROUP BY game_id)"):
            last[r["game_id"]] = {"names": json.loads(r["names"]), "at": r["at"]}
    by_id = {g["id"]: g for g in games}
    recent = []
    notes: dict[int, str] = {}
    if games:
        for r in s.all(f"SELECT {COLUMNS} FROM archive_mail WHERE {PUBLIC} ORDER BY at DESC, "
                       "id DESC LIMIT ?", (FEED_ENTRIES,)):
            g = by_id.get(r["game_id"])
            if g is not None:
                recent.append(_entry(r, g))
        for gid in {r["game_id"] for r in recent if r["undone_at"]}:  # where each was replaced
            rows = [_entry(r, by_id[gid]) for r in s.all(
                f"SELECT {COLUMNS} FROM archive_mail WHERE game_id = ? AND {PUBLIC} ORDER BY "
                "id", (gid,))]
            _undone(rows)
            notes.update(_feed_notes(rows, f"{_root(cfg)}{by_id[gid]['folder']}"))
    updated = recent[0]["at"] if recent else "1970-01-01T00:00:00+00:00"
    return {
        "index.html": _render("index.html.j2", root="", games=games, last=last,
                              judge=cfg.name),
        "style.css": environment().loader.get_source(  # type: ignore[union-attr]
            environment(), "archive/style.css.j2")[0].encode(),  # as written (not a template)
        "feed.atom": _render("feed.atom.j2", title=f"{cfg.name}: the games' public mail",
                             entries=recent, self_href=f"{_root(cfg)}feed.atom",
                             home=f"{_root(cfg)}index.html", entry_root=_root(cfg),
                             site_feed=True, feed_id=_judge_feed_id(s, cfg), notes=notes,
                             updated=updated, texts={r["id"]: r["text"] for r in recent}),
    }


def site(s: Store, cfg: Config) -> dict[str, bytes]:
    """The whole archive: every file by its path in the folder."""
    games = archived_games(s, cfg)
    files = index_pages(s, cfg, games)
    for g in games:
        files.update(game_pages(s, cfg, g))
        files.update(game_pictures(s, g))
    return files
