"""The messy mail players really send: each kind gets its own, specific treatment.

These drive the judge's real storage, reading, acting and sender in-process (Maildir out), so
they assert on the replies a player would find in their mailbox.
"""

from __future__ import annotations

import base64
from datetime import timedelta
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
from mailkit import Got, InProcessJudge, compose

ALICE = "alice@players.test"


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


def only_reply(sent: list[Got], to: str = ALICE) -> Got:
    assert len(sent) == 1, sent
    assert sent[0].rcpt == to
    return sent[0]


def test_plain_help_gets_help_threaded_and_marked_auto_replied(judge):
    raw = compose(ALICE, "judge@localhost", "HELP", subject="help please",
                  message_id="<q1@players.test>")
    reply = only_reply(judge.deliver(raw))
    assert "SIGNON <power> <game> <password>" in reply.flat
    assert reply.subject == "Re: help please"
    assert reply["In-Reply-To"] == "<q1@players.test>"
    assert "<q1@players.test>" in reply["References"]
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["Message-ID"].startswith("<") and reply["Date"]
    assert reply["From"].endswith("<judge@localhost>")


def test_html_only_mail_is_read_as_text(judge):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ALICE, "judge@localhost", "html"
    msg.set_content("<html><body><div>STATUS <b>htmlgame</b></div><br><div>&nbsp;</div>"
                    "</body></html>", subtype="html")
    reply = only_reply(judge.deliver(msg.as_bytes()))
    assert "there is no game called 'htmlgame'" in reply.flat


def test_quoted_printable_soft_breaks_are_joined(judge):
    raw = (f"From: {ALICE}\r\nTo: judge@localhost\r\nSubject: qp\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=utf-8\r\n"
           "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
           "STA=\r\nTUS qpg=C3=A4me\r\n").encode()
    reply = only_reply(judge.deliver(raw))
    assert "there is no game called 'qpgäme'" in reply.flat


def test_base64_body_is_decoded(judge):
    body = base64.b64encode(b"STATUS b64game\r\n").decode()
    raw = (f"From: {ALICE}\r\nTo: judge@localhost\r\nSubject: b64\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=us-ascii\r\n"
           f"Content-Transfer-Encoding: base64\r\n\r\n{body}\r\n").encode()
    reply = only_reply(judge.deliver(raw))
    assert "there is no game called 'b64game'" in reply.flat


def test_latin1_mail_is_decoded(judge):
    part = MIMEText("STATUS Müller\n", "plain", "iso-8859-1")
    part["From"], part["To"], part["Subject"] = ALICE, "judge@localhost", "latin"
    assert b"M\xfcller" in part.as_bytes() or b"=FC" in part.as_bytes()
    reply = only_reply(judge.deliver(part.as_bytes()))
    assert "there is no game called 'Müller'" in reply.flat


def test_unknown_charset_does_not_stop_the_judge(judge):
    raw = (f"From: {ALICE}\r\nTo: judge@localhost\r\nSubject: odd\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=x-klingon\r\n\r\nHELP\r\n").encode()
    reply = only_reply(judge.deliver(raw))
    assert "SIGNON <power> <game> <password>" in reply.flat


def test_outlook_reply_ignores_the_quoted_message(judge):
    body = ("LIST\r\n\r\n-----Original Message-----\r\nFrom: Diplomacy judge "
            "<judge@localhost>\r\nSent: Saturday, November 21, 2026 7:00 AM\r\nTo: Alice\r\n"
            "Subject: RE: orders\r\n\r\nSIGNON FRANCE oldgame oldpass\r\nCREATE x y\r\n")
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "No games yet" in reply.flat
    assert "ERROR" not in reply.flat and "oldgame" not in reply.flat
    assert not reply.subject.startswith("[ERROR]")


def test_outlook_from_sent_block_without_separator(judge):
    body = ("LIST\r\n\r\n________________________________\r\nFrom: judge@localhost\r\n"
            "Sent: Saturday\r\n\r\nCREATE x yyyy\r\n")
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "No games yet" in reply.flat and "ERROR" not in reply.flat


def test_gmail_reply_with_wrapped_attribution_and_quotes(judge):
    body = ("LIST\n\nOn Sat, Nov 21, 2026 at 7:00 AM Diplomacy judge <\n"
            "judge@localhost> wrote:\n\n> ERROR: not a command\n> CREATE g1 pass\n")
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "No games yet" in reply.flat and "ERROR" not in reply.flat


def test_inline_quotes_are_ignored(judge):
    body = "> CREATE quoted secret\nLIST\n> more quote\n"
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "No games yet" in reply.flat and "quoted" not in reply.flat


def test_signature_is_dropped(judge):
    body = "LIST\n-- \nAlice Example\nCREATE sig secret\n+44 20 7946 0000\n"
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "No games yet" in reply.flat and "ERROR" not in reply.flat


