"""Fuzzing order lines for every variant (issue 13, "How it is checked").

For each variant (``judge.variants.variant_names()``) a seeded game is played from the
variant's own start through movement, retreat and adjustment phases. In each phase every
power's order reader gets lines written in the variant's own syntax (Stack 'em counts,
Multiplicity sizes and SPLIT, Chess Dip squares, Hoplite, Dipnomicy, Stab!'s PLACE) for the
units it really has, the same lines mutated, and garbage. The reader may only accept a line or
raise the documented :class:`judge.engine.errors.OrderError` with a reason; adjudicating every
accepted order (duplicates and contradictions included) and every line as ``judge adjudicate``
does must never raise. ``judge adjudicate`` itself, fed garbage once per variant, exits 0 or 2
with a one-line error, never a traceback.

Budget: tests/fuzzkit.py (``JUDGE_FUZZ_EXAMPLES`` sets the games per variant / 100).
"""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
import traceback

import pytest
from fuzzkit import CI_EXAMPLES, examples, mutate_text, nightly, seed

from judge.engine.errors import OrderError
from judge.engine.position import Position
from judge.engine.variant import Variant
from judge.variants import get_variant, variant_names

PHASES_PER_GAME = 14

# lines in each variant's own syntax (docs and description.md), to mutate
SAMPLES = {
    "standard": ["A PAR - BUR", "F LON S F NTH - ENG", "F NTH C A LON - BEL", "A BUR R PIC",
                 "BUILD F STP/NC", "REMOVE A WAR", "WAIVE", "A(Ber) S A(Mun)-Kie",
                 "F SPA/SC - WES", "A LON - BEL VIA CONVOY", "DISBAND A MUN"],
    "stackem": ["2A PAR - BUR", "2A MAR S 2A PAR - BUR", "1. 2F NTH C 2A LON-BEL",
                "2A PAR S 2A MAR S 2A BUR", "BUILD 2A PAR", "3F BRE - MAO", "2a bur - mun"],
    "multiplicity": ["2A BUR SPLIT A BUR S A MAR - GAS, A BUR S A PAR - PIC", "2A BEL R PIC",
                     "2A(Mar) SPLIT A(Pie), A(Mar) s A(Mar) - (Pie)", "BUILD 2A PAR",
                     "0A MAR", "BUILD 0F BRE", "-1A PAR", "99999999999A PAR", "2A BUR - MUN"],
    "hoplite": ["2A TEG - LEP FOR ELATEA", "A ARG S A MES - TEG", "A ELA R ORC", "BUILD A ATH",
                "0A ATH", "BUILD 0F COR", "A AMP S A DEL"],
    "chessdip": ["K b2 S a3 C a1 S a5", "B f1 - a6", "B f1 S e2 - e3", "BUILD N b1",
                 "K c3 S e5 x d5", "B R h1", "P e2 - e4", "N g1 - f3"],
    "dipnomicy": ["F LON - NTH - HEL", "A Rum S A Bud -- Gal", "F NTH C A Lon -- Nwy",
                  "A VIE S A BUD - GAL", "BUILD A VIE"],
    "stab": ["PLACE F LON", "PLACE A PAR", "A(Apu) S A(Ven)-Rom", "A BEL R HOL",
             "A BUR - MUN IF A MUN H", "START A BER"],
}
GARBAGE = ["", " ", "-", "--", "S", "H H H", "A", "A A A A", "BUILD", "REMOVE", "R", "PLACE",
           "SPLIT", ",", "A PAR SPLIT", "A PAR SPLIT ,", "A PAR - ", "A - PAR", "\x00", "\ufeff",
           "A PAR - BUR" * 50, "A " + "PAR - " * 2000 + "BUR", "٣A PAR", "²A PAR", "0", "1e9A PAR"]


def unit_texts(variant: Variant, position: Position) -> tuple[dict, dict]:
    """The units and dislodged units of each power, as the variant writes them."""
    w = variant.write_position(position)
    units = {p: list(us) for p, us in (w.get("units") or {}).items()}
    dislodged = {p: [e["unit"] for e in es] for p, es in (w.get("dislodged") or {}).items()}
    return units, dislodged


