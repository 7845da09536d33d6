"""Queueing outgoing mail: render a template, build the message, write it to the outbox table.

Replies (kinds ``reply`` and ``limit``) carry the judge's mark as a body line just above the
signature (where a responder that pastes the reply back copies it too), and are cut at
``reply_max_bytes`` (the message as sent: headers, encoded text and attached pictures), with a
line saying so. Game mail to an observer ends with how to stop it.
"""

from __future__ import annotations

import json
import logging
import pickle
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import make_msgid
from functools import partial

from judge.config import REPLY_MIN_BYTES, Config
from judge.mail import replytoken
from judge.mail.compose import Attachment, build_bounded, build_message, marker, render
from judge.mail.guard import cap_text
from judge.storage import Store, iso, now_utc

REPLY_KINDS = ("reply", "limit")
# mail that carries the player's reply address (judge/mail/replytoken.py); not press, whose
# "reply" would be an answer to another power read as orders
TOKEN_KINDS = ("reply", "report", "notice")
log = logging.getLogger("judge.outbox")


@dataclass(slots=True)
class Outbox:
    store: Store
    cfg: Config
    clock: Callable[[], datetime] = field(default=now_utc)  # the judge's (injectable) clock
    # the time zone a game's dates are written in (the games layer says: its SET ZONE)
    zone_of: Callable[[dict], str] = field(default=lambda game: "UTC")
    # reports' pictures drawn after the transaction, by the service's pool (judge serve);
    # False: drawn here, before the report is queued
    defer_pictures: bool = False
    # mail other than replies rendered after the transaction too (judge serve): the game's
    # transaction stores what the message is made of (a job, see render_job) and the pool of
    # worker processes renders the text, draws the picture and builds the message
    defer_render: bool = False
    # while holding(): the calls that queue the messages held back
    _held: list[Callable[[], int]] | None = field(default=None, repr=False)

    @contextmanager
    def holding(self) -> Iterator[list[Callable[[], int]]]:
        """Hold back the messages queued inside: each becomes a call, in the list yielded, that
        queues it (and returns 0 meanwhile). A command's notices go after the reply to its
        mail, and only if it succeeds: the actor makes those calls after the reply, or drops
        them."""
        if self._held is not None:
            raise RuntimeError("the outbox is holding mail already")
        held: list[Callable[[], int]] = []
        self._held = held
        try:
            yield held
        finally:
            self._held = None

    def queue(self, *, kind: str, to: str, subject: str, template: str, context: dict,
              inbox_id: int | None = None, game_id: int | None = None,
              in_reply_to: str = "", references: list[str] | None = None,
              attachments: list[Attachment] | None = None,
              headers: dict[str, str] | None = None, message_id: str = "",
              picture: int | None = None, seats: list[tuple[int, str]] | None = None
              ) -> int:
        """Queue one message; with ``picture`` (an id from :meth:`add_picture`) it waits in
        the outbox until that picture is drawn (or could not be: then it goes without).
        Mail to a seat's player carries that seat's reply address (``seats``: the seats a
        reply's mail signed on to; game mail finds its own)."""
        if self._held is not None:
            self._held.append(partial(
                self.queue, kind=kind, to=to, subject=subject, template=template,
                context=context, inbox_id=inbox_id, game_id=game_id, in_reply_to=in_reply_to,
                references=references, attachments=attachments, headers=headers,
                message_id=message_id, picture=picture, seats=seats))
            return 0
        if kind in TOKEN_KINDS:
            tag = replytoken.tag_for(self.store, self.cfg, to, game_id, seats)
            if tag:
                subject, headers = replytoken.mark(self.cfg, subject, headers, tag)
        extra: dict = {"now": self.clock()}
        game = None
        if game_id is not None:
            game = self.store.game_by_id(game_id)
        if game_id is not None and "tz" not in context:  # a game's dates in its own zone
            extra["tz"] = self.zone_of(game) if game else "UTC"
        footer = (game is not None and kind not in REPLY_KINDS and kind != "press"
                  and self._observes(game_id, to))
        message = {"from_addr": self.cfg.address, "from_name": self.cfg.name, "to": to,
                   "subject": subject, "domain": self.cfg.domain,
                   "in_reply_to": in_reply_to, "references": references,
                   "auto": "auto-replied" if kind in REPLY_KINDS else "auto-generated",
                   "headers": headers, "message_id": message_id}
        if self.defer_render and kind not in REPLY_KINDS and not attachments:
            message_id = message_id or make_msgid(domain=self.cfg.domain)
            job = _job(template, {"judge_address": self.cfg.address, **extra, **context},
                       game["name"] if footer and game else None,
                       {**message, "message_id": message_id})
            if job is not None:
                oid = self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                                subject=subject, message_id=message_id,
                                                raw=b"", inbox_id=inbox_id, game_id=game_id,
                                                state="waiting")
                self.store.execute("INSERT INTO outbox_jobs (outbox_id, game_id, picture_id, "
                                   "job) VALUES (?, ?, ?, ?)",
                                   (oid, game_id, picture, job))
                return oid
        body = render(template, judge_address=self.cfg.address, **{**extra, **context})
        if kind in REPLY_KINDS:
            raw, message_id = self._bounded_reply(body, attachments or [], message)
        else:
            if footer and game is not None:
                body += render("_observer_footer.txt.j2", game=game["name"],
                               judge_address=self.cfg.address)
            message["body"] = body
            raw, message_id = build_message(**message, attachments=attachments)
        oid = self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                        subject=subject, message_id=message_id, raw=raw,
                                        inbox_id=inbox_id, game_id=game_id,
                                        state="pending" if picture is None else "waiting")
        if picture is not None:  # built again, the same Message-ID, once it is drawn
            self.store.execute(
                "INSERT INTO outbox_pictures (outbox_id, picture_id, message) VALUES (?, ?, ?)",
                (oid, picture, json.dumps({**message, "message_id": message_id})))
        return oid

    def add_picture(self, filename: str, svg: str) -> int:
        """A picture to draw after the transaction (:func:`attach_picture` when drawn); its
        id goes to :meth:`queue` as ``picture``."""
        return int(self.store.execute(
            "INSERT INTO pictures (created, filename, svg) VALUES (?, ?, ?)",
            (iso(self.clock()), filename, svg)).lastrowid or 0)

    def _bounded_reply(self, body: str, attachments: list[Attachment], message: dict
                       ) -> tuple[bytes, str]:
        """The mark line above the signature; the message as sent, text and pictures, within
        reply_max_bytes (compose.build_bounded)."""
        limit = max(REPLY_MIN_BYTES, self.cfg.reply_max_bytes)
        text, sig = body, ""
        at = body.rfind("\n-- \n")
        if at >= 0:
            text, sig = body[: at + 1], body[at + 1:]
        mark = render("_mark.txt.j2", mark=marker(self.cfg.address))

        def tail(cut: int, dropped: int) -> str:
            notice = render("_cut.txt.j2", cut=cut, dropped=dropped, limit=limit) \
                if cut or dropped else ""
            return notice + mark + sig

        return build_bounded(limit, text, tail, attachments, cap_text, **message)

    def _observes(self, game_id: int, address: str) -> bool:
        return self.store.one("SELECT 1 AS x FROM observers WHERE game_id = ? AND address = ?",
                              (game_id, address)) is not None


