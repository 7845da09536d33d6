"""Reply addresses (judge/mail/replytoken.py): who gets one, what signs on with one, what is
refused and how, and that a token is kept nowhere but in the player's own mail."""

from __future__ import annotations

import base64
import email
import logging
from email.header import decode_header, make_header
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from mailkit import GM, POWERS, SPRING, InProcessJudge, addr, compose, new_game

from judge.config import ConfigError, load_config
from judge.mail import replytoken
from judge.mail.masking import mask_tokens


@pytest.fixture
def judge(tmp_path):
    return InProcessJudge(tmp_path)


def started(judge, name: str = "g1") -> dict[str, object]:
    """A started game; each player's start notice."""
    sent = new_game(judge, name)
    return {p: next(m for m in sent if m.rcpt == addr(p) and "started" in m.subject)
            for p in POWERS}


def reply(judge, got, frm: str, body: str, to: str | None = None, **headers: str):
    """Press "reply" on ``got``: to its Reply-To, the subject kept, no password."""
    return judge.deliver(compose(frm, to or got["Reply-To"] or judge.cfg.address, body,
                                 "Re: " + got.subject, **headers))


def answer(sent, to: str):
    mine = [m for m in sent if m.rcpt == to and "Re: " in m.subject]
    assert len(mine) == 1, sent
    return mine[0]


def token_of(address: str) -> str:
    return address.split("@")[0].rsplit(".", 1)[1]


# ------------------------------------------------------------------ who gets one
def test_only_a_seats_player_gets_its_address(judge):
    judge.send("watcher@players.test", "OBSERVE g1")  # before the game: refused, no matter
    notices = started(judge)
    addresses = {p: notices[p]["Reply-To"] for p in POWERS}
    for p, a in addresses.items():
        assert a.startswith(f"judge+g1.{p.lower()}.") and a.endswith("@localhost"), a
        assert len(token_of(a)) == replytoken.TOKEN_CHARS
    assert len(set(addresses.values())) == 7  # each seat its own
    # the master's copy, and press, carry none
    out = judge.send(GM, "MASTER g1 masterpw\nSTATUS")
    assert all(m["Reply-To"] == "" for m in out)
    out = judge.send(addr("ENGLAND"), "SIGNON England g1 pw-england\nPRESS TO France\nHi\n"
                     "ENDPRESS")
    press = [m for m in out if m.rcpt == addr("FRANCE")]
    assert press and press[0]["Reply-To"] == ""
    assert answer(out, addr("ENGLAND"))["Reply-To"] == addresses["ENGLAND"]
    # a mail that signed on nothing gets a reply without one
    assert answer(judge.send(addr("FRANCE"), "HELP"), addr("FRANCE"))["Reply-To"] == ""


def test_an_observer_and_the_list_get_no_token(judge):
    new_game(judge, start=False)
    out = judge.send("watcher@players.test", "OBSERVE g1")
    code = out[0].flat.split("send the line CONFIRM ")[1].split()[0]
    judge.send("watcher@players.test", f"CONFIRM {code}")
    out = judge.send(GM, "MASTER g1 masterpw\nSTART")
    watcher = [m for m in out if m.rcpt == "watcher@players.test"]
    france = [m for m in out if m.rcpt == addr("FRANCE")]
    assert watcher and all(m["Reply-To"] == "" for m in watcher)
    assert france and france[0]["Reply-To"]
    assert token_of(france[0]["Reply-To"]) not in watcher[0].raw.decode()


# ------------------------------------------------------------------ signing on
def test_a_reply_signs_on_and_an_empty_one_shows_the_orders(judge):
    n = started(judge)
    r = answer(reply(judge, n["FRANCE"], addr("FRANCE"), "A PAR - BUR\nA MAR - SPA"),
               addr("FRANCE"))
    assert not r.subject.startswith("[ERROR]")
    assert "Signed on as France in game g1 by your reply address." in r.body
    assert "A PAR - BUR" in r.body and "A MAR - SPA" in r.body
    assert r["Reply-To"] == n["FRANCE"]["Reply-To"]
    assert judge.store.order_set(1, "S1901M", "FRANCE")
    r = answer(reply(judge, r, addr("FRANCE"), ""), addr("FRANCE"))
    assert "Signed on as France" in r.body and "A PAR - BUR" in r.body
    assert "holds no commands" not in r.body


def test_a_token_signs_on_only_the_seat_it_names(judge):
    n = started(judge)
    france = n["FRANCE"]["Reply-To"]
    # France's token under Germany's name: a forgery for Germany
    forged = france.replace(".france.", ".germany.")
    r = answer(reply(judge, n["FRANCE"], addr("GERMANY"), "A MUN H", to=forged),
               addr("GERMANY"))
    assert r.subject.startswith("[ERROR]") and "is not a reply address of Germany" in r.flat
    assert judge.store.order_set(1, "S1901M", "GERMANY") is None