def places_near(variant: Variant, unit: str, rng: random.Random) -> list[str]:
    board = variant.board
    where = unit.split()[-1] if unit.split() else ""
    base = where.split("/")[0].upper()
    near: list[str] = []
    if hasattr(board, "neighbours"):
        try:
            near = sorted(board.neighbours(base if base in board.provinces else where))
        except Exception:  # noqa: BLE001 - a board without that place: random places will do
            near = []
    return near + rng.sample(sorted(board.provinces), min(4, len(board.provinces)))


def candidates(variant: Variant, position: Position, power: str, rng: random.Random
               ) -> list[list[str]]:
    """Lines a player of this power might write this phase, in the variant's syntax: one
    group of alternatives per unit (or per build)."""
    units, dislodged = unit_texts(variant, position)
    mine = units.get(power, [])
    everyone = [u for us in units.values() for u in us] or ["A PAR"]
    kinds = sorted({u.split()[0] for u in everyone if u.split()} | {"A", "F", "2A", "2F"})
    provs = sorted(variant.board.provinces)
    centres = sorted(position.centres.get(power, ())) or provs[:3]
    kind = position.phase.kind
    out: list[list[str]] = []
    if kind == "M":
        # an attack on a neighbouring unit, with support from this power's other units:
        # dislodgements, so that the games reach retreat phases
        at = {u.split()[-1].split("/")[0].upper(): u for us in units.values() for u in us
              if u.split()}
        target, attacker = None, None
        for u in rng.sample(mine, len(mine)):
            for p in places_near(variant, u, rng):
                if p.upper() in at and at[p.upper()] not in mine:
                    target, attacker = p, u
                    break
            if target:
                break
        for u in mine:
            near = places_near(variant, u, rng)
            if target and u == attacker:
                near = [target, target]
            elif target and attacker and target in near:
                o, od = attacker, target
                out.append([f"{u} S {o} - {od}", f"{u} S {o} - {od}"])
                continue
            d, d2 = rng.choice(near), rng.choice(near)
            o = rng.choice(everyone)
            od = rng.choice(places_near(variant, o, rng))
            group = [f"{u} - {d}", f"{u} - {d2}", f"{u} H", f"{u} S {o}", f"{u} S {o} - {od}",
                     f"{u} C {o} - {od}", f"{u} - {d} - {d2}", f"{u} - {d} VIA CONVOY"]
            parts = u.split()
            if parts and parts[0][:1].isdigit():  # a stack: split it
                one = parts[0][1:] or "A"
                group += [f"{u} SPLIT {one} {parts[-1]} - {d}, {one} {parts[-1]} H",
                          f"{u} SPLIT {one} {d2}, {one} {parts[-1]} S {o}"]
            out.append(group)
        if not mine:  # Stab!'s placement, and builds-before-start variants
            out += [[f"PLACE {k} {c}" for k in kinds] for c in centres]
    elif kind == "R":
        for u in dislodged.get(power, []):
            near = places_near(variant, u, rng)
            out.append([f"{u} R {rng.choice(near)}", f"{u} R {rng.choice(near)}", f"{u} D",
                        f"DISBAND {u}", f"{u} - {rng.choice(near)}"])
    else:
        for c in centres:
            out.append([f"BUILD {k} {c}" for k in kinds] + [f"{kinds[0]} {c} B"])
        for u in mine:
            out.append([f"REMOVE {u}", f"DISBAND {u}", f"{u} D"])
        out.append(["WAIVE", "BUILD WAIVE"])
    return out


def garbage(rng: random.Random) -> str:
    n = rng.randint(0, 40)
    return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000)]))
                   for _ in range(n))


