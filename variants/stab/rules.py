"""Stab!: the standard game played hidden, with initial placement and two ways of retreating.

Adjudication is the standard one (rule 0). What this module adds is what players may write
and when it takes effect:

* rule 1, initial placement: ``PLACE F LON`` lines with the first Spring orders choose the
  type and home space of each starting unit (:class:`Place`);
* rule 2, which supports to reveal: ``REVEAL A RUH, A MUN`` (:class:`Reveal`), used by the
  visibility rule in :mod:`judge.variants.stab.visibility`;
* rule 4, retreats, a game setting kept in the position (``"retreats"``):
  ``"with_orders"``: conditional retreats sent with the movement orders,
  ``IF DISLODGED F PIC R BEL, ENG`` (the seed's ``If necessary F(Pic) retreats to Bel, ENG``),
  stored in the retreat position and applied when the retreat phase is adjudicated with no
  orders; ``"next_season"``: retreats (and adjustments) come with the next season's orders,
  and a movement order may depend on where another power's unit retreated,
  ``IF F PIC R ENG: F BRE - PIC`` (:class:`IfRetreated`).

Orders may be written in the seed's notation, ``A(Par) S F(Bre)-Pic``, and ``A(Mun) &
A(Ruh) S A(Bur)`` gives the same order to two units (:func:`split_line`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.engine.board import FLEET, province_of
from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.orders import (
    MOVEMENT_ORDERS,
    Disband,
    Move,
    Order,
    Retreat,
    Unit,
    UnitRef,
)
from judge.engine.parse import parse_location, parse_order, parse_unit
from judge.engine.position import Position
from judge.engine.variant import FAILS, SUCCEEDS, OrderResult, Outcome
from judge.variants.standard.rules import StandardRules

WITH_ORDERS = "with_orders"
NEXT_SEASON = "next_season"
RETREAT_MODES = (WITH_ORDERS, NEXT_SEASON)

# Keys this variant keeps in a position (DESIGN.md: "what a variant needs from the previous
# phase it carries in keys of its own").
PLACEMENT = "placement"  # "pending" until the first Spring orders are adjudicated
RETREATS = "retreats"  # the rule 4 setting
CONDITIONAL = "conditional_retreats"  # with_orders: {power: [[location, [dest, ...]], ...]}
RETREATED = "retreats_made"  # next_season: {location: destination or None (disbanded)}


# ----------------------------------------------------------------- order values
@dataclass(frozen=True, slots=True)
class Place:
    """Rule 1: a starting unit of this type in this home space."""

    unit: UnitRef

    def __str__(self) -> str:
        return f"PLACE {self.unit}"


@dataclass(frozen=True, slots=True)
class IfDislodged:
    """Rule 4 (with_orders): where the unit retreats if dislodged, in order of preference;
    no destination means it disbands."""

    unit: UnitRef
    destinations: tuple[str, ...]

    def __str__(self) -> str:
        if not self.destinations:
            return f"IF DISLODGED {self.unit} D"
        return f"IF DISLODGED {self.unit} R {', '.join(self.destinations)}"


@dataclass(frozen=True, slots=True)
class IfRetreated:
    """Rule 4 (next_season): ``order`` stands only if the unit that was dislodged at
    ``unit`` retreated to ``destination`` (a province; None: if it was disbanded)."""

    unit: UnitRef
    destination: str | None
    order: Order

    def __str__(self) -> str:
        where = f"R {self.destination}" if self.destination else "D"
        return f"IF {self.unit} {where}: {self.order}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """Rule 2: the supports a player elects to reveal first for its standing units, by the
    location of the supporting unit, in order of preference."""

    locations: tuple[str, ...]

    def __str__(self) -> str:
        return "REVEAL " + ", ".join(self.locations)


STAB_ORDERS = (Place, IfDislodged, IfRetreated, Reveal)

# ------------------------------------------------------------------- reading
# ``F(Swe)-Den``: the dash is spaced out too, or "Swe-Den" would read as one name (Sweden).
_SEED_UNIT = re.compile(r"\b([AaFf])\s*\(\s*([A-Za-z][A-Za-z/ .]*?)\s*\)(\s*-\s*)?")
_PLACE = re.compile(r"^\s*(?:place|placement|start|starts)\b[:\s]*(.*)$", re.I)
_REVEAL = re.compile(r"^\s*reveal\b[:\s]*(.*)$", re.I)
_IF_DISLODGED = re.compile(r"^\s*if\s+(?:dislodged|necessary|needed)\b[,:\s]*(.*)$", re.I)
_IF = re.compile(r"^\s*if\s+(.*?)\s*:\s*(.+)$", re.I)
_RETREAT_WORD = re.compile(
    r"^(.*?)\s*(?:\s(?:r|retreats?(?:\s+to)?|to)\s|->|-)\s*(.+)$", re.I)
_DISBAND_WORD = re.compile(r"^(.*?)\s+(?:d|disbands?|is\s+disbanded)\s*$", re.I)
_LIST_SPLIT = re.compile(r"\s*(?:,|;|\bor\b|\bthen\b|\belse\b)\s*", re.I)


def seed_notation(text: str) -> str:
    """``A(Par) S F(Bre)-Pic`` -> ``A Par S F Bre-Pic``: the seed's unit notation read as the
    judge's, so players may copy lines from the report."""
    return _SEED_UNIT.sub(
        lambda m: f"{m.group(1)} {m.group(2)}" + (" - " if m.group(3) else ""), text)


