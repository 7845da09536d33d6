"""``reply_max_bytes`` bounds the bytes sent (issue 23, item 4): the message as serialized,
headers, quoted-printable or base64 text and attached pictures, never more. The text used to
be cut before it was encoded: Cyrillic BROADCASTs and ``HISTORY g`` (400 times then) made a
448,642-byte mail for 199,802 bytes of text. Through the real storage, acting and (Maildir)
sender in-process: the size asserted is that of the file the sender wrote."""

from __future__ import annotations

import pytest
from mailkit import InProcessJudge, addr, new_game, only_reply

CYRILLIC = "Россия предлагает мир и дружбу всем державам Европы. "
EMOJI = "🎲🗺️⚔️🤝🕊️ "


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    judge = InProcessJudge(tmp_path_factory.mktemp("size"))
    new_game(judge, "g")
    return judge


def ask(judge, limit: int, body: str, subject: str) -> bytes:
    judge.cfg.reply_max_bytes = limit
    reply = only_reply(judge.send(addr("RUSSIA"), "SIGNON RUSSIA g pw-russia\n" + body,
                                  subject=subject), addr("RUSSIA"))
    # what the judge sent: the Maildir file without the envelope lines delivery adds
    head = b"Return-Path: <judge@localhost>\r\nDelivered-To: russia@players.test\r\n"
    assert reply.raw.startswith(head)
    sent = reply.raw[len(head):]
    assert len(sent) <= limit, (limit, len(sent))
    assert "This reply was cut" in reply.flat or "left out to keep this reply" in reply.flat
    assert reply.body.rstrip().endswith("Send HELP for the commands.")  # signature kept
    return sent


def press(judge, text: str) -> None:
    judge.send(addr("RUSSIA"), f"SIGNON RUSSIA g pw-russia\nBROADCAST\n{text}\nENDPRESS")


@pytest.mark.parametrize("limit", [4000, 20_000, 200_000])
def test_cyrillic_press_in_history_stays_under_the_limit_as_sent(judge, limit):
    for _ in range(1 + limit // 40_000):  # each about 48 KB quoted-printable
        press(judge, "\n".join(CYRILLIC * 3 for _ in range(100))[:9_000])  # 17 KB of UTF-8
    raw = ask(judge, limit, "HISTORY g\n", "cyrillic")
    assert b"quoted-printable" in raw


@pytest.mark.parametrize("limit", [4000, 50_000])
def test_emoji_press_stays_under_the_limit_as_sent(judge, limit):
    press(judge, "\n".join(EMOJI * 10 for _ in range(100))[:5_000])
    ask(judge, limit, "HISTORY g\n", "emoji")


@pytest.mark.parametrize("limit", [4000, 30_000])
def test_long_lines_stay_under_the_limit_as_sent(judge, limit):
    """Lines over 900 characters: quoted-printable with a soft break every 76."""
    press(judge, "x=" * 9000)  # '=' is written '=3D'
    ask(judge, limit, "HISTORY g\n", "long lines")


def test_a_picture_that_does_not_fit_is_left_out_as_sent(judge):
    """Twelve MAP lines draw one picture (each distinct picture once); under a limit that
    leaves it no room once encoded, it is left out and the reply says so."""
    raw = ask(judge, 60_000, "HISTORY g\n" * 40 + "MAP g\n" * 12, "maps")
    assert raw.count(b"Content-Type: image/png") <= 1
