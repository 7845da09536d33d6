"""Queueing outgoing mail: render a template, build the message, write it to the outbox table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from judge.config import Config
from judge.mail.compose import Attachment, build_message, render
from judge.storage import Store, now_utc


@dataclass(slots=True)
class Outbox:
    store: Store
    cfg: Config
    clock: Callable[[], datetime] = field(default=now_utc)  # the judge's (injectable) clock

    def queue(self, *, kind: str, to: str, subject: str, template: str, context: dict,
              inbox_id: int | None = None, game_id: int | None = None,
              in_reply_to: str = "", references: list[str] | None = None,
              attachments: list[Attachment] | None = None,
              headers: dict[str, str] | None = None) -> int:
        extra: dict = {"now": self.clock()}
        if game_id is not None and "tz" not in context:  # a game's dates in its own zone
            from judge.games.settings import zone

            game = self.store.game_by_id(game_id)
            extra["tz"] = zone(game) if game else "UTC"
        body = render(template, judge_address=self.cfg.address, **{**extra, **context})
        raw, message_id = build_message(
            from_addr=self.cfg.address, from_name=self.cfg.name, to=to, subject=subject,
            body=body, domain=self.cfg.domain, in_reply_to=in_reply_to, references=references,
            auto="auto-replied" if kind == "reply" else "auto-generated",
            attachments=attachments, headers=headers)
        return self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                         subject=subject, message_id=message_id, raw=raw,
                                         inbox_id=inbox_id, game_id=game_id)