def test_sent_from_my_phone_footer_is_dropped(judge):
    body = "LIST\n\nSent from my iPhone\n"
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "ERROR" not in reply.flat


@pytest.mark.parametrize("headers", [
    {"Auto_Submitted": "auto-replied"},
    {"Auto_Submitted": "auto-generated"},
    {"Precedence": "bulk"},
    {"Precedence": "junk"},
    {"X_Autoreply": "yes"},
    {"List_Id": "<diplomacy.lists.example>"},
])
def test_out_of_office_and_list_mail_is_never_answered(judge, headers):
    raw = compose(ALICE, "judge@localhost", "I am out of the office until Monday.\nHELP",
                  subject="Out of Office: orders", **headers)
    assert judge.deliver(raw) == []
    assert judge.inbox_states() == ["ignored"]
    audit = judge.store.all("SELECT outcome FROM audit")
    assert audit and audit[0]["outcome"].startswith("not answered")


def test_auto_submitted_no_is_answered(judge):
    raw = compose(ALICE, "judge@localhost", "HELP", Auto_Submitted="no")
    assert len(judge.deliver(raw)) == 1


def _bounce() -> bytes:
    report = MIMEMultipart("report", report_type="delivery-status")
    report["From"] = "Mail Delivery System <MAILER-DAEMON@mx.players.test>"
    report["To"] = "judge@localhost"
    report["Subject"] = "Undelivered Mail Returned to Sender"
    report.attach(MIMEText("This is the mail system. HELP\nI could not deliver your mail."))
    return report.as_bytes()


def test_bounce_by_null_envelope_sender_is_never_answered(judge):
    raw = compose(ALICE, "judge@localhost", "HELP")
    assert judge.deliver(raw, mail_from="") == []
    assert judge.inbox_states() == ["ignored"]


def test_bounce_report_from_mailer_daemon_is_never_answered(judge):
    assert judge.deliver(_bounce()) == []
    assert judge.deliver(compose("MAILER-DAEMON@mx.players.test", "judge@localhost",
                                 "HELP")) == []
    assert judge.inbox_states() == ["ignored", "ignored"]


def test_mail_from_the_judge_itself_is_never_answered(judge):
    assert judge.deliver(compose("judge@localhost", "judge@localhost", "HELP")) == []


def test_five_megabyte_attachment_is_refused_with_a_clear_reply(judge):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ALICE, "judge@localhost", "my map"
    msg["Message-ID"] = "<big@players.test>"
    msg.set_content("CREATE bigmail secret\n")
    msg.add_attachment(b"\x89PNG" + b"\0" * (5 * 1024 * 1024), maintype="image",
                       subtype="png", filename="map.png")
    raw = msg.as_bytes()
    assert len(raw) > 5_000_000
    reply = only_reply(judge.deliver(raw))
    assert reply.subject.startswith("[ERROR]")
    assert f"it is {len(raw)} bytes long" in reply.flat
    assert "Nothing in it was acted on" in reply.flat
    assert reply["In-Reply-To"] == "<big@players.test>"
    assert judge.store.game("bigmail") is None  # the CREATE in it was not acted on
    assert judge.inbox_states() == ["refused"]


def test_duplicate_delivery_is_acted_on_once(judge):
    raw = compose(ALICE, "judge@localhost", "HELP", message_id="<dup@players.test>")
    assert len(judge.deliver(raw)) == 1
    assert judge.deliver(raw) == []
    # same Message-ID, delivered again with other trace headers: still the same message
    assert judge.deliver(b"Received: from relay2\r\n" + raw) == []
    assert judge.store.one("SELECT count(*) AS n FROM inbox")["n"] == 1


def test_mail_without_message_id_is_keyed_by_its_content(judge):
    raw = f"From: {ALICE}\r\nTo: judge@localhost\r\nSubject: x\r\n\r\nHELP\r\n".encode()
    assert len(judge.deliver(raw)) == 1
    assert judge.deliver(raw) == []
    key = judge.store.one("SELECT key FROM inbox")["key"]
    assert key.startswith("sha256:")


def test_empty_mail_gets_a_specific_error(judge):
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", "\n\n")))
    assert reply.subject.startswith("[ERROR]")
    assert "This mail holds no commands" in reply.flat


def test_stray_line_gets_a_specific_error_and_changes_nothing(judge):
    reply = only_reply(judge.send(ALICE, "A PAR - BUR\nLIST"))
    assert reply.subject.startswith("[ERROR]")
    assert "has not signed on to a power" in reply.flat
    assert "No games yet" in reply.flat  # the good command still ran


def test_reply_goes_to_the_author_never_to_reply_to(judge):
    """Anyone can write any Reply-To: the judge answers the From address only
    (docs/operating.md, "Security")."""
    sent = judge.send(ALICE, "HELP", Reply_To="alice.home@players.test")
    assert only_reply(sent, ALICE)


