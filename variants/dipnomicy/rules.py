"""The rules of Dipnomicy: the standard rules, switched by the ruleset kept in the position.

:class:`DipnomicyRules` is the variant's plug-in. It holds no game state: for each call it reads
the ruleset in the position (:class:`~judge.variants.dipnomicy.ruleset.Ruleset`), works out which rule
modules are in force, and hands the work to a :class:`TurnRules` built for exactly those
modules (cached, since the same rules are in force for many turns and games). Enacting a rule
changes the next position's ruleset, and so the next adjudication; it never changes code.

The calendar: turns are numbered from 1; odd turns are Spring and even turns Autumn (the names
P2 gives them), mapped onto the phase codes the rest of the judge knows: turn ``n`` is
``S<year>M`` or ``F<year>M`` with ``year = 1901 + (n - 1) // 2``. A P1 removal phase after a
turn is that turn's ``R`` phase; P2's Upkeep phase after an even turn is ``W<year>A``.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from judge.engine.board import ARMY, FLEET, Board, province_of
from judge.engine.errors import OrderError
from judge.engine.orders import (
    Convoy,
    Move,
    Order,
    SupportHold,
    SupportMove,
    Unit,
    UnitRef,
)
from judge.engine.parse import parse_order
from judge.engine.position import Dislodged, Phase, Position
from judge.engine.variant import FAILS, OrderResult, Outcome
from judge.variants.dipnomicy.catalogue import POWERS, Active
from judge.variants.dipnomicy.mapdata import BASE_BOARD, board_with_centres
from judge.variants.dipnomicy.movement import DipnomicyMovement
from judge.variants.dipnomicy.orders import (
    Merge,
    normalise_line,
    parse_merge,
    parse_unit,
    size_of,
    sized,
)
from judge.variants.dipnomicy.ruleset import Ruleset, initial_ruleset
from judge.variants.standard.movement import MovementPhase
from judge.variants.standard.rules import StandardRules

FIRST_YEAR = 1901


# ------------------------------------------------------------------------- calendar
def turn_number(phase: Phase) -> int:
    """The Dipnomicy turn a phase belongs to (an Upkeep phase belongs to the turn before it)."""
    return (phase.year - FIRST_YEAR) * 2 + (1 if phase.season == "S" else 2)


def turn_phase(turn: int) -> Phase:
    """The movement phase of turn ``turn`` (1 -> S1901M, 2 -> F1901M, 3 -> S1902M)."""
    if turn < 1:
        raise ValueError("turns are numbered from 1")
    return Phase("S" if turn % 2 else "F", FIRST_YEAR + (turn - 1) // 2, "M")


def phase_title(phase: Phase) -> str:
    """``Turn 3 (Spring)``, ``Removals after turn 3``, ``Upkeep after turn 4``."""
    turn = turn_number(phase)
    if phase.kind == "R":
        return f"Removals after turn {turn}"
    if phase.kind == "A":
        return f"Upkeep after turn {turn}"
    return f"Turn {turn} ({'Spring' if turn % 2 else 'Autumn'})"


# ------------------------------------------------------------------ one set of modules
class TurnRules(StandardRules):
    """The standard rules on ``board`` with the rule modules of ``active``."""

    order_types = {**StandardRules.order_types, "merge": Merge}

    def __init__(self, board: Board, active: Active) -> None:
        super().__init__(board)
        self.active = active

    def _off(self, what: str) -> OrderError:
        return OrderError(f"{what} not in the rules: no rule in force provides them")

    # ------------------------------------------------------------ order reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        text = normalise_line(text)
        if position.phase.kind == "A":
            # P2 speaks of units "created"; the standard reader knows BUILD.
            text = re.sub(r"^\s*create[sd]?\b", "BUILD", text, flags=re.IGNORECASE)
        if position.phase.kind == "M":
            merge = parse_merge(self.board, text)
            if merge is not None:
                return self.check(position, power, merge)  # type: ignore[arg-type]
        return self.check(position, power, parse_order(self.board, text, position.phase.kind))

    def check_movement_order(self, at: dict[str, Unit], power: str, order: Order) -> Order:
        on = self.active.on
        if isinstance(order, Merge):
            return self._check_merge(at, power, order)
        if isinstance(order, (SupportHold, SupportMove)) and not on("support"):
            raise self._off("support actions are")
        if isinstance(order, Convoy) and not on("convoy"):
            raise self._off("convoy actions are")
        if isinstance(order, Move):
            unit = self.bind_unit(at, power, order.unit)
            if unit.kind == FLEET and order.route:
                return self._check_double_move(at, unit, order)
            if unit.kind == ARMY and not on("convoy"):
                dest = province_of(order.destination)
                # A convoy asked for, or the only way there: refused while convoys are off.
                if order.via_convoy or order.route or (
                        not self.board.can_move(ARMY, unit.location, dest)
                        and dest in self.convoy_reach(unit.province)):
                    raise self._off("convoys are")
        return super().check_movement_order(at, power, order)

    def _check_merge(self, at: dict[str, Unit], power: str, order: Merge) -> Merge:
        if not self.active.on("merging"):
            raise self._off("merge actions are")
        gone = self.bind_unit(at, power, order.unit)
        into = self.bind_unit(at, power, order.into)
        if gone.province == into.province:
            raise OrderError("a unit cannot merge with itself")
        if into.province not in self.board.neighbours(gone.province):
            raise OrderError(f"{gone} and {into} do not occupy adjacent territories")
        if size_of(gone) != size_of(into):
            raise OrderError(f"{gone} (size {size_of(gone)}) and {into} (size {size_of(into)}) "
                             "are not the same size")
        return Merge(UnitRef(gone.kind, gone.location), UnitRef(into.kind, into.location))

    def _check_double_move(self, at: dict[str, Unit], unit: Unit, order: Move) -> Move:
        """P4: ``F X -- Y -- Z``. The coast of ``Y`` is found, since the order names only
        the territory; the fleet may not end where it started or in a supply centre.

        The order this returns names the coast passed (``F BOT - STP/SC - LVN``), and it is
        checked again when the turn is adjudicated (and read again from its text): so a
        route naming a coast is read as that coast, never looked up as a territory (issue
        22: ``KeyError: 'STP/SC'`` at adjudication froze the game)."""
        b = self.board
        if not self.active.on("mobile_fleets"):
            raise OrderError("a fleet makes one move a turn: no rule in force allows two "
                             "(and only armies are convoyed)")
        if len(order.route) != 1:
            raise OrderError("a fleet may make two consecutive moves, not more")
        via, dest = province_of(order.route[0]), province_of(order.destination)
        if via not in b.provinces or dest not in b.provinces:
            raise OrderError("a double move names two territories of the map")
        coast = order.route[0] if order.route[0] != via else None
        if dest == unit.province:
            raise OrderError(f"{unit} cannot end its double move where it started")
        if dest in b.supply_centres:
            raise OrderError(f"a fleet making two moves may not end its turn in a supply "
                             f"centre ({self.name(dest)})")
        steps = []
        for loc in b.fleet_coasts_reachable(unit.location, via):
            if coast is not None and loc != coast:
                continue
            if "/" in order.destination:
                ends = [order.destination] if order.destination in b.fleet_adj[loc] else []
            else:
                ends = b.fleet_coasts_reachable(loc, dest)
            steps += [(loc, end) for end in ends]
        if not steps:
            raise OrderError(f"a fleet in {self.name(unit.province)} cannot move to "
                             f"{self.name(via)} and then to {self.name(dest)}")
        if len({end for _, end in steps}) > 1:
            raise OrderError(f"say which coast of {self.name(dest)} the fleet ends on")
        loc, end = steps[0]
        return Move(UnitRef(unit.kind, unit.location), end, False, (loc,))

    # ------------------------------------------------------------ adjudication
    def adjudicate_movement(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        units = position.units
        key = {u.province: i for i, u in enumerate(units)}
        results: list[OrderResult] = []
        chosen, slot = self.checked_orders(position, orders, results, key)
        merges = {i: o for i, o in chosen.items() if isinstance(o, Merge)}
        phase = DipnomicyMovement(
            self.board, units,
            [None if i in merges else chosen.get(i) for i in range(len(units))], self.active)
        self.write_verdicts(phase, slot, results)
        # Merges take effect at the end of the turn, between units that were not beaten out
        # (the sizes must be equal when it is ordered). A unit takes part in one merge a turn:
        # a unit named in two or more merges (merged away or into) makes every one of them
        # void, so that no listing of the lines decides which one happens (issue 22: taking
        # the first listed made "Me A Ber A Mun" and "Me A Mun A Ber" a 2A MUN or a 2A BER).
        named = Counter(j for i, m in merges.items() for j in {i, key[m.into.province]})
        merged_away, growth = phase.merged_away, phase.growth
        for i, merge in merges.items():
            t = key[merge.into.province]
            r = results[slot[i]]
            twice = [units[j] for j in (i, t) if named[j] > 1]
            if twice:
                r.result = FAILS
                r.reason = (f"{' and '.join(map(str, twice))} "
                            f"{'is' if len(twice) == 1 else 'are'} named in more than one "
                            "merge: a unit takes part in one merge a turn, so none of them "
                            "happens")
            elif phase.dislodger(i) is not None or phase.dislodger(t) is not None:
                r.result, r.reason = FAILS, "beaten out before the merge"
            else:
                merged_away.add(i)
                growth[t] = 1
        return self.board_after_moves(position, phase, results,
                                      disbanded=[units[i] for i in sorted(merged_away)])

    def unit_after_moves(self, phase: MovementPhase, i: int, unit: Unit,
                         destination: str | None) -> Unit | None:
        """A unit merged away leaves the board; the one it merged into grows by one (P6)."""
        assert isinstance(phase, DipnomicyMovement)
        if i in phase.merged_away:
            return None
        size = size_of(unit) + phase.growth.get(i, 0)
        return sized(unit if destination is None
                     else Unit(unit.power, unit.kind, destination), size)

    def dislodgements(self, phase: MovementPhase, after: list[Unit],
                      beaten: list[tuple[Unit, int]]) -> tuple[list[Dislodged], frozenset[str]]:
        """P1: the unit must make "a legal move action removing it from the territory": any
        adjacent territory left empty at the end of the turn (the attacker's origin too)."""
        occupied = {u.province for u in after}
        return [Dislodged(unit, phase.prov[by], self._retreats_from(unit, None, occupied, ()))
                for unit, by in beaten], frozenset()

    # The standard retreat phase, in this game's words, keeping each unit's size (P6).
    NO_RETREAT_REASON = "not moved away: disbanded"
    RETREAT_CLASH_REASON = "another unit moved there too: both disbanded"

    def retreated_unit(self, d: Dislodged, destination: str) -> Unit:
        return sized(Unit(d.unit.power, d.unit.kind, destination), size_of(d.unit))

    def civil_disorder_removals(self, position: Position, power: str, units: list[Unit],
                                count: int) -> list[Unit]:
        """P2: "in alphabetical order according to the names of territories occupied"."""
        mine = sorted((u for u in units if u.power == power),
                      key=lambda u: self.board.provinces[u.province].name)
        return mine[:count]

    def advance_calendar(self, nxt: Position, outcome: Outcome) -> None:
        if self.active.on("supply_centres"):
            super().advance_calendar(nxt, outcome)  # Upkeep (W...A) after Autumn when it is needed
            return
        phase = nxt.phase
        if phase.season == "S" and phase.kind in "MR":
            nxt.phase = Phase("F", phase.year, "M")
        else:
            nxt.phase = Phase("S", phase.year + 1, "M")


# ---------------------------------------------------------------------- the plug-in
class DipnomicyRules:
    """What the engine calls for a Dipnomicy game (see ``docs/engine.md``)."""

    order_types = TurnRules.order_types  # whatever rules are in force

    def __init__(self) -> None:
        self.board = BASE_BOARD
        self._cache: dict[str, TurnRules] = {}

    # ---------------------------------------------------------------- ruleset
    def ruleset(self, position: Position) -> Ruleset:
        return Ruleset.from_position_keys(position.extra)

    def board_of(self, position: Position) -> Board:  # noqa: ARG002 (the same for all)
        """The board a position is checked against: a rule (P3's ``homes``) can make any land
        territory a supply centre, and a centre owned stays owned when the rule is repealed,
        so every land territory may be an owned centre."""
        land = frozenset(a for a, p in BASE_BOARD.provinces.items() if p.kind != "sea")
        return board_with_centres(land - BASE_BOARD.supply_centres, ())

    def active(self, position: Position) -> Active:
        return self.ruleset(position).active()

    def turn_rules(self, position: Position) -> TurnRules:
        """The standard rules with the modules in force in ``position``."""
        active = self.active(position)
        rules = self._cache.get(active.key)
        if rules is None:
            rules = TurnRules(board_for(active), active)
            self._cache[active.key] = rules
        return rules

    # -------------------------------------------------------------- positions
    def initial_position(self, seed: int = 0, ruleset: Ruleset | None = None,
                         powers: Iterable[str] | None = None) -> Position:
        """Turn 1 with the standard units and no supply centres owned (none exist yet).

        ``powers``: the countries assigned to players; the others' units stay and hold
        (rule 12). Both are recorded so that the move report can name them.
        """
        ruleset = ruleset or initial_ruleset()
        position = Position(
            variant="dipnomicy", phase=turn_phase(1),
            units=[Unit.parse(p, u) for p, us in self.board.starting_units.items() for u in us],
            centres={},
            extra={**ruleset.to_position_keys(), "seed": int(seed)},
        )
        if powers is not None:
            position.extra["players"] = sorted(p.upper() for p in powers)
        return with_home_ownership(position, ruleset.active())

    def read_position(self, data: dict) -> Position:
        """The contract's position, with sizes (``2A BUD``) and the ruleset checked; raises
        ValueError with a one-line reason."""
        try:
            return self._read_position(data)
        except (AttributeError, TypeError, KeyError) as exc:
            raise ValueError(f"malformed position: {exc}") from exc

    def _read_position(self, data: dict) -> Position:
        units = {p: [str(parse_unit(p, t)) for t in ts]
                 for p, ts in (data.get("units") or {}).items()}
        # The standard reader checks everything but sizes; give it plain units, then put the
        # sizes back.
        plain = {**data, "units": {p: [_strip_size(t) for t in ts] for p, ts in units.items()}}
        dis = data.get("dislodged") or {}
        if isinstance(dis, dict):
            plain["dislodged"] = {p: [_strip_entry(e) for e in es] for p, es in dis.items()}
        position = self.turn_rules(Position.from_json(plain)).read_position(plain)
        sizes = {(p.upper(), _strip_size(t).upper()): parse_unit(p.upper(), t)
                 for p, ts in units.items() for t in ts}
        position.units = [sizes.get((u.power, str(u)), u) for u in position.units]
        if isinstance(dis, dict):
            dsizes = {}
            for p, es in dis.items():
                for e in es:
                    text = e if isinstance(e, str) else e.get("unit", "")
                    dsizes[(p.upper(), _strip_size(text).upper())] = parse_unit(p.upper(), text)
            position.dislodged = [replace(d, unit=dsizes.get((d.unit.power, str(d.unit)), d.unit))
                                  for d in position.dislodged]
        position.variant = "dipnomicy"
        return position

    def validate_position(self, position: Position) -> None:
        """What play could not have produced, as the standard rules check it (the calendar,
        dislodged units only in a retreat phase): called by ``Variant.read_position``."""
        self.turn_rules(position).validate_position(position)

    def write_position(self, position: Position) -> dict:
        return position.to_json()

    # ------------------------------------------------------------- the engine
    def read_order(self, position: Position, power: str, text: str) -> Order:
        return self.turn_rules(position).read_order(position, power, text)

    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        rules = self.turn_rules(position)
        ruleset = self.ruleset(position)
        start = with_home_ownership(position, rules.active)
        if "rules_in_force" not in start.extra:
            # A bare position plays under the initial rules; write them into the next one so
            # that the game goes on under the same rules (on a copy: the caller's position
            # is not ours to change).
            start = replace(start, extra={**start.extra, **ruleset.to_position_keys()})
        outcome = rules.adjudicate(start, orders)
        outcome.previous = position
        return outcome

    def adjustment_count(self, position: Position, power: str) -> int:
        return self.turn_rules(position).adjustment_count(position, power)

    def units_to_order(self, position: Position, power: str) -> list[Unit]:
        return self.turn_rules(position).units_to_order(position, power)


def _strip_size(text: str) -> str:
    return text.strip().lstrip("0123456789").strip()


def _strip_entry(entry: Any) -> Any:
    if isinstance(entry, str):
        return _strip_size(entry)
    if isinstance(entry, dict) and isinstance(entry.get("unit"), str):
        return {**entry, "unit": _strip_size(entry["unit"])}
    return entry


def home_centres(active: Active) -> dict[str, tuple[str, ...]]:
    """Each country's home supply centres under the rules in force (P2, plus P3's)."""
    homes: dict[str, list[str]] = {p: [] for p in POWERS}
    if active.on("supply_centres"):
        for p, cs in active.param("supply_centres", "homes").items():
            homes[p] += cs
    if active.on("home_centres"):
        for p, cs in active.param("home_centres", "homes").items():
            homes[p] += [c for c in cs if c not in homes[p]]
    return {p: tuple(cs) for p, cs in homes.items()}


def board_for(active: Active) -> Board:
    """The board under ``active``: P3's home centres are supply centres where the map has none.

    They are supply centre territories as soon as P3 is in force (P4's fleets may not end
    there); they are owned and counted only once P2 is in force too.
    """
    homes = home_centres(active)
    extra = frozenset(c for cs in homes.values() for c in cs) - BASE_BOARD.supply_centres
    return board_with_centres(extra, tuple(sorted(homes.items())))


def with_home_ownership(position: Position, active: Active) -> Position:
    """P2: "supply centres in a country's home territories are initially owned by that country".

    Applied whenever P2 is in force: a home centre nobody owns yet (because P2 or P3 has just
    been enacted) goes to its country; one another country has taken stays taken.
    """
    if not active.on("supply_centres"):
        return position
    owned = {c for cs in position.centres.values() for c in cs}
    centres = {p: set(cs) for p, cs in position.centres.items()}
    changed = False
    for power, cs in home_centres(active).items():
        for c in cs:
            if c not in owned:
                centres.setdefault(power, set()).add(c)
                changed = True
    if not changed:
        return position
    return position.following(list(position.units), centres=centres,
                              dislodged=list(position.dislodged),
                              standoffs=position.standoffs, winner=position.winner)


def assign_countries(players: Sequence[str], seed: int) -> dict[str, str]:
    """Rule 12: countries assigned at random (from the game's seed) to 5 to 7 players."""
    if not 5 <= len(players) <= 7:
        raise ValueError(f"Dipnomicy needs 5 to 7 players, not {len(players)}")
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    countries = list(POWERS)
    random.Random(f"dipnomicy-countries:{seed}").shuffle(countries)
    return dict(zip(players, countries, strict=False))


def new_game(players: Sequence[str], seed: int,
             ruleset: Ruleset | None = None) -> tuple[Position, dict[str, str]]:
    """A new game: countries assigned at random to ``players`` (5 to 7), the position of
    turn 1 under ``ruleset`` (default: ``initial_ruleset.toml``) carrying ``seed``."""
    assignment = assign_countries(players, seed)
    return RULES.initial_position(seed, ruleset, assignment.values()), assignment


def move_deadline_days(position: Position) -> int | None:
    """P5: days after the last move report that moves are due, or None when no deadline rule
    is in force (the game's own deadline then applies). For the scheduler."""
    active = Ruleset.from_position_keys(position.extra).active()
    return int(active.param("deadline", "days")) if active.on("deadline") else None


def phase_days(position: Position) -> int | None:
    """How many days the phase about to be played lasts under the rules, or None when the
    rules set none: movement as :func:`move_deadline_days`, P1's removal phase its
    ``retreat_days``, the Upkeep phase the ``upkeep_days`` setting (default 2)."""
    ruleset = Ruleset.from_position_keys(position.extra)
    active = ruleset.active()
    kind = position.phase.kind
    if kind == "M":
        return move_deadline_days(position)
    if kind == "R":
        return int(active.param("support", "retreat_days")) if active.on("support") else 0
    return int(ruleset.setting("upkeep_days"))


# One instance serves every game: it holds no game state, only caches of built rules.
RULES = DipnomicyRules()
