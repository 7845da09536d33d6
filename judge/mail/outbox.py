"""Queueing outgoing mail: render a template, build the message, write it to the outbox table.

Replies (kinds ``reply`` and ``limit``) carry the judge's mark as a body line just above the
signature (where a responder that pastes the reply back copies it too), and are cut at
``reply_max_bytes`` (text and attached pictures together), with a line saying so. Game mail to
an observer ends with how to stop it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from judge.config import Config
from judge.mail.compose import Attachment, build_message, marker, render
from judge.mail.guard import cap_text
from judge.storage import Store, now_utc

REPLY_KINDS = ("reply", "limit")


@dataclass(slots=True)
class Outbox:
    store: Store
    cfg: Config
    clock: Callable[[], datetime] = field(default=now_utc)  # the judge's (injectable) clock
    # the time zone a game's dates are written in (the games layer says: its SET ZONE)
    zone_of: Callable[[dict], str] = field(default=lambda game: "UTC")

    def queue(self, *, kind: str, to: str, subject: str, template: str, context: dict,
              inbox_id: int | None = None, game_id: int | None = None,
              in_reply_to: str = "", references: list[str] | None = None,
              attachments: list[Attachment] | None = None,
              headers: dict[str, str] | None = None, message_id: str = "") -> int:
        extra: dict = {"now": self.clock()}
        game = None
        if game_id is not None:
            game = self.store.game_by_id(game_id)
        if game_id is not None and "tz" not in context:  # a game's dates in its own zone
            extra["tz"] = self.zone_of(game) if game else "UTC"
        body = render(template, judge_address=self.cfg.address, **{**extra, **context})
        if kind in REPLY_KINDS:
            body, attachments = self._bounded_reply(body, attachments or [])
        elif game is not None and kind != "press" and self._observes(game_id, to):
            body += render("_observer_footer.txt.j2", game=game["name"],
                           judge_address=self.cfg.address)
        raw, message_id = build_message(
            from_addr=self.cfg.address, from_name=self.cfg.name, to=to, subject=subject,
            body=body, domain=self.cfg.domain, in_reply_to=in_reply_to, references=references,
            auto="auto-replied" if kind in REPLY_KINDS else "auto-generated",
            attachments=attachments, headers=headers, message_id=message_id)
        return self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                         subject=subject, message_id=message_id, raw=raw,
                                         inbox_id=inbox_id, game_id=game_id)

    def _bounded_reply(self, body: str, attachments: list[Attachment]
                       ) -> tuple[str, list[Attachment]]:
        """The mark line above the signature; text and pictures within reply_max_bytes."""
        limit = max(2000, self.cfg.reply_max_bytes)
        text, sig = body, ""
        at = body.rfind("\n-- \n")
        if at >= 0:
            text, sig = body[: at + 1], body[at + 1:]
        room = limit - len(sig.encode("utf-8")) - 400  # the mark and the cut notice
        text, cut = cap_text(text, room)
        kept: list[Attachment] = []
        left = room - len(text.encode("utf-8"))
        dropped = 0
        for a in attachments:
            size = len(a.data) * 4 // 3  # base64
            if size <= left:
                kept.append(a)
                left -= size
            else:
                dropped += 1
        if cut or dropped:
            text += render("_cut.txt.j2", cut=cut, dropped=dropped, limit=limit)
        text += render("_mark.txt.j2", mark=marker(self.cfg.address))
        return text + sig, kept

    def _observes(self, game_id: int, address: str) -> bool:
        return self.store.one("SELECT 1 AS x FROM observers WHERE game_id = ? AND address = ?",
                              (game_id, address)) is not None
