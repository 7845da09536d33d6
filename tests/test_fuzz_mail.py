"""Fuzzing whole emails through the judge's real acting path (issue 13, "How it is checked").

Every mail is built from parts real mail programs write (plain, HTML-only,
multipart/alternative, quoted-printable and base64, 8-bit text in the wrong charset or none,
deep nesting, DSNs, out-of-office replies), then spoilt the way hostile or broken senders do
(NUL and control characters, CR/LF injected into Subject/From/Message-ID, 5,000-character
headers, bad and internationalised addresses, broken encodings), and sometimes mutated byte by
byte. Each goes through the real storage, reading, acting and SMTP sender in-process (to an
aiosmtpd sink), and the judge must:

* never fail on it (no inbox row in state ``error``, no exception out of the worker or the
  sender);
* answer a mail that looks human and has a usable author exactly once, to the author
  (``From``, else the envelope sender), never to ``Reply-To``; and answer none of the mails a
  documented rule silences (docs/commands.md, docs/operating.md "Security");
* send only parseable mail with no header line over 998 characters and no control characters
  in a header, each reply within ``reply_max_bytes``, and settle every outgoing row (sent, or
  failed for a reason) without the sender raising.

Budget: tests/fuzzkit.py (``JUDGE_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import base64
import itertools
import logging
import quopri
import random
import re
from email.header import Header
from email.parser import BytesParser
from email.policy import compat32

import pytest
from fuzzkit import fuzz_settings, mutate_bytes, mutate_text
from hypothesis import given
from hypothesis import strategies as st
from mailkit import Sink, free_port

from judge.mail.intake import store_message
from judge.mail.reading import canonical_address

JUDGE = "judge@fuzz.test"
VICTIM = "victim@innocent.test"
REPLY_MAX = 4000  # small, so that big mails exercise the cut
MAX_MESSAGE = 150_000  # small, so that big mails exercise the size refusal
_serial = itertools.count(1)

# the reasons a documented rule gives for not answering (docs/commands.md "What it never
# answers", docs/operating.md "Security": loop guard and ceiling)
DOCUMENTED_SILENCES = ("auto-submitted", "precedence", "x-autoreply", "x-autorespond",
                       "mailing list", "null sender", "delivery status notification",
                       "no sender address", "automatic sender", "mail from the judge itself",
                       "the judge's own", "mail-loop guard", "reply ceiling",
                       "oversized and", "answering the judge's size refusal")


# ------------------------------------------------------------------ the harness
class _Collect(logging.Handler):
    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record)


class Harness:
    """The judge's real Store, Actor and SMTP Sender; a real SMTP server (aiosmtpd) as the
    relay, offering SMTPUTF8."""

    def __init__(self, dirpath, smtputf8: bool = True, **settings) -> None:
        from judge.config import Config
        from judge.games.acting import Actor
        from judge.mail.sender import Sender
        from judge.storage import Store

        self.sink = Sink(free_port(), smtputf8=smtputf8)
        self.sink.start()
        cfg = Config(address=JUDGE, database=str(dirpath / "judge.db"), base_dir=dirpath)
        cfg.default_settle = "0s"
        cfg.reply_max_bytes = REPLY_MAX
        cfg.max_message_bytes = MAX_MESSAGE
        cfg.replies_per_hour = 1_000_000  # every example writes from its own address anyway
        cfg.outbound.mode = "smtp"
        cfg.outbound.host = "127.0.0.1"
        cfg.outbound.port = self.sink.controller.port
        cfg.outbound.starttls = False
        cfg.outbound.timeout = 10.0
        for k, v in settings.items():
            setattr(cfg, k, v)
        self.cfg = cfg
        self.store = Store(cfg.database_path)
        self.actor = Actor(self.store, cfg)
        self.sender = Sender(cfg, self.store)
        self.errors: list[logging.LogRecord] = []  # ERROR records of the judge's loggers
        self._handler = _Collect(self.errors)
        logging.getLogger("judge").addHandler(self._handler)

    def close(self) -> None:
        logging.getLogger("judge").removeHandler(self._handler)
        self.sink.stop()

    def deliver(self, raw: bytes, mail_from: str | None) -> int | None:
        inbox_id = store_message(self.store, raw, "test", mail_from)
        self.actor.process_inbox()
        self.actor.process_due()
        self.sender.flush()
        return inbox_id


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    h = Harness(tmp_path_factory.mktemp("fuzzmail"))
    yield h
    h.close()


@pytest.fixture(scope="module")
def ascii_harness(tmp_path_factory):
    """A relay that does not offer SMTPUTF8: internationalised addresses are refused."""
    h = Harness(tmp_path_factory.mktemp("fuzzmail_ascii"), smtputf8=False)
    yield h
    h.close()


# ------------------------------------------------------------------ building mails
class Spec:
    """What the generator knows about the mail it built: the oracle."""

    def __init__(self) -> None:
        self.raw = b""
        self.mail_from: str | None = None  # the envelope sender, when the mail came by SMTP
        self.author: str | None = None  # where the reply must go; None: no usable author
        self.any_author = False  # usable, but which of its addresses is the generator's guess
        self.silenced = ""  # the documented rule that must silence it ('' = human-looking)
        self.mutated = False  # bytes mutated at random: only the safety properties hold
        self.notes: list[str] = []

    def __repr__(self) -> str:
        raw = self.raw if len(self.raw) < 3000 else self.raw[:1500] + b"..." + self.raw[-1000:]
        return (f"Spec(raw={raw!r}, mail_from={self.mail_from!r}, author={self.author!r}, "
                f"any_author={self.any_author}, silenced={self.silenced!r}, "
                f"mutated={self.mutated}, notes={self.notes})")


def _words(rng: random.Random) -> str:
    return " ".join(rng.choice(["game", "orders", "help", "please", "Müller", "Ærø", "日本",
                                "привет", "spam", "x" * 40, "😀"]) for _ in range(rng.randint(1, 5)))


def from_header(rng: random.Random, n: int, spec: Spec) -> bytes | None:
    """A From header value (bytes, may be 8-bit) and what the reply must go to."""
    local = f"u{n}"
    plain = f"{local}@players.test"
    kind = rng.randrange(17)
    spec.notes.append(f"from#{kind}")
    spec.author = plain
    if kind == 0:
        return plain.encode()
    if kind == 1:
        return f"Alice Example <{plain}>".encode()
    if kind == 2:
        return f"{Header('Jörg Müller 日本', 'utf-8').encode()} <{plain}>".encode()
    if kind == 3:  # a broken encoded word
        return f"=?utf-8?q?J=FCrg=ZZ <{plain}>".encode()
    if kind == 4:  # raw UTF-8 display name (RFC 6532)
        return f"Jörg Müller <{plain}>".encode()
    if kind == 5:  # raw UTF-8 local part (RFC 6532)
        spec.author = f"jörg{n}@players.test"
        return spec.author.encode()
    if kind == 6:  # raw UTF-8 domain
        spec.author = f"{local}@bücher.test"
        return spec.author.encode()
    if kind == 7:
        spec.author = f"{local}@xn--bcher-kva.test"
        return spec.author.encode()
    if kind == 8:  # CR/LF injected through an encoded word into the display name
        name = Header(f"Eve\r\nBcc: {VICTIM}\r\n", "utf-8").encode()
        return f"{name} <{plain}>".encode()
    if kind == 9:  # two authors: no single one, counts as none (the envelope sender)
        spec.author = None
        return f"{plain}, other{n}@players.test".encode()
    if kind == 10:  # a 5,000-character display name
        return f"\"{'N' * 5000}\" <{plain}>".encode()
    if kind == 11:  # an address no server takes: answered once (the sender then refuses it)
        spec.author = f"{'x' * 300}{n}@players.test"
        return spec.author.encode()
    if kind == 12:  # NUL and controls in the display name
        return f"Ev\x00e\x1b\x07 <{plain}>".encode()
    if kind == 13:  # no address at all
        spec.author = None
        return rng.choice([b"", b"just a name", b"<>", b"@", b"\x00", b"undisclosed-recipients:;"])
    if kind == 14:  # no From header: the envelope sender, if any, is the author
        spec.author = None
        return None
    if kind == 15:  # the author is the victim's neighbour; Reply-To names the victim
        return f"<{plain}>".encode()
    spec.any_author = True  # a quoted local part: parsers differ on the quotes
    return f"\"john doe{n}\"@players.test".encode()


def subject_header(rng: random.Random) -> bytes | None:
    kind = rng.randrange(11)
    if kind == 0:
        return None
    if kind == 1:
        return b""
    if kind == 2:
        return ("S" * 5000).encode()
    if kind == 3:
        return b"orders\x00with\x01NUL\x7f and \x1b[31mcolour"
    if kind == 4:  # CR/LF injected through an encoded word
        return Header(f"hi\r\nBcc: {VICTIM}\r\nX-Evil: 1", "utf-8").encode().encode()
    if kind == 5:
        return "Grüße aus Köln 😀".encode()  # raw 8-bit
    if kind == 6:
        return b"=?utf-8?b?broken base64!!?= =?x-klingon?q?Qapla=27?="
    if kind == 7:
        return rng.choice([b"HELP", b"LIST", b"STATUS nosuchgame", b"Re: Re: RE: Fwd: help"])
    if kind == 8:
        return Header("Ünïcödé " * 300, "utf-8").encode().encode()
    if kind == 9:
        return _words(rng).encode("utf-8")
    return b"orders"


def message_id_header(rng: random.Random, n: int) -> bytes | None:
    kind = rng.randrange(8)
    if kind == 0:
        return None
    if kind == 1:
        return f"<{'m' * 5000}{n}@players.test>".encode()
    if kind == 2:
        return b"<reused@players.test>"  # a different mail reusing a Message-ID
    if kind == 3:
        return f"<a{n}@players.test>\r\nBcc: {VICTIM}".encode().replace(b"\r\n", b"\r\n ")
    if kind == 4:
        return f"<a\x00b{n}@players.test>".encode()
    if kind == 5:
        return b"no angle brackets at all"
    return f"<m{n}.{rng.randrange(10**9)}@players.test>".encode()


COMMANDS = ["HELP", "LIST", "STATUS nosuchgame", "SIGNON FRANCE nosuchgame pw", "A PAR - BUR",
            "OBSERVE nosuchgame", "CREATE {game} pw{n}", "WHOAMI", "SIGNOFF", "END",
            "BUILD 0F BRE", "0A MAR", "SET DEADLINE 0", "PRESS TO ALL", "> quoted HELP",
            "-- ", "Sent from my iPhone", "On Mon, 1 Jan 2024, someone wrote:",
            "-----Original Message-----", "CONFIRM 0123456789abcdef", "UNOBSERVE nosuchgame"]


def body_text(rng: random.Random, n: int, free: str) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return ""
    if kind == 1:
        return free
    if kind == 2:  # many lines
        return "\n".join(f"A PAR - BUR {i}" for i in range(rng.choice([100, 1500, 6000])))
    if kind == 3:  # one huge line
        return "HELP " + "x" * rng.choice([1000, 20_000, 120_000])
    lines = [rng.choice(COMMANDS).format(game=f"fz{n}", n=n) for _ in range(rng.randint(1, 12))]
    if rng.random() < 0.5:
        lines.insert(rng.randrange(len(lines) + 1), free)
    if rng.random() < 0.3:
        lines = [mutate_text(rng, line) for line in lines]
    return "\n".join(lines)


CHARSETS = ["utf-8", "idna", "base64", "zlib_codec", "us-ascii", "iso-8859-1", "windows-1252", "koi8-r", "shift_jis", "utf-16",
            "utf-7", "x-klingon", "", None, "utf-8\x00", "unknown-8bit"]


def encode_text(rng: random.Random, text: str) -> tuple[bytes, str | None]:
    """The text's bytes and the charset the headers will claim (often the wrong one)."""
    real = rng.choice(["utf-8", "iso-8859-1", "windows-1252", "koi8-r", "shift_jis", "utf-16"])
    data = text.encode(real, "replace")
    claimed = real if rng.random() < 0.5 else rng.choice(CHARSETS)
    return data, claimed