class Failures:
    """Every distinct unexpected exception, with what produced it (so one run shows all)."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def record(self, what: str, exc: BaseException) -> None:
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{type(exc).__name__} at {tb[-1].filename}:{tb[-1].lineno}" if tb else repr(exc)
        self.seen.setdefault(where, f"{what}\n    {type(exc).__name__}: {exc}")

    def check(self) -> None:
        assert not self.seen, "\n".join(f"{k}: {v}" for k, v in self.seen.items())


def play(variant: Variant, game_seed: int, failures: Failures) -> set[str]:
    """One seeded game of fuzzed orders; the phase kinds it went through."""
    rng = random.Random(game_seed)
    position = variant.initial_position()
    kinds: set[str] = set()
    for _ in range(PHASES_PER_GAME):
        if position.winner:
            break
        kinds.add(position.phase.kind)
        accepted: list[tuple[str, object]] = []
        chosen: list[tuple[str, object]] = []  # one intended order per unit: the game goes on
        lines: list[tuple[str, str]] = []
        powers = list(variant.board.powers)
        for power in powers + ["NOBODY"]:
            groups = candidates(variant, position, power, rng) if power != "NOBODY" else []
            intended = {rng.choice(g[:2] if rng.random() < 0.7 else g) for g in groups}
            good = [t for g in groups for t in g]
            texts = list(good)
            for text in rng.sample(good, min(len(good), 6)) + SAMPLES.get(variant.name, []):
                texts.append(mutate_text(rng, text))
            texts += [rng.choice(GARBAGE), garbage(rng)]
            for text in texts:
                what = (f"{variant.name} seed {game_seed} {position.phase} {power}: "
                        f"read_order({text[:120]!r})")
                try:
                    order = variant.read_order(position, power, text)
                except OrderError as exc:
                    if not str(exc).strip():
                        failures.record(what + " (an OrderError without a reason)", exc)
                    continue
                except Exception as exc:  # noqa: BLE001 - what the fuzz looks for
                    failures.record(what, exc)
                    continue
                accepted.append((power, order))
                lines.append((power, text))
                if text in intended:
                    chosen.append((power, order))
                    intended.discard(text)
            lines += [(power, t) for t in texts[-2:]]
        what = f"{variant.name} seed {game_seed} {position.phase}"
        try:
            variant.adjudicate_lines(position, lines)
        except Exception as exc:  # noqa: BLE001
            failures.record(f"{what}: adjudicate_lines({lines[:40]!r}...)", exc)
        for orders in (accepted, chosen):
            try:
                outcome = variant.adjudicate(position, orders)  # type: ignore[arg-type]
            except Exception as exc:  # noqa: BLE001
                failures.record(f"{what}: adjudicate({[(p, str(o)) for p, o in orders]!r})",
                                exc)
                return kinds
        position = outcome.position  # the intended orders' outcome
    return kinds


def games() -> int:
    """3 games per variant in CI; JUDGE_FUZZ_EXAMPLES / 100 in a nightly run."""
    return max(3, examples(CI_EXAMPLES) // 100) if nightly() else 3


@pytest.mark.parametrize("name", variant_names())
def test_fuzzed_orders_only_raise_order_errors_and_adjudicate(name):
    variant = get_variant(name)
    failures = Failures()
    kinds: set[str] = set()
    base = seed()
    for g in range(games()):
        kinds |= play(variant, base + g, failures)
    failures.check()
    # retreat and adjustment phases come when the games make them (Dipnomicy has neither
    # supports nor supply centres before its rules enact them)
    assert "M" in kinds, f"the games went only through {kinds}"


def reached_position(variant: Variant, game_seed: int) -> Position:
    """A position a few phases into a seeded game (for the command-line check)."""
    rng = random.Random(game_seed)
    position = variant.initial_position()
    for _ in range(3):
        orders = []
        for power in variant.board.powers:
            for group in candidates(variant, position, power, rng):
                with contextlib.suppress(OrderError):
                    orders.append((power, variant.read_order(position, power, group[0])))
        position = variant.adjudicate(position, orders).position
    return position


@pytest.mark.parametrize("name", variant_names())
def test_judge_adjudicate_answers_garbage_without_a_traceback(name, tmp_path):
    variant = get_variant(name)
    rng = random.Random(seed())
    position = reached_position(variant, seed())
    (tmp_path / "position.json").write_text(json.dumps(variant.write_position(position)))
    powers = list(variant.board.powers)
    text = ""
    for power in powers:
        lines = [t for g in candidates(variant, position, power, rng) for t in g]
        text += f"{power}:\n" + "\n".join(
            [mutate_text(rng, t).replace("\n", " ") for t in lines[:8]]
            + [g.replace("\n", " ") for g in GARBAGE[:20]]
            + [mutate_text(rng, s).replace("\n", " ") for s in SAMPLES.get(name, [])]) + "\n"
    (tmp_path / "orders.txt").write_text(text, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "judge.cli", "adjudicate", "--variant", name,
                           "--position", str(tmp_path / "position.json"),
                           "--orders", str(tmp_path / "orders.txt")],
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    assert proc.returncode in (0, 2), proc.stderr
    if proc.returncode == 2:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    else:
        assert "invalid" in proc.stdout, proc.stdout