def test_an_internal_error_is_answered_and_changes_nothing(judge, monkeypatch):
    from judge.games import acting

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(acting.G, "game_summary", boom)
    judge.send(ALICE, "CREATE crashy secret")
    sent = judge.send(ALICE, "CREATE other secret\nSTATUS crashy")
    reply = only_reply(sent)
    assert reply.subject.startswith("[ERROR]")
    assert "Nothing in your mail was carried out" in reply.flat
    assert judge.store.game("other") is None  # rolled back with the rest of the mail
    assert judge.inbox_states() == ["done", "error"]


def test_bottom_posted_reply_under_the_quote_is_read(judge):
    body = ("On Sat, Nov 21, 2026 at 7:00 AM Diplomacy judge <judge@localhost> wrote:\n"
            "> Your mail was read and carried out.\n> CREATE old secret\n\nLIST\n")
    reply = only_reply(judge.deliver(compose(ALICE, "judge@localhost", body)))
    assert "No games yet" in reply.flat and "ERROR" not in reply.body


def test_reply_subject_does_not_pile_up_prefixes(judge):
    reply = only_reply(judge.send(ALICE, "LIST", subject="Re: [ERROR] RE: Fwd: orders"))
    assert reply.subject == "Re: orders"


def test_a_robot_answering_the_judge_is_not_answered_forever(judge):
    """An autoresponder without RFC 3834 headers: after ten error replies in ten minutes the
    judge stops answering mail from it that holds nothing usable; real commands still work."""
    robot = "robot@players.test"
    replies = [judge.send(robot, "Thank you for your message.", subject=f"n{i}")
               for i in range(15)]
    assert [len(r) for r in replies] == [1] * 10 + [0] * 5
    assert judge.inbox_states()[-5:] == ["ignored"] * 5
    assert len(judge.send(robot, "HELP")) == 1


@pytest.mark.parametrize("offset", [timedelta(days=30), -timedelta(days=30)])
def test_the_robot_guard_counts_the_judges_clock_ahead_or_behind(tmp_path, offset):
    """The judge's clock is game time (a test or a simulator moves it); the replies the guard
    counts are stamped by that clock, and it counts them by it (it once compared game time
    with wall-clock stamps: never tripped with the clock ahead, always with it behind)."""
    from judge.games.acting import Actor
    from judge.storage import now_utc

    judge = InProcessJudge(tmp_path)
    judge.actor = Actor(judge.store, judge.cfg, clock=lambda: now_utc() + offset)
    robot = "robot@players.test"
    replies = [judge.send(robot, "Thank you for your message.", subject=f"n{i}")
               for i in range(12)]
    assert [len(r) for r in replies] == [1] * 10 + [0] * 2


def test_format_flowed_lines_are_joined(judge):
    raw = (f"From: {ALICE}\r\nTo: judge@localhost\r\nSubject: flowed\r\nMIME-Version: 1.0\r\n"
           "Content-Type: text/plain; charset=utf-8; format=flowed\r\n\r\n"
           "STATUS \r\nflowedgame\r\n").encode()
    reply = only_reply(judge.deliver(raw))
    assert "there is no game called 'flowedgame'" in reply.flat


def test_help_in_the_subject_of_an_empty_mail_is_answered(judge):
    reply = only_reply(judge.send(ALICE, "", subject="help"))
    assert "SIGNON <power> <game> <password>" in reply.body
    assert not reply.subject.startswith("[ERROR]")


def test_help_with_words_after_it_is_still_help(judge):
    reply = only_reply(judge.send(ALICE, "help me please"))
    assert "SIGNON <power> <game> <password>" in reply.body


def test_non_ascii_subject_and_body_round_trip(judge):
    reply = only_reply(judge.send(ALICE, "STATUS Zürich", subject="Befehle für Zürich"))
    assert reply.subject == "[ERROR] Re: Befehle für Zürich"
    assert "there is no game called 'Zürich'" in reply.flat
    assert b"Content-Transfer-Encoding: quoted-printable" in reply.raw


def test_a_from_with_several_at_signs_is_never_answered_at_a_piece_of_it(judge):
    """The standard library reads ``x <a@b@c@victim.test>`` as ``c@victim.test``: someone
    who never wrote. Such a From counts as none: the reply goes to the envelope sender, or
    the mail is not answered at all."""
    for i, bad in enumerate(["x <alice@evil@c@victim.test>", "alice@b@victim.test",
                             "england.fa1@players.udge@fu@\u2026@victim.test"]):
        raw = compose("placeholder@players.test", "judge@localhost", "HELP",
                      message_id=f"<bad{i}@players.test>")
        raw = raw.replace(b"From: placeholder@players.test", f"From: {bad}".encode())
        assert not [m for m in judge.deliver(raw, mail_from="") if "victim" in m.rcpt]
        reply = only_reply(judge.deliver(raw.replace(b"<bad", b"<env"),
                                         mail_from="mallory@evil.test"), "mallory@evil.test")
        assert "SIGNON <power> <game> <password>" in reply.flat
