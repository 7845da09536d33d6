"""Issue 23's leftovers (session 30), through the real mail servers: one mailbox however its
domain is spelt (IDN, punycode, non-ASCII case), what a reply to a confirmation request says
(yes confirms, no declines), a request folded into a digest confirmed by replying to the
digest, a user's word quoted back cut short, and no password kept in a part the judge
cannot read as text."""

from __future__ import annotations

import base64
import contextlib
import io
import re
import signal
import sqlite3
import time
import zipfile
from datetime import timedelta
from email import encoders
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

from gmkit import (
    FakeClock,
    LiveJudge,
    confirm_code,
    open_game,
    seats,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)
from mailkit import JudgeProcess, compose, confirmed, free_port, send_smtp, unique, write_config
from test_e2e_intake_security import all_acted, mime
from test_mail_masking import password_forms


def send_utf8(j: LiveJudge, frm: str, body: str, subject: str = "") -> None:
    """A mail whose From is an internationalised address (RFC 6532: UTF-8 in the header),
    from an ASCII envelope sender (the test relay has no SMTPUTF8)."""
    raw = (f"From: {frm}\r\nTo: {j.address}\r\nSubject: {subject or unique('m')}\r\n"
           f"Message-ID: <{unique('u')}@players.test>\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
           f"\r\n{body}\r\n").encode()
    send_smtp(j.env["MAILTEST_HOST"], int(j.env["MAILTEST_SMTP_PORT"]), frm, j.address, raw,
              mail_from="bounces@players.test")
    j.expected += 1


# ------------------------------------------------------------------ one mailbox
PUNY = "bob@xn--bcher-kva.example"