def split_line(text: str) -> list[str]:
    """``A(Mun) & A(Ruh) S A(Bur)`` -> one line per unit, as in the seed's example."""
    m = re.match(r"^\s*((?:[AaFf]\s*\([^)]*\)|[AaFf]\s+\S+)(?:\s*&\s*(?:[AaFf]\s*\([^)]*\)|"
                 r"[AaFf]\s+\S+))+)\s+(.*)$", text)
    if not m:
        return [text]
    return [f"{u.strip()} {m.group(2)}" for u in m.group(1).split("&")]


class StabRules(StandardRules):
    """Standard rules plus placement, conditional retreats and conditional orders."""

    order_types = {**StandardRules.order_types, "place": Place, "if_dislodged": IfDislodged,
                   "if_retreated": IfRetreated, "reveal": Reveal}

    # ---------------------------------------------------------------- positions
    def initial_position(self, retreats: str = WITH_ORDERS) -> Position:
        """Spring 1901 with no units yet: each power places them with its first orders."""
        if retreats not in RETREAT_MODES:
            raise ValueError(f"retreats must be one of {RETREAT_MODES}, not {retreats!r}")
        return Position(variant="stab", phase=self.first_phase, units=[],
                        centres=self.initial_centres(),
                        extra={PLACEMENT: "pending", RETREATS: retreats})

    @staticmethod
    def retreat_mode(position: Position) -> str:
        mode = position.extra.get(RETREATS, WITH_ORDERS)
        return mode if mode in RETREAT_MODES else WITH_ORDERS

    @staticmethod
    def placement_pending(position: Position) -> bool:
        return position.extra.get(PLACEMENT) == "pending"

    def retreats_are_automatic(self, position: Position) -> bool:
        """A retreat phase the judge adjudicates at once from the conditional retreats sent
        with the movement orders (rule 4, with_orders): the mail loop calls ``adjudicate``
        with no orders instead of waiting for a deadline."""
        return position.phase.kind == "R" and self.retreat_mode(position) == WITH_ORDERS

    # ------------------------------------------------------------------ reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        text = seed_notation(text)
        b = self.board
        # "England: PLACE F LON": a power prefix, as the standard reader allows on any line.
        m = re.match(r"^\s*([A-Za-z]{3,})\s*:\s*(.+)$", text)
        if m and any(p.startswith(m.group(1).upper()) for p in b.powers):
            text = m.group(2)
        m = _PLACE.match(text)
        if m:
            return self.check_place(position, power, Place(parse_unit(b, m.group(1))))
        m = _REVEAL.match(text)
        if m:
            parts = [p for p in _LIST_SPLIT.split(m.group(1)) if p.strip()]
            if not parts:
                raise OrderSyntaxError("say which of your supporting units to reveal: "
                                       "REVEAL <unit>, <unit>")
            return Reveal(tuple(parse_unit(b, p).province for p in parts))
        m = _IF_DISLODGED.match(text)
        if m:
            return self._check_if_dislodged(position, power, self._read_if_dislodged(m.group(1)))
        m = _IF.match(text)
        if m:
            unit, dest = self._read_retreat_condition(m.group(1))
            inner = self.read_order(position, power, m.group(2))
            if isinstance(inner, STAB_ORDERS):
                raise OrderError("only a movement order can depend on a retreat")
            if self.retreat_mode(position) != NEXT_SEASON:
                raise OrderError("in this game retreats are sent with the movement orders, "
                                 "so no order can depend on one")
            return IfRetreated(unit, dest, inner)
        if self.placement_pending(position) and position.phase.kind == "M":
            # The units do not exist until the placements are read: check later.
            return parse_order(b, text, "M")
        try:
            return super().read_order(position, power, text)
        except OrderError:
            if position.phase.kind != "R":
                raise
            return self._blind_retreat(position, power, text)

    def _blind_retreat(self, position: Position, power: str, text: str) -> Order:
        """Rule 4: "if a unit cannot retreat to a province for whatever reason he is not told
        why". The standard check would say which places are free, which tells what stands
        around the unit; so a retreat of one of the power's dislodged units towards a place it
        could reach on an empty board is taken as written, and fails at adjudication (the
        unit is disbanded, and the reports say only that)."""
        order = parse_order(self.board, text, "R")
        if isinstance(order, Move):
            order = Retreat(order.unit, order.destination)
        if isinstance(order, Retreat):
            mine = {d.unit.province: d.unit for d in position.dislodged if d.unit.power == power}
            unit = mine.get(order.unit.province)
            if unit is not None and (order.unit.kind in (None, unit.kind)) and (
                    self.board.can_reach(unit.kind, unit.location, province_of(order.destination))):
                return Retreat(UnitRef(unit.kind, unit.location), order.destination)
        # Not a retreat of one of its units: the standard reason gives nothing away.
        return super().read_order(position, power, text)

    def _read_if_dislodged(self, rest: str) -> IfDislodged:
        b = self.board
        m = _DISBAND_WORD.match(rest)
        if m:
            return IfDislodged(parse_unit(b, m.group(1)), ())
        m = _RETREAT_WORD.match(rest)
        if not m:
            raise OrderSyntaxError("write a conditional retreat as "
                                   "'IF DISLODGED F PIC R BEL, ENG' or '... D'")
        dests = [p for p in _LIST_SPLIT.split(m.group(2)) if p.strip()]
        return IfDislodged(parse_unit(b, m.group(1)),
                           tuple(parse_location(b, d) for d in dests))

    def _read_retreat_condition(self, cond: str) -> tuple[UnitRef, str | None]:
        b = self.board
        m = _DISBAND_WORD.match(cond)
        if m:
            return parse_unit(b, m.group(1)), None
        m = _RETREAT_WORD.match(cond)
        if not m:
            raise OrderSyntaxError("write a condition as 'IF F PIC R ENG: <order>'")
        return parse_unit(b, m.group(1)), province_of(parse_location(b, m.group(2)))

    def check_named_power(self, ref: UnitRef, unit: Unit, power: str) -> None:
        """Only a unit of the player's own named as another power's is refused: whose any
        other unit is stays hidden, in the reply (a line is read against a blind board) and
        at adjudication (a line stored unchecked while the units are placed)."""
        if unit.power == power:
            super().check_named_power(ref, unit, power)

    def check_place(self, position: Position, power: str, order: Place) -> Place:
        """One placement line checked on its own (the set is checked by
        :meth:`placement_errors`)."""
        b = self.board
        if not (self.placement_pending(position) and str(position.phase) == "S1901M"):
            raise OrderError("units are placed only with the first Spring orders")
        ref = order.unit
        name = self.name(ref.province)
        if ref.kind is None:
            raise OrderError(f"say what to place in {name}: an army (A) or a fleet (F)")
        if ref.province not in b.home_centres.get(power, ()):
            raise OrderError(f"{name} is not one of {power}'s home spaces")
        if ref.kind == FLEET and b.is_land(ref.province):
            raise OrderError(f"a fleet cannot start in {name}: it is inland")
        if ref.kind == FLEET and b.provinces[ref.province].coasts and "/" not in ref.location:
            raise OrderError(f"say on which coast of {name} the fleet starts "
                             f"({' or '.join(b.provinces[ref.province].coasts)})")
        if not b.can_stand(ref.kind, ref.location):
            raise OrderError(f"{ref} cannot stand in {name}")
        return order

    def placement_errors(self, power: str, places: list[Place]) -> list[str]:
        """What is wrong with a power's whole placement (count, one unit per space)."""
        homes = self.board.home_centres.get(power, ())
        errors = []
        if len(places) != len(homes):
            errors.append(f"{power} places {len(homes)} units, not {len(places)}")
        spaces = [p.unit.province for p in places]
        for s in sorted({s for s in spaces if spaces.count(s) > 1}):
            errors.append(f"two units placed in {self.name(s)}")
        return errors

    def _check_if_dislodged(self, position: Position, power: str, order: IfDislodged) -> IfDislodged:
        if self.retreat_mode(position) != WITH_ORDERS:
            raise OrderError("in this game retreats are ordered with the next season's orders")
        if position.phase.kind != "M":
            raise OrderError("conditional retreats are sent with movement orders")
        b = self.board
        unit = order.unit
        if not self.placement_pending(position):
            bound = self.bind_unit({u.province: u for u in position.units}, power, order.unit)
            unit = UnitRef(bound.kind, bound.location)
        if unit.kind is None:
            raise OrderError(f"say whether the unit in {self.name(unit.province)} is an "
                             "army (A) or a fleet (F)")
        dests = []
        for d in order.destinations:
            if not b.can_move(unit.kind, unit.location, d) and not (
                    unit.kind == FLEET and b.fleet_coasts_reachable(unit.location, province_of(d))):
                raise OrderError(f"{unit} cannot retreat to {self.name(d)}: not adjacent")
            dests.append(d)
        return IfDislodged(unit, tuple(dests))

    # ------------------------------------------------------------- adjudication
    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        kind = position.phase.kind
        if kind == "M":
            return self._stab_movement(position, orders)
        if kind == "R":
            return self._stab_retreats(position, orders)
        return super().adjudicate(position, orders)

    def place(self, position: Position, orders: list[tuple[str, Order]]
              ) -> tuple[Position, dict[int, OrderResult]]:
        """Rule 1: the position with each power's placed units, and a result per PLACE
        order (by index in ``orders``). A power whose placement is missing or wrong starts
        with the standard units, so that the game can go on; its player is told why."""
        b = self.board
        by_power: dict[str, list[tuple[int, Place]]] = {}
        results: dict[int, OrderResult] = {}
        for k, (power, order) in enumerate(orders):
            if isinstance(order, Place):
                try:
                    by_power.setdefault(power, []).append((k, self.check_place(position, power, order)))
                except OrderError as exc:
                    results[k] = OrderResult(power, str(order), FAILS, str(exc))
        units: list[Unit] = []
        for power in b.powers:
            placed = by_power.get(power, [])
            failed = any(results[k].power == power for k in results)
            errors = self.placement_errors(power, [o for _, o in placed])
            if placed and not errors and not failed:
                units += [Unit(power, o.unit.kind or "A", o.unit.location) for _, o in placed]
                for k, o in placed:
                    results[k] = OrderResult(power, str(o), SUCCEEDS)
                continue
            reason = "; ".join(errors) or "placement refused"
            for k, o in placed:
                results[k] = OrderResult(power, str(o), FAILS,
                                         f"{reason}: the standard starting units are used")
            units += [u for u in self.initial_units() if u.power == power]
        extra = {k: v for k, v in position.extra.items() if k != PLACEMENT}
        return position.following(units, extra=extra), results

    def _stab_movement(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        fixed: dict[int, OrderResult] = {}
        if self.placement_pending(position):
            position, fixed = self.place(position, orders)
        done = position.extra.get(RETREATED) or {}
        plain: list[tuple[str, Order]] = []
        slots: list[int] = []  # index in ``orders`` of each plain order
        conditional: dict[str, list[list]] = {}
        for k, (power, order) in enumerate(orders):
            if k in fixed:
                continue
            if isinstance(order, IfRetreated):
                # ``done`` maps each dislodged unit's province to where it went (None:
                # disbanded); a unit not in it was not dislodged, so no condition on it holds.
                if order.unit.province not in done or done[order.unit.province] != order.destination:
                    fixed[k] = OrderResult(power, str(order), FAILS, "condition not met")
                    continue
                order = order.order
            if isinstance(order, Reveal):
                fixed[k] = OrderResult(power, str(order), SUCCEEDS, "noted for the report")
                continue
            if isinstance(order, IfDislodged):
                try:
                    order = self._check_if_dislodged(position, power, order)
                except OrderError as exc:
                    fixed[k] = OrderResult(power, str(order), FAILS, str(exc))
                    continue
                conditional.setdefault(power, []).append(
                    [order.unit.location, list(order.destinations)])
                fixed[k] = OrderResult(power, str(order), SUCCEEDS, "kept in case of dislodgement")
                continue
            if not isinstance(order, MOVEMENT_ORDERS):
                fixed[k] = OrderResult(power, str(order), FAILS, "not a movement order")
                continue
            slots.append(k)
            plain.append((power, order))
        base = position.following(position.units, dislodged=position.dislodged,
                                  standoffs=position.standoffs, winner=position.winner,
                                  extra={k: v for k, v in position.extra.items()
                                         if k != RETREATED})
        outcome = StandardRules.adjudicate_movement(self, base, plain)
        given = outcome.results[: len(plain)]
        rest = outcome.results[len(plain):]
        merged: list[OrderResult] = []
        for k in range(len(orders)):
            merged.append(fixed[k] if k in fixed else given[slots.index(k)])
        outcome.results = merged + rest
        nxt = outcome.position
        nxt.extra.pop(CONDITIONAL, None)
        if nxt.phase.kind == "R" and conditional and self.retreat_mode(position) == WITH_ORDERS:
            dislodged_at = {d.unit.location for d in nxt.dislodged}
            # kept by unit (the last one given for a unit counts, as with any order), in the
            # units' order, so that the position does not depend on the order of the lines
            kept = {p: sorted([loc, dests] for loc, dests in
                              {c[0]: c[1] for c in cs if c[0] in dislodged_at}.items())
                    for p, cs in conditional.items()}
            kept = {p: cs for p, cs in kept.items() if cs}
            if kept:
                nxt.extra[CONDITIONAL] = kept
        return outcome

    def _stab_retreats(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        if not orders and self.retreat_mode(position) == WITH_ORDERS:
            orders = self.conditional_retreat_orders(position)
        outcome = super().adjudicate(position, orders)
        nxt = outcome.position
        nxt.extra.pop(CONDITIONAL, None)
        # The standard retreat phase appends the retreated units, in the order of the
        # dislodged list, after the units that were not dislodged.
        gone = {id(u) for u in outcome.disbanded}
        moved = iter(nxt.units[len(position.units):])
        made: dict[str, str | None] = {}
        for d in position.dislodged:
            made[d.unit.province] = None if id(d.unit) in gone else next(moved).province
        if self.retreat_mode(position) == NEXT_SEASON:
            nxt.extra[RETREATED] = made
        return outcome

    def conditional_retreat_orders(self, position: Position) -> list[tuple[str, Order]]:
        """The retreat orders the conditional retreats stand for: for each dislodged unit,
        the first destination it may retreat to; a unit with none disbands. Why a
        destination was passed over is never said (rule 4)."""
        stored: dict[str, list[list]] = position.extra.get(CONDITIONAL) or {}
        out: list[tuple[str, Order]] = []
        for d in position.dislodged:
            # The last conditional retreat given for a unit counts, as with any order.
            wanted = next((c[1] for c in reversed(stored.get(d.unit.power, ()))
                           if c[0] == d.unit.location), None)
            if wanted is None:
                continue  # no conditional retreat: disbanded for lack of a retreat order
            ref = UnitRef(d.unit.kind, d.unit.location)
            options = self.retreat_options(position, d)
            choice = None
            for dest in wanted:
                matching = [o for o in options if o == dest or (
                    "/" not in dest and province_of(o) == province_of(dest))]
                if len(matching) == 1:
                    choice = matching[0]
                    break
            out.append((d.unit.power, Retreat(ref, choice) if choice else Disband(ref)))
        return out

    # ------------------------------------------------------------------ events
    def events(self, outcome: Outcome, orders: list[tuple[str, Order]]) -> list:
        """The events of one phase, each with who may see it (rules 2-6): the hook
        ``judge/reports.py`` uses for a single phase."""
        from judge.variants.stab.visibility import stab_events

        return stab_events(self, outcome, orders)

    def turn_events(self, steps: list[tuple[Outcome, list[tuple[str, Order]]]]) -> list:
        """The events of phases reported together (a movement phase and its automatic
        retreats; or retreats, adjustments and movement sent as one season's orders)."""
        from judge.variants.stab.report import stab_turn_events

        return stab_turn_events(self, steps)

    # ------------------------------------------------------------ whole seasons
    def adjudicate_season(self, position: Position, lines: list[tuple[str, str]]
                          ) -> tuple[list[tuple[Outcome, list[tuple[str, Order]]]],
                                     list[tuple[str, str, str]]]:
        """Rule 4, retreats taken with the next season's orders: adjudicate the pending
        retreat phase, then the adjustments if any, then the movement phase, each with the
        lines of the season's orders that belong to it.

        A line belongs to the retreat phase if it reads as a retreat of one of the power's
        dislodged units, to the adjustment phase if it reads as a build, removal or waive;
        everything else is a movement order (checked only once the earlier phases have been
        adjudicated, since a unit's retreat decides what it can be ordered to do). Returns
        each phase's outcome with the orders it was given, and the lines that could not be
        read, as ``(power, line, reason)``.
        """
        steps: list[tuple[Outcome, list[tuple[str, Order]]]] = []
        errors: list[tuple[str, str, str]] = []
        remaining = list(lines)
        pos = position
        while True:
            kind = pos.phase.kind
            orders: list[tuple[str, Order]] = []
            left: list[tuple[str, str]] = []
            for power, line in remaining:
                try:
                    order = self.read_order(pos, power, line)
                except OrderError as exc:
                    if kind == "M":
                        errors.append((power, line, str(exc)))
                    else:
                        left.append((power, line))
                    continue
                if kind != "M" and isinstance(order, STAB_ORDERS):
                    left.append((power, line))  # REVEAL and conditions are for the movement
                    continue
                orders.append((power, order))
            outcome = self.adjudicate(pos, orders)
            steps.append((outcome, orders))
            if kind == "M" or outcome.position.winner:
                return steps, errors
            remaining = left
            pos = outcome.position
