"""Benchmark: how long one hostile mail holds the worker that answers everyone (review of
issue 23). Against the real service (:class:`judge.service.Service`: the built-in SMTP
receiver, the painter pool, Maildir out, the wall clock), with GAMES started games made
directly in the database: for each attack, its mail(s) then a stranger's HELP, and the
seconds from sending each to its reply in the Maildir. A HELP answered within 2 s is the
goal.

Attacks (``--attacks``, comma-separated; default all):

* ``setlist``: CREATE and 998 ``SET LIST`` lines (998 strangers mailed);
* ``map-png`` / ``map-svg``: 999 ``MAP`` lines over GAMES distinct pictures;
* ``history``, ``list``, ``observe``, ``whois``: 999 such lines over the games;
* ``process``: a master's 998 ``PROCESS`` lines; ``pause``: 499 ``PAUSE``/``RESUME`` pairs;
* ``orders``: a player's 998 order lines; ``press``: 333 press blocks to everyone.

Prints one line per attack, then one JSON line as the last line.

    .venv/bin/python bench/hostile_mail.py [--games 8] [--attacks process,pause]
"""

from __future__ import annotations

import argparse
import json
import smtplib
import sys
import tempfile
import time
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from mailkit import compose, free_port  # noqa: E402
from replies import replied_at  # noqa: E402 (bench/replies.py: the replies in the Maildir)

import judge.games.game as G  # noqa: E402
from judge.config import Config  # noqa: E402
from judge.service import Service  # noqa: E402
from judge.storage import Store, now_utc  # noqa: E402


def attacks(games: int) -> dict[str, list[str]]:
    g = [f"m{i % games}" for i in range(999)]
    return {
        "setlist": ["CREATE spam1 pw-spam\n" + "\n".join(
            f"SET LIST s{i}@victims.test" for i in range(998))],
        "map-png": ["\n".join(f"MAP {x} S1901M" for x in g)],
        "map-svg": ["\n".join(f"MAP {x} S1901M SVG" for x in g)],
        "history": ["\n".join(f"HISTORY {x}" for x in g)],
        "list": ["\n".join(f"LIST {x}" for x in g)],
        "observe": ["\n".join(f"OBSERVE {x}" for x in g)],
        "whois": ["\n".join(f"WHOIS {x}" for x in g)],
        "process": ["MASTER m0 pw-bench\n" + "PROCESS\n" * 998],
        "pause": [f"MASTER m{1 % games} pw-bench\n" + "PAUSE\nRESUME\n" * 499],
        "orders": [f"SIGNON FRANCE m{2 % games} pw-bench\n" + "A PAR - BUR\nA PAR - PIC\n" * 499],
        "press": [f"SIGNON FRANCE m{3 % games} pw-bench\n" + "".join(
            f"PRESS TO ALL\nhello {i}\nENDPRESS\n" for i in range(333))],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--attacks", default="")
    args = ap.parse_args()
    every = attacks(args.games)
    chosen = args.attacks.split(",") if args.attacks else list(every)
    d = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    port = free_port()
    cfg = Config(database=str(d / "judge.db"), base_dir=d)
    cfg.intake.mode, cfg.intake.listen = "smtp", f"127.0.0.1:{port}"
    cfg.outbound.mode = "maildir"
    s = Store(cfg.database_path)
    with s.transaction():  # the games, made directly (not the part measured)
        for i in range(args.games):
            game = G.open_game(s, G.create_game(s, f"m{i}", "pw-bench", "standard",
                                                (86400,) * 3, "gm@bench.test"))
            for p in G.get_variant("standard").board.powers:
                G.join_game(s, game, p, "pw-bench", f"{p.lower()}@bench.test")
            G.start_game(s, game, now_utc())
    s.close()
    service = Service(cfg)
    service.start()
    out: dict[str, dict] = {}
    try:
        for name in chosen:
            sent: dict[str, float] = {}
            with smtplib.SMTP("127.0.0.1", port, timeout=120) as c:
                for k, body in enumerate([*every[name], "HELP"]):
                    who = "attacker@evil.test" if body != "HELP" else f"stranger.{name}@else.test"
                    mid = make_msgid(domain="bench.test")
                    raw = compose(who, cfg.address, body, f"{name} {k}", message_id=mid)
                    c.sendmail(who, [cfg.address], raw.replace(b"\n", b"\r\n"))
                    sent[mid] = time.time()
            deadline = time.time() + 600
            while len(got := replied_at(cfg.maildir_path, set(sent))) < len(sent):
                assert time.time() < deadline, f"{name}: replies did not come"
                time.sleep(0.05)
            took = [round(got[m][0] - at, 2) for m, at in sent.items()]
            out[name] = {"attack_reply_seconds": took[:-1], "help_reply_seconds": took[-1]}
            print(f"{name:10} attack answered after {took[:-1]} s, the stranger's HELP after "
                  f"{took[-1]} s", flush=True)
    finally:
        service.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