def _job(template: str, context: dict, footer: str | None, message: dict) -> bytes | None:
    """What a message is made of, stored to be rendered later (:func:`render_job`); None
    when its context cannot be stored (it is rendered at once then). Pickled: the contexts
    hold dates and the games layer's records, and only the judge itself reads them back."""
    job = {"template": template, "context": context, "footer": footer,
           "judge_address": context["judge_address"], "message": message}
    try:
        return pickle.dumps(job)
    except Exception:  # something in the context that does not pickle: render it now
        log.warning("template %s: context cannot be stored, rendered at once", template)
        return None


def render_job(blob: bytes, picture: tuple[str, bytes] | None) -> bytes:
    """The message of a stored job (:meth:`Outbox.queue` with ``defer_render``), with its
    picture (filename, PNG) when it has one: a pure function of its arguments (and the
    templates), so a pool of worker processes can run it."""
    job = pickle.loads(blob)
    body = render(job["template"], **job["context"])
    if job["footer"]:
        body += render("_observer_footer.txt.j2", game=job["footer"],
                       judge_address=job["judge_address"])
    attachments = [Attachment(picture[0], "image/png", picture[1])] if picture else None
    raw, _ = build_message(**job["message"], body=body, attachments=attachments)
    return raw


def jobs_to_render(store: Store, groups: int, skip: Collection[int] = ()
                   ) -> dict[int, list[dict]]:
    """Stored jobs, oldest first, in groups (a game's jobs together, so they are released
    together and in order; a job without a game is a group of its own, keyed by minus its
    outbox id), at most ``groups`` groups, none of those in ``skip`` (in hand already).
    Each job: outbox_id, picture_id, job, and the picture's filename and svg (or None)."""
    keys = [r["g"] for r in store.all(
        "SELECT coalesce(game_id, -outbox_id) AS g FROM outbox_jobs GROUP BY g "
        "ORDER BY min(outbox_id) LIMIT ?", (groups + len(skip),)) if r["g"] not in skip]
    keys = keys[:groups]
    if not keys:
        return {}
    marks = ", ".join("?" * len(keys))
    rows = store.all(
        "SELECT j.outbox_id, coalesce(j.game_id, -j.outbox_id) AS g, j.picture_id, j.job, "
        "p.filename, p.svg FROM outbox_jobs j LEFT JOIN pictures p ON p.id = j.picture_id "
        f"WHERE coalesce(j.game_id, -j.outbox_id) IN ({marks}) ORDER BY j.outbox_id", keys)
    out: dict[int, list[dict]] = {k: [] for k in keys}
    for r in rows:
        out[r["g"]].append(r)
    return out


