"""Hoplite Wars (Stephen Agar, notes by Dylan O'Donnell): Multiplicity II in ancient Greece.

:class:`HopliteRules` extends :class:`~judge.variants.multiplicity.rules.MultiplicityRules` with the
Hoplite rules 0-13 of ``shared/seeds/001_52e48166c371df39.txt``:

* rule 1/5: seven majors, each with a minor state ordered by the same player. The player is
  one power for self-dislodgement and merging (``player_of``); each of the fourteen keeps its
  own centre chart and adjustments. Orders for a minor may be written under either name.
* rule 2: Cities are worth 1, Towns 1/2 (``centre_values`` of the map).
* rule 4: garrisons (``G``) never move, support nobody (they join merges), cost 1/2, disband
  when dislodged, and may be disbanded in any winter to free their half build.
* rule 5: a centre taken by a mixed major/minor unit goes to the major unless the order ends
  ``FOR <minor>``; a minor's home city taken back by its major returns to the minor.
* rule 6: the seven colonies declare for the majors at random at the end of the first Autumn,
  from the game's seed (``seed`` in the position), so adjudication is reproducible.
* rule 7: ``SACK DELPHI`` (``A DEL SACK``): once per game; the sacker's major gets two units
  beyond its centres (built at the next adjustments, lost only by annihilation), and from
  then on no other player's support counts for any of the sacker's units.
* rule 8: Towns change hands after every Spring and Autumn move, Cities after Autumn only.
* rule 9: builds in any owned City or Town (captured, home or colony); ``TRANSFORM A ATH TO F``
  turns an army in a centre into a fleet (or back) during adjustments.
* rule 12: Winter 451 BC builds (the free set-up of rule 1), then Spring 450 BC; phase codes
  are written ``W451BCA``, ``S450BCM``; years count down. Every year has its Winter, since
  transforms and garrison disbands may be made in any Winter.
* rule 13: a player wins with more than 20 city-equivalents (major + minor; Delphi is no centre).
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from judge.engine.board import Board, province_of
from judge.engine.errors import OrderError
from judge.engine.orders import (
    Build,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Unit,
    UnitRef,
    Waive,
    unit_of,
)
from judge.engine.parse import parse_location, parse_unit
from judge.engine.position import Phase, Position, shown, year_of
from judge.engine.variant import FAILS, SUCCEEDS, OrderResult, Outcome
from judge.variants.multiplicity.orders import (
    Merge,
    Split,
    _mask,
    parse_multi_order,
    replaced_in_movement,
    strip_power,
)
from judge.variants.multiplicity.rules import MultiplicityRules
from judge.variants.multiplicity.units import ARMY, FLEET, GARRISON, Force, format_kind, parse_kind
from judge.variants.standard.rules import Adjustments

FIRST_AUTUMN_YEAR = -450  # rule 6: the colonies declare at the end of the first Autumn
SEASON_NAMES = {"S": "Spring", "F": "Autumn", "W": "Winter"}
KIND_NAMES = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}
_PHASE_RE = re.compile(r"^([SFAW])\s*(-?\d+)\s*(BC)?\s*([MRA])$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class BCPhase(Phase):
    """A phase whose year is BC: stored negative (so that ``year + 1`` counts down),
    written ``W451BCA`` and named "Winter 451 BC Adjustment"."""

    def __str__(self) -> str:
        return f"{self.season}{-self.year}BC{self.kind}"

    @property
    def long_name(self) -> str:
        return f"{SEASON_NAMES[self.season]} {-self.year} BC {KIND_NAMES[self.kind]}"


def bc(phase: Phase) -> BCPhase:
    return phase if isinstance(phase, BCPhase) else BCPhase(phase.season, phase.year, phase.kind)


def parse_phase(code: str) -> BCPhase:
    """``W451BCA``, ``S450BCM``, ``A450BCM`` (Autumn), ``W-451A`` -> BCPhase."""
    m = _PHASE_RE.match(code.strip().replace(" ", ""))
    if not m:
        raise ValueError(f"not a Hoplite phase code: {code[:40]!r} (expected e.g. S450BCM)")
    season = {"A": "F"}.get(m.group(1).upper(), m.group(1).upper())
    year = year_of(m.group(2), code)
    return BCPhase(season, -abs(year), m.group(4).upper())


def format_value(value: float | Fraction) -> str:
    """Half centres as the rules write them: 3.5 -> ``3 1/2``, 0.5 -> ``1/2``."""
    half = Fraction(value).limit_denominator(2)
    whole = math.floor(half)
    frac = half - whole
    if not frac:
        return str(whole)
    return f"{whole} 1/2" if whole else "1/2"


# ------------------------------------------------------------------ Hoplite orders
@dataclass(frozen=True, slots=True)
class Sack:
    """``SACK DELPHI``: the unit in Delphi sacks the shrine (rule 7); it holds meanwhile."""

    unit: UnitRef

    def __str__(self) -> str:
        return f"{self.unit} SACK DELPHI"


@dataclass(frozen=True, slots=True)
class Transform:
    """``TRANSFORM A ATH TO F``: one component changes type in a centre (rule 9)."""

    unit: UnitRef
    into: str  # "A" or "F"
    location: str  # where the new component stands (a coast for a fleet)

    def __str__(self) -> str:
        return f"TRANSFORM {self.unit} TO {self.into} {self.location}"


@dataclass(frozen=True, slots=True)
class Claimed:
    """A movement order ending ``FOR <minor>``: the centre it takes goes to that power (the
    note to rule 5)."""

    order: Order
    power: str

    @property
    def unit(self) -> UnitRef:
        return unit_of(self.order)

    def __str__(self) -> str:
        return f"{self.order} FOR {self.power}"


_SACK_RE = re.compile(r"^(?:(.*?)\s+)?sacks?(?:\s+(?:delphi|del))?\s*$", re.IGNORECASE)
_TRANSFORM_RE = re.compile(
    r"^(?:transform|convert|turn)\s+(.+?)\s+(?:to|into|->|=>|-|>)\s*(army|fleet|a|f)\b\s*(.*)$"
    r"|^(.+?)\s+(?:transforms?|converts?|becomes?|turns?)\s+(?:to\s+|into\s+)?(army|fleet|a|f)\b\s*(.*)$",
    re.IGNORECASE)
_CLAIM_RE = re.compile(r"^(.*?)\s*\(?\s*\bfor\s+([A-Za-z]+)\s*\)?\s*$", re.IGNORECASE)


class HopliteRules(MultiplicityRules):
    order_types = {**MultiplicityRules.order_types, "sack": Sack, "transform": Transform,
                   "claimed": Claimed}
    initial_stacking = True
    first_phase = BCPhase("W", -451, "A")

    def __init__(self, board: Board, data: dict[str, Any]) -> None:
        super().__init__(board)
        self.values: dict[str, Fraction] = {
            c: Fraction(v).limit_denominator(2) for c, v in data["centre_values"].items()}
        self.minors: dict[str, str] = dict(data["minor_states"])
        self.minor_of: dict[str, str] = {major: minor for minor, major in self.minors.items()}
        self.colonies: tuple[str, ...] = tuple(data["colonies"])
        self.shrine: str = data["shrine"]
        self.victory_more_than = Fraction(data["victory_more_than"])
        self.majors: tuple[str, ...] = board.powers

    @classmethod
    def load(cls, path: Path | Traversable) -> tuple[Board, HopliteRules]:
        data = json.loads(path.read_text(encoding="utf-8"))
        board = Board(data)
        return board, cls(board, data)

    # ------------------------------------------------------------------ hooks
    def player_of(self, power: str) -> str:
        return self.minors.get(power, power)

    def powers_of(self, player: str) -> tuple[str, ...]:
        minor = self.minor_of.get(player)
        return (player, minor) if minor else (player,)

    def can_move_letter(self, letter: str) -> bool:
        return letter != GARRISON

    def can_support(self, parts: tuple[tuple[str, str], ...]) -> bool:
        # Rule 4: a garrison supports only units that merge with it, which it does by
        # merging (its strength counts in the merge), not by a support order.
        return all(letter != GARRISON for _, letter in parts)

    def support_rule(self, position: Position) -> Callable[[str, str], bool] | None:
        sacker = position.extra.get("delphi_sacked_by")
        if not sacker:
            return None
        # Rule 7: the sacker's units (major and minor) receive no support from others.
        return lambda supporter, supported: supported != sacker or supporter == sacker

    # ------------------------------------------------------------------ positions
    def initial_position(self) -> Position:
        """Winter 451 BC: every major and minor owns its home cities and places its units
        freely (rule 1); Megara and the Towns are neutral."""
        return Position(
            variant=self.board.name, phase=self.first_phase, units=self.initial_units(),
            centres=self.initial_centres(), extra={"seed": 0})

    def read_position(self, data: dict) -> Position:
        data = dict(data)
        phase = parse_phase(str(data.get("phase", "")))
        data["phase"] = f"{phase.season}{phase.year}{phase.kind}"
        position = super().read_position(data)
        position.phase = phase
        return position

    def write_position(self, position: Position) -> dict:
        position.phase = bc(position.phase)
        return position.to_json()

    # ------------------------------------------------------------------ validation
    unit_letters = (ARMY, FLEET, GARRISON)
    unit_examples = "'A ATH', 'F COR', 'G ATH', '2A ATH' or 'A/F ATH'"

    def max_unit_size(self) -> int:
        # a garrison costs half a centre (rule 4) and the sacker of Delphi keeps two more
        return 2 * len(self.board.supply_centres) + 2

    def validate_position(self, position: Position) -> None:
        """Rule 4 first (a garrison at sea is above all a garrison away from home): a
        garrison never leaves the City or Town it was built on, so it stands only on a
        centre, never on one another player owns (its major or minor may; a dislodged
        garrison disbands). Then
        Multiplicity's checks and the keys Hoplite adds to a position."""
        owner = {c: p for p, cs in position.centres.items() for c in cs}
        for unit in position.units:
            if not parse_kind(unit.kind)[2]:
                continue
            holder = owner.get(unit.province)
            if unit.province not in self.values:
                raise ValueError(f"{unit.power} {unit}: a garrison stands only on the City or "
                                 f"Town it was built on, and {unit.province} is neither")
            # a centre nobody owns is let through: positions written by hand leave out
            # centres (play never shows one, as a garrison is built on its own centre)
            if holder is not None and self.player_of(holder) != self.player_of(unit.power):
                raise ValueError(f"{unit.power} {unit}: a garrison stands only on a City or "
                                 f"Town of its own, and {unit.province} belongs to {holder}")
        super().validate_position(position)
        self._validate_extra(position.extra)

    def _validate_extra(self, extra: dict[str, Any]) -> None:
        seed = extra.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int | str):
            raise ValueError(f"\"seed\" must be a number or a string, not {shown(seed)}")
        sacker = extra.get("delphi_sacked_by")
        if sacker is not None and sacker not in self.majors:
            raise ValueError(f"\"delphi_sacked_by\" must be a major state, not {shown(sacker)}")
        units = extra.get("delphi_units", 0)
        if isinstance(units, bool) or not isinstance(units, int) or not 0 <= units <= 2:
            raise ValueError(f"\"delphi_units\" must be 0, 1 or 2 (rule 7), not {shown(units)}")
        colonies = extra.get("colonies", {})
        if not isinstance(colonies, dict) or any(
                c not in self.colonies or m not in self.majors for c, m in colonies.items()):
            raise ValueError("\"colonies\" must give each colony (" + ", ".join(self.colonies)
                             + ") a major state")
        claims = extra.get("claims", {})
        states = (*self.majors, *self.minors)
        if not isinstance(claims, dict) or any(
                c not in self.board.provinces or p not in states for c, p in claims.items()):
            raise ValueError("\"claims\" must map provinces to the states that claim them")

    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        outcome = super().adjudicate(position, orders)
        outcome.position.phase = bc(outcome.position.phase)
        return outcome

    # ------------------------------------------------------------------ reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        power = power.upper()
        line = strip_power(text, (*self.majors, *self.minors))
        kind = position.phase.kind
        if kind == "M":
            m = _SACK_RE.match(line)
            if m:
                ref = (self._masked_unit(m.group(1)) if m.group(1)
                       else UnitRef(None, self.shrine))
                return self.check(position, power, Sack(ref))
            m = _CLAIM_RE.match(line)
            if m and m.group(2).upper() in (*self.minors, *self.majors):
                inner = self.check(position, power, parse_multi_order(
                    self.board, m.group(1), kind, tuple(self.minors)))
                return self.check(position, power, Claimed(inner, m.group(2).upper()))
        if kind == "A":
            m = _TRANSFORM_RE.match(line)
            if m:
                unit_text, into, rest = (m.group(1), m.group(2), m.group(3)) if m.group(1) \
                    else (m.group(4), m.group(5), m.group(6))
                ref = self._masked_unit(unit_text)
                letter = FLEET if into.lower().startswith("f") else ARMY
                loc = parse_location(self.board, rest) if rest.strip() else ref.location
                return self.check(position, power, Transform(ref, letter, loc))
        return self.check(position, power, parse_multi_order(self.board, line, kind,
                                                             tuple(self.minors)))

    def _masked_unit(self, text: str) -> UnitRef:
        masked, kinds = _mask(text.strip())
        ref = parse_unit(self.board, masked)
        if ref.kind is not None and kinds:
            ref = UnitRef(kinds[0], ref.location)
        return ref

    def check_movement(self, at: dict[str, Force], power: str, order: Order) -> Order:
        if isinstance(order, Sack):
            if order.unit.province != self.shrine:
                raise OrderError(f"only a unit in {self.name(self.shrine)} can sack it")
            force = self._own(at, power, order.unit)
            return Sack(self._ref(force))
        if isinstance(order, Claimed):
            claim = order.power
            if self.player_of(claim) != self.player_of(power):
                raise OrderError(f"{claim} is not one of your states")
            inner = self.check_movement(at, power, order.order)
            if not isinstance(inner, (Move, Merge, Split)):
                raise OrderError("only a move, merge or split can take a centre FOR a state")
            return Claimed(inner, claim)
        return super().check_movement(at, power, order)

    # ------------------------------------------------------------------ movement
    def adjudicate_movement(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        plain: list[tuple[str, Order]] = []
        sacks: dict[int, str] = {}
        claims: dict[int, tuple[str, list[str]]] = {}
        replaced = self._replaced(position, orders)
        for k, (power, order) in enumerate(orders):
            if isinstance(order, Claimed):
                claims[k] = (order.power, _destinations(order.order))
                order = order.order
            if isinstance(order, Sack):
                sacks[k] = power
                order = Hold(order.unit)
            plain.append((power, order))
        if claims:
            # The claim must be known when centres change hands, which may happen inside
            # this adjudication (Spring towns, or Autumn without retreats).
            pending: dict[str, str] = dict(position.extra.get("claims") or {})
            for k, (claim, dests) in claims.items():
                if k not in replaced:  # a later order for its unit replaced it: no claim
                    pending.update(dict.fromkeys(dests, claim))
            position = position.following(
                position.units, centres=position.centres, dislodged=position.dislodged,
                standoffs=position.standoffs, winner=position.winner,
                extra={**position.extra, "claims": pending})
        outcome = super().adjudicate_movement(position, plain)
        nxt = outcome.position
        found = {f.province: f for f in self.forces(nxt.units)}
        for k, power in sacks.items():
            res = outcome.results[k]
            if not res.order.endswith(" H"):
                continue  # the order was refused; its reason says why
            res.order = res.order[:-2] + " SACK DELPHI"
            if k in replaced:  # a later order for the unit in Delphi replaced the sack
                continue
            player = self.player_of(power)
            there = found.get(self.shrine)
            if position.extra.get("delphi_sacked_by"):
                res.result, res.reason = FAILS, "Delphi has already been sacked"
            elif there is None or there.player != player:
                res.result, res.reason = FAILS, "dislodged: Delphi is not sacked"
            else:
                res.result, res.reason = SUCCEEDS, "Delphi is sacked: two extra units, and no " \
                                                   "support from other players from now on"
                nxt.extra["delphi_sacked_by"] = player
                nxt.extra["delphi_units"] = 2
        for k, (claim, _dests) in claims.items():
            outcome.results[k].order += f" FOR {claim}"
        return outcome

    def _replaced(self, position: Position, orders: list[tuple[str, Order]]) -> set[int]:
        """The movement orders a later order for their unit replaces, as the mail reader
        rules it (``replaced_in_movement``; a SACK is an order for the unit in Delphi, a
        claim ``FOR`` a state the order it ends), so a replaced sack or claim has no effect."""
        at = self.force_at(position)
        good: list[int] = []
        checked: list[Order] = []
        for k, (power, order) in enumerate(orders):
            try:
                checked.append(self.check_movement(at, power, order))
            except OrderError:
                continue
            good.append(k)
        return {good[j] for j in replaced_in_movement([_plain(o) for o in checked])}

    def replaced_orders(self, position: Position, power: str, orders: list[Order]
                        ) -> dict[int, int]:
        """As Multiplicity's, with a claim ``FOR`` a state read as the order it ends (a
        merge FOR a state is an order for each unit it names), as :meth:`_replaced` rules."""
        if position.phase.kind == "M":
            return replaced_in_movement([_plain(o) for o in orders])
        return super().replaced_orders(position, power, orders)

    # ------------------------------------------------------------------ calendar, centres
    def advance_calendar(self, nxt: Position, outcome: Outcome) -> None:
        phase = nxt.phase
        if phase.season == "S" and phase.kind in "MR":
            self.update_centres(nxt, outcome, towns_only=True)
            nxt.phase = BCPhase("F", phase.year, "M")
            return
        if phase.season == "F" and phase.kind in "MR":
            if "colonies" not in nxt.extra and phase.year == FIRST_AUTUMN_YEAR:
                self.declare_colonies(nxt, outcome)
            self.update_centres(nxt, outcome, towns_only=False)
            # Every year has its Winter: transforms and garrison disbands are always allowed.
            nxt.phase = BCPhase("W", phase.year, "A")
            return
        nxt.phase = BCPhase("S", phase.year + 1, "M")

    def declare_colonies(self, position: Position, outcome: Outcome) -> None:
        """Rule 6: each colony declares for a different major, at random from the seed."""
        rng = random.Random(f"{position.extra.get('seed', 0)}:colonies")
        majors = list(self.majors)
        rng.shuffle(majors)
        assigned = dict(zip(sorted(self.colonies), majors, strict=True))
        position.extra["colonies"] = assigned
        owner = {c: p for p, cs in position.centres.items() for c in cs}
        for colony, major in assigned.items():
            if owner.get(colony) != major:
                outcome.centre_changes[colony] = (owner.get(colony), major)
                position.centres.setdefault(major, set()).add(colony)
                if owner.get(colony):
                    position.centres[owner[colony]].discard(colony)

    def update_centres(self, position: Position, outcome: Outcome,
                       towns_only: bool = False) -> None:
        """Rule 8: Towns after every move, Cities after Autumn; rule 5: who of a player's two
        states takes the centre."""
        owner = {c: p for p, cs in position.centres.items() for c in cs}
        claims: dict[str, str] = position.extra.pop("claims", None) or {}
        for force in self.forces(position.units):
            prov = force.province
            value = self.values.get(prov)
            if value is None or (towns_only and value == 1):
                continue
            new = self._taker(force, claims.get(prov))
            old = owner.get(prov)
            if old is not None and self.player_of(old) == force.player and prov not in claims:
                continue  # a player's own centre stays with the state that holds it
            # Rule 5: a minor's home city taken back by its major returns to the minor.
            minor = self.minor_of.get(new)
            if minor and prov in self.board.home_centres.get(minor, ()):
                new = minor
            if old != new:
                outcome.centre_changes[prov] = (old, new)
                owner[prov] = new
        centres: dict[str, set[str]] = {}
        for c, p in owner.items():
            centres.setdefault(p, set()).add(c)
        position.centres = centres
        totals = {player: self.player_value(position, player) for player in self.majors}
        leaders = [p for p, v in totals.items() if v > self.victory_more_than]
        if leaders:
            position.winner = max(leaders, key=lambda p: totals[p])

    def _taker(self, force: Force, claim: str | None) -> str:
        owners = {o for o, _ in force.parts}
        if len(owners) == 1:
            return next(iter(owners))
        if claim and claim in owners | {force.player}:
            return claim
        return force.player

    def player_value(self, position: Position, player: str) -> Fraction:
        """City-equivalents a player (major and minor together) controls (rule 13)."""
        return sum((self.values[c] for p in self.powers_of(player)
                    for c in position.centres.get(p, ())), Fraction(0))

    def centre_report(self, position: Position) -> list[str]:
        """One line per state: cities, towns and value, half centres as the rules write them."""
        out = []
        for power in [*self.majors, *self.minors]:
            cs = position.centres.get(power, set())
            if not cs and not any(u.power == power for u in position.units):
                continue
            cities = sum(1 for c in cs if self.values[c] == 1)
            towns = len(cs) - cities
            out.append(f"{power}: {cities} cities, {towns} towns = "
                       f"{format_value(self.supply(position, power))}; units "
                       f"{format_value(self.upkeep(position, power))}")
        return out

    # ------------------------------------------------------------------ adjustments
    def supply(self, position: Position, power: str) -> Fraction:
        value = sum((self.values[c] for c in position.centres.get(power, ())), Fraction(0))
        if position.extra.get("delphi_sacked_by") == power:
            value += int(position.extra.get("delphi_units", 0))
        return value

    def upkeep(self, position: Position, power: str) -> Fraction:
        total = Fraction(0)
        for u in position.units:
            if u.power == power:
                a, f, g = parse_kind(u.kind)
                total += a + f + Fraction(g, 2)
        return total

    def balance(self, position: Position, power: str) -> Fraction:
        return self.supply(position, power) - self.upkeep(position, power)

    def adjustment_count(self, position: Position, power: str) -> int:
        """Whole builds (a half build left over buys a garrison, so it counts as one) or
        removals (a half-unit deficit needs one removal)."""
        delta = self.balance(position, power)
        if delta > 0:
            return math.ceil(delta) if self.build_sites(position, power) else 0
        return math.floor(delta)

    def build_sites(self, position: Position, power: str) -> set[str]:
        """Rule 9: any City or Town the state owns (captured, home or colony) that no other
        player's unit holds; never Delphi."""
        return {c for c in position.centres.get(power, ())
                if c != self.shrine and not self.build_site_taken(position, power, c)}

    def build_site_refusal(self, position: Position, power: str, province: str) -> str:
        if province == self.shrine:
            return "units may not be built in Delphi"
        if province not in position.centres.get(power, set()):
            return (f"{power} does not own {self.name(province)}: builds go in a City or Town "
                    "the state owns (rule 9)")
        return self.build_site_taken(position, power, province) or \
            f"{power} cannot build in {self.name(province)} now"

    def adjusting_powers(self, position: Position) -> list[str]:
        return sorted(set(position.powers()) | set(self.majors) | set(self.minors))

    def order_power(self, position: Position, power: str, order: Order) -> str:
        """An order written under a player's major (or minor) name is for whichever of its
        two states owns the centre (builds) or the unit (removals, transforms)."""
        power = power.upper()
        states = self.powers_of(self.player_of(power))
        ref = getattr(order, "unit", None)
        if not isinstance(ref, UnitRef):
            return power
        prov = ref.province
        if isinstance(order, Build):
            for p in (power, *states):
                if prov in position.centres.get(p, ()):
                    return p
            return power
        for p in (power, *states):
            if any(u.power == p and u.province == prov for u in position.units):
                return p
        return power

    def check(self, position: Position, power: str, order: Order) -> Order:
        if position.phase.kind == "A":
            power = self.order_power(position, power, order)
        if position.phase.kind == "A" and isinstance(order, Transform):
            return self._check_transform(position, power, order)
        return super().check(position, power, order)

    def check_multi_adjustment(self, position: Position, power: str, order: Order) -> Order:
        if isinstance(order, (Remove, Disband)):
            ref = self._removable(position, power, order.unit)
            a, f, g = parse_kind(ref.kind or "")
            if self.balance(position, power) >= 0 and (a or f):
                raise OrderError(f"{power} has no units to remove this winter (only garrisons "
                                 "may be disbanded at will, rule 4)")
            return Remove(ref)
        if isinstance(order, Waive):
            return order
        if isinstance(order, Build):
            if self.adjustment_count(position, power) <= 0 and not any(
                    u.power == power and "G" in u.kind for u in position.units):
                raise OrderError(f"{power} has no builds this winter")
            return Build(self.build_ref(position, power, order.unit))
        return super().check_multi_adjustment(position, power, order)

    def build_ref(self, position: Position, power: str, ref: UnitRef) -> UnitRef:
        prov = ref.province
        name = self.name(prov)
        if ref.kind is None:
            raise OrderError(f"say what to build in {name}: an army (A), a fleet (F) or a "
                             "garrison (G)")
        if prov == self.shrine:
            raise OrderError("units may not be built in Delphi")
        if prov not in self.build_sites(position, power):
            raise OrderError(self.build_site_refusal(position, power, prov))
        a, f, g = parse_kind(ref.kind)
        if sum(1 for n in (a, f, g) if n) > 1:
            raise OrderError("build one kind of unit per order")
        return self._place_build(position, power, prov, ref, a, f, g)

    def _check_transform(self, position: Position, power: str, order: Transform) -> Transform:
        prov = order.unit.province
        name = self.name(prov)
        mine = [u for u in position.units if u.power == power and u.province == prov]
        if not mine:
            raise OrderError(f"{power} has no unit in {name}")
        if prov not in self.values:
            raise OrderError(f"{name} is not a City or Town: units transform only in a "
                             "supply centre (rule 9)")
        a, f, g = parse_kind(mine[0].kind)
        frm = FLEET if order.into == ARMY else ARMY
        if (a if frm == ARMY else f) == 0:
            raise OrderError(f"{power}'s unit in {name} has no {'army' if frm == ARMY else 'fleet'} "
                             "to transform")
        if order.into == ARMY:
            return Transform(UnitRef(FLEET, mine[0].location), ARMY, prov)
        if self.board.provinces[prov].kind != "coast":
            raise OrderError(f"a fleet cannot stand in {name}: it is inland")
        coasts = self.board.provinces[prov].coasts
        loc = order.location
        if coasts:
            if "/" in mine[0].location:
                loc = mine[0].location
            elif loc not in coasts:
                raise OrderError(f"say on which coast of {name} the fleet stands "
                                 f"({' or '.join(coasts)})")
        else:
            loc = prov
        return Transform(UnitRef(ARMY, prov), FLEET, loc)

    # Adjustments in half centres: garrison disbands and removals first, then builds (a
    # garrison freed this winter pays for a build), then transforms.
    _RANK = {Remove: 0, Build: 1, Transform: 2, Waive: 3}

    def adjustment_counts(self, position: Position) -> dict[str, Any]:
        """Each power's budget: its balance in half centres (:meth:`balance`)."""
        return {p: self.balance(position, p) for p in self.adjusting_powers(position)}

    def adjustment_sequence(self, checked: list[tuple[int, str, Order]]
                            ) -> list[tuple[int, str, Order]]:
        return sorted(checked, key=lambda t: (self._RANK[type(t[2])], t[0]))

    def fleet_coast(self, order: Order) -> str | None:
        """A transform into a fleet puts one on a coast too."""
        if isinstance(order, Transform):
            return order.location if order.into == FLEET and "/" in order.location else None
        return super().fleet_coast(order)

    def apply_adjustment(self, adj: Adjustments, power: str, order: Order) -> OrderResult:
        """Removals pay into the budget, builds are paid from it, transforms cost nothing."""
        text = str(order)
        budget = adj.counts
        try:
            if isinstance(order, Remove):
                cost = self._cost(order.unit.kind)
                a, f, _ = parse_kind(order.unit.kind or "")
                if (a or f) and budget[power] >= 0:
                    raise OrderError(f"no more removals due for {power}")
                adj.units = self._take_unit(adj.units, power, order.unit)
                budget[power] += cost
                adj.removed.append(self._unit(power, order.unit))
            elif isinstance(order, Build):
                cost = self._cost(order.unit.kind)
                if budget[power] < cost:
                    raise OrderError(f"{power} has {format_value(max(budget[power], 0))} "
                                     f"to build with; {order.unit} costs {format_value(cost)}")
                budget[power] -= cost
                unit = self._unit(power, order.unit)
                adj.units = self._add_unit(adj.units, unit)
                adj.built.append(unit)
            elif isinstance(order, Transform):
                adj.units = self._take_unit(adj.units, power, order.unit)
                adj.units = self._add_unit(adj.units, self._unit(
                    power, UnitRef(order.into, order.location)))
        except OrderError as exc:
            return OrderResult(power, text, FAILS, str(exc))
        return OrderResult(power, text, SUCCEEDS)

    def civil_disorder(self, adj: Adjustments) -> None:
        """Components go until the budget is no longer negative."""
        for power, left in sorted(adj.counts.items()):
            while left < 0:
                adj.units, unit = self.take_in_disorder(adj.position, power, adj.units)
                if unit is None:
                    break
                left += self._cost(unit.kind)
                adj.removed.append(unit)
                adj.disorder.append(OrderResult(power, f"REMOVE {unit}", SUCCEEDS,
                                                "civil disorder: removal not ordered"))

    @staticmethod
    def _cost(kind: str | None) -> Fraction:
        a, f, g = parse_kind(kind or "A")
        return a + f + Fraction(g, 2)

    @staticmethod
    def _unit(power: str, ref: UnitRef) -> Unit:
        kind = format_kind(*parse_kind(ref.kind or "A"))
        return Unit(power, kind, ref.location if "F" in kind else province_of(ref.location))

    # ------------------------------------------------------------------ retreats
    def adjudicate_retreats(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        outcome = super().adjudicate_retreats(position, orders)
        sacker = position.extra.get("delphi_sacked_by")
        if sacker and outcome.disbanded:
            # The sack's units are lost only by annihilation: count the sacker's losses.
            lost = sum(sum(parse_kind(u.kind)) for u in outcome.disbanded if u.power == sacker)
            left = max(0, int(position.extra.get("delphi_units", 0)) - lost)
            outcome.position.extra["delphi_units"] = left
        return outcome


def _plain(order: Order) -> Order:
    """The order a claim ``FOR`` a state ends; any other order as it is."""
    return order.order if isinstance(order, Claimed) else order


def _destinations(order: Order) -> list[str]:
    if isinstance(order, Move):
        return [province_of(order.destination)]
    if isinstance(order, Merge):
        return [province_of(order.destination)]
    if isinstance(order, Split):
        return [province_of(p.destination) for p in order.parts if isinstance(p, Move)]
    return []


__all__ = ["BCPhase", "Claimed", "HopliteRules", "Sack", "Transform",
           "bc", "format_value", "parse_phase"]
