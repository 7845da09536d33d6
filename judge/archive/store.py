"""What the archive keeps: one row per public mail of a game (a turn report, a start notice, a
variant's publication), made of what an observer of the game is mailed and nothing else.

:func:`keep` runs in the game's transaction (the games layer calls it once per public mail,
with the observer's template and context): it stores the message's job (template and context,
pickled as the outbox's jobs are) and which picture it carries, so the transaction does no
rendering. :func:`publish` runs after it, off the deadline's path (``judge serve``'s archive
thread): it renders the text and takes the picture's PNG from the painter, which keeps the
public picture it draws for the archive (``Outbox.keep_picture``: the same bytes every mail
carrying it has, never drawn again, and kept even when every such mail was held past the
ceiling and went as text in a digest). Nothing here reads an
address, a password, press or anything private: the rows hold the public text, the public
picture, and the powers' names and centre counts as the public report gives them.
"""

from __future__ import annotations

import json
import logging
import pickle
import re
from email import message_from_bytes
from typing import Any

from judge.mail.outbox import Outbox, drawn_picture, drop_picture
from judge.storage import Store, iso
from judge.text import render

log = logging.getLogger("judge.archive")

# Numbered migrations of the archive's table (Store.migrate_extension under the name
# "archive"; append, never edit).
MIGRATIONS = [
    """
    CREATE TABLE archive_mail (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        slug TEXT NOT NULL,              -- the page's name in the game's folder: S1901M, start
        phase TEXT NOT NULL,             -- the phase the mail is about
        kind TEXT NOT NULL,              -- report | start | publication | notice | press
        at TEXT NOT NULL,                -- UTC, the judge's clock when it was queued
        subject TEXT NOT NULL,
        names TEXT NOT NULL,             -- JSON [public name, ...] of the powers playing
        counts TEXT,                     -- JSON {public name: centres} the mail gives, or NULL
        orders TEXT,                     -- JSON {public name: [{order, result, reason}]} or NULL
        job BLOB,                        -- pickled template and context, until rendered
        carrier INTEGER,                 -- outbox id of a mail carrying the public picture
                                         -- (rows kept before picture_id, below)
        text TEXT,                       -- the public text, once rendered
        filename TEXT,
        png BLOB,                        -- the public picture as mailed (NULL: none)
        state TEXT NOT NULL DEFAULT 'waiting', -- waiting | ready | written
        UNIQUE (game_id, slug)
    );
    CREATE INDEX archive_mail_state ON archive_mail(state, game_id, id);
    """,
    """
    CREATE TABLE archive_games (
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        facts TEXT NOT NULL              -- JSON: the game's name, variant, status and phase
    );                                   -- as its pages last showed them
    """,
    # the public picture taken from the painter (pictures.id, kept until drawn: the outbox's
    # keep_picture), not from a mail carrying it: a mail held past the ceiling carries none
    """
    ALTER TABLE archive_mail ADD COLUMN picture_id INTEGER;
    """,
    # a mail a ROLLBACK made void (a report of a phase undone): when, back to which phase,
    # and the archived rollback notice that told it (NULL until it is kept)
    """
    ALTER TABLE archive_mail ADD COLUMN undone_at TEXT;
    ALTER TABLE archive_mail ADD COLUMN undone_to TEXT;
    ALTER TABLE archive_mail ADD COLUMN undone_by INTEGER;
    """,
]

def slug_base(kind: str, phase: str, subject: str) -> str:
    """A page's name before any ``-2``: a report's phase, ``start``, a publication's or a
    notice's subject after the game's name (``move-report-turn-1``, as a variant's own
    reports are named; ``game-over``)."""
    if kind == "report":
        return phase
    if kind == "start":
        return "start"
    # a notice's and press's subject is "GAME - what" (notices.py, press.py), a
    # publication's "GAME: what"
    words = re.sub(r"[^a-z0-9]+", "-", subject.partition(
        " - " if kind in ("notice", "press") else ": ")[2].lower()).strip("-")
    return words[:60].strip("-") or "notice"


