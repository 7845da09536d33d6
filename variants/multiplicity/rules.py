"""Multiplicity II (Walkerdine, revised Black): the rules of ``variants/multiplicity``.

:class:`MultiplicityRules` extends :class:`~judge.variants.standard.rules.StandardRules`: units have
a size and may mix armies and fleets (``2A``, ``A/F``, ``A/2F``), merge, split, distribute their
supports and convoy as seaworthy A/F units. Movement is decided by
:class:`~judge.variants.multiplicity.movement.MultiMovement` on the generic resolver. Hoplite Wars
subclasses this class (garrisons, minor states, half-value towns).

Rule choices where the text is silent, each kept in one method so a variant can change it:

* an order written with one letter (``A PAR - BUR``) is for the whole unit in Paris, whatever
  its size; ``3A PAR`` must match the unit exactly; only SPLIT and MERGE move parts of units;
* supports (rules 2 and 4): a unit given several support orders spreads its components over
  them in written order (a bare letter is one component, ``2A`` two); a lone support order
  with a count smaller than the unit (``2A BUR S ...`` from a 3A) gives that much; the rest
  holds. ``SPLIT`` with staying parts does the same;
* a mixed unit supports where it could move as a whole; to support by land only, its army
  splits off in place (``A/F AUL SPLIT A AUL S A THB, F AUL H``);
* a plain move never merges: two units of one power moved to one space without MERGE stand
  each other off (rule 3's note); components of one split sent to one space merge (rule 7),
  and a split component sent where a MERGE of the same power goes joins it (split and merge
  in one move);
* a MERGE may name a unit already in the space; that unit holds and the others join it;
* a mixed A/F moves where its fleets can go; into a sea only when seaworthy (rule 5);
* every convoy needs the convoying unit plus the armies carried to be seaworthy (rule 6);
* builds on an occupied home centre join the unit there (rule 3); several builds may be made
  on one centre in one winter, except in the initial placement of rule 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any, cast

from judge.engine.board import Board, province_of
from judge.engine.errors import OrderError
from judge.engine.orders import (
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
from judge.engine.position import Dislodged, Phase, Position
from judge.engine.variant import (
    FAILS,
    SUCCEEDS,
    OrderResult,
    Outcome,
    refused_in_adjudication,
    replaced_by_later,
)
from judge.variants.multiplicity.movement import (
    CONVOY,
    HOLD,
    MOVE,
    SUPPORT_HOLD,
    SUPPORT_MERGE,
    SUPPORT_MOVE,
    MultiMovement,
    Piece,
)
from judge.variants.multiplicity.orders import (
    Merge,
    Split,
    SupportMerge,
    parse_multi_order,
    replaced_in_movement,
)
from judge.variants.multiplicity.units import (
    ARMY,
    FLEET,
    GARRISON,
    Force,
    counts_of,
    format_kind,
    gather,
    is_kind,
    parse_kind,
    seaworthy,
    take,
)
from judge.variants.standard.rules import Adjustments, StandardRules

Parts = tuple[tuple[str, str], ...]


def describe(kind: str) -> str:
    a, f, g = parse_kind(kind)
    if (a, f, g) == (1, 0, 0):
        return "an army"
    if (a, f, g) == (0, 1, 0):
        return "a fleet"
    if (a, f, g) == (0, 0, 1):
        return "a garrison"
    return kind


class MultiplicityRules(StandardRules):
    """Multiplicity II on any board."""

    order_types = {**StandardRules.order_types, "merge": Merge, "support_merge": SupportMerge,
                   "split": Split}

    #: Rule 1 (Multiplicity): one unit per home centre in the initial placement.
    initial_stacking = False
    first_phase = Phase("W", 1900, "A")
    #: Rule 1: no units on the board; the game opens with the builds in the home centres.
    starting_units: Mapping[str, Sequence[str]] | None = {}

    def __init__(self, board: Board) -> None:
        super().__init__(board)

    # ----------------------------------------------------------------- hooks
    def player_of(self, power: str) -> str:
        """The player who orders ``power``'s units (Hoplite: a minor state's major)."""
        return power

    def support_rule(self, position: Position) -> Callable[[str, str], bool] | None:
        """Whether support from one player's units counts for another's (None: always);
        Hoplite's sacker of Delphi gets none from others."""
        return None

    def can_move_letter(self, letter: str) -> bool:
        return letter != GARRISON

    def forces(self, units: Iterable[Unit]) -> list[Force]:
        return gather(units, self.player_of)

    def force_at(self, position: Position) -> dict[str, Force]:
        return {f.province: f for f in self.forces(position.units)}

    # ------------------------------------------------------------- positions
    def initial_position(self) -> Position:
        """Rule 1: players choose armies or fleets, so the game opens with the builds."""
        return Position(variant="multiplicity", phase=self.first_phase,
                        units=self.initial_units(), centres=self.initial_centres())

    def read_position(self, data: dict) -> Position:
        """The contract's JSON, with units written as the rules write them (``2A BUR``,
        ``A/F SPA/NC``); :meth:`Unit.parse` reads only ``A`` and ``F``, so units are read here."""
        if not isinstance(data.get("units") or {}, dict) or not isinstance(
                data.get("dislodged") or {}, dict):
            raise ValueError("malformed position: units and dislodged must be objects")
        for key in ("units", "dislodged"):
            for power, entries in (data.get(key) or {}).items():
                if not isinstance(entries, list):
                    raise ValueError(f"malformed position: {key} of {power} must be a list")
        plain = {k: v for k, v in data.items() if k not in ("units", "dislodged")}
        position = Position.from_json(plain)
        try:
            position.units = [self.read_unit(power, text)
                              for power, texts in (data.get("units") or {}).items()
                              for text in texts]
            for power, entries in (data.get("dislodged") or {}).items():
                for entry in entries:
                    if isinstance(entry, str):
                        entry = {"unit": entry}
                    retreats = entry.get("retreats")
                    position.dislodged.append(Dislodged(
                        self.read_unit(power, entry["unit"]),
                        (entry.get("attacker_from") or "").upper() or None,
                        tuple(r.upper() for r in retreats) if retreats is not None else None))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed position: {exc}") from exc
        return position

    def read_unit(self, power: str, text: str) -> Unit:
        parts = str(text).split()
        if len(parts) != 2 or not is_kind(parts[0].upper()):
            raise ValueError(f"not a unit: {text!r} (expected e.g. {self.unit_examples})")
        kind = format_kind(*parse_kind(parts[0].upper()))
        location = parts[1].upper()
        if province_of(location) not in self.board.provinces:
            raise ValueError(f"not a unit: {text!r} (unknown place {location})")
        return Unit(power.upper(), kind, location)

    # -------------------------------------------------------- validation
    #: the letters of the variant's units (Hoplite adds garrisons)
    unit_letters: tuple[str, ...] = (ARMY, FLEET)
    #: how the variant writes its units, for the reply refusing one (EDIT ADD, a position)
    unit_examples = "'A PAR', '2A BUR' or 'A/F SPA/NC'"

    def max_unit_size(self) -> int:
        """The most components a unit can have: a player's units never outnumber the centres
        it had at the last adjustments, nor those the board's (a bound, so that a hostile
        ``99999999A LON`` is refused before anything counts its components)."""
        return len(self.board.supply_centres)

    def validate_position(self, position: Position) -> None:
        """The standard checks, then each unit (its letters, its size, a coast only with a
        fleet and only where a fleet can stand), one unit of a power and one player per
        province, and every unit at sea seaworthy (rule 5: at least as many fleets as
        armies, with no exception)."""
        super().validate_position(position)
        for units, what in ((position.units, ""), ([d.unit for d in position.dislodged],
                                                   "dislodged ")):
            counts: dict[str, tuple[int, int, int]] = {}
            held: dict[str, str] = {}
            seen: set[tuple[str, str]] = set()
            for unit in units:
                a, f, g = self._validate_unit(unit, what)
                prov = unit.province
                if (unit.power, prov) in seen:
                    raise ValueError(f"two {what}units of {unit.power} in {prov}: one unit "
                                     f"holds them all (written e.g. 2A {prov})")
                seen.add((unit.power, prov))
                other = held.setdefault(prov, unit.power)
                if self.player_of(other) != self.player_of(unit.power):
                    raise ValueError(f"{what}units of {other} and {unit.power} in {prov}: "
                                     "one player's unit to a province")
                have = counts.get(prov, (0, 0, 0))
                counts[prov] = (have[0] + a, have[1] + f, have[2] + g)
            for prov, (a, f, g) in counts.items():
                if self.board.is_sea(prov) and not seaworthy(a, f, g):
                    raise ValueError(f"{what}{format_kind(a, f, g)} {prov} (of "
                                     f"{self.player_of(held[prov])}) is at sea but not "
                                     "seaworthy: a unit at sea needs at least as many fleets "
                                     "as armies")

    def _validate_unit(self, unit: Unit, what: str) -> tuple[int, int, int]:
        a, f, g = parse_kind(unit.kind)
        letters = {ARMY: a, FLEET: f, GARRISON: g}
        for letter, n in letters.items():
            if n and letter not in self.unit_letters:
                raise ValueError(f"{what}{unit.power} {unit}: {letter} is no unit of this "
                                 f"variant (its units: {', '.join(self.unit_letters)})")
        if a + f + g > self.max_unit_size():
            raise ValueError(f"{what}{unit.power} {unit}: a unit of {a + f + g} is more than "
                             f"the {self.max_unit_size()} the board's centres can keep")
        if f and not self.board.can_stand(FLEET, unit.location):
            raise ValueError(f"{what}{unit.power} {unit}: a fleet cannot stand in "
                             f"{unit.location}")
        if not f and unit.location != unit.province:
            raise ValueError(f"{what}{unit.power} {unit}: only a unit with a fleet stands on "
                             "a coast")
        return a, f, g

    # ----------------------------------------------------------- reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        return self.check(position, power, parse_multi_order(self.board, text, position.phase.kind))

    def order_keys(self, power: str, order: Order) -> tuple[str, ...]:
        """The provinces of the units an order is for: a MERGE is for each unit it names."""
        if isinstance(order, Merge):
            return tuple(ref.province for ref in order.units)
        return super().order_keys(power, order)

    def replaced_orders(self, position: Position, power: str, orders: list[Order]
                        ) -> dict[int, int]:
        """Which orders of one mail a later one replaces, as :meth:`pieces_for` rules it (a
        MERGE is an order for each of its units; a unit's supports add up, rule 4)."""
        if position.phase.kind == "M":
            return replaced_in_movement(orders)
        return replaced_by_later(position, self.units_to_order(position, power), orders)

    def refused_adjustments(self, position: Position, power: str, orders: list[Order]
                            ) -> dict[int, str]:
        """The builds and removals of one mail the adjudicator does not make, by its own
        count (description.md, "Builds and removals in one mail": a unit of several
        components takes as many builds or removals; several builds may go on one centre;
        Hoplite: a budget in half centres)."""
        return refused_in_adjudication(self, position, power, orders)

    def check(self, position: Position, power: str, order: Order) -> Order:
        kind = position.phase.kind
        if kind == "M":
            return self.check_movement(self.force_at(position), power, order)
        if kind == "R":
            return self._check_multi_retreat(position, power, order)
        return self.check_multi_adjustment(position, power, order)

    def _own(self, at: dict[str, Force], power: str, ref: UnitRef, what: str = "unit") -> Force:
        force = at.get(ref.province)
        name = self.name(ref.province)
        if force is None:
            raise OrderError(f"no {what} in {name}")
        if force.player != self.player_of(power):
            raise OrderError(f"the unit in {name} is not yours (it is {force.player}'s)")
        self._match_kind(force, ref)
        return force

    def _match_kind(self, force: Force, ref: UnitRef) -> None:
        if ref.kind is None or ref.kind == force.kind:
            return
        a, f, g = parse_kind(ref.kind)
        have = force.counts()
        single = a + f + g == 1
        if single and have[(ARMY, FLEET, GARRISON).index(
                ARMY if a else FLEET if f else GARRISON)]:
            return
        raise OrderError(f"the unit in {self.name(force.province)} is {describe(force.kind)}, "
                         f"not {describe(ref.kind)}")

    def _ref(self, force: Force) -> UnitRef:
        return UnitRef(force.kind, force.location)

    def _other(self, at: dict[str, Force], ref: UnitRef, verb: str) -> Force:
        force = at.get(ref.province)
        if force is None:
            raise OrderError(f"no unit in {self.name(ref.province)} to {verb}")
        self._match_kind(force, ref)
        return force

    def move_target(self, parts: Parts, location: str, dest: str, at: dict[str, Force] | None,
                    via: bool = False, merging: bool = False) -> tuple[str, bool]:
        """Where a unit of ``parts`` at ``location`` lands when moved to ``dest``: (location,
        by convoy). OrderError with the reason if it cannot go there."""
        b = self.board
        a, f, g = counts_of(parts)
        origin = province_of(location)
        prov = province_of(dest)
        here, there = self.name(origin), self.name(prov)
        if g or not all(self.can_move_letter(letter) for _, letter in parts):
            raise OrderError("garrisons never move")
        if prov == origin:
            raise OrderError(f"a unit cannot move to its own province ({here})")
        if f == 0 and b.is_sea(origin):
            # Rule 7: armies split off an A/F at sea land on a coast next to it.
            if prov in b.fleet_reach.get(location, ()) and not b.is_land(prov) and (
                    merging or not b.is_sea(prov)):
                return prov, False
            raise OrderError(f"an army at sea can only land on a coast next to {here}")
        if f == 0:
            if b.is_sea(prov):
                if merging and prov in b.fleet_reach.get(origin, ()):
                    return prov, False
                raise OrderError(f"an army cannot move to {there}: it is a sea")
            if not via and b.can_move(ARMY, origin, prov):
                return prov, False
            if prov in self.convoy_reach(origin) and (at is None or self._sea_carriers(at)):
                return prov, True
            raise OrderError(f"{here} is not adjacent to {there}, and no convoy could carry "
                             "an army there")
        if via:
            raise OrderError("only armies can be convoyed")
        if b.is_land(prov):
            raise OrderError(f"a fleet cannot move to {there}: it is inland")
        if b.is_sea(prov) and not seaworthy(a, f, g) and not merging:
            raise OrderError(f"{format_kind(a, f, g)} is not seaworthy: it cannot move into "
                             f"{there} (rule 5: at least as many fleets as armies)")
        reachable = b.fleet_coasts_reachable(location, prov)
        if "/" in dest:
            if dest in reachable:
                return dest, False
            raise OrderError(f"a fleet in {here} cannot reach {b.full_name(dest)}")
        if not reachable:
            raise OrderError(f"{here} is not adjacent to {there} for a fleet")
        if len(reachable) > 1:
            raise OrderError(f"{there} has more than one coast a fleet in {here} could reach: "
                             f"say which ({' or '.join(reachable)})")
        return reachable[0], False

    def _sea_carriers(self, at: dict[str, Force]) -> bool:
        return any(self.board.is_sea(p) and f.counts()[1] for p, f in at.items())

    def can_reach(self, parts: Parts, location: str, prov: str) -> bool:
        """Support reach: where the unit could move (convoys aside)."""
        a, f, g = counts_of(parts)
        b = self.board
        if f == 0:
            return b.can_reach(ARMY, province_of(location), prov)
        if not b.can_reach(FLEET, location, prov):
            return False
        return not b.is_sea(prov) or seaworthy(a, f, g)

    def can_support(self, parts: Parts) -> bool:
        return True

    def check_movement(self, at: dict[str, Force], power: str, order: Order) -> Order:
        if isinstance(order, Merge):
            return self._check_merge(at, power, order)
        if isinstance(order, Split):
            force = self._own(at, power, order.unit)
            return self._check_split(at, force, order)
        if not isinstance(order, (Hold, Move, SupportHold, SupportMove, Convoy, SupportMerge)):
            raise OrderError(f"'{order}' is not a movement order: in a movement phase units "
                             "hold, move, support, convoy, merge or split")
        if isinstance(order, (SupportHold, SupportMove, SupportMerge)):
            force = self._own(at, power, UnitRef(None, order.unit.location))
            good = self._check_part(at, force, self.support_share(force, order.unit.kind),
                                    order)
            if order.unit.kind in (ARMY, FLEET, GARRISON, None):
                # A bare letter: the whole unit, or one component if the unit is given other
                # support orders too; that is settled when all orders are known.
                good = replace(good, unit=UnitRef(order.unit.kind, force.location))
            return good
        force = self._own(at, power, order.unit)
        return self._check_part(at, force, force.parts, order)

    def support_share(self, force: Force, kind: str | None, several: bool = False) -> Parts:
        """The components that give a support order (rule 2: a multiple unit need not support
        with its full strength, and may spread its supports). A lone order written with a
        bare letter (``A MUN S ...``) is the whole unit; one written with a count
        (``2A MUN S ...`` from a 3A) is that many; when a unit has several support orders, a
        bare letter is one component."""
        if not force.parts:
            raise OrderError(f"the unit in {self.name(force.province)} has no components left "
                             "to give this support")
        if kind is None:
            return force.parts[:1] if several else force.parts
        want = parse_kind(kind)
        if not several and sum(want) == 1 and kind in (ARMY, FLEET, GARRISON):
            self._match_kind(force, UnitRef(kind, force.location))
            return force.parts
        taken = take(list(force.parts), *want)
        if taken is None:
            raise OrderError(f"the unit in {self.name(force.province)} is "
                             f"{describe(force.kind)}: it has no {kind} to support with")
        return tuple(taken)

    def _check_part(self, at: dict[str, Force], force: Force, parts: Parts, order: Order) -> Order:
        ref = UnitRef(format_kind(*counts_of(parts)), force.location)
        b = self.board
        if isinstance(order, Hold):
            return Hold(ref)
        if isinstance(order, Move):
            dest, by_convoy = self.move_target(parts, force.location, order.destination, at,
                                               order.via_convoy or bool(order.route))
            return Move(ref, dest, by_convoy and (order.via_convoy or bool(order.route)))
        if isinstance(order, SupportMerge):
            if not self.can_support(parts):
                raise OrderError("garrisons support only units that merge with them")
            if order.destination != force.province and not self.can_reach(
                    parts, force.location, order.destination):
                raise OrderError(f"{ref} cannot reach {self.name(order.destination)}, "
                                 "so it cannot support a merge there")
            return SupportMerge(ref, order.destination)
        if isinstance(order, (SupportHold, SupportMove)):
            if not self.can_support(parts):
                raise OrderError("garrisons support only units that merge with them "
                                 "(Hoplite rule 4)")
            target = self._other(at, order.target, "support")
            if target.province == force.province:
                raise OrderError("a unit cannot support itself or its own parts")
            tref = self._ref(target)
            if isinstance(order, SupportHold):
                if not self.can_reach(parts, force.location, target.province):
                    raise OrderError(f"{ref} cannot reach {self.name(target.province)}, "
                                     "so it cannot support a unit there")
                return SupportHold(ref, tref)
            dest = province_of(order.destination)
            if dest == force.province:
                raise OrderError("a unit cannot support a move into its own province; "
                                 "it can only hold")
            if dest == target.province:
                raise OrderError(f"{tref} cannot move to where it already is")
            if not self.can_reach(parts, force.location, dest):
                raise OrderError(f"{ref} cannot reach {self.name(dest)}, "
                                 "so it cannot support a move there")
            # A support names a coast only for fleets (DATC 6.B.9 for A/F units too).
            keep_coast = target.counts()[1] and "/" in order.destination
            return SupportMove(ref, tref, order.destination if keep_coast else dest)
        if isinstance(order, Convoy):
            a, f, g = counts_of(parts)
            if not f:
                raise OrderError("only fleets and A/F units can convoy")
            if not b.is_sea(force.province):
                raise OrderError(f"a unit can convoy only at sea, not in {self.name(force.province)}")
            target = self._other(at, order.target, "convoy")
            ta, tf, tg = target.counts()
            if tf or tg:
                raise OrderError("only armies or all-army multiple units may be convoyed (rule 6)")
            if not seaworthy(a + ta, f, g):
                raise OrderError(f"{ref} cannot convoy {target}: together they would not be "
                                 "seaworthy (rule 6)")
            dest = province_of(order.destination)
            if dest not in self.convoy_reach(target.province):
                raise OrderError(f"{target} cannot be convoyed to {self.name(dest)}")
            seas = [p for p, f in at.items() if b.is_sea(p) and f.counts()[1]]
            if force.province not in b.convoy_routes(target.province, dest, seas):
                # DATC 6.G.7, 6.G.19: a convoy by a unit on no convoy route is illegal.
                raise OrderError(f"{ref} is on no convoy route from "
                                 f"{self.name(target.province)} to {self.name(dest)}")
            return Convoy(ref, self._ref(target), dest)
        raise OrderError(f"'{order}' cannot be part of a split")

    def _check_merge(self, at: dict[str, Force], power: str, order: Merge) -> Merge:
        forces = [self._own(at, power, ref) for ref in order.units]
        if len({f.province for f in forces}) < len(forces):
            raise OrderError("the same unit is named twice in the merge")
        players = {f.player for f in forces}
        if len(players) > 1:
            raise OrderError("only units of one power can merge")
        parts = [p for f in forces for p in f.parts]
        a, f_, g = counts_of(parts)
        dest_prov = province_of(order.destination)
        if self.board.is_sea(dest_prov) and not seaworthy(a, f_, g):
            raise OrderError(f"{format_kind(a, f_, g)} would not be seaworthy in "
                             f"{self.name(dest_prov)} (rule 5)")
        formed = format_kind(a, f_, g)
        if order.formed and parse_kind(order.formed) != (a, f_, g):
            raise OrderError(f"these units would form {formed}, not {order.formed}")
        dest = order.destination
        refs = []
        for force in forces:
            if force.province == dest_prov:
                refs.append(self._ref(force))
                if "/" in force.location:
                    dest = force.location
                continue
            loc, _ = self.move_target(force.parts, force.location, order.destination, at,
                                      merging=True)
            if "/" in loc:
                dest = loc
            refs.append(self._ref(force))
        if dest == order.destination and not f_:
            dest = dest_prov
        return Merge(tuple(refs), dest, formed)

    def _check_split(self, at: dict[str, Force], force: Force, order: Split) -> Split:
        left = list(force.parts)
        parts: list[Order] = []
        staying: list[tuple[str, str]] = []
        for part in order.parts:
            ref = unit_of(part)
            taken = take(left, *parse_kind(ref.kind or ""))
            if taken is None:
                raise OrderError(f"{force} has no {ref.kind} left to split off "
                                 f"(it is {force.kind})")
            checked = self._check_part(at, force, tuple(taken), part)
            if not isinstance(checked, Move):
                staying.extend(taken)
            parts.append(checked)
        if len(parts) < 2 and not left:
            raise OrderError(f"a split of {force} needs at least two parts")
        rest = staying + left
        if self.board.is_sea(force.province) and rest and not seaworthy(*counts_of(rest)):
            # Rule 7: "There is no exception to the rule that an A/F at sea must be seaworthy."
            raise OrderError(f"what stays at sea would be {format_kind(*counts_of(rest))}: "
                             "not seaworthy (rule 7)")
        return Split(self._ref(force), tuple(parts))

    # -------------------------------------------------------------- movement
    def pieces_for(self, position: Position, orders: list[tuple[str, Order]],
                   results: list[OrderResult]) -> tuple[list[Force], list[Piece], dict[int, int]]:
        """Check the orders and cut each force into pieces.

        Returns the forces, the pieces, and piece index -> index of its order's result. The
        last good order for a force replaces earlier ones (a MERGE counts as an order for
        each unit it names; a unit's supports add up), by :func:`replaced_in_movement`, the
        mail reader's rule too.
        """
        forces = self.forces(position.units)
        at = {f.province: f for f in forces}
        index = {f.province: k for k, f in enumerate(forces)}
        # force -> result slots of the orders it obeys: one order, or several supports.
        claims: dict[int, list[int]] = {}
        checked: dict[int, Order] = {}  # result slot -> checked order
        written: dict[int, Order] = {}  # result slot -> order as given
        order: Order | None
        for power, order in orders:
            try:
                good = self.check_movement(at, power, order)
            except OrderError as exc:
                results.append(OrderResult(power, str(order), FAILS, str(exc)))
                continue
            slot = len(results)
            results.append(OrderResult(power, str(good), SUCCEEDS))
            checked[slot] = good
            written[slot] = order
        # Which order replaces which: the mail reader's rule, by the same function
        # (replaced_in_movement: a MERGE is an order for each of its units, rule 4's supports
        # add up), so the orders a mail keeps give this result in any listing.
        slots = list(checked)
        replaced = {slots[j] for j in replaced_in_movement([checked[o] for o in slots])}
        for slot in slots:
            if slot in replaced:
                res = results[slot]
                res.result, res.reason, res.stands = FAILS, self.REPLACED_REASON, False
                continue
            good = checked[slot]
            names = good.units if isinstance(good, Merge) else (unit_of(good),)
            for ref in names:
                claims.setdefault(index[ref.province], []).append(slot)
        pieces: list[Piece] = []
        piece_slot: dict[int, int] = {}
        for k, force in enumerate(forces):
            slots = claims.get(k, [])
            piece = partial(Piece, force=k, player=force.player, origin=force.province,
                            location=force.location)
            left = list(force.parts)
            if len(slots) > 1:
                for slot in slots:
                    order = written[slot]
                    try:
                        share = self.support_share(
                            Force(force.player, force.location, tuple(left)),
                            unit_of(order).kind, several=True)
                        part = self._check_part(at, force, share, order)
                    except OrderError as exc:
                        results[slot].result, results[slot].reason = FAILS, str(exc)
                        continue
                    take(left, *counts_of(share))
                    results[slot].order = str(part)
                    pc = piece(parts=share, line=slot)
                    self._fill(pc, part)
                    piece_slot[len(pieces)] = slot
                    pieces.append(pc)
                if left:
                    pieces.append(piece(parts=tuple(left)))
                continue
            order = checked.get(slots[0]) if slots else None
            if order is None:
                pieces.append(piece(parts=force.parts))
                continue
            slot = slots[0]
            if isinstance(order, Merge):
                pc = piece(parts=force.parts, merging=True, line=slot)
                if province_of(order.destination) != force.province:
                    pc.kind = MOVE
                    pc.dest = province_of(order.destination)
                    pc.dest_loc = order.destination if force.counts()[1] else pc.dest
                piece_slot[len(pieces)] = slot
                pieces.append(pc)
                continue
            if isinstance(order, (SupportHold, SupportMove, SupportMerge)):
                order = self._check_part(at, force, self.support_share(force, order.unit.kind),
                                         order)
                results[slot].order = str(order)
            sub = order.parts if isinstance(order, Split) else (order,)
            for part in sub:
                got = take(left, *parse_kind(unit_of(part).kind or force.kind)) or []
                pc = piece(parts=tuple(got), line=slot, merging=isinstance(order, Split))
                self._fill(pc, part)
                piece_slot[len(pieces)] = slot
                pieces.append(pc)
            if left:
                pieces.append(piece(parts=tuple(left)))
        return forces, pieces, piece_slot

    @staticmethod
    def _fill(pc: Piece, order: Order) -> None:
        if isinstance(order, Move):
            pc.kind = MOVE
            pc.dest = province_of(order.destination)
            pc.dest_loc = order.destination
            pc.via = order.via_convoy
        elif isinstance(order, SupportHold):
            pc.kind = SUPPORT_HOLD
            pc.target = order.target.province
        elif isinstance(order, SupportMove):
            pc.kind = SUPPORT_MOVE
            pc.target = order.target.province
            pc.dest = province_of(order.destination)
            pc.dest_loc = order.destination
        elif isinstance(order, SupportMerge):
            pc.kind = SUPPORT_MERGE
            pc.dest = order.destination
        elif isinstance(order, Convoy):
            pc.kind = CONVOY
            pc.target = order.target.province
            pc.dest = province_of(order.destination)
        else:
            pc.kind = HOLD

    def adjudicate_movement(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        results: list[OrderResult] = []
        forces, pieces, piece_slot = self.pieces_for(position, orders, results)
        phase = MultiMovement(self.board, pieces, self.support_rule(position))
        outcomes = phase.resolve()
        # One result per order: it succeeds when every piece carrying it out does.
        failures: dict[int, list[str]] = {}
        for i, pc in enumerate(pieces):
            slot = piece_slot.get(i)
            o = outcomes[i]
            if slot is None:
                if pc.size == forces[pc.force].size:
                    owners = {o for o, _ in pc.parts}
                    who = owners.pop() if len(owners) == 1 else pc.player
                    results.append(OrderResult(who, f"{forces[pc.force]} H",
                                               SUCCEEDS if o.succeeded else FAILS,
                                               "no order: holds" + (f"; {o.reason}" if o.reason else "")))
                continue
            if not o.succeeded or o.reason:
                label = f"{format_kind(*pc.counts())} {pc.location}"
                where = f"{label} - {pc.dest_loc}" if pc.kind == MOVE else label
                failures.setdefault(slot, []).append(
                    (f"{where}: " if isinstance(results[slot], OrderResult) and
                     self._is_multi(results[slot].order) else "") + (o.reason or "fails"))
                if not o.succeeded:
                    results[slot].result = FAILS
        for slot, reasons in failures.items():
            if not results[slot].reason:
                results[slot].reason = "; ".join(reasons)
        nxt, dislodged = self._after_moves(position, forces, pieces, phase)
        outcome = Outcome(position, nxt, results, dislodged=list(dislodged))
        return self.after_movement(outcome)

    @staticmethod
    def _is_multi(text: str) -> bool:
        up = f" {text.upper()} "
        return " SPLIT " in up or " MERGE " in up

    def _after_moves(self, position: Position, forces: list[Force], pieces: list[Piece],
                     phase: MultiMovement) -> tuple[Position, list[Dislodged]]:
        landed: dict[tuple[str, str], list[tuple[str, str]]] = {}
        where: dict[tuple[str, str], str] = {}
        gone: dict[int, list[tuple[str, str]]] = {}
        for i, pc in enumerate(pieces):
            if phase.moved(i):
                key = (pc.player, cast(str, pc.dest))  # a piece that moved has one
                landed.setdefault(key, []).extend(pc.parts)
                if "/" in (pc.dest_loc or "") or key not in where:
                    where[key] = cast(str, pc.dest_loc)
            elif phase.dislodged(pc.origin):
                gone.setdefault(pc.force, []).extend(pc.parts)
            else:
                key = (pc.player, pc.origin)
                landed.setdefault(key, []).extend(pc.parts)
                if "/" in pc.location or key not in where:
                    where[key] = pc.location
        new_forces = []
        for key, parts in landed.items():
            loc = where[key]
            if not counts_of(parts)[1]:
                loc = province_of(loc)
            new_forces.append(Force(key[0], loc, tuple(parts)))
        units = [u for f in new_forces for u in f.units()]
        occupied = {f.province for f in new_forces}
        standoffs = phase.standoffs() if gone else set()
        dislodged: list[Dislodged] = []
        for k, parts in gone.items():
            force = Force(forces[k].player, forces[k].location, tuple(parts))
            by = phase.dislodger(force.province)
            attacker_from = pieces[by].origin if by is not None else None
            blocked = None if by is not None and phase.convoyed[by] else attacker_from
            retreats = self.force_retreats(force, blocked, occupied, standoffs)
            for u in force.units():
                dislodged.append(Dislodged(u, attacker_from, retreats))
        nxt = position.following(units, dislodged=dislodged,
                                 standoffs=frozenset(standoffs) if dislodged else frozenset())
        return nxt, dislodged

    # -------------------------------------------------------------- retreats
    def force_retreats(self, force: Force, attacker_from: str | None, occupied: Iterable[str],
                       standoffs: Iterable[str]) -> tuple[str, ...]:
        """Where a dislodged force may retreat: where it could move, not into the attacker's
        space, an occupied space or a standoff."""
        blocked = set(occupied) | set(standoffs)
        if attacker_from:
            blocked.add(attacker_from)
        mobile = tuple(p for p in force.parts if self.can_move_letter(p[1]) and p[1] != GARRISON)
        if not mobile:
            return ()
        a, f, g = counts_of(mobile)
        b = self.board
        if f == 0:
            places: Iterable[str] = b.army_adj.get(force.province, ())
        else:
            places = [loc for loc in b.fleet_adj.get(force.location, ())
                      if not b.is_sea(province_of(loc)) or seaworthy(a, f, g)]
        return tuple(sorted(p for p in places if province_of(p) not in blocked))

    def retreat_options(self, position: Position, d: Dislodged) -> tuple[str, ...]:
        if d.retreats is not None:
            return d.retreats
        force = self._dislodged_force(position, d.unit.province)
        return self.force_retreats(force, d.attacker_from, {u.province for u in position.units},
                                   position.standoffs)

    def _dislodged_force(self, position: Position, prov: str) -> Force:
        here = [d.unit for d in position.dislodged if d.unit.province == prov]
        return self.forces(here)[0]

    def _check_multi_retreat(self, position: Position, power: str, order: Order) -> Order:
        if not isinstance(order, (Retreat, Disband, Move)):
            raise OrderError(f"'{order}' is not possible in a retreat phase: dislodged units "
                             "retreat or disband (no merging or splitting, rule 8)")
        prov = province_of(order.unit.location)
        entries = [d for d in position.dislodged if d.unit.province == prov]
        if not entries:
            raise OrderError(f"no dislodged unit in {self.name(prov)}")
        force = self._dislodged_force(position, prov)
        if force.player != self.player_of(power):
            raise OrderError(f"the unit in {self.name(prov)} is not yours (it is {force.player}'s)")
        self._match_kind(force, order.unit)
        ref = self._ref(force)
        if isinstance(order, Disband):
            return Disband(ref)
        options = self.retreat_options(position, entries[0])
        dest = order.destination
        if dest not in options:
            matching = [o for o in options if province_of(o) == province_of(dest)]
            if len(matching) == 1:
                dest = matching[0]
        if dest not in options:
            where = ", ".join(options) if options else "nowhere: it will be disbanded"
            raise OrderError(f"{ref} cannot retreat to {self.name(dest)}; it may retreat to {where}")
        return Retreat(ref, dest)

    def adjudicate_retreats(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        forces = self.forces([d.unit for d in position.dislodged])
        key = {f.province: i for i, f in enumerate(forces)}
        results: list[OrderResult] = []
        chosen, slot = self.checked_orders(position, orders, results, key)
        wanted: dict[str, list[int]] = {}
        order: Order | None
        for i, order in chosen.items():
            if isinstance(order, Retreat):
                wanted.setdefault(province_of(order.destination), []).append(i)
        units = list(position.units)
        disbanded: list[Unit] = []
        for i, force in enumerate(forces):
            order = chosen.get(i)
            mobile = tuple(p for p in force.parts if p[1] != GARRISON)
            stays = tuple(p for p in force.parts if p[1] == GARRISON)
            if stays:
                # Hoplite rule 4: a garrison forced to retreat disbands.
                disbanded.extend(Force(force.player, force.location, stays).units())
            if isinstance(order, Retreat):
                rivals = wanted[province_of(order.destination)]
                sizes = sorted((len([p for p in forces[j].parts if p[1] != GARRISON]) for j in rivals),
                               reverse=True)
                mine = len(mobile)
                # Rule 8: the stronger retreat succeeds; equal strengths all fail.
                if mine == sizes[0] and (len(sizes) == 1 or sizes[1] < mine):
                    loc = order.destination if counts_of(mobile)[1] else province_of(order.destination)
                    units.extend(Force(force.player, loc, mobile).units())
                    continue
                r = results[slot[i]]
                r.result, r.reason = FAILS, "a stronger or equal unit retreated there too: disbanded"
            elif order is None and mobile:
                results.append(OrderResult(force.player, f"{Force(force.player, force.location, mobile)} D",
                                           SUCCEEDS, "no retreat order: disbanded"))
            disbanded.extend(Force(force.player, force.location, mobile).units() if mobile else [])
        return self.phase_over(position, units, results, disbanded=disbanded)

    # ----------------------------------------------------------- adjustments
    def components(self, position: Position, power: str) -> int:
        return sum(sum(parse_kind(u.kind)) for u in position.units if u.power == power)

    def supply(self, position: Position, power: str) -> int | Fraction:
        """Components a power's centres support (one each here; Hoplite weighs them)."""
        return len(position.centres.get(power, set()))

    def centre_report(self, position: Position) -> list[str]:
        """One line per power for reports: centres, components (rule 2) and the balance."""
        out = []
        for power in position.powers():
            centres = len(position.centres.get(power, ()))
            units = self.components(position, power)
            out.append(f"{power}: {centres} centres, {units} units"
                       + (f", builds {centres - units}" if centres > units else
                          f", removes {units - centres}" if units > centres else ""))
        return out

    def adjustment_count(self, position: Position, power: str) -> int:
        """Builds allowed (> 0) or removals due (< 0): rule 2, one centre per component."""
        delta = int(self.supply(position, power) - self.components(position, power))
        if delta <= 0:
            return delta
        return min(delta, len(self.build_sites(position, power)) * (delta if self.stacking(position) else 1))

    def stacking(self, position: Position) -> bool:
        """Whether several builds may go on one centre this winter."""
        return self.initial_stacking or position.phase != self.first_phase

    def build_site_taken(self, position: Position, power: str, province: str) -> str:
        # Rule 3: a build joins the power's own unit there; only another player's closes it.
        if any(u.province == province and self.player_of(u.power) != self.player_of(power)
               for u in position.units):
            return f"{self.name(province)} is occupied by another power's unit"
        return ""

    def check_multi_adjustment(self, position: Position, power: str, order: Order) -> Order:
        count = self.adjustment_count(position, power)
        if isinstance(order, Waive):
            if count <= 0:
                raise OrderError(f"{power} has no builds to waive")
            return order
        if isinstance(order, (Remove, Disband)):
            if count >= 0:
                raise OrderError(f"{power} has no units to remove this winter")
            return Remove(self._removable(position, power, order.unit))
        if not isinstance(order, Build):
            raise OrderError(f"'{order}' is not possible in an adjustment phase: build, remove "
                             "or waive")
        if count <= 0:
            raise OrderError(f"{power} has no builds this winter")
        return Build(self.build_ref(position, power, order.unit))

    def _removable(self, position: Position, power: str, ref: UnitRef) -> UnitRef:
        mine = [u for u in position.units if u.power == power and u.province == ref.province]
        if not mine:
            raise OrderError(f"{power} has no unit in {self.name(ref.province)}")
        have = parse_kind(mine[0].kind)
        want = parse_kind(ref.kind) if ref.kind else have
        if any(w > h for w, h in zip(want, have, strict=True)):
            raise OrderError(f"{power}'s unit in {self.name(ref.province)} is {mine[0].kind}, "
                             f"it has no {ref.kind} to remove")
        return UnitRef(format_kind(*want), mine[0].location)

    def build_ref(self, position: Position, power: str, ref: UnitRef) -> UnitRef:
        """The unit a build order makes, checked (the built components, at their place)."""
        prov = ref.province
        name = self.name(prov)
        if ref.kind is None:
            raise OrderError(f"say what to build in {name}: an army (A) or a fleet (F)")
        a, f, g = parse_kind(ref.kind)
        if g:
            raise OrderError("garrisons exist only in Hoplite Wars")
        if prov not in self.build_sites(position, power):
            raise OrderError(self.build_site_refusal(position, power, prov))
        return self._place_build(position, power, prov, ref, a, f, g)

    def _place_build(self, position: Position, power: str, prov: str, ref: UnitRef,
                     a: int, f: int, g: int) -> UnitRef:
        b = self.board
        name = self.name(prov)
        here = [u for u in position.units if u.province == prov]
        if any(self.player_of(u.power) != self.player_of(power) for u in here):
            raise OrderError(f"{name} is occupied by another power's unit")
        if here and not self.stacking(position):
            raise OrderError(f"{name} is occupied: in the initial placement each home centre "
                             "takes one unit (rule 1)")
        if f:
            if b.is_land(prov):
                raise OrderError(f"a fleet cannot be built in {name}: it is inland")
            coasts = b.provinces[prov].coasts
            if coasts:
                there = [u.location for u in here if "/" in u.location]
                if there and ref.location not in there:
                    if ref.location == prov:
                        return UnitRef(format_kind(a, f, g), there[0])
                    raise OrderError(f"the unit in {name} stands on {there[0]}: a fleet "
                                     "built there joins it on that coast")
                if ref.location not in coasts:
                    raise OrderError(f"say on which coast of {name} to build the fleet "
                                     f"({' or '.join(coasts)})")
                return UnitRef(format_kind(a, f, g), ref.location)
        return UnitRef(format_kind(a, f, g), prov)

    def adjustment_counts(self, position: Position) -> dict[str, Any]:
        return {p: self.adjustment_count(position, p) for p in self.adjusting_powers(position)}

    def fleet_coast(self, order: Order) -> str | None:
        """The coast an adjustment order puts a fleet on (``LAR/NC``), if it names one."""
        if isinstance(order, Build) and "/" in order.unit.location \
                and parse_kind(order.unit.kind or "")[1]:
            return order.unit.location
        return None

    def conflicting_adjustments(self, position: Position,
                                checked: list[tuple[int, str, Order]]) -> dict[int, str]:
        """Fleets one player orders onto both coasts of one province (rule 5: a unit in a
        multiple coast space occupies a specific coast; the builds would join one unit) fail,
        all of them: which coast to keep would otherwise depend on which line came first.
        Checking has already refused a coast other than that of a unit standing there. In
        the initial placement one build per centre, the first written, decides instead."""
        if not self.stacking(position):
            return {}
        coasts: dict[tuple[str, str], dict[int, str]] = {}
        for k, power, order in checked:
            loc = self.fleet_coast(order)
            if loc is not None:
                coasts.setdefault((self.player_of(power), province_of(loc)), {})[k] = loc
        refused: dict[int, str] = {}
        for (_, prov), named in coasts.items():
            if len(set(named.values())) > 1:
                reason = (f"fleets are ordered onto both coasts of {self.name(prov)} "
                          f"({', '.join(sorted(set(named.values())))}), and a unit there stands "
                          "on one coast (Multiplicity II rule 5): no fleet is placed there")
                refused.update(dict.fromkeys(named, reason))
        return refused

    def apply_adjustment(self, adj: Adjustments, power: str, order: Order) -> OrderResult:
        """A unit of several components takes as many builds or removals; builds join the
        power's unit there (rule 3), removals take components out of it."""
        count = adj.counts.get(power, 0)
        n = adj.used.get(power, 0)
        text = str(order)
        size = sum(parse_kind(order.unit.kind)) if isinstance(order, (Build, Remove)) \
            and order.unit.kind else 1
        if n + size > abs(count):
            what = "builds" if count > 0 else "removals"
            left = abs(count) - n
            reason = (f"{unit_of(order).kind} would take {size} {what}; {power} has "
                      f"{left} left" if left > 0 else f"no more {what} due")
            return OrderResult(power, text, FAILS, reason)
        if isinstance(order, Build):
            prov = order.unit.province
            if prov in adj.taken and not self.stacking(adj.position):
                return OrderResult(power, text, FAILS,
                                   f"a unit was already built in {self.name(prov)}")
            adj.taken.add(prov)
            unit = Unit(power, cast(str, order.unit.kind), order.unit.location)  # checked
            adj.units = self._add_unit(adj.units, unit)
            adj.built.append(unit)
        elif isinstance(order, Remove):
            try:
                adj.units = self._take_unit(adj.units, power, order.unit)
            except OrderError as exc:
                return OrderResult(power, text, FAILS, str(exc))
            adj.removed.append(Unit(power, cast(str, order.unit.kind), order.unit.location))
        adj.used[power] = n + size
        return OrderResult(power, text, SUCCEEDS)

    def civil_disorder(self, adj: Adjustments) -> None:
        """One component at a time, as :meth:`take_in_disorder` chooses."""
        for power, count in sorted(adj.counts.items()):
            missing = -count - adj.used.get(power, 0)
            if count < 0 and missing > 0:
                for _ in range(missing):
                    adj.units, unit = self.take_in_disorder(adj.position, power, adj.units)
                    if unit is None:
                        break
                    adj.removed.append(unit)
                    adj.disorder.append(OrderResult(power, f"REMOVE {unit}", SUCCEEDS,
                                                    "civil disorder: removal not ordered"))

    def adjusting_powers(self, position: Position) -> list[str]:
        return position.powers()

    @staticmethod
    def _add_unit(units: list[Unit], unit: Unit) -> list[Unit]:
        """Add components to the board, joining the power's own unit there (rule 3)."""
        out = []
        joined = False
        for u in units:
            if u.power == unit.power and u.province == unit.province and not joined:
                a1, f1, g1 = parse_kind(u.kind)
                a2, f2, g2 = parse_kind(unit.kind)
                loc = u.location if "/" in u.location else unit.location
                if not (f1 + f2):
                    loc = u.province
                out.append(Unit(u.power, format_kind(a1 + a2, f1 + f2, g1 + g2), loc))
                joined = True
            else:
                out.append(u)
        if not joined:
            out.append(unit)
        return out

    def _take_unit(self, units: list[Unit], power: str, ref: UnitRef,
                   strict: bool = True) -> list[Unit]:
        """``units`` without the components ``ref`` names; with ``strict``, OrderError when
        that would leave an unseaworthy unit at sea (rule 5 knows no exception)."""
        out = []
        done = False
        for u in units:
            if not done and u.power == power and u.province == ref.province:
                have = parse_kind(u.kind)
                want = parse_kind(ref.kind or u.kind)
                left = tuple(h - w for h, w in zip(have, want, strict=True))
                if min(left) < 0:
                    raise OrderError(f"{u} has no {ref.kind} to remove")
                done = True
                if sum(left):
                    loc = u.location if left[1] else u.province
                    out.append(Unit(power, format_kind(*left), loc))
                continue
            out.append(u)
        if not done:
            raise OrderError(f"{power} has no unit in {self.name(ref.province)}")
        if strict and self.board.is_sea(ref.province):
            there = [p for f in self.forces(u for u in out if u.province == ref.province)
                     for p in f.parts]
            if there and not seaworthy(*counts_of(there)):
                raise OrderError(f"removing {ref} would leave an unseaworthy unit at sea: "
                                 "remove its armies first")
        return out

    def take_in_disorder(self, position: Position, power: str, units: list[Unit]
                         ) -> tuple[list[Unit], Unit | None]:
        """Civil disorder: remove the first component :meth:`disorder_removals` ranks that
        can go (see :meth:`_take_unit`); armies left alone at sea then drown."""
        pool = self.disorder_removals(position, power, units, 10**6)
        for unit in pool:
            try:
                return self._take_unit(units, power, UnitRef(unit.kind, unit.location)), unit
            except OrderError:
                continue
        if not pool:
            return units, None
        unit = pool[0]
        return self.drown(self._take_unit(units, power, UnitRef(unit.kind, unit.location),
                                          strict=False)), unit

    def drown(self, units: list[Unit]) -> list[Unit]:
        """Armies in an unseaworthy unit at sea are lost (only civil disorder gets here)."""
        out = []
        for force in self.forces(units):
            if self.board.is_sea(force.province) and not seaworthy(*force.counts()):
                a, f, g = force.counts()
                parts = list(force.parts)
                for _ in range(a + g - f):
                    idx = next(k for k, p in enumerate(parts) if p[1] != FLEET)
                    parts.pop(idx)
                force = Force(force.player, force.location, tuple(parts))
                if not parts:
                    continue
            out.extend(force.units())
        return out

    def disorder_removals(self, position: Position, power: str, units: list[Unit],
                          count: int) -> list[Unit]:
        """Civil disorder one component at a time: farthest from an owned centre first,
        fleets before armies, then by name (DATC 4.D.8 applied to components)."""
        owned = position.centres.get(power, set())
        board = self.board
        pool: list[Unit] = []
        for u in units:
            if u.power != power:
                continue
            a, f, g = parse_kind(u.kind)
            pool += [Unit(power, "F", u.location)] * f + [Unit(power, "A", u.province)] * a
            pool += [Unit(power, "G", u.province)] * g

        def distance(u: Unit) -> int:
            dist = board.distances_from(u.province)
            return min((dist[c] for c in owned if c in dist), default=10**6)

        # A fleet whose removal would strand armies at sea is passed over by the caller
        # (take_in_disorder), so the DATC order can stay as it is.
        pool.sort(key=lambda u: (-distance(u), "FAG".index(u.kind),
                                 board.provinces[u.province].name))
        return pool[:count]

    def units_to_order(self, position: Position, power: str) -> list[Unit]:
        kind = position.phase.kind
        mine = self.player_of(power)
        if kind == "M":
            return [u for u in position.units if self.player_of(u.power) == mine]
        if kind == "R":
            return [d.unit for d in position.dislodged if self.player_of(d.unit.power) == mine]
        return []

