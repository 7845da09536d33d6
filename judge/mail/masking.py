"""Masking passwords (and reply tokens, :func:`mask_tokens`) in a stored mail once it has
been acted on.

The inbox keeps every mail whole until it has been acted on (so that a crash loses nothing);
in the transaction that acts on it, the lines that carried a password are rewritten as the
judge echoed them (``SIGNON France g1 ****``) and the rest of the mail is kept as it was:

1. where the line stands as written in the raw bytes (plain 7bit/8bit text), it is replaced
   there, so the mail is otherwise byte for byte the same;
2. where a password can still be found after that, in any form (:func:`_leaks`: its bytes,
   a header with encoded words decoded or folded, a text part decoded from quoted-printable
   or base64, with HTML entities read), the headers that hold one are written again masked
   and each text part is decoded, its password lines masked, then every place a password
   stands (as written or HTML-escaped: the exact span, whatever characters it holds; ``=``,
   ``&``, ``;``, quotes and ``<>`` used to split it into words that matched nothing), and
   encoded again the same way;
3. where a password can still be found after that (an HTML numeric entity, a charset the
   judge cannot encode back, a mail the parser cannot read), the body is replaced by a note
   saying so and only the (masked) headers are kept; a header that cannot be read back
   leaves only the note.

The clear copy's pages leave the database files with the transaction (judge/storage.py:
``secure_delete`` and a truncating checkpoint of the write-ahead log).
"""

from __future__ import annotations

import base64
import html
import quopri
import re
from collections.abc import Iterable
from email import message_from_bytes
from email.header import Header, decode_header, make_header
from email.message import Message
from email.policy import compat32

REMOVED = (b"[The body of this mail was removed after the judge acted on it: it held a "
           b"password (or a reply address) that could not be masked in place.]\r\n")


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


def _part_text(part: Message) -> tuple[str, str]:
    """A text part's text and the charset it was read with (unknown: UTF-8)."""
    data = _decoded(part)
    charset = part.get_content_charset() or "utf-8"
    try:
        return data.decode(charset, "surrogateescape"), charset
    except (LookupError, UnicodeError):
        return data.decode("utf-8", "surrogateescape"), "utf-8"


def _views(text: str) -> list[str]:
    """What a reader may see of a text: as it is, and with HTML entities read."""
    unescaped = html.unescape(text)
    return [text] if unescaped == text else [text, unescaped]


def _secret_forms(secrets: set[str]) -> list[str]:
    """Each password as written and HTML-escaped (``a<b`` as ``a&lt;b``), longest first."""
    forms = set(secrets)
    for secret in secrets:
        forms.add(html.escape(secret, quote=False))
        forms.add(html.escape(secret, quote=True))
    return sorted(forms, key=len, reverse=True)


def _hide(text: str, forms: list[str]) -> str:
    for form in forms:
        text = text.replace(form, "****")
    return text


def _header_texts(msg: Message) -> list[tuple[str, str]]:
    """Every header as text: 8-bit bytes read as UTF-8 (RFC 6532), encoded words decoded."""
    out = []
    for name, value in msg.raw_items():
        text = str(value)
        if not text.isascii():
            text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        out.append((name, _header_text(text)))
    return out


def _leaks(raw: bytes, secrets: set[str]) -> bool:
    """Does any password still stand in the mail: in its bytes, in a header (encoded words
    decoded, folding undone), or in a text part (decoded, HTML entities read), whatever
    characters it holds? A password is found wherever it stands, not only as a word: ``=``,
    ``&``, ``;``, quotes and ``<>`` split no password."""
    if not secrets:
        return False
    for secret in secrets:
        for charset in ("utf-8", "latin-1"):
            try:
                if secret.encode(charset) in raw:
                    return True
            except UnicodeEncodeError:
                pass
    try:
        msg = message_from_bytes(raw, policy=compat32)
        texts = [text for _, text in _header_texts(msg)]
        for part in _text_parts(msg):
            texts += _views(_part_text(part)[0])
        for part in msg.walk():  # attachments: a name (RFC 2231 decoded), the file itself
            if part.is_multipart():
                continue
            texts += [_header_text(str(v)) for v in part.values()]
            texts += [str(part.get_filename("")), str(part.get_param("name", "") or "")]
            if part.get_content_maintype() not in ("text", ""):
                data = _decoded(part)
                texts += [data.decode("utf-8", "replace"), data.decode("latin-1")]
    except Exception:  # a mail the parser cannot read: be safe
        return True
    return any(secret in text for text in texts for secret in secrets)