def finish_jobs(store: Store, rendered: list[tuple[int, bytes | None]]) -> int:
    """Release rendered messages to the sender, in one transaction: (outbox id, the message;
    None: it could not be rendered, the row is given up as failed). A picture no job waits
    for any more is dropped. Returns how many were released."""
    released = 0
    with store.transaction():
        pictures = set()
        for oid, raw in rendered:
            row = store.one("SELECT picture_id FROM outbox_jobs WHERE outbox_id = ?", (oid,))
            if row is None:  # done already (another painter, or before a restart)
                continue
            if row["picture_id"] is not None:
                pictures.add(row["picture_id"])
            if raw is None:
                store.execute("UPDATE outbox SET state = 'failed', failure = 'render', "
                              "last_error = 'could not be rendered' WHERE id = ? AND "
                              "state = 'waiting'", (oid,))
            else:
                released += store.execute("UPDATE outbox SET raw = ?, state = 'pending' "
                                          "WHERE id = ? AND state = 'waiting'",
                                          (raw, oid)).rowcount
            store.execute("DELETE FROM outbox_jobs WHERE outbox_id = ?", (oid,))
        for pid in pictures:
            store.execute("DELETE FROM pictures WHERE id = ? AND NOT EXISTS (SELECT 1 FROM "
                          "outbox_jobs WHERE picture_id = ?) AND NOT EXISTS (SELECT 1 FROM "
                          "outbox_pictures WHERE picture_id = ?)", (pid, pid, pid))
    return released


def pictures_to_draw(store: Store, limit: int = 100) -> list[dict]:
    """Pictures waiting to be drawn for reports queued without a job (id, filename, svg),
    oldest first (those of jobs are drawn with their jobs: jobs_to_render)."""
    return store.all("SELECT id, filename, svg FROM pictures WHERE id NOT IN (SELECT "
                     "picture_id FROM outbox_jobs WHERE picture_id IS NOT NULL) "
                     "ORDER BY id LIMIT ?", (limit,))


def attach_picture(store: Store, picture_id: int, png: bytes | None) -> int:
    """The reports waiting for picture ``picture_id`` built again with it (``png`` None: it
    could not be drawn, they go as they are, without it) and released to the sender, in one
    transaction; returns how many."""
    with store.transaction():
        row = store.one("SELECT filename FROM pictures WHERE id = ?", (picture_id,))
        waiting = store.all("SELECT outbox_id, message FROM outbox_pictures WHERE picture_id = ?",
                            (picture_id,))
        for w in waiting:
            if png is not None and row is not None:
                raw, _ = build_message(**json.loads(w["message"]), attachments=[
                    Attachment(row["filename"], "image/png", png)])
                store.execute("UPDATE outbox SET raw = ?, state = 'pending' WHERE id = ? "
                              "AND state = 'waiting'", (raw, w["outbox_id"]))
            else:
                store.execute("UPDATE outbox SET state = 'pending' WHERE id = ? AND "
                              "state = 'waiting'", (w["outbox_id"],))
        store.execute("DELETE FROM outbox_pictures WHERE picture_id = ?", (picture_id,))
        store.execute("DELETE FROM pictures WHERE id = ?", (picture_id,))
    return len(waiting)
