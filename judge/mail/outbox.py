"""Queueing outgoing mail: render a template, build the message, write it to the outbox table.

Replies (kinds ``reply`` and ``limit``) carry the judge's mark as a body line just above the
signature (where a responder that pastes the reply back copies it too), and are cut at
``reply_max_bytes`` (the message as sent: headers, encoded text and attached pictures), with a
line saying so. Game mail to an observer ends with how to stop it.
"""

from __future__ import annotations

import base64
import json
import logging
import pickle
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.utils import format_datetime
from functools import partial

from judge.config import REPLY_MIN_BYTES, Config
from judge.mail import replytoken
from judge.mail.compose import (
    Attachment,
    build_bounded,
    build_message,
    marker,
    new_message_id,
    render,
)
from judge.mail.guard import cap_text
from judge.mail.reading import body_text, canonical_address, parse_safely, same_mailbox
from judge.storage import Store, iso, now_utc, parse_iso

REPLY_KINDS = ("reply", "limit")
DIGEST_KIND = "digest"  # the mail held past the ceiling, folded into one (release_held)
HOUR = timedelta(hours=1)
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

    def held_mark(self) -> int:
        """How many messages are held back now (:meth:`drop_held` drops those after)."""
        return len(self._held) if self._held is not None else 0

    def drop_held(self, mark: int) -> None:
        """Drop the messages held back since ``held_mark`` was ``mark``: what they tell was
        undone (a savepoint rolled back inside a command that holds its mail)."""
        if self._held is not None:
            del self._held[mark:]

    def queue(self, *, kind: str, to: str, subject: str, template: str, context: dict,
              inbox_id: int | None = None, game_id: int | None = None,
              in_reply_to: str = "", references: list[str] | None = None,
              attachments: list[Attachment] | None = None,
              headers: dict[str, str] | None = None, message_id: str = "",
              picture: int | None = None, seats: list[tuple[int, str]] | None = None,
              drawings: list[tuple[str, str]] | None = None) -> int:
        """Queue one message; with ``picture`` (an id from :meth:`add_picture`) it waits in
        the outbox until that picture is drawn (or could not be: then it goes without).
        Mail to a seat's player carries that seat's reply address (``seats``: the seats a
        reply's mail signed on to; game mail finds its own). ``drawings`` (a reply's: file
        name and SVG of each PNG to attach, after ``attachments``) are drawn by the pool after
        the transaction, the reply waiting for them (:func:`attach_picture`)."""
        to = canonical_address(to)  # one mailbox, one ceiling, however it was spelt
        if self._held is not None:
            self._held.append(partial(
                self.queue, kind=kind, to=to, subject=subject, template=template,
                context=context, inbox_id=inbox_id, game_id=game_id, in_reply_to=in_reply_to,
                references=references, attachments=attachments, headers=headers,
                message_id=message_id, picture=picture, seats=seats, drawings=drawings))
            return 0
        over = kind != DIGEST_KIND and self._over_ceiling(to)
        how = "held" if over else DIGEST_KIND if kind == DIGEST_KIND else "counted"
        if over:  # kept whole, as text, for the digest: no picture is drawn for it
            picture, attachments, drawings = None, None, None
        now = self.clock()
        extra: dict = {"now": now}
        if kind in TOKEN_KINDS:
            tag = replytoken.tag_for(self.store, self.cfg, to, game_id, seats)
            if tag:
                subject, headers = replytoken.mark(self.cfg, subject, headers, tag)
                extra["reply_signs_on"] = True  # a template may say that replying works
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
                   "headers": headers, "message_id": message_id,
                   "date": format_datetime(now)}  # the judge's time, however late it is built
        if self.defer_render and kind not in REPLY_KINDS and not attachments:
            message_id = message_id or new_message_id(self.cfg.domain)
            job = _job(template, {"judge_address": self.cfg.address, **extra, **context},
                       game["name"] if footer and game else None,
                       {**message, "message_id": message_id},
                       self._digest_bound(to) if kind == DIGEST_KIND else None)
            if job is not None:
                oid = self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                                subject=subject, message_id=message_id,
                                                raw=b"", inbox_id=inbox_id, game_id=game_id,
                                                state="held" if over else "waiting")
                self.store.execute("INSERT INTO outbox_jobs (outbox_id, game_id, picture_id, "
                                   "job) VALUES (?, ?, ?, ?)",
                                   (oid, game_id, picture, job))
                self._count(oid, to, how)
                return oid
        body = render(template, judge_address=self.cfg.address, **{**extra, **context})
        if drawings and kind in REPLY_KINDS:
            return self._reply_waiting(body, message, attachments or [], drawings,
                                       inbox_id=inbox_id, game_id=game_id, how=how)
        if kind in REPLY_KINDS:
            raw, message_id = self._bounded_reply(body, attachments or [], message)
        elif kind == DIGEST_KIND:  # within reply_max_bytes as sent, as a reply is (41,228
            # bytes for 20,000 of Cyrillic press, measured as UTF-8 text, before)
            raw, message_id = bounded_reply(body, [], message, **self._digest_bound(to))
        else:
            if footer and game is not None:
                body += render("_observer_footer.txt.j2", game=game["name"],
                               judge_address=self.cfg.address)
            message["body"] = body
            raw, message_id = build_message(**message, attachments=attachments)
        oid = self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                        subject=subject, message_id=message_id, raw=raw,
                                        inbox_id=inbox_id, game_id=game_id,
                                        state="held" if over else
                                        "pending" if picture is None else "waiting")
        self._count(oid, to, how)
        if picture is not None:  # built again, the same Message-ID, once it is drawn
            self.store.execute(
                "INSERT INTO outbox_pictures (outbox_id, picture_id, message) VALUES (?, ?, ?)",
                (oid, picture, json.dumps({**message, "message_id": message_id})))
        return oid

    # ------------------------------------------------------------ the ceiling
    def _over_ceiling(self, address: str) -> bool:
        """This message to ``address`` is held for its digest: the address has had
        ``mail_per_hour`` mails in the last hour of the judge's clock, or mail to it is held
        already (it stays in order, after what is held)."""
        now = self.clock()
        if self.store.one("SELECT 1 AS x FROM mail_ceiling WHERE how = 'held' AND rcpt = ? "
                          "LIMIT 1", (address,)) is not None:
            return True
        mailbox, spellings = same_mailbox("rcpt", address)  # its plus tags count with it
        row = self.store.one(f"SELECT count(*) AS n FROM mail_ceiling WHERE {mailbox} AND "
                             "at >= ? AND how = 'counted'", (*spellings, iso(now - HOUR)))
        return int(row["n"] if row else 0) >= self.cfg.mail_per_hour

    def _count(self, outbox_id: int, address: str, how: str) -> None:
        self.store.execute("INSERT INTO mail_ceiling (outbox_id, rcpt, at, how) VALUES "
                           "(?, ?, ?, ?)", (outbox_id, address, iso(self.clock()), how))

    def release_held(self) -> int:
        """Fold the mail held past the ceiling into one digest for each address whose
        digest is due, ``digest_minutes`` after the first mail held (:func:`digests_due`).
        Returns how many digests were queued. The folded messages stay in the outbox (state
        ``folded``), and the audit log says so."""
        now = self.clock()
        wait = timedelta(minutes=self.cfg.digest_minutes)
        old = iso(now - 2 * HOUR)  # what no ceiling or digest looks at any more
        if self.store.one("SELECT 1 AS x FROM mail_ceiling WHERE at < ? AND how != 'held' "
                          "LIMIT 1", (old,)) is not None:
            with self.store.transaction():
                self.store.execute("DELETE FROM mail_ceiling WHERE at < ? AND how != 'held'",
                                   (old,))
        queued = 0
        for address, when in digests_due(self.store, wait).items():
            if when > now:
                continue
            with self.store.transaction():
                queued += self._fold(address, now)
        return queued

    def _fold(self, address: str, now: datetime) -> int:
        held = self.store.all(
            "SELECT o.id, o.subject, o.raw, c.at FROM mail_ceiling c JOIN outbox o ON "
            "o.id = c.outbox_id WHERE c.rcpt = ? AND c.how = 'held' ORDER BY o.id", (address,))
        if not held:
            return 0
        room = max(2000, self.cfg.reply_max_bytes) - 4000  # the digest's own text
        shown: list[dict] = []
        omitted: list[dict] = []
        for h in held:
            raw = bytes(h["raw"])
            if not raw:  # its job is not rendered yet (the pool): rendered here
                job = self.store.one("SELECT job FROM outbox_jobs WHERE outbox_id = ?",
                                     (h["id"],))
                try:
                    raw = render_job(job["job"], None) if job else b""
                except Exception:  # noqa: BLE001 - listed by its subject alone then
                    log.exception("outbox %s: held mail could not be rendered", h["id"])
                    raw = b""
                self.store.execute("DELETE FROM outbox_jobs WHERE outbox_id = ?", (h["id"],))
            msg, _ = parse_safely(raw)
            text = body_text(msg).rstrip()
            size = _wire_size(text) + len(h["subject"]) + 100
            entry = {"subject": h["subject"], "at": parse_iso(h["at"]), "text": text}
            if size <= room and not omitted:
                shown.append(entry)
                room -= size
            else:
                omitted.append(entry)
        ids = [h["id"] for h in held]
        oid = self.queue(kind=DIGEST_KIND, to=address,
                         subject=f"[DIGEST] {len(held)} mail(s) held back: too much mail "
                         "in one hour", template="digest.txt.j2",
                         context={"shown": shown, "omitted": omitted, "count": len(held),
                                  "limit": self.cfg.mail_per_hour,
                                  "wait": self.cfg.digest_minutes})
        marks = ", ".join("?" * len(ids))
        # a confirmation request folded in is answered by replying to the digest: it is
        # what reached the address, under its own secret Message-ID (the folded mail's
        # never went out). Only requests to this mailbox: the digest is mailed to it alone.
        self.store.execute(
            "UPDATE observer_requests SET message_id = (SELECT message_id FROM outbox WHERE "
            f"id = ?) WHERE message_id IN (SELECT message_id FROM outbox WHERE id IN ({marks}))",
            (oid, *ids))
        self.store.execute(f"UPDATE outbox SET state = 'folded', last_error = ? WHERE id IN "
                           f"({marks}) AND state = 'held'", (f"folded into digest {oid}", *ids))
        self.store.execute(f"UPDATE mail_ceiling SET how = 'folded' WHERE outbox_id IN "
                           f"({marks})", ids)
        self.store.audit(command="(mail ceiling)", address=address,
                         outcome=f"{len(held)} mail(s) held past mail_per_hour folded into "
                         f"one digest (outbox {oid})")
        return 1

    def add_picture(self, filename: str, svg: str) -> int:
        """A picture to draw after the transaction (:func:`attach_picture` when drawn); its
        id goes to :meth:`queue` as ``picture``."""
        return int(self.store.execute(
            "INSERT INTO pictures (created, filename, svg) VALUES (?, ?, ?)",
            (iso(self.clock()), filename, svg)).lastrowid or 0)

    def keep_picture(self, picture_id: int) -> None:
        """Keep picture ``picture_id`` once drawn, whatever becomes of the mail that waits
        for it (:func:`drawn_picture` reads it, :func:`drop_picture` lets it go)."""
        self.store.execute("UPDATE pictures SET kept = 1 WHERE id = ?", (picture_id,))

    def _bounded_reply(self, body: str, attachments: list[Attachment], message: dict
                       ) -> tuple[bytes, str]:
        """The reply as sent, within its address's limit (:func:`bounded_reply`)."""
        limit, why = self._reply_limit(message["to"])
        return bounded_reply(body, attachments, message, limit, marker(self.cfg.address),
                             cut_context=why)

    def _digest_bound(self, to: str) -> dict:
        """bounded_reply's arguments for a digest (at once, or in the pool)."""
        limit, why = self._reply_limit(to)
        return {"limit": limit, "mark": marker(self.cfg.address),
                "cut_template": "_digest_cut.txt.j2", "cut_context": why}

    def reply_limit(self, to: str) -> tuple[int, int, str | None]:
        """The most one reply to ``to`` may be as sent, what it is once the address has
        confirmed it reads the judge's mail if it has not (else 0), and the game whose
        CREATE from it waits for that (Store.created_unconfirmed): what a MAP line may
        draw for (judge/games/mapcmd.py MailMaps), no picture the cut would drop."""
        limit, why = self._reply_limit(to)
        if not why.get("unconfirmed"):
            return limit, 0, None
        return limit, int(why["full"]), why.get("created")

    def _reply_limit(self, to: str) -> tuple[int, dict]:
        """The most one reply (or digest) to ``to`` may be as sent, and what the line that
        says it was cut adds: ``reply_max_bytes``, or for an address that has never
        confirmed it reads the judge's mail ``[limits] unconfirmed_reply_bytes``. Forged
        mail in a victim's name asking many different questions (``HISTORY g S1901M
        F1905M``, ``HISTORY g S1901M F1904M``...) got replies of up to 200 KB, 30 an hour;
        the address that reads and answers the judge's mail gets today's limit."""
        full = max(REPLY_MIN_BYTES, self.cfg.reply_max_bytes)
        if self.store.confirmed(to):
            return full, {}
        short = max(REPLY_MIN_BYTES, min(full, self.cfg.limits.unconfirmed_reply_bytes))
        return short, {"unconfirmed": short < full, "full": full,
                       "created": self.store.created_unconfirmed(to)}

    def _reply_waiting(self, body: str, message: dict, attachments: list[Attachment],
                       drawings: list[tuple[str, str]], *, inbox_id: int | None,
                       game_id: int | None, how: str) -> int:
        """A reply that waits in the outbox for its pictures, drawn by the pool; built
        within reply_max_bytes when they are (:func:`_release_reply`)."""
        message = {**message, "message_id": message["message_id"]
                   or new_message_id(self.cfg.domain)}
        oid = self.store.queue_outbound(kind="reply", mail_from=self.cfg.address,
                                        rcpt=message["to"], subject=message["subject"],
                                        message_id=message["message_id"], raw=b"",
                                        inbox_id=inbox_id, game_id=game_id, state="waiting")
        self._count(oid, message["to"], how)
        limit, why = self._reply_limit(message["to"])
        drawn = [[a.filename, a.content_type, base64.b64encode(a.data).decode("ascii")]
                 for a in attachments]
        self.store.execute("INSERT INTO reply_waits (outbox_id, message) VALUES (?, ?)", (
            oid, json.dumps({"message": message, "body": body, "limit": limit,
                             "mark": marker(self.cfg.address), "drawn": drawn,
                             "cut_context": why})))
        for filename, svg in drawings:
            self.store.execute("INSERT INTO reply_pictures (picture_id, outbox_id, filename) "
                               "VALUES (?, ?, ?)", (self.add_picture(filename, svg), oid,
                                                    filename))
        return oid

    def _observes(self, game_id: int, address: str) -> bool:
        return self.store.one("SELECT 1 AS x FROM observers WHERE game_id = ? AND address = ?",
                              (game_id, address)) is not None


