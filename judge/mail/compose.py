"""Building the judge's outgoing mail: every body is a Jinja2 template in ``templates/``.

The MIME is built by hand on the compat32 policy (what every existing mail, test and Maildir
file was written with), and every header value the judge copies from a sender is cleaned
first (:func:`clean_header`, :func:`clean_msgid`): compat32 folds a value at its spaces, and
the cleaning leaves no word it cannot fold under RFC 5322's 998 characters. (The standard
library's ``EmailMessage`` with ``policy.SMTP`` would fold too, but would change the bytes of
every mail the judge sends for no further gain.)
"""

from __future__ import annotations

import base64
import hashlib
import quopri
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from email.header import Header
from email.message import Message
from email.policy import Compat32
from email.utils import format_datetime, formataddr
from functools import lru_cache
from typing import Any

from judge.storage import now_utc

# The environment and the deadline and duration texts are judge/text.py's (the variants use
# them too); read from here as well
from judge.text import deadline_text, duration_text, environment, render  # noqa: F401


def new_message_id(domain: str) -> str:
    """A Message-ID for a mail the judge sends, unpredictable: a reply to a confirmation
    request confirms it by its In-Reply-To, so the request's Message-ID is a secret as good
    as its code. ``email.utils.make_msgid`` draws its 64 bits from the ``random`` module's
    Mersenne Twister, whose state about 312 of the judge's Message-IDs give away (the
    replies to anyone's HELPs): the next ones were predicted and a forged reply "from" the
    victim confirmed what it never asked for. Its time part is the machine's, not the
    judge's clock: it keeps the IDs apart across restarts whatever a virtual clock says."""
    return f"<{int(time.time() * 100)}.{secrets.token_hex(16)}@{domain}>"


# ------------------------------------------------------------ header hygiene
SUBJECT_CHARS = 200  # a Subject longer than this is cut (RFC 5322 asks for 78 a line, 998 max)
MSGID_CHARS = 250  # a longer Message-ID cannot be folded under 998 and is dropped
MAX_REFERENCES = 10
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MSGID = re.compile(r"<[\x21-\x3b\x3d\x3f\x41-\x7e]+@[\x21-\x3b\x3d\x3f\x41-\x7e]+>")  # printable ASCII


def clean_header(value: str, limit: int = SUBJECT_CHARS) -> str:
    """A header value safe to send: no control characters (NUL, CR, LF...), one space between
    words, at most ``limit`` characters (cut with "...")."""
    text = " ".join(_CONTROL.sub(" ", value or "").split())
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def clean_msgid(value: str) -> str:
    """``<left@right>`` when ``value`` is one well-formed Message-ID of sane length, else ''."""
    value = (value or "").strip()
    return value if len(value) <= MSGID_CHARS and _MSGID.fullmatch(value) else ""


def clean_references(values: list[str] | None) -> list[str]:
    """The last MAX_REFERENCES well-formed Message-IDs of a References chain."""
    return [m for m in (clean_msgid(v) for v in values or []) if m][-MAX_REFERENCES:]


def marker(address: str) -> str:
    """The judge's mark in every mail it writes (a header and, in replies, a body line): a
    mail that carries it back unquoted is the judge's own text coming back (a loop)."""
    return "JR-" + hashlib.sha256(address.strip().lower().encode()).hexdigest()[:10]


MARKER_HEADER = "X-Judge-Mark"


def _encoded(value: str) -> str:
    """A header value, RFC 2047-encoded when it is not plain ASCII."""
    try:
        value.encode("ascii")
        return value
    except UnicodeEncodeError:
        return Header(value, "utf-8").encode()


class _Compat32Fast(Compat32):
    """compat32 with a short cut for the usual header: plain ASCII on one line that fits in
    max_line_length is written as it is (what compat32's Header folding gives for it, at a
    fraction of the cost: folding was a fifth of the cost of rendering a report)."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        if (isinstance(value, str) and value.isascii() and value.isprintable()
                and value == value.strip() and "=?" not in value
                and len(name) + 2 + len(value) <= (self.max_line_length or 78)):
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


_SMTP32 = _Compat32Fast(linesep="\r\n", max_line_length=78)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file sent with a mail (a report's map picture)."""

    filename: str
    content_type: str  # e.g. image/png
    data: bytes


def _text_part(msg: Message, body: str) -> None:
    if body.isascii() and all(len(line) < 900 for line in body.splitlines()):
        msg["Content-Type"] = 'text/plain; charset="us-ascii"'
        msg["Content-Transfer-Encoding"] = "7bit"
        msg.set_payload(body)
    else:  # quoted-printable keeps the text readable in a Maildir file
        msg["Content-Type"] = 'text/plain; charset="utf-8"'
        msg["Content-Transfer-Encoding"] = "quoted-printable"
        msg.set_payload(quopri.encodestring(body.encode("utf-8")).decode("ascii"))


@lru_cache(maxsize=32)
def _base64_lines(data: bytes) -> bytes:
    """``data`` in base64, 76 characters a line, CRLF between the lines (none at the end).
    Cached: a report's picture goes to each of its readers."""
    return base64.encodebytes(data).rstrip(b"\n").replace(b"\n", b"\r\n")