def transfer(rng: random.Random, data: bytes) -> tuple[bytes, str | None]:
    kind = rng.randrange(9)
    if kind == 0:
        return quopri.encodestring(data), "quoted-printable"
    if kind == 1:  # broken quoted-printable
        qp = quopri.encodestring(data)
        return qp + b"=\r\n=Z=\r\n=4", "quoted-printable"
    if kind == 2:
        return base64.encodebytes(data), "base64"
    if kind == 3:  # broken padding, stray characters, cut short
        b = base64.encodebytes(data).rstrip(b"=\n")
        cut = b[: max(0, len(b) - rng.randint(0, 3))]
        return cut + rng.choice([b"", b"*!", b"=", b"===", b"\x00"]), "base64"
    if kind == 4:
        return data, "8bit"
    if kind == 5:
        return data, rng.choice(["x-uuencode", "binary", "chunked", "BASE64 ", "7bit"])
    return data, None


def leaf(rng: random.Random, text: str, html: bool) -> bytes:
    if html:
        text = "<html><body><div>" + "</div><div>".join(
            t.replace("&", "&amp;").replace("<", "&lt;") for t in text.split("\n")
        ) + "</div><br>&nbsp;<script>HELP</script></body></html>"
    data, charset = encode_text(rng, text)
    data, cte = transfer(rng, data)
    ctype = "text/html" if html else "text/plain"
    head = f"Content-Type: {ctype}"
    if charset is not None:
        head += f"; charset=\"{charset}\""
    if rng.random() < 0.1:
        head += "; format=flowed; delsp=yes"
    head += "\r\n"
    if cte:
        head += f"Content-Transfer-Encoding: {cte}\r\n"
    return head.encode("utf-8", "surrogateescape") + b"\r\n" + data


