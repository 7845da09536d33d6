"""A judge on a public address, attacked the way a hostile sender would (issue 13): forged
Reply-To and From, auto-responders that paste the judge's reply back, oversized loops, deep
MIME nesting, poisoned headers and reused Message-IDs. The policy is docs/operating.md,
"Security"; these drive the real storage, reading, acting and (Maildir) sender in-process.
"""

from __future__ import annotations

import re

import pytest
from mailkit import POWERS, InProcessJudge, compose

ATTACKER = "mallory@evil.test"
VICTIM = "victim@innocent.test"
GM = "gm@players.test"


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


def to(sent, address):
    return [m for m in sent if m.rcpt.lower() == address.lower()]


def header_lines(raw: bytes) -> list[bytes]:
    return raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")


def new_game(judge, name="g1", start=False):
    judge.send(GM, f"CREATE {name} masterpw\nOPEN")
    for p in POWERS:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} {name} pw-{p.lower()}")
    if start:
        judge.send(GM, f"MASTER {name} masterpw\nSTART")


def observers(judge) -> list[str]:
    return [r["address"] for r in judge.store.all("SELECT address FROM observers")]


# ------------------------------------------------------------------ forged Reply-To
def test_forged_reply_to_never_reaches_the_victim_and_spam_is_not_echoed(tmp_path):
    judge = InProcessJudge(tmp_path, replies_per_hour=40)
    spam = [f"BUY CHEAP PILLS AT http://spam.test/{i} NOW" for i in range(200)]
    got = []
    for i in range(50):
        got += judge.deliver(compose(ATTACKER, judge.cfg.address, "HELP\n" + "\n".join(spam),
                                     subject=f"help {i}", Reply_To=VICTIM))
    assert to(got, VICTIM) == []
    replies = to(got, ATTACKER)
    limit = judge.cfg.replies_per_hour
    # the ceiling: 40 answers, then one notice, then nothing for the rest of the hour
    assert len(replies) == limit + 1
    assert replies[-1].subject.startswith("[LIMIT]")
    assert "will not answer mail from this address again" in replies[-1].flat
    first = replies[0]
    quoted = [line for line in first.body.splitlines() if line.startswith("> BUY CHEAP")]
    assert len(quoted) == judge.cfg.reply_quote_lines - 1  # the HELP line is quoted first
    shown = judge.cfg.reply_quote_lines - 1
    assert f"{len(spam) - shown} more lines of your mail could not be used" in first.flat
    assert "spam.test/199" not in first.body
    assert len(first.raw) < 40_000  # the 12 KB mail is not echoed back whole


def test_forged_from_gets_no_reply_to_the_reply_to_either(judge):
    """With From forged, the only reply goes to the forged From (an SPF/DMARC check in the
    MTA is what stops that, docs/operating.md); Reply-To is still never used."""
    sent = judge.deliver(compose(VICTIM, judge.cfg.address, "HELP", Reply_To=ATTACKER))
    assert [m.rcpt for m in sent] == [VICTIM]


# ------------------------------------------------------------------ OBSERVE opt-in
def test_observe_with_forged_reply_to_subscribes_nobody(judge):
    new_game(judge)
    sent = judge.deliver(compose(ATTACKER, judge.cfg.address, "OBSERVE g1", Reply_To=VICTIM))
    assert to(sent, VICTIM) == []
    [request] = to(sent, ATTACKER)  # the confirmation request goes to the real sender
    assert "CONFIRM" in request.body and "Nothing is sent to this address" in request.flat
    assert observers(judge) == []
    got = judge.send(GM, "MASTER g1 masterpw\nSTART")
    assert to(got, "france@players.test")  # the start went out, to the game's readers
    assert to(got, VICTIM) == [] and to(got, ATTACKER) == []


