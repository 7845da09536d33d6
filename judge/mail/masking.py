"""Masking passwords (and reply tokens, :func:`mask_tokens`) in a stored mail once it has
been acted on.

The inbox keeps every mail whole (to act on it after a crash, and for the host to read); once a
mail has been acted on, the lines that carried a password are rewritten as the judge echoed
them (``SIGNON France g1 ****``) and the rest of the mail is kept as it was:

1. where the line stands as written in the raw bytes (plain 7bit/8bit text), it is replaced
   there, so the mail is otherwise byte for byte the same;
2. where a password is still in a text part after that (quoted-printable or base64, a soft
   line break, HTML), each text part is decoded, its lines masked and then any word of it
   that is one of the passwords (four characters or more), and encoded again the same way;
3. where a password can still be found after that (a charset the judge cannot encode back,
   a mail the parser cannot read), the body is replaced by a note saying so and only the
   headers are kept.
"""

from __future__ import annotations

import base64
import quopri
import re
from collections.abc import Iterable
from email import message_from_bytes
from email.header import Header, decode_header, make_header
from email.message import Message
from email.policy import compat32

REMOVED = (b"[The body of this mail was removed after the judge acted on it: it held a "
           b"password (or a reply address) that could not be masked in place.]\r\n")


_TOKEN = re.compile(r"[\s<>&;\"'=]+")


def _substitute(data: bytes, lines: dict[str, str], subject_words: set[str],
                encoding: str = "utf-8") -> bytes:
    """Each line of ``data`` that reads as one of ``lines`` (words compared, spacing ignored)
    becomes its masked form; in a Subject header, the words of ``subject_words`` become ****.
    One pass over the lines: linear in the size of the mail."""
    out = []
    in_headers = True
    for raw_line in data.split(b"\n"):
        body = raw_line.rstrip(b"\r")
        if in_headers and not body:
            in_headers = False
        try:
            text = body.decode(encoding, "surrogateescape")
        except LookupError:
            text = body.decode("utf-8", "surrogateescape")
        masked = lines.get(" ".join(text.split()))
        if masked is None and in_headers and subject_words and \
                text[:8].lower() == "subject:":
            words = text.split(" ")
            masked = " ".join("****" if w in subject_words else w for w in words)
            masked = None if masked == text else masked
        if masked is None:
            out.append(raw_line)
            continue
        try:
            new = masked.encode(encoding, "surrogateescape")
        except (UnicodeEncodeError, LookupError):
            new = masked.encode("utf-8", "surrogateescape")
        out.append(new + raw_line[len(body):])  # the line end as it was
    return b"\n".join(out)


def _text_parts(msg: Message) -> Iterable[Message]:
    for part in msg.walk():
        if not part.is_multipart() and part.get_content_maintype() in ("text", ""):
            yield part


def _decoded(part: Message) -> bytes:
    data = part.get_payload(decode=True)
    return data if isinstance(data, bytes) else b""


def _leaks(raw: bytes, secrets: set[str]) -> bool:
    """Does any password (4 characters or more) still stand in a text part of the mail?"""
    long = {x for x in secrets if len(x) >= 4}
    if not long:
        return False
    try:
        msg = message_from_bytes(raw, policy=compat32)
        for part in _text_parts(msg):
            data = _decoded(part)
            charset = part.get_content_charset() or "utf-8"
            try:
                text = data.decode(charset, "replace")
            except LookupError:
                text = data.decode("utf-8", "replace")
            if long.intersection(_TOKEN.split(text)):
                return True
    except Exception:  # a mail the parser cannot read: be safe
        return True
    return False


_WORD = re.compile(rb"[^\s<>&;\"'=]+")


def _mask_words(data: bytes, secrets: set[bytes]) -> bytes:
    """Every word of ``data`` that is one of ``secrets`` becomes ``****`` (one pass)."""
    return _WORD.sub(lambda m: b"****" if m.group() in secrets else m.group(), data)


def _recode(raw: bytes, lines: dict[str, str], secrets: set[str]) -> bytes | None:
    """Each text part decoded, masked (the lines, then any password word left, as in HTML)
    and encoded again as it was."""
    try:
        msg = message_from_bytes(raw, policy=compat32)
        changed = False
        for part in _text_parts(msg):
            cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
            charset = part.get_content_charset() or "utf-8"
            data = _decoded(part)
            masked = _substitute(data, lines, set(), charset)
            try:
                words = {x.encode(charset) for x in secrets if len(x) >= 4}
            except (UnicodeEncodeError, LookupError):
                words = {x.encode("utf-8") for x in secrets if len(x) >= 4}
            masked = _mask_words(masked, words)
            if masked == data:
                continue
            if cte == "base64":
                part.set_payload(base64.encodebytes(masked).decode("ascii"))
            elif cte == "quoted-printable":
                part.set_payload(quopri.encodestring(masked).decode("ascii"))
            else:
                part.set_payload(masked.decode(charset, "surrogateescape"))
            changed = True
        return msg.as_bytes(policy=compat32) if changed else raw
    except Exception:
        return None