def multipart(rng: random.Random, parts: list[bytes], subtype: str) -> bytes:
    b = f"=_b{rng.randrange(10**9)}"
    out = f"Content-Type: multipart/{subtype}; boundary=\"{b}\"\r\n\r\npreamble\r\n".encode()
    for p in parts:
        out += f"--{b}\r\n".encode() + p + b"\r\n"
    if rng.random() < 0.9:  # sometimes never closed
        out += f"--{b}--\r\n".encode()
    return out


def structure(rng: random.Random, text: str) -> tuple[bytes, str]:
    kind = rng.randrange(9)
    if kind == 0:
        return leaf(rng, text, html=True), "html-only"
    if kind == 1:
        return multipart(rng, [leaf(rng, text, False), leaf(rng, text, True)],
                         "alternative"), "alternative"
    if kind == 2:  # mixed, with an attachment first
        att = (b"Content-Type: application/octet-stream; name=x.bin\r\n"
               b"Content-Transfer-Encoding: base64\r\n\r\n" + base64.encodebytes(b"\x00\xff" * 50))
        return multipart(rng, [att, leaf(rng, text, False)], "mixed"), "mixed"
    if kind == 3:  # nested, sometimes deeper than the parser's recursion
        depth = rng.choice([5, 40, 1100]) if rng.random() < 0.3 else rng.randint(2, 12)
        body = leaf(rng, text, False)
        for _ in range(depth):
            body = multipart(rng, [body], rng.choice(["mixed", "alternative", "related"]))
        return body, f"nested{depth}"
    if kind == 4:  # a forwarded message inside
        inner = b"From: someone@else.test\r\nSubject: fwd\r\n" + leaf(rng, "HELP", False)
        return multipart(rng, [leaf(rng, text, False),
                               b"Content-Type: message/rfc822\r\n\r\n" + inner],
                         "mixed"), "rfc822"
    if kind == 5:  # a multipart without parts, or with a boundary that never comes
        return (b"Content-Type: multipart/mixed; boundary=\"nothere\"\r\n\r\n"
                + text.encode("utf-8", "replace")), "no-parts"
    return leaf(rng, text, False), "plain"