def _wire_size(text: str) -> int:
    """About the bytes ``text`` takes as sent: quoted-printable writes a byte that is not
    ASCII in 3 (a Cyrillic letter in 6), so its UTF-8 size chose too much for a digest."""
    size = len(text.encode("utf-8"))
    return size + 2 * (size - len(text.encode("ascii", "ignore")))


def bounded_reply(body: str, attachments: list[Attachment], message: dict, limit: int,
                  mark: str, cut_template: str = "_cut.txt.j2",
                  cut_context: dict | None = None) -> tuple[bytes, str]:
    """A reply (or a digest) as sent: the mark line above the signature, the text (cut at a
    line end) and the pictures that fit, at most ``limit`` bytes on the wire
    (compose.build_bounded), with a line saying what was cut (``cut_template``, with
    ``cut_context``: why the limit is what it is)."""
    text, sig = body, ""
    at = body.rfind("\n-- \n")
    if at >= 0:
        text, sig = body[: at + 1], body[at + 1:]
    mark_line = render("_mark.txt.j2", mark=mark)

    def tail(cut: int, dropped: int) -> str:
        notice = render(cut_template, cut=cut, dropped=dropped, limit=limit,
                        **{"unconfirmed": False, "full": limit, **(cut_context or {})}) \
            if cut or dropped else ""
        return notice + mark_line + sig

    return build_bounded(limit, text, tail, attachments, cap_text, **message)