def test_forged_from_observe_costs_the_victim_one_request_and_no_reports(judge):
    new_game(judge)
    first = judge.send(VICTIM, "OBSERVE g1")
    [request] = to(first, VICTIM)
    assert "CONFIRM" in request.body
    again = [m for _ in range(5) for m in judge.send(VICTIM, "OBSERVE g1")]
    assert all("CONFIRM" not in m.body for m in again)  # no new code: one request a day
    assert all("sent to victim@innocent.test less than a day ago" in m.flat for m in again)
    got = judge.send(GM, "MASTER g1 masterpw\nSTART")
    assert to(got, "france@players.test") and to(got, VICTIM) == []
    assert observers(judge) == []


def test_observer_confirms_by_replying_and_every_report_says_how_to_stop(judge):
    new_game(judge)
    watcher = "watcher@players.test"
    [request] = judge.send(watcher, "OBSERVE g1")
    assert observers(judge) == []
    answer = compose(watcher, judge.cfg.address, "yes please\n\n> To receive game g1's ...",
                     subject="Re: " + request.subject, In_Reply_To=request["Message-ID"],
                     References=request["Message-ID"])
    [done] = judge.deliver(answer)
    assert "now observes game g1" in done.flat and "ERROR" not in done.body
    assert observers(judge) == [watcher]

    [started] = to(judge.send(GM, "MASTER g1 masterpw\nSTART"), watcher)
    assert "the game has started" in started.subject
    assert "subject=UNOBSERVE%20g1" in started["List-Unsubscribe"]
    assert "You receive this because you observe game g1" in started.flat
    assert "send UNOBSERVE g1 to judge@localhost" in started.flat
    # what a mail program's unsubscribe button sends: the subject, and a body of its own
    judge.deliver(compose(watcher, judge.cfg.address,
                          "This message was automatically generated by Gmail.",
                          subject="UNOBSERVE g1"))
    assert observers(judge) == []
    got = judge.send(GM, "MASTER g1 masterpw\nPROCESS")
    assert to(got, "france@players.test") and to(got, watcher) == []


def test_confirm_code_works_from_anywhere_once_and_only_within_its_week(judge):
    new_game(judge)
    watcher = "watcher@players.test"
    [request] = judge.send(watcher, "OBSERVE g1")
    code = re.search(r"CONFIRM ([0-9a-f]{16})", request.flat).group(1)
    [bad] = judge.send(watcher, "CONFIRM 0000000000000000")
    assert bad.subject.startswith("[ERROR]") and "not a confirmation code" in bad.flat
    [ok] = judge.send("watcher.phone@players.test", f"CONFIRM {code}")
    assert "watcher@players.test now observes game g1" in ok.flat
    assert observers(judge) == [watcher]
    [used] = judge.send(watcher, f"CONFIRM {code}")
    assert "not a confirmation code" in used.flat


def test_an_auto_submitted_unsubscribe_is_honoured_silently(judge):
    new_game(judge)
    watcher = "watcher@players.test"
    [request] = judge.send(watcher, "OBSERVE g1")
    code = re.search(r"CONFIRM ([0-9a-f]{16})", request.flat).group(1)
    judge.send(watcher, f"CONFIRM {code}")
    assert observers(judge) == [watcher]
    sent = judge.send(watcher, "", subject="UNOBSERVE g1", Auto_Submitted="auto-generated")
    assert sent == [] and observers(judge) == []


# ------------------------------------------------------------------ loops
@pytest.mark.parametrize("copy", ["whole", "without the mark line", "without mark or thread"])
def test_an_inline_copying_responder_is_stopped(tmp_path, copy):
    """A responder that pastes every mail it gets back without ">" (and without RFC 3834
    headers): the judge's mark, its own Message-ID with its own text, or at worst the
    hourly ceiling ends the loop."""
    judge = InProcessJudge(tmp_path, replies_per_hour=6)
    robot = "robot@remote.test"
    got = judge.send(robot, "HELP", subject="hello")
    total = list(got)
    for _ in range(30):
        if not got:
            break
        m = got[0]
        body = m.body
        headers = {"In_Reply_To": m["Message-ID"], "References": m["Message-ID"]}
        if copy != "whole":
            body = "\n".join(x for x in body.splitlines() if "JR-" not in x)
        if copy == "without mark or thread":
            headers = {}
        got = judge.deliver(compose(robot, judge.cfg.address, "Thank you!\n\n" + body,
                                    subject="Re: " + m.subject, **headers))
        total += got
    assert not got, "the loop did not stop"
    if copy == "without mark or thread":
        assert len(total) <= judge.cfg.replies_per_hour + 1
    else:
        assert len(total) == 1  # the first copy back is recognised
        assert judge.inbox_states()[-1] == "ignored"