SILENCERS = [
    ("auto-submitted", b"Auto-Submitted: auto-replied\r\n", None),
    ("auto-submitted", b"Auto-Submitted: auto-generated\r\n", None),
    ("precedence", b"Precedence: bulk\r\n", None),
    ("precedence", b"Precedence: junk\r\n", None),
    ("x-autoreply", b"X-Autoreply: yes\r\n", None),
    ("mailing list", b"List-Id: <players.lists.test>\r\n", None),
    ("mailing list", b"List-Unsubscribe: <mailto:leave@lists.test>\r\n", None),
    ("null sender", b"", ""),
    ("null sender", b"Return-Path: <>\r\n", None),
]


def build(rng: random.Random, free: str) -> Spec:
    n = next(_serial)
    spec = Spec()
    frm = from_header(rng, n, spec)
    if rng.random() < 0.4:  # came by SMTP: the envelope sender is known
        spec.mail_from = f"env{n}@players.test"
        if spec.author is None and not spec.any_author:
            spec.author = spec.mail_from
    head = b""
    if frm is not None:
        head += b"From: " + frm + b"\r\n"
    head += f"To: {JUDGE}\r\n".encode()
    if rng.random() < 0.5:
        head += f"Reply-To: {VICTIM}\r\n".encode()
    subj = subject_header(rng)
    if subj is not None:
        head += b"Subject: " + subj + b"\r\n"
    mid = message_id_header(rng, n)
    if mid is not None:
        head += b"Message-ID: " + mid + b"\r\n"
    if rng.random() < 0.2:
        head += b"In-Reply-To: <nothing@anywhere>\r\nReferences: " + b" ".join(
            f"<r{i}@x.test>".encode() for i in range(rng.choice([3, 400]))) + b"\r\n"
    if rng.random() < 0.2:  # a 5,000-character header, unfolded
        head += b"X-Huge: " + b"h" * 5000 + b"\r\n"
    if rng.random() < 0.1:
        head += b"Auto-Submitted: no\r\n"  # a person's mail saying so
    if rng.random() < 0.15:
        rule, line, envelope = rng.choice(SILENCERS)
        head += line
        if envelope is not None:
            spec.mail_from = envelope
        spec.silenced = rule
    elif rng.random() < 0.05:  # a delivery report
        spec.silenced = "delivery status notification"
        head += b"MIME-Version: 1.0\r\n"
        body = multipart(rng, [leaf(rng, "Delivery failed", False),
                               b"Content-Type: message/delivery-status\r\n\r\nStatus: 5.1.1\r\n"],
                         "report; report-type=delivery-status")
        spec.raw = head + body
        return finish(rng, spec)
    elif rng.random() < 0.05:
        local = rng.choice(["MAILER-DAEMON", "postmaster", "noreply"])
        head = re.sub(rb"(?m)^From: .*\r\n", b"", head)
        head = f"From: {local}@players.test\r\n".encode() + head
        spec.author, spec.any_author, spec.silenced = None, False, "automatic sender"
    body, shape = structure(rng, body_text(rng, n, free))
    spec.notes.append(shape)
    spec.raw = head + b"MIME-Version: 1.0\r\n" + body
    return finish(rng, spec)


