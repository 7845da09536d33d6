"""Helpers for the Chess Dip tests: a phase from a few pieces and order lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.engine.position import Position
from judge.engine.variant import Outcome
from judge.variants import get_variant

VARIANT = get_variant("chessdip")
RULES = VARIANT.rules
BOARD = VARIANT.board


def position(pieces: dict[str, list[str]], phase: str = "S1901M",
             centres: dict[str, list[str]] | None = None, **extra: Any) -> Position:
    """A position as ``judge adjudicate`` reads one (through ``Position.from_json``)."""
    data: dict[str, Any] = {"variant": "chessdip", "phase": phase, "units": pieces,
                            "centres": centres or {}}
    data.update(extra)
    return VARIANT.read_position(data)


@dataclass
class Result:
    outcome: Outcome
    lines: list[tuple[str, str]]

    def __getitem__(self, k: int) -> str:
        """``succeeds`` / ``fails`` / ``invalid`` of the k-th line."""
        return self.outcome.results[k].result

    def reason(self, k: int) -> str:
        return self.outcome.results[k].reason

    def ok(self, k: int) -> bool:
        return self[k] == "succeeds"

    @property
    def board(self) -> dict[str, str]:
        """Square -> ``"ITALY B"`` after the phase."""
        return {u.location: f"{u.power} {u.kind}" for u in self.outcome.position.units}

    @property
    def dislodged(self) -> dict[str, str]:
        """Square -> the square the dislodging order came from."""
        return {d.unit.location: d.attacker_from or "" for d in self.outcome.position.dislodged}

    @property
    def next(self) -> Position:
        return self.outcome.position


def play(pieces: dict[str, list[str]], *lines: str, phase: str = "S1901M",
         pos: Position | None = None, **extra: Any) -> Result:
    """Adjudicate ``"POWER: order"`` lines on a position of ``pieces``."""
    if pos is None:
        pos = position(pieces, phase, **extra)
    parsed = []
    for line in lines:
        power, _, text = line.partition(":")
        parsed.append((power.strip().upper(), text.strip()))
    return Result(VARIANT.adjudicate_lines(pos, parsed), parsed)