def test_every_reply_carries_the_mark_in_a_header_and_above_the_signature(judge):
    [reply] = judge.send("alice@players.test", "LIST")
    mark = reply["X-Judge-Mark"]
    assert mark.startswith("JR-")
    before_signature = reply.body.split("\n-- \n")[0]
    assert mark in before_signature


def test_the_judges_own_mail_resent_to_it_is_not_answered(judge):
    [reply] = judge.send("alice@players.test", "LIST")
    resent = b"Resent-From: alice@players.test\r\n" + reply.raw.replace(
        b"To: alice@players.test", b"To: judge@localhost").replace(
        b"From: Diplomacy judge <judge@localhost>", b"From: alice@players.test").replace(
        b"Auto-Submitted: auto-replied\r\n", b"").replace(b"Precedence: auto_reply\r\n", b"")
    assert judge.deliver(resent) == []


def test_an_oversized_loop_is_refused_once(tmp_path):
    judge = InProcessJudge(tmp_path, max_message_bytes=5000, replies_per_hour=3)
    robot = "bigrobot@remote.test"
    big = "STATUS x\n" + "padding line\n" * 600
    [refusal] = judge.send(robot, big, subject="big")
    assert "Nothing in it was acted on" in refusal.flat
    # the responder sends the big mail back as an answer to the refusal: not answered
    back = judge.deliver(compose(robot, judge.cfg.address, big + refusal.body,
                                 subject="Re: " + refusal.subject,
                                 In_Reply_To=refusal["Message-ID"]))
    assert back == []
    # fresh oversized mail is answered up to the ceiling, then one notice, then nothing
    fresh = [m for i in range(8) for m in judge.send(robot, big, subject=f"big {i}")]
    assert len(fresh) == judge.cfg.replies_per_hour - 1 + 1
    assert fresh[-1].subject.startswith("[LIMIT]")


def test_internal_error_apologies_obey_the_ceiling(tmp_path, monkeypatch):
    from judge.games import acting

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(acting.G, "game_summary", boom)
    judge = InProcessJudge(tmp_path, replies_per_hour=3)
    judge.send("alice@players.test", "CREATE crashy secret")
    got = [m for i in range(6) for m in judge.send("alice@players.test", "STATUS crashy",
                                                    subject=f"x{i}")]
    assert len(got) == 3 and judge.inbox_states()[1:] == ["error"] * 6
    assert "Nothing in your mail was carried out" in got[0].flat
    assert got[-1].subject.startswith("[LIMIT]")


def test_a_huge_reply_is_cut_at_the_configured_size(tmp_path):
    judge = InProcessJudge(tmp_path, reply_max_bytes=8_000)
    many = "".join(f"HISTORY g{k}\nLIST g{k}\nHELP\n" for k in range(300))
    [reply] = judge.send("alice@players.test", many)
    assert len(reply.raw) < 8_000 + 4_000  # headers and encoding on top of the cap
    assert "This reply was cut" in reply.flat
    assert reply.body.rstrip().endswith("Send HELP for the commands.")  # signature kept