def _release_reply(store: Store, outbox_id: int) -> int:
    """The reply built with its pictures and released, once each is drawn (or could not
    be: it goes without that one); 1 when released."""
    if store.one("SELECT 1 AS x FROM reply_pictures WHERE outbox_id = ? AND drawn = 0 LIMIT 1",
                 (outbox_id,)) is not None:
        return 0
    row = store.one("SELECT message FROM reply_waits WHERE outbox_id = ?", (outbox_id,))
    if row is None:
        return 0
    wait = json.loads(row["message"])
    pictures = [Attachment(name, ctype, base64.b64decode(data))
                for name, ctype, data in wait["drawn"]]
    pictures += [Attachment(r["filename"], "image/png", bytes(r["png"])) for r in store.all(
        "SELECT filename, png FROM reply_pictures WHERE outbox_id = ? ORDER BY picture_id",
        (outbox_id,)) if r["png"]]
    raw, _ = bounded_reply(wait["body"], pictures, wait["message"], wait["limit"],
                           wait["mark"], cut_context=wait.get("cut_context"))
    released = store.execute("UPDATE outbox SET raw = ?, state = 'pending' WHERE id = ? AND "
                             "state = 'waiting'", (raw, outbox_id)).rowcount
    store.execute("DELETE FROM reply_pictures WHERE outbox_id = ?", (outbox_id,))
    store.execute("DELETE FROM reply_waits WHERE outbox_id = ?", (outbox_id,))
    return int(released)