def ensure(s: Store) -> None:
    """The archive's table in this database (once per connection)."""
    if not getattr(s, "_archive_ready", False):
        s.migrate_extension("archive", MIGRATIONS)
        s._archive_ready = True  # type: ignore[attr-defined]


def present(s: Store) -> bool:
    """Whether the database has the archive's table (a read-only look: ``judge archive``)."""
    return s.one("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND "
                 "name = 'archive_mail'") is not None


def game_folder(name: str) -> str:
    """A game's folder in the archive (game names are letters, digits, - and _)."""
    return f"game/{name.lower()}/"


def page_path(name: str, slug: str) -> str:
    return f"{game_folder(name)}{slug}.html"


def next_slug(s: Store, game_id: int, kind: str, phase: str, subject: str = "") -> str:
    """The page name the next mail of ``kind`` about ``phase`` gets in its game's folder
    (:func:`slug_base`); ``-2``, ``-3`` after it when the phase was mailed already (reported
    again after a ROLLBACK)."""
    ensure(s)
    base = slug_base(kind, phase, subject)
    taken = {r["slug"] for r in s.all("SELECT slug FROM archive_mail WHERE game_id = ? AND "
                                      "(slug = ? OR slug LIKE ?)", (game_id, base,
                                                                    base + "-%"))}
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = f"{base}-{n}"
    return slug


def keep(outbox: Outbox, s: Store, game: dict, *, kind: str, phase: str, subject: str,
         template: str, context: dict[str, Any], picture: dict[str, Any], names: list[str],
         counts: dict[str, int] | None = None,
         orders: dict[str, list[dict]] | None = None) -> int | None:
    """Keep one public mail of ``game`` (what its observers are sent: ``template`` rendered
    with ``context``; ``picture`` what :meth:`judge.reports.Pictures.for_reader` gave for the
    public view). ``names``: the public names of the powers playing; ``counts`` and
    ``orders`` as the public mail gives them, by public name. None when the archive is off."""
    if not outbox.cfg.archive.on:
        return None
    slug = next_slug(s, game["id"], kind, phase, subject)
    full = {"judge_address": outbox.cfg.address, "now": outbox.clock(),
            "tz": outbox.zone_of(game), **context}
    try:
        blob = pickle.dumps({"template": template, "context": full})
    except Exception:  # a context that does not pickle: its text rendered now, stored as is
        blob = pickle.dumps({"text": render(template, **full)})
    picture_id, filename, png = None, None, None
    if "picture" in picture:  # drawn after the transaction: kept by the painter for us,
        picture_id = int(picture["picture"])  # whether or not a mail carries it
        outbox.keep_picture(picture_id)
    elif picture.get("attachments"):  # drawn already
        filename, png = picture["attachments"][0].filename, picture["attachments"][0].data
    cur = s.execute(
        "INSERT INTO archive_mail (game_id, slug, phase, kind, at, subject, names, counts, "
        "orders, job, picture_id, filename, png) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?)", (game["id"], slug, phase, kind, iso(outbox.clock()), subject, json.dumps(names),
               None if counts is None else json.dumps(counts),
               None if orders is None else json.dumps(orders), blob, picture_id, filename,
               png))
    return int(cur.lastrowid or 0)


def undo(s: Store, game_id: int, to_phase: str, phases: list[str], at: str) -> int:
    """A ROLLBACK to ``to_phase`` made void the results of ``phases`` (it and those after
    it): their reports, and what a variant published after the first of them, are marked
    undone (a report of the phase played again gets a page of its own). How many."""
    ensure(s)
    marks = ", ".join("?" * len(phases))
    first = s.one(f"SELECT min(id) AS id FROM archive_mail WHERE game_id = ? AND kind = "
                  f"'report' AND undone_at IS NULL AND phase IN ({marks})",
                  (game_id, *phases))
    if first is None or first["id"] is None:
        return 0
    return s.execute("UPDATE archive_mail SET undone_at = ?, undone_to = ? WHERE game_id = ? "
                     "AND undone_at IS NULL AND id >= ? AND kind IN ('report', "
                     "'publication')", (at, to_phase, game_id, first["id"])).rowcount