def test_a_repeated_question_is_answered_once_so_a_forged_mail_is_no_amplifier(tmp_path):
    """A 500-byte mail of HELP x100 in a victim's name got a 200 KB reply (400 times its
    size, to an address that never wrote). A question asked again in one mail is answered
    once; each repeat says so in a line."""
    judge = InProcessJudge(tmp_path, confirm_senders=False)
    [once] = judge.send("victim@elsewhere.test", "HELP")
    [reply] = judge.send("victim2@elsewhere.test", "HELP\n" * 100 + "LIST\n" * 50)
    assert len(reply.raw) < len(once.raw) + 12_000, len(reply.raw)
    assert reply.flat.count("answered above") == 148, reply.flat[-600:]
    assert "[ERROR]" not in reply.subject


# ------------------------------------------------------------------ odd input
def nested(depth: int, body: str) -> bytes:
    s = ("From: alice@players.test\r\nTo: judge@localhost\r\nSubject: deep\r\n"
         "Message-ID: <deep@players.test>\r\nMIME-Version: 1.0\r\n")
    for i in range(depth):
        s += f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n'
    s += f"Content-Type: text/plain; charset=us-ascii\r\n\r\n{body}\r\n"
    for i in reversed(range(depth)):
        s += f"--b{i}--\r\n"
    return s.encode()


def test_a_thousand_nested_multiparts_are_read_and_answered_in_plain_text(judge):
    [reply] = judge.deliver(nested(1000, "LIST"))
    assert "No games yet" in reply.flat
    assert reply.msg.get_content_type() == "text/plain"
    assert judge.inbox_states() == ["done"]


def test_nul_and_control_characters_in_the_subject_are_not_copied(judge):
    raw = (b"From: alice@players.test\r\nTo: judge@localhost\r\nSubject: ord\x00ers\x07 now"
           b"\r\nMessage-ID: <nul@players.test>\r\n\r\nLIST\r\n")
    [reply] = judge.deliver(raw)
    head = reply.raw.split(b"\r\n\r\n", 1)[0]
    assert re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", head) is None
    assert reply.subject == "Re: ord ers now"


def test_long_subject_message_id_and_references_stay_within_rfc_5322(judge):
    long_id = "<" + "m" * 2000 + "@players.test>"
    raw = (f"From: alice@players.test\r\nTo: judge@localhost\r\nSubject: {'S' * 2000}\r\n"
           f"Message-ID: {long_id}\r\n"
           f"References: {' '.join(f'<r{i}@p.test>' for i in range(300))} {long_id}\r\n"
           f"\r\nLIST\r\n").encode()
    [reply] = judge.deliver(raw)
    assert max(len(line) for line in header_lines(reply.raw)) <= 998
    assert len(reply.subject) <= 210 and reply.subject.startswith("Re: SSS")
    assert reply["In-Reply-To"] == ""  # an ID too long to fold is dropped, not cut
    assert reply["References"].split()[-1] == "<r299@p.test>"
    assert "No games yet" in reply.flat


def test_two_different_mails_with_one_message_id_are_both_acted_on(judge):
    a = compose("alice@players.test", "judge@localhost", "STATUS first",
                message_id="<same@players.test>")
    b = compose("alice@players.test", "judge@localhost", "STATUS second",
                message_id="<same@players.test>")
    [ra] = judge.deliver(a)
    [rb] = judge.deliver(b)
    assert "no game called 'first'" in ra.flat and "no game called 'second'" in rb.flat
    assert judge.deliver(a) == [] and judge.deliver(b"Received: from relay2\r\n" + b) == []
    assert judge.inbox_states() == ["done", "done"]


def test_a_legacy_key_still_makes_a_redelivery_a_duplicate(judge):
    raw = compose("alice@players.test", "judge@localhost", "LIST", message_id="<old@p.test>")
    judge.store.store_inbound("<old@p.test>", raw, "test")  # stored before the new keys
    judge.run()
    assert judge.deliver(b"Received: from relay2\r\n" + raw) == []


