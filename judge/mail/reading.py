"""Reading inbound mail: who sent it, whether to answer it at all, and its command text.

* the text part: ``text/plain`` preferred, else ``text/html`` turned into text; any charset
  and transfer encoding (an unknown charset falls back to Latin-1, never an exception);
* quoted replies (``> `` lines, "On ... wrote:", Outlook's "-----Original Message-----" and
  ``From:/Sent:`` blocks) and signatures (``-- ``, "Sent from my ...") are dropped;
* auto-replies, bounces and list traffic are never answered (RFC 3834 ``Auto-Submitted``,
  ``Precedence: bulk|junk|list``, ``List-Id``, the null sender, ``MAILER-DAEMON``, DSNs).
"""

from __future__ import annotations

import email
import html
import re
from dataclasses import dataclass, field
from email.header import Header, decode_header, make_header
from email.message import Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser


@dataclass(slots=True)
class Inbound:
    message: Message
    sender: str  # the address to answer ('' when none can be found)
    subject: str
    message_id: str
    references: list[str]
    lines: list[str] = field(default_factory=list)  # the command text, quotes/signature dropped
    ignore_reason: str = ""  # non-empty: never answer (auto-reply, bounce, list, loop)


def parse_bytes(raw: bytes) -> Message:
    """The message, parsed with the lenient and fast compat32 policy (headers decoded on
    demand by :func:`_header`)."""
    return email.message_from_bytes(raw)


def _header(msg: Message, name: str) -> str:
    """A header as text: RFC 2047 encoded words decoded, folding removed; '' if absent."""
    try:
        value = msg.get(name)
        if value is None:
            return ""
        if isinstance(value, Header):
            return str(value).strip()
        text = str(value)
        if "=?" in text:
            text = str(make_header(decode_header(text)))
        return " ".join(text.split())
    except Exception:  # a malformed header must not stop the judge
        return str(msg.get(name, "")).strip()


def _address(msg: Message, name: str) -> str:
    try:
        values = msg.get_all(name) or []
        pairs = getaddresses([str(v) for v in values])
    except Exception:
        pairs = [parseaddr(_header(msg, name))]
    for _, addr in pairs:
        if addr and "@" in addr:
            return addr.strip()
    return ""


_AUTO_LOCALPARTS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply",
                    "do-not-reply")


def ignore_reason(msg: Message, sender: str, mail_from: str | None, own_address: str) -> str:
    """Why this message must never be answered, or '' when it may be."""
    auto = _header(msg, "Auto-Submitted").lower()
    if auto and not auto.startswith("no"):
        return f"auto-submitted ({auto})"
    precedence = _header(msg, "Precedence").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"precedence {precedence}"
    for name in ("X-Autoreply", "X-Autorespond"):
        if _header(msg, name):
            return f"{name.lower()} header"
    if _header(msg, "List-Id") or _header(msg, "List-Unsubscribe") or _header(msg, "List-Post"):
        return "mailing list"
    if mail_from is not None and mail_from.strip() in ("", "<>"):
        return "null sender (bounce)"
    return_path = _header(msg, "Return-Path")
    if return_path.replace(" ", "") == "<>":
        return "null sender (bounce)"
    ctype = msg.get_content_type()
    if ctype == "multipart/report" or ctype == "message/delivery-status":
        return "delivery status notification"
    if not sender:
        return "no sender address"
    local = sender.split("@", 1)[0].lower()
    if local in _AUTO_LOCALPARTS:
        return f"automatic sender ({local})"
    if sender.lower() == own_address.lower():
        return "mail from the judge itself (loop)"
    return ""


# ------------------------------------------------------------------ text part
class _HTMLText(HTMLParser):
    BLOCK = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
             "table", "ul", "ol", "blockquote", "hr", "section", "article"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.quote = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head", "title"):
            self.skip += 1
        if tag == "blockquote":
            self.quote += 1
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head", "title") and self.skip:
            self.skip -= 1
        if tag == "blockquote" and self.quote:
            self.quote -= 1
        if tag in self.BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.quote:  # quoted reply in HTML: mark it like a plain-text quote
            data = "\n".join("> " + x for x in data.splitlines())
        self.out.append(data)


