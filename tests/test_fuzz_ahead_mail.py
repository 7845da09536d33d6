"""Fuzzing orders sent ahead by mail (PHASE blocks), through the judge's real storage, reading,
acting and Maildir sender (tests/mailkit.py InProcessJudge), for every flow that takes them:
standard, Stack 'em, Stab! (conditions may test only the player's own units) and Dipnomicy
(moves only: each flow's ``ahead_kinds``).

Each example starts a game and has one signed-on player send a few mails of PHASE blocks:
phases ahead, too far ahead, past or unreadable; IF / ELSE IF / ELSE / ENDIF nested, unbalanced
or stray; conditions with every operator (NOT, AND, OR, &, &&, |, ||, brackets, THEN, OWN,
DISLODGED, adjectives and power names), unknown provinces and powers, conditions too long;
CLEAR and CLEAR PENDING anywhere; lines mutated, and now and then the mail's bytes. The game is
then processed phase by phase so that the blocks become orders. What a player relies on:

* the judge never fails (no inbox row in state ``error``, no ERROR log);
* each mail is answered exactly once, to its author;
* every line of a block that cannot be used is in the reply with its reason;
* the "Pending orders" list of the reply is what the judge stored;
* a block that becomes orders gives the power orders for its own units only;
* in Stab!, no reply or notice names another power's unit the player did not write itself.

Budget: tests/fuzzkit.py: one example per variant in CI (a few seconds);
``JUDGE_FUZZ_EXAMPLES=N`` gives N / 120 per variant (each example is a game of its own, about
a second). ``judge@fuzz.test`` answers; a failing example prints its ``seed_``.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import re

import pytest
from fuzzkit import NASTY, fuzz_settings, mutate_bytes, mutate_text, seed
from hypothesis import given
from hypothesis import seed as replay
from hypothesis import strategies as st
from mailkit import Got, InProcessJudge, compose
from test_fuzz_mail import _Collect
from test_fuzz_orders import GARBAGE, SAMPLES, candidates

from judge.engine import ahead as A
from judge.games import ahead as AH
from judge.games import game as G
from judge.games.commands import parse_line, parse_lines
from judge.mail.reading import command_lines
from judge.variants import get_variant

VARIANTS = ["standard", "stackem", "stab", "dipnomicy"]
PROCESSED = 4  # phases each example's game is taken through after the mails
_serial = itertools.count(1)


# ------------------------------------------------------------------ the judge
class Judge:
    """One in-process judge per variant; each example plays a game of its own on it."""

    def __init__(self, tmp, name: str) -> None:
        self.name = name
        self.judge = InProcessJudge(tmp, "judge@fuzz.test", replies_per_hour=1_000_000,
                                    reply_max_bytes=10_000_000)
        self.errors: list[logging.LogRecord] = []
        self.handler = _Collect(self.errors)
        logging.getLogger("judge").addHandler(self.handler)

    def close(self) -> None:
        logging.getLogger("judge").removeHandler(self.handler)

    def send(self, frm: str, body: str) -> list[Got]:
        return self.judge.send(frm, body)

    def start(self) -> tuple[str, dict[str, str], str]:
        """A new started game: (its name, {power: address}, the master's address)."""
        n = next(_serial)
        game, gm = f"fa{n}", f"gm{n}@players.test"
        powers = list(get_variant(self.name).board.powers)
        self.send(gm, f"CREATE {game} masterpw VARIANT {self.name}\nOPEN")
        s = self.judge.store
        gid = s.game(game)["id"]
        for p in powers:
            self.send(f"{p.lower()}.{game}@players.test", f"SIGNON {p} {game} pw-{p.lower()}")
        if not s.players(gid):  # a variant that deals the powers out at the start
            for p in powers:
                self.send(f"{p.lower()}.{game}@players.test", f"JOIN {game} pw-{p.lower()}")
        self.send(gm, f"MASTER {game} masterpw\nSTART")
        seats = {r["power"]: r["address"] for r in s.players(gid)}
        assert seats and s.game(game)["status"] == "active", s.game(game)
        return game, seats, gm


@pytest.fixture(scope="module")
def judges(tmp_path_factory):
    made: dict[str, Judge] = {}
    yield lambda name: made.get(name) or made.setdefault(
        name, Judge(tmp_path_factory.mktemp(f"fuzzahead_{name}"), name))
    for j in made.values():
        j.close()


ACTIVATIONS: list[tuple[dict, list[AH.Activation]]] = []  # (the game then, what it gave)


@pytest.fixture(autouse=True)
def _watch_activations(monkeypatch):
    """Every activation, for the checks after the game moved on."""
    real = G.activate_pending

    def spy(s, game):
        out = real(s, game)
        ACTIVATIONS.append((s.game_by_id(game["id"]) or game, out))
        return out

    monkeypatch.setattr(G, "activate_pending", spy)


# ------------------------------------------------------------------ building blocks
SEASONS = {"S": ["Spring", "S", "spring"], "F": ["Fall", "Autumn", "F", "fall"],
           "W": ["Winter", "W"], "U": ["Summer"]}
KINDS = {"M": ["Movement", "Moves", "M", ""], "R": ["Retreats", "R"], "A": ["Adjustments", "A"]}
OPERATORS = ["AND", "OR", "&", "&&", "|", "||", "and", "or"]


def phase_texts(rng: random.Random, current: str) -> str:
    """A PHASE line: ahead, now, past, too far or unreadable."""
    m = re.match(r"([A-Z])(\d+)([A-Z])", current)
    year = int(m.group(2)) if m else 1901
    pick = rng.randrange(10)
    if pick < 6:  # a phase near now: ahead mostly, sometimes now or past
        y = year + rng.choice([0, 0, 0, 1, 1, 2, -1])
        season = rng.choice("SFW")
        kind = {"W": "A"}.get(season, rng.choice("MMMR"))
        if rng.random() < 0.5:
            return f"PHASE {season}{y}{kind}"
        name = rng.choice(SEASONS[season])
        kind_word = rng.choice(KINDS[kind])
        return f"PHASE {name} {y} {kind_word}".rstrip()
    if pick == 6:  # too far ahead, or long past
        return f"PHASE {rng.choice(['F', 'S'])}{year + rng.choice([6, 9, 40, -5, 9999])}M"
    if pick == 7:  # a kind the season does not have, or the flow does not take
        return rng.choice([f"PHASE W{year}M", f"PHASE S{year}A", f"PHASE F{year}A",
                           f"PHASE U{year}M", f"PHASE Winter {year} Retreats"])
    return rng.choice(["PHASE", "PHASE ", "PHASE Fall", "PHASE 1902", "PHASE F19O2M",
                       "PHASE Fall 1902 Movement extra", "PHASE F1902X", "PHASE F-1M",
                       "PHASE " + "F1902M" * 30, "phase f1902m", "PHASE\tS1902M",
                       f"PHASE {rng.choice(NASTY)}"])


def one_test(rng: random.Random, board, power: str, provs: list[str]) -> str:
    """One test of a condition: a unit (of a power), a centre owned, a unit dislodged."""
    powers = list(board.powers)
    prov = rng.choice(provs) if rng.random() < 0.9 else rng.choice(["XYZ", "Atlantis", "MUNN",
                                                                      "123", "(", ")"])
    who = rng.choice([p.title() for p in powers] + [p.upper() for p in powers]
                     + ["French", "German", "Russian", "English", "Turkish", "Martian",
                        "Nobody", "", "", "", power.title()])
    unit = rng.choice(["A", "F", "Army", "Fleet", "", "A", "F"])
    pick = rng.randrange(6)
    if pick == 0:
        return f"OWN {prov}" if rng.random() < 0.7 else f"{who} OWNS {prov}".strip()
    if pick == 1:
        return f"{unit} {prov} DISLODGED".strip()
    if pick == 2:
        return f"{who} {unit} {prov}".strip()
    return f"{unit} {prov}".strip()


def condition(rng: random.Random, board, power: str, provs: list[str], depth: int = 0) -> str:
    n = rng.choice([1, 1, 2, 3, 5]) if rng.random() < 0.97 else rng.randint(20, 60)
    parts = []
    for _ in range(n):
        if depth < 3 and rng.random() < 0.15:
            part = "(" + condition(rng, board, power, provs, depth + 1) + ")"
        else:
            part = one_test(rng, board, power, provs)
        parts.append("NOT " * rng.choice([0, 0, 0, 1, 2]) + part)
    text = parts[0]
    for part in parts[1:]:
        text += f" {rng.choice(OPERATORS)} {part}"
    if depth == 0 and rng.random() < 0.2:
        text += " THEN"
    if depth == 0 and rng.random() < 0.05:  # brackets that do not match
        text = rng.choice(["(" + text, text + ")", "((" + text + ")"])
    return text


def block_body(rng: random.Random, board, power: str, provs: list[str], orders: list[str],
               depth: int = 0) -> list[str]:
    """Order lines and IFs, nested, sometimes unbalanced or stray."""
    out: list[str] = []
    for _ in range(rng.randint(0, 4)):
        pick = rng.randrange(10)
        if pick < 5 or depth > 9:
            out.append(rng.choice(orders))
        elif pick < 8:
            out.append("IF " + condition(rng, board, power, provs))
            out += block_body(rng, board, power, provs, orders, depth + 1)
            for _ in range(rng.choice([0, 0, 1, 1, 2])):
                out.append(rng.choice(["ELSE IF ", "ELSEIF ", "ELIF "])
                           + condition(rng, board, power, provs))
                out += block_body(rng, board, power, provs, orders, depth + 1)
            if rng.random() < 0.5:
                out.append("ELSE")
                out += block_body(rng, board, power, provs, orders, depth + 1)
            if rng.random() < 0.9:
                out.append(rng.choice(["ENDIF", "ENDIF", "FI", "endif"]))
        else:  # a stray keyword
            out.append(rng.choice(["ELSE", "ENDIF", "ELSE IF OWN PAR", "IF", "ELSE IF",
                                   "IF DISLODGED A BUR R GAS", "IF F PIC R ENG: F BRE - PIC"]))
    return out


def next_phases(current, kinds: str) -> list[str]:
    """The codes of the phases after ``current`` in the next two years, of the kinds the flow
    takes ahead (some are never played: a retreat nobody needs)."""
    out = []
    for year in (current.year, current.year + 1, current.year + 2):
        for code in ("S{}M", "S{}R", "F{}M", "F{}R", "W{}A"):
            phase = A.read_phase("PHASE " + code.format(year), current)
            if A.phase_key(phase) > A.phase_key(current) and phase.kind in kinds:
                out.append(A.phase_id(phase))
    return out


def clean_block(rng: random.Random, board, power: str, own: list[str], orders: list[str],
                ahead: list[str]) -> list[str]:
    """A block as a player means it: one of the next phases, tests of its own units and
    centres, its own units' orders: these become orders when the phase starts."""
    head = [f"PHASE {rng.choice(ahead[:4])}"]
    mine = [o for o in orders if any(o.upper().split()[1:2] == [u] for u in own)] or orders

    def test() -> str:
        where = rng.choice(own) if own and rng.random() < 0.8 else rng.choice(
            sorted(board.provinces))
        return rng.choice([f"{power.title()} {where}", f"OWN {where}", where,
                           f"NOT {where}", f"NOT OWN {where}"])

    body = rng.sample(mine, min(len(mine), rng.randint(1, 3)))
    if rng.random() < 0.7:
        cond = test() + "".join(f" {rng.choice(OPERATORS)} {test()}"
                                for _ in range(rng.randint(0, 2)))
        body = [f"IF {cond}", *body, "ELSE", *rng.sample(mine, min(len(mine), 2)), "ENDIF"]
    return head + body


def mail_lines(rng: random.Random, variant, pos, power: str, current: str) -> list[str]:
    board = variant.board
    provs = sorted(board.provinces)
    groups = candidates(variant, pos, power, rng)
    likely = [g[k] for g in groups for k in (0, 2) if len(g) > k]  # a move next door, a hold
    orders = [t for g in groups for t in g]
    orders += SAMPLES.get(variant.name, []) + SAMPLES["standard"][:6]
    orders += [rng.choice(GARBAGE)[:400], "A PAR - BUR" * 40]
    orders = [x for x in orders if parse_line(x).name == "ORDER"]  # Stab!'s START A BER
    own = sorted({u.province for u in pos.units_of(power)})
    if not own:  # units still to be placed (Stab!): they will stand at home
        own = sorted(getattr(board, "home_centres", {}).get(power, ()))
        likely = [f"{k} {c} H" for c in own for k in "AF"]
    ahead = next_phases(pos.phase, AH.flow_of(variant.name).ahead_kinds)
    lines: list[str] = []
    if rng.random() < 0.3:  # orders for now first
        lines += rng.sample(orders, min(3, len(orders)))
    for _ in range(rng.choice([1, 1, 2, 3, 5]) if rng.random() < 0.98 else 35):
        if rng.random() < 0.5 and ahead:
            lines += clean_block(rng, board, power, own, likely or orders, ahead)
            continue
        lines.append(phase_texts(rng, current))
        lines += block_body(rng, board, power, provs, orders)
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        lines.insert(rng.randrange(len(lines) + 1),
                     rng.choice(["CLEAR", "CLEAR PENDING", "clear pending", "CLEAR"]))
    lines = [mutate_text(rng, x) if rng.random() < 0.05 else x for x in lines]
    # within the judge's commands_per_mail (1000): the limit has its own tests
    return [x.replace("\r", " ").replace("\n", " ") for x in lines[:900]]


# ------------------------------------------------------------------ the checks
def reply_pending(body: str, power: str) -> list[tuple[str, list[str]]] | None:
    """The "Pending orders" list of a reply: [(phase, [line as written])], None if none."""
    lines = body.split("\n")
    head = f"Pending orders for {power.title()} in game "
    starts = [k for k, x in enumerate(lines) if x.startswith(head)]
    if not starts:
        return None
    assert len(starts) == 1, body
    out: list[tuple[str, list[str]]] = []
    for x in lines[starts[0] + 1:]:
        m = re.match(r"^\S.* \(([A-Z0-9]+)\):$", x)
        if m:
            out.append((m.group(1), []))
        elif x.startswith("  ") and out:
            out[-1][1].append(x.split("  <-- ")[0].strip())  # an ERROR, a replaced line
        elif x.strip() == "(none)" and not out:
            break
        else:
            break
    return out


def stored_pending(judge: InProcessJudge, gid: int, power: str, pos) -> list[tuple[str, list]]:
    rows = judge.store.pending_blocks(gid, power)
    keyed = []
    for r in rows:
        target = A.read_phase(r["lines"][0], pos.phase)
        shown = [x.strip() if len(x.strip()) <= A.MAX_LINE else x.strip()[:60] + "..."
                 for x in r["lines"][1:]]  # a line too long is shown cut
        keyed.append((A.phase_key(target), (r["phase"], shown)))
    return [x for _, x in sorted(keyed, key=lambda k: k[0])]


def checked_blocks(body: str, current) -> list[list[str]]:
    """The blocks of the mail whose lines the reply must report, as the judge reads the mail
    (up to a signature or END, quotes dropped): those after the last CLEAR (a CLEAR takes
    the lines before it back), at most the judge's limit; none when the mail holds another
    command (the generator writes none, a mutation may)."""
    commands = parse_lines(command_lines(body))[1:]
    last = max((k for k, c in enumerate(commands) if c.name == "CLEAR"), default=-1)
    if any(c.name != "ORDER" for c in commands[last + 1:]):
        return []
    _, blocks = A.split_blocks([c.line for c in commands[last + 1:]])
    blocks = blocks[:A.MAX_BLOCKS]

    def key(block: list[str]) -> str | None:
        try:
            return A.phase_id(A.read_phase(block[0], current))
        except A.AheadError:
            return None

    keys = [key(b) for b in blocks]
    # blocks for a phase add up (docs/commands.md), but a later empty one withdraws them
    # all; a block for the phase now is decided at once, each
    now = A.phase_id(current)
    withdrawn = {keys[k]: k for k, b in enumerate(blocks)
                 if keys[k] not in (None, now) and not any(x.strip() for x in b[1:])}
    return [b for k, b in enumerate(blocks) if keys[k] is None or keys[k] == now
            or withdrawn.get(keys[k], -1) < k]


def own_places(judge: InProcessJudge, gid: int, power: str, variant) -> set[str]:
    """Every province where ``power`` has had a unit in the game, and its home centres."""
    out = set(getattr(variant.board, "home_centres", {}).get(power, ()))
    for r in judge.store.all("SELECT position FROM positions WHERE game_id = ?", (gid,)):
        data = json.loads(r["position"])
        for u in (data.get("units") or {}).get(power, []):
            out.add(u.split()[-1].split("/")[0].upper())
        for d in (data.get("dislodged") or {}).get(power, []):
            out.add(d["unit"].split()[-1].split("/")[0].upper())
    return out


def check_leak(reply: Got, power: str, sent: str, own: set[str]) -> None:
    """No unit named but the player's own and those it wrote (the examples of how to write
    a line, "e.g. IF A MUN", are the judge's fixed text)."""
    from stabkit import check_reply

    class Text:
        body = re.sub(r"e\.g\.[^\n]*|\(PHASE [^)]*\)", "", reply.body)

    check_reply(Text, power, sent, own)  # type: ignore[arg-type]


def check_blind(variant, pos, act: AH.Activation) -> None:
    """With hidden movement, what the player is told of its block's lines as its phase starts
    (the lines that stand, the reasons others were left out) cannot depend on the other
    powers' units: read where only its own stand, they read the same."""
    from judge.engine.position import Position

    blind = Position(pos.variant, pos.phase, [u for u in pos.units if u.power == act.power],
                     pos.centres, [d for d in pos.dislodged if d.unit.power == act.power],
                     extra=dict(pos.extra))
    texts = act.lines + [t for t, _ in act.dropped]
    seen = [(x["text"], x["error"]) for x in G.read_order_lines(variant, pos, act.power, texts)]
    without = [(x["text"], x["error"])
               for x in G.read_order_lines(variant, blind, act.power, texts)]
    assert seen == without, (act, seen, without)


# ------------------------------------------------------------------ the test
@pytest.mark.parametrize("name", VARIANTS)
@fuzz_settings(ci=1)  # about a second an example (a game of its own): 1 per variant in CI
@replay(seed())  # JUDGE_FUZZ_SEED
@given(seed_=st.integers(0, 2**32 - 1))
def test_fuzzed_orders_sent_ahead_by_mail(judges, name, seed_):
    play(judges(name), name, seed_)


def play(j: Judge, name: str, seed_: int, show=None) -> None:
    """One example: a new game, the player's mails, the game processed."""
    rng = random.Random(seed_)
    judge, store = j.judge, j.judge.store
    variant = get_variant(name)
    game, seats, gm = j.start()
    power = rng.choice(sorted(seats))
    frm = seats[power]
    password = f"pw-{power.lower()}" if frm.startswith(power.lower() + ".") else \
        f"pw-{frm.split('.', 1)[0]}"
    gid = store.game(game)["id"]
    sent_text = ""
    for _ in range(rng.choice([1, 1, 2, 3])):
        g = store.game(game)
        if g["status"] != "active":
            break
        pos = G.current_position(store, g)
        lines = mail_lines(rng, variant, pos, power, g["phase"])
        body = f"SIGNON {power} {game} {password}\n" + "\n".join(lines)
        sent_text += body + "\n"
        raw = compose(frm, judge.cfg.address, body)
        mutated = rng.random() < 0.1
        if mutated:
            raw = mutate_bytes(rng, raw)
        before = len(j.errors)
        got = judge.deliver(raw)
        if show:
            show(raw, got)
        assert j.errors[before:] == [], [r.getMessage() for r in j.errors[before:]]
        assert "error" not in judge.inbox_states(), store.all(
            "SELECT state, note FROM inbox WHERE state = 'error'")
        replies = [m for m in got if "Re: " in m.subject]
        if mutated:
            assert len(replies) <= 1, got  # to whom: a mangled From may name another author
            continue
        assert [m.rcpt for m in replies] == [frm], [(m.rcpt, m.subject) for m in got]
        reply = replies[0]
        # the reply's pending list is what is stored
        listed = reply_pending(reply.body, power)
        stored = stored_pending(judge, gid, power, pos)
        assert (listed or []) == stored, (listed, stored, reply.body)
        # every line that cannot be used is in the reply, with its reason
        for block_lines in checked_blocks(body, pos.phase):
            block = AH._read(g, pos, power, block_lines)
            for text, reason in block.problems():
                assert " ".join(reason.split()) in reply.flat, (text, reason, reply.body)
                assert " ".join(text.split()) in reply.flat, (text, reason, reply.body)
            if block.problems():
                assert reply.subject.startswith("[ERROR]"), reply.subject
        if name == "stab":
            check_leak(reply, power, sent_text, own_places(judge, gid, power, variant))
    # the game goes on: the blocks become orders as their phases start
    ACTIVATIONS.clear()
    for _ in range(PROCESSED):
        if store.game(game)["status"] != "active":
            break
        before = len(j.errors)
        got = j.send(gm, f"MASTER {game} masterpw\nPROCESS")
        assert j.errors[before:] == [], [r.getMessage() for r in j.errors[before:]]
        assert "error" not in judge.inbox_states()
        if name == "stab":
            for m in got:
                if m.rcpt == frm and "sent ahead" in m.subject:
                    check_leak(m, power, sent_text, own_places(judge, gid, power, variant))
    for g, acts in ACTIVATIONS:
        if g["id"] != gid:
            continue
        pos = G.current_position(store, g)
        for act in acts:
            assert act.power == power or not act.lines, act  # only the sender sent blocks
            if name == "stab" and not act.expired:
                check_blind(variant, pos, act)
            if act.expired or not act.lines or pos.phase.kind not in "MR":
                continue
            row = store.one("SELECT lines FROM orders WHERE game_id = ? AND phase = ? AND "
                            "power = ?", (gid, g["phase"], act.power))
            assert row is not None, act
            units = {u.split()[-1].split("/")[0].upper() for u in variant.write_position(pos)
                     .get("units", {}).get(act.power, [])}
            units |= {d.unit.province for d in pos.dislodged if d.unit.power == act.power}
            for entry in json.loads(row["lines"]):
                if entry.get("error") is None and entry.get("unit"):
                    assert entry["unit"].upper() in units, (entry, units, act)