def finish(rng: random.Random, spec: Spec) -> Spec:
    if rng.random() < 0.3:  # line endings as Unix programs write them, or broken ones
        ending = rng.choice([b"\n", b"\n", b"\r", b"\n\r"])
        spec.raw = spec.raw.replace(b"\r\n", ending)
        spec.mutated = spec.mutated or ending != b"\n"
    if rng.random() < 0.2:
        spec.raw = mutate_bytes(rng, spec.raw)
        spec.mutated = True
    if spec.author is None and spec.mail_from and spec.mail_from not in ("", "<>") \
            and not spec.silenced:
        spec.author = spec.mail_from
    return spec


@st.composite
def mails(draw) -> Spec:
    free = draw(st.text(max_size=300))  # any characters at all, controls included
    return build(random.Random(draw(st.integers(0, 2**32 - 1))), free)


# ------------------------------------------------------------------ checks on what went out
_CTL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")


def check_outgoing(raw: bytes) -> None:
    head, sep, _ = raw.partition(b"\r\n\r\n")
    assert sep, "no blank line between headers and body"
    lines = head.split(b"\r\n")
    for line in lines:
        assert len(line) <= 998, f"a header line of {len(line)} characters: {line[:80]!r}"
        assert not _CTL.search(line), f"a control character in a header: {line[:200]!r}"
    assert not re.search(rb"\r(?!\n)|(?<!\r)\n", head), "a bare CR or LF in the headers"
    msg = BytesParser(policy=compat32).parsebytes(raw)
    for name in ("From", "To", "Subject", "Message-ID", "Date"):
        assert msg[name] is not None, f"no {name}"
    assert [line for line in lines if line.lower().startswith(b"bcc:")] == []
    for part in msg.walk():
        if not part.is_multipart():
            part.get_payload(decode=True)


