"""The short cuts in building a message (issue 15) give the same bytes as the email
package's own way: header folding, and the base64 of attached pictures."""

from __future__ import annotations

import base64
import email
import random
from email.policy import compat32

from judge.mail import compose
from judge.mail.compose import Attachment, build_message

COMPAT32 = compat32.clone(linesep="\r\n", max_line_length=78)
VALUES = ["judge@example.org", "g1 - S1901M results", "a  b   c", " lead", "trail ",
          "x" * 70, "x" * 73, "x" * 74, "=?utf-8?q?caf=C3=A9?=", "tab\there", "caf\u00e9",
          "<list.g1.example.org>", "two words " * 12, "JR-0123456789", "auto-generated"]


def test_fast_header_folding_gives_what_compat32_gives() -> None:
    rng = random.Random(5)
    names = ["Subject", "To", "From", "List-Id", "X-Judge-Mark", "References"]
    values = VALUES + ["".join(rng.choice("ab =?\t,;<>@") for _ in range(rng.randint(0, 90)))
                       for _ in range(300)]
    for name in names:
        for value in values:
            assert compose._SMTP32.fold_binary(name, value) == \
                COMPAT32.fold_binary(name, value), (name, value)


def test_attached_picture_is_the_same_base64_as_the_email_package_writes() -> None:
    data = bytes(random.Random(7).randrange(256) for _ in range(52_000))
    raw, _ = build_message(from_addr="judge@example.org", from_name="Judge",
                           to="p@example.org", subject="g1 - S1901M results",
                           body="text\n", domain="example.org",
                           attachments=[Attachment("S1901M.png", "image/png", data),
                                        Attachment("x.png", "image/png", b"small")])
    assert b"judgefile" not in raw
    msg = email.message_from_bytes(raw)
    parts = [p for p in msg.walk() if p.get_filename()]
    assert [p.get_payload(decode=True) for p in parts] == [data, b"small"]
    encoded = parts[0].get_payload()
    assert encoded == base64.encodebytes(data).decode("ascii").replace("\n", "\r\n")
    assert all(len(line) <= 76 for line in raw.split(b"\r\n"))