def test_a_token_works_only_from_the_players_address(judge):
    n = started(judge)
    r = answer(reply(judge, n["FRANCE"], "friend@elsewhere.test", "A PAR - BUR"),
               "friend@elsewhere.test")
    assert r.subject.startswith("[ERROR]")
    assert "works only from its player's own address" in r.flat
    assert "SIGNON France g1 <password>" in r.flat
    assert r["Reply-To"] == "" and token_of(n["FRANCE"]["Reply-To"]) not in r.raw.decode()
    assert judge.store.order_set(1, "S1901M", "FRANCE") is None
    assert judge.store.one("SELECT count(*) AS n FROM password_failures")["n"] == 0


def test_a_signon_wins_over_the_token(judge):
    n = started(judge)
    forged = n["FRANCE"]["Reply-To"].replace(token_of(n["FRANCE"]["Reply-To"]), "a" * 26)
    r = answer(reply(judge, n["FRANCE"], addr("FRANCE"), "SIGNON France g1 pw-france\n"
                     "A PAR H", to=forged), addr("FRANCE"))
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "by your reply address" not in r.body and "Signed on as France" in r.body
    assert judge.store.one("SELECT count(*) AS n FROM password_failures")["n"] == 0


def test_forged_tokens_count_as_wrong_passwords_and_lock(judge):
    n = started(judge)
    good = n["ITALY"]["Reply-To"]
    for i in range(5):
        forged = good.replace(token_of(good), chr(ord("c") + i) * 26)
        r = answer(reply(judge, n["ITALY"], addr("ITALY"), "A VEN H", to=forged),
                   addr("ITALY"))
        assert "is not a reply address of Italy" in r.flat and "wrong password" in r.flat
    assert "no password for it is checked until" in r.flat
    # locked: not even the right address is checked now
    r = answer(reply(judge, n["ITALY"], addr("ITALY"), "A VEN H"), addr("ITALY"))
    assert r.subject.startswith("[ERROR]") and "not checked" in r.flat
    assert judge.store.order_set(1, "S1901M", "ITALY") is None


def test_newtoken_replaces_the_address(judge):
    n = started(judge)
    old = n["FRANCE"]["Reply-To"]
    r = answer(reply(judge, n["FRANCE"], addr("FRANCE"), "NEWTOKEN"), addr("FRANCE"))
    assert "New reply address for France in game g1" in r.flat
    new = r["Reply-To"]
    assert new and new != old
    refused = answer(reply(judge, n["FRANCE"], addr("FRANCE"), "A PAR H"), addr("FRANCE"))
    assert refused.subject.startswith("[ERROR]")
    assert "no longer works" in refused.flat and "NEWTOKEN" in refused.flat
    assert "SIGNON France g1 <password>" in refused.flat
    assert judge.store.one("SELECT count(*) AS n FROM password_failures")["n"] == 0
    ok = answer(reply(judge, r, addr("FRANCE"), "A PAR H"), addr("FRANCE"))
    assert "Signed on as France" in ok.body and ok["Reply-To"] == new
    # NEWTOKEN needs a sign-on
    bare = answer(judge.send(addr("FRANCE"), "NEWTOKEN"), addr("FRANCE"))
    assert bare.subject.startswith("[ERROR]") and "needs a sign-on" in bare.flat


def test_eject_and_takeover_change_the_address(judge):
    n = started(judge)
    judge.send(GM, "MASTER g1 masterpw\nEJECT Russia")
    r = answer(reply(judge, n["RUSSIA"], addr("RUSSIA"), "A WAR H"), addr("RUSSIA"))
    assert "no longer works" in r.flat and "ejected" in r.flat
    out = judge.send("ivan@players.test", "TAKEOVER Russia g1 ivanpass")
    ivan = answer(out, "ivan@players.test")
    assert ivan["Reply-To"] and ivan["Reply-To"] != n["RUSSIA"]["Reply-To"]
    ok = answer(reply(judge, ivan, "ivan@players.test", "A WAR H"), "ivan@players.test")
    assert "Signed on as Russia" in ok.body


