"""Counted orders of Stack 'em: ``2A BUR-MUN`` and ``2A MAR S 2A PAR-BUR``.

Rule 2 makes a number before the ordered unit an abbreviation: ``2A BUR-MUN`` is the same
order given to two armies in Burgundy. Rule 12 gives a number before the *supported* unit a
meaning of its own: the supports are spread over that many of the units making the move
(without it they all go to one unit). The standard reader (:func:`judge.engine.parse.parse_order`)
knows neither number, so :func:`split_counts` takes them off the line first and the rest is read
as any other order. A counted order is the standard order value wrapped in :class:`Stacked`,
so that the engine's order classes stay as they are for every other variant.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from judge.engine.errors import OrderSyntaxError
from judge.engine.orders import (
    Convoy,
    Order,
    SupportHold,
    SupportMove,
    UnitRef,
    unit_of,
)

# A count is digits glued to the unit letter ("2A", "3f") or followed by a plural word
# ("2 armies"). "2 A PAR" is *not* read as a count: a number and a space before a unit is how
# players number their order lines, which the standard reader already strips.
_COUNT_RE = re.compile(
    r"(?<![\w/(])(?P<n>\d{1,2})(?:(?P<letter>(?=[AF]\b))|\s*(?P<word>armies|fleets|army|fleet)\b)",
    re.IGNORECASE,
)
_SINGULAR = {"armies": "army", "fleets": "fleet", "army": "army", "fleet": "fleet"}
# The words after which a unit is the supported or convoyed one, not the ordered one.
_TARGET_WORD_RE = re.compile(r"\b(?:s|supports?|c|convoys?)\b", re.IGNORECASE)


def split_counts(text: str) -> tuple[str, int, int]:
    """``"2A MAR S 2A PAR-BUR"`` -> ``("A MAR S A PAR-BUR", 2, 2)``.

    Returns the line without its counts, the count of the ordered unit (1 when none is
    written) and the count of the supported or convoyed unit (0 when none is written: rule 12
    then sends every support to one unit). Raises OrderSyntaxError for a zero count or a count
    written twice for the same unit.
    """
    count, target = 0, 0
    out: list[str] = []
    last = 0
    for m in _COUNT_RE.finditer(text):
        n = int(m.group("n"))
        if n == 0:
            raise OrderSyntaxError(f"'{m.group(0).strip()}': a count must be at least 1")
        is_target = _TARGET_WORD_RE.search(text, 0, m.start()) is not None
        if is_target:
            if target:
                raise OrderSyntaxError("two counts for the supported unit")
            target = n
        else:
            if count:
                raise OrderSyntaxError("two counts for the ordered unit")
            count = n
        out.append(text[last:m.start()])
        word = m.group("word")
        if word:
            out.append(_SINGULAR[word.lower()])
        last = m.end()
    out.append(text[last:])
    return "".join(out), count or 1, target


@dataclass(frozen=True, slots=True)
class Stacked:
    """``order`` given to ``count`` units of one stack alike (rule 2).

    ``target_count`` is the number written before the supported (or convoyed) unit: the
    supports of this line are spread over that many of the moving units (rule 12); 0 when
    none was written, and then every support of the line goes to one unit.
    """

    order: Order
    count: int = 1
    target_count: int = 0

    @property
    def unit(self) -> UnitRef:
        """The unit the order names, so code that reads ``order.unit`` works unchanged."""
        return unit_of(self.order)

    def __str__(self) -> str:
        return counted_text(self.order, self.count, self.target_count)


def counted_text(order: Order, count: int, target_count: int = 0) -> str:
    """The canonical text of ``order`` with its counts: ``2A MAR S 2A PAR - BUR``."""
    text = str(order)
    if count > 1:
        unit = str(unit_of(order))  # a count is written only for an order to a unit
        text = text.replace(unit, f"{count}{unit}", 1)
    if target_count > 1 and isinstance(order, (SupportMove, Convoy)):
        word = " S " if isinstance(order, SupportMove) else " C "
        text = text.replace(f"{word}{order.target}", f"{word}{target_count}{order.target}", 1)
    return text


def unpack(order: Order | Stacked) -> tuple[Order, int, int]:
    """Any order as (plain order, count, target count)."""
    if isinstance(order, Stacked):
        target = order.target_count if isinstance(order.order, (SupportMove, Convoy)) else 0
        return order.order, order.count, target
    return order, 1, 0


def pack(order: Order, count: int, target_count: int) -> Order | Stacked:
    """The value to hand back: the plain order when there is nothing to count, so that
    one-unit orders look exactly like standard ones to the rest of the judge."""
    if isinstance(order, SupportHold):
        target_count = 0  # rule 12: no ambiguity for support to hold, so no count to keep
    if count == 1 and target_count <= 1:
        return order
    return Stacked(order, count, target_count)


K = TypeVar("K", bound=Hashable)  # what identifies a stack: one key per unit of one stack


def standing(orders: Sequence[tuple[K, int]], sizes: Mapping[K, int]
             ) -> tuple[list[int], dict[int, int]]:
    """Which of one phase's orders stand, and for how many units (description.md, "A unit
    ordered twice"): the judge's general rule, a later order for a unit replaces the earlier
    one, counted per unit of a stack (rule 2: ``2A WAR-UKR`` is an order for each of two
    armies).

    ``orders`` are the checked orders in written order, each as (its stack, how many units
    it orders); ``sizes`` how many units each stack holds. A stack takes as many orders as it
    has units; each order past that takes the place of the earliest order still standing
    there, one unit at a time, so a counted order loses one unit per unit ordered after it
    and is replaced when none is left. Returns how many units each order still orders (0:
    replaced), and for each order a later one took units from, the last order that did.
    The mail reader (``StackRules.replaced_orders``) and the adjudicator
    (``StackRules._bind_orders``) both rule by this function."""
    left = [count for _, count in orders]
    by: dict[int, int] = {}
    live: dict[Hashable, list[int]] = {}  # stack -> its orders still ordering units, in order
    for i, (stack, _) in enumerate(orders):
        here = live.setdefault(stack, [])
        here.append(i)
        excess = sum(left[j] for j in here) - sizes.get(stack, 0)
        while excess > 0 and here[0] != i:
            j = here[0]
            taken = min(excess, left[j])
            left[j] -= taken
            excess -= taken
            by[j] = i
            if not left[j]:
                here.pop(0)
    return left, by
