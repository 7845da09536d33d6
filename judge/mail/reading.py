"""Reading inbound mail: who sent it, whether to answer it at all, and its command text.

* the text part: ``text/plain`` preferred, else ``text/html`` turned into text; any charset
  and transfer encoding (an unknown charset falls back to Latin-1, never an exception);
* quoted replies (``> `` lines, "On ... wrote:", Outlook's "-----Original Message-----" and
  ``From:/Sent:`` blocks) and signatures (``-- ``, "Sent from my ...") are dropped;
* auto-replies, bounces and list traffic are never answered (RFC 3834 ``Auto-Submitted``,
  ``Precedence: bulk|junk|list``, ``List-Id``, the null sender, ``MAILER-DAEMON``, DSNs, a
  responder's subject such as "Automatic reply:"), nor
  is the judge's own text coming back (its mark, :func:`judge.mail.compose.marker`, in the
  headers or unquoted in the text);
* the address answered is the author's (the single angle-addr of ``From``, else the envelope
  sender; :func:`_author`), never ``Reply-To``: anyone can write any Reply-To
  (docs/operating.md, "Security");
* a message nested too deeply for the parser (about 1,000 multiparts) is read shallowly: its
  headers and its first plain-text part.
"""

from __future__ import annotations

import email
import html
import re
from dataclasses import dataclass, field
from email.header import Header, decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from judge.addresses import ascii_domain, canonical_address  # noqa: F401 (the mail layer's)
from judge.mail.compose import MARKER_HEADER, clean_header, marker


@dataclass(slots=True)
class Inbound:
    message: Message
    sender: str  # the author, the address answered: From, else the envelope sender
    subject: str  # control characters removed
    message_id: str
    references: list[str]
    in_reply_to: str = ""
    reply_to: str = ""  # what the mail asked for; never answered (kept for the audit)
    shallow: bool = False  # nested too deeply: only its first plain-text part was read
    lines: list[str] = field(default_factory=list)  # the command text, quotes/signature dropped
    ignore_reason: str = ""  # non-empty: never answer (auto-reply, bounce, list, loop)
    # where it was sent: Delivered-To (the envelope recipient, as the delivering MTA or the
    # built-in receiver wrote it), X-Original-To, then To and Cc; a reply address is read
    # from these (judge/mail/replytoken.py)
    recipients: list[str] = field(default_factory=list)


def parse_bytes(raw: bytes) -> Message:
    """The message, parsed with the lenient and fast compat32 policy (headers decoded on
    demand by :func:`_header`)."""
    return email.message_from_bytes(raw)


def parse_safely(raw: bytes) -> tuple[Message, bool]:
    """:func:`parse_bytes`, or for a message nested too deeply for the parser's recursion a
    shallow copy (True): the top headers and the first plain-text part found in the bytes."""
    try:
        return parse_bytes(raw), False
    except RecursionError:
        return _shallow(raw), True


_BOUNDARY = re.compile(rb'boundary\s*=\s*"?([^";\r\n]+)"?', re.IGNORECASE)


def _shallow(raw: bytes) -> Message:
    head = BytesHeaderParser(policy=compat32).parsebytes(raw, headersonly=True)
    msg = Message()
    for name, value in head.items():
        if not name.lower().startswith("content-"):
            msg[name] = value
    lines = raw.split(b"\n")
    boundaries = {b"--" + m.group(1).strip() for m in _BOUNDARY.finditer(raw[:4_000_000])}
    i, n = 0, len(lines)
    while i < n:
        if lines[i].rstrip(b"\r") not in boundaries:
            i += 1
            continue
        j = i + 1
        while j < n and lines[j].strip():
            j += 1
        part = BytesHeaderParser(policy=compat32).parsebytes(b"\n".join(lines[i + 1:j]) + b"\n\n")
        if part.get_content_type() == "text/plain" and \
                part.get_content_disposition() != "attachment":
            k = j + 1
            while k < n and lines[k].rstrip(b"\r").rstrip(b"-") not in boundaries:
                k += 1
            for name in ("Content-Type", "Content-Transfer-Encoding"):
                if part[name]:
                    msg[name] = part[name]
            msg.set_payload(b"\n".join(lines[j + 1:k]).decode("ascii", "surrogateescape"))
            return msg
        i = j
    msg["Content-Type"] = "text/plain"
    msg.set_payload("")
    return msg


