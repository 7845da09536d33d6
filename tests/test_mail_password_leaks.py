"""Places a password still stayed on disk or reached another player after issue 23 item 3
(found by the review of issue 23): a mail refused unread for its size, an attachment that
is no text part (a player's orders file sent as application/octet-stream), an attachment's
name in RFC 2231 percent-encoding, the mail's own Message-ID and References (copied into the
reply's headers), and a password command inside a press block that was never closed (sent
to the press's readers as its text). Through the real storage, reading, acting and
(Maildir) sender in-process; the database files are searched for every form of the password
(tests/test_mail_masking.py)."""

from __future__ import annotations

import base64
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

import pytest
from mailkit import InProcessJudge
from test_mail_masking import password_forms

GM = "gm@players.test"
PLAYER = "p@players.test"


@pytest.fixture
def judge(tmp_path):
    judge = InProcessJudge(tmp_path, max_message_bytes=50_000)
    judge.send(GM, "CREATE g1 masterpw1\nOPEN\nSET PRESS WHITE")
    judge.send(GM, "CREATE g2 masterpw2\nOPEN")
    judge.send("england@players.test", "SIGNON ENGLAND g1 pw-england")
    return judge


def percent(text: str) -> str:
    """RFC 2231's percent-encoding of every byte (a parameter such as a file name)."""
    return "".join(f"%{b:02X}" for b in text.encode())


def on_disk(judge: InProcessJudge, secret: str) -> list[bytes]:
    """The forms of ``secret`` (and its RFC 2231 form) in any of the judge's database
    files."""
    data = b"".join(f.read_bytes() for f in Path(judge.cfg.base_dir).iterdir()
                    if f.is_file() and f.name.startswith("judge"))
    forms = password_forms(secret) | {percent(secret).encode()}
    return [f for f in forms if f in data]


def mail(body: MIMEBase, **headers: str) -> bytes:
    body["From"], body["To"], body["Subject"] = PLAYER, "judge@localhost", "orders"
    for name, value in headers.items():
        body[name.replace("_", "-")] = value
    return body.as_bytes()


def with_attachment(line: str, attachment: MIMEBase) -> MIMEMultipart:
    whole = MIMEMultipart()
    whole.attach(MIMEText(line + "\n", "plain", "utf-8"))
    whole.attach(attachment)
    return whole


def octets(data: bytes, **disposition: str) -> MIMEBase:
    part = MIMEBase("application", "octet-stream")
    part.set_payload(base64.b64encode(data).decode("ascii"))
    part["Content-Transfer-Encoding"] = "base64"
    if disposition:
        part.add_header("Content-Disposition", "attachment", **disposition)
    return part


@pytest.mark.xfail(strict=True, reason="found by review: a mail refused unread for its size "
                   "is kept whole (test_reply_tokens.py asserts 'the rest kept as it came'), "
                   "a password in it in clear for good")
def test_a_mail_refused_for_its_size_keeps_no_password(judge):
    secret = "Oversized7Pw"
    sent = judge.deliver(mail(with_attachment(f"SIGNON FRANCE g1 {secret}",
                                              octets(b"x" * 60_000, filename="map.png"))))
    assert sent and sent[0].subject.startswith("[ERROR]")  # refused, unread
    assert on_disk(judge, secret) == []


@pytest.mark.parametrize("attachment", ["orders file", "file name"])
def test_a_password_in_an_attachment_leaves_the_stored_mail(judge, attachment):
    secret = f"Attach{attachment[:4]}9Pw"
    line = f"SIGNON FRANCE g1 {secret}"
    if attachment == "orders file":
        part = octets(f"{line}\nA PAR H\n".encode(), filename="orders.txt")
    else:
        part = octets(b"zz")
        part["Content-Disposition"] = f"attachment; filename*=utf-8''{percent(secret)}.txt"
    sent = judge.deliver(mail(with_attachment(line, part)))
    assert any("as France" in m.flat for m in sent), [m.body for m in sent]
    judge.store.execute("DELETE FROM players WHERE power = 'FRANCE'")
    assert on_disk(judge, secret) == []


@pytest.mark.xfail(strict=True, reason="found by review: a password in the mail's Message-ID "
                   "or References is copied into the reply's In-Reply-To/References and "
                   "kept in the inbox and outbox")
def test_a_password_in_the_message_id_leaves_no_copy(judge):
    secret = "MsgId5Pw"
    sent = judge.deliver(mail(MIMEText(f"SIGNON FRANCE g1 {secret}\n", "plain", "utf-8"),
                              Message_ID=f"<{secret}@players.test>",
                              References=f"<{secret}@players.test>"))
    assert any("as France" in m.flat for m in sent)
    assert [m.rcpt for m in sent if secret.encode() in m.raw] == []
    assert on_disk(judge, secret) == []


@pytest.mark.xfail(strict=True, reason="found by review: a press block never closed takes the "
                   "password line after it as press text: another game's password is mailed "
                   "to the press's readers and kept in the press table")
def test_a_sign_on_after_an_unclosed_press_block_is_not_sent_as_press(judge):
    secret = "OtherGame3Pw"
    sent = judge.send(PLAYER, "SIGNON FRANCE g1 pw-france\nPRESS TO ENGLAND\nhello there\n"
                      f"SIGNON FRANCE g2 {secret}\nA PAR H\n")
    assert [m.rcpt for m in sent if secret.encode() in m.raw] == []
    assert on_disk(judge, secret) == []


@pytest.mark.xfail(strict=True, reason="found by review: a password written in the wrong place "
                   "of a line that parses (JOIN g1 <pw> FRANCE) is masked at the wrong word; "
                   "the error quotes the password ('<pw>' is not a power) and the stored mail "
                   "and the audit log keep it")
@pytest.mark.parametrize("line", ["JOIN g1 {} FRANCE", "SIGNON FRANCE {} g1", "MASTER {} g1",
                                  "TAKEOVER FRANCE {} g1"])
def test_a_password_in_the_wrong_place_is_not_kept(judge, line):
    secret = f"Misplaced{line[:2]}4Pw"
    sent = judge.send(PLAYER, line.format(secret))
    assert sent and sent[0].subject.startswith("[ERROR]")
    audit = judge.store.all("SELECT command, outcome FROM audit WHERE command LIKE ? OR "
                            "outcome LIKE ?", (f"%{secret}%", f"%{secret}%"))
    assert (audit, on_disk(judge, secret)) == ([], [])
