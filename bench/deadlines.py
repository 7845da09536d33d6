"""Benchmark: N standard and M Stab! games whose deadlines fall at the same moment (issue 15).

The games are made directly in a fresh database through the judge's own code (create, sign
on, start, orders for some powers; not through mail), every deadline is set to the same moment
a few seconds ahead, and the real service (:class:`judge.service.Service`: embedded defaults,
the built-in SMTP receiver, Maildir outbound, the wall clock) is started. It measures, from
the deadline, when each game's reports are queued ready to send (the moment, polled every
0.25 s, the game has report rows and none of its mail waits to be rendered), and, meanwhile, sends an orders mail for another running game
through the SMTP receiver every ``--mail-every`` seconds and measures how long until its
reply file appears in the Maildir.

Every power's password is hashed once (scrypt costs ~50 ms and the benchmark would spend
minutes on 9,000 identical hashes); the judge checks them as usual. Pictures drawn in the
worker thread are timed by wrapping :func:`judge.render.svg_to_png`; pictures drawn after the
transaction by the service's pool of processes are sampled (the first 200 SVGs) and drawn
again, timed, in this process once the run is over.

Prints a few human lines on stderr, then one JSON object as the last line of stdout:
``games``, ``seconds_to_last_report``, ``p50_report_s``, ``p99_report_s``, ``picture_ms``
(median), ``picture_bytes`` (median), ``reply_latency_s_during`` (the slowest reply to an
orders mail sent while the games were being processed), and a few more.

    .venv/bin/python bench/deadlines.py [--standard 1000] [--stab 200] [--mail-every 1]
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import smtplib
import socket
import statistics
import sys
import tempfile
import threading
import time
from datetime import timedelta
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import make_msgid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import judge.games.game as G  # noqa: E402
from judge import render  # noqa: E402
from judge.archive.store import ensure as ensure_archive  # noqa: E402
from judge.config import ArchiveConfig, Config  # noqa: E402
from judge.games.observers import prove  # noqa: E402
from judge.mail.outbox import Outbox  # noqa: E402
from judge.service import Service  # noqa: E402
from judge.storage import Store, iso, now_utc  # noqa: E402

STANDARD = {
    "AUSTRIA": ["A VIE - GAL", "A BUD - SER", "F TRI - ALB"],
    "ENGLAND": ["F LON - NTH", "F EDI - NWG", "A LVP - YOR"],
    "FRANCE": ["A PAR - PIC", "A MAR - BUR", "F BRE - MAO"],
    "GERMANY": ["A BER - KIE", "A MUN - RUH", "F KIE - DEN"],
}
STAB = {
    "AUSTRIA": ["PLACE A VIE", "PLACE A BUD", "PLACE F TRI"],
    "ENGLAND": ["PLACE F LON", "PLACE F EDI", "PLACE A LVP"],
    "FRANCE": ["PLACE F BRE", "PLACE A PAR", "PLACE A MAR"],
    "GERMANY": ["PLACE A BER", "PLACE A MUN", "PLACE F KIE"],
}
PASSWORD = "benchpw"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_games(s: Store, variant: str, count: int, orders: dict[str, list[str]],
               prefix: str) -> list[int]:
    """``count`` running games of ``variant``, seven players each, orders for some powers."""
    ids = []
    now = now_utc()
    powers = G.get_variant(variant).board.powers
    for i in range(count):
        with s.transaction():
            game = G.create_game(s, f"{prefix}{i}", PASSWORD, variant, (86400, 86400, 86400),
                                 f"gm-{prefix}{i}@bench.test")
            game = G.open_game(s, game)
            for p in powers:
                G.join_game(s, game, p, PASSWORD, f"{p.lower()}-{prefix}{i}@bench.test")
            game = G.start_game(s, game, now)
            for p, lines in orders.items():
                G.submit_orders(s, game, p, lines, None)
            ids.append(game["id"])
    return ids


class Timer:
    """svg_to_png, timed (the report code looks it up on judge.render when it draws)."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self.sizes: list[int] = []
        self.cpu_ms: list[float] = []  # CPU time of the sample drawn again (load-independent)
        self.lock = threading.Lock()
        inner = render.svg_to_png

        @functools.wraps(inner)
        def timed(svg: str, *a: object, **k: object) -> bytes:
            t0 = time.perf_counter()
            png = inner(svg, *a, **k)
            with self.lock:
                self.ms.append((time.perf_counter() - t0) * 1000)
                self.sizes.append(len(png))
            return png

        render.svg_to_png = timed  # type: ignore[assignment]
        self.svgs: list[str] = []  # pictures drawn after the transaction: a sample
        add = getattr(Outbox, "add_picture", None)
        if add is not None:
            def sampled(outbox: Outbox, filename: str, svg: str) -> int:
                if len(self.svgs) < 200:
                    self.svgs.append(svg)
                return add(outbox, filename, svg)

            Outbox.add_picture = sampled  # type: ignore[method-assign]

    def time_sample(self) -> None:
        """The sampled pictures (drawn in the pool during the run) drawn again here, timed."""
        if self.ms or not self.svgs:
            return
        from judge.render.raster import png

        png(self.svgs[0])  # the process's first picture fills the caches
        for svg in self.svgs:
            t0, c0 = time.perf_counter(), time.process_time()
            data = png(svg)
            self.ms.append((time.perf_counter() - t0) * 1000)
            self.cpu_ms.append((time.process_time() - c0) * 1000)
            self.sizes.append(len(data))


