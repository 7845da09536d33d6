"""The rules of standard Diplomacy (2023 rulebook, DATC v3.0 preferences).

:class:`StandardRules` is the plug-in the engine calls for a standard game: it checks orders
against a position (with a specific reason for every refusal), adjudicates each kind of phase,
and moves the game on to the next phase. Movement is decided by
:class:`~judge.variants.standard.movement.MovementPhase` on the generic resolver. Each kind of
phase is one skeleton here; other variants subclass this class and override the named hooks
their rules change (the board after the moves, applying an adjustment, counting for
adjustments, civil disorder, ...), listed in ``docs/engine.md`` ("The phases: skeletons and
hooks"). The DATC choices are listed in ``docs/adjudication.md``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from judge.engine.board import ARMY, FLEET, Board, province_of
from judge.engine.errors import OrderError
from judge.engine.orders import (
    MOVEMENT_ORDERS,
    ORDER_TYPES,
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
from judge.engine.position import (
    Dislodged,
    Phase,
    Position,
    check_calendar,
    check_dislodged_only_in_retreats,
)
from judge.engine.variant import FAILS, SUCCEEDS, OrderResult, Outcome
from judge.variants.standard.movement import MovementPhase

_TYPE_NAME = {ARMY: "an army", FLEET: "a fleet"}


def _ref_for(ref: UnitRef, unit: Unit) -> UnitRef:
    """``ref`` made exact for ``unit`` (type filled in, coast corrected); ``ref`` itself when
    it already is, so that an order already in canonical form is not rebuilt."""
    if ref.kind == unit.kind and ref.location == unit.location and ref.power is None:
        return ref
    return UnitRef(unit.kind, unit.location)


@dataclass(slots=True)
class Adjustments:
    """An adjustment phase while it is worked out: what the skeleton
    (:meth:`StandardRules.adjudicate_adjustments`) and its hooks share."""

    position: Position
    # what each power is due: builds (> 0) or removals (< 0); Hoplite: a budget in centres
    counts: dict[str, Any]
    # the board so far: removals taken out, builds added (at the end, in the order made)
    units: list[Unit]
    built: list[Unit] = field(default_factory=list)
    removed: list[Unit] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=dict)  # builds or removals made, per power
    taken: set[str] = field(default_factory=set)  # provinces already built in (removed from)
    # results for units no order was given for: civil disorder's, then any a variant adds
    disorder: list[OrderResult] = field(default_factory=list)
    # the variant's own record of the phase so far (Chess Dip: the promotions ordered)
    notes: dict[str, Any] = field(default_factory=dict)
    # the next position's variant keys (``Position.extra``); None: the position's, copied
    extra: dict[str, Any] | None = None

    def build(self, unit: Unit) -> None:
        self.units.append(unit)
        self.built.append(unit)

    def remove(self, unit: Unit) -> None:
        self.units.remove(unit)
        self.removed.append(unit)


class StandardRules:
    """Standard Diplomacy on a map: order checking, the three phases, the calendar."""

    # the stable type names of the orders this variant reads, for storing them as data
    # (judge/engine/orders.py); a variant with its own order classes extends it
    order_types: dict[str, type] = ORDER_TYPES

    def __init__(self, board: Board) -> None:
        self.board = board
        self._convoy_reach: dict[str, frozenset[str]] = {}

    # ------------------------------------------------------------ positions
    #: The start, as data (as python-chess's ``starting_fen``): power -> the units it starts
    #: with, written as the map writes them (``"F STP/SC"``); None: the map's
    #: ``starting_units``. A variant that starts elsewhere sets this alone.
    starting_units: Mapping[str, Sequence[str]] | None = None
    #: power -> the supply centres it owns at the start; None: the map's home centres.
    starting_centres: Mapping[str, Iterable[str]] | None = None

    def initial_position(self) -> Position:
        """Hook: the first position, :attr:`first_phase` with :meth:`initial_units` and
        :meth:`initial_centres`."""
        return Position(variant=self.board.name, phase=self.first_phase,
                        units=self.initial_units(), centres=self.initial_centres())

    def initial_units(self) -> list[Unit]:
        """The units on the board at the start: :attr:`starting_units`, else the map's,
        each read by :meth:`starting_unit`."""
        units = self.board.starting_units if self.starting_units is None \
            else self.starting_units
        return [self.starting_unit(power, text) for power, texts in units.items()
                for text in texts]

    def starting_unit(self, power: str, text: str) -> Unit:
        """Hook: one unit of :attr:`starting_units` (Chess Dip writes pieces ``K e1``)."""
        return Unit.parse(power, text)

    def initial_centres(self) -> dict[str, set[str]]:
        """The supply centres each power owns at the start: :attr:`starting_centres`, else
        the map's home centres."""
        centres = self.board.home_centres if self.starting_centres is None \
            else self.starting_centres
        return {power: set(cs) for power, cs in centres.items()}

    def read_position(self, data: dict) -> Position:
        position = Position.from_json(data)
        seen: set[str] = set()
        for unit in [*position.units, *(d.unit for d in position.dislodged)]:
            if unit.province not in self.board.provinces:
                raise ValueError(f"unknown location {unit.location!r}")
            if not self.board.can_stand(unit.kind, unit.location):
                raise ValueError(f"{_TYPE_NAME[unit.kind]} cannot stand in {unit.location}")
        for unit in position.units:
            if unit.province in seen:
                raise ValueError(f"two units in {unit.province}")
            seen.add(unit.province)
        return position

    def write_position(self, position: Position) -> dict:
        return position.to_json()

    # ----------------------------------------------------------- validation
    #: the phases of the calendar (season and kind letters) and the first of them
    calendar: tuple[str, ...] = ("SM", "SR", "FM", "FR", "WA")
    first_phase = Phase("S", 1901, "M")

    def validate_position(self, position: Position) -> None:
        """Raise ValueError naming what in ``position`` (read from JSON, names already on
        the board) play under these rules could not have produced: the hook each variant
        extends (``super().validate_position`` first), called by ``Variant.read_position``.
        Here: the phase is in :attr:`calendar`, not before :attr:`first_phase` nor absurdly
        later, and dislodged units only in a retreat phase."""
        check_calendar(position, self.calendar, self.first_phase)
        check_dislodged_only_in_retreats(position)

    def name(self, location: str) -> str:
        return self.board.provinces[province_of(location)].name

    # ---------------------------------------------------------- order reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        """Read one line for ``power`` and check it against ``position``."""
        return self.check(position, power, parse_order(self.board, text, position.phase.kind))

    def check(self, position: Position, power: str, order: Order) -> Order:
        """The order made canonical for the unit it names; OrderError if it cannot be given."""
        kind = position.phase.kind
        if kind == "M":
            return self.check_movement_order({u.province: u for u in position.units}, power, order)
        if kind == "R":
            return self.check_retreat(position, power, order)
        return self.check_adjustment(position, power, order)

    def bind_unit(self, at: dict[str, Unit], power: str, ref: UnitRef, what: str = "unit") -> Unit:
        prov = ref.province
        unit = at.get(prov)
        if unit is None:
            raise OrderError(f"no {what} in {self.name(prov)}")
        if unit.power != power:
            raise OrderError(f"the unit in {self.name(prov)} is not yours (it is {unit.power}'s)")
        if ref.kind and ref.kind != unit.kind:
            raise OrderError(f"the unit in {self.name(prov)} is {_TYPE_NAME[unit.kind]}, "
                             f"not {_TYPE_NAME[ref.kind]}")
        return unit

    def _target(self, at: dict[str, Unit], ref: UnitRef, verb: str, power: str) -> Unit:
        prov = ref.province
        unit = at.get(prov)
        if unit is None:
            raise OrderError(f"no unit in {self.name(prov)} to {verb}")
        if ref.kind and ref.kind != unit.kind:
            raise OrderError(f"the unit in {self.name(prov)} is {_TYPE_NAME[unit.kind]}, "
                             f"not {_TYPE_NAME[ref.kind]}")
        self.check_named_power(ref, unit, power)
        return unit

    def check_named_power(self, ref: UnitRef, unit: Unit, power: str) -> None:
        """The power a line names before a supported or convoyed unit (``S French A PAR``)
        must own it, or the line is an error, as njudge refuses a unit not as the order names
        it. A unit whose owner the player cannot know is not checked: Stab!'s hidden board
        stands a unit of no power (``?``) wherever a line names one not the player's."""
        if ref.power is None or ref.power == unit.power or unit.power not in self.board.powers:
            return
        owner = "yours" if unit.power == power else f"{unit.power.title()}'s"
        raise OrderError(f"{unit} is {owner}, not {ref.power.title()}'s")

    def convoy_reach(self, origin: str) -> frozenset[str]:
        """Coastal provinces an army in ``origin`` could reach through a chain of seas."""
        cached = self._convoy_reach.get(origin)
        if cached is not None:
            return cached
        b = self.board
        out: set[str] = set()
        if b.provinces[origin].kind == "coast":
            seas = deque(p for p in b.neighbours(origin) if b.is_sea(p))
            seen = set(seas)
            while seas:
                sea = seas.popleft()
                for p in b.fleet_reach[sea]:
                    if b.is_sea(p):
                        if p not in seen:
                            seen.add(p)
                            seas.append(p)
                    elif b.provinces[p].kind == "coast" and p != origin:
                        out.add(p)
        result = frozenset(out)
        self._convoy_reach[origin] = result
        return result

    def convoy_fleets(self, at: dict[str, Unit], origin: str, dest: str,
                      without: str | None = None) -> set[str]:
        """The seas whose fleets (now on the board, leaving out the one in ``without``) lie on
        a convoy chain from ``origin`` to ``dest``.

        A convoy that no fleets on the board could make is an illegal order, not a move that
        fails (DATC 6.D.32, 6.D.31); one the fleets could make but were not ordered to is a
        move that fails (6.D.8). A convoy order by a fleet on no such chain is illegal (6.G.19).
        """
        if dest not in self.convoy_reach(origin):
            return set()
        seas = [p for p, u in at.items()
                if u.kind == FLEET and p != without and self.board.is_sea(p)]
        return self.board.convoy_routes(origin, dest, seas)

    def can_get_to(self, at: dict[str, Unit], unit: Unit, province: str,
                   without: str | None = None) -> bool:
        """Whether ``unit`` could move into ``province`` (by land, sea, or the fleets now on
        the board other than the one in ``without``)."""
        if self.board.can_reach(unit.kind, unit.location, province):
            return True
        return unit.kind == ARMY and bool(self.convoy_fleets(at, unit.province, province, without))

    def check_movement_order(self, at: dict[str, Unit], power: str, order: Order) -> Order:
        if not isinstance(order, MOVEMENT_ORDERS):
            raise OrderError(f"'{order}' is not a movement order: in a movement phase units "
                             "hold, move, support or convoy")
        unit = self.bind_unit(at, power, order.unit)
        ref = _ref_for(order.unit, unit)
        b = self.board
        if isinstance(order, Hold):
            return order if ref is order.unit else Hold(ref)
        if isinstance(order, Move):
            return self._check_move(at, unit, ref, order)
        if isinstance(order, SupportHold):
            target = self._target(at, order.target, "support", power)
            if target.province == unit.province:
                raise OrderError("a unit cannot support itself")
            if not b.can_reach(unit.kind, unit.location, target.province):
                raise OrderError(f"{unit} cannot reach {self.name(target.province)}, "
                                 "so it cannot support a unit there")
            tref = _ref_for(order.target, target)
            if ref is order.unit and tref is order.target:
                return order
            return SupportHold(ref, tref)
        if isinstance(order, SupportMove):
            target = self._target(at, order.target, "support", power)
            dest = province_of(order.destination)
            if target.province == unit.province:
                raise OrderError("a unit cannot support its own move")
            if dest == unit.province:
                raise OrderError("a unit cannot support a move into its own province; "
                                 "it can only hold")
            if dest == target.province:
                raise OrderError(f"{target} cannot move to where it already is")
            if not b.can_reach(unit.kind, unit.location, dest):
                raise OrderError(f"{unit} cannot reach {self.name(dest)}, "
                                 "so it cannot support a move there")
            if not self.can_get_to(at, target, dest, without=unit.province):
                raise OrderError(f"{target} cannot move to {self.name(dest)}")
            destination = dest if target.kind == ARMY else order.destination
            tref = _ref_for(order.target, target)
            if ref is order.unit and tref is order.target and destination == order.destination:
                return order
            return SupportMove(ref, tref, destination)
        assert isinstance(order, Convoy)
        if unit.kind != FLEET:
            raise OrderError("only fleets can convoy")
        if not b.is_sea(unit.province):
            raise OrderError(f"a fleet can convoy only at sea, not in {self.name(unit.province)}")
        target = self._target(at, order.target, "convoy", power)
        if target.kind != ARMY:
            raise OrderError("only armies can be convoyed")
        dest = province_of(order.destination)
        if dest == target.province:
            raise OrderError(f"{target} cannot be convoyed to where it already is")
        if dest not in self.convoy_reach(target.province):
            raise OrderError(f"{target} cannot be convoyed to {self.name(dest)}")
        if unit.province not in self.convoy_fleets(at, target.province, dest):
            raise OrderError(f"{unit} is on no convoy route from {self.name(target.province)} "
                             f"to {self.name(dest)}")
        return Convoy(ref, UnitRef(ARMY, target.location), dest)

    def _check_move(self, at: dict[str, Unit], unit: Unit, ref: UnitRef, order: Move) -> Move:
        b = self.board
        dest = province_of(order.destination)
        if unit.kind == ARMY and not order.via_convoy and not order.route and dest in b.army_adj[unit.location]:
            # The common case, first.
            return order if ref is order.unit and dest == order.destination else Move(ref, dest)
        here, there = self.name(unit.province), self.name(dest)
        if dest == unit.province:
            raise OrderError(f"{unit} cannot move to its own province")
        for step in order.route:
            if not b.is_sea(province_of(step)):
                raise OrderError(f"a convoy route runs only through seas; {self.name(step)} is not one")
        if unit.kind == ARMY:
            if b.is_sea(dest):
                raise OrderError(f"an army cannot move to {there}: it is a sea")
            by_convoy = order.via_convoy or bool(order.route)
            if b.can_move(ARMY, unit.location, dest) and not by_convoy:
                return Move(ref, dest)
            if self.convoy_fleets(at, unit.province, dest):
                return Move(ref, dest, by_convoy, ())
            if dest in self.convoy_reach(unit.province):
                raise OrderError(f"no fleets stand at sea between {here} and {there} to "
                                 "convoy the army")
            raise OrderError(f"{here} is not adjacent to {there}, and no convoy could carry "
                             "an army there")
        if order.via_convoy or order.route:
            raise OrderError("only armies can be convoyed")
        if order.destination in b.fleet_adj[unit.location]:
            return order if ref is order.unit else Move(ref, order.destination)
        if b.is_land(dest):
            raise OrderError(f"a fleet cannot move to {there}: it is inland")
        reachable = b.fleet_coasts_reachable(unit.location, dest)
        if "/" in order.destination:
            if order.destination in reachable:
                return Move(ref, order.destination)
            if reachable:
                raise OrderError(f"a fleet in {here} cannot reach {b.full_name(order.destination)}")
            raise OrderError(f"{here} is not adjacent to {there} for a fleet")
        if not reachable:
            if b.can_move(ARMY, unit.province, dest):
                raise OrderError(f"a fleet cannot move from {here} to {there}: "
                                 "they share no coast")
            raise OrderError(f"{here} is not adjacent to {there} for a fleet")
        if len(reachable) > 1:
            raise OrderError(f"{there} has more than one coast a fleet in {here} could reach: "
                             f"say which ({' or '.join(reachable)})")
        return Move(ref, reachable[0])

    # -------------------------------------------------------------- retreats
    NO_RETREAT_REASON = "no retreat order: disbanded"
    RETREAT_CLASH_REASON = "another unit retreated there too: both disbanded"

    def retreated_unit(self, d: Dislodged, destination: str) -> Unit:
        """The unit after a successful retreat (a variant keeps what else a unit carries)."""
        return Unit(d.unit.power, d.unit.kind, destination)

    def retreat_options(self, position: Position, d: Dislodged) -> tuple[str, ...]:
        if d.retreats is not None:
            return d.retreats
        occupied = {u.province for u in position.units}
        return self._retreats_from(d.unit, d.attacker_from, occupied, position.standoffs)

    def _retreats_from(self, unit: Unit, attacker_from: str | None, occupied: Iterable[str],
                       standoffs: Iterable[str]) -> tuple[str, ...]:
        b = self.board
        blocked = set(occupied) | set(standoffs)
        if attacker_from:
            blocked.add(attacker_from)
        if unit.kind == ARMY:
            places: Iterable[str] = b.army_adj.get(unit.location, ())
        else:
            places = b.fleet_adj.get(unit.location, ())
        return tuple(sorted(p for p in places if province_of(p) not in blocked))

    def check_retreat(self, position: Position, power: str, order: Order) -> Order:
        if not isinstance(order, (Retreat, Disband, Move)):
            raise OrderError(f"'{order}' is not possible in a retreat phase: dislodged units "
                             "retreat or disband")
        at = {d.unit.province: d for d in position.dislodged}
        prov = province_of(order.unit.location)
        d = at.get(prov)
        if d is None:
            raise OrderError(f"no dislodged unit in {self.name(prov)}")
        unit = self.bind_unit({prov: d.unit}, power, order.unit, "dislodged unit")
        ref = UnitRef(unit.kind, unit.location)
        if isinstance(order, Disband):
            return Disband(ref)
        options = self.retreat_options(position, d)
        dest = order.destination if unit.kind == FLEET else province_of(order.destination)
        if dest not in options and unit.kind == FLEET and "/" not in dest:
            matching = [o for o in options if province_of(o) == dest]
            if len(matching) == 1:
                dest = matching[0]
        if dest not in options:
            where = ", ".join(options) if options else "nowhere: it will be disbanded"
            raise OrderError(f"{unit} cannot retreat to {self.name(dest)}; it may retreat to {where}")
        return Retreat(ref, dest)

    # ------------------------------------------------------------ adjustments
    def adjustment_count(self, position: Position, power: str) -> int:
        """Builds the power can make (> 0) or removals it must make (< 0)."""
        centres = position.centres.get(power, set())
        units = sum(1 for u in position.units if u.power == power)
        delta = len(centres) - units
        if delta <= 0:
            return delta
        return min(delta, len(self.build_sites(position, power)))

    def build_sites(self, position: Position, power: str) -> set[str]:
        """Hook: the provinces where ``power`` may build this winter. In standard play its
        home centres that it owns and that :meth:`build_site_taken` finds free. A variant
        that builds elsewhere overrides this (and :meth:`build_site_refusal` for the words);
        the count of builds and the checking of build orders follow it."""
        owned = position.centres.get(power, set())
        return {c for c in self.board.home_centres.get(power, ())
                if c in owned and not self.build_site_taken(position, power, c)}

    def build_site_refusal(self, position: Position, power: str, province: str) -> str:
        """Hook: why ``province``, not one of :meth:`build_sites`, takes no build of
        ``power``'s (the refusal the player reads)."""
        name = self.name(province)
        if province not in self.board.home_centres.get(power, ()):
            return f"{name} is not one of {power}'s home centres"
        if province not in position.centres.get(power, set()):
            return f"{power} does not own {name} now"
        return self.build_site_taken(position, power, province) or \
            f"{power} cannot build in {name} now"

    def check_adjustment(self, position: Position, power: str, order: Order) -> Order:
        count = self.adjustment_count(position, power)
        if isinstance(order, Waive):
            if count <= 0:
                raise OrderError(f"{power} has no builds to waive")
            return order
        if isinstance(order, Remove | Disband):
            if count >= 0:
                raise OrderError(f"{power} has no units to remove this winter")
            unit = self.bind_unit({u.province: u for u in position.units}, power, order.unit)
            return Remove(UnitRef(unit.kind, unit.location))
        if not isinstance(order, Build):
            raise OrderError(f"'{order}' is not possible in an adjustment phase: build, remove "
                             "or waive")
        b = self.board
        ref = order.unit
        prov = ref.province
        name = self.name(prov)
        if count <= 0:
            raise OrderError(f"{power} has no builds this winter")
        if ref.kind is None:
            raise OrderError(f"say what to build in {name}: an army (A) or a fleet (F)")
        if prov not in self.build_sites(position, power):
            raise OrderError(self.build_site_refusal(position, power, prov))
        if ref.kind == ARMY:
            if b.is_sea(prov):
                raise OrderError(f"an army cannot be built at sea in {name}")
            return Build(UnitRef(ARMY, prov))
        if b.is_land(prov):
            raise OrderError(f"a fleet cannot be built in {name}: it is inland")
        coasts = b.provinces[prov].coasts
        if coasts:
            if ref.location not in coasts:
                raise OrderError(f"say on which coast of {name} to build the fleet "
                                 f"({' or '.join(coasts)})")
            return Build(UnitRef(FLEET, ref.location))
        return Build(UnitRef(FLEET, prov))

    def build_site_taken(self, position: Position, power: str, province: str) -> str:
        """Hook: why ``power`` cannot build in its owned home centre ``province`` ('' when
        it can), for :meth:`build_sites`: in standard play, any unit there."""
        if any(u.province == province for u in position.units):
            return f"{self.name(province)} is occupied"
        return ""

    def units_to_order(self, position: Position, power: str) -> list[Unit]:
        kind = position.phase.kind
        if kind == "M":
            return [u for u in position.units if u.power == power]
        if kind == "R":
            return [d.unit for d in position.dislodged if d.unit.power == power]
        return []

    # ------------------------------------------------------------ adjudication
    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        """Adjudicate a phase. ``results[k]`` is the fate of ``orders[k]``; results for units
        that had no order (holds, disbands, civil disorder removals) follow."""
        kind = position.phase.kind
        if kind == "M":
            return self.adjudicate_movement(position, orders)
        if kind == "R":
            return self.adjudicate_retreats(position, orders)
        return self.adjudicate_adjustments(position, orders)

    def checked_orders(self, position: Position, orders: list[tuple[str, Order]],
                 results: list[OrderResult], key: dict[str, int]
                 ) -> tuple[dict[int, Order], dict[int, int]]:
        """Check each order (hook :meth:`order_checker`); the last good order for a unit
        replaces earlier ones (an order may be for several units: hook :meth:`order_keys`).

        ``key`` maps a unit's province to its index. Fills ``results`` with a placeholder (or
        the refusal) for every order, in order, and returns index -> order and index -> the
        position of that order's result.
        """
        chosen: dict[int, Order] = {}
        slot: dict[int, int] = {}
        check, keys = self.order_checker(position), self.order_keys
        for power, order in orders:
            try:
                checked = check(power, order)
            except OrderError as exc:
                results.append(OrderResult(power, str(order), FAILS, str(exc), stands=False))
                continue
            k = len(results)
            for name in keys(power, checked):
                i = key[name]
                if i in slot:
                    old = slot[i]
                    results[old].result = FAILS
                    results[old].reason = self.REPLACED_REASON
                    results[old].stands = False
                    # the replaced order is for no unit any more (castling: king and rook)
                    for j in [j for j, s in slot.items() if s == old and j != i]:
                        del slot[j], chosen[j]
                chosen[i] = checked
                slot[i] = k
            results.append(OrderResult(power, str(checked), SUCCEEDS))
        return chosen, slot

    REPLACED_REASON = "replaced by a later order for the same unit"

    def order_checker(self, position: Position) -> Callable[[str, Order], Order]:
        """Hook: how :meth:`checked_orders` checks each order of a phase, ``check(power, order)``:
        :meth:`check`, with the units of a movement phase indexed once."""
        if position.phase.kind == "M":
            return partial(self.check_movement_order, {u.province: u for u in position.units})
        return partial(self.check, position)

    def order_keys(self, power: str, order: Order) -> tuple[str, ...]:  # noqa: ARG002
        """Hook: the keys (in :meth:`checked_orders`'s ``key``) of the units ``power``'s checked
        order is for: its unit's province. Chess Dip: castling is for a king and a rook."""
        return (unit_of(order).province,)

    def adjudicate_movement(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        units = position.units
        key = {u.province: i for i, u in enumerate(units)}
        results: list[OrderResult] = []
        chosen, slot = self.checked_orders(position, orders, results, key)
        phase = MovementPhase(self.board, units, [chosen.get(i) for i in range(len(units))])
        self.write_verdicts(phase, slot, results)
        return self.board_after_moves(position, phase, results, details=phase)

    @staticmethod
    def write_verdicts(phase: MovementPhase, slot: dict[int, int],
                  results: list[OrderResult]) -> None:
        """Resolve ``phase`` and write each unit's fate into the result of its order
        (``slot``: unit index -> result index, from :meth:`checked_orders`); a unit without an
        order holds, and its result is added."""
        outcomes = phase.resolve()
        for i, unit in enumerate(phase.units):
            o = outcomes[i]
            verdict = SUCCEEDS if o.succeeded else FAILS
            if i in slot:
                r = results[slot[i]]
                r.result, r.reason = verdict, o.reason
            else:
                reason = "no order: holds" + (f"; {o.reason}" if o.reason else "")
                results.append(OrderResult(unit.power, f"{unit} H", verdict, reason,
                                           given=False))

    # ------------------------------------------------------ the board after the moves
    def board_after_moves(self, position: Position, phase: MovementPhase,
                          results: list[OrderResult], **fields: Any) -> Outcome:
        """The end of every movement phase, once ``phase`` is resolved and ``results`` are
        written: each unit after the moves (hook :meth:`unit_after_moves`), the dislodged
        units with their retreats (hook :meth:`dislodgements`), the next position
        (:meth:`Position.following`), then :meth:`after_movement` moves the calendar on.
        ``fields`` go into the :class:`Outcome` (``details=``, ``disbanded=``)."""
        after: list[Unit] = []
        beaten: list[tuple[Unit, int]] = []
        for i, unit in enumerate(phase.units):
            if phase.moved(i):
                moved = self.unit_after_moves(phase, i, unit, phase.dest_loc[i])
            else:
                by = phase.dislodger(i)
                if by is not None:
                    beaten.append((unit, by))
                    continue
                moved = self.unit_after_moves(phase, i, unit, None)
            if moved is not None:
                after.append(moved)
        dislodged: list[Dislodged] = []
        standoffs: frozenset[str] = frozenset()
        if beaten:
            dislodged, standoffs = self.dislodgements(phase, after, beaten)
        nxt = position.following(after, dislodged=dislodged, standoffs=standoffs)
        outcome = Outcome(position, nxt, results, dislodged=list(dislodged), **fields)
        return self.after_movement(outcome)

    def unit_after_moves(self, phase: MovementPhase, i: int, unit: Unit,
                         destination: str | None) -> Unit | None:
        """Hook: unit ``i`` of ``phase`` once the moves are made -- ``destination`` is where it
        moved, None when it stayed (it was not dislodged). None takes it off the board
        (Dipnomicy: merged into another unit); a variant keeps what else a unit carries."""
        if destination is None:
            return unit
        return Unit(unit.power, unit.kind, destination)

    def dislodgements(self, phase: MovementPhase, after: list[Unit],
                      beaten: list[tuple[Unit, int]]) -> tuple[list[Dislodged], frozenset[str]]:
        """Hook: the dislodged units, each with where it may retreat, and the standoffs the
        retreat phase keeps. ``after`` is the board after the moves; ``beaten`` the units
        dislodged, each with the index of the unit that dislodged it."""
        occupied = {u.province for u in after}
        standoffs = phase.standoffs()
        return self.dislodged_with(
            phase, beaten,
            lambda unit, closed: self._retreats_from(unit, closed, occupied, standoffs)
        ), frozenset(standoffs)

    @staticmethod
    def dislodged_with(phase: MovementPhase, beaten: list[tuple[Unit, int]],
                       retreats: Callable[[Unit, str | None], tuple[str, ...]]
                       ) -> list[Dislodged]:
        """Each beaten unit with the province its attacker came from and its retreats,
        ``retreats(unit, closed)``: ``closed`` is the attacker's province, or None when the
        attacker was a convoyed army (2023 rules, DATC 4.A.5: the unit may retreat there)."""
        out = []
        for unit, by in beaten:
            attacker_from = phase.prov[by]
            closed = None if phase.convoyed[by] else attacker_from
            out.append(Dislodged(unit, attacker_from, retreats(unit, closed)))
        return out

    def adjudicate_retreats(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        pending = position.dislodged
        key = {d.unit.province: i for i, d in enumerate(pending)}
        results: list[OrderResult] = []
        chosen, slot = self.checked_orders(position, orders, results, key)
        wanted: dict[str, list[int]] = {}
        order: Order | None
        for i, order in chosen.items():
            if isinstance(order, Retreat):
                wanted.setdefault(province_of(order.destination), []).append(i)
        units = list(position.units)
        disbanded = []
        for i, d in enumerate(pending):
            order = chosen.get(i)
            if isinstance(order, Retreat) and len(wanted[province_of(order.destination)]) == 1:
                units.append(self.retreated_unit(d, order.destination))
                continue
            disbanded.append(d.unit)
            if order is None:
                results.append(OrderResult(d.unit.power, f"{d.unit} D", SUCCEEDS,
                                           self.NO_RETREAT_REASON, given=False))
            elif isinstance(order, Retreat):
                r = results[slot[i]]
                r.result, r.reason = FAILS, self.RETREAT_CLASH_REASON
        return self.phase_over(position, units, results, disbanded=disbanded)

    def adjudicate_adjustments(self, position: Position,
                                orders: list[tuple[str, Order]]) -> Outcome:
        """The adjustment phase skeleton: count what each power is due (hook
        :meth:`adjustment_counts`), check every order against the position, carry out the good
        ones (hook :meth:`apply_adjustment`, in the order :meth:`adjustment_sequence` gives;
        those :meth:`conflicting_adjustments` names fail together first), make the removals still owed (hook :meth:`civil_disorder`), the variant's last changes
        (hook :meth:`adjustments_done`), then the next position. Results are in the order the
        orders were given, civil disorder's (and those :meth:`adjustments_done` adds) after
        them."""
        adj = Adjustments(position, self.adjustment_counts(position), list(position.units))
        results: list[OrderResult | None] = [None] * len(orders)
        checked: list[tuple[int, str, Order]] = []
        for k, (power, order) in enumerate(orders):
            power = self.order_power(position, power, order)
            try:
                checked.append((k, power, self.check(position, power, order)))
            except OrderError as exc:
                results[k] = OrderResult(power, str(order), FAILS, str(exc), stands=False)
        conflicts = self.conflicting_adjustments(position, checked)
        for k, reason in conflicts.items():
            power, order = next((p, o) for j, p, o in checked if j == k)
            results[k] = OrderResult(power, str(order), FAILS, reason)
        checked = [c for c in checked if c[0] not in conflicts]
        for k, power, order in self.adjustment_sequence(checked):
            results[k] = self.apply_adjustment(adj, power, order)
        self.civil_disorder(adj)
        self.adjustments_done(adj)
        return self.phase_over(position, adj.units,
                               [r for r in results if r is not None] + adj.disorder,
                               extra=adj.extra, disbanded=adj.removed, built=adj.built)

    def adjustment_counts(self, position: Position) -> dict[str, Any]:
        """Hook, counting for adjustments: what each power is due this winter, builds (> 0)
        or removals (< 0) -- :meth:`adjustment_count` for every power in the game. A variant
        may count otherwise (Hoplite: a budget in half centres)."""
        return {p: self.adjustment_count(position, p) for p in position.powers()}

    def order_power(self, position: Position, power: str, order: Order) -> str:  # noqa: ARG002
        """Hook: whose adjustments an order is for (Hoplite: a major may order its minor's
        builds). In standard play, the power that gave it."""
        return power

    def conflicting_adjustments(self, position: Position,  # noqa: ARG002
                                checked: list[tuple[int, str, Order]]) -> dict[int, str]:
        """Hook: the checked adjustment orders ``(index, power, order)`` that fail because of
        one another whatever their order (Multiplicity: fleets built on both coasts of one
        province), index -> the reason; none of them is carried out. Decided from the whole
        set before any order is carried out, so that it cannot depend on how the lines are
        listed. In standard play, none (one build per province, the first written)."""
        return {}

    def adjustment_sequence(self, checked: list[tuple[int, str, Order]]
                            ) -> list[tuple[int, str, Order]]:
        """Hook: the order in which the checked adjustment orders ``(index, power, order)``
        are carried out (Hoplite: removals first). In standard play, as given."""
        return checked

    def apply_adjustment(self, adj: Adjustments, power: str, order: Order) -> OrderResult:
        """Hook, applying an adjustment: carry out one checked order on ``adj`` (the board so
        far, what each power is due and has used) and return its result. In standard play
        a power makes as many builds or removals as it is due, one per province."""
        count = adj.counts.get(power, 0)
        n = adj.used.get(power, 0)
        text = str(order)
        if n >= abs(count):
            what = "builds" if count > 0 else "removals"
            return OrderResult(power, text, FAILS, f"no more {what} due", stands=False)
        if isinstance(order, (Build, Remove)):
            prov = order.unit.province
            if prov in adj.taken:
                return OrderResult(power, text, FAILS, self.adjustment_taken_reason(order),
                                   stands=False)
            adj.taken.add(prov)
            if isinstance(order, Build):
                adj.build(Unit(power, order.unit.kind or ARMY, order.unit.location))
            else:
                adj.remove(next(u for u in adj.units if u.province == prov))
        adj.used[power] = n + 1
        return OrderResult(power, text, SUCCEEDS)

    def adjustment_taken_reason(self, order: Build | Remove) -> str:
        """Hook: why a build or removal fails in a province already built in or removed
        from this phase."""
        verb = "built in" if isinstance(order, Build) else "removed from"
        return f"a unit was already {verb} {self.name(order.unit.province)}"

    def civil_disorder(self, adj: Adjustments) -> None:
        """Hook, civil disorder: make the removals each power owed (``adj.counts`` < 0) but
        did not order (``adj.used``), the units chosen by :meth:`civil_disorder_removals`:
        taken off the board into ``adj.removed``, each reported in ``adj.disorder``."""
        for power, count in sorted(adj.counts.items()):
            missing = -count - adj.used.get(power, 0)
            if count < 0 and missing > 0:
                for unit in self.civil_disorder_removals(adj.position, power, adj.units,
                                                         missing):
                    adj.remove(unit)
                    adj.disorder.append(OrderResult(
                        power, str(Remove(UnitRef(unit.kind, unit.location))), SUCCEEDS,
                        "civil disorder: removal not ordered", given=False))

    def adjustments_done(self, adj: Adjustments) -> None:
        """Hook, the end of an adjustment phase, after civil disorder: a variant's last
        changes to the board (``adj.units``), their results (appended to ``adj.disorder``)
        and the next position's variant keys (``adj.extra``). Chess Dip: pawns on their last
        rank are promoted, and built or removed pieces lose their castling marks. In standard
        play, nothing."""

    def civil_disorder_removals(self, position: Position, power: str, units: list[Unit],
                                count: int) -> list[Unit]:
        """DATC 4.D.8 (2023): farthest from any owned centre first, counting moves by land or
        sea for every unit type; fleets before armies at equal distance; then by the full
        name of the province."""
        owned = position.centres.get(power, set())
        board = self.board

        def distance(unit: Unit) -> int:
            dist = board.distances_from(unit.province)
            return min((dist[c] for c in owned if c in dist), default=10**6)

        mine = [u for u in units if u.power == power]
        mine.sort(key=lambda u: (-distance(u), 0 if u.kind == FLEET else 1,
                                 board.provinces[u.province].name))
        return mine[:count]

    # ---------------------------------------------------------------- calendar
    def phase_over(self, position: Position, units: list[Unit], results: list[OrderResult],
                   extra: dict[str, Any] | None = None, **fields: Any) -> Outcome:
        """The end of a retreat or adjustment phase: the next position with ``units`` and
        ``extra`` (its variant keys; None: the position's) made by :meth:`Position.following`,
        its outcome (``fields``: ``disbanded=``, ``built=``), and the calendar moved on to the
        next phase that needs play."""
        nxt = position.following(units, extra=extra)
        outcome = Outcome(position, nxt, results, **fields)
        self.advance_calendar(nxt, outcome)
        return outcome

    def after_movement(self, outcome: Outcome) -> Outcome:
        """Move a movement phase's outcome on: to its retreat phase when a unit was
        dislodged, else to the next phase that needs play."""
        nxt, phase = outcome.position, outcome.previous.phase
        if outcome.dislodged:
            nxt.phase = Phase(phase.season, phase.year, "R")
        else:
            self.advance_calendar(nxt, outcome)
        return outcome

    def advance_calendar(self, nxt: Position, outcome: Outcome) -> None:
        """Set ``nxt.phase`` to the next phase that needs play, updating centres after Fall."""
        phase = nxt.phase
        if phase.season == "S" and phase.kind in "MR":
            nxt.phase = Phase("F", phase.year, "M")
            return
        if phase.season == "F" and phase.kind in "MR":
            self.update_centres(nxt, outcome)
            if nxt.winner is None and any(self.adjustment_count(nxt, p) != 0 for p in nxt.powers()):
                nxt.phase = Phase("W", phase.year, "A")
                return
        nxt.phase = Phase("S", phase.year + 1, "M")

    def update_centres(self, position: Position, outcome: Outcome) -> None:
        """After Fall: each occupied supply centre belongs to the occupier; check for a winner."""
        owner = {c: p for p, cs in position.centres.items() for c in cs}
        for unit in position.units:
            prov = unit.province
            if prov in self.board.supply_centres and owner.get(prov) != unit.power:
                outcome.centre_changes[prov] = (owner.get(prov), unit.power)
                owner[prov] = unit.power
        centres: dict[str, set[str]] = {}
        for c, p in owner.items():
            centres.setdefault(p, set()).add(c)
        position.centres = centres
        leaders = [p for p, cs in centres.items() if len(cs) >= self.board.victory_centres]
        if leaders:
            position.winner = max(leaders, key=lambda p: len(centres[p]))