def undone_told(s: Store, game_id: int, notice_id: int) -> None:
    """The rollback notice ``notice_id`` (kept) told of the mail undone since the last one."""
    s.execute("UPDATE archive_mail SET undone_by = ? WHERE game_id = ? AND undone_at IS NOT "
              "NULL AND undone_by IS NULL", (notice_id, game_id))


def release_pictures(s: Store) -> int:
    """The archive is off: the pictures the painter kept for it (``Outbox.keep_picture``) are
    let go, so that they do not stay in the database for good (nothing takes them while the
    archive is off). One drawn goes now, unless a mail still waits for it (then, as one
    drawn later, once the painter is done with it, as any picture no reader keeps). A row
    kept before gets no picture if the archive is switched on again. How many were
    released."""
    with s.transaction():
        kept = s.execute("UPDATE pictures SET kept = 0, png = NULL WHERE kept = 1").rowcount
        s.execute("DELETE FROM pictures WHERE drawn = 1 AND kept = 0 AND NOT EXISTS (SELECT 1 "
                  "FROM outbox_jobs j WHERE j.picture_id = pictures.id) AND NOT EXISTS ("
                  "SELECT 1 FROM outbox_pictures o WHERE o.picture_id = pictures.id)")
    return kept


def picture_of(raw: bytes) -> tuple[str, bytes] | None:
    """The PNG a built message carries (file name, bytes), or None."""
    msg = message_from_bytes(raw)  # compat32: a third of the default policy's time
    for part in msg.walk():
        if part.get_content_type() == "image/png":
            data = part.get_payload(decode=True)
            if isinstance(data, bytes):
                return part.get_filename() or "map.png", data
    return None


def publish(s: Store) -> set[int]:
    """Render the text of each waiting row and take its picture from the painter once it
    is drawn (the same bytes as every mail that carries it; a row kept before that took it
    from a mail that carried it, once built); a game's rows in order (one whose picture is
    still being drawn holds back those after it). Returns the games with rows made ready."""
    if not present(s):
        return set()
    ensure(s)
    rows = s.all("SELECT id, game_id, job, carrier, picture_id, filename FROM archive_mail "
                 "WHERE state = 'waiting' ORDER BY id")
    held: set[int] = set()
    done: list[tuple[int, int, str, str | None, bytes | None]] = []
    for r in rows:
        if r["game_id"] in held:
            continue
        filename, png = r["filename"], None
        if r["picture_id"] is not None:
            drawn, name, png = drawn_picture(s, r["picture_id"])
            if not drawn:
                held.add(r["game_id"])  # the painter has not drawn it yet
                continue
            filename = name if png is not None else None
        elif r["carrier"] is not None:  # kept before pictures were kept for the archive
            mail = s.one("SELECT state, raw FROM outbox WHERE id = ?", (r["carrier"],))
            if mail is not None and not mail["raw"] and mail["state"] in ("waiting", "held"):
                held.add(r["game_id"])  # the painter has not built it yet
                continue
            found = picture_of(bytes(mail["raw"])) if mail and mail["raw"] else None
            if found is not None:
                filename, png = found
        try:
            job = pickle.loads(r["job"])
            text = job["text"] if "text" in job else render(job["template"], **job["context"])
        except Exception:  # a page with a short note rather than none, and the rest go on
            log.exception("archive: the public text of row %s could not be rendered", r["id"])
            text = "(This mail could not be rendered for the archive.)\n"
        done.append((r["id"], r["game_id"], text, filename, png))
    if not done:
        return set()
    pictures = [r["picture_id"] for r in rows if r["picture_id"] is not None
                and r["id"] in {d[0] for d in done}]
    with s.transaction():
        for pid in pictures:
            drop_picture(s, pid)
        for oid, _, text, filename, png in done:
            if png is None:  # kept as given (drawn before the transaction), or none
                s.execute("UPDATE archive_mail SET text = ?, job = NULL, state = 'ready' "
                          "WHERE id = ? AND state = 'waiting'", (text, oid))
            else:
                s.execute("UPDATE archive_mail SET text = ?, filename = ?, png = ?, "
                          "job = NULL, state = 'ready' WHERE id = ? AND state = 'waiting'",
                          (text, filename, png, oid))
    return {g for _, g, _, _, _ in done}
