"""Benchmark: what a hostile mail costs in replies (docs/operating.md, "Security").

Sends, in-process (Maildir out), the attacks of issue 13 and prints the bytes the judge sent
back for the bytes it received, and the wall time it took:

* one mail of N lines of spam after a HELP (default 100,000 lines, about 800 KB);
* an inline-copying responder (the judge's reply pasted back without ">") for R rounds;
* F fresh HELP mails from one address (the hourly ceiling);
* (issue 23) K mails of L ``MAP`` lines each from a player, then a stranger's HELP, to the real
  service (:class:`judge.service.Service`: the built-in SMTP receiver, Maildir out, the wall
  clock): how long until each reply is in the Maildir, how many pictures were drawn.

Prints a few human lines, then one JSON line as the last line.

    .venv/bin/python bench/replies.py [--lines 100000] [--rounds 50] [--flood 100]
                                      [--map-mails 2] [--map-lines 1000]
"""

from __future__ import annotations

import argparse
import json
import smtplib
import sys
import tempfile
import time
from email.parser import BytesHeaderParser
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from mailkit import InProcessJudge, compose, free_port  # noqa: E402

import judge.games.game as G  # noqa: E402
import judge.games.mapcmd as mapcmd  # noqa: E402
from judge.config import Config  # noqa: E402
from judge.service import Service  # noqa: E402
from judge.storage import Store, now_utc  # noqa: E402


def replied_at(maildir: Path, wanted: set[str]) -> dict[str, tuple[float, int]]:
    """The replies in the Maildir to the Message-IDs ``wanted``: (file time, size)."""
    out: dict[str, tuple[float, int]] = {}
    parser = BytesHeaderParser()
    new = maildir / "new"
    for f in new.iterdir() if new.is_dir() else []:
        with f.open("rb") as fh:
            irt = (parser.parsebytes(fh.read(8192)).get("In-Reply-To") or "").strip()
        if irt in wanted:
            st = f.stat()
            out[irt] = (st.st_mtime, st.st_size)
    return out