def test_subject_mode(tmp_path):
    judge = InProcessJudge(tmp_path, reply_tokens="subject")
    n = started(judge)
    subject = n["FRANCE"].subject
    assert n["FRANCE"]["Reply-To"] == ""
    assert subject.endswith("]") and "[g1.france." in subject
    r = answer(reply(judge, n["FRANCE"], addr("FRANCE"), "A PAR - BUR"), addr("FRANCE"))
    assert "Signed on as France" in r.body
    assert r.subject.count("[g1.france.") == 1  # the tag is not piled up
    assert "[g1.france." not in r.body
    # a long subject is cut, the tag kept
    out = judge.send(addr("FRANCE"), "SIGNON France g1 pw-france", "x" * 300)
    assert answer(out, addr("FRANCE")).subject.endswith(subject[subject.index("[g1"):])
    # someone else replying with the tag: refused, and the reply to them has no tag
    r = answer(reply(judge, n["FRANCE"], "friend@elsewhere.test", "A PAR H"),
               "friend@elsewhere.test")
    assert "works only from its player's own address" in r.flat and "[g1." not in r.subject


def test_off_mode_sends_and_reads_none(tmp_path):
    judge = InProcessJudge(tmp_path, reply_tokens="off")
    n = started(judge)
    assert n["FRANCE"]["Reply-To"] == "" and "[g1." not in n["FRANCE"].subject
    r = answer(judge.deliver(compose(addr("FRANCE"), f"judge+g1.france.{'a' * 26}@localhost",
                                     "A PAR H", "x")), addr("FRANCE"))
    assert "not a command" in r.flat  # not signed on: an order without a SIGNON


def test_the_key_signs_the_tokens(tmp_path):
    judges = []
    for name, key in (("a", "one key"), ("b", "another key"), ("c", "")):
        (tmp_path / name).mkdir()
        j = InProcessJudge(tmp_path / name, reply_token_key=key)
        new_game(j, start=False)
        j.store.execute("UPDATE reply_secrets SET secret = 'same'")  # only the keys differ
        judges.append(j)
    a, b, c = judges
    game = a.store.game("g1")
    tags = [replytoken.seat_tag(j.store, j.cfg, game, "FRANCE") for j in judges]
    assert len(set(tags)) == 3
    # a token made under one key is a forgery under another
    p = replytoken.Presented("g1", "france", tags[0].rsplit(".", 1)[1], "address")
    assert replytoken.verify(a.store, a.cfg, p).kind == "ok"
    assert replytoken.verify(b.store, b.cfg, p).kind == "forged"
    # without a configured key one is made once and kept
    assert c.store.one("SELECT count(*) AS n FROM reply_keys")["n"] == 1
    assert a.store.one("SELECT count(*) AS n FROM reply_keys")["n"] == 0
    assert replytoken.seat_tag(c.store, c.cfg, game, "FRANCE") == tags[2]


def test_config_keys(tmp_path):
    p = tmp_path / "judge.toml"
    p.write_text('[judge]\nreply_tokens = "sometimes"\n')
    with pytest.raises(ConfigError, match="reply_tokens"):
        load_config(p)
    p.write_text('[judge]\nreply_token_key = "..."\n')
    with pytest.raises(ConfigError, match="reply_token_key: still the example"):
        load_config(p)
    p.write_text('[judge]\nreply_tokens = "subject"\nreply_delimiter = "-"\n')
    cfg = load_config(p)
    assert cfg.reply_tokens == "subject" and cfg.reply_delimiter == "-"


def test_a_dash_delimiter(tmp_path):
    judge = InProcessJudge(tmp_path, reply_delimiter="-")
    n = started(judge)
    assert n["FRANCE"]["Reply-To"].startswith("judge-g1.france.")
    r = answer(reply(judge, n["FRANCE"], addr("FRANCE"), "A PAR H"), addr("FRANCE"))
    assert "Signed on as France" in r.body


