"""Stack 'em movement adjudication: the standard decisions, with several units per space.

:class:`StackMovementPhase` subclasses the standard
:class:`~judge.variants.standard.movement.MovementPhase`. Decisions are still one per unit (*the
move succeeds*, *the support is given*, *the convoying fleet survives*) and are resolved by the
same generic resolver; what changes is how the strengths are worked out:

* ``stack[province]`` lists every unit in a space (rule 1), where standard play has one;
* a move into a space is opposed only by other powers (rules 1, 5, 8): own units there and own
  moves there neither hold it off nor stand it off, so own units share a space and swap places
  without a convoy;
* a space defends with all its units (rule 14): each unit that stays (or fails to leave) adds
  one, a unit moving head to head adds its defend strength, and supports to hold count once
  when at least one unit in the space holds, supports or convoys; a move that beats this
  dislodges every unit in the space;
* supports are matched to one unit of the moving group by the count prefix (rule 12, worked
  out by the rules as ``pick``), and a support that cannot tell which units it means is void
  (rule 9);
* a support for a move into the supporter's own space is never cut (rule 7); otherwise each
  attacker cuts one support of the space, in written order where it has a choice (rule 13);
* each convoying fleet carries one army (rule 10).
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.engine.board import ARMY, Board, province_of
from judge.engine.orders import Convoy, Move, Order, SupportHold, SupportMove, Unit
from judge.engine.resolver import Resolver
from judge.variants.standard.movement import (
    _KIND,
    CONVOY,
    MOVE,
    SUPPORT_HOLD,
    SUPPORT_MOVE,
    MovementPhase,
)


class StackMovementPhase(MovementPhase):
    """One Stack 'em movement phase. ``orders[i]`` is the checked order of ``units[i]``.

    ``pick[i]``: for a support to move, which of the units making the supported move it goes
    to (0 = the first in written order; rule 12). ``seq[i]``: the place of unit ``i``'s order
    in the order it was written, for rule 13 (cuts in written order) and for matching supports
    and convoys to units in the order their moves were written.
    """

    def __init__(self, board: Board, units: Sequence[Unit], orders: Sequence[Order | None],
                 pick: Sequence[int] | None = None, seq: Sequence[int] | None = None) -> None:
        n = len(units)
        self.pick = list(pick) if pick is not None else [0] * n
        self.seq = list(seq) if seq is not None else list(range(n))
        self.orders = list(orders)
        self.stack: dict[str, list[int]] = {}
        self.hold_supports: dict[str, list[int]] = {}
        super().__init__(board, units, orders)

    # ------------------------------------------------------------ set-up
    def take_orders(self, orders: Sequence[Order | None]) -> None:
        for i, p in enumerate(self.prov):
            self.stack.setdefault(p, []).append(i)
        for units in self.stack.values():
            units.sort(key=self.seq.__getitem__)
        kind, dest = self.kind, self.dest
        for i, order in enumerate(orders):
            if order is None:
                continue
            k = _KIND[type(order)]
            kind[i] = k
            if k == MOVE:
                assert isinstance(order, Move)
                dest[i] = province_of(order.destination)
                self.dest_loc[i] = order.destination
            elif k in (SUPPORT_MOVE, CONVOY):
                assert isinstance(order, (SupportMove, Convoy))
                dest[i] = order.destination
        self._assign_convoys()
        self._decide_convoy_routes(orders)
        for i in range(len(kind)):
            if kind[i] == MOVE:
                self.moves_into.setdefault(self.dest_of(i), []).append(i)
        self.match_supports()

    def movers(self, province: str, destination: str, kind: str | None = None,
               location: str | None = None, exclude: int = -1) -> list[int]:
        """Units in ``province`` ordered to move to ``destination`` (a province), of type
        ``kind`` and standing on ``location`` when those are given, in written order."""
        return [i for i in self.stack.get(province, ())
                if i != exclude and self.kind[i] == MOVE and self.dest[i] == destination
                and (kind is None or self.units[i].kind == kind)
                and (location is None or self.units[i].location == location)]

    def _assign_convoys(self) -> None:
        """Rule 10: each fleet convoys one army. The fleets of one sea convoying armies of one
        space to one destination take those armies one each, in written order (a fleet left
        over doubles the last army's route, which changes nothing: a sea's fleets are
        dislodged all together)."""
        taken: dict[tuple[str, str, str], int] = {}
        convoys = sorted((c for c in range(len(self.kind)) if self.kind[c] == CONVOY),
                         key=self.seq.__getitem__)
        for c in convoys:
            order = self.orders[c]
            assert isinstance(order, Convoy)
            dest = province_of(order.destination)
            armies = self.movers(order.target.province, dest, ARMY)
            if not armies:
                self.target[c] = -1  # void: no army makes this move (standard reason below)
                continue
            key = (self.prov[c], order.target.province, dest)
            n = taken.get(key, 0)
            taken[key] = n + 1
            self.target[c] = armies[min(n, len(armies) - 1)]

    def match_supports(self) -> None:
        kind, target = self.kind, self.target
        for s in sorted(range(len(kind)), key=self.seq.__getitem__):
            k = kind[s]
            if k == SUPPORT_HOLD:
                order = self.orders[s]
                assert isinstance(order, SupportHold)
                there = order.target.province
                occupants = self.stack.get(there, [])
                staying = [i for i in occupants if kind[i] != MOVE]
                if not occupants:
                    self.void[s] = "void: no unit to support"
                elif not staying:
                    # Rule 14: only a space where a unit holds, supports or convoys
                    # receives support to hold.
                    self.void[s] = f"void: every unit in {there} moves"
                else:
                    target[s] = staying[0]
                    self.hold_supports.setdefault(there, []).append(s)
            elif k == SUPPORT_MOVE:
                self._match_support_move(s)
        for s in self.void:
            if kind[s] in (SUPPORT_HOLD, SUPPORT_MOVE):
                target[s] = -1

    def _match_support_move(self, s: int) -> None:
        order = self.orders[s]
        assert isinstance(order, SupportMove)
        ref, wanted = order.target, order.destination
        dest = province_of(wanted)
        written_loc = ref.location if "/" in ref.location else None
        group = self.movers(ref.province, dest, ref.kind, written_loc, exclude=s)
        if "/" in wanted:
            # A support naming the destination's coast is for fleets going to that coast.
            group = [i for i in group if self.units[i].kind == ARMY or self.dest_loc[i] == wanted]
        if not group:
            self.void[s] = f"void: no {ref} moves to {wanted}"
            return
        units = self.units
        # Rule 9: the support must say which units it means when the space's units making
        # this move differ in type, or stand on different coasts.
        if len({units[i].kind for i in group}) > 1:
            self.void[s] = (f"void: armies and fleets in {ref.province} move to {dest}; "
                            "the support must say which (A or F)")
            return
        if len({units[i].location for i in group}) > 1:
            self.void[s] = (f"void: fleets on more than one coast of {ref.province} move to "
                            f"{dest}; the support must say which coast")
            return
        t = group[self.pick[s] % len(group)]
        self.target[s] = t
        self.supports[t].append(s)

    # --------------------------------------------------------- strengths
    def _foreign(self, i: int, province: str) -> list[int]:
        """The units in ``province`` that belong to another power than unit ``i``'s.

        A space never holds two powers' units at the start of a phase (rule 1), so this is
        the whole stack or nothing.
        """
        units = self.stack.get(province)
        if not units or self.power[units[0]] == self.power[i]:
            return []
        return units

    def attack_strength(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        occupants = self._foreign(i, self.dest_of(i))
        if not occupants or all(self.kind[j] == MOVE and not self.head_to_head(i, j)
                                and r.resolve(j) for j in occupants):
            # An empty space, one held by the mover's own units (rule 1), or one that all
            # its units leave: every support counts.
            return 1 + self.count_supports(i, r)
        # A power's support never helps to dislodge its own units.
        return 1 + self.count_supports(i, r, exclude_power=self.power[occupants[0]])

    def prevent_strength(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        for j in self._foreign(i, self.dest_of(i)):
            if self.head_to_head(i, j) and r.resolve(j):
                return 0  # lost a head-to-head battle: no effect on the space
        return 1 + self.count_supports(i, r)

    def space_defence(self, i: int, r: Resolver) -> int:
        """The strength with which the space move ``i`` goes to resists it (rule 14).

        Zero when the space is empty or held by ``i``'s own units. Otherwise one for every unit
        that does not move or fails to move out, the defend strength of every unit moving
        head to head against ``i``, and the uncut supports to hold once if at least one unit
        holds, supports or convoys.
        """
        province = self.dest_of(i)
        occupants = self._foreign(i, province)
        if not occupants:
            return 0
        total = 0
        staying = False
        for j in occupants:
            if self.kind[j] != MOVE:
                total += 1
                staying = True
            elif self.head_to_head(i, j):
                total += self.defend_strength(j, r)
            elif not r.resolve(j):
                total += 1
        if staying:
            total += sum(1 for s in self.hold_supports.get(province, ()) if r.resolve(s))
        return total

    def move_succeeds(self, i: int, r: Resolver) -> bool:
        attack = self.attack_strength(i, r)
        if attack == 0:
            return False
        # Rule 5: each move must beat all foreign opposition on its own.
        if attack <= self.space_defence(i, r):
            return False
        power = self.power[i]
        for k in self.moves_into[self.dest_of(i)]:
            if k != i and self.power[k] != power and attack <= self.prevent_strength(k, r):
                return False
        return True

    # ------------------------------------------------------------ supports
    def into_own_space(self, s: int) -> bool:
        """A support for a move into the supporter's own space (rule 3; never cut, rule 7)."""
        return self.kind[s] == SUPPORT_MOVE and province_of(self.dest[s] or "") == self.prov[s]

    def cut_by_attack(self, province: str, r: Resolver) -> set[int]:
        """The supports of ``province`` that attacks cut (rule 13).

        Each foreign unit attacking the space (with a path) cuts one support it is eligible
        to cut -- any support except one for a move into the attacker's own space, and never
        one rule 7 protects. The cuts are a matching of attackers to supports that cuts as
        many supports as possible, preferring those written first: supports are taken in
        written order and each is given an attacker if one can be found, moving earlier
        attackers to other supports where needed (augmenting paths).
        """
        units = self.stack[province]
        power = self.power[units[0]]
        supports = [s for s in units if self.kind[s] in (SUPPORT_HOLD, SUPPORT_MOVE)
                    and self.target[s] >= 0 and not self.into_own_space(s)]
        attackers = [k for k in self.moves_into.get(province, ())
                     if self.power[k] != power and self.has_path(k, r)]
        if not supports or not attackers:
            return set()
        kind, dest, prov = self.kind, self.dest, self.prov

        def eligible(k: int, s: int) -> bool:
            return not (kind[s] == SUPPORT_MOVE and province_of(dest[s] or "") == prov[k])

        cutter: dict[int, int] = {}  # attacker -> the support it cuts

        def assign(s: int, seen: set[int]) -> bool:
            for k in attackers:
                if k in seen or not eligible(k, s):
                    continue
                seen.add(k)
                if k not in cutter or assign(cutter[k], seen):
                    cutter[k] = s
                    return True
            return False

        for s in supports:  # already in written order (stacks are sorted by seq)
            assign(s, set())
        return set(cutter.values())

    def support_given(self, s: int, r: Resolver) -> bool:
        if self.target[s] < 0:
            return False
        if self.into_own_space(s):
            return True  # rule 7
        p = self.prov[s]
        power = self.power[s]
        attackers = [k for k in self.moves_into.get(p, ()) if self.power[k] != power]
        if not attackers:
            return True
        if s in self.cut_by_attack(p, r):
            return False
        # Not cut by an attack: still lost if the space is taken (rule 14 dislodges all).
        return not any(r.resolve(k) for k in attackers)

    def is_dislodged(self, i: int, r: Resolver) -> bool:
        if self.kind[i] == MOVE and r.resolve(i):
            return False
        power = self.power[i]
        return any(self.power[k] != power and r.resolve(k)
                   for k in self.moves_into.get(self.prov[i], ()))

    # ----------------------------------------------------------- results
    def dislodger(self, i: int) -> int | None:
        if self.moved(i):
            return None
        result, power = self.resolver.result, self.power[i]
        for k in self.moves_into.get(self.prov[i], ()):
            if result[k] and self.power[k] != power:
                return k
        return None

    def attempted_by(self, province: str) -> set[str]:
        """The powers that tried to move into ``province`` with a path (after resolve)."""
        r = self.resolver
        return {self.power[k] for k in self.moves_into.get(province, ()) if self.has_path(k, r)}