def _parts(msg: Message) -> list[Message]:
    """The leaf parts, depth first, without recursion (``Message.walk`` recurses and fails
    on deep nesting)."""
    out: list[Message] = []
    stack: list[Message] = [msg]
    while stack:
        part = stack.pop()
        if part.is_multipart():
            children = part.get_payload()
            if isinstance(children, list):
                stack.extend(c for c in reversed(children) if isinstance(c, Message))
            continue
        out.append(part)
    return out


def _header(msg: Message, name: str) -> str:
    """A header as text: RFC 2047 encoded words decoded, folding removed; '' if absent."""
    try:
        value = msg.get(name)
        if value is None:
            return ""
        if isinstance(value, Header):  # 8-bit bytes: read as UTF-8 (RFC 6532), not U+FFFD
            return " ".join((_raw_values(msg, name) or [str(value)])[0].split())
        text = str(value)
        if "=?" in text:
            text = str(make_header(decode_header(text)))
        return " ".join(text.split())
    except Exception:  # a malformed header must not stop the judge
        return str(msg.get(name, "")).strip()


def _raw_values(msg: Message, name: str) -> list[str]:
    """The header's values as sent: 8-bit bytes (RFC 6532 UTF-8 addresses) read as UTF-8,
    where ``get_all`` would turn them into U+FFFD."""
    out = []
    for key, value in msg.raw_items():
        if key.lower() == name.lower():
            value = str(value)
            if not value.isascii():
                value = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            out.append(value)
    return out


def _address(msg: Message, name: str) -> str:
    """The first mailbox of header ``name``, or "" when there is none or the header is
    malformed: the standard library's parser reads ``x <a@b@c@example.org>`` as
    ``c@example.org``, someone who never wrote, and a reply goes to the sender or nowhere."""
    values = _raw_values(msg, name)
    try:
        pairs = getaddresses(values)
    except Exception:
        pairs = [parseaddr(_header(msg, name))]
    # every unquoted "@" of the header must belong to an address read from it
    if sum(_bare_ats(v) for v in values) != sum(_bare_ats(a) for _, a in pairs):
        return ""
    for _, addr in pairs:
        local, _, domain = addr.strip().rpartition("@")
        if local and domain:
            return addr.strip()
    return ""


_QUOTED_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|\((?:\\.|[^()\\])*\)')
_COMMENT = re.compile(r"\((?:\\.|[^()\\])*\)")
_ANGLE_ADDR = re.compile(r"<([^<>]*)>")
_ADDR_SPEC = re.compile(r'(?:"(?:\\.|[^"\\])*"|[^\s"@<>(),:;\\\[\]]+)@[^\s"@<>(),:;\\\[\]]+')


def _author(msg: Message) -> str:
    """The author's address: the single angle-addr of the one From header (``Name
    <a@b.test>``), else a From that is one bare address (``a@b.test``); "" when From holds no
    single unambiguous mailbox. The display name is never an address, whatever it holds
    (``victim@x.test <a@b.test>``, a group ``Support:victim@x.test; <a@b.test>``, an encoded
    word that decodes to an address): a DMARC validator, a mail client and a person read
    ``a@b.test`` as the author, and the standard library's first mailbox was the victim."""
    values = _raw_values(msg, "From")
    if len(values) != 1:
        return ""
    value = " ".join(values[0].split())
    # quoted strings and comments hold no address (blanked, the same length, so that a
    # position in ``outside`` is one in ``value``); one left open is ambiguous
    outside = _QUOTED_OR_COMMENT.sub(lambda m: " " * len(m.group()), value)
    if any(c in outside for c in '"()'):
        return ""
    angles = list(_ANGLE_ADDR.finditer(outside))
    if len(angles) > 1 or outside.count("<") != len(angles) or \
            outside.count(">") != len(angles):
        return ""
    if angles:  # as written, a quoted local part too
        candidate = value[angles[0].start() + 1:angles[0].end() - 1].strip()
    else:  # a bare addr-spec; its comments are no part of it
        candidate = _COMMENT.sub(" ", value).strip()
    return candidate if _ADDR_SPEC.fullmatch(candidate) else ""