class Mailer(threading.Thread):
    """Orders mails for the live game through the SMTP receiver, one every ``every`` s until
    stopped; ``sent`` maps Message-ID -> the moment it was accepted."""

    def __init__(self, cfg: Config, port: int, every: float) -> None:
        super().__init__(daemon=True)
        self.cfg, self.port, self.every = cfg, port, every
        self.sent: dict[str, float] = {}
        self.stopping = threading.Event()

    def run(self) -> None:
        k = 0
        store = Store(self.cfg.database_path)  # to record each address as confirmed
        while not self.stopping.is_set():
            power = list(STANDARD)[k % len(STANDARD)]
            m = EmailMessage()
            # a new address each time (SIGNON moves the power to it): one address would meet
            # the ceiling of replies per hour (replies_per_hour) within the run
            m["From"] = f"{power.lower()}-live-{k}@bench.test"
            # a player who confirmed the address once: the sign-on acts at once (a new
            # address that never confirmed waits for that: judge/games/signup.py)
            with store.transaction():
                prove(store, m["From"], now_utc(), "bench")
            m["To"], m["Subject"] = self.cfg.address, f"orders {k}"
            m["Message-ID"] = mid = make_msgid(domain="bench.test")
            m.set_content(f"SIGNON {power} live {PASSWORD}\n" + "\n".join(STANDARD[power]))
            with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as c:
                c.sendmail(m["From"], [self.cfg.address], m.as_bytes())
            self.sent[mid] = time.time()
            k += 1
            self.stopping.wait(self.every)


def replies(maildir: Path, seen: dict[str, float], read: set[str]) -> None:
    """Record the first moment each In-Reply-To appears among the Maildir's files."""
    parser = BytesHeaderParser()
    for sub in ("new", "cur"):
        d = maildir / sub
        if not d.is_dir():
            continue
        for f in d.iterdir():
            if f.name in read:
                continue
            read.add(f.name)
            if "_reply." not in f.name:  # the sender names each file by its kind
                continue
            with f.open("rb") as fh:
                head = parser.parsebytes(fh.read(4096))
            irt = (head.get("In-Reply-To") or "").strip()
            if irt and irt not in seen:
                seen[irt] = f.stat().st_mtime