def reply_text(raw: bytes) -> str:
    from judge.mail.reading import body_text, parse_bytes

    return body_text(parse_bytes(raw))


def check_mail(h: Harness, spec: Spec) -> None:
    h.errors.clear()
    inbox_id = h.deliver(spec.raw, spec.mail_from)
    assert not h.errors, [r.getMessage()[:300] for r in h.errors]  # no internal error logged
    if inbox_id is None:  # the very same bytes were stored before: a true duplicate
        return
    row = h.store.one("SELECT state, note FROM inbox WHERE id = ?", (inbox_id,))
    assert row["state"] != "error", f"internal error: {row['note']}"
    assert row["state"] in ("done", "ignored", "refused"), row
    out = h.store.all("SELECT * FROM outbox WHERE inbox_id = ? ORDER BY id", (inbox_id,))
    replies = [r for r in out if r["kind"] in ("reply", "limit")]
    for r in out:
        assert r["rcpt"].lower() != VICTIM, "mail to the Reply-To address"
        check_outgoing(bytes(r["raw"]))
        assert r["state"] in ("sent", "failed"), f"outgoing row left {r['state']}"
        if r["state"] == "failed":
            assert r["last_error"] and r["last_error"].startswith("permanent: "), r
    for r in replies:
        text = reply_text(bytes(r["raw"]))
        assert len(text.encode("utf-8")) <= REPLY_MAX, len(text.encode("utf-8"))
        assert len(bytes(r["raw"])) <= REPLY_MAX  # as sent: headers and encoding counted
    if row["state"] == "ignored":
        assert any(s in row["note"] for s in DOCUMENTED_SILENCES), row["note"]
        assert replies == [], "a silenced mail was answered"
    else:
        assert len(replies) <= 1, [r["subject"] for r in replies]
    if spec.mutated:
        return
    if spec.silenced:
        assert replies == [], f"answered despite {spec.silenced}: {row}"
        assert row["state"] in ("ignored", "refused") or "reply ceiling" in row["note"], row
        return
    if spec.author is None and not spec.any_author:
        assert replies == [], "answered a mail without a usable author"
        return
    assert len(replies) == 1, f"not answered ({row['state']}: {row['note']})"
    if not spec.any_author:
        # the author's mailbox in the judge's one spelling (the domain as DNS names it)
        assert replies[0]["rcpt"].lower() == canonical_address(spec.author).lower(), (
            replies[0]["rcpt"], spec.author)


@fuzz_settings()
@given(mails())
def test_fuzzed_mail_is_answered_once_or_silenced_and_never_breaks_the_judge(harness, spec):
    check_mail(harness, spec)


@fuzz_settings(ci=40)
@given(st.lists(mails(), min_size=2, max_size=6))
def test_fuzzed_mail_in_batches_each_settles_on_its_own(ascii_harness, specs):
    """Several mails stored before the worker runs (a backlog), answered through a relay
    without SMTPUTF8: each is handled alone, and an address the relay cannot take fails that
    reply only (permanently, with the reason), never the sender."""
    h = ascii_harness
    ids = [store_message(h.store, s.raw, "test", s.mail_from) for s in specs]
    h.actor.process_inbox()
    h.sender.flush()
    for inbox_id in ids:
        if inbox_id is None:
            continue
        row = h.store.one("SELECT state, note FROM inbox WHERE id = ?", (inbox_id,))
        assert row["state"] in ("done", "ignored", "refused"), row
        for r in h.store.all("SELECT * FROM outbox WHERE inbox_id = ?", (inbox_id,)):
            check_outgoing(bytes(r["raw"]))
            if r["rcpt"].isascii() and r["state"] != "failed":
                assert r["state"] == "sent", r
            else:
                assert r["state"] == "failed", r
                assert r["last_error"].startswith("permanent: "), r["last_error"]
            if r["state"] == "sent":
                assert h.sink.for_rcpt(r["rcpt"]), r["rcpt"]