def test_an_idn_domain_and_its_punycode_are_one_mailbox(judge):
    """``bob@xn--bcher-kva.example``, ``bob@bücher.example`` and ``bob@BÜCHER.example`` are
    one host's one mailbox: a forged sign-on from each spelling asked it once (SQLite's
    NOCASE folds ASCII only, so each spelling had its own one-request-a-day), and the code
    answered from any spelling confirms them all, seated at the one address mailed."""
    for g in ("idn1", "idn2", "idn3"):
        open_game(judge, g)
    judge.send(PUNY, "JOIN idn1 Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), PUNY)
    send_utf8(judge, "bob@bücher.example", "JOIN idn2 France pw-france")
    send_utf8(judge, "Bob <bob@BÜCHER.Example>", "JOIN idn3 Russia pw-russia")
    assert judge.pump() == []  # they wait with the first: one request a day to the mailbox
    send_utf8(judge, "bob@Bücher.example", f"CONFIRM {confirm_code(asked)}")
    [done] = judge.pump()
    assert done.rcpt == PUNY  # the spelling recorded is the one every server delivers
    assert "You have joined game idn1 as Italy" in done.flat, done.body
    assert "You have joined game idn3 as Russia" in done.flat, done.body
    assert [seats(judge, g) for g in ("idn1", "idn2", "idn3")] == [
        {"ITALY": PUNY}, {"FRANCE": PUNY}, {"RUSSIA": PUNY}]


# ------------------------------------------------------------------ a word quoted back
def test_a_word_the_judge_does_not_know_is_quoted_back_cut_short(judge):
    """``LIST <50 KB name>`` quoted the name whole in its error (the line itself is quoted
    cut to 200 characters): a forged mail made the judge mail a victim up to reply_max_bytes
    of the attacker's text. Every error quotes a user's word cut to 40 characters."""
    judge.send("gm.cut1@players.test", "CREATE cut1 gm-cut1\nOPEN")
    judge.pump()
    huge = "Z" + "q" * 50_000
    judge.send("w@players.test", f"LIST {huge}\nOBSERVE cut1x{huge}\nLIST cut1 {huge}\n"
               f"MASTER cut1 gm-cut1\nSET ZONE {huge}\nSET DEADLINE {huge}")
    [reply] = to(judge.pump(), "w@players.test")
    longest = max(len(m) for m in re.findall(r"Zq+|q{20,}", reply.body))
    assert longest <= 200, longest  # the quoted lines, at most
    assert len(reply.body) < 4000, reply.body[:3000]


# ------------------------------------------------------------------ answering a request
NEWBIE = "newbie@elsewhere.test"


def test_a_reply_saying_no_declines_and_an_unclear_one_is_told_how(judge):
    """Any reply to a confirmation request confirmed it, "No, I never asked for this" too:
    the person who did not ask was signed up. Now its first line decides: YES (or nothing)
    confirms, NO drops the request, anything else is told how to confirm."""
    for g in ("yn1", "yn2"):
        open_game(judge, g)
    judge.send(NEWBIE, "OBSERVE yn1", subject="watch")
    [asked] = to(judge.pump(), NEWBIE)
    assert "reply YES to this mail" in asked.flat and "reply NO" in asked.flat, asked.body
    judge.send(NEWBIE, "No, I never asked for this.\n\n> " + asked.body.splitlines()[0],
               subject="Re: watch", In_Reply_To=asked["Message-ID"])
    [declined] = to(judge.pump(), NEWBIE)
    assert "Declined: nothing was done" in declined.flat, declined.body
    assert not judge.store.all("SELECT * FROM observers")
    judge.send(NEWBIE, f"CONFIRM {confirm_code(asked)}")  # the request is gone
    [late] = to(judge.pump(), NEWBIE)
    assert "is not a confirmation code" in late.flat and not judge.store.all(
        "SELECT * FROM observers")

    judge.send(NEWBIE, "JOIN yn2 Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, "what is this about?", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [unclear] = to(judge.pump(), NEWBIE)
    assert "Not confirmed" in unclear.flat and "reply YES" in unclear.flat, unclear.body
    assert seats(judge, "yn2") == {}
    judge.send(NEWBIE, "Yes, that was me.", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), NEWBIE)
    assert "You have joined game yn2 as Italy" in done.flat, done.body
    assert seats(judge, "yn2") == {"ITALY": NEWBIE}


def test_a_request_folded_into_a_digest_is_confirmed_by_replying_to_the_digest(
        judge_mailbox, smtp_sink, tmp_path):
    """The per-address mail ceiling folds the reply carrying a confirmation request into a
    digest: that reply never went out, so nothing could answer it, and only CONFIRM <code>
    worked. The digest carries the request: replying YES to it confirms."""
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False,
                  mail_per_hour=2)
    try:
        open_game(j, "dg1")
        for k in range(2):  # the two mails of the hour
            j.send(NEWBIE, "HELP", subject=f"help {k}")
            assert len(to(j.pump(), NEWBIE)) == 1
        j.send(NEWBIE, "JOIN dg1 Italy pw-italy", subject="join")
        assert to(j.pump(), NEWBIE) == []  # held for the digest
        [digest] = [m for _, m in j.advance(j.clock() + timedelta(minutes=11))
                    if m.rcpt == NEWBIE]
        assert digest.subject.startswith("[DIGEST]") and "CONFIRM" in digest.flat
        j.advance(j.clock() + timedelta(hours=1))  # the ceiling's hour is over
        j.send(NEWBIE, "yes", subject="Re: digest", In_Reply_To=digest["Message-ID"])
        [done] = to(j.pump(), NEWBIE)
        assert "You have joined game dg1 as Italy" in done.flat, done.body
        assert seats(j, "dg1") == {"ITALY": NEWBIE}
    finally:
        j.close()


