"""End to end over the real servers: a player answers the judge's mail by pressing "reply"
(judge/mail/replytoken.py, docs/commands.md "Reply addresses").

``judge serve`` as a subprocess; the players' mail goes through postfix into the judge's
dovecot mailbox (IMAP intake: the reply address arrives as dovecot's Delivered-To), or
straight to the built-in SMTP receiver (which records the RCPT TO); the judge's mail goes out
through postfix to the test's aiosmtpd sink. France plays four phases without ever writing a
password; then a revoked address, a replaced player and a forged address.
"""

from __future__ import annotations

import sqlite3

from mailkit import (
    POWERS,
    SPRING,
    Got,
    JudgeProcess,
    SinkBackend,
    compose,
    confirmed,
    free_port,
    imap_config,
    send_smtp,
    subject_has,
    unique,
    write_config,
)

FALL = {  # mailkit's FALL: Germany dislodges France's A BUR
    "AUSTRIA": ["A SER - GRE", "A GAL - RUM", "F ALB S A SER - GRE"],
    "ENGLAND": ["F NTH - NWY", "F NWG - BAR", "A YOR - EDI"],
    "FRANCE": ["A BUR H", "A PIC - BEL", "F MAO - POR"],
    "GERMANY": ["A RUH - BUR", "A MUN S A RUH - BUR", "F DEN H"],
    "ITALY": ["A VEN - TYR", "A APU - TUN", "F ION C A APU - TUN"],
    "RUSSIA": ["A UKR - RUM", "A STP - NWY", "F SEV H", "F BOT - SWE"],
    "TURKEY": ["F ANK H", "A BUL H", "A ARM - SEV"],
}
BUILDS = {"AUSTRIA": ["WAIVE"], "FRANCE": ["BUILD F BRE", "BUILD A PAR"],
          "GERMANY": ["BUILD F KIE"], "ITALY": ["BUILD F NAP"], "RUSSIA": ["BUILD A WAR"],
          "TURKEY": ["BUILD A SMY"]}


def press_reply(b: SinkBackend, got: Got, frm: str, body: str) -> str:
    """What a mail program sends on "reply": to the Reply-To, "Re:" and the mail quoted
    under the new text; no password anywhere. Returns the address it went to."""
    to = got["Reply-To"] or got["From"]
    quoted = "\n".join("> " + line for line in got.body.splitlines()[:40])
    raw = compose(frm, to, f"{body}\n\nOn Monday, the judge wrote:\n{quoted}\n",
                  "Re: " + got.subject, In_Reply_To=got["Message-ID"])
    send_smtp(b.host, b.port, frm, to, raw.replace(b"\n", b"\r\n"))  # SMTP lines end CRLF
    return to