def _with_attachments(body: str, attachments: list[Attachment]) -> tuple[Message, dict]:
    """multipart/mixed: the text first (what a reader without pictures reads), then each file
    in base64. Each file's part holds a one-line placeholder, replaced by the file's base64
    lines in the bytes (:func:`build_message`): the email package writes a payload line by
    line, which for a 52 KB picture was most of the cost of building the message. Returns
    the message and {placeholder: base64 lines}."""
    files: dict[bytes, bytes] = {}
    msg = Message()
    boundary = f"=_judge_{uuid.uuid4().hex}"
    msg["Content-Type"] = f'multipart/mixed; boundary="{boundary}"'
    text = Message()
    _text_part(text, body)
    parts = [text]
    for a in attachments:
        part = Message()
        part["Content-Type"] = f'{a.content_type}; name="{a.filename}"'
        part["Content-Transfer-Encoding"] = "base64"
        part["Content-Disposition"] = f'attachment; filename="{a.filename}"'
        token = f"judgefile{uuid.uuid4().hex}"
        files[token.encode("ascii")] = _base64_lines(a.data)
        part.set_payload(token + "\n")
        parts.append(part)
    msg.set_payload(parts)
    msg.set_boundary(boundary)
    return msg, files


def build_message(*, from_addr: str, from_name: str, to: str, subject: str, body: str,
                  domain: str, in_reply_to: str = "", references: list[str] | None = None,
                  auto: str = "auto-replied",
                  attachments: list[Attachment] | None = None,
                  headers: dict[str, str] | None = None,
                  message_id: str = "", date: str = "") -> tuple[bytes, str]:
    """An RFC 5322 message (bytes, CRLF) and its Message-ID; with ``attachments`` it is
    multipart/mixed, otherwise a single text part as before. ``date``: its Date header, the
    judge's clock when it was queued (the outbox gives it); empty only for a message whose
    parts were stored before they kept it (a judge upgraded with mail waiting): now then.

    Every header value is cleaned (:func:`clean_header`): no control characters, a Subject of
    at most SUBJECT_CHARS, only well-formed Message-IDs in In-Reply-To and References, so no
    header line is longer than RFC 5322's 998 characters whatever the sender wrote."""
    files: dict[bytes, bytes] = {}
    if attachments:
        msg, files = _with_attachments(body, attachments)
    else:
        msg = Message()
        _text_part(msg, body)
    msg["MIME-Version"] = "1.0"
    msg["From"] = formataddr((clean_header(from_name, 100), from_addr))
    msg["To"] = clean_header(to, 900)
    msg["Subject"] = _encoded(clean_header(subject))
    msg["Date"] = date or format_datetime(now_utc())
    message_id = message_id or new_message_id(domain)
    msg["Message-ID"] = message_id
    in_reply_to = clean_msgid(in_reply_to)
    refs = clean_references(references)
    if in_reply_to and in_reply_to not in refs:
        refs = (refs + [in_reply_to])[-MAX_REFERENCES:]
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    if refs:
        msg["References"] = " ".join(refs)  # folded between the IDs
    msg["Auto-Submitted"] = auto  # RFC 3834: never answer this automatically
    msg["Precedence"] = "bulk" if auto == "auto-generated" else "auto_reply"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[MARKER_HEADER] = marker(from_addr)
    for name, value in (headers or {}).items():  # e.g. List-Id, List-Unsubscribe
        msg[name] = _encoded(clean_header(value, 900))
    raw = msg.as_bytes(policy=_SMTP32)
    for token, lines in files.items():
        raw = raw.replace(token, lines, 1)
    return raw, message_id


def build_bounded(limit: int, text: str, tail: Callable[[int, int], str],
                  attachments: list[Attachment], cut_text: Callable[[str, int], tuple[str, int]],
                  **message: Any) -> tuple[bytes, str]:
    """:func:`build_message` of ``text + tail(bytes cut, files dropped)`` and as many of
    ``attachments`` as fit, at most ``limit`` bytes as sent: the bound holds for the
    serialized message (headers, quoted-printable and base64, CRLF), not for the text
    before it is encoded (quoted-printable writes a Cyrillic letter in 6 bytes, an emoji in
    12). The text comes first, cut at a line end (``cut_text(text, utf-8 bytes)``); the
    files follow in order while they fit. A message whose headers leave no room for any text
    (hostile References) goes without its References."""
    message = {**message, "message_id": message.get("message_id")
               or new_message_id(message["domain"])}
    raw, mid = build_message(**message, body=text + tail(0, 0), attachments=attachments)
    if len(raw) <= limit:
        return raw, mid
    size = len(text.encode("utf-8"))
    room, cut, shown = size, 0, text
    for _ in range(12):  # converges in two or three: each step scales by what was measured
        shown, cut = cut_text(text, room)
        raw, mid = build_message(**message, body=shown + tail(cut, len(attachments)))
        if len(raw) <= limit:
            break
        if room == 0:
            if not message.get("references"):
                break
            message = {**message, "references": []}
            continue
        bare, _ = build_message(**message, body=tail(size, len(attachments)))
        have, want = len(raw) - len(bare), limit - len(bare)
        room = 0 if want <= 0 else min(room - 1, room * want // max(have, 1) - 64)
        room = max(room, 0)
    kept: list[Attachment] = []
    for a in attachments:  # each file while the message with it fits
        trial, trial_id = build_message(**message, body=shown + tail(
            cut, len(attachments) - len(kept) - 1), attachments=[*kept, a])
        if len(trial) <= limit:
            kept.append(a)
            raw, mid = trial, trial_id
    if kept and len(kept) < len(attachments):  # the notice counts the files left out
        raw, mid = build_message(**message, body=shown + tail(cut, len(attachments) - len(kept)),
                                 attachments=kept)
    return raw, mid
