"""An adjudicated phase as the games layer hands it on (:class:`Turn`: to the reports, to
the flows' hooks, to the deadline engine), with the orders sent ahead that it made current
(:class:`Activation`).

They stand below every other module of the games layer (the flows' hooks return turns, the
game module makes them), so that a type names no cycle (issue 22).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judge.engine.position import Position


def stored_orders(variant: Any, sets: dict[str, list[dict]]) -> list[tuple[str, Any]]:
    """The orders standing in ``sets`` (power -> stored lines), power by power: each built
    from its data, as it was read and checked, with no text read again. A line stored before
    orders were kept as data (or one a variant's flow keeps as text, to be read when its phase
    comes) gives its text, which the adjudication reads."""
    out: list[tuple[str, Any]] = []
    for power in sorted(sets):
        for line in sets[power]:
            if not line.get("order"):
                continue
            data = line.get("data")
            out.append((power, line["order"] if data is None else variant.order_from_data(data)))
    return out


@dataclass(slots=True)
class Activation:
    """A block taken out of the store when its phase began (or when the game went past it):
    the lines that stand, the lines left out with the reason, which way each IF went."""

    power: str
    phase: str
    phase_name: str
    lines: list[str]
    dropped: list[tuple[str, str]]
    trace: list[tuple[str, bool]]
    inbox_id: int | None
    expired: bool = False
    # the blocks as sent, line by line, each IF marked with whether its lines stood
    # (judge.engine.ahead.Block.echo with the position): what the player is mailed
    shown: list[dict] = field(default_factory=list)
    # the phases of the blocks used (code, long name), as their PHASE lines named them: the
    # phase begun, or one whose orders it takes (GameFlow.sent_with: Stab!'s next season)
    sent_for: list[tuple[str, str]] = field(default_factory=list)


@dataclass(slots=True)
class Turn:
    """One adjudicated phase, as the report needs it."""

    game: dict
    previous: Position
    outcome: Any
    orders: dict[str, list[dict]]
    given: list | None = None  # the orders as adjudicated, when the variant's plug-in keeps them
    # orders sent ahead that became orders when the next phase began (judge/games/ahead.py)
    ahead: list[Activation] = field(default_factory=list)

    def standing_orders(self, variant: Any) -> list[tuple[str, Any]]:
        """The orders that stood in the phase, power by power, as they were stored (what
        judge.reports.AdjudicatedPhase asks of a phase)."""
        return stored_orders(variant, self.orders)