# ------------------------------------------------------------------ what the fuzzing found
def test_a_charset_holding_a_nul_byte_is_read_not_an_internal_error(tmp_path):
    from mailkit import InProcessJudge

    judge = InProcessJudge(tmp_path)
    raw = (b"From: alice@players.test\r\nTo: judge@localhost\r\nSubject: nul\r\n"
           b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=\"utf-8\x00\"\r\n\r\n"
           b"HELP\r\n")
    [reply] = judge.deliver(raw)
    assert judge.inbox_states() == ["done"]
    assert reply.rcpt == "alice@players.test"
    assert "SIGNON <power> <game> <password>" in reply.flat


def test_a_raw_utf8_from_address_is_answered_at_that_address(tmp_path):
    """RFC 6532 mail carries the address as UTF-8 bytes; it was read as U+FFFD, so the reply
    went to an address that exists nowhere (and the sender gave it up). The domain is
    written as DNS names it (reading.canonical_address): the same mailbox."""
    from mailkit import InProcessJudge

    judge = InProcessJudge(tmp_path)
    raw = ("From: Jörg Müller <jörg@bücher.test>\r\nTo: judge@localhost\r\n"
           "Subject: Grüße\r\n\r\nHELP\r\n").encode()
    [reply] = judge.deliver(raw)
    [row] = judge.store.all("SELECT rcpt, subject FROM outbox")
    assert row["rcpt"] == "jörg@xn--bcher-kva.test"
    assert row["subject"] == "Re: Grüße"
    assert reply.subject == "Re: Grüße"


def test_a_message_id_with_a_nul_byte_is_not_copied_into_the_reply(tmp_path):
    from mailkit import InProcessJudge

    judge = InProcessJudge(tmp_path)
    raw = (b"From: alice@players.test\r\nTo: judge@localhost\r\nSubject: hi\r\n"
           b"Message-ID: <a\x00b@players.test>\r\n\r\nHELP\r\n")
    [reply] = judge.deliver(raw)
    head = reply.raw.split(b"\r\n\r\n", 1)[0]
    assert b"\x00" not in head
    assert reply["In-Reply-To"] == ""


def test_a_second_auto_submitted_header_silences_the_mail(tmp_path):
    """An auto-responder that keeps the original's ``Auto-Submitted: no`` and adds its own
    ``auto-replied`` was answered (only the first copy was read): a loop."""
    from mailkit import InProcessJudge

    judge = InProcessJudge(tmp_path)
    raw = (b"From: bot@players.test\r\nTo: judge@localhost\r\nSubject: Re: orders\r\n"
           b"Auto-Submitted: no\r\nAuto-Submitted: auto-replied\r\n\r\nHELP\r\n")
    assert judge.deliver(raw) == []
    assert judge.inbox_states() == ["ignored"]
    raw = (b"From: bot@players.test\r\nTo: judge@localhost\r\nSubject: Re: orders 2\r\n"
           b"Precedence: first-class\r\nPrecedence: bulk\r\n\r\nHELP\r\n")
    assert judge.deliver(raw) == []


def test_an_automatic_sender_in_any_from_header_silences_the_mail(tmp_path):
    """A bounce with two From headers, MAILER-DAEMON first and a person second, was answered
    at the envelope sender (two Froms name no one author): found by the nightly fuzz run. An
    automatic sender named in any From header is never answered."""
    from mailkit import InProcessJudge

    judge = InProcessJudge(tmp_path)
    raw = (b"From: MAILER-DAEMON@players.test\r\nFrom: Eve <eve@players.test>\r\n"
           b"To: judge@localhost\r\nSubject: Undelivered\r\n\r\nHELP\r\n")
    assert judge.deliver(raw, "eve@players.test") == []
    assert judge.inbox_states() == ["ignored"]


