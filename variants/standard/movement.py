"""Standard movement-phase adjudication as decisions for the generic resolver.

:class:`MovementPhase` turns one movement phase (units, and one checked order per unit) into
decisions numbered by unit: *does this move succeed*, *is this support given*, *does this
convoying fleet survive*. Strengths (attack, hold, defend, prevent) are computed on demand from
other decisions, as in DATC section 5 ("The Math of Adjudication").

Variants change the game by subclassing and overriding the strength functions or the backup
rule, or by building the per-unit tables differently (see ``docs/engine.md``); the resolver
itself never changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge.engine.board import ARMY, Board, province_of
from judge.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove, Unit
from judge.engine.resolver import Resolver

HOLD, MOVE, SUPPORT_HOLD, SUPPORT_MOVE, CONVOY = range(5)
_KIND = {Hold: HOLD, Move: MOVE, SupportHold: SUPPORT_HOLD, SupportMove: SUPPORT_MOVE, Convoy: CONVOY}


@dataclass(slots=True)
class UnitOutcome:
    """What became of one unit's order in a movement phase."""

    succeeded: bool
    reason: str = ""


class MovementPhase:
    """One movement phase, as decisions. ``orders[i]`` is the checked order of ``units[i]``.

    Orders must already be legal for their unit (checked by the rules' ``read_order``); a unit
    whose order is ``None`` holds. Two kinds of order are legal yet turn out void here, because
    they depend on other units' orders: a support that matches no order, and a move by convoy
    with no convoy route ordered. The support then fails; the move fails and the unit holds.
    """

    def __init__(self, board: Board, units: Sequence[Unit], orders: Sequence[Order | None]) -> None:
        self.board = board
        self.units = list(units)
        self.orders = list(orders)  # kept for reports that show orders (Stab! visibility)
        n = len(self.units)
        self.power = [u.power for u in self.units]
        self.prov = [u.province for u in self.units]
        self.at: dict[str, int] = {p: i for i, p in enumerate(self.prov)}
        self.kind = [HOLD] * n
        self.dest: list[str | None] = [None] * n  # move: province; support/convoy: destination
        self.dest_loc: list[str | None] = [None] * n  # move: location (with coast)
        self.target: list[int] = [-1] * n  # support/convoy: the unit supported or convoyed
        self.convoyed = [False] * n
        self.void: dict[int, str] = {}  # legal orders that turned out void, with the reason
        self.supports: list[list[int]] = [[] for _ in range(n)]
        self.moves_into: dict[str, list[int]] = {}
        self.convoy_fleets: list[list[int]] = [[] for _ in range(n)]
        self.paradox: set[int] = set()
        self.take_orders(orders)
        self.resolver = Resolver(self, n)

    def dest_of(self, i: int) -> str:
        """The province unit ``i``'s move goes to, or the move it supports or convoys; only
        for those orders (``dest[i]`` is None for a hold or a support to hold)."""
        dest = self.dest[i]
        if dest is None:
            raise ValueError(f"the order of unit {i} has no destination")
        return dest

    # ------------------------------------------------------------ set-up
    def take_orders(self, orders: Sequence[Order | None]) -> None:
        at = self.at
        kind, dest, target = self.kind, self.dest, self.target
        for i, order in enumerate(orders):
            if order is None:
                continue
            k = _KIND[type(order)]
            kind[i] = k
            if k == MOVE:
                assert isinstance(order, Move)
                dest[i] = province_of(order.destination)
                self.dest_loc[i] = order.destination
            elif k == SUPPORT_HOLD:
                assert isinstance(order, SupportHold)
                target[i] = at.get(order.target.province, -1)
            elif k in (SUPPORT_MOVE, CONVOY):
                assert isinstance(order, (SupportMove, Convoy))
                target[i] = at.get(order.target.province, -1)
                dest[i] = order.destination
        self._decide_convoy_routes(orders)
        for i in range(len(kind)):
            if kind[i] == MOVE:
                self.moves_into.setdefault(self.dest_of(i), []).append(i)
        self.match_supports()

    def _decide_convoy_routes(self, orders: Sequence[Order | None]) -> None:
        """Which moves go by convoy, and which convoy orders carry them (DATC 4.A.3, 2023)."""
        board = self.board
        kind, dest, target, power = self.kind, self.dest, self.target, self.power
        fleets_for: dict[int, list[int]] = {}
        for c in range(len(kind)):
            if kind[c] != CONVOY:
                continue
            t = target[c]
            if t >= 0 and kind[t] == MOVE and dest[t] == province_of(dest[c] or ""):
                fleets_for.setdefault(t, []).append(c)
            else:
                self.void[c] = "void: no matching move to convoy"
        for i, order in enumerate(orders):
            if kind[i] != MOVE or self.units[i].kind != ARMY:
                continue
            assert isinstance(order, Move)
            adjacent = board.can_move(ARMY, self.prov[i], self.dest_of(i))
            fleets = fleets_for.get(i, [])
            # 2023 rules (DATC 4.A.3): an army next to its destination goes by convoy only
            # when its order says so or a fleet of its own power convoys it (6.G.6).
            if adjacent and not order.via_convoy and not any(power[c] == power[i] for c in fleets):
                for c in fleets:
                    self.void[c] = "void: the army moves by land"
                continue
            route = self._route_fleets(i, fleets) if fleets else None
            if route is None:
                # Still a move (DATC 6.D.8: it cannot receive support to hold), but one
                # with no path: it fails and has no effect on its destination.
                self.void[i] = "no convoy route ordered"
                self.convoyed[i] = True
                for c in fleets:
                    self.void[c] = "void: no complete convoy route"
                continue
            self.convoyed[i] = True
            self.convoy_fleets[i] = route
            for c in fleets:
                if c not in route:
                    self.void[c] = "void: not on a convoy route"
        for c in self.void:
            if kind[c] == CONVOY:
                target[c] = -1

    def _route_fleets(self, i: int, fleets: list[int]) -> list[int] | None:
        """The convoying fleets that some convoy route of move ``i`` needs, or None.

        Whether the fleets will be dislodged is decided later, by :meth:`has_path`.
        """
        prov = self.prov
        seas = {prov[c]: c for c in fleets if self.board.is_sea(prov[c])}
        needed = self.board.convoy_routes(prov[i], self.dest_of(i), seas)
        return sorted(seas[p] for p in needed) if needed else None

    def match_supports(self) -> None:
        kind, dest, target, supports = self.kind, self.dest, self.target, self.supports
        for s in range(len(kind)):
            k = kind[s]
            if k == SUPPORT_HOLD:
                t = target[s]
                if t < 0:
                    self.void[s] = "void: no unit to support"
                elif kind[t] == MOVE:
                    self.void[s] = f"void: {self.units[t]} moves"
                else:
                    supports[t].append(s)
            elif k == SUPPORT_MOVE:
                t = target[s]
                wanted = dest[s] or ""
                if t < 0:
                    self.void[s] = "void: no unit to support"
                elif kind[t] != MOVE or dest[t] != province_of(wanted):
                    self.void[s] = f"void: {self.units[t]} does not move to {wanted}"
                elif "/" in wanted and self.units[t].kind != ARMY and self.dest_loc[t] != wanted:
                    self.void[s] = f"void: {self.units[t]} moves to {self.dest_loc[t]}"
                else:
                    supports[t].append(s)
        for s in self.void:
            if kind[s] in (SUPPORT_HOLD, SUPPORT_MOVE):
                target[s] = -1

    # --------------------------------------------------------- decisions
    def decide(self, i: int, r: Resolver) -> bool:
        k = self.kind[i]
        if k == MOVE:
            return self.move_succeeds(i, r)
        if k in (SUPPORT_HOLD, SUPPORT_MOVE):
            return self.support_given(i, r)
        return not self.is_dislodged(i, r)

    def backup(self, cycle: list[int], r: Resolver) -> None:
        """Convoy paradox: Szykman rule. Otherwise circular movement: every move succeeds."""
        carried = {self.target[c] for c in cycle if self.kind[c] == CONVOY and self.target[c] >= 0}
        if carried:
            for m in carried:
                self.paradox.add(m)
                r.settle(m, False)
            return
        for d in cycle:
            if self.kind[d] == MOVE:
                r.settle(d, True)

    def count_supports(self, i: int, r: Resolver, exclude_power: str | None = None) -> int:
        n = 0
        power = self.power
        for s in self.supports[i]:
            if power[s] != exclude_power and r.resolve(s):
                n += 1
        return n

    def head_to_head(self, i: int, j: int) -> bool:
        """Units ``i`` and ``j`` move into each other's province, neither by convoy."""
        return (self.kind[j] == MOVE and self.dest[j] == self.prov[i]
                and not self.convoyed[i] and not self.convoyed[j])

    def has_path(self, i: int, r: Resolver) -> bool:
        """A move by land always has its path; a convoyed army needs an unbroken chain."""
        if not self.convoyed[i]:
            return True
        if i in self.paradox:
            return False
        fleets = self.convoy_fleets[i]
        board, prov = self.board, self.prov
        origin, goal = prov[i], self.dest[i]
        reach = board.fleet_reach
        locs = [self.units[c].location for c in fleets]
        alive: dict[int, bool] = {}
        frontier = [k for k, c in enumerate(fleets) if origin in reach[locs[k]]]
        seen = set(frontier)
        while frontier:
            k = frontier.pop()
            c = fleets[k]
            ok = alive.get(k)
            if ok is None:
                ok = alive[k] = r.resolve(c)
            if not ok:
                continue
            if goal in reach[locs[k]]:
                return True
            for k2, c2 in enumerate(fleets):
                if k2 not in seen and prov[c2] in reach[locs[k]]:
                    seen.add(k2)
                    frontier.append(k2)
        return False

    def attack_strength(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        j = self.at.get(self.dest_of(i))
        if j is None or (self.kind[j] == MOVE and not self.head_to_head(i, j) and r.resolve(j)):
            return 1 + self.count_supports(i, r)
        if self.power[j] == self.power[i]:
            return 0
        return 1 + self.count_supports(i, r, exclude_power=self.power[j])

    def defend_strength(self, i: int, r: Resolver) -> int:
        return 1 + self.count_supports(i, r)

    def prevent_strength(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        j = self.at.get(self.dest_of(i))
        if j is not None and self.head_to_head(i, j) and r.resolve(j):
            return 0
        return 1 + self.count_supports(i, r)

    def hold_strength(self, province: str, r: Resolver) -> int:
        j = self.at.get(province)
        if j is None:
            return 0
        if self.kind[j] == MOVE:
            return 0 if r.resolve(j) else 1
        return 1 + self.count_supports(j, r)

    def move_succeeds(self, i: int, r: Resolver) -> bool:
        attack = self.attack_strength(i, r)
        if attack == 0:
            return False
        d = self.dest_of(i)
        j = self.at.get(d)
        if j is not None and self.head_to_head(i, j):
            if attack <= self.defend_strength(j, r):
                return False
        elif attack <= self.hold_strength(d, r):
            return False
        for k in self.moves_into[d]:
            if k != i and attack <= self.prevent_strength(k, r):
                return False
        return True

    def support_given(self, s: int, r: Resolver) -> bool:
        if self.target[s] < 0:
            return False
        attackers = self.moves_into.get(self.prov[s])
        if not attackers:
            return True
        power = self.power[s]
        toward = self.dest[s] if self.kind[s] == SUPPORT_MOVE else None
        from_target: list[int] = []
        for k in attackers:
            if self.power[k] == power:
                continue
            if self.prov[k] == toward:
                from_target.append(k)
            elif self.has_path(k, r):
                return False
        return all(not r.resolve(k) for k in from_target)

    def is_dislodged(self, i: int, r: Resolver) -> bool:
        if self.kind[i] == MOVE and r.resolve(i):
            return False
        return any(r.resolve(k) for k in self.moves_into.get(self.prov[i], ()))

    # ----------------------------------------------------------- results
    def resolve(self) -> list[UnitOutcome]:
        """Resolve every decision; one outcome per unit."""
        r = self.resolver
        kind = self.kind
        for i in range(len(kind)):
            if kind[i] != HOLD:
                r.resolve(i)
        out = []
        for i in range(len(kind)):
            k = kind[i]
            if i in self.void:
                out.append(UnitOutcome(False, self.void[i]))
            elif k == MOVE:
                ok = r.result[i]
                out.append(UnitOutcome(ok, "" if ok else self.move_failure(i)))
            elif k in (SUPPORT_HOLD, SUPPORT_MOVE):
                ok = r.result[i]
                out.append(UnitOutcome(ok, "" if ok else ("dislodged" if self.dislodger(i) is not None else "cut")))
            else:
                gone = self.dislodger(i) is not None
                out.append(UnitOutcome(not gone, "dislodged" if gone else ""))
        return out

    def move_failure(self, i: int) -> str:
        if i in self.paradox:
            return "convoy paradox: the convoyed move fails (Szykman rule)"
        if self.convoyed[i] and not self.has_path(i, self.resolver):
            return "convoy disrupted"
        return "bounced"

    def moved(self, i: int) -> bool:
        """Whether unit ``i`` moved (call after :meth:`resolve`)."""
        return self.kind[i] == MOVE and self.resolver.result[i]

    def dislodger(self, i: int) -> int | None:
        """The unit that dislodged unit ``i``, or None (call after :meth:`resolve`)."""
        if self.moved(i):
            return None
        result = self.resolver.result
        for k in self.moves_into.get(self.prov[i], ()):
            if result[k]:
                return k
        return None

    def standoffs(self) -> set[str]:
        """Provinces left empty where two or more moves with a path met (no retreat there)."""
        kind, result, dest, prov = self.kind, self.resolver.result, self.dest, self.prov
        occupied = {dest[i] if kind[i] == MOVE and result[i] else prov[i]
                    for i in range(len(kind))}
        out = set()
        r = self.resolver
        for province, movers in self.moves_into.items():
            if province in occupied or len(movers) < 2:
                continue
            if sum(1 for k in movers if self.has_path(k, r)) >= 2:
                out.add(province)
        return out