def _encode_part(part: Message, text: str, charset: str) -> None:
    """``text`` back into ``part``, in its transfer encoding and charset (UTF-8 when the
    charset cannot hold it)."""
    try:
        data = text.encode(charset, "surrogateescape")
    except (UnicodeEncodeError, LookupError):
        data = text.encode("utf-8", "surrogateescape")
        part.set_param("charset", "utf-8")
    cte = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
    if cte == "base64":
        part.set_payload(base64.encodebytes(data).decode("ascii"))
    elif cte == "quoted-printable":
        part.set_payload(quopri.encodestring(data).decode("ascii"))
    else:
        part.set_payload(data.decode("ascii", "surrogateescape"))


def _masked_line(line: str, lines: dict[str, str]) -> str:
    masked = lines.get(" ".join(line.split()))
    if masked is None:
        return line
    return masked + "\r" if line.endswith("\r") else masked


def _recode(raw: bytes, lines: dict[str, str], secrets: set[str]) -> bytes | None:
    """Headers that hold a password (an encoded-word or folded Subject) written again
    masked; each text part decoded, masked (its password lines, then every place a password
    stands, as written or HTML-escaped: the exact span, whatever characters it holds) and
    encoded again as it was."""
    forms = _secret_forms(secrets)
    try:
        msg = message_from_bytes(raw, policy=compat32)
        headers = _header_texts(msg)
        leaking = {k.lower(): k for k, text in headers if any(s in text for s in secrets)}
        for name in leaking.values():
            values = [_hide(text, forms) for k, text in headers if k.lower() == name.lower()]
            del msg[name]
            for value in values:
                msg[name] = value if value.isascii() else Header(value, "utf-8").encode()
        for part in _text_parts(msg):
            text, charset = _part_text(part)
            masked = "\n".join(_masked_line(line, lines) for line in text.split("\n"))
            masked = _hide(masked, forms)
            if masked != text:
                _encode_part(part, masked, charset)
        return msg.as_bytes(policy=compat32)
    except Exception:
        return None


def _headers_only(raw: bytes, note: bytes = REMOVED) -> bytes:
    end = raw.find(b"\r\n\r\n")
    sep = b"\r\n\r\n"
    if end < 0:
        end, sep = raw.find(b"\n\n"), b"\n\n"
    head = raw[:end] if end >= 0 else b""
    # the note is plain text whatever the mail was
    kept = [h for h in re.split(rb"\r?\n(?![ \t])", head)
            if h and not h.lower().startswith((b"content-", b"mime-version"))]
    return b"\r\n".join(kept) + b"\r\nContent-Type: text/plain; charset=us-ascii" + sep + note


_WIDE_CHARSETS = ("utf-16", "utf-32", "utf16", "utf32", "ucs-2", "ucs2", "ucs-4", "ucs4")


def _readable(part: Message) -> bool:
    """A leaf part the judge reads as text, so its masking can find a password in it: a
    text part (or one with no type) whose bytes are text in its charset (no NUL byte unless
    the charset is a wide one: UTF-16 sent as text/plain with no charset is no text to the
    judge, nor to the masking)."""
    if part.get_content_maintype() not in ("text", ""):
        return False
    charset = (part.get_content_charset() or "").lower()
    return charset.startswith(_WIDE_CHARSETS) or b"\0" not in _decoded(part)