# ------------------------------------------------------------------ binary attachments
def wide_forms(secret: str) -> set[bytes]:
    """The password as UTF-16 (either order) and UTF-32, as written and in base64 at each
    of the 3 alignments (what test_mail_masking.password_forms does for UTF-8)."""
    forms: set[bytes] = set()
    for charset in ("utf-16-le", "utf-16-be", "utf-32-le"):
        data = secret.encode(charset)
        forms.add(data)
        for k in range(3):
            coded = base64.b64encode(b"\0" * k + data)
            forms.add(coded[-(-8 * k // 6):8 * (k + len(data)) // 6])
    return forms


def attached(name: str, ctype: str, data: bytes) -> MIMEBase:
    part = MIMEBase(*ctype.split("/"))
    part.set_payload(data)
    encoders.encode_base64(part)
    part.add_header("Content-Disposition", "attachment", filename=name)
    return part


def test_no_password_is_left_in_an_attachment_the_judge_cannot_read(tmp_path):
    """A password in a part the judge does not read as text (a zip, UTF-16 sent as
    application/octet-stream or as text/plain with no charset) was kept in the stored mail
    for good: the masking looks for the password's bytes, and a zip or UTF-16 does not hold
    them. Such a part is not kept at all; after the judge acted and was killed, no byte of
    any file holds any of the passwords in any form."""
    port = free_port()
    cfg = write_config(tmp_path, f'[intake]\nmode = "smtp"\nlisten = "127.0.0.1:{port}"\n')
    judge = JudgeProcess(cfg, tmp_path).start()
    tag = unique("")
    gm, game = "gm@players.test", unique("g")
    pw = {"ENGLAND": f"zip{tag}x", "FRANCE": f"wide{tag}x", "ITALY": f"bare{tag}x",
          "GERMANY": f"only{tag}x"}
    mails = [compose(gm, "judge@localhost", f"CREATE {game} gm-{tag}\nOPEN", subject="new")]
    for power, (name, ctype, data) in {
        "ENGLAND": ("orders.zip", "application/zip", None),
        "FRANCE": ("orders.txt", "application/octet-stream", "utf-16"),
        "ITALY": ("orders.txt", "text/plain", "utf-16-le"),
    }.items():
        line = f"SIGNON {power} {game} {pw[power]}"
        if data is None:
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
                z.writestr("orders.txt", line + "\n")
            payload = buffer.getvalue()
        else:
            payload = (line + "\n").encode(data)
        outer = MIMEMultipart()
        outer.attach(MIMEText(line, "plain", "us-ascii"))
        outer.attach(attached(name, ctype, payload))
        mails.append(mime(f"{power[0].lower()}@players.test", "judge@localhost", power, outer))
    # a mail whose password is only in an attachment: the judge never read it at all
    line = f"SIGNON GERMANY {game} {pw['GERMANY']}"
    outer = MIMEMultipart()
    outer.attach(MIMEText("HELP", "plain", "us-ascii"))
    outer.attach(attached("notes.bin", "application/octet-stream", line.encode("utf-16")))
    mails.append(mime("g@players.test", "judge@localhost", "help", outer))
    db = tmp_path / "judge.db"
    try:
        judge.wait_log("SMTP receiver listening")
        confirmed(db, gm, *[f"{p[0].lower()}@players.test" for p in pw])
        for raw in mails:
            send_smtp("127.0.0.1", port, "sender@players.test", "judge@localhost", raw)
        signed = all_acted(db, len(mails), judge)
        with contextlib.closing(sqlite3.connect(db, timeout=10)) as con:
            kept = [bytes(r[0]) for r in con.execute("SELECT raw FROM inbox")]
        assert signed == 3  # the body's sign-ons were read and used
        # what was not kept is named, with its type and size
        assert sum(b"(application/zip, " in raw for raw in kept) == 1, kept
        time.sleep(1.0)  # the sender's last steps
    finally:
        judge.stop(signal.SIGKILL)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p != cfg]
    found = []
    for secret in pw.values():
        forms = password_forms(secret) | wide_forms(secret)
        for path in files:
            data = path.read_bytes()
            joined = data.replace(b"\r", b"").replace(b"\n", b"")  # base64 across lines
            found += [(secret, form, path.name) for form in forms
                      if form in data or form in joined]
    assert found == []
