"""A season in a box (issue 25): games of every variant played to their end by simulated
players and a simulated master, through the real judge (:class:`judge.service.Service`: the
SMTP receiver, worker, deadline worker, painter, sender to a Maildir) on a virtual clock, with
invariants checked on every game. ``bench/season.py`` is its command line; tests/test_season.py
runs a small season.

The clock is one object (:class:`VirtualClock`) given to the Service; the simulator moves it
from one game's next wake (``games.wake_at``) to the next and pokes the scheduler
(:meth:`judge.scheduler.Clock.advance`), so a phase of two days passes in milliseconds. With
``kill`` > 0 the Service runs in a child process of this module (``python seasonkit.py child
DIR PORT``) that reads the clock's moves from its stdin; the simulator kills it with SIGKILL
now and then and starts another on the same database.

Same seed, same run. Everything the simulator draws comes from one ``random.Random(seed)``
(and per-game generators made from it); what the judge draws by chance (a Dipnomicy game's
seed: its countries and the order of its proposals; Gunboat's pseudonyms) from
:class:`SeededChance`, given to the Service. What the players and masters write in a round
depends only on what the database says as the round begins (their mails are held until all
have written), and the mails are delivered in waves, each game's next mail in each wave, the
judge settled between (:meth:`Season.deliver_held`): a phase processed early by the deadline
worker, or a vote's reminder, never races the game's next mail. The clock moves only once
the judge is quiet, its deadline worker caught up (:meth:`Season.behind`). The codes,
tokens, Message-IDs and Date headers the judge makes still differ from run to run: the
players copy a code back, nothing they decide depends on it. With ``kill`` the kill moments
come from the seed, where they land in the judge's work does not.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import random
import re
import smtplib
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from mailkit import crlf, free_port  # noqa: E402

START = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
PHASE_RE = re.compile(r"^([SFWAU])(\d+)(BC)?([MRA])$")


# ------------------------------------------------------------------------------ clock
class SeededChance:
    """The judge's draws of chance (judge.games.flow.Chance: a Dipnomicy game's seed, Gunboat's
    pseudonyms), from the season's seed: one generator per draw, named by what it draws and
    for which game, so a draw does not depend on the order the games started in."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, purpose: str) -> random.Random:
        return random.Random(f"season-{self.seed}:{purpose}")


class VirtualClock:
    """The judge's notion of now: one object, moved only by the simulator (thread-safe)."""

    def __init__(self, start: datetime = START) -> None:
        self._t = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self._t

    def set(self, t: datetime) -> None:
        with self._lock:
            if t > self._t:
                self._t = t


# ------------------------------------------------------------------------------ the judge
def make_config(d: Path, port: int) -> Any:
    from judge.config import Config

    cfg = Config(database=str(d / "judge.db"), base_dir=d)
    cfg.intake.mode, cfg.intake.listen = "smtp", f"127.0.0.1:{port}"
    cfg.outbound.mode, cfg.outbound.maildir = "maildir", "outgoing"
    # the ceiling of replies an hour counts the judge's (virtual) hours; the simulated players
    # do not model it (the invariants expect a reply to every mail), so it is out of reach
    cfg.replies_per_hour = 1_000_000
    cfg.limits.games_per_day = 1000
    cfg.default_settle = "10m"
    return cfg