def same_mailbox(column: str, address: str) -> tuple[str, list[str]]:
    """SQL matching ``column`` (a NOCASE address column) with every spelling of the mailbox
    of ``address``: itself, its untagged form and every plus tag of it. ``victim+1@x.test``,
    ``victim+2@x.test``... are ``victim@x.test``'s mail on most hosts (postfix's
    recipient_delimiter, Gmail, Fastmail, Outlook), and each tag had its own reply ceiling and
    its own confirmation requests: forged mail from a new tag each time made the judge mail one
    mailbox without bound. Counting is by the mailbox; mail still goes to the spelling given.
    The range on the column keeps the index usable (``+`` sorts just before ``,``)."""
    canonical = canonical_address(address)
    local, _, domain = canonical.rpartition("@")
    base = local.split("+", 1)[0]
    col = f"{column} COLLATE NOCASE"
    if not base or local.startswith('"'):
        return f"{col} = ?", [canonical]
    return (f"({col} = ? OR ({col} >= ? AND {col} < ? AND {column} LIKE ? ESCAPE '\\'))",
            [f"{base}@{domain}", f"{base}+", f"{base},", f"{_like(base)}+%@{_like(domain)}"])


def _like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it alone."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def plain_address(address: str) -> str:
    """``address`` in its canonical form when it is one mailbox a master may name (REPLACE,
    SET LIST); "" when it is not."""
    canonical = canonical_address(address)
    return canonical if _ADDR_SPEC.fullmatch(canonical) else ""


def _bare_ats(text: str) -> int:
    """How many "@" stand outside quoted strings and comments."""
    return _QUOTED_OR_COMMENT.sub("", text).count("@")


def _values(msg: Message, name: str) -> list[str]:
    """Every value of a header, lower case, spaces collapsed."""
    return [" ".join(v.split()).lower() for v in _raw_values(msg, name)]


# the subject prefixes responders put before the subject they answer, in the languages of
# the common mail programs (Outlook, Exchange, Lotus Notes, Thunderbird's and webmail's
# vacation filters), whether or not they mark the mail as RFC 3834 says: only a program
# writes them, so the mail is not answered at all (each answer could draw another)
_AUTO_SUBJECT = re.compile(
    r"(automatic reply|auto[- ]?reply|auto[- ]?response|out of office auto[- ]?reply|"
    r"abwesenheitsnotiz|automatische antwort|r[ée]ponse automatique|"
    r"respuesta autom[aá]tica|risposta automatica|resposta autom[aá]tica|"
    r"automatisch antwoord|autosvar|automatisk svar|automaattinen vastaus|"
    r"odpowied[zź] automatyczna|automatick[aá] odpov[eě][dď])\s*:", re.IGNORECASE)
# what an out-of-office text says, first line or subject ("Out of Office: ...", "Not in the
# office until Monday", "I am on annual leave"...): a person may write it too, above a SET
# ABSENCE, so it is only read this way where a person's text says YES or NO (a reply to a
# confirmation request, judge/games/observers.py)
_OUT_OF_OFFICE = re.compile(
    r"out[- ]of[- ](the[- ])?office|\b(not|no longer) (in|at) (the|my) (office|desk)|"
    r"\baway from (the |my )?(office|desk|e-?mail)|\bon (annual |parental |sick |maternity |"
    r"paternity )?(leave|vacation|holidays?)\b|\bno access to (my )?e-?mail|"
    r"\blimited access to (my )?e-?mail|\b(i am|i'm|i’m|im) (currently |now )?(away|absent|"
    r"travell?ing|unavailable|out)\b|\bnot (available|reachable) until\b|"
    r"\bauto(matic|matically|mated)?[- ]?(reply|response|generated|message)|"
    r"\babwesen|nicht im b[üu]ro|au[ßs]er haus|\babsente? du bureau|\bje suis absente?|"
    r"fuera de la oficina|fuori ufficio|\bafwezig\b", re.IGNORECASE)


# Lotus Notes' "AUTO: Jane Doe is out of the office (returning ...)": AUTO alone is also a
# game's name (its reports are "auto: ..."), and its players' "auto: orders" is theirs
_LOTUS_SUBJECT = re.compile(r"auto\s*:(.*)", re.IGNORECASE | re.DOTALL)


def auto_reply_subject(subject: str) -> bool:
    """Whether ``subject`` starts with what a responder puts before the subject it answers
    ("Automatic reply:", "Abwesenheitsnotiz:", "AUTO:" before an out-of-office text)."""
    text = subject.strip()
    if _AUTO_SUBJECT.match(text) is not None:
        return True
    lotus = _LOTUS_SUBJECT.match(text)
    return lotus is not None and reads_out_of_office(lotus.group(1))


