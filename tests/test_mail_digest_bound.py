"""What the ceiling on all mail to one address still let through (found by the review of
issue 23): a digest larger than ``reply_max_bytes`` (its texts are measured in UTF-8 bytes,
not as sent, where quoted-printable writes a Cyrillic letter in 6 bytes; the subjects of
the rest are listed whatever their size), and one master mail that makes the judge build
thousands of mails it can only hold (998 PROCESS lines held the worker, and a stranger's
HELP, 16-28 s under ``judge serve``; bench/hostile_mail.py). Through the real storage, reading,
acting and (Maildir) sender in-process, on the outbox's clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from mailkit import GM, InProcessJudge, addr, new_game


def later(judge: InProcessJudge, minutes: int) -> None:
    now = judge.actor.outbox.clock()
    judge.actor.outbox.clock = lambda: now + timedelta(minutes=minutes)


@pytest.mark.parametrize("pool", [False, True], ids=["at once", "by the pool"])
@pytest.mark.parametrize("held", ["press", "notices"])
def test_a_digest_fits_in_reply_max_bytes(tmp_path, held, pool):
    """``judge serve`` renders game mail, a digest too, in its pool: bounded there too."""
    from test_pictures_deferred import paint

    limit = 20_000 if held == "press" else 4_000
    judge = InProcessJudge(tmp_path, mail_per_hour=1, reply_max_bytes=limit)
    new_game(judge, "dg")
    judge.actor.outbox.defer_render = pool
    if held == "press":
        judge.send(GM, "MASTER dg masterpw\nSET PRESS WHITE")
        text = "Привет мир " * 40
        for i in range(10):
            judge.send(addr("FRANCE"), f"SIGNON FRANCE dg pw-france\nPRESS TO ALL\n{text}\n"
                       f"{text}\nENDPRESS", subject=f"p{i}")
    else:
        for _ in range(30):  # ten a mail at most ([limits] master_actions_per_mail)
            judge.send(GM, "MASTER dg masterpw\n" + "PAUSE\nRESUME\n" * 5)
    if pool:
        paint(judge)
    later(judge, 11)
    sent = judge.run()
    if pool:
        paint(judge)
        sent += judge.run()
    [digest] = [m for m in sent if m.rcpt == addr("ENGLAND")]
    assert digest.subject.startswith("[DIGEST]")
    assert len(digest.raw) <= limit + 100  # the Maildir adds Return-Path and Delivered-To


def test_one_master_mail_builds_no_more_mail_than_the_ceiling_lets_out(tmp_path):
    judge = InProcessJudge(tmp_path)
    new_game(judge, "pf")
    before = judge.store.one("SELECT count(*) AS n FROM outbox")["n"]
    out = judge.send(GM, "MASTER pf masterpw\n" + "PROCESS\n" * 200)
    built = judge.store.one("SELECT count(*) AS n FROM outbox")["n"] - before
    addresses = 8  # seven players and the master
    assert built <= addresses * judge.cfg.mail_per_hour, built
    # the rest refused in the reply, saying why ([limits] master_actions_per_mail, 10)
    [reply] = [m for m in out if m.rcpt == GM and "Re:" in m.subject]
    assert reply.body.count("Processed ") == 10, reply.body[:2000]
    assert "master_actions_per_mail); this one and the later ones were not done" in \
        reply.flat, reply.body[-2000:]
