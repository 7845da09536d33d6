"""The rules of Stack 'em Diplo: standard Diplomacy with several units of one power per space.

:class:`StackRules` subclasses :class:`~judge.variants.standard.rules.StandardRules` and overrides
what the fourteen rules change (``description.md`` has the rules and how each is read):

* positions write a stack as the rules do, ``2A BUR`` (``read_position``/``write_position``);
* order lines may carry counts, ``2A PAR-BUR`` and ``2A MAR S 2A PAR-BUR`` (rules 2, 12), and
  are checked against stacks: the type (and coast) must be written where a space holds units
  that an order could otherwise not tell apart (rule 9), a unit may support another unit out of
  its own space or any unit into its own space (rule 3);
* orders are bound to units in written order: the first ``A PAR`` order goes to the first army
  in Paris, the next to the second, and so on; a counted order takes that many units;
* movement is decided by :class:`~judge.variants.stackem.movement.StackMovementPhase` on the generic
  resolver;
* retreats may go to an uncontested space held by the retreating power, and retreats of
  different powers to one space destroy them all (rule 6);
* builds may be made on home centres held by the builder's own units, one per centre per year
  (rule 11).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from judge.engine.board import ARMY, FLEET, province_of
from judge.engine.errors import OrderError
from judge.engine.orders import (
    MOVEMENT_ORDERS,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    UnitRef,
    Waive,
    unit_of,
)
from judge.engine.parse import parse_order
from judge.engine.position import Dislodged, Position
from judge.engine.variant import (
    FAILS,
    SUCCEEDS,
    OrderResult,
    Outcome,
    Replaced,
    refused_in_adjudication,
)
from judge.variants.stackem.movement import StackMovementPhase
from judge.variants.stackem.orders import (
    Stacked,
    counted_text,
    pack,
    split_counts,
    standing,
    unpack,
)
from judge.variants.standard.movement import MovementPhase, UnitOutcome
from judge.variants.standard.rules import Adjustments, StandardRules

_TYPE_NAME = {ARMY: "army", FLEET: "fleet"}
_TYPE_PLURAL = {ARMY: "armies", FLEET: "fleets"}
_STACK_RE = re.compile(r"^\s*(\d+)\s*([AaFf])\s+(\S+)\s*$")


def _expand(text: Any, most: int) -> list[str]:
    """``"2A BUR"`` -> ``["A BUR", "A BUR"]``; any other unit text is a unit as Unit.parse
    reads it.
    A stack of more than ``most`` units (the board's centres: no power keeps more units) is
    refused before it is expanded (``99999999A BUR`` would fill the memory)."""
    if not isinstance(text, str):
        raise ValueError(f"not a unit: {text!r}")
    m = _STACK_RE.match(text)
    if not m:
        try:
            Unit.parse("", text)
        except ValueError:  # its reason names the plain units only
            raise ValueError(f"not a unit: {text[:40]!r} (expected e.g. 'A PAR', 'F STP/SC' "
                             "or a stack, '2A BUR')") from None
        return [text]
    n = int(m.group(1))
    if n < 1:
        raise ValueError(f"not a unit: {text!r} (a stack holds at least one unit)")
    if n > most:
        raise ValueError(f"{text[:40]}: a stack of {n} is more than the {most} units the "
                         "board's centres can keep")
    return [f"{m.group(2).upper()} {m.group(3)}"] * n


def stack_texts(units: Iterable[Unit]) -> list[str]:
    """Units as the rules write them: ``["A BUR", "2A PAR"]`` for one army in Burgundy and
    two in Paris, in the order each kind of unit first appears."""
    counts = Counter(str(u) for u in units)
    return [f"{n}{text}" if n > 1 else text for text, n in counts.items()]


def _plural(kind: str, n: int) -> str:
    return f"{n} {_TYPE_PLURAL[kind] if n != 1 else _TYPE_NAME[kind]}"


class StackRules(StandardRules):
    """Stack 'em Diplo on the standard board."""

    order_types = {**StandardRules.order_types, "stacked": Stacked}

    variant_name = "stackem"

    def initial_position(self) -> Position:
        position = super().initial_position()
        position.variant = self.variant_name
        return position

    # ------------------------------------------------------------ positions
    def read_position(self, data: dict) -> Position:
        """A position whose units may be written as stacks (``2A BUR``)."""
        most = len(self.board.supply_centres)
        try:
            data = dict(data)
            data["units"] = {power: [u for text in texts for u in _expand(text, most)]
                             for power, texts in (data.get("units") or {}).items()}
            dislodged: dict[str, list[Any]] = {}
            for power, entries in (data.get("dislodged") or {}).items():
                out = dislodged.setdefault(power, [])
                for entry in entries:
                    if isinstance(entry, str):
                        out.extend(_expand(entry, most))
                    else:
                        out.extend({**entry, "unit": u} for u in _expand(entry["unit"], most))
            data["dislodged"] = dislodged
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed position: {exc}") from exc
        position = Position.from_json(data)
        board = self.board
        for unit in [*position.units, *(d.unit for d in position.dislodged)]:
            if unit.province not in board.provinces:
                raise ValueError(f"unknown location {unit.location!r}")
            if not board.can_stand(unit.kind, unit.location):
                raise ValueError(f"{'an army' if unit.kind == ARMY else 'a fleet'} cannot "
                                 f"stand in {unit.location}")
        owner: dict[str, str] = {}
        for unit in position.units:
            # Rule 1: one power's units may share a space, two powers' units may not.
            if owner.setdefault(unit.province, unit.power) != unit.power:
                raise ValueError(f"units of {owner[unit.province]} and {unit.power} "
                                 f"in {unit.province}")
        return position

    def write_position(self, position: Position) -> dict:
        """The contract's JSON, with stacks written as the rules write them (``2A BUR``)."""
        out = position.to_json()
        out["units"] = {power: stack_texts(Unit.parse(power, t) for t in texts)
                        for power, texts in out["units"].items()}
        dislodged: dict[str, list[dict[str, Any]]] = {}
        for power, entries in out["dislodged"].items():
            counts: dict[str, tuple[dict[str, Any], int]] = {}
            for entry in entries:
                key = repr(sorted(entry.items()))
                first, n = counts.get(key, (entry, 0))
                counts[key] = (first, n + 1)
            dislodged[power] = [{**e, "unit": f"{n}{e['unit']}"} if n > 1 else e
                                for e, n in counts.values()]
        out["dislodged"] = dislodged
        return out

    # ---------------------------------------------------------- order reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        """Read one line (counts allowed: ``2A PAR-BUR``) and check it against ``position``."""
        plain, count, target_count = split_counts(text)
        order = parse_order(self.board, plain, position.phase.kind)
        return self.check(position, power, pack(order, count, target_count))

    def check(self, position: Position, power: str, order: Order | Stacked) -> Order | Stacked:
        base, count, target_count = unpack(order)
        kind = position.phase.kind
        if kind == "M":
            checked = self._check_stack_movement(self._stacks(position.units), power, base, count)
        elif kind == "R":
            checked = self._check_stack_retreat(position, power, base, count)
        else:
            checked = self._check_stack_adjustment(position, power, base, count)
        return pack(checked, count, target_count)

    @staticmethod
    def _stacks(units: Iterable[Unit]) -> dict[str, list[Unit]]:
        out: dict[str, list[Unit]] = {}
        for u in units:
            out.setdefault(u.province, []).append(u)
        return out

    @staticmethod
    def _representatives(stacks: Mapping[str, list[Unit]]) -> dict[str, Unit]:
        """One unit per space, an army where there is one, for the standard checks that look
        at one unit per space (convoy routes need the fleets at sea, and a convoyed or
        supported army must be found where armies and fleets share a coast)."""
        return {p: next((u for u in us if u.kind == ARMY), us[0]) for p, us in stacks.items()}

    def _group(self, units: list[Unit], power: str, ref: UnitRef, count: int,
               what: str = "unit") -> list[Unit]:
        """The units of one stack that an order naming ``ref`` means, all alike (same type
        and location); OrderError when the space has fewer than ``count`` of them, or when
        the order does not say enough to tell them apart (rule 9)."""
        name = self.name(ref.province)
        if not units:
            raise OrderError(f"no {what} in {name}")
        if units[0].power != power:
            raise OrderError(f"the units in {name} are not yours (they are {units[0].power}'s)")
        group = [u for u in units if ref.kind is None or u.kind == ref.kind]
        if not group:
            kinds = " and ".join(_TYPE_PLURAL[k] for k in sorted({u.kind for u in units}))
            raise OrderError(f"there is no {_TYPE_NAME[ref.kind or ARMY]} in {name}, only {kinds}")
        if len({u.kind for u in group}) > 1:
            raise OrderError(f"{name} holds armies and fleets: say which (A or F)")
        locations = sorted({u.location for u in group})
        if len(locations) > 1:
            if ref.location not in locations:
                raise OrderError(f"fleets stand on more than one coast of {name}: say which "
                                 f"({' or '.join(locations)})")
            group = [u for u in group if u.location == ref.location]
        if len(group) < count:
            raise OrderError(f"there {'is' if len(group) == 1 else 'are'} only "
                             f"{_plural(group[0].kind, len(group))} in {name}")
        return group

    def _target_ref(self, there: list[Unit], written: UnitRef) -> UnitRef:
        """The supported (or convoyed) unit as the judge writes it back: the type filled in
        when the space holds one type, the coast when its fleets stand on one coast; left as
        written where the space does not tell (rule 9 then decides in adjudication)."""
        kinds = {u.kind for u in there}
        kind = written.kind or ("F" if "/" in written.location else None)
        if kind is None and len(kinds) == 1:
            kind = next(iter(kinds))
        if kind == ARMY:
            return UnitRef(ARMY, written.province)
        if kind == FLEET:
            locations = {u.location for u in there if u.kind == FLEET}
            if written.location in locations or len(locations) != 1:
                return UnitRef(FLEET, written.location)
            return UnitRef(FLEET, locations.pop())
        return written

    def _check_stack_movement(self, stacks: dict[str, list[Unit]], power: str, order: Order,
                              count: int, representatives: dict[str, Unit] | None = None) -> Order:
        if not isinstance(order, MOVEMENT_ORDERS):
            raise OrderError(f"'{order}' is not a movement order: in a movement phase units "
                             "hold, move, support or convoy")
        mine = stacks.get(order.unit.province, [])
        group = self._group(mine, power, order.unit, count)
        unit = group[0]
        ref = UnitRef(unit.kind, unit.location)
        at = representatives if representatives is not None else self._representatives(stacks)
        if at.get(unit.province) is not unit:
            # The standard checks look at the unit in ``at``: make it the one ordered.
            at = {**at, unit.province: unit}
        b = self.board
        if isinstance(order, Hold):
            return Hold(ref)
        if isinstance(order, Move):
            return self._check_move(at, unit, ref, order)
        if isinstance(order, Convoy):
            # Rule 10 is about how many armies a fleet carries, decided in adjudication;
            # whether the order can be given at all is the standard check.
            return self.check_movement_order(at, power, Convoy(ref, order.target, order.destination))
        target_prov = order.target.province
        there = stacks.get(target_prov, [])
        target_name = self.name(target_prov)
        if not there:
            raise OrderError(f"no unit in {target_name} to support")
        candidates = [u for u in there if order.target.kind is None or u.kind == order.target.kind]
        if not candidates:
            raise OrderError(f"there is no {_TYPE_NAME[order.target.kind or ARMY]} in "
                             f"{target_name} to support")
        tref = self._target_ref(candidates, order.target)
        if isinstance(order, SupportHold):
            if target_prov == unit.province:
                raise OrderError("units in one space defend together (rule 14): no unit "
                                 "needs support to hold from its own space")
            if not b.can_reach(unit.kind, unit.location, target_prov):
                raise OrderError(f"{unit} cannot reach {target_name}, "
                                 "so it cannot support a unit there")
            return SupportHold(ref, tref)
        assert isinstance(order, SupportMove)
        dest = province_of(order.destination)
        if dest == target_prov:
            raise OrderError(f"{tref} cannot move to where it already is")
        if target_prov == unit.province:
            # Rule 3: a unit may support another unit of its space out of it -- another one:
            # the units the order is given to cannot be the ones that move.
            others = [u for u in candidates if (u.kind, u.location) != (unit.kind, unit.location)]
            if not others and len(candidates) <= count:
                raise OrderError("a unit cannot support its own move; there is no other "
                                 f"{_TYPE_NAME[unit.kind]} in {target_name} to support")
        if dest != unit.province and not b.can_reach(unit.kind, unit.location, dest):
            # (Rule 3: support *into* the supporter's own space needs no reach.)
            raise OrderError(f"{unit} cannot reach {self.name(dest)}, "
                             "so it cannot support a move there")
        without = unit.province if len(mine) == 1 else None
        if not any(self.can_get_to(at, u, dest, without=without) for u in candidates):
            raise OrderError(f"{tref} cannot move to {self.name(dest)}")
        destination = dest if all(u.kind == ARMY for u in candidates) else order.destination
        return SupportMove(ref, tref, destination)

    # -------------------------------------------------------------- retreats
    def _retreat_places(self, unit: Unit, attacker_from: str | None,
                        occupier: Mapping[str, str], blocked: Iterable[str]) -> tuple[str, ...]:
        """Where a dislodged unit may go: not where the attack came from, not a standoff or
        contested space, not a space another power holds. A space its own power holds is
        open (rule 6) -- ``blocked`` already holds the contested ones."""
        b = self.board
        closed = set(blocked)
        if attacker_from:
            closed.add(attacker_from)
        places = b.army_adj.get(unit.location, ()) if unit.kind == ARMY else b.fleet_adj.get(
            unit.location, ())
        return tuple(sorted(
            p for p in places
            if province_of(p) not in closed and occupier.get(province_of(p), unit.power) == unit.power
        ))

    def retreat_options(self, position: Position, d: Dislodged) -> tuple[str, ...]:
        if d.retreats is not None:
            return d.retreats
        occupier = {u.province: u.power for u in position.units}
        return self._retreat_places(d.unit, d.attacker_from, occupier, position.standoffs)

    def _check_stack_retreat(self, position: Position, power: str, order: Order,
                             count: int) -> Order:
        if not isinstance(order, (Retreat, Disband, Move)):
            raise OrderError(f"'{order}' is not possible in a retreat phase: dislodged units "
                             "retreat or disband")
        prov = province_of(order.unit.location)
        here = [d.unit for d in position.dislodged if d.unit.province == prov]
        unit = self._group(here, power, order.unit, count, "dislodged unit")[0]
        ref = UnitRef(unit.kind, unit.location)
        if isinstance(order, Disband):
            return Disband(ref)
        d = next(d for d in position.dislodged if d.unit == unit)
        options = self.retreat_options(position, d)
        # Rule 6: "if dislodged units of different nationalities attempt to retreat to the
        # same space, they are all destroyed ... even if one of the nations occupies the
        # space". So a retreat towards a space another power holds is an order that can be
        # given -- it always fails, and it destroys the other powers' retreats there too.
        held = {u.province for u in position.units if u.power != power}
        attempts = options + self._retreat_places(unit, d.attacker_from, {}, position.standoffs)
        dest = order.destination if unit.kind == FLEET else province_of(order.destination)
        if dest not in attempts and unit.kind == FLEET and "/" not in dest:
            matching = sorted({o for o in attempts if province_of(o) == dest})
            if len(matching) == 1:
                dest = matching[0]
        if dest in attempts and dest not in options and province_of(dest) in held:
            return Retreat(ref, dest)
        if dest not in options:
            where = ", ".join(options) if options else "nowhere: it will be disbanded"
            raise OrderError(f"{unit} cannot retreat to {self.name(dest)}; it may retreat to {where}")
        return Retreat(ref, dest)

    # ------------------------------------------------------------ adjustments
    def _check_stack_adjustment(self, position: Position, power: str, order: Order,
                                count: int) -> Order:
        if isinstance(order, Remove | Disband):
            if self.adjustment_count(position, power) >= 0:
                raise OrderError(f"{power} has no units to remove this winter")
            here = [u for u in position.units if u.province == order.unit.province]
            unit = self._group(here, power, order.unit, count)[0]
            return Remove(UnitRef(unit.kind, unit.location))
        if count > 1:
            raise OrderError("only one unit can be built on a home centre each year (rule 11)")
        return self.check_adjustment(position, power, order)

    def build_site_taken(self, position: Position, power: str, province: str) -> str:
        # Rule 11: a home centre held by the power's own units is open for a build (and
        # counts for the builds due); only another power's units close it.
        others = {u.power for u in position.units if u.province == province and u.power != power}
        if others:
            return f"{self.name(province)} is occupied by {others.pop()}'s units"
        return ""

    # ------------------------------------------------------------ adjudication
    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        kind = position.phase.kind
        if kind == "M":
            return self._adjudicate_stack_movement(position, orders)
        if kind == "R":
            return self._adjudicate_stack_retreats(position, orders)
        return self.adjudicate_adjustments(position, orders)

    @staticmethod
    def _free(units: list[Unit]) -> dict[tuple[str, str, str], list[int]]:
        out: dict[tuple[str, str, str], list[int]] = {}
        for i, u in enumerate(units):
            out.setdefault((u.power, u.kind, u.location), []).append(i)
        return out

    @staticmethod
    def _stack_key(power: str, ref: UnitRef) -> tuple[str, str, str]:
        """The stack a checked order's unit belongs to, as :meth:`_free` keys it."""
        return (power, ref.kind or ARMY, ref.location)

    def replaced_orders(self, position: Position, power: str, orders: list[Order]
                        ) -> dict[int, Replaced]:
        """Which of ``power``'s orders of one mail (checked, in written order) a later one
        replaces, wholly or for some of its units, by :func:`standing` as the adjudicator
        (:meth:`_bind_orders`) rules it; a counted order that keeps some units stands with
        the count it keeps (``rest``). Adjustments: no order replaces another."""
        kind = position.phase.kind
        if kind not in "MR":
            return {}
        pool = position.units if kind == "M" else [d.unit for d in position.dislodged]
        sizes = Counter(self._stack_key(u.power, UnitRef(u.kind, u.location))
                        for u in pool if u.power == power)
        counted = [unpack(o) for o in orders]
        left, by = standing([(self._stack_key(power, unit_of(base)), count)
                             for base, count, _ in counted], sizes)
        return {j: Replaced(later, pack(counted[j][0], left[j], counted[j][2])
                            if left[j] else None) for j, later in by.items()}

    def refused_adjustments(self, position: Position, power: str, orders: list[Order]
                            ) -> dict[int, str]:
        """The builds and removals of one mail the adjudicator does not make, by its own
        count (``REMOVE 2A PAR`` is two removals; rule 11: one build per centre)."""
        return refused_in_adjudication(self, position, power, orders)

    def _take(self, free: dict[tuple[str, str, str], list[int]], power: str, ref: UnitRef,
              count: int) -> list[int]:
        """Bind an order to the next ``count`` units of its stack that have no order yet:
        units are ordered separately (rule 2), in the order the orders were written."""
        avail = free.get(self._stack_key(power, ref), [])
        if len(avail) < count:
            kind = ref.kind or ARMY
            name = self.name(ref.province)
            if not avail:
                raise OrderError(f"every {_TYPE_NAME[kind]} in {name} already has an order")
            raise OrderError(f"only {_plural(kind, len(avail))} in {name} "
                             f"{'is' if len(avail) == 1 else 'are'} left without an order")
        taken = avail[:count]
        del avail[:count]
        return taken

    @staticmethod
    def _verdict(result: OrderResult, outcomes: list[UnitOutcome]) -> None:
        """One result for a line that ordered several units: it succeeds when all its units'
        orders do, and when some do, says how many."""
        ok = sum(1 for o in outcomes if o.succeeded)
        reasons = list(dict.fromkeys(o.reason for o in outcomes if not o.succeeded and o.reason))
        if len(outcomes) == 1:
            result.result = SUCCEEDS if ok else FAILS
            result.reason = outcomes[0].reason
        elif ok == len(outcomes):
            result.result, result.reason = SUCCEEDS, ""
        elif ok == 0:
            result.result, result.reason = FAILS, "; ".join(reasons)
        else:
            result.result = SUCCEEDS
            result.reason = (f"{ok} of {len(outcomes)} succeeded; the others: "
                             + ("; ".join(reasons) or "failed"))

    def _bind_orders(self, pool: list[Unit], orders: list[tuple[str, Order]], check: Any
                     ) -> tuple[list[OrderResult], list[list[int]], list[Order | None],
                                list[int], list[int]]:
        """Check every order line and bind it to units of ``pool`` in written order; a later
        order for a unit replaces the earlier one, unit by unit (:func:`standing`, the mail
        reader's rule too), so a line may stand for fewer units than it counts.

        Returns one result per line (a placeholder for good ones), the units each line was
        bound to, each unit's order, its support pick (rule 12) and its written position.
        """
        n = len(pool)
        free = self._free(pool)
        results: list[OrderResult] = []
        lines: list[list[int]] = []
        per_unit: list[Order | None] = [None] * n
        pick = [0] * n
        seq = [10**6 + i for i in range(n)]  # units without orders come after all written ones
        good: list[tuple[int, str, Order, int, int]] = []  # result slot, power, order, counts
        for power, order in orders:
            base, count, target_count = unpack(order)
            try:
                checked = check(power, base, count)
            except OrderError as exc:
                results.append(OrderResult(power, str(order), FAILS, str(exc), stands=False))
                lines.append([])
                continue
            good.append((len(results), power, checked, count, target_count))
            results.append(OrderResult(power, counted_text(checked, count, target_count),
                                       SUCCEEDS))
            lines.append([])
        # A later order for a unit replaces the earlier one, unit by unit (rule 2): the
        # mail reader keeps the same orders (replaced_orders), by the same function.
        left, _ = standing([(self._stack_key(power, unit_of(checked)), count)
                            for _, power, checked, count, _ in good],
                           {key: len(units) for key, units in free.items()})
        written = 0
        for (slot, power, checked, _, target_count), count in zip(good, left, strict=True):
            if not count:
                r = results[slot]
                r.result, r.reason, r.stands = FAILS, self.REPLACED_REASON, False
                continue
            try:
                take = self._take(free, power, unit_of(checked), count)
            except OrderError as exc:
                results[slot] = OrderResult(power, results[slot].order, FAILS, str(exc),
                                            stands=False)
                continue
            spread = max(target_count, 1)
            for k, i in enumerate(take):
                per_unit[i] = checked
                # Rule 12: without a count on the supported unit all supports of the line go
                # to one unit; with one, they are dealt out over that many units.
                pick[i] = k % spread
                seq[i] = written
                written += 1
            lines[slot] = take
            results[slot].order = counted_text(checked, count, target_count)
        return results, lines, per_unit, pick, seq

    def _adjudicate_stack_movement(self, position: Position,
                                   orders: list[tuple[str, Order]]) -> Outcome:
        units = position.units
        stacks = self._stacks(units)
        representatives = self._representatives(stacks)
        results, lines, per_unit, pick, seq = self._bind_orders(
            units, orders,
            lambda power, order, count: self._check_stack_movement(stacks, power, order, count,
                                                                   representatives))
        phase = StackMovementPhase(self.board, units, per_unit, pick, seq)
        outcomes = phase.resolve()
        for r, line in zip(results, lines, strict=True):
            if line:
                self._verdict(r, [outcomes[i] for i in line])
        for i, unit in enumerate(units):
            if per_unit[i] is None:
                o = outcomes[i]
                reason = "no order: holds" + (f"; {o.reason}" if o.reason else "")
                results.append(OrderResult(unit.power, f"{unit} H",
                                           SUCCEEDS if o.succeeded else FAILS, reason,
                                           given=False))
        return self.board_after_moves(position, phase, results)

    def dislodgements(self, phase: MovementPhase, after: list[Unit],
                      beaten: list[tuple[Unit, int]]) -> tuple[list[Dislodged], frozenset[str]]:
        """Rule 6: a space held by the retreating power is open unless contested, i.e.
        another power tried to move there; empty spaces follow the standard rule."""
        assert isinstance(phase, StackMovementPhase)
        occupier = {u.province: u.power for u in after}
        contested = {p for p, who in occupier.items() if phase.attempted_by(p) - {who}}
        blocked = phase.standoffs() | contested
        return self.dislodged_with(
            phase, beaten,
            lambda unit, closed: self._retreat_places(unit, closed, occupier, blocked)
        ), frozenset(blocked)

    def _adjudicate_stack_retreats(self, position: Position,
                                   orders: list[tuple[str, Order]]) -> Outcome:
        pending = position.dislodged
        pool = [d.unit for d in pending]
        results, lines, per_unit, _, _ = self._bind_orders(
            pool, orders,
            lambda power, order, count: self._check_stack_retreat(position, power, order, count))
        going: dict[str, set[str]] = {}
        for i, order in enumerate(per_unit):
            if isinstance(order, Retreat):
                going.setdefault(province_of(order.destination), set()).add(pool[i].power)
        units = list(position.units)
        disbanded: list[Unit] = []
        outcomes: list[UnitOutcome] = []
        holder = {u.province: u.power for u in position.units}
        for i, unit in enumerate(pool):
            order = per_unit[i]
            if isinstance(order, Retreat):
                place = province_of(order.destination)
                held_by = holder.get(place, unit.power)
                # Rule 6: one power's units retreat together without conflict; retreats of
                # different powers to one space are all destroyed, whatever their numbers
                # and whoever holds the space.
                if len(going[place]) == 1 and held_by == unit.power:
                    units.append(Unit(unit.power, unit.kind, order.destination))
                    outcomes.append(UnitOutcome(True))
                    continue
                if held_by != unit.power:
                    reason = f"{self.name(place)} is held by {held_by}: destroyed"
                else:
                    reason = f"units of more than one power retreated to {self.name(place)}: all destroyed"
                outcomes.append(UnitOutcome(False, reason))
            else:
                outcomes.append(UnitOutcome(True))
            disbanded.append(unit)
            if order is None:
                results.append(OrderResult(unit.power, f"{unit} D", SUCCEEDS,
                                           "no retreat order: disbanded", given=False))
        for r, line in zip(results, lines, strict=False):
            if line:
                self._verdict(r, [outcomes[i] for i in line])
        return self.phase_over(position, units, results, disbanded=disbanded)

    def apply_adjustment(self, adj: Adjustments, power: str, order: Order) -> OrderResult:
        """A removal may name several units of a stack (``2A PAR``); rule 11: one build per
        home centre per year."""
        checked, count, _ = unpack(order)
        due = abs(adj.counts.get(power, 0))
        n = adj.used.get(power, 0)
        text = counted_text(checked, count)
        size = count if isinstance(checked, Remove) else 1
        if n + size > due:
            what = "builds" if adj.counts.get(power, 0) > 0 else "removals"
            left = due - n
            return OrderResult(power, text, FAILS, f"no more {what} due" if left <= 0
                               else f"only {left} more {what} due")
        if isinstance(checked, Build):
            prov = checked.unit.province
            if prov in adj.taken:
                return OrderResult(power, text, FAILS,
                                   f"a unit was already built in {self.name(prov)}")
            adj.taken.add(prov)
            adj.build(Unit(power, checked.unit.kind or ARMY, checked.unit.location))
        elif isinstance(checked, Remove):
            gone = [u for u in adj.units if u.power == power and u.kind == checked.unit.kind
                    and u.location == checked.unit.location][:count]
            if len(gone) < count:
                return OrderResult(power, text, FAILS,
                                   f"only {_plural(checked.unit.kind or ARMY, len(gone))}"
                                   f" left in {self.name(checked.unit.province)}")
            for u in gone:
                adj.remove(u)
        else:
            assert isinstance(checked, Waive)
        adj.used[power] = n + size
        return OrderResult(power, text, SUCCEEDS)