def reads_out_of_office(text: str) -> bool:
    """Whether ``text`` (a subject, a first line) says what out-of-office replies say."""
    return _OUT_OF_OFFICE.search(text) is not None


_AUTO_LOCALPARTS = ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply",
                    "do-not-reply")


def ignore_reason(msg: Message, sender: str, mail_from: str | None, own_address: str) -> str:
    """Why this message must never be answered, or '' when it may be."""
    # every copy of the header counts: "Auto-Submitted: no" first and "auto-replied" after
    # it (a responder keeping the original's headers) is an auto-reply
    for auto in _values(msg, "Auto-Submitted"):
        if auto and not auto.startswith("no"):  # logged and stored: no terminal escapes
            return f"auto-submitted ({printable(auto)})"
    for precedence in _values(msg, "Precedence"):
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
    # a From naming an automatic sender anywhere (two From headers, MAILER-DAEMON first: the
    # author falls back to the envelope sender, yet the mail is a bounce)
    for value in _values(msg, "From"):
        for word in re.findall(r"[^\s<>\"(),;:@]+(?=@)", value):
            if word in _AUTO_LOCALPARTS:
                return f"automatic sender ({word})"
    if sender.lower() == own_address.lower():
        return "mail from the judge itself (loop)"
    if _header(msg, MARKER_HEADER):
        return "the judge's own mail sent back (its mark header)"
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
    except (LookupError, ValueError):  # ValueError: "utf-8\0", idna's UnicodeError...
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload.decode("latin-1")


def body_text(msg: Message) -> str:
    """The message's text: the first text/plain part, else the first text/html as text."""
    plain: Message | None = None
    markup: Message | None = None
    for part in _parts(msg):
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


# what a terminal acts on (C0 but tab and newline, DEL, C1): ESC sequences clear the screen,
# retitle the window or rewrite a line that seems to come from the judge, BEL rings; a
# player's text is copied into other players' mail (press, proposals, orders), so none stays
_SPACING_CONTROLS = re.compile("[\x0b\x0c\x1c-\x1f\x85\u2028\u2029]")
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without control characters (tab and newline kept): the ones that separate
    (form feed, vertical tab, the Unicode line separators) become a space, the rest go."""
    return _CONTROLS.sub("", _SPACING_CONTROLS.sub(" ", text))


def command_lines(text: str) -> list[str]:
    """The lines a person wrote: up to the quoted message or signature, quotes dropped;
    control characters removed (:func:`printable`)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = printable(text).split("\n")
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


def recipients(msg: Message) -> list[str]:
    """The addresses a mail was sent to, the envelope's first (see Inbound.recipients)."""
    out: list[str] = []
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        try:
            pairs = getaddresses(_raw_values(msg, name))
        except Exception:
            continue
        out += [a.strip() for _, a in pairs if a and "@" in a]
    return out


def read_message(raw: bytes, mail_from: str | None, own_address: str) -> Inbound:
    msg, shallow = parse_safely(raw)
    # the author, never Reply-To: a forged Reply-To must not make the judge mail a stranger
    sender = _author(msg)
    if not sender and mail_from and mail_from.strip() not in ("", "<>"):
        sender = mail_from.strip().strip("<>")
    sender = canonical_address(sender) if sender else ""
    subject = clean_header(_header(msg, "Subject"), 1000)
    message_id = _header(msg, "Message-ID")
    refs = _header(msg, "References").split()
    in_reply_to = (_header(msg, "In-Reply-To").split() or [""])[0]
    inbound = Inbound(msg, sender, subject, message_id, refs, in_reply_to=in_reply_to,
                      reply_to=_address(msg, "Reply-To"), shallow=shallow)
    inbound.ignore_reason = ignore_reason(msg, sender, mail_from, own_address)
    if not inbound.ignore_reason and auto_reply_subject(subject):  # no RFC 3834 header
        inbound.ignore_reason = f"auto-reply subject ({printable(subject[:60])})"
    inbound.recipients = recipients(msg)
    if not inbound.ignore_reason:
        inbound.lines = command_lines(body_text(msg))
        mark = marker(own_address)
        if any(mark in line for line in inbound.lines):
            inbound.ignore_reason = "the judge's own text copied back unquoted (its mark)"
    return inbound