def digests_due(store: Store, wait: timedelta) -> dict[str, datetime]:
    """When each address with mail held past the ceiling gets its digest: ``wait`` after
    the first mail held since its last digest (so digests are that far apart at least)."""
    return {r["rcpt"]: parse_iso(r["first"]) + wait for r in store.all(
        "SELECT rcpt, min(at) AS first FROM mail_ceiling WHERE how = 'held' GROUP BY rcpt")}


def next_digest(store: Store, wait: timedelta) -> datetime | None:
    """When the next digest of held mail is due (:meth:`Outbox.release_held`), or None."""
    return min(digests_due(store, wait).values(), default=None)


def _job(template: str, context: dict, footer: str | None, message: dict,
         bound: dict | None = None) -> bytes | None:
    """What a message is made of, stored to be rendered later (:func:`render_job`); None
    when its context cannot be stored (it is rendered at once then). Pickled: the contexts
    hold dates and the games layer's records, and only the judge itself reads them back.
    ``bound``: bounded_reply's arguments, for a message built within a size (a digest)."""
    job = {"template": template, "context": context, "footer": footer,
           "judge_address": context["judge_address"], "message": message, "bound": bound}
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
    if job.get("bound"):  # a digest: within reply_max_bytes as sent
        raw, _ = bounded_reply(body, attachments or [], job["message"], **job["bound"])
        return raw
    raw, _ = build_message(**job["message"], body=body, attachments=attachments)
    return raw


