"""Whom the judge answers (issue 23, item 1): the author is the single angle-addr of From;
a display name is never an address, whatever it holds. A DMARC validator, a mail client and
a person all read ``victim@example.com <attacker@attacker.test>`` as written by the
attacker; the standard library's first mailbox is the victim. These drive the real storage,
reading, acting and (Maildir) sender in-process; tests/test_e2e_intake_security.py sends one
through the real servers."""

from __future__ import annotations

import pytest
from mailkit import InProcessJudge, compose

VICTIM = "victim@example.com"
ATTACKER = "attacker@attacker.test"


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


def with_from(value: str, n: int) -> bytes:
    raw = compose("placeholder@players.test", "judge@localhost", "HELP",
                  message_id=f"<author{n}@players.test>")
    return raw.replace(b"From: placeholder@players.test", b"From: " + value.encode())


@pytest.mark.parametrize("value", [
    f"{VICTIM} <{ATTACKER}>",
    f"Support:{VICTIM}; <{ATTACKER}>",
    f"=?utf-8?q?victim=40example.com?= <{ATTACKER}>",
    f'"{VICTIM}" <{ATTACKER}>',
    f"({VICTIM}) <{ATTACKER}>",
    f"{VICTIM} , <{ATTACKER}>",
])
def test_an_address_in_the_display_name_is_never_answered(judge, value):
    sent = judge.deliver(with_from(value, 1))
    assert [m.rcpt for m in sent] == [ATTACKER]
    assert "SIGNON <power> <game> <password>" in sent[0].flat


def test_an_unquoted_at_in_the_display_name_is_no_address(judge):
    sent = judge.deliver(with_from("Bob@home <bob@x.test>", 2))
    assert [m.rcpt for m in sent] == ["bob@x.test"]


@pytest.mark.parametrize("value", [
    f"<{VICTIM}> <{ATTACKER}>",  # two angle-addrs: which one wrote?
    f"{VICTIM}, {ATTACKER}",  # two mailboxes
    f'"open quote <{VICTIM}>',  # a quote never closed
    f"Team: {VICTIM};",  # a group holds no author
])
def test_a_from_with_no_single_mailbox_counts_as_none(judge, value):
    """Answered at the envelope sender, or not at all without one."""
    assert judge.deliver(with_from(value, 3)) == []
    sent = judge.deliver(with_from(value, 4), mail_from="envelope@players.test")
    assert [m.rcpt for m in sent] == ["envelope@players.test"]


def test_two_from_headers_count_as_none(judge):
    raw = with_from(f"<{ATTACKER}>", 5).replace(b"\nTo:", f"\nFrom: {VICTIM}\nTo:".encode())
    assert judge.deliver(raw) == []


def test_ordinary_froms_are_answered_as_before(judge):
    for n, (value, rcpt) in enumerate([("alice@players.test", "alice@players.test"),
                                       ("Alice Smith <alice@players.test>", "alice@players.test"),
                                       ('"Smith, Alice" <alice@players.test>',
                                        "alice@players.test"),
                                       ("alice@players.test (Alice)", "alice@players.test"),
                                       ("Zoë <zoe@players.test>", "zoe@players.test")]):
        sent = judge.deliver(with_from(value, 10 + n))
        assert [m.rcpt for m in sent] == [rcpt], value
