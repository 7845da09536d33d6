"""A Dipnomicy movement turn as decisions for the generic resolver.

:class:`DipnomicyMovement` is the standard :class:`MovementPhase` with its strength functions
made to depend on the rule modules in force, and one new kind of path (a fleet's double move).
The resolver is the engine's, unchanged.

The base game (no module) has holds, moves and convoys only. Nothing is ever dislodged: a move
into a territory whose unit stays fails (rule 19), an exchange fails (rule 20), moves into one
territory all fail (rule 23), circles succeed (rule 21, the resolver's backup rule).

``support`` (P1)
    Supports count and are never cut (the support decision depends on nothing). A move beats
    the territory's holder when it has more units involved than the holder, which is how a
    unit gets beaten out; a tie goes to the defender; moves into one territory with equal
    tallies all fail. Standard Diplomacy's rule that a power cannot beat out its own unit, or
    help beat out its own unit, is kept: the proposal is "basically the same as support from
    the original game".

``merging`` (P6)
    A unit counts as its size wherever units are tallied: the larger of several units moving
    into one territory succeeds. Without ``support`` there is still no beating out: sizes only
    decide between moves (the proposal's words), never against a unit that stays.

``mobile_fleets`` (P4): a fleet's double move ``F X -- Y -- Z``
    is one action that succeeds or fails whole (the fleet never stops in ``Y``). Its path is
    the passage through ``Y``, and the passage succeeds only when ``Y`` is free for it:
    ``Y``'s unit, if any, must leave successfully and not by moving into ``X`` (that would be
    an exchange, rule 20), and the fleet must beat every other unit attempting to enter ``Y``
    (rule 23; by size under P6), counting the fleet's size only, since a double move cannot be
    supported. A unit moving into ``Y`` likewise has to beat the passing fleet, which contests
    ``Y`` whether or not it gets through (it attempted to move there). A fleet that cannot
    pass does not reach ``Z`` and does not contest it. The last step into ``Z`` is an ordinary
    move from afar: never an exchange. When the passage depends on itself with no single
    answer (the unit in ``Y`` moving into ``Z``), the double move fails, as a paradoxical
    convoy does under the Szykman rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.engine.board import Board
from judge.engine.orders import Move, Order, Unit
from judge.engine.resolver import Resolver
from judge.variants.dipnomicy.catalogue import Active
from judge.variants.dipnomicy.orders import size_of
from judge.variants.standard.movement import MOVE, MovementPhase


class DipnomicyMovement(MovementPhase):
    """One movement turn under the rule modules ``active``."""

    def __init__(self, board: Board, units: Sequence[Unit], orders: Sequence[Order | None],
                 active: Active) -> None:
        self.can_beat_out = active.on("support")
        sizes = active.on("merging")
        self.weight = [size_of(u) if sizes else 1 for u in units]
        super().__init__(board, units, orders)
        # The territory a double-moving fleet passes through (its location), per unit, and the
        # number of the extra decision "the fleet gets through": a decision, not a plain
        # function, so that passages depending on each other are cycles the resolver sees.
        n = len(self.units)
        # Merges carried out at the end of the turn (set by the rules once it is resolved):
        # the units merged away, and how much each unit merged into grows.
        self.merged_away: set[int] = set()
        self.growth: dict[int, int] = {}
        self.via: list[str | None] = [None] * n
        self.through: dict[str, list[int]] = {}
        self.passage: dict[int, int] = {}
        self.passer: dict[int, int] = {}
        for i, order in enumerate(orders):
            if isinstance(order, Move) and order.route and self.units[i].kind == "F":
                self.via[i] = order.route[0]
                self.through.setdefault(self.via_province(i), []).append(i)
                self.passage[i] = n + len(self.passer)
                self.passer[n + len(self.passer)] = i
        if self.passer:
            self.resolver = Resolver(self, n + len(self.passer))

    def via_province(self, i: int) -> str:
        return (self.via[i] or "").partition("/")[0]

    # ------------------------------------------------------------ supports
    def support_given(self, s: int, r: Resolver) -> bool:
        # P1: "without a mechanism for cutting support".
        return self.target[s] >= 0

    def count_supports(self, i: int, r: Resolver, exclude_power: str | None = None) -> int:
        n = 0
        power, weight = self.power, self.weight
        for s in self.supports[i]:
            if power[s] != exclude_power and r.resolve(s):
                n += weight[s]
        return n

    # ---------------------------------------------------------- strengths
    def head_to_head(self, i: int, j: int) -> bool:
        if self.via[i] or self.via[j]:
            return False
        return super().head_to_head(i, j)

    def has_path(self, i: int, r: Resolver) -> bool:
        if self.via[i] is None:
            return super().has_path(i, r)
        return i not in self.paradox and r.resolve(self.passage[i])

    def decide(self, i: int, r: Resolver) -> bool:
        fleet = self.passer.get(i)
        if fleet is not None:
            return self._passes(fleet, r)
        return super().decide(i, r)

    def _passes(self, i: int, r: Resolver) -> bool:
        """Whether double-moving fleet ``i`` gets through the territory it passes."""
        y = self.via_province(i)
        j = self.at.get(y)
        if j is not None:
            if self.kind[j] != MOVE or (self.dest[j] == self.prov[i] and not self.via[j]):
                return False
            if not r.resolve(j):
                return False
        strength = self.weight[i]
        for k in self.moves_into.get(y, ()):
            if strength <= self.prevent_strength(k, r):
                return False
        return all(k == i or strength > self.weight[k] for k in self.through.get(y, ()))

    def attack_strength(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        j = self.at.get(self.dest_of(i))
        w = self.weight[i]
        if j is None or (self.kind[j] == MOVE and not self.head_to_head(i, j) and r.resolve(j)):
            return w + self.count_supports(i, r)
        if self.power[j] == self.power[i]:
            return 0
        return w + self.count_supports(i, r, exclude_power=self.power[j])

    def defend_strength(self, i: int, r: Resolver) -> int:
        return self.weight[i] + self.count_supports(i, r)

    def prevent_strength(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        j = self.at.get(self.dest_of(i))
        if j is not None and self.head_to_head(i, j) and r.resolve(j):
            return 0
        return self.weight[i] + self.count_supports(i, r)

    def hold_strength(self, province: str, r: Resolver) -> int:
        j = self.at.get(province)
        if j is None:
            return 0
        if self.kind[j] == MOVE:
            return 0 if r.resolve(j) else self.weight[j]
        return self.weight[j] + self.count_supports(j, r)

    def move_succeeds(self, i: int, r: Resolver) -> bool:
        attack = self.attack_strength(i, r)
        if attack == 0:
            return False
        d = self.dest_of(i)
        j = self.at.get(d)
        if j is not None and j != i:
            if self.head_to_head(i, j):
                # Without P1 nothing is beaten out: an exchange simply fails (rule 20).
                if not self.can_beat_out or attack <= self.defend_strength(j, r):
                    return False
            elif not (self.kind[j] == MOVE and r.resolve(j)) and (
                    # The unit there stays: without P1 the move fails (rule 19).
                    not self.can_beat_out or attack <= self.hold_strength(d, r)):
                return False
        for k in self.moves_into[d]:
            if k != i and attack <= self.prevent_strength(k, r):
                return False
        # A fleet passing through the destination contests it too (rule 23).
        return all(attack > self.weight[k] for k in self.through.get(d, ()) if k != i)

    # ------------------------------------------------------------- backup
    def backup(self, cycle: list[int], r: Resolver) -> None:
        """A passage in the cycle: the double move fails (as a paradoxical convoy does under
        the Szykman rule). Otherwise the standard backup rule (circular movement succeeds)."""
        passages = [d for d in cycle if d in self.passer]
        if passages:
            for d in passages:
                self.paradox.add(self.passer[d])
                r.settle(d, False)
            return
        super().backup(cycle, r)

    def move_failure(self, i: int) -> str:
        if self.via[i] is not None:
            if i in self.paradox or not self.resolver.result[self.passage[i]]:
                return f"could not pass through {self.via_province(i)}"
            return "bounced"
        return super().move_failure(i)