def jobs_to_render(store: Store, groups: int, skip: Collection[int] = ()
                   ) -> dict[int, list[dict]]:
    """Stored jobs, oldest first, in groups (a game's jobs together, so they are released
    together and in order; a job without a game is a group of its own, keyed by minus its
    outbox id), at most ``groups`` groups, none of those in ``skip`` (in hand already).
    Each job: outbox_id, picture_id, job, and the picture's filename, svg and whether it is
    kept once drawn (or None)."""
    keys = [r["g"] for r in store.all(
        "SELECT coalesce(game_id, -outbox_id) AS g FROM outbox_jobs GROUP BY g "
        "ORDER BY min(outbox_id) LIMIT ?", (groups + len(skip),)) if r["g"] not in skip]
    keys = keys[:groups]
    if not keys:
        return {}
    marks = ", ".join("?" * len(keys))
    rows = store.all(
        "SELECT j.outbox_id, coalesce(j.game_id, -j.outbox_id) AS g, j.picture_id, j.job, "
        "p.filename, p.svg, p.kept FROM outbox_jobs j LEFT JOIN pictures p ON p.id = j.picture_id "
        f"WHERE coalesce(j.game_id, -j.outbox_id) IN ({marks}) ORDER BY j.outbox_id", keys)
    out: dict[int, list[dict]] = {k: [] for k in keys}
    for r in rows:
        out[r["g"]].append(r)
    return out


