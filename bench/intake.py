"""Intake benchmark: orders mails for a running game, stored and acted on, per second.

1. in-process: messages are stored in the inbox (as the receivers do) and acted on by the
   judge's real actor (orders read by the engine, order sets replaced, replies queued);
2. through real IMAP: the messages are appended to the judge's dovecot mailbox
   (tests/mailtest, started here if MAILTEST_IMAP_PORT is not set) and the judge's IMAP
   poller fetches, stores and flags them while the actor acts on them.

The last line of output is JSON: {"in_process_per_s": ..., "imap_per_s": ..., ...}.
Usage: python bench/intake.py [--messages N] [--skip-imap]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from judge.config import Config  # noqa: E402
from judge.games.acting import Actor  # noqa: E402
from judge.games.observers import prove  # noqa: E402
from judge.mail.intake import ImapIntake, store_message  # noqa: E402
from judge.storage import Store, now_utc  # noqa: E402

POWERS = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["A PAR - PIC", "A MAR - BUR", "F BRE - MAO"],
    "GERMANY": ["A BER - MUN", "A MUN - RUH", "F KIE - DEN"],
    "ITALY": ["A VEN H", "A ROM - APU", "F NAP - ION"],
    "RUSSIA": ["A WAR - UKR", "A MOS - STP", "F SEV - BLA", "F STP/SC - BOT"],
    "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - ARM"],
}


def mail(frm: str, to: str, body: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, to, "orders"
    m["Message-ID"] = make_msgid(domain="bench.test")
    m.set_content(body)
    return m.as_bytes()


def setup_game(actor: Actor, address: str) -> None:
    """A running standard game with seven players."""

    def send(frm: str, body: str) -> None:
        store_message(actor.s, mail(frm, address, body), "bench")
        actor.process_inbox()

    send("gm@bench.test", "CREATE bench masterpw\nOPEN")
    for p in POWERS:  # players who confirmed their address once (judge/games/signup.py)
        prove(actor.s, f"{p.lower()}@bench.test", now_utc(), "bench")
        send(f"{p.lower()}@bench.test", f"SIGNON {p} bench pw-{p.lower()}")
    send("gm@bench.test", "MASTER bench masterpw\nSTART")


def orders_mails(n: int, address: str) -> list[bytes]:
    """n orders mails; the last unit of each power is left out so the phase never completes
    (every mail is acted on against the same running phase)."""
    out = []
    names = list(POWERS)
    for i in range(n):
        p = names[i % len(names)]
        lines = POWERS[p][:-1]
        out.append(mail(f"{p.lower()}@bench.test", address,
                        f"SIGNON {p} bench pw-{p.lower()}\n" + "\n".join(lines)))
    return out


def in_process(n: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        cfg = Config(database=str(Path(d) / "judge.db"), base_dir=Path(d))
        actor = Actor(Store(cfg.database_path), cfg)
        setup_game(actor, cfg.address)
        msgs = orders_mails(n, cfg.address)
        t0 = time.perf_counter()
        for raw in msgs:
            store_message(actor.s, raw, "bench")
        t1 = time.perf_counter()
        acted = actor.process_inbox()
        t2 = time.perf_counter()
        assert acted == n, acted
        replies = actor.s.one("SELECT count(*) AS n FROM outbox WHERE kind = 'reply'")["n"]
        assert replies >= n
        return {"in_process_per_s": round(n / (t2 - t0), 1),
                "in_process_store_per_s": round(n / (t1 - t0), 1),
                "in_process_act_per_s": round(n / (t2 - t1), 1)}


def mail_servers() -> tuple[dict, str | None]:
    if os.environ.get("MAILTEST_IMAP_PORT"):
        return {k: v for k, v in os.environ.items() if k.startswith("MAILTEST_")}, None
    script = REPO / "tests" / "mailtest" / "start-mail-servers.sh"
    d = tempfile.mkdtemp(prefix="mailbench-", dir="/tmp")
    out = subprocess.run([script, d], check=True, capture_output=True, text=True,
                         timeout=300).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line), d


def through_imap(n: int) -> dict:
    from imapclient import IMAPClient

    env, started = mail_servers()
    try:
        host, port = env["MAILTEST_HOST"], int(env["MAILTEST_IMAP_PORT"])
        c = IMAPClient(host, port=port, ssl=False)
        c.login("judge", "secret")
        folder = "Bench"
        for f in (folder, folder + "Done"):
            if c.folder_exists(f):
                c.delete_folder(f)
            c.create_folder(f)
        with tempfile.TemporaryDirectory() as d:
            address = f"judge@{env.get('MAILTEST_DOMAIN', 'example.test')}"
            cfg = Config(address=address, database=str(Path(d) / "judge.db"),
                         base_dir=Path(d))
            cfg.intake.mode, cfg.intake.host, cfg.intake.port = "imap", host, port
            cfg.intake.ssl, cfg.intake.starttls = False, False
            cfg.intake.user, cfg.intake.password = "judge", "secret"
            cfg.intake.folder, cfg.intake.processed_folder = folder, folder + "Done"
            actor = Actor(Store(cfg.database_path), cfg)
            setup_game(actor, address)
            for raw in orders_mails(n, address):
                c.append(folder, raw)
            c.logout()
            wake = threading.Event()
            intake = ImapIntake(cfg, wake.set)
            t0 = time.perf_counter()
            intake.start()
            acted = 0
            while acted < n:
                wake.wait(1.0)
                wake.clear()
                acted += actor.process_inbox()
                if time.perf_counter() - t0 > 300:
                    raise SystemExit(f"only {acted} of {n} acted on after 300 s")
            t1 = time.perf_counter()
            intake.stop()
            intake.join(10)
        return {"imap_per_s": round(n / (t1 - t0), 1)}
    finally:
        if started:
            stop = REPO / "tests" / "mailtest" / "stop-mail-servers.sh"
            subprocess.run([stop, started, "--purge"], check=False, timeout=60,
                           capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--skip-imap", action="store_true")
    args = ap.parse_args()
    result: dict = {"messages": args.messages}
    result.update(in_process(args.messages))
    print(f"in-process: {result['in_process_per_s']}/s", file=sys.stderr)
    if not args.skip_imap:
        result.update(through_imap(args.messages))
        print(f"through IMAP: {result['imap_per_s']}/s", file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
