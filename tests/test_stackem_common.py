"""Shared helpers for the Stack 'em tests: play one phase from orders as players write them."""

from __future__ import annotations

from collections import Counter

from judge.engine.position import Position
from judge.engine.variant import Outcome
from judge.variants import get_variant

V = get_variant("stackem")


def position(units: dict[str, list[str]], phase: str = "S1901M",
             centres: dict[str, list[str]] | None = None, **extra: object) -> Position:
    """A Stack 'em position; units may be written as stacks (``2A PAR``)."""
    return V.read_position({"variant": "stackem", "phase": phase, "units": units,
                            "centres": centres or {}, **extra})


def play(units: dict[str, list[str]] | Position, orders: dict[str, list[str]],
         phase: str = "S1901M") -> Outcome:
    start = units if isinstance(units, Position) else position(units, phase)
    lines = [(power, line) for power, ls in orders.items() for line in ls]
    return V.adjudicate_lines(start, lines)


def units(pos: Position) -> dict[str, Counter[str]]:
    """Each power's units as a multiset of ``A PAR`` strings (a stack counts once per unit)."""
    out: dict[str, Counter[str]] = {}
    for u in pos.units:
        out.setdefault(u.power, Counter())[str(u)] += 1
    return out


def stacks(**by_power: list[str]) -> dict[str, Counter[str]]:
    """``stacks(FRANCE=["2A PAR", "A BUR"])`` in the form :func:`units` returns."""
    out: dict[str, Counter[str]] = {}
    for power, texts in by_power.items():
        c: Counter[str] = Counter()
        for text in texts:
            n = int(text[0]) if text[0].isdigit() else 1
            c[text.lstrip("0123456789")] += n
        out[power] = c
    return out


def dislodged(outcome: Outcome) -> Counter[str]:
    return Counter(f"{d.unit.power} {d.unit}" for d in outcome.position.dislodged)


def result(outcome: Outcome, k: int) -> tuple[str, str]:
    """The k-th line's (result, reason)."""
    r = outcome.results[k]
    return r.result, r.reason