class ErrorLog(logging.Handler):
    """Every ERROR (or worse) log record of the judge, kept."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.records.append(f"{record.name}: {text[:2000]}")


def cheap_passwords() -> None:
    """scrypt at a low cost (as tests/conftest.py): each hash records its own cost."""
    from judge.games import auth

    auth.N = 2**4


class InProcessJudge:
    """The Service in this process, on the virtual clock."""

    def __init__(self, d: Path, clock: VirtualClock, seed: int) -> None:
        from judge.service import Service

        self.port = free_port()
        self.cfg = make_config(d, self.port)
        self.clock = clock
        self.errors = ErrorLog()
        logging.getLogger().addHandler(self.errors)
        # the judge's log in the season's folder, as the child judge's (--kill): --keep
        # leaves it there with the database and the Maildir
        self.log = logging.FileHandler(d / "judge.log", encoding="utf-8")
        self.log.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(self.log)
        logging.getLogger().setLevel(logging.INFO)
        logging.getLogger("judge").setLevel(logging.INFO)
        for noisy in ("mail.log", "apscheduler"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
        self.service = Service(self.cfg, clock=clock, chance=SeededChance(seed))
        self.service.start()
        self.restarts = 0

    def moved(self) -> None:
        """The clock moved: the scheduler wakes what is due."""
        self.service.clock.advance()
        self.service.deadlines.wake()

    def poke(self) -> None:
        self.service.deadlines.wake()
        self.service.worker.wake()
        self.service.sender.wake()

    def error_lines(self) -> list[str]:
        return list(self.errors.records)

    def kill(self) -> None:
        raise RuntimeError("--kill needs the judge in a child process")

    def stop(self) -> None:
        self.service.stop()
        logging.getLogger().removeHandler(self.errors)
        logging.getLogger().removeHandler(self.log)
        self.log.close()


class ChildJudge:
    """The Service in a child process (``python seasonkit.py child DIR PORT ISO SEED``) that reads
    clock moves (``T <iso>``) and pokes (``P``) from its stdin; killed with SIGKILL and
    started again on the same database and port."""

    def __init__(self, d: Path, clock: VirtualClock, seed: int) -> None:
        self.d, self.clock, self.seed = d, clock, seed
        self.port = free_port()
        self.cfg = make_config(d, self.port)
        self.log = d / "judge.log"
        self.proc: subprocess.Popen | None = None
        self.restarts = 0
        self.offsets: list[int] = []  # where each child's log begins
        self.orphans = 0  # painter processes spawned as the judge was killed (error_lines)
        self.start()

    def start(self) -> None:
        self.offsets.append(self.log.stat().st_size if self.log.exists() else 0)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "child", str(self.d), str(self.port),
             self.clock().isoformat(), str(self.seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.log, "ab"),  # noqa: SIM115
            env=env, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"the judge did not start: {self.log.read_text()[-3000:]}")

    def _say(self, text: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def moved(self) -> None:
        self._say("T " + self.clock().isoformat())

    def poke(self) -> None:
        self._say("P")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL
        self.proc.wait()
        self.restarts += 1
        self.start()

    def error_lines(self) -> list[str]:
        if not self.log.exists():
            return []
        out = []
        lines = self.log.read_text(errors="replace").splitlines()
        for k, line in enumerate(lines):
            if line.startswith("Traceback"):
                # the whole traceback, to the exception's own line (the first line after it
                # not indented): cut at 12 lines, a deep one lost what was raised
                end = next((j for j in range(k + 1, len(lines))
                            if lines[j] and not lines[j].startswith(" ")), len(lines) - 1)
                block = "\n".join(lines[k:min(end + 1, k + 80)])
                # a process of the painter's pool being spawned when its parent, the judge,
                # was killed: it finds no parent to read its start from (no judge code ran)
                if "multiprocessing/spawn.py" in block and "EOFError: Ran out of input" in block:
                    self.orphans += 1
                    continue
                out.append(block[-4000:])
            elif " ERROR " in line or " CRITICAL " in line:
                out.append(line[:2000])
        return out

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self._say("Q")
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def child_main(d: str, port: int, start: str, seed: int) -> None:
    """The judge in a child process: the Service on a clock moved through stdin."""
    from judge.service import Service, setup_logging

    setup_logging("info", "text")
    cheap_passwords()
    clock = VirtualClock(datetime.fromisoformat(start))
    cfg = make_config(Path(d), port)
    cfg.intake.listen = f"127.0.0.1:{port}"
    service = Service(cfg, clock=clock, chance=SeededChance(seed))
    service.start()
    print("ready", flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd.startswith("T "):
            clock.set(datetime.fromisoformat(cmd[2:]))
            service.clock.advance()
            service.deadlines.wake()
        elif cmd == "P":
            service.deadlines.wake()
            service.worker.wake()
            service.sender.wake()
        elif cmd == "Q":
            break
    service.stop()


def overdue_stages(db: Path, now: datetime) -> list[tuple[str, str, str]]:
    """(game, stage, what) of each running game whose current stage (its phase, or a flow's
    own, a Dipnomicy vote) is still waiting at ``now`` past its deadline plus grace, as the
    judge's own flow states them (invariant 1: no phase waits past its deadline plus grace;
    a game set to wait for a missing player, SET MISSED WAIT, waits by rule). Checked once
    the judge is quiet: the deadline worker has done what was due."""
    from judge.games.flow import flow_for
    from judge.storage import Store

    s = Store(db)
    out = []
    try:
        with s.snapshot():
            for game in s.all("SELECT * FROM games WHERE status = 'active'"):
                stage = flow_for(game).stage(s, game)
                if stage.deadline is None or stage.missed == "wait":
                    continue
                end = stage.deadline + timedelta(seconds=stage.grace)
                if now > end + timedelta(minutes=1):
                    out.append((game["name"], stage.key, f"{stage.title or stage.key} waits "
                                f"past its deadline {stage.deadline} plus grace {stage.grace} "
                                f"s (ended {end}; the judge's next wake: {game['wake_at']})"))
        return out
    finally:
        s.close()


# ------------------------------------------------------------------------------ orders
def phase_parts(code: str) -> tuple[str, int, bool, str] | None:
    m = PHASE_RE.match(code or "")
    if not m:
        return None
    return m.group(1), int(m.group(2)), bool(m.group(3)), m.group(4)


def next_movement(code: str) -> str | None:
    """The movement phase after ``code`` in the standard calendar (for PHASE blocks)."""
    p = phase_parts(code)
    if p is None or p[2]:
        return None
    season, year, _, _ = p
    return f"F{year}M" if season == "S" else f"S{year + 1}M"


def phase_title(code: str) -> str:
    p = phase_parts(code)
    if p is None:
        return code
    season = {"S": "Spring", "F": "Fall", "W": "Winter", "A": "Autumn", "U": "Summer"}[p[0]]
    kind = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}[p[3]]
    return f"{season} {p[1]}{' BC' if p[2] else ''} {kind}"


def _legal(variant: Any, pos: Any, power: str, line: str) -> bool:
    try:
        variant.read_order(pos, power, line)
        return True
    except Exception:  # noqa: BLE001 - an order the variant refuses
        return False


def _generic_retreats(variant: Any, pos: Any, power: str, rng: random.Random) -> list[str]:
    out = []
    board = variant.board
    for d in pos.dislodged:
        if d.unit.power != power:
            continue
        unit = str(d.unit)
        options = [f"{unit} R {x}" for x in sorted(getattr(d, "retreats", ()) or ())]
        if not options:
            prov = d.unit.location.split("/")[0]
            near = sorted(board.neighbours(prov)) if hasattr(board, "neighbours") else []
            options = [f"{unit} R {x}" for x in near]
        options = [x for x in options if _legal(variant, pos, power, x)]
        if options and rng.random() < 0.85:
            out.append(rng.choice(options))
        else:
            out.append(f"{unit} D")
    return out


def _generic_adjustments(variant: Any, pos: Any, power: str, rng: random.Random) -> list[str]:
    from judge.games import game as G

    _, count = G.needs(variant, pos, power)
    board = variant.board
    out: list[str] = []
    if count > 0:
        homes = list(board.home_centres.get(power, ()))
        rng.shuffle(homes)
        used: set[str] = set()
        for h in homes:
            if len(out) >= count:
                break
            kinds = ["A", "F"] + [f"F {h}/{c}" for c in ()]
            cands = [f"BUILD A {h}", f"BUILD F {h}"]
            prov = board.provinces.get(h)
            for c in getattr(prov, "coasts", ()) or ():
                cands.append(f"BUILD F {c if '/' in c else h + '/' + c}")
            del kinds
            rng.shuffle(cands)
            for c in cands:
                if h not in used and _legal(variant, pos, power, c):
                    out.append(c)
                    used.add(h)
                    break
        if len(out) < count and rng.random() < 0.5:
            out.append("WAIVE")
    elif count < 0:
        mine = [u for u in pos.units if u.power == power]
        for u in rng.sample(mine, min(len(mine), -count)):
            out.append(f"REMOVE {u}")
    return out


def phase_orders(vname: str, variant: Any, pos: Any, power: str, rng: random.Random
                 ) -> list[str]:
    """A power's orders for the phase ``pos``: legal ones, as a player would write them."""
    kind = pos.phase.kind
    if vname == "stab":
        import test_stab_mail_leak as S

        return S.random_lines(pos, power, rng)
    if kind == "R":
        return _generic_retreats(variant, pos, power, rng)
    if kind == "A":
        if vname == "hoplite":
            import test_hoplite_game as H

            lines = [x for p, x in H.random_orders(pos, rng) if p == power]
            return [x for x in lines if _legal(variant, pos, power, x)] or \
                _generic_adjustments(variant, pos, power, rng)
        if vname == "chessdip":
            from judge.variants.chessdip import randomgame as C

            with contextlib.suppress(Exception):
                lines = [x for p, x in C.adjustment_lines(variant.board, variant.rules, pos, rng)
                         if p == power]
                return lines
        return _generic_adjustments(variant, pos, power, rng)
    # movement
    if vname == "chessdip":
        from judge.variants.chessdip import randomgame as C

        return [x for p, x in C.movement_lines(variant.board, variant.rules, pos, rng)
                if p == power]
    if vname == "hoplite":
        import test_hoplite_game as H

        lines = [x for p, x in H.random_orders(pos, rng) if p == power]
    elif vname == "multiplicity":
        import test_multiplicity_properties as M

        lines = [x for p, x in M.random_lines(pos, rng) if p == power]
    else:
        from judge.engine.randomgame import random_orders

        lines = [str(o) for p, o in random_orders(variant.board, pos, rng) if p == power]
    return [x for x in lines if _legal(variant, pos, power, x)]


GARBLE = ["A XYZ - QQQ", "F LON - - NTH", "HOLD EVERYTHING", "A PAR S", "BUILD Z PAR",
          "PHASE X 9999 Q", "IF", "ENDIF", "A MUN - BER VIA CONVOY PLEASE", "???",
          "SET SOMETHING ODD"]
SIGNOFFS = [["Cheers,", "Anna"], ["Best regards,", "Hans Müller"], ["Grüße"], ["Thanks!"]]
QUOTES = ["On Mon, 23 Nov 2026 the judge wrote:\n> Orders for you\n> A PAR H",
          "> last turn you said\n> A MUN - BER", "-- \nsent by a player's signature"]


_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MON = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
DATE_RES = [
    # Mon 30 Nov 2026 10:00 UTC (judge/mail/compose.py deadline_text)
    re.compile(rf"\b{_DAY}\s+\d{{1,2}}\s+{_MON}\s+\d{{4}}\s+\d{{2}}:\d{{2}}(?:\s+[A-Z][A-Za-z/_+-]*)?"),
    # Fri Dec 04 2026 10:00:00 +0000 (the classic judges' format: classic_time)
    re.compile(rf"\b{_DAY}\s+{_MON}\s+\d{{1,2}}\s+\d{{4}}\s+\d{{2}}:\d{{2}}:\d{{2}}\s+[+-]\d{{4}}"),
    # how far off it is: (in 2 days 3 hours), (3 hours ago)
    re.compile(r"\s?\((?:in|due\s+in)\s[^)]*\)|\([^)]*\sago\)"),
]


def report_text(text: str) -> str:
    """A report's text for comparing two adjudications of one phase: its dates (the
    deadlines of the phase after it, which a ROLLBACK played days later moves) and how far
    off they are ('in 2 days 3 hours') are normalised, nothing else; the lines are compared
    as words (a shorter date re-wraps a paragraph)."""
    text = text.replace("\r\n", "\n")
    for k, rx in enumerate(DATE_RES):
        text = rx.sub("" if k == 2 else "<date>", text)
    return text


def same_words(a: str, b: str) -> bool:
    return a.split() == b.split()


# ------------------------------------------------------------------------------ the season
@dataclass
class Seat:
    power: str
    address: str
    password: str
    silent_from: int = 10**9  # phases counted from the start: from this one, no mail
    sent_keys: set = field(default_factory=set)