def cpu_seconds(path: str) -> float:
    """utime + stime of a /proc stat file (Linux; 0 elsewhere)."""
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_use() -> dict[str, float]:
    """CPU seconds so far of the service's threads (by name), of this whole process, and of
    its child processes (the rendering pool)."""
    out: dict[str, float] = {}
    for t in threading.enumerate():
        if t.name in ("deadlines", "worker", "painter", "sender", "archive") and t.native_id:
            out[t.name] = cpu_seconds(f"/proc/self/task/{t.native_id}/stat")
    out["process"] = cpu_seconds("/proc/self/stat")
    out["pool"] = sum(cpu_seconds(f"/proc/{c.pid}/stat") for c in multiprocessing.active_children())
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--standard", type=int, default=1000, help="standard games (N)")
    ap.add_argument("--stab", type=int, default=200, help="Stab! games (M)")
    ap.add_argument("--mail-every", type=float, default=1.0,
                    help="seconds between orders mails sent while the games are processed")
    ap.add_argument("--lead", type=float, default=5.0,
                    help="seconds from starting the service to the common deadline")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--archive", action="store_true",
                    help="with the web archive on ([archive] folder): also measures when "
                    "every game's page is written, and the archive's size")
    args = ap.parse_args()

    real_hash = G.hash_password
    G.hash_password = functools.lru_cache(maxsize=None)(real_hash)  # type: ignore[assignment]

    d = Path(tempfile.mkdtemp(prefix="bench-deadlines-"))
    port = free_port()
    cfg = Config(database=str(d / "judge.db"), base_dir=d)
    cfg.intake.mode, cfg.intake.listen = "smtp", f"127.0.0.1:{port}"
    cfg.outbound.mode = "maildir"
    if args.archive:
        cfg.archive = ArchiveConfig(folder="archive")
    cfg.database_path.parent.mkdir(parents=True, exist_ok=True)
    s = Store(cfg.database_path)
    if args.archive:
        ensure_archive(s)
    t0 = time.perf_counter()
    ids = make_games(s, "standard", args.standard, STANDARD, "std")
    ids += make_games(s, "stab", args.stab, STAB, "stab")
    make_games(s, "standard", 1, {}, "live")
    with s.transaction():  # the live game keeps its own (far) deadline
        live = G.find_game(s, "live0")
        G.set_deadline(s, live, now_utc() + timedelta(days=7))
    print(f"{len(ids)} games made in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    G.hash_password = real_hash  # type: ignore[assignment]

    timer = Timer()
    base = s.one("SELECT coalesce(max(id), 0) AS n FROM outbox")["n"]
    s.execute("UPDATE outbox SET state = 'sent'")  # the start notices: not part of this
    service = Service(cfg)
    deadline = now_utc() + timedelta(seconds=args.lead)
    with s.transaction():
        for gid in ids:
            game = s.game_by_id(gid)
            assert game is not None
            G.set_deadline(s, game, deadline)
    service.start()
    cpu_before = cpu_use()
    load_before = os.getloadavg()[0]
    mailer = Mailer(cfg, port, args.mail_every)
    seen: dict[str, float] = {}
    read: set[str] = set()
    deadline_ts = deadline.timestamp()
    while time.time() < deadline_ts - 1.0:
        time.sleep(0.1)
    mailer.start()
    games = len(ids)
    done_at: dict[int, float] = {}
    archived_at: dict[int, float] = {}  # its report's page written into the archive folder
    adjudicated_at: dict[int, float] = {}  # its transaction committed (its reports queued)
    wanted, reported, last_id = set(ids), set(), base
    try:
        while time.time() - deadline_ts < args.timeout:
            # incremental (new report rows by id, and the waiting ones by the state index):
            # the poll runs in the judge's process, and a query over the whole outbox every
            # quarter second cost the judge a third of its CPU at this size
            polled = time.time() - deadline_ts
            for r in s.all("SELECT id, game_id FROM outbox WHERE id > ? AND kind = 'report' "
                           "AND game_id IS NOT NULL", (last_id,)):
                last_id = max(last_id, r["id"])
                if r["game_id"] in wanted:
                    reported.add(r["game_id"])
                    adjudicated_at.setdefault(r["game_id"], polled)
            waiting = {r["game_id"] for r in s.all(
                "SELECT DISTINCT game_id FROM outbox WHERE state = 'waiting'")}
            for gid in reported - waiting - done_at.keys():
                done_at[gid] = polled
            replies(cfg.maildir_path, seen, read)
            if args.archive and len(archived_at) < games:
                for r in s.all("SELECT DISTINCT game_id FROM archive_mail WHERE kind = "
                               "'report' AND state = 'written'"):
                    if r["game_id"] in wanted:
                        archived_at.setdefault(r["game_id"], polled)
            if len(done_at) >= games and (not args.archive or len(archived_at) >= games):
                break
            time.sleep(0.25)
        finished = time.time()
        cpu = {k: round(v - cpu_before.get(k, 0.0), 1) for k, v in cpu_use().items()}
        load_after = os.getloadavg()[0]
        mailer.stopping.set()
        mailer.join(60)
        # the replies to mails sent during the run: wait for the stragglers
        while time.time() - finished < 120 and any(m not in seen for m in mailer.sent):
            replies(cfg.maildir_path, seen, read)
            time.sleep(0.25)
    finally:
        service.stop()
    timer.time_sample()
    lat = [seen[m] - t for m, t in mailer.sent.items() if m in seen]
    unanswered = sum(m not in seen for m in mailer.sent)
    times = list(done_at.values())
    out = {
        "games": games, "standard": args.standard, "stab": args.stab,
        "reports_queued": len(done_at),
        "seconds_to_last_report": round(max(times), 2) if times else None,
        "p50_report_s": round(pct(times, 0.5), 2), "p99_report_s": round(pct(times, 0.99), 2),
        # when the deadline worker had adjudicated the last game and stored its mail's jobs
        # (the rest of the time to the last report is the pool rendering and drawing)
        "seconds_to_last_adjudicated": round(max(adjudicated_at.values()), 2)
        if adjudicated_at else None,
        "picture_ms": round(statistics.median(timer.ms), 1) if timer.ms else None,
        "picture_bytes": int(statistics.median(timer.sizes)) if timer.sizes else None,
        "pictures": len(timer.ms),
        "picture_cpu_ms": round(statistics.median(timer.cpu_ms), 1) if timer.cpu_ms else None,
        "reply_latency_s_during": round(max(lat), 2) if lat else None,
        "reply_latency_p50_s": round(pct(lat, 0.5), 2),
        "replies_during": len(lat), "replies_unanswered": unanswered,
        "deadline": iso(deadline),
        # CPU seconds from the start to the last report: the service's threads, the whole
        # process, the rendering pool; and the machine's load average (1 min) then
        "cpu_s": cpu, "load_before": round(load_before, 2), "load_after": round(load_after, 2),
    }
    if args.archive:
        folder = cfg.archive_path
        out["seconds_to_last_archived"] = round(max(archived_at.values()), 2) \
            if archived_at else None
        out["games_archived"] = len(archived_at)
        out["archive_bytes"] = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    print(f"last report {out['seconds_to_last_report']} s after the deadline; slowest reply "
          f"{out['reply_latency_s_during']} s", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
