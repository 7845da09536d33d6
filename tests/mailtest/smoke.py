#!/usr/bin/env python3
"""Smoke test for the servers started by start-mail-servers.sh.

    python3 smoke.py [DIR]      (needs: pip install imapclient aiosmtpd)

Ports come from MAILTEST_* environment variables if MAILTEST_IMAP_PORT is set,
else from DIR/env (DIR: argument, $MAILTEST_DIR, or /tmp/mailtest).

The chain it checks, all on loopback:
  player --SMTP+STARTTLS+AUTH--> postfix --LMTP--> dovecot  (judge's INBOX)
  judge  --IMAP IDLE / SEARCH UNSEEN / FETCH / flags / MOVE--> dovecot
  judge  --SMTP--> postfix --relay--> aiosmtpd sink on MAILTEST_RELAY_PORT (captured)
  judge  --SMTP--> postfix --LMTP--> dovecot (player's INBOX)
Without postfix (MAILTEST_POSTFIX=0) inbound mail goes straight to dovecot's
LMTP port with smtplib.LMTP and the reply straight to the sink.
Safe to run repeatedly against the same instance (each run uses a fresh token).
Exits 0 only if every check passed; the last line reads 'N passed, N failed'.
"""
import os
import smtplib
import ssl
import sys
import threading
import time
import uuid
from email.message import EmailMessage
from email.utils import make_msgid

try:
    from aiosmtpd.controller import Controller
    from imapclient import IMAPClient
    from imapclient.exceptions import LoginError
except ImportError as e:  # pragma: no cover
    sys.exit(f"smoke.py needs imapclient and aiosmtpd (pip install imapclient aiosmtpd): {e}")


def load_config():
    if os.environ.get("MAILTEST_IMAP_PORT"):
        return {k: v for k, v in os.environ.items() if k.startswith("MAILTEST_")}
    d = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("MAILTEST_DIR", "/tmp/mailtest")
    path = d if d.endswith("env") else os.path.join(d, "env")
    with open(path) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


cfg = load_config()
HOST = cfg.get("MAILTEST_HOST", "127.0.0.1")
DOMAIN = cfg["MAILTEST_DOMAIN"]
USERS = dict(u.split(":", 1) for u in cfg["MAILTEST_USERS"].split(","))
JUDGE, PLAYER = "judge", "player"
IMAP_PORT = int(cfg["MAILTEST_IMAP_PORT"])
IMAPS_PORT = int(cfg["MAILTEST_IMAPS_PORT"])
LMTP_PORT = int(cfg["MAILTEST_LMTP_PORT"])
SMTP_PORT = int(cfg["MAILTEST_SMTP_PORT"]) if cfg.get("MAILTEST_SMTP_PORT") else None
SMTPS_PORT = int(cfg["MAILTEST_SMTPS_PORT"]) if cfg.get("MAILTEST_SMTPS_PORT") else None
RELAY_PORT = int(cfg["MAILTEST_RELAY_PORT"])
CTX = ssl.create_default_context(cafile=cfg["MAILTEST_CA_FILE"])
TOKEN = uuid.uuid4().hex[:12]
results = []


def check(name, fn):
    t = time.monotonic()
    try:
        detail = fn()
        results.append(True)
        print(f"PASS {name} ({time.monotonic() - t:.3f}s){': ' + str(detail) if detail else ''}", flush=True)
    except Exception as e:  # report and go on
        results.append(False)
        print(f"FAIL {name} ({time.monotonic() - t:.3f}s): {type(e).__name__}: {e}", flush=True)


def imap(user=JUDGE, host=HOST):
    c = IMAPClient(host, port=IMAP_PORT, ssl=False, timeout=10)  # ssl=False: IMAPClient defaults to SSL
    c.login(user, USERS[user])
    return c


class Sink:
    """In-process SMTP sink: what the judge sends to other domains ends up here."""
    def __init__(self):
        self.messages, self.cond = [], threading.Condition()

    async def handle_DATA(self, server, session, envelope):
        with self.cond:
            self.messages.append(envelope)
            self.cond.notify_all()
        return "250 OK captured"

    def wait_for(self, pred, timeout=15):
        with self.cond:
            ok = self.cond.wait_for(lambda: any(pred(m) for m in self.messages), timeout)
        if not ok:
            raise AssertionError(f"nothing captured in {timeout}s")
        return next(m for m in self.messages if pred(m))


def smtp_send(msg, user):
    if SMTP_PORT:
        with smtplib.SMTP(HOST, SMTP_PORT, timeout=10) as s:
            s.starttls(context=CTX)
            s.login(user, USERS[user])
            s.send_message(msg)
    else:  # no MTA: deliver local mail with LMTP, the rest straight to the sink
        local = all(a.endswith("@" + DOMAIN) for a in msg["To"].split(","))
        cls, port = (smtplib.LMTP, LMTP_PORT) if local else (smtplib.SMTP, RELAY_PORT)
        with cls(HOST, port, timeout=10) as s:
            s.send_message(msg)


