"""Queueing outgoing mail: render a template, build the message, write it to the outbox table."""

from __future__ import annotations

from dataclasses import dataclass

from judge.config import Config
from judge.mail.compose import Attachment, build_message, render
from judge.storage import Store


@dataclass(slots=True)
class Outbox:
    store: Store
    cfg: Config

    def queue(self, *, kind: str, to: str, subject: str, template: str, context: dict,
              inbox_id: int | None = None, game_id: int | None = None,
              in_reply_to: str = "", references: list[str] | None = None,
              attachments: list[Attachment] | None = None) -> int:
        body = render(template, judge_address=self.cfg.address, **context)
        raw, message_id = build_message(
            from_addr=self.cfg.address, from_name=self.cfg.name, to=to, subject=subject,
            body=body, domain=self.cfg.domain, in_reply_to=in_reply_to, references=references,
            auto="auto-replied" if kind == "reply" else "auto-generated",
            attachments=attachments)
        return self.store.queue_outbound(kind=kind, mail_from=self.cfg.address, rcpt=to,
                                         subject=subject, message_id=message_id, raw=raw,
                                         inbox_id=inbox_id, game_id=game_id)