def plain_message(store: Store, outbox_id: int) -> bytes:
    """The message of a job that could not be rendered (:func:`render_job` raised), in a
    plain form that cannot fail the same way: a short text in its place
    (``unrendered.txt.j2``: it could not be built, its master is told, the results are in
    HISTORY), with the headers it would have had (those of the outbox row alone when even
    the job cannot be read)."""
    row = store.one("SELECT o.rcpt, o.subject, o.message_id, o.mail_from, o.created, g.name "
                    "FROM outbox o LEFT JOIN games g ON g.id = o.game_id WHERE o.id = ?",
                    (outbox_id,))
    if row is None:
        raise LookupError(f"outbox {outbox_id} is gone")
    message = {"from_addr": row["mail_from"], "from_name": "", "to": row["rcpt"],
               "subject": row["subject"], "message_id": row["message_id"],
               "domain": row["mail_from"].rpartition("@")[2] or "localhost",
               "auto": "auto-generated", "date": format_datetime(parse_iso(row["created"]))}
    job = store.one("SELECT job FROM outbox_jobs WHERE outbox_id = ?", (outbox_id,))
    try:
        message = {**message, **pickle.loads(job["job"])["message"]} if job else message
    except Exception:  # noqa: BLE001 - the job itself is unreadable: the row's headers
        log.warning("outbox %s: its job cannot be read, sent with the row's headers",
                    outbox_id)
    body = render("unrendered.txt.j2", game=row["name"], subject=row["subject"],
                  judge_address=row["mail_from"])
    raw, _ = build_message(**{**message, "body": body})
    return raw


def finish_jobs(store: Store, rendered: list[tuple[int, bytes | None]],
                drawn: dict[int, bytes] | None = None) -> int:
    """Release rendered messages to the sender, in one transaction: (outbox id, the message;
    None: it could not be rendered, its :func:`plain_message` goes in its place, and only if
    even that fails is the row given up as failed). A picture no job waits for any more is
    dropped, but a kept one (:meth:`Outbox.keep_picture`), with its PNG from ``drawn``
    (picture id -> the PNG the pool drew). Returns how many were released."""
    released = 0
    with store.transaction():
        for pid, png in (drawn or {}).items():
            _keep_drawn(store, pid, png)
        pictures = set()
        for oid, raw in rendered:
            row = store.one("SELECT picture_id FROM outbox_jobs WHERE outbox_id = ?", (oid,))
            if row is None:  # done already (another painter, or before a restart)
                continue
            if row["picture_id"] is not None:
                pictures.add(row["picture_id"])
            note = None
            if raw is None:
                try:
                    raw = plain_message(store, oid)
                    note = "could not be rendered: a short plain text sent in its place"
                except Exception:  # noqa: BLE001 - given up, as before
                    log.exception("outbox %s: not even its plain text could be built", oid)
            if raw is None:
                store.execute("UPDATE outbox SET state = 'failed', failure = 'render', "
                              "last_error = 'could not be rendered' WHERE id = ? AND "
                              "state = 'waiting'", (oid,))
            else:
                # a message held past the ceiling stays held, rendered for its digest
                released += store.execute("UPDATE outbox SET raw = ?, state = CASE state "
                                          "WHEN 'held' THEN 'held' ELSE 'pending' END, "
                                          "last_error = coalesce(?, last_error) "
                                          "WHERE id = ? AND state IN ('waiting', 'held')",
                                          (raw, note, oid)).rowcount
            store.execute("DELETE FROM outbox_jobs WHERE outbox_id = ?", (oid,))
        for pid in pictures:
            store.execute("DELETE FROM pictures WHERE id = ? AND kept = 0 AND NOT EXISTS "
                          "(SELECT 1 FROM outbox_jobs WHERE picture_id = ?) AND NOT EXISTS "
                          "(SELECT 1 FROM outbox_pictures WHERE picture_id = ?)",
                          (pid, pid, pid))
    return released


