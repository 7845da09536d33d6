"""The reply policy's checks (docs/operating.md, "Security"): how many replies an address may
still get this hour, whether a mail is the judge's own text coming back, and how much of a
sender's text a reply may quote.

* **Ceiling.** At most ``replies_per_hour`` replies to one address in any hour, whatever they
  say; the mail past the ceiling gets one final notice (kind ``limit``), later ones nothing
  until an hour after that notice.
* **Own text.** Every mail the judge writes carries its mark (a header, and a body line in
  replies, see :func:`judge.mail.compose.marker`); :mod:`judge.mail.reading` silences mail
  that carries it. A mail that names one of the judge's Message-IDs in ``In-Reply-To`` or
  ``References`` and repeats that mail's text unquoted is silenced too (a responder that
  drops the mark line).
* **Short replies.** A reply quotes at most ``reply_quote_lines`` of the sender's lines; the
  unusable lines past that are counted, not shown.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from judge.mail.reading import body_text, parse_safely, same_mailbox
from judge.storage import Store, iso

HOUR = timedelta(hours=1)
ECHO_CHARS = 200  # one quoted line is cut to this many characters
_COPIED_MIN = 3  # lines of the judge's mail repeated unquoted, at least
_LONG = 16  # only lines this long count


def _prose(lines: list[str]) -> list[str]:
    """The lines that are the judge's prose: long, with lowercase letters (never an order
    line, which the judge writes in capitals and a player may well send again)."""
    out = []
    for line in lines:
        text = line.strip()
        if len(text) >= _LONG and any(c.islower() for c in text):
            out.append(text)
    return out


def reply_gate(s: Store, address: str, now: datetime, per_hour: int) -> str:
    """``reply`` (under the ceiling), ``final`` (the ceiling is reached: send the one notice)
    or ``silent`` (the notice went out less than an hour ago)."""
    since = iso(now - HOUR)
    mailbox, spellings = same_mailbox("rcpt", address)  # its plus tags too
    row = s.one("SELECT sum(kind = 'reply') AS replies, sum(kind = 'limit') AS notices "
                f"FROM outbox WHERE {mailbox} AND created >= ? "
                "AND kind IN ('reply', 'limit')", (*spellings, since))
    replies = int((row or {}).get("replies") or 0)
    notices = int((row or {}).get("notices") or 0)
    if notices:
        return "silent"
    return "reply" if replies < per_hour else "final"


def copies_judge_mail(s: Store, lines: list[str], in_reply_to: str,
                      references: list[str]) -> bool:
    """The mail answers one of the judge's own mails and repeats its text unquoted."""
    mine = _prose(lines)
    if len(mine) < _COPIED_MIN:
        return False
    ids = [m for m in dict.fromkeys([in_reply_to, *references[-10:]]) if m]
    if not ids:
        return False
    marks = ",".join("?" * len(ids))
    for row in s.all(f"SELECT raw FROM outbox WHERE message_id IN ({marks}) LIMIT 10", ids):
        msg, _ = parse_safely(bytes(row["raw"]))
        theirs = set(_prose(body_text(msg).splitlines()))
        copied = sum(1 for x in mine if x in theirs)
        if copied >= _COPIED_MIN and copied * 2 >= len(mine):
            return True
    return False


def bound_items(items: list[dict], quote_lines: int) -> tuple[list[dict], int]:
    """The reply's items with at most ``quote_lines`` of the sender's lines quoted (each cut
    to ECHO_CHARS) and the error items past that dropped; returns them and how many were
    dropped."""
    out: list[dict] = []
    quoted = dropped = 0
    for item in items:
        echo = item.get("echo") or ""
        if echo:
            if quoted >= quote_lines:
                if item.get("error"):
                    dropped += 1
                    continue
                echo = ""  # a command that worked: its outcome, without the quote
            else:
                quoted += 1
                if len(echo) > ECHO_CHARS:
                    echo = echo[: ECHO_CHARS - 3] + "..."
        out.append({**item, "echo": echo})
    return out, dropped


def cap_text(body: str, max_bytes: int) -> tuple[str, int]:
    """``body`` cut at a line end to at most ``max_bytes`` UTF-8 bytes; and how many bytes
    were cut (0: it fitted)."""
    data = body.encode("utf-8")
    if len(data) <= max_bytes:
        return body, 0
    head = data[:max_bytes].decode("utf-8", "ignore")
    cut = head.rfind("\n")
    head = head[: cut + 1] if cut > 0 else head
    return head, len(data) - len(head.encode("utf-8"))


def answers_refusal(s: Store, in_reply_to: str, references: list[str]) -> bool:
    """The mail answers one of the judge's size refusals."""
    ids = [m for m in dict.fromkeys([in_reply_to, *references[-10:]]) if m]
    if not ids:
        return False
    marks = ",".join("?" * len(ids))
    return s.one(f"SELECT 1 AS x FROM outbox o JOIN inbox i ON i.id = o.inbox_id "
                 f"WHERE o.message_id IN ({marks}) AND i.state = 'refused' LIMIT 1",
                 ids) is not None