sink = Sink()
ctrl = Controller(sink, hostname="127.0.0.1", port=RELAY_PORT)
ctrl.start()
state = {}
try:
    idler = imap()
    idler.select_folder("INBOX")
    idler.idle()

    def send_move():
        m = EmailMessage()
        m["From"] = f"{PLAYER}@{DOMAIN}"
        m["To"] = f"{JUDGE}@{DOMAIN}"
        m["Subject"] = f"move e2e4 {TOKEN}"
        m["Message-ID"] = state["mid"] = make_msgid(domain=DOMAIN)
        m.set_content("1. e4\n")
        state["sent_at"] = time.monotonic()
        smtp_send(m, PLAYER)
        return "via postfix SMTP+STARTTLS+AUTH" if SMTP_PORT else "via LMTP"
    check("player sends mail to judge", send_move)

    def idle_wakes():
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            for resp in idler.idle_check(timeout=1):
                if len(resp) >= 2 and resp[1] == b"EXISTS":
                    idler.idle_done()
                    return f"EXISTS {time.monotonic() - state['sent_at']:.3f}s after send"
        idler.idle_done()
        raise AssertionError("no EXISTS during IDLE within 15s")
    check("IMAP IDLE reports the new mail", idle_wakes)
    idler.logout()

    c = imap()

    def poll():
        c.select_folder("INBOX")
        caps = c.capabilities()
        assert b"IDLE" in caps and b"MOVE" in caps, caps
        uids = c.search(["UNSEEN", "SUBJECT", TOKEN])
        assert len(uids) == 1, uids
        state["uid"] = uids[0]
        data = c.fetch(uids, ["ENVELOPE", "FLAGS", "BODY.PEEK[]"])[uids[0]]
        assert TOKEN in data[b"ENVELOPE"].subject.decode(), data[b"ENVELOPE"]
        assert b"1. e4" in data[b"BODY[]"]
        assert b"\\Seen" not in data[b"FLAGS"]
        return f"uid {uids[0]}"
    check("judge: SELECT, SEARCH UNSEEN, FETCH", poll)

    def flags():
        uid = state["uid"]
        c.add_flags([uid], [b"\\Seen", b"$Judged"])
        fl = c.get_flags([uid])[uid]
        assert b"\\Seen" in fl and b"$Judged" in fl, fl
        assert uid not in c.search(["UNSEEN"])
        return fl
    check("judge: STORE flags (\\Seen + keyword)", flags)

    def move():
        if not c.folder_exists("Processed"):
            c.create_folder("Processed")
        c.move([state["uid"]], "Processed")
        assert not c.search(["SUBJECT", TOKEN])
        c.select_folder("Processed", readonly=True)
        assert len(c.search(["SUBJECT", TOKEN])) == 1
        c.select_folder("INBOX")
    check("judge: MOVE to Processed", move)

    def reply():
        r = EmailMessage()
        r["From"] = f"{JUDGE}@{DOMAIN}"
        r["To"] = "player@elsewhere.test"
        r["Subject"] = f"Re: move e2e4 {TOKEN}"
        r["In-Reply-To"] = state["mid"]
        r.set_content("accepted\n")
        smtp_send(r, JUDGE)
        env = sink.wait_for(lambda e: TOKEN.encode() in e.content)
        assert env.rcpt_tos == ["player@elsewhere.test"], env.rcpt_tos
        assert state["mid"].encode() in env.content
        return f"captured from {env.mail_from} to {env.rcpt_tos}"
    check("judge replies by SMTP, reply captured by aiosmtpd", reply)

    if SMTP_PORT:
        def reply_local():
            r = EmailMessage()
            r["From"] = f"{JUDGE}@{DOMAIN}"
            r["To"] = f"{PLAYER}@{DOMAIN}"
            r["Subject"] = f"Re2: {TOKEN}"
            r.set_content("see you\n")
            smtp_send(r, JUDGE)
            p = imap(PLAYER)
            p.select_folder("INBOX")
            for _ in range(100):
                if p.search(["SUBJECT", f"Re2: {TOKEN}"]):
                    p.logout()
                    return
                time.sleep(0.1)
                p.noop()
            raise AssertionError("reply not in player's INBOX after 10s")
        check("judge replies to a local player, lands in player's IMAP INBOX", reply_local)

        def smtps():
            with smtplib.SMTP_SSL(HOST, SMTPS_PORT, context=CTX, timeout=10) as s:
                s.login(JUDGE, USERS[JUDGE])
                return s.noop()[0]
        check("SMTPS (implicit TLS) + AUTH", smtps)

    def imaps():
        s = IMAPClient(HOST, port=IMAPS_PORT, ssl=True, ssl_context=CTX, timeout=10)
        s.login(JUDGE, USERS[JUDGE])
        n = s.select_folder("INBOX", readonly=True)[b"EXISTS"]
        s.logout()
        return f"INBOX EXISTS {n}"
    check("IMAPS with the self-signed cert verified", imaps)

    def starttls():
        s = IMAPClient(HOST, port=IMAP_PORT, ssl=False, timeout=10)
        s.starttls(CTX)
        s.login(JUDGE, USERS[JUDGE])
        s.logout()
    check("IMAP STARTTLS", starttls)

    def bad_login():
        t = time.monotonic()
        s = IMAPClient(HOST, port=IMAP_PORT, ssl=False, timeout=10)
        try:
            s.login(JUDGE, "wrong")
        except LoginError:
            return f"rejected in {time.monotonic() - t:.3f}s"
        raise AssertionError("wrong password accepted")
    check("wrong password is rejected", bad_login)

    if cfg.get("MAILTEST_IPV6") == "1":
        check("IMAP over [::1]", lambda: imap(host="::1").logout())

    c.logout()
finally:
    ctrl.stop()

passed, failed = results.count(True), results.count(False)
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