def map_mails(mails: int, lines: int) -> dict:
    """``mails`` mails of ``lines`` MAP lines from a player, then a stranger's HELP, to the
    running service; the time from sending each to its reply, and the pictures drawn in the
    worker that answers everyone (judge serve has the pool draw them)."""
    d = Path(tempfile.mkdtemp(prefix="bench-replies-"))
    port = free_port()
    cfg = Config(database=str(d / "judge.db"), base_dir=d)
    cfg.intake.mode, cfg.intake.listen = "smtp", f"127.0.0.1:{port}"
    cfg.outbound.mode = "maildir"
    s = Store(cfg.database_path)
    with s.transaction():  # a game of three phases, made directly (not the part measured)
        game = G.open_game(s, G.create_game(s, "maps", "pw-bench", "standard", (86400,) * 3,
                                            "gm@bench.test"))
        for p in G.get_variant("standard").board.powers:
            G.join_game(s, game, p, "pw-bench", f"{p.lower()}@bench.test")
        G.start_game(s, game, now_utc())
    drawn: list[float] = []
    draw = mapcmd.svg_to_png

    def timed(svg: str) -> bytes:
        t0 = time.perf_counter()
        png = draw(svg)
        drawn.append(time.perf_counter() - t0)
        return png

    mapcmd.svg_to_png = timed  # type: ignore[assignment]
    service = Service(cfg)
    service.start()
    asks = ["MAP maps S1901M", "MAP", "MAP maps", "MAP maps S1901M SVG", "MAP maps S1901M"]
    sent: dict[str, tuple[str, float]] = {}
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as c:
            for k in range(mails + 1):
                who = "france@bench.test" if k < mails else "stranger@elsewhere.test"
                body = ("SIGNON FRANCE maps pw-bench\n" + "\n".join(
                    asks[i % len(asks)] for i in range(lines - 1)) if k < mails else "HELP")
                mid = make_msgid(domain="bench.test")
                raw = compose(who, cfg.address, body, f"bench {k}", message_id=mid)
                c.sendmail(who, [cfg.address], raw.replace(b"\n", b"\r\n"))
                sent[mid] = ("map" if k < mails else "help", time.time())
        deadline = time.time() + 300
        while len(got := replied_at(cfg.maildir_path, set(sent))) < len(sent):
            assert time.time() < deadline, "replies did not come"
            time.sleep(0.05)
    finally:
        service.stop()
        mapcmd.svg_to_png = draw  # type: ignore[assignment]
    first = min(at for _, at in sent.values())
    print("sent at", [round(at - first, 2) for _, at in sent.values()], "answered at",
          [round(got[m][0] - first, 2) for m in sent], file=sys.stderr)
    took = {mid: round(got[mid][0] - at, 2) for mid, (_, at) in sent.items()}
    maps = [took[m] for m, (kind, _) in sent.items() if kind == "map"]
    (help_id,) = [m for m, (kind, _) in sent.items() if kind == "help"]
    return {"map_mails": mails, "map_lines": lines, "map_reply_seconds": maps,
            "map_reply_bytes": [got[m][1] for m, (k, _) in sent.items() if k == "map"],
            "map_pictures_in_worker": len(drawn),
            "map_worker_picture_ms": round(1000 * sum(drawn) / max(1, len(drawn)), 1),
            "help_reply_seconds": took[help_id]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--flood", type=int, default=100)
    ap.add_argument("--map-mails", type=int, default=2)
    ap.add_argument("--map-lines", type=int, default=1000)
    ap.add_argument("--only-maps", action="store_true", help="the MAP mails only")
    args = ap.parse_args()
    out: dict = {}
    if args.map_mails:
        out.update(map_mails(args.map_mails, args.map_lines))
        print(f"{args.map_mails} mails of {args.map_lines} MAP lines, then a stranger's HELP: "
              f"MAP replies after {out['map_reply_seconds']} s "
              f"({out['map_reply_bytes']} bytes), {out['map_pictures_in_worker']} picture(s) "
              f"drawn in the worker ({out['map_worker_picture_ms']} ms each), HELP answered "
              f"after "
              f"{out['help_reply_seconds']} s")
        if args.only_maps:
            print(json.dumps(out))
            return

    judge = InProcessJudge(Path(tempfile.mkdtemp()))
    body = "HELP\n" + "\n".join(f"spam{i}" for i in range(args.lines))
    raw = compose("a@evil.test", judge.cfg.address, body, Reply_To="victim@innocent.test")
    t0 = time.perf_counter()
    sent = judge.deliver(raw)
    t = time.perf_counter() - t0
    size = sum(len(m.raw) for m in sent)
    print(f"{args.lines} spam lines: {len(raw)} bytes in, {size} bytes out in {len(sent)} "
          f"mail(s) to {[m.rcpt for m in sent]}, {t:.2f} s")
    out.update(spam_in=len(raw), spam_out=size, spam_amplification=round(size / len(raw), 4),
               spam_seconds=round(t, 2), victim_mails=sum(m.rcpt.startswith("victim")
                                                          for m in sent))

    judge = InProcessJudge(Path(tempfile.mkdtemp()))
    got = judge.send("robot@remote.test", "HELP")
    answered = len(got)
    for _ in range(args.rounds):
        if not got:
            break
        m = got[0]
        got = judge.deliver(compose("robot@remote.test", judge.cfg.address, m.body,
                                    subject="Re: " + m.subject))
        answered += len(got)
    print(f"inline-copying responder, {args.rounds} rounds: {answered} replies")
    out["responder_replies"] = answered

    judge = InProcessJudge(Path(tempfile.mkdtemp()))
    t0 = time.perf_counter()
    flood = sum(len(judge.send("flood@remote.test", "HELP", subject=f"n{i}"))
                for i in range(args.flood))
    t = time.perf_counter() - t0
    print(f"{args.flood} HELP mails from one address: {flood} replies "
          f"(ceiling {getattr(judge.cfg, 'replies_per_hour', None)}/hour), {t:.2f} s")
    out.update(flood_mails=args.flood, flood_replies=flood, flood_seconds=round(t, 2))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