def text_only(raw: bytes) -> bytes:
    """``raw`` with every part the judge cannot read as text (an image, a zip, a PDF, UTF-16
    sent as ``application/octet-stream``) replaced by a one-line note of its type and size;
    unchanged when it has none. The judge reads text parts only, so a password in any other
    part is beyond its masking (a zip, UTF-16: the password's bytes are not there to find)
    and stayed on disk for good; what it cannot read it does not keep. A mail the parser
    cannot read is kept as it is (the password masking's own fallbacks apply to it)."""
    try:
        msg = message_from_bytes(raw, policy=compat32)
        dropped = [part for part in msg.walk() if not part.is_multipart()
                   and part.get_content_maintype() != "message" and not _readable(part)]
        if not dropped:
            return raw
        for part in dropped:
            what = part.get_content_type()
            size = len(_decoded(part))
            for name in [k for k in part if k.lower().startswith("content-")]:
                del part[name]
            part["Content-Type"] = "text/plain; charset=us-ascii"
            part.set_payload(f"[A part of this mail ({what}, {size} bytes) was not kept: the "
                             "judge reads only text, and keeps only what it reads.]\r\n")
        return msg.as_bytes(policy=compat32)
    except Exception:
        return raw


# the most of a mail refused for its size that is looked at for its headers
# (judge.games.acting reads no more of it either)
UNREAD_HEAD_BYTES = 262144


def unread_copy(raw: bytes, size: int) -> bytes:
    """What is kept of a mail refused unread for its size: its headers (then masked like any
    mail's) and a note of its size, never its body: the judge did not read it, so it could not
    mask a password in it (an attachment's base64, a SIGNON line)."""
    note = (f"[The body of this mail ({size} bytes) was not kept: the judge refused the mail "
            "unread for its size.]\r\n").encode("ascii")
    return _headers_only(raw[:UNREAD_HEAD_BYTES], note)


def mask_raw(raw: bytes, lines: list[tuple[str, str]], secrets: list[str],
             subject_words: set[str] | None = None) -> bytes:
    """``raw`` with every ``(line, masked line)`` rewritten, and none of ``secrets`` left in
    it, in any form (:func:`_leaks`); ``subject_words``: passwords written in the Subject."""
    if not lines:
        return raw
    table = {" ".join(line.split()): masked for line, masked in lines}
    # a password has four characters or more (judge/games/game.py); a shorter word hidden
    # on a line the judge could not read (every word after SIGNON) is no password
    hidden = {s for s in secrets if len(s) >= 4 and s != "****"}
    out = _substitute(raw, table, subject_words or set())
    if not _leaks(out, hidden):
        return out
    recoded = _recode(out, table, hidden)
    if recoded is not None and not _leaks(recoded, hidden):
        return recoded
    head = _headers_only(recoded if recoded is not None else out)
    if _leaks(head, hidden):  # a header that cannot be read back: none of them kept
        return b"Content-Type: text/plain; charset=us-ascii\r\n\r\n" + REMOVED
    return head


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


def mask_tokens(raw: bytes, tokens: Iterable[str]) -> bytes:
    """``raw`` with every reply token (judge/mail/replytoken.py) written ``****``: in the
    bytes as they stand (the Delivered-To, To and Received lines, a plain-text quote), then
    in encoded headers and parts; where one can still be found after that, only the masked
    headers are kept (the body replaced by a note, as for passwords)."""
    wanted = {t.lower() for t in tokens if t}
    if not wanted:
        return raw
    pattern = re.compile(b"|".join(re.escape(t.encode("ascii")) for t in sorted(wanted)),
                         re.IGNORECASE)
    out = pattern.sub(b"****", raw)
    if not _token_leaks(out, wanted):
        return out
    recoded = _recode_tokens(out, pattern, wanted)
    if recoded is not None and not _token_leaks(recoded, wanted):
        return recoded
    head = _headers_only(recoded if recoded is not None else out)
    if _token_leaks(head, wanted):  # a header that cannot be read back: none of them kept
        return b"Content-Type: text/plain; charset=us-ascii\r\n\r\n" + REMOVED
    return head