# ------------------------------------------------------------------ kept nowhere
def stored_except_the_players_mail(judge, owner: str) -> str:
    """Every column of every table as text, but the outbox rows of mail to ``owner`` (the
    mail that carries the token to its player)."""
    parts = []
    tables = [r["name"] for r in judge.store.all(
        "SELECT name FROM sqlite_master WHERE type = 'table'")]
    for t in tables:
        for row in judge.store.all(f"SELECT * FROM {t}"):
            if t == "outbox" and row["rcpt"].lower() == owner.lower():
                continue
            if t == "outbox_pictures":
                continue  # checked through its outbox row
            for v in row.values():
                parts.append(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
    return "\n".join(parts)


def test_a_token_is_kept_nowhere_but_in_the_players_mail(judge, caplog):
    caplog.set_level(logging.DEBUG)
    n = started(judge)
    address = n["FRANCE"]["Reply-To"]
    token = token_of(address)
    # a reply as an MTA delivers it: Delivered-To, Received ... for <address>, an encoded
    # Subject with the tag, a base64 body quoting the address
    m = EmailMessage()
    m["Return-Path"] = f"<{addr('FRANCE')}>"
    m["Delivered-To"] = address
    m["Received"] = f"from mx by judge-host with LMTP; for <{address}>; Mon, 1 Jan 2026"
    m["From"], m["To"] = addr("FRANCE"), address
    subject = f"Re: ünïcödé [g1.france.{token}]".encode()
    m["Subject"] = f"=?utf-8?b?{base64.b64encode(subject).decode()}?="
    m["Message-ID"] = make_msgid(domain="players.test")
    m.set_content(f"A PAR - BUR\n\n> Reply-To: {address}\n> Grüße", cte="base64")
    raw = m.as_bytes()
    assert token.encode() in raw and base64.b64encode(b"Reply-To") not in raw
    sent = judge.deliver(raw)
    r = answer(sent, addr("FRANCE"))
    assert "Signed on as France" in r.body
    # a stranger (not the player) with the address
    reply(judge, n["FRANCE"], "friend@elsewhere.test", "A PAR H")
    # the revoked one too: NEWTOKEN, then the old address again
    reply(judge, n["FRANCE"], addr("FRANCE"), "NEWTOKEN")
    reply(judge, n["FRANCE"], addr("FRANCE"), "A PAR H")
    stored = stored_except_the_players_mail(judge, addr("FRANCE")).lower()
    assert token not in stored
    assert "g1.france.****" in stored  # the audit names the seat, masked
    logged = "\n".join(r.getMessage() for r in caplog.records).lower()
    assert token not in logged
    # decoded too: the base64 body and the encoded Subject
    texts = []
    for x in judge.store.all("SELECT raw FROM inbox"):
        msg = email.message_from_bytes(x["raw"])
        texts.append(str(make_header(decode_header(msg["Subject"] or ""))))
        texts += [p.get_payload(decode=True).decode("utf-8", "replace") for p in msg.walk()
                  if not p.is_multipart()]
    decoded = "\n".join(texts)
    assert token not in decoded.lower()
    assert "A PAR - BUR" in decoded and "Grüße" in decoded and "ünïcödé" in decoded


def test_mask_tokens_keeps_the_rest():
    token = "k" * 26
    raw = (f"Delivered-To: judge+g1.france.{token}@h\r\nFrom: a@b\r\nSubject: hi\r\n\r\n"
           f"A PAR H\r\nsee judge+g1.france.{token.upper()}@h\r\n").encode()
    out = mask_tokens(raw, {token})
    assert token.encode() not in out.lower()
    assert out.count(b"g1.france.****") == 2 and b"A PAR H" in out
    assert mask_tokens(raw, set()) == raw


def test_an_internal_error_log_carries_no_token(judge, caplog, monkeypatch):
    n = started(judge)
    token = token_of(n["FRANCE"]["Reply-To"])
    from judge.games import acting

    def boom(self, ses, cmd):
        raise RuntimeError(f"boom near {ses.inbound.recipients}")

    monkeypatch.setattr(acting.Actor, "_command", boom)
    reply(judge, n["FRANCE"], addr("FRANCE"), "HELP")
    assert judge.inbox_states()[-1] == "error"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "boom near" in logged and token not in logged.lower()
    assert token not in stored_except_the_players_mail(judge, addr("FRANCE")).lower()


def test_tokens_in_finds_tags_and_addresses():
    t = "abcdefghijklmnopqrstuvwxyz"
    raw = f"To: judge+g1.france.{t}@h\nSubject: Re: x [g2.italy.{t.upper()}]\n\nzz".encode()
    assert replytoken.tokens_in(raw) == {t}
    assert replytoken.strip_subject(f"Re: orders [g1.france.{t}]") == "Re: orders"


def test_spring_by_reply_for_everyone(judge):
    """Every power orders by pressing reply; the phase is processed."""
    n = started(judge)
    for p in POWERS:
        reply(judge, n[p], addr(p), "\n".join(SPRING[p]))
    game = judge.store.game("g1")
    assert game["phase"] == "F1901M"


def test_an_oversized_mail_to_a_reply_address_is_masked_too(tmp_path):
    judge = InProcessJudge(tmp_path, max_message_bytes=5000)
    n = started(judge)
    address = n["FRANCE"]["Reply-To"]
    out = judge.deliver(compose(addr("FRANCE"), address, "A PAR H\n" + "x" * 10_000, "Re: x"))
    refused = [m for m in out if m.rcpt == addr("FRANCE")]
    assert refused and "[ERROR]" in refused[0].subject and refused[0]["Reply-To"] == ""
    raw = judge.store.all("SELECT raw FROM inbox ORDER BY id DESC LIMIT 1")[0]["raw"]
    assert token_of(address).encode() not in raw.lower()
    # only its headers are kept, with a note of its size: the body, unread, could hold a
    # password the judge cannot mask (test_mail_password_leaks.py)
    assert b"A PAR H" not in raw and b"was not kept" in raw and len(raw) < 5000