def test_a_player_resending_the_orders_the_judge_showed_is_still_answered(judge):
    """The copied-text check counts the judge's prose only: order lines as the judge shows
    them are what a player may well send again, in a reply to that very mail."""
    new_game(judge, start=True)
    france = "france@players.test"
    orders = ["A PAR S A MAR - BUR", "A MAR S A PAR - BUR", "F BRE S A PAR - PIC"]
    [first] = [m for m in judge.send(france, "SIGNON FRANCE g1 pw-france\n" + "\n".join(orders))
               if m.rcpt == france]
    shown = [x.strip() for x in first.body.splitlines() if x.strip() in orders]
    assert len(shown) == 3  # the judge showed them as written
    again = "SIGNON FRANCE g1 pw-france\n" + "\n".join(shown) + "\n\nOrders for France " \
            "in game g1, as I meant them:\n" + "\n".join(f"> {x}" for x in first.body.splitlines())
    sent = judge.deliver(compose(france, judge.cfg.address, again, subject="Re: orders",
                                 In_Reply_To=first["Message-ID"]))
    assert [m.rcpt for m in sent] == [france]
    assert "Orders for France in game g1" in sent[0].flat


def test_a_hostile_master_cannot_make_a_stranger_the_games_list(judge):
    """SET LIST names any address: it gets one confirmation request a day, whatever number
    of games name it, and no report until someone there confirms."""
    for name in ("g1", "g2", "g3"):
        sent = judge.send(ATTACKER, f"CREATE {name} masterpw\nSET LIST {VICTIM}\nOPEN")
        assert "confirmation request has been sent" in sent[0].flat or \
            "was asked less than a day ago" in sent[0].flat
        if name == "g1":
            [ask] = to(sent, VICTIM)
            assert "Nothing is sent here unless someone at this address confirms" in ask.flat
        else:
            assert to(sent, VICTIM) == []
    for p in POWERS:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} g1 pw-{p.lower()}")
    got = judge.send(ATTACKER, "MASTER g1 masterpw\nSTART")
    assert to(got, "france@players.test") and to(got, VICTIM) == []
    got = judge.send(ATTACKER, "MASTER g1 masterpw\nPROCESS")
    assert to(got, "france@players.test") and to(got, VICTIM) == []

    # the list's owner confirms; then its reports carry the way out, and UNOBSERVE works
    code = re.search(r"CONFIRM ([0-9a-f]{16})", ask.flat).group(1)
    [ok] = judge.send("owner@innocent.test", f"CONFIRM {code}")
    assert "is now the mailing list of game g1" in ok.flat
    got = judge.send(ATTACKER, "MASTER g1 masterpw\nPROCESS")
    [report] = to(got, VICTIM)
    assert "subject=UNOBSERVE%20g1" in report["List-Unsubscribe"]
    judge.deliver(compose(VICTIM, judge.cfg.address, "", subject="UNOBSERVE g1"))
    got = judge.send(ATTACKER, "MASTER g1 masterpw\nPROCESS")
    assert to(got, "france@players.test") and to(got, VICTIM) == []


def test_replies_resume_an_hour_after_the_final_notice(tmp_path):
    from datetime import timedelta

    from judge.storage import iso, now_utc, parse_iso

    judge = InProcessJudge(tmp_path, replies_per_hour=2)
    got = [m for i in range(4) for m in judge.send("busy@players.test", "LIST",
                                                    subject=f"n{i}")]
    assert [m.subject.startswith("[LIMIT]") for m in got] == [False, False, True]
    assert judge.send("busy@players.test", "LIST") == []
    assert judge.inbox_states()[-1] == "done"  # still carried out, only not answered
    for row in judge.store.all("SELECT id, created FROM outbox"):  # an hour and a bit later
        judge.store.execute("UPDATE outbox SET created = ? WHERE id = ?",
                            (iso(parse_iso(row["created"]) - timedelta(minutes=61)), row["id"]))
    assert parse_iso(judge.store.one("SELECT max(created) AS t FROM outbox")["t"]) < now_utc()
    [again] = judge.send("busy@players.test", "LIST")
    assert "No games yet" in again.flat