def _keep_drawn(store: Store, picture_id: int, png: bytes | None) -> None:
    """A kept picture drawn (``png`` None: it could not be): its PNG stays for its reader."""
    store.execute("UPDATE pictures SET drawn = 1, png = ?, svg = '' WHERE id = ? AND kept = 1 "
                  "AND drawn = 0", (png, picture_id))


def drawn_picture(store: Store, picture_id: int) -> tuple[bool, str, bytes | None]:
    """A kept picture: whether it is drawn yet (or is gone), its file name and its PNG (None:
    it could not be drawn, or is gone)."""
    row = store.one("SELECT filename, drawn, png FROM pictures WHERE id = ?", (picture_id,))
    if row is None:
        return True, "", None
    return bool(row["drawn"]), row["filename"], bytes(row["png"]) if row["png"] else None


def drop_picture(store: Store, picture_id: int) -> None:
    """A kept picture its reader has taken: gone once no mail waits for it either."""
    store.execute("DELETE FROM pictures WHERE id = ? AND drawn = 1 AND NOT EXISTS (SELECT 1 "
                  "FROM outbox_jobs WHERE picture_id = ?) AND NOT EXISTS (SELECT 1 FROM "
                  "outbox_pictures WHERE picture_id = ?)", (picture_id, picture_id, picture_id))


def pictures_to_draw(store: Store, limit: int = 100) -> list[dict]:
    """Pictures waiting to be drawn for reports queued without a job and for replies (id,
    filename, svg), the replies' first, then oldest first (those of jobs are drawn with their
    jobs: jobs_to_render)."""
    return store.all("SELECT id, filename, svg FROM pictures WHERE drawn = 0 AND id NOT IN "
                     "(SELECT picture_id FROM outbox_jobs WHERE picture_id IS NOT NULL) "
                     "ORDER BY id IN (SELECT picture_id FROM reply_pictures) DESC, id LIMIT ?",
                     (limit,))


def attach_picture(store: Store, picture_id: int, png: bytes | None) -> int:
    """The reports waiting for picture ``picture_id`` built again with it (``png`` None: it
    could not be drawn, they go as they are, without it) and released to the sender, in one
    transaction; returns how many."""
    with store.transaction():
        reply = store.one("SELECT outbox_id FROM reply_pictures WHERE picture_id = ?",
                          (picture_id,))
        if reply is not None:  # a reply's MAP picture
            store.execute("UPDATE reply_pictures SET drawn = 1, png = ? WHERE picture_id = ?",
                          (png or b"", picture_id))
            store.execute("DELETE FROM pictures WHERE id = ?", (picture_id,))
            return _release_reply(store, reply["outbox_id"])
        row = store.one("SELECT filename, kept FROM pictures WHERE id = ?", (picture_id,))
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
        if row is not None and row["kept"]:  # its reader takes it (drop_picture)
            _keep_drawn(store, picture_id, png)
        else:
            store.execute("DELETE FROM pictures WHERE id = ?", (picture_id,))
    return len(waiting)