def _headers_only(raw: bytes) -> bytes:
    end = raw.find(b"\r\n\r\n")
    sep = b"\r\n\r\n"
    if end < 0:
        end, sep = raw.find(b"\n\n"), b"\n\n"
    head = raw[:end] if end >= 0 else b""
    # the note is plain text whatever the mail was
    kept = [h for h in re.split(rb"\r?\n(?![ \t])", head)
            if h and not h.lower().startswith((b"content-", b"mime-version"))]
    return b"\r\n".join(kept) + b"\r\nContent-Type: text/plain; charset=us-ascii" + sep + REMOVED


def mask_raw(raw: bytes, lines: list[tuple[str, str]], secrets: list[str],
             subject_words: set[str] | None = None) -> bytes:
    """``raw`` with every ``(line, masked line)`` rewritten, and none of ``secrets`` left in
    its text; ``subject_words``: passwords written in the Subject."""
    if not lines:
        return raw
    table = {" ".join(line.split()): masked for line, masked in lines}
    hidden = set(secrets)
    out = _substitute(raw, table, subject_words or set())
    if not _leaks(out, hidden):
        return out
    recoded = _recode(out, table, hidden)
    if recoded is not None and not _leaks(recoded, hidden):
        return recoded
    return _headers_only(raw)


# ---------------------------------------------------------------- reply tokens
def _header_text(value: str) -> str:
    try:
        return str(make_header(decode_header(value)))
    except Exception:
        return value


def _token_leaks(raw: bytes, tokens: set[str]) -> bool:
    """Does a token still stand in a header (RFC 2047 decoded) or a text part (decoded)?"""
    try:
        msg = message_from_bytes(raw, policy=compat32)
        texts = [_header_text(str(v)) for _, v in msg.items()]
        for part in _text_parts(msg):
            texts.append(_decoded(part).decode("latin-1"))  # tokens are ASCII
    except Exception:
        return True
    low = "\n".join(texts).lower()
    return any(t in low for t in tokens)


def _recode_tokens(raw: bytes, pattern: re.Pattern[bytes], tokens: set[str]) -> bytes | None:
    """Headers holding a token (encoded words) written again masked; text parts decoded,
    masked and encoded again as they were."""
    try:
        msg = message_from_bytes(raw, policy=compat32)
        for name in {k for k, v in msg.items()
                     if any(t in _header_text(str(v)).lower() for t in tokens)}:
            values = [_header_text(str(v)) for v in msg.get_all(name, [])]
            del msg[name]
            for value in values:
                masked = pattern.sub(b"****", value.encode("utf-8")).decode("utf-8")
                msg[name] = masked if masked.isascii() else Header(masked, "utf-8").encode()
        for part in _text_parts(msg):
            data = _decoded(part)
            masked = pattern.sub(b"****", data)
            if masked == data:
                continue
            cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
            if cte == "base64":
                part.set_payload(base64.encodebytes(masked).decode("ascii"))
            elif cte == "quoted-printable":
                part.set_payload(quopri.encodestring(masked).decode("ascii"))
            else:
                part.set_payload(masked.decode(part.get_content_charset() or "utf-8",
                                               "surrogateescape"))
        return msg.as_bytes(policy=compat32)
    except Exception:
        return None


def mask_tokens(raw: bytes, tokens: Iterable[str], decode: bool = True) -> bytes:
    """``raw`` with every reply token (judge/mail/replytoken.py) written ``****``: in the
    bytes as they stand (the Delivered-To, To and Received lines, a plain-text quote), then
    (with ``decode``; not for a mail refused unread for its size) in encoded headers and
    parts; where one can still be found after that, only the masked headers are kept (the
    body replaced by a note, as for passwords)."""
    wanted = {t.lower() for t in tokens if t}
    if not wanted:
        return raw
    pattern = re.compile(b"|".join(re.escape(t.encode("ascii")) for t in sorted(wanted)),
                         re.IGNORECASE)
    out = pattern.sub(b"****", raw)
    if not decode or not _token_leaks(out, wanted):
        return out
    recoded = _recode_tokens(out, pattern, wanted)
    if recoded is not None and not _token_leaks(recoded, wanted):
        return recoded
    head = _headers_only(recoded if recoded is not None else out)
    if _token_leaks(head, wanted):  # a header that cannot be read back: none of them kept
        return b"Content-Type: text/plain; charset=us-ascii\r\n\r\n" + REMOVED
    return head