def play_by_reply(b: SinkBackend, env_domain: str, game: str, domain: str, db: str) -> str:
    """The game, France by reply only, then the refusals; returns France's reply address."""
    addr = {p: f"{p.lower()}@{domain}" for p in POWERS}
    gm = f"gm@{domain}"
    pw = {p: f"pw-{p.lower()}" for p in POWERS}
    confirmed(db, gm, *addr.values())  # players who confirmed their address once
    b.send(gm, f"CREATE {game} master-{game}\nOPEN", "new game")
    b.wait(gm, subject_has("new game"), 60)
    for p in POWERS:
        b.send(addr[p], f"SIGNON {p.title()} {game} {pw[p]}", "join")
    for p in POWERS:
        r = b.wait(addr[p], subject_has("join"), 60)
        # the reply to a sign-on already carries the player's own reply address
        assert r["Reply-To"].startswith(f"judge+{game.lower()}.{p.lower()}."), r["Reply-To"]
    b.send(gm, f"MASTER {game} master-{game}\nSTART", "start")
    gm_reply = b.wait(gm, subject_has("Re: start"), 60)
    assert gm_reply["Reply-To"] == ""  # the master gets no player's address
    last = b.wait(addr["FRANCE"], subject_has("the game has started"), 60)
    france_address = last["Reply-To"]
    assert france_address.endswith("@" + env_domain)
    for p in POWERS:
        if p != "FRANCE":
            b.wait(addr[p], subject_has("the game has started"), 60)

    def phase(orders: dict[str, list[str]], label: str, result: str) -> Got:
        nonlocal last
        press_reply(b, last, addr["FRANCE"], "\n".join(orders["FRANCE"]))
        r = b.wait(addr["FRANCE"], lambda m: m.subject.startswith("Re: ")
                   and last.subject in m.subject, 60)
        assert not r.subject.startswith("[ERROR]"), r.body
        assert "Signed on as France in game" in r.body and "by your reply address" in r.body
        for line in orders["FRANCE"]:
            assert line in r.body, (line, r.body)
        assert r["Reply-To"] == france_address  # the same address until NEWTOKEN
        for p, lines in orders.items():
            if p != "FRANCE":
                b.send(addr[p], f"SIGNON {p} {game} {pw[p]}\n" + "\n".join(lines), label)
        last = b.wait(addr["FRANCE"], subject_has(f" - {result} results"), 60)
        assert last["Reply-To"] == france_address
        return last

    phase(SPRING, "spring", "S1901M")
    assert "A MAR - BUR                    succeeds" in last.body, last.body
    phase(FALL, "fall", "F1901M")
    assert "France A BUR (dislodged by the unit from RUH): may retreat to" in last.body
    phase({"FRANCE": ["A BUR R GAS"]}, "retreat", "F1901R")
    assert "A BUR R GAS" in last.body
    phase(BUILDS, "builds", "W1901A")
    assert "France F BRE" in last.body and "Next phase: Spring 1902 Movement" in last.body
    # every one of France's mails to the judge was without a password
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT command FROM audit WHERE power = 'FRANCE' AND command "
                         "LIKE 'SIGNON%'").fetchall()
        assert len(rows) == 1  # the join only
        signed = c.execute("SELECT count(*) FROM audit WHERE command LIKE '(reply address%' "
                           "AND outcome LIKE 'ok:%'").fetchone()[0]
        assert signed == 4

    # NEWTOKEN (sent by reply too): the reply carries a new address, the old one is refused
    press_reply(b, last, addr["FRANCE"], "NEWTOKEN")
    r = b.wait(addr["FRANCE"], lambda m: "Re: " in m.subject and "W1901A" in m.subject, 60)
    assert "New reply address for France" in r.flat, r.body
    new_address = r["Reply-To"]
    assert new_address and new_address != france_address
    press_reply(b, last, addr["FRANCE"], "A PAR H")  # the old report's address
    r = b.wait(addr["FRANCE"], lambda m: m.subject.startswith("[ERROR]"), 60)
    assert "no longer works" in r.flat and "NEWTOKEN" in r.flat, r.body
    assert f"SIGNON France {game} <password>" in r.flat
    assert r["Reply-To"] == ""  # a refused mail signed on nothing
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM password_failures").fetchone()[0] == 0

    # a replaced player: the old address is refused, the new player's works
    germany = b.wait(addr["GERMANY"], subject_has(" - W1901A results"), 60)
    newcomer = f"hans@{domain}"
    b.send(gm, f"MASTER {game} master-{game}\nREPLACE Germany {newcomer} hanspass", "replace")
    b.wait(gm, subject_has("Re: replace"), 60)
    request = b.wait(newcomer, subject_has("Confirm: a seat"), 60)  # the seat, confirmed
    b.send(newcomer, "CONFIRM " + request.flat.split("CONFIRM ")[1].split()[0], "confirm")
    told = b.wait(newcomer, subject_has("Germany replaced"), 60)
    assert told["Reply-To"] and told["Reply-To"] != germany["Reply-To"]
    press_reply(b, germany, addr["GERMANY"], "A MUN - BOH")
    r = b.wait(addr["GERMANY"], lambda m: m.subject.startswith("[ERROR]"), 60)
    assert "no longer works" in r.flat and "was replaced" in r.flat, r.body
    press_reply(b, told, newcomer, "A MUN - BOH")
    r = b.wait(newcomer, lambda m: m.subject.startswith("Re: ") and "confirm" not in m.subject,
               60)
    assert "Signed on as Germany" in r.body and "A MUN - BOH" in r.body, r.body

    # a forged address: refused, and counted like a wrong password
    forged = f"judge+{game.lower()}.italy.{'a' * 26}@{env_domain}"
    send_smtp(b.host, b.port, addr["ITALY"], forged,
              compose(addr["ITALY"], forged, "A VEN H", "Re: forged"))
    r = b.wait(addr["ITALY"], subject_has("Re: forged"), 60)
    assert r.subject.startswith("[ERROR]") and "is not a reply address of Italy" in r.flat
    assert "wrong password" in r.flat
    with sqlite3.connect(db) as c:
        scopes = [s for (s,) in c.execute("SELECT scope FROM password_failures")]
    assert len(scopes) == 1 and scopes[0].endswith(":ITALY")
    return new_address


def test_three_phases_by_reply_over_imap(judge_mailbox, smtp_sink, tmp_path):
    env = judge_mailbox
    judge = JudgeProcess(write_config(tmp_path, imap_config(env, tmp_path)), tmp_path).start()
    try:
        judge.wait_log("IMAP: connected")
        b = SinkBackend(smtp_sink, env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]),
                        f"judge@{env['MAILTEST_DOMAIN']}")
        play_by_reply(b, env["MAILTEST_DOMAIN"], unique("g"), f"{unique('rt')}.test",
                      str(tmp_path / "judge.db"))
    finally:
        assert judge.stop() == 0, judge.log.read_text()
    log = judge.log.read_text()
    assert "judge+" not in log  # no reply address in the log


def test_three_phases_by_reply_over_the_builtin_receiver(mail_servers, smtp_sink, tmp_path):
    env = mail_servers
    port = free_port()
    text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
    text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
    judge = JudgeProcess(write_config(tmp_path, text), tmp_path).start()
    try:
        judge.wait_log("SMTP receiver listening")
        b = SinkBackend(smtp_sink, "127.0.0.1", port, f"judge@{env['MAILTEST_DOMAIN']}")
        game, domain = unique("g"), f"{unique('rs')}.test"
        address = play_by_reply(b, env["MAILTEST_DOMAIN"], game, domain,
                                str(tmp_path / "judge.db"))
        # the receiver reads the envelope: a mail whose headers name only the plain address,
        # sent (RCPT TO) to the reply address, is signed on
        france = f"france@{domain}"
        send_smtp(b.host, b.port, france, address,
                  compose(france, b.judge_address, "A PAR H", "envelope only"))
        r = b.wait(france, subject_has("Re: envelope only"), 60)
        assert "Signed on as France" in r.body and "A PAR H" in r.body, r.body
    finally:
        assert judge.stop() == 0, judge.log.read_text()