@dataclass
class SimGame:
    name: str
    kind: str  # the label of the season's table of variants
    variant: str
    options: str
    rng: random.Random
    gm: str
    gm_password: str
    seats: dict[str, Seat] = field(default_factory=dict)
    joiners: list[tuple[str, str]] = field(default_factory=list)  # Dipnomicy: address, password
    gid: int | None = None
    start_phase: str | None = None
    phases_seen: list[str] = field(default_factory=list)
    acted: set = field(default_factory=set)
    ending: bool = False
    paused: bool = False
    end_sent_at: int | None = None
    stuck_rounds: int = 0
    rolled_back: int = 0
    replay: dict | None = None  # a ROLLBACK waiting to be checked (invariant 7)
    newcomers: int = 0
    offers: list[dict] = field(default_factory=list)  # seats offered by REPLACE, unanswered
    takeovers: list[dict] = field(default_factory=list)  # TAKEOVERs waiting for their code
    who: dict[str, str] = field(default_factory=dict)  # every address that played -> power
    owned: dict[str, set] = field(default_factory=dict)  # power -> provinces (hiddenwatch)
    observer: str = ""
    mid_observe: str = ""
    # the players' mails while a phase was current (power, body, subject): a Dipnomicy
    # ROLLBACK undoes a turn's orders, and its players send the same mails again
    mails_by_phase: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    # the phase the players mailed for in this round (mails_by_phase), and the phases whose
    # mails are not known: one of their mails had the phase processed early, those after
    # it were the next phase's orders (:meth:`Season.attribute_mails`)
    mailed_in: str | None = None
    unattributed: set = field(default_factory=set)
    master_log: list[str] = field(default_factory=list)
    draw_pact: bool = False  # its players all vote for a draw in the last year


KINDS: list[tuple[str, str, str]] = [
    ("standard", "standard", ""),
    ("stackem", "stackem", ""),
    ("hoplite", "hoplite", ""),
    ("multiplicity", "multiplicity", ""),
    ("chessdip", "chessdip", ""),
    ("stab", "stab", "RETREATS WITH_ORDERS"),
    ("stab-next", "stab", "RETREATS NEXT_SEASON"),
    ("dipnomicy", "dipnomicy", ""),
    ("gunboat", "stab", "RETREATS WITH_ORDERS GUNBOAT"),
]

AHEAD_VARIANTS = {"standard", "stackem", "stab", "dipnomicy"}
# the kinds whose master EDITs (units and centres as on the standard board); Gunboat's too
# since its EDIT notice names powers by their pseudonyms (tests/test_gunboat_edit.py: it told
# England "LON now belongs to Turkey", found by this season, --seed 5 --only gunboat)
EDIT_KINDS = {"standard", "stab", "stab-next", "gunboat"}