# ------------------------------------------------------------------ orders by mail
@pytest.fixture(scope="module")
def variant_games(harness):
    """One started game of every variant on the fuzz judge: {variant: (game, powers)}."""
    from mailkit import confirmed

    from judge.variants import get_variant, variant_names

    games = {}
    for name in variant_names():
        game = f"fz{name}"[:12]
        powers = tuple(get_variant(name).board.powers)
        gm = f"gm.{name}@players.test"  # games_per_day counts per address
        confirmed(harness.store, *[f"{p.lower()}.{name}@players.test" for p in powers])
        harness.deliver(compose_plain(gm, f"CREATE {game} masterpw VARIANT {name}\nOPEN"), None)
        for p in powers:
            harness.deliver(compose_plain(f"{p.lower()}.{name}@players.test",
                                          f"SIGNON {p} {game} pw-{p.lower()}"), None)
        row = harness.store.one("SELECT id FROM games WHERE name = ?", (game,))
        assert row is not None, f"the {name} game was not created"
        if not harness.store.all("SELECT 1 FROM players WHERE game_id = ?", (row["id"],)):
            for p in powers:  # a variant that deals the powers out at the start (Dipnomicy)
                harness.deliver(compose_plain(f"{p.lower()}.{name}@players.test",
                                              f"JOIN {game} pw-{p.lower()}"), None)
        harness.deliver(compose_plain(gm, f"MASTER {game} masterpw\nSTART"), None)
        seats = {r["power"]: r["address"] for r in harness.store.all(
            "SELECT power, address FROM players WHERE game_id = ?", (row["id"],))}
        assert seats, f"nobody plays the {name} game"
        games[name] = (game, seats)
    return games


def compose_plain(frm: str, body: str) -> bytes:
    from mailkit import compose

    return compose(frm, JUDGE, body)


@fuzz_settings(ci=60)
@given(st.data())
def test_fuzzed_order_lines_by_mail_are_answered_for_every_variant(harness, variant_games,
                                                                    data):
    """Orders in each variant's syntax, mutated, from the power's own player: the mail is
    acted on (never an internal error) and answered once, to the player."""
    from fuzzkit import mutate_text
    from test_fuzz_orders import GARBAGE, SAMPLES, candidates

    from judge.games.game import GameError, current_position
    from judge.variants import get_variant

    name = data.draw(st.sampled_from(sorted(variant_games)))
    game, seats = variant_games[name]
    power = data.draw(st.sampled_from(sorted(seats)))
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    variant = get_variant(name)
    g = harness.store.one("SELECT * FROM games WHERE name = ?", (game,))
    try:
        position = current_position(harness.store, g)
    except GameError:  # a game its variant starts otherwise: its first position will do
        position = variant.initial_position()
    lines = [t for grp in candidates(variant, position, power, rng) for t in grp]
    lines = rng.sample(lines, min(len(lines), 8)) + SAMPLES.get(name, [])
    lines = [mutate_text(rng, t) if rng.random() < 0.5 else t for t in lines]
    lines += [rng.choice(GARBAGE), data.draw(st.text(max_size=60))]
    rng.shuffle(lines)
    frm = seats[power]
    password = "pw-" + frm.split(".", 1)[0]
    body = f"SIGNON {power} {game} {password}\n" + "\n".join(
        line.replace("\r", " ").replace("\n", " ") for line in lines)
    inbox_id = harness.deliver(compose_plain(frm, body), None)
    row = harness.store.one("SELECT state, note FROM inbox WHERE id = ?", (inbox_id,))
    assert row["state"] == "done", row
    replies = harness.store.all("SELECT * FROM outbox WHERE inbox_id = ? AND kind = 'reply'",
                                (inbox_id,))
    assert [r["rcpt"] for r in replies] == [frm]
    [signon] = harness.store.all("SELECT outcome FROM audit WHERE inbox_id = ? AND command "
                                 "LIKE 'SIGNON%'", (inbox_id,))
    assert signon["outcome"].startswith("ok"), signon  # the orders were read as the power's
    for r in harness.store.all("SELECT raw FROM outbox WHERE inbox_id = ?", (inbox_id,)):
        check_outgoing(bytes(r["raw"]))
    if data.draw(st.booleans()):  # now and then the phase is processed
        pid = harness.deliver(compose_plain(f"gm.{name}@players.test",
                                            f"MASTER {game} masterpw\nPROCESS"), None)
        state = harness.store.one("SELECT state, note FROM inbox WHERE id = ?", (pid,))
        assert state["state"] == "done", state
