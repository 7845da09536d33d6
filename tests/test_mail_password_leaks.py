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


def test_a_mail_refused_for_its_size_keeps_no_password(judge):
    secret = "Oversized7Pw"
    sent = judge.deliver(mail(with_attachment(f"SIGNON FRANCE g1 {secret}",
                                              octets(b"x" * 60_000, filename="map.png"))))
    assert sent and sent[0].subject.startswith("[ERROR]")  # refused, unread
    assert on_disk(judge, secret) == []
    kept = judge.store.all("SELECT raw FROM inbox ORDER BY id DESC LIMIT 1")[0]["raw"]
    assert b"Subject: orders" in kept and b"was not kept" in kept and len(kept) < 2000


def test_a_mail_refused_for_its_size_with_a_password_in_its_subject_keeps_none(judge):
    secret = "SubjOver8Pw"
    big = MIMEText("x" * 60_000, "plain", "utf-8")
    sent = judge.deliver(mail(big).replace(b"Subject: orders",
                                           f"Subject: SIGNON FRANCE g1 {secret}".encode()))
    assert [m.subject for m in sent] == ["[ERROR] Re: SIGNON FRANCE g1 ****"]
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


def test_a_password_in_the_message_id_leaves_no_copy(judge):
    secret = "MsgId5Pw"
    sent = judge.deliver(mail(MIMEText(f"SIGNON FRANCE g1 {secret}\n", "plain", "utf-8"),
                              Message_ID=f"<{secret}@players.test>",
                              References=f"<{secret}@players.test>"))
    assert any("as France" in m.flat for m in sent)
    assert [m.rcpt for m in sent if secret.encode() in m.raw] == []
    assert on_disk(judge, secret) == []
    reply = next(m for m in sent if m.rcpt == PLAYER)
    assert reply["In-Reply-To"] == "" and reply["References"] == ""  # unthreaded


def test_a_sign_on_after_an_unclosed_press_block_is_not_sent_as_press(judge):
    secret = "OtherGame3Pw"
    sent = judge.send(PLAYER, "SIGNON FRANCE g1 pw-france\nPRESS TO ENGLAND\nhello there\n"
                      f"SIGNON FRANCE g2 {secret}\nA PAR H\n")
    assert [m.rcpt for m in sent if secret.encode() in m.raw] == []
    # the press up to the SIGNON went out; the SIGNON was read as a command, and said so
    assert any("hello there" in m.flat for m in sent if m.rcpt == "england@players.test")
    reply = next(m for m in sent if m.rcpt == PLAYER)
    assert "This press had no ENDPRESS before the line 'SIGNON FRANCE g2 ****'" in reply.flat
    assert "> SIGNON FRANCE g2 ****" in reply.body
    assert on_disk(judge, secret) == []


def test_prose_that_does_not_read_as_a_password_command_stays_press(judge):
    sent = judge.send(PLAYER, "SIGNON FRANCE g1 pw-france\nPRESS TO ENGLAND\n"
                      "Join me in attacking Germany\nA PAR H\n")
    press = [m for m in sent if m.rcpt == "england@players.test"]
    assert press and "Join me in attacking Germany" in press[0].flat
    assert "A PAR H" in press[0].flat  # no ENDPRESS: the press runs to the end of the mail
    assert "no ENDPRESS" not in next(m for m in sent if m.rcpt == PLAYER).flat


@pytest.mark.parametrize("line", ["JOIN g1 {} FRANCE", "SIGNON FRANCE {} g1", "MASTER {} g1",
                                  "TAKEOVER FRANCE {} g1"])
def test_a_password_in_the_wrong_place_is_not_kept(judge, line):
    secret = f"Misplaced{line[:2]}4Pw"
    sent = judge.send(PLAYER, line.format(secret))
    assert sent and sent[0].subject.startswith("[ERROR]")
    assert [m.rcpt for m in sent if secret.encode() in m.raw] == []
    command = line.split()[0]
    assert f"> {command} ****" in sent[0].body  # every word after the command word hidden
    assert f"the words after {command} are not shown" in sent[0].flat
    audit = judge.store.all("SELECT command, outcome FROM audit WHERE command LIKE ? OR "
                            "outcome LIKE ?", (f"%{secret}%", f"%{secret}%"))
    assert (audit, on_disk(judge, secret)) == ([], [])