class Season:
    def __init__(self, d: Path, games_per_variant: int, years: int, seed: int, kill: int = 0,
                 progress: Callable[[str], None] | None = None, kinds: list[str] | None = None
                 ) -> None:
        self.d = d
        self.years, self.seed, self.kill_count = years, seed, kill
        self.rng = random.Random(seed)
        self.clock = VirtualClock()
        self.progress = progress or (lambda s: None)
        self.violations: list[dict] = []
        self.sent: list[dict] = []  # every mail sent to the judge: id, from, game
        self.wrote: set[str] = set()  # addresses that wrote to the judge
        # address -> the last outbox row queued before it first wrote (what the judge sent it
        # up to there went to a stranger): by row, as the judge's clock may stand still
        self.first_wrote: dict[str, int] = {}
        self.named: set[str] = set()  # addresses a master named (REPLACE)
        self.mail_no = 0
        self.games: list[SimGame] = []
        self.games_per_variant = games_per_variant
        self.only = kinds
        self.kinds = [k for k in KINDS if kinds is None or k[0] in kinds]
        self.kills_done = 0
        self.kill_rounds: Counter[int] = Counter()
        self.round = 0
        # the round's mails, by game, while the simulated players and masters write them:
        # delivered by deliver_held (None: each mail is delivered as it is written)
        self.held: dict[str, list[tuple[str, bytes, dict]]] | None = None
        self.replayed = 0
        # mails the judge acknowledged and never stored, once a wait for them timed out
        # (reported then, and by invariant 3): not waited for again, round after round
        self.lost = 0
        self.shuffled = 0
        from hiddenwatch import HiddenWatch

        self.watch = HiddenWatch()

    # ------------------------------------------------------------------ helpers
    def violation(self, game: SimGame | None, what: str, phase: str | None = None) -> None:
        v = {"game": game.name if game else None, "variant": game.kind if game else None,
             "phase": phase, "what": what[:3000]}
        if v not in self.violations:
            self.violations.append(v)
            self.progress(f"VIOLATION {v['game']} {v['variant']} {v['phase']}: {what[:300]}")

    def db(self) -> sqlite3.Connection:
        c = sqlite3.connect(str(self.d / "judge.db"), timeout=30)
        c.row_factory = sqlite3.Row
        return c

    def send(self, frm: str, body: str, game: SimGame | None, subject: str = "orders",
             headers: dict[str, str] | None = None) -> str:
        self.mail_no += 1
        m = EmailMessage()
        m["From"], m["To"] = frm, self.judge.cfg.address
        m["Subject"] = subject
        m["Date"] = format_datetime(self.clock())
        mid = f"<s{self.seed}.{self.mail_no}@players.test>"
        m["Message-ID"] = mid
        for k, v in (headers or {}).items():
            m[k] = v
        m.set_content(body)
        mail = (frm, m.as_bytes(), {"mid": mid, "from": frm.lower(),
                                    "game": game.name if game else None, "body": body})
        if self.held is not None:  # in a round: delivered by deliver_held
            self.held.setdefault(game.name if game else "", []).append(mail)
        else:
            self.deliver(*mail)
        return mid

    def deliver(self, frm: str, raw: bytes, record: dict) -> None:
        if frm.lower() not in self.first_wrote:  # read before the judge can hear it
            c = self.db()
            try:
                last = c.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0]
            finally:
                c.close()
            self.first_wrote[frm.lower()] = int(last)
        for attempt in range(50):
            try:
                with smtplib.SMTP("127.0.0.1", self.judge.port, timeout=30) as c:
                    c.sendmail(frm, [self.judge.cfg.address], crlf(raw))
                break
            except (OSError, smtplib.SMTPException):
                if attempt == 49:
                    raise
                time.sleep(0.1)  # a judge being restarted
        self.sent.append(record)
        self.wrote.add(frm.lower())

    def deliver_held(self, kills: int = 0) -> None:
        """Deliver the round's mails in waves, each game's next mail in each wave, and wait
        for the judge to have acted on a wave, and on what it made due, before the next: a
        game's mail is read after everything its previous mail set off (a phase processed
        early, by the deadline worker, when orders sent ahead complete it; a vote closed), not
        racing it, so the same seed plays the same game. ``kills``: the judge is killed that
        many times once the first wave is delivered (while it reads the round's mail)."""
        queues = [q for q in (self.held or {}).values() if q]
        self.held = None
        wave = 0
        while any(queues):
            for q in queues:
                if q:
                    self.deliver(*q.pop(0))
            wave += 1
            if wave == 1:
                for _ in range(kills):
                    self.kill_now()
            if any(queues):
                self.quiet(settled_only=True)
        for _ in range(kills if wave == 0 else 0):
            self.kill_now()

    def quiet(self, timeout: float = 60.0, settled_only: bool = False) -> bool:
        """Wait until the judge has stored and acted on every mail, sent every message (the
        painter done), has no game due at the clock's time, and its deadline worker has
        caught up with what the mails changed (:meth:`behind`). ``settled_only``: the games
        are settled (mail acted on, nothing due, the deadline worker caught up), the mail
        may still be on its way out. False (and a violation) on timeout."""
        t0 = time.monotonic()
        now = self.clock().isoformat(timespec="milliseconds")
        poked = 0.0
        while True:
            with contextlib.closing(self.db()) as c:
                # one read transaction: the deadline worker may process a due game between
                # two reads, and 'no message pending' read before its reports were queued with
                # 'nothing due' read after it said quiet with those reports still unbuilt (the
                # Stab! oracle then read an empty mail; twice on seed 5, on a loaded machine)
                c.execute("BEGIN")
                stored = c.execute("SELECT count(*) FROM inbox").fetchone()[0]
                new = c.execute("SELECT count(*) FROM inbox WHERE state = 'new'").fetchone()[0]
                out = 0 if settled_only else c.execute(
                    "SELECT count(*) FROM outbox WHERE state IN ('pending', 'waiting')"
                ).fetchone()[0]
                due = c.execute("SELECT id, name, phase, wake_at FROM games WHERE status IN "
                                "('active', 'paused') AND wake_at IS NOT NULL AND wake_at <= ?",
                                (now.replace("+00:00", "+00:00"),)).fetchall()
            due = [r for r in due if datetime.fromisoformat(r["wake_at"]) <= self.clock()]
            if stored >= len(self.sent) - self.lost and not new and not out and not due and \
                    not self.behind():
                return True
            if time.monotonic() - poked > 0.5:
                self.judge.moved()
                self.judge.poke()
                poked = time.monotonic()
            if time.monotonic() - t0 > timeout:
                for r in due:
                    g = next((x for x in self.games if x.name == r["name"]), None)
                    self.violation(g, f"due at {r['wake_at']} and not acted on by "
                                   f"{self.clock().isoformat()} (phase waits past its deadline)",
                                   r["phase"])
                if stored < len(self.sent) - self.lost or new or out:
                    self.violation(None, f"judge not quiet after {timeout} s: {len(self.sent)} "
                                   f"mails sent, {stored} stored, {new} not acted on, {out} "
                                   "messages not sent")
                self.lost = max(self.lost, len(self.sent) - stored)
                return False
            time.sleep(0.01)

    def behind(self) -> bool:
        """Whether the judge's deadline worker has yet to catch up with a change the worker
        made: a game's stored next wake (``wake_at``, which the deadline worker writes) is not
        the one the deadline engine works out now (a DEADLINE moved it, orders sent ahead set
        an early processing, a RESUME). Until it has, the clock must not move on that
        ``wake_at`` (the next round would begin at another moment), nor the next mail go."""
        from judge.config import Config
        from judge.games.deadlines import next_wake
        from judge.storage import Store, iso

        cfg = getattr(getattr(self, "judge", None), "cfg", None) or Config()
        now = self.clock()
        s = Store(self.d / "judge.db")
        try:
            with s.snapshot():  # the judge's threads commit meanwhile (a ROLLBACK)
                for game in s.all("SELECT * FROM games WHERE status IN ('active', 'paused')"):
                    wake = next_wake(s, cfg, game, now)
                    if (iso(wake) if wake else None) != game["wake_at"]:
                        return True
            return False
        finally:
            s.close()

    # ------------------------------------------------------------------ setup
    def make_games(self) -> None:
        # every kind draws its games' seeds, played or not: a run of a few kinds (--only)
        # plays each of its games from the seed the full run gives it (a nightly breach in
        # one game can be played again alone)
        for kind, variant, options in KINDS:
            for i in range(self.games_per_variant):
                name = f"{kind.replace('-', '')}{i}"
                game_seed = self.rng.random()
                if self.only is not None and kind not in self.only:
                    continue
                g = SimGame(name, kind, variant, options, random.Random(game_seed),
                            f"gm.{name}@players.test", f"gm-{name}")
                # drawn apart from the game's generator: what else it plays stays the same
                g.draw_pact = random.Random(f"{game_seed}:draw").random() < 0.3
                self.games.append(g)

    def create_all(self) -> None:
        from judge.games import game as G

        creates: list[tuple[SimGame, str, str]] = []  # (game, master, Message-ID)
        for g in self.games:
            opts = f"VARIANT {g.variant} {g.options}".strip()
            # every deadline at 10:00 and no settling delay in three games of four: the
            # games' wakes fall together (a round serves them all), not one round per game
            # drifted apart by its own early processing
            body = f"CREATE {g.name} {g.gm_password} {opts}\nSET REMINDER 12h\nSET TIME 10:00"
            if g.rng.random() < 0.75:
                body += "\nSET SETTLE 0"
            if g.rng.random() < 0.5:
                body += "\nSET GRACE 6h"
            body += "\nOPEN"
            creates.append((g, g.gm, self.send(g.gm, body, g, "new game")))
        self.quiet()
        self.confirm_sign_ons(creates)  # a new master answers its CREATE's code too
        joins: list[tuple[SimGame, str, str]] = []  # (game, address, Message-ID)
        for g in self.games:
            if g.variant == "dipnomicy":
                n = g.rng.choice([5, 6, 7])
                for k in range(n):
                    a, pw = f"p{k}.{g.name}@players.test", f"seat{k}-{g.name}"
                    g.joiners.append((a, pw))
                    joins.append((g, a, self.send(a, f"JOIN {g.name} {pw}", g, "join")))
            else:
                powers = G.get_variant(g.variant).board.powers
                for p in powers:
                    a = f"{p.lower()}.{g.name}@players.test"
                    seat = Seat(p, a, f"pw-{p.lower()}-{g.name}")
                    g.seats[p] = seat
                    g.who[a] = p
                    joins.append((g, a, self.send(a, f"SIGNON {p} {g.name} {seat.password}",
                                                  g, "join")))
        self.quiet()
        self.confirm_sign_ons(joins)
        self.observe()
        for g in self.games:
            self.send(g.gm, f"MASTER {g.name} {g.gm_password}\nSTART", g, "start")
        self.quiet()
        with contextlib.closing(self.db()) as c:
            for g in self.games:
                row = c.execute("SELECT id, phase, status FROM games WHERE name = ?",
                                (g.name,)).fetchone()
                if row is None or row["status"] != "active":
                    self.violation(g, f"did not start: {dict(row) if row else None}")
                    continue
                g.gid, g.start_phase = row["id"], row["phase"]
                if g.variant == "dipnomicy":
                    for r in c.execute("SELECT power, address FROM players WHERE game_id = ?",
                                       (g.gid,)):
                        pw = dict(g.joiners)[r["address"]]
                        g.seats[r["power"]] = Seat(r["power"], r["address"], pw)
                        g.who[r["address"].lower()] = r["power"]
                # one power in three games goes silent after a while (NMR, civil disorder,
                # then abandonment); another power in one game in four is silent from the start
                powers = sorted(g.seats)
                if g.rng.random() < 0.35:
                    g.seats[g.rng.choice(powers)].silent_from = g.rng.randint(2, 6)
                if g.rng.random() < 0.25:
                    g.seats[g.rng.choice(powers)].silent_from = 0

    def confirm_sign_ons(self, joins: list[tuple[SimGame, str, str]]) -> None:
        """Each player's first sign-on waits for its address to confirm, and a new master's
        game mail: CONFIRM with the code in the judge's reply to each ``(game, address,
        Message-ID)``, as a person would (judge/games/signup.py)."""
        from invariants import _body

        with contextlib.closing(self.db()) as c:
            for g, a, mid in joins:
                r = c.execute("SELECT o.raw FROM outbox o JOIN inbox i ON i.id = o.inbox_id "
                              "WHERE i.key LIKE ? AND o.kind = 'reply'", (mid + "%",)).fetchone()
                m = re.search(r"CONFIRM\s+([0-9a-f]{16})", _body(r["raw"])) if r else None
                if m is None:
                    self.violation(g, f"{a}: no confirmation code in the reply")
                    continue
                self.send(a, f"CONFIRM {m.group(1)}", g, "confirm")
        self.quiet()

    def observe(self) -> None:
        """An observer in every Stab! game (hidden information: invariant 4): OBSERVE, then
        CONFIRM with the code in the judge's reply, as a person would."""
        from invariants import _body

        stab = [g for g in self.games if g.variant == "stab"]
        for g in stab:
            g.observer = f"obs.{g.name}@players.test"
            g.mid_observe = self.send(g.observer, f"OBSERVE {g.name}", g, "observe")
        self.quiet()
        with contextlib.closing(self.db()) as c:
            for g in stab:
                r = c.execute("SELECT o.raw FROM outbox o JOIN inbox i ON i.id = o.inbox_id "
                              "WHERE i.key LIKE ? AND o.kind = 'reply'",
                              (g.mid_observe + "%",)).fetchone()
                m = re.search(r"CONFIRM (\w+)", _body(r["raw"])) if r else None
                if m is None:
                    self.violation(g, "OBSERVE: no confirmation code in the reply")
                    continue
                self.send(g.observer, f"CONFIRM {m.group(1)}", g, "confirm")
        self.quiet()

    # ------------------------------------------------------------------ playing
    def pseudonyms(self, g: SimGame) -> dict[str, str]:
        """A Gunboat game's power -> pseudonym (empty in any other game)."""
        with contextlib.closing(self.db()) as c:
            r = c.execute("SELECT settings FROM games WHERE id = ?", (g.gid,)).fetchone()
        return dict(json.loads(r["settings"] or "{}").get("pseudonyms") or {}) if r else {}

    def game_row(self, c: sqlite3.Connection, g: SimGame) -> dict | None:
        r = c.execute("SELECT * FROM games WHERE id = ?", (g.gid,)).fetchone()
        return dict(r) if r else None

    def years_played(self, g: SimGame, phase: str) -> int:
        a, b = phase_parts(g.start_phase or ""), phase_parts(phase)
        if a is None or b is None:
            return 0
        return abs(b[1] - a[1])

    def play_round(self, kills: int = 0) -> None:
        """Each game's master and players write their mails from what the database says as
        the round begins (nothing is delivered until all have written: what one reads does
        not depend on how far the judge got with the others' mails), then the mails are
        delivered (:meth:`deliver_held`), ``kills`` kills of the judge among them."""
        self.held = {}
        try:
            self.write_round()
        finally:
            self.deliver_held(kills)

    def write_round(self) -> None:
        from judge.games import game as G

        with contextlib.closing(self.db()) as c:
            rows = {g.name: self.game_row(c, g) for g in self.games if g.gid is not None}
            dip = {r["game_id"]: dict(r) for r in c.execute("SELECT * FROM dipnomicy_games")} \
                if c.execute("SELECT name FROM sqlite_master WHERE name = 'dipnomicy_games'"
                             ).fetchone() else {}
            positions = {}
            for g in self.games:
                row = rows.get(g.name)
                if row and row["status"] in ("active", "paused") and row["phase"]:
                    p = c.execute("SELECT position FROM positions WHERE game_id = ? AND "
                                  "phase = ?", (g.gid, row["phase"])).fetchone()
                    positions[g.name] = json.loads(p["position"]) if p else None
        for g in self.games:
            row = rows.get(g.name)
            if not row or row["status"] not in ("active", "paused"):
                continue
            phase = row["phase"]
            if phase not in g.phases_seen:
                g.phases_seen.append(phase)
            if g.replay is not None and not g.ending:
                self.check_replay(g, phase)  # before the end: the last phases count too
            if self.years_played(g, phase) >= self.years and not g.ending:
                self.end_game(g, row)
                continue
            if g.ending:
                if g.end_sent_at is not None and self.round - g.end_sent_at > 3:
                    self.violation(g, "ENDGAME sent and the game is still "
                                   f"{row['status']}", phase)
                    g.end_sent_at = None
                continue
            variant = G.get_variant(g.variant)
            data = positions.get(g.name)
            if data is None:
                continue
            pos = variant.read_position(data)
            d = dip.get(g.gid, {})
            key = (phase, d.get("turn"), d.get("voting"), row["status"])
            self.confirm_offers(g)
            fresh = key not in g.acted
            # the master first: a ROLLBACK is of the last phase adjudicated when the round
            # began, not of one the players' orders complete later in it (the phase after it
            # would be reported, then undone, all in one round)
            moved = self.master_acts(g, row, phase, d, fresh)
            # after the master's PROCESS or Dipnomicy ROLLBACK the players order in the
            # next round, from the phase they see then: mailed now, their mails would be
            # read in the phase after the one they were written for
            if fresh and not moved:
                g.acted.add(key)
                self.players_act(g, variant, pos, phase, d)

    def players_act(self, g: SimGame, variant: Any, pos: Any, phase: str, d: dict) -> None:
        from judge.games import game as G

        n = len(g.phases_seen) - 1
        last_year = self.years_played(g, phase) == self.years - 1
        presented = json.loads(d["presented"]) if d.get("presented") else []
        for power in sorted(g.seats):
            seat = g.seats[power]
            if n >= seat.silent_from:
                continue
            rng = g.rng
            try:
                units, count = G.needs(variant, pos, power)
            except Exception as exc:  # noqa: BLE001
                self.violation(g, f"needs() failed for {power}: {exc!r}", phase)
                continue
            voting = bool(d.get("voting"))
            if not units and not count and not voting and rng.random() < 0.8:
                continue
            if rng.random() < 0.05:
                continue  # forgets this phase (an NMR)
            try:
                lines = phase_orders(g.variant, variant, pos, power, rng) if (units or count) \
                    else []
            except Exception as exc:  # noqa: BLE001 - the simulator's own failing
                lines = []
                self.progress(f"{g.name}: no orders for {power} in {phase}: {exc!r}")
            body = [f"SIGNON {power} {g.name} {seat.password}"]
            if rng.random() < 0.1:
                body.append(rng.choice(GARBLE))
            body += lines
            if rng.random() < 0.08 and lines:
                from fuzzkit import mutate_text

                body.append(mutate_text(rng, rng.choice(lines)).replace("\n", " ")[:80])
            if voting and presented:
                for k in range(len(presented)):
                    if rng.random() < 0.9:
                        body.append(f"VOTE P{k + 1} "
                                    f"{rng.choice(['FOR', 'FOR', 'AGAINST', 'ABSTAIN'])}")
            if g.variant == "dipnomicy" and not voting and rng.random() < 0.25:
                body += ["PROPOSE Support actions", "Enact the following mutable rule:",
                         "MODULE support", "Units may support.", "END"] if rng.random() < 0.5 \
                    else [f"PROPOSE A rule of {power.title()}", "Enact a mutable rule:",
                          f"Players shall be polite to {power.title()}.", "END"]
            nxt = next_movement(phase)
            if (g.variant in AHEAD_VARIANTS and nxt and pos.phase.kind == "M" and lines
                    and rng.random() < 0.15):
                own = [str(u) for u in pos.units if u.power == power]
                if own:
                    u = rng.choice(own)
                    body += [f"PHASE {nxt}", f"IF {power.title()} {u}", f"  {u} H",
                             "ELSE", "  CLEAR" if rng.random() < 0.1 else f"  {u} H", "ENDIF"]
            if rng.random() < 0.1 and g.variant != "dipnomicy":
                others = [p for p in g.seats if p != power]
                if rng.random() < 0.5:
                    body += ["BROADCAST", "Greetings, everyone.", "ENDPRESS"]
                elif others:
                    target = rng.choice(others)  # by the name the player knows it by
                    body += [f"PRESS TO {self.pseudonyms(g).get(target, target)}",
                             "Shall we talk?", "ENDPRESS"]
            # in the last year a player votes for a draw now and then; in a game whose
            # players agreed on one, every player who writes does, and a game with no
            # silent power ends in a draw (the judge's other end than its master's)
            if last_year and (rng.random() < 0.3 or g.draw_pact):
                body.append("DRAW")
            if rng.random() < 0.1:
                body += rng.choice(SIGNOFFS)
            text = "\n".join(body)
            if rng.random() < 0.1:
                text += "\n\n" + rng.choice(QUOTES)
            self.send(seat.address, text, g, f"{g.name} {phase}")
            if not g.paused:  # a paused game refuses orders: they are not the phase's
                g.mails_by_phase.setdefault(phase, []).append((power, text,
                                                               f"{g.name} {phase}"))
                g.mailed_in = phase

    def end_game(self, g: SimGame, row: dict) -> None:
        g.ending = True
        g.end_sent_at = self.round
        body = [f"MASTER {g.name} {g.gm_password}"]
        if row["status"] == "paused":
            body.append("RESUME")
        body.append("ENDGAME")
        self.send(g.gm, "\n".join(body), g, "end")
        g.master_log.append(f"{row['phase']}: ENDGAME")

    def master_acts(self, g: SimGame, row: dict, phase: str, d: dict, fresh: bool) -> bool:
        """The master resumes a paused game (in a round or two) and checks a ROLLBACK
        played again; otherwise acts at most once a phase (``fresh``: as the players, when
        the phase or its stage is new), so how often does not depend on how many rounds
        the other games make. True when its mail moved the game on (PROCESS, or the
        ROLLBACK that Dipnomicy's players answer with the turn's mails and a PROCESS)."""
        rng = g.rng
        head = f"MASTER {g.name} {g.gm_password}"
        if g.paused:
            if rng.random() < 0.7:
                self.send(g.gm, f"{head}\nRESUME", g, "resume")
                g.paused = False
                g.master_log.append(f"{phase}: RESUME")
            return False
        if g.replay is not None:
            self.check_replay(g, phase)
            return False
        if not fresh:
            return False
        roll = self.master_roll(g, phase, d)
        if roll < 0.12 and len(g.phases_seen) >= 2:
            return self.rollback(g, head, phase) and g.variant == "dipnomicy"
        elif roll < 0.16:
            self.replace(g, head, phase)
        elif roll < 0.20 and g.variant != "dipnomicy":
            power = rng.choice(sorted(g.seats))
            self.send(g.gm, f"{head}\nEJECT {power}", g, "eject")
            g.master_log.append(f"{phase}: EJECT {power}")
            g.newcomers += 1
            seat = g.seats[power]
            seat.address = f"taker{g.newcomers}.{power.lower()}.{g.name}@players.test"
            seat.password = f"take-{g.newcomers}-{g.name}"
            g.who[seat.address] = power
            # a Gunboat newcomer names the power as the EJECT notice does: by its pseudonym
            name = self.pseudonyms(g).get(power, power)
            mid = self.send(seat.address, f"TAKEOVER {name} {g.name} {seat.password}", g,
                            "takeover")
            g.takeovers.append({"power": power, "address": seat.address, "mid": mid,
                                "round": self.round})
        elif roll < 0.24:
            self.send(g.gm, f"{head}\nPAUSE", g, "pause")
            g.paused = True
            g.master_log.append(f"{phase}: PAUSE")
        elif roll < 0.28:
            self.send(g.gm, f"{head}\nDEADLINE {rng.choice(['36h', '3d', '90m'])}", g,
                      "deadline")
            g.master_log.append(f"{phase}: DEADLINE")
        elif roll < 0.32:
            self.send(g.gm, f"{head}\nPROCESS {phase}", g, "process")
            g.master_log.append(f"{phase}: PROCESS")
            return True
        elif roll < 0.40 and g.kind in EDIT_KINDS:
            self.edit(g, head, phase)
        return False

    def edit(self, g: SimGame, head: str, phase: str) -> None:
        """EDIT the position (a movement phase of a standard-board game, Stab! too, where a
        player is told only of the edits to its own units and centres: invariant 4): remove
        a unit, or give a supply centre to another power. The players order after it."""
        from judge.games import game as G

        with contextlib.closing(self.db()) as c:
            row = c.execute("SELECT position FROM positions WHERE game_id = ? AND phase = ?",
                            (g.gid, phase)).fetchone()
        if row is None or not phase.endswith("M"):
            return
        pos = G.get_variant(g.variant).read_position(json.loads(row["position"]))
        rng = g.rng
        owned = sorted((centre, power) for power, cs in pos.centres.items() for centre in cs)
        if rng.random() < 0.5 and pos.units:
            what = f"EDIT REMOVE {rng.choice(sorted(str(u) for u in pos.units))}"
        elif owned:
            centre, power = rng.choice(owned)
            what = f"EDIT OWNER {centre} {rng.choice(sorted(set(g.seats) - {power}))}"
        else:
            return
        self.send(g.gm, f"{head}\n{what}", g, "edit")
        g.master_log.append(f"{phase}: {what}")

    def master_roll(self, g: SimGame, phase: str, d: dict) -> float:
        """What the master does this phase, in [0, 1): below 0.12 ROLLBACK, 0.28 to 0.32
        PROCESS (:meth:`master_acts`); a test scripts it."""
        return g.rng.random()

    def rollback(self, g: SimGame, head: str, phase: str) -> bool:
        """ROLLBACK to the phase before this one and PROCESS it at once (same mail): its
        restored orders must give the same next position, results and report (invariant 7).
        Dipnomicy rolls back to the start of a turn and undoes its orders, proposals and
        votes: its players send the same mails again, then the master PROCESSes. False when
        there is nothing to roll back (or, in Dipnomicy, the turn's mails are not known)."""
        dip = g.variant == "dipnomicy"
        with contextlib.closing(self.db()) as c:
            sql = ("SELECT id, phase, position, results FROM positions WHERE game_id = ? AND "
                   "adjudicated IS NOT NULL" + (" AND phase LIKE '%M'" if dip else "")
                   + " ORDER BY id DESC LIMIT 1")
            rows = c.execute(sql, (g.gid,)).fetchall()
            if not rows:
                return False
            back = rows[0]["phase"]
            if dip and (back not in g.mails_by_phase or back in g.unattributed or
                        c.execute("SELECT 1 FROM positions WHERE game_id = ? AND id > ? AND "
                                  "phase LIKE '%M' AND adjudicated IS NOT NULL",
                                  (g.gid, rows[0]["id"])).fetchone()):
                return False
            nxt = c.execute("SELECT phase, position FROM positions WHERE game_id = ? AND "
                            "id > ? ORDER BY id LIMIT 1", (g.gid, rows[0]["id"])).fetchone()
            if nxt is None:
                return False
            undone = [r["phase"] for r in c.execute(
                "SELECT phase FROM positions WHERE game_id = ? AND id > ?",
                (g.gid, rows[0]["id"]))]
        # the phases after it are undone with their orders: the mails sent in them are no
        # phase's orders any more (those sent when they come again are)
        for p in undone:
            g.mails_by_phase.pop(p, None)
            g.unattributed.discard(p)
        g.replay = {"phase": back, "results": rows[0]["results"], "next": nxt["phase"],
                    "position": nxt["position"], "round": self.round,
                    "outbox": self.outbox_top()}
        g.rolled_back += 1
        if not dip:
            g.replay["mid"] = self.send(g.gm, f"{head}\nROLLBACK {back}\nPROCESS {back}", g,
                                        "rollback")
            g.master_log.append(f"{phase}: ROLLBACK {back} + PROCESS {back}")
            return True
        g.replay["mid"] = self.send(g.gm, f"{head}\nROLLBACK {back}", g, "rollback")
        for power, body, subject in g.mails_by_phase[back]:
            seat = g.seats[power]
            body = re.sub(r"^SIGNON (\S+) (\S+) \S+$", f"SIGNON {power} {g.name} "
                          f"{seat.password}", body, count=1, flags=re.M)
            self.send(seat.address, body, g, subject)
        self.send(g.gm, f"{head}\nPROCESS {back}", g, "process")
        g.master_log.append(f"{phase}: ROLLBACK {back}, the same mails again, PROCESS {back}")
        return True

    def attribute_mails(self) -> None:
        """Once the judge has read the round's mail: a phase its players mailed for that is
        processed now was processed by one of those mails (every power had ordered, and no
        settling delay), so the mails after it were the next phase's orders. Neither
        phase's mails are known then: a ROLLBACK to either is not played again."""
        with contextlib.closing(self.db()) as c:
            for g in self.games:
                phase, g.mailed_in = g.mailed_in, None
                if phase is None or g.gid is None:
                    continue
                row = c.execute("SELECT id, adjudicated FROM positions WHERE game_id = ? AND "
                                "phase = ?", (g.gid, phase)).fetchone()
                if row is None or row["adjudicated"] is None:
                    continue
                g.unattributed.update(r["phase"] for r in c.execute(
                    "SELECT phase FROM positions WHERE game_id = ? AND id >= ?",
                    (g.gid, row["id"])))
                g.master_log.append(f"{phase}: processed by its players' mails of the round")

    def outbox_top(self) -> int:
        with contextlib.closing(self.db()) as c:
            return int(c.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0])

    def replayed_reports(self, g: SimGame, since: int) -> tuple[str, dict, dict] | None:
        """The report the phase played again made (the first report since outbox row
        ``since`` whose subject the game had reported before, but the 'rolled back' notice:
        the game had it before too when it was rolled back to that turn once already), each
        reader's text, and the text each reader had got before."""
        from invariants import _body

        with contextlib.closing(self.db()) as c:
            new = c.execute("SELECT subject, rcpt, raw FROM outbox WHERE game_id = ? AND "
                            "kind = 'report' AND id > ? ORDER BY id", (g.gid, since)).fetchall()
            for r in new:
                if "rolled back to" in r["subject"]:
                    continue
                old = c.execute("SELECT rcpt, raw FROM outbox WHERE game_id = ? AND kind = "
                                "'report' AND id <= ? AND subject = ? ORDER BY id",
                                (g.gid, since, r["subject"])).fetchall()
                if old:
                    after = {x["rcpt"]: _body(x["raw"]) for x in new
                             if x["subject"] == r["subject"]}
                    return r["subject"], {x["rcpt"]: _body(x["raw"]) for x in old}, after
        return None

    def check_replay(self, g: SimGame, phase: str) -> None:
        rp = g.replay
        assert rp is not None
        with contextlib.closing(self.db()) as c:
            row = c.execute("SELECT results, adjudicated FROM positions WHERE game_id = ? AND "
                            "phase = ?", (g.gid, rp["phase"])).fetchone()
            nxt = c.execute("SELECT position FROM positions WHERE game_id = ? AND phase = ?",
                            (g.gid, rp["next"])).fetchone()
            if row is not None and row["adjudicated"] is not None and nxt is None:
                now_next = c.execute("SELECT phase FROM positions WHERE game_id = ? AND id > "
                                     "(SELECT id FROM positions WHERE game_id = ? AND phase = ?) "
                                     "ORDER BY id LIMIT 1", (g.gid, g.gid, rp["phase"])
                                     ).fetchone()
                if now_next is not None:
                    g.replay = None
                    self.violation(g, "ROLLBACK + PROCESS with the restored orders: the phase "
                                   f"after it is {now_next['phase']}, was {rp['next']}",
                                   rp["phase"])
                    return
            if row is None or row["adjudicated"] is None or nxt is None:
                if self.round - rp["round"] > 2:
                    refused = self.refusals(rp["mid"])
                    self.violation(g, f"ROLLBACK {rp['phase']} + PROCESS: not processed again "
                                   f"(now {phase}){'; refused: ' + refused if refused else ''}",
                                   rp["phase"])
                    g.replay = None
                return
        g.replay = None
        # the phases after it were undone with their orders: the players order again
        g.acted = {k for k in g.acted if k[0] != phase}
        refused = self.refusals(rp["mid"])
        if refused:
            self.violation(g, f"ROLLBACK {rp['phase']} refused: {refused}", rp["phase"])
            return
        self.replayed += 1  # invariant 7 checked: results, position and reports
        if row["results"] != rp["results"]:
            was = {json.dumps(x, sort_keys=True) for x in json.loads(rp["results"] or "[]")}
            now = {json.dumps(x, sort_keys=True) for x in json.loads(row["results"] or "[]")}
            self.violation(g, "ROLLBACK + PROCESS with the restored orders: other results; "
                           f"only before: {sorted(was - now)}; only after: {sorted(now - was)}",
                           rp["phase"])
        self.compare_reports(g, rp)
        was, now = json.loads(rp["position"]), json.loads(nxt["position"])
        if g.variant == "dipnomicy":
            # the next turn's stored position takes the rules its vote enacts when the vote
            # closes, after the replay is checked: the board is what is compared
            for k in ("rules_in_force", "last_rule_number"):
                was.pop(k, None)
                now.pop(k, None)
        if was != now:
            diff = {k: (was.get(k), now.get(k)) for k in set(was) | set(now)
                    if was.get(k) != now.get(k)}
            self.violation(g, "ROLLBACK + PROCESS with the restored orders: another "
                           f"{rp['next']} position (before, after): {diff}", rp["phase"])

    def refusals(self, mid: str) -> str:
        """The ERROR lines of the judge's reply to the mail ``mid``, with the line each
        answers."""
        from invariants import _body

        with contextlib.closing(self.db()) as c:
            rows = c.execute("SELECT o.raw FROM outbox o JOIN inbox i ON i.id = o.inbox_id "
                             "WHERE i.key LIKE ? AND o.kind = 'reply'", (mid + "%",)).fetchall()
        out = []
        for r in rows:
            last = ""
            for line in _body(r["raw"]).splitlines():
                if line.startswith("> "):
                    last = line
                elif line.startswith("ERROR:"):
                    out.append(f"{last} -> {line}")
        return "; ".join(out)

    def compare_reports(self, g: SimGame, rp: dict) -> None:
        """Invariant 7, the text: each reader's report of the phase played again is the one
        it got the first time."""
        got = self.replayed_reports(g, rp["outbox"])
        if got is None:
            self.violation(g, f"ROLLBACK {rp['phase']} played again: no report of it",
                           rp["phase"])
            return
        subject, before, after = got
        # by reader: a power whose player was replaced between has its report at two
        # addresses, the first at the old one
        before = {g.who.get(a, a): t for a, t in before.items()}
        after = {g.who.get(a, a): t for a, t in after.items()}
        for rcpt in sorted(set(before) | set(after)):
            a, b = before.get(rcpt), after.get(rcpt)
            if a is None or b is None:
                self.violation(g, f"ROLLBACK {rp['phase']} played again: {rcpt} got "
                               f"{subject!r} only {'after' if a is None else 'before'}",
                               rp["phase"])
                continue
            a, b = report_text(a), report_text(b)
            if not same_words(a, b):
                import difflib

                diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), "before",
                                                       "after", n=0, lineterm=""))
                self.violation(g, f"ROLLBACK {rp['phase']} played again: {rcpt}'s report "
                               f"{subject!r} differs:\n{diff[:2000]}", rp["phase"])

    def replace(self, g: SimGame, head: str, phase: str) -> None:
        """REPLACE a power's player by a new address: half the time the newcomer has written
        to the judge first (HELP), half the time not. The judge mails it one confirmation
        request and nothing else (invariant 5); the newcomer CONFIRMs its code (as a real
        player would, most of the time: :meth:`confirm_offers`) and plays from then on; the
        power stays with its player until then."""
        rng = g.rng
        power = rng.choice(sorted(g.seats))
        g.newcomers += 1
        address = f"new{g.newcomers}.{power.lower()}.{g.name}@players.test"
        password = f"new-{g.newcomers}-{g.name}"
        if rng.random() < 0.5:
            self.send(address, "HELP", g, "hello")
        self.send(g.gm, f"{head}\nREPLACE {power} {address} {password}", g, "replace")
        self.named.add(address)
        g.who[address] = power  # it is told which power it is offered: its own
        # a later REPLACE of the power replaces the unanswered offer
        g.offers = [o for o in g.offers if o["power"] != power]
        g.offers.append({"power": power, "address": address, "password": password,
                         "round": self.round, "answers": rng.random() < 0.9})
        g.master_log.append(f"{phase}: REPLACE {power}")

    def confirm_offers(self, g: SimGame) -> None:
        """Each newcomer named by a REPLACE reads the confirmation request mailed to it and
        sends its code back (CONFIRM <code>, or a reply quoting it); one in ten never
        answers (the power stays with its player). A newcomer whose TAKEOVER (after an
        EJECT) waits for its address to confirm sends the code in the judge's reply."""
        self.confirm_takeovers(g)
        if not g.offers:
            return
        with contextlib.closing(self.db()) as c:
            for o in list(g.offers):
                rows = c.execute("SELECT subject, raw FROM outbox WHERE rcpt = ? AND kind = "
                                 "'notice' AND subject LIKE 'Confirm: a seat%' AND state = "
                                 "'sent' ORDER BY id", (o["address"],)).fetchall()
                if not rows:
                    if self.round - o["round"] > 3:
                        self.violation(g, f"REPLACE {o['power']} {o['address']}: no "
                                       "confirmation request mailed to it")
                        g.offers.remove(o)
                    continue
                g.offers.remove(o)
                if not o["answers"]:
                    g.master_log.append(f"{o['address']} never confirms")
                    continue
                from invariants import _body

                body = _body(rows[-1]["raw"])
                m = re.search(r"^CONFIRM (\w+)\s*$", body, re.M)
                if m is None:
                    self.violation(g, f"confirmation request to {o['address']} holds no code:"
                                   f"\n{body[:600]}")
                    continue
                if g.rng.random() < 0.3:
                    quoted = "\n".join("> " + x for x in body.splitlines())
                    self.send(o["address"], f"CONFIRM {m.group(1)}\n\n{quoted}", g,
                              "Re: " + rows[-1]["subject"])
                else:
                    self.send(o["address"], f"CONFIRM {m.group(1)}", g, "confirm")
                seat = g.seats[o["power"]]
                seat.address, seat.password = o["address"], o["password"]
                g.who[seat.address] = o["power"]
                g.master_log.append(f"{o['address']} confirms {o['power']}")

    def confirm_takeovers(self, g: SimGame) -> None:
        """CONFIRM <code> from the reply to each TAKEOVER sent after an EJECT; a TAKEOVER
        refused, or not answered three rounds on, is a breach (the seat would stay empty)."""
        if not g.takeovers:
            return
        from invariants import _body

        with contextlib.closing(self.db()) as c:
            for t in list(g.takeovers):
                r = c.execute("SELECT o.raw FROM outbox o JOIN inbox i ON i.id = o.inbox_id "
                              "WHERE i.key LIKE ? AND o.kind = 'reply' AND o.state = 'sent'",
                              (t["mid"] + "%",)).fetchone()
                if r is None:
                    if self.round - t["round"] > 3:
                        g.takeovers.remove(t)
                        self.violation(g, f"TAKEOVER {t['power']} by {t['address']}: no reply")
                    continue
                g.takeovers.remove(t)
                body = _body(r["raw"])
                m = re.search(r"^CONFIRM ([0-9a-f]{16})\s*$", body, re.M)
                if m is None:
                    self.violation(g, f"TAKEOVER {t['power']} by {t['address']} not taken:"
                                   f"\n{body[:600]}")
                    continue
                self.send(t["address"], f"CONFIRM {m.group(1)}", g, "confirm")
                g.master_log.append(f"{t['address']} confirms its TAKEOVER of {t['power']}")

    def advance(self) -> bool:
        """Move the clock to the next wake of any game; False when no game waits."""
        with contextlib.closing(self.db()) as c:
            r = c.execute("SELECT min(wake_at) FROM games WHERE status IN ('active', 'paused') "
                          "AND wake_at IS NOT NULL").fetchone()
        if not r or r[0] is None:
            return False
        when = datetime.fromisoformat(r[0])
        # the clock goes to the first game's next wake: a game whose deadline plus grace
        # ends before it would wait past them (its own next wake is too late)
        for name, key, what in overdue_stages(self.d / "judge.db", when):
            self.violation(next((x for x in self.games if x.name == name), None), what, key)
        self.clock.set(max(when, self.clock()) + timedelta(seconds=1))
        self.judge.moved()
        return True

    # ------------------------------------------------------------------ running
    def run(self) -> dict:
        t0 = time.monotonic()
        self.d.mkdir(parents=True, exist_ok=True)
        cheap_passwords()
        self.judge: InProcessJudge | ChildJudge = (
            ChildJudge(self.d, self.clock, self.seed) if self.kill_count else
            InProcessJudge(self.d, self.clock, self.seed))
        try:
            self.make_games()
            self.create_all()
            self.watch.after_round(self)
            budget = 60 * self.years * 4 + 200  # rounds: a game needs a few per phase
            if self.kill_count:
                # spread over the rounds a game's years take (a dozen a year), several in
                # one round when asked for more kills than that
                for _ in range(self.kill_count):
                    self.kill_rounds[self.rng.randrange(2, 12 * self.years + 4)] += 1
            last = ""
            while self.round < budget:
                self.round += 1
                kills = self.kill_rounds.pop(self.round, 0)
                moments = sorted(self.rng.random() < 0.5 for _ in range(kills))
                # kills while the round's mail is being read
                self.play_round(kills=sum(1 for m in moments if not m))
                self.quiet()
                self.attribute_mails()
                if not self.advance():
                    break
                for _ in [m for m in moments if m]:
                    self.kill_now()  # while due games are being processed
                if self.quiet():
                    for name, key, what in overdue_stages(self.d / "judge.db", self.clock()):
                        g = next((x for x in self.games if x.name == name), None)
                        self.violation(g, what, key)
                self.watch.after_round(self)
                done = sum(1 for g in self.games if self.status(g) == "finished")
                line = (f"round {self.round}: {self.clock():%Y-%m-%d %H:%M}, {done}/"
                        f"{len(self.games)} finished, {len(self.sent)} mails in, "
                        f"{len(self.violations)} violations, {time.monotonic() - t0:.0f} s")
                if line[:40] != last[:40]:
                    self.progress(line)
                last = line
            self.quiet()
            self.watch.after_round(self)
        finally:
            self.judge.stop()
        return self.check_all(time.monotonic() - t0)

    def kill_now(self) -> None:
        """SIGKILL the judge at a random moment of its work, then start it again."""
        time.sleep(self.rng.random() * 0.2)
        self.judge.kill()
        self.kills_done += 1
        self.progress(f"killed the judge ({self.kills_done} of {self.kill_count})")

    def status(self, g: SimGame) -> str | None:
        with contextlib.closing(self.db()) as c:
            r = c.execute("SELECT status FROM games WHERE name = ?", (g.name,)).fetchone()
        return r[0] if r else None

    # ------------------------------------------------------------------ invariants
    def check_all(self, wall: float) -> dict:
        import resource

        from invariants import check_season

        stats = check_season(self)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        db_bytes = sum(p.stat().st_size for p in self.d.glob("judge.db*"))
        game_years = max(1, sum(max(1, len({phase_parts(p)[1] for p in g.phases_seen
                                            if phase_parts(p)}))
                                for g in self.games))
        out = {
            "games": len(self.games),
            "finished": stats["finished"],
            "phases": stats["phases"],
            "mails_in": len(self.sent),
            "mails_out": stats["mails_out"],
            "violations": self.violations,
            "internal_errors": stats["internal_errors"],
            "wall_s": round(wall, 1),
            "peak_rss_mb": round(max(peak, peak_children), 1),
            # with --kill the judge is a child: its peak apart from the simulator's
            "peak_rss_judge_mb": round(peak_children if self.kill_count else peak, 1),
            "db_mb_per_game_year": round(db_bytes / 1e6 / game_years, 3),
            "seed": self.seed, "years": self.years,
            "games_per_variant": self.games_per_variant,
            "kills": self.kills_done, "rounds": self.round,
            "virtual_days": round((self.clock() - START).total_seconds() / 86400, 1),
            "by_variant": stats["by_variant"],
            "shuffled_phases": stats.get("shuffled", 0),
            "master_refusals": stats.get("master_refusals", {}),
            "hidden_checked": self.watch.checked,
            # invariant 7: rollbacks played again and compared (none: it was not tried)
            "replays_checked": self.replayed,
            # what the masters did, all games together (the list: a command that is
            # missing was not exercised)
            "master_did": dict(sorted(Counter(
                x.split(": ", 1)[1].split()[0] for g in self.games for x in g.master_log
                if ": " in x and x.split(": ", 1)[1][:1].isupper()).items())),
            "orphan_tracebacks": getattr(self.judge, "orphans", 0),
            # each game's end, in short (outcomes() says it whole): the same seed, the same
            "outcomes": {name: hashlib.sha256(json.dumps(o, sort_keys=True).encode())
                         .hexdigest()[:16] for name, o in self.outcomes().items()},
        }
        return out

    def outcomes(self) -> dict[str, dict]:
        """How each game ended: its status, result and last phase, its last stored position,
        who played which power (a Dipnomicy game draws its countries) and its settings (a
        Gunboat game draws its pseudonyms)."""
        out: dict[str, dict] = {}
        with contextlib.closing(self.db()) as c:
            for g in self.games:
                row = c.execute("SELECT id, status, phase, result, winner, settings FROM games "
                                "WHERE name = ?", (g.name,)).fetchone()
                if row is None:
                    out[g.name] = {}
                    continue
                last = c.execute("SELECT phase, position FROM positions WHERE game_id = ? "
                                 "ORDER BY id DESC LIMIT 1", (row["id"],)).fetchone()
                out[g.name] = {
                    "status": row["status"], "phase": row["phase"], "result": row["result"],
                    "winner": row["winner"], "settings": json.loads(row["settings"] or "{}"),
                    "last_phase": last["phase"] if last else None,
                    "position": json.loads(last["position"]) if last else None,
                    "players": sorted((r["power"], r["address"].lower()) for r in c.execute(
                        "SELECT power, address FROM players WHERE game_id = ?", (row["id"],))),
                }
        return out


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "child":
    child_main(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