def html_to_text(markup: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:
        return html.unescape(re.sub(r"<[^>]+>", " ", markup))
    text = "".join(parser.out).replace("\xa0", " ")
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return "\n".join(lines)


def _decode(part: Message) -> str:
    """The part's text, any transfer encoding and charset (unknown ones: UTF-8, then Latin-1)."""
    payload = part.get_payload(decode=True) or b""
    if isinstance(payload, str):
        return payload
    charset = part.get_content_charset() or "utf-8"
    if charset in ("us-ascii", "ascii"):
        charset = "utf-8"  # mislabelled 8-bit mail is common; UTF-8 reads ASCII too
    try:
        return payload.decode(charset)
    except (LookupError, UnicodeDecodeError):
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload.decode("latin-1")


def body_text(msg: Message) -> str:
    """The message's text: the first text/plain part, else the first text/html as text."""
    plain: Message | None = None
    markup: Message | None = None
    for part in msg.walk():
        if part.is_multipart():
            continue
        if part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" and plain is None:
            plain = part
        elif ctype == "text/html" and markup is None:
            markup = part
    if plain is not None:
        text = _decode(plain)
        if str(plain.get_param("format") or "").lower() == "flowed":
            text = unflow(text, str(plain.get_param("delsp") or "").lower() == "yes")
        if text.strip() or markup is None:
            return text
    if markup is not None:
        return html_to_text(_decode(markup))
    return ""


def unflow(text: str, delsp: bool = False) -> str:
    """RFC 3676 format=flowed: a line ending in a space continues on the next line."""
    out: list[str] = []
    current = ""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith(" "):
            line = line[1:]  # space-stuffing
        if line.endswith(" ") and line != "-- ":
            current += line[:-1] if delsp else line
            continue
        out.append(current + line)
        current = ""
    if current:
        out.append(current)
    return "\n".join(out)


# ---------------------------------------------------------- quotes, signatures
_ON_WROTE = re.compile(r"^(on|am|le|el|il|op)\b.*(wrote|schrieb|a écrit|escribió|scrisse|schreef)\s*:\s*$",
                       re.IGNORECASE)
_ORIGINAL = re.compile(r"^-{2,}\s*(original message|forwarded message|ursprüngliche nachricht)"
                       r"\s*-{2,}\s*$", re.IGNORECASE)
_OUTLOOK_FROM = re.compile(r"^\*?(from|von|de)\s*:\*?\s", re.IGNORECASE)
_OUTLOOK_NEXT = re.compile(r"^\*?(sent|date|gesendet|envoyé|to|an|subject|betreff)\s*:\*?\s",
                           re.IGNORECASE)
_SENT_FROM = re.compile(r"^(sent from my|get outlook for|sent from (mail|yahoo|outlook))",
                        re.IGNORECASE)


def command_lines(text: str) -> list[str]:
    """The lines a person wrote: up to the quoted message or signature, quotes dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    skip_next = False
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        stripped = line.strip()
        if skip_next:
            skip_next = False
            continue
        if line in ("-- ", "--") or raw == "-- ":
            break  # signature
        if _ORIGINAL.match(stripped) or re.fullmatch(r"_{10,}", stripped):
            break  # Outlook / forwarded
        # Gmail/Apple "On ... wrote:" (maybe wrapped onto two lines): the quote under it is
        # "> " lines, dropped below; a reply written under the quote is still read
        if _ON_WROTE.match(stripped):
            continue
        if (stripped.lower().startswith(("on ", "am ", "le "))
                and i + 1 < len(lines) and _ON_WROTE.match(stripped + " " + lines[i + 1].strip())):
            skip_next = True
            continue
        if (_OUTLOOK_FROM.match(stripped) and i + 1 < len(lines)
                and _OUTLOOK_NEXT.match(lines[i + 1].strip())):
            break  # Outlook header block of the quoted message
        if _SENT_FROM.match(stripped):
            break
        if stripped.startswith(">"):
            continue
        out.append(stripped)
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def read_message(raw: bytes, mail_from: str | None, own_address: str) -> Inbound:
    msg = parse_bytes(raw)
    sender = _address(msg, "Reply-To") or _address(msg, "From")
    if not sender and mail_from:
        sender = mail_from
    subject = _header(msg, "Subject")
    message_id = _header(msg, "Message-ID")
    refs = _header(msg, "References").split()
    inbound = Inbound(msg, sender, subject, message_id, refs)
    # From, not Reply-To, decides whether this is the judge's own mail
    inbound.ignore_reason = ignore_reason(msg, _address(msg, "From") or sender, mail_from,
                                          own_address)
    if not inbound.ignore_reason:
        inbound.lines = command_lines(body_text(msg))
    return inbound
