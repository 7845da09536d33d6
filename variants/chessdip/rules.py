"""The rules of Chess Dip: order validation, the movement and build phases, centres, victory.

:class:`ChessRules` is the plug-in the engine calls (the ``Rules`` protocol of
:mod:`judge.engine.variant`). Movement is decided by
:class:`~judge.variants.chessdip.movement.ChessMovement` on the generic resolver. There is no retreat
phase: dislodged pieces are disbanded at once (rules §2.2).

Position keys of this variant (``Position.extra``), carried from phase to phase:

* ``moved``: squares of kings and rooks that have moved (castling rights); absent means none
  has (DESIGN.md);
* ``en_passant``: the pawns' two-square moves of the last movement phase, each
  ``{"power", "from", "via", "to"}``;
* ``home_centres``: home-rank centres that a power gained by promoting a pawn there
  (rules §4.4), ``{power: [square, ...]}``.

Centres (the project's decision, issue 8): both powers of a side share its 9 home-rank
centres. After each Fall a power counts the home-rank centres of its side its own pieces
occupy, the centres on ranks 3-6 it owns (ordinary Fall occupation), and the centres it gained
by promotion; it may build on any unoccupied home-rank centre of its side not taken by a
promotion, and on the centres it gained by promotion.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from judge.engine.errors import OrderError
from judge.engine.events import Event, standard_events
from judge.engine.orders import Build, Order, Remove, Unit, UnitRef, Waive, unit_of
from judge.engine.position import Dislodged, Phase, Position, check_calendar, shown
from judge.engine.variant import FAILS, SUCCEEDS, OrderResult, Outcome
from judge.variants.chessdip.board import FILES, PIECE_NAMES, ChessBoard, coords, is_square
from judge.variants.chessdip.movement import ChessMovement
from judge.variants.chessdip.orders import (
    ATTACK,
    MOVEMENT,
    TRAVEL,
    Castle,
    ChessHold,
    ChessMove,
    ChessSupport,
    ConvoyAct,
    EnPassant,
    HoldAct,
    MoveAct,
    Promote,
)
from judge.variants.chessdip.parse import parse_order
from judge.variants.standard.rules import Adjustments, StandardRules

_GEMS = {"ENGLAND": "E", "ITALY": "I", "FRANCE": "F", "SCANDINAVIA": "S"}
_REMOVAL_ORDER = "PNBRK"  # civil disorder removes pawns first and kings last


def _a(kind: str) -> str:
    name = PIECE_NAMES[kind]
    return f"a {name}"


def normalise(position: Position) -> Position:
    """The position with squares in lower case (``Position.from_json`` upper-cases them)."""
    if all(u.location.islower() for u in position.units) and all(
            c.islower() for cs in position.centres.values() for c in cs):
        return position
    return position.following(
        [Unit(u.power, u.kind.upper(), u.location.lower()) for u in position.units],
        centres={p: {c.lower() for c in cs} for p, cs in position.centres.items()},
        dislodged=[Dislodged(Unit(d.unit.power, d.unit.kind.upper(), d.unit.location.lower()),
                             (d.attacker_from or "").lower() or None, d.retreats)
                   for d in position.dislodged],
        winner=position.winner)


def _set_or_drop(extra: dict[str, Any], key: str, value: list) -> None:
    """Set a variant key of a position, or drop it when ``value`` is empty."""
    if value:
        extra[key] = value
    else:
        extra.pop(key, None)


class ChessRules(StandardRules):
    """Chess Dip: see the module docstring and ``description.md``. The phases are the
    standard skeletons; this class overrides order checking, centres, the calendar and the
    hooks named in ``docs/engine.md``."""

    board: ChessBoard
    # what Chess Dip reads: its own orders, and the engine's builds, removals and waives
    order_types = {
        **{name: StandardRules.order_types[name] for name in ("unit", "build", "remove", "waive")},
        "chess_hold": ChessHold, "chess_move": ChessMove, "chess_support": ChessSupport,
        "en_passant": EnPassant, "castle": Castle, "promote": Promote,
        "act_hold": HoldAct, "act_move": MoveAct, "act_convoy": ConvoyAct}

    def __init__(self, board: ChessBoard) -> None:
        super().__init__(board)

    # ------------------------------------------------------------ positions
    def initial_position(self) -> Position:
        """The pieces of :attr:`starting_units` (or the map's), the centres they count."""
        position = super().initial_position()
        position.centres = self._count_centres(position, {}, {})
        return position

    def starting_unit(self, power: str, text: str) -> Unit:
        kind, square = text.split()
        return Unit(power, kind, square)

    def read_position(self, data: dict) -> Position:
        """A position from the contract's JSON, pieces written ``K e1`` (``e2`` alone is a
        pawn); raises ValueError with a one-line reason when it is malformed."""
        b = self.board
        try:
            plain = {k: v for k, v in data.items() if k not in ("units", "dislodged")}
            position = Position.from_json(plain)
            units = [self._read_piece(power, text)
                     for power, texts in (data.get("units") or {}).items() for text in texts]
            dislodged = []
            for power, entries in (data.get("dislodged") or {}).items():
                for entry in entries:
                    entry = {"unit": entry} if isinstance(entry, str) else entry
                    dislodged.append(Dislodged(self._read_piece(power, entry["unit"]),
                                               (entry.get("attacker_from") or "").lower()
                                               or None, ()))
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed position: {exc}") from exc
        seen: set[str] = set()
        for u in units:
            if u.location in seen:
                raise ValueError(f"two pieces on {u.location}")
            seen.add(u.location)
        for power in {u.power for u in units} | set(position.centres):
            if power not in b.powers:
                raise ValueError(f"unknown power {power!r}; Chess Dip has {', '.join(b.powers)}")
        for cs in position.centres.values():
            for c in cs:
                if c.lower() not in b.supply_centres:
                    raise ValueError(f"{c.lower()} is not a supply centre")
        position.units = units
        position.dislodged = dislodged
        return normalise(position)

    def _read_piece(self, power: str, text: str) -> Unit:
        parts = str(text).split()
        if len(parts) == 1:
            parts = ["P", *parts]
        if len(parts) != 2 or parts[0].upper() not in PIECE_NAMES or not is_square(
                parts[1].lower()):
            raise ValueError(f"not a piece: {text!r} (a piece is written {', '.join(PIECE_NAMES)} "
                             "and its square, e.g. 'K e1' or 'P c2')")
        return Unit(power.upper(), parts[0].upper(), parts[1].lower())

    def write_position(self, position: Position) -> dict:
        """The contract's JSON: pieces as the rules write them, ``K e1``."""
        return normalise(position).to_json()

    # ------------------------------------------------------------ validation
    calendar = ("SM", "FM", "WA")  # no retreat phase (rules §2.2)

    def validate_position(self, position: Position) -> None:
        """The calendar (no retreat phase), then the keys of
        the module docstring: ``moved`` lists squares, ``en_passant`` two-square pawn moves
        of a power the way its pawns go, ``home_centres`` centres of a power; each as the
        rules write them (lower-case squares). Not the standard rule that only a retreat
        phase has dislodged units: here the position after a movement lists the pieces it
        dislodged (and disbanded at once), whatever phase comes next, and reads back."""
        check_calendar(position, self.calendar, self.first_phase)
        b, extra = self.board, position.extra

        def squares(value: Any, what: str) -> list[str]:
            if not isinstance(value, list) or not all(
                    isinstance(sq, str) and is_square(sq) for sq in value):
                raise ValueError(f"\"{what}\" must be a list of squares such as \"e1\", not "
                                 f"{shown(value)}")
            if len(set(value)) != len(value):
                raise ValueError(f"\"{what}\" lists a square twice: {shown(value)}")
            return value

        squares(extra.get("moved", []), "moved")
        passes = extra.get("en_passant", [])
        if not isinstance(passes, list):
            raise ValueError(f"\"en_passant\" must be a list of {{\"power\", \"from\", \"via\", "
                             f"\"to\"}} objects, not {shown(passes)}")
        for rec in passes:
            if not isinstance(rec, dict) or set(rec) != {"power", "from", "via", "to"}:
                raise ValueError(f"an \"en_passant\" entry must be {{\"power\", \"from\", "
                                 f"\"via\", \"to\"}}, not {shown(rec)}")
            power = rec["power"]
            if power not in b.powers:
                raise ValueError(f"unknown power {shown(power)} in \"en_passant\"")
            start, via, to = squares([rec["from"], rec["via"], rec["to"]], "en_passant")
            step = b.direction(power)
            (f0, r0), (f1, r1), (f2, r2) = coords(start), coords(via), coords(to)
            if not f0 == f1 == f2 or (r1 - r0, r2 - r0) != (step, 2 * step):
                raise ValueError(f"\"en_passant\": {power}'s pawns do not move two squares "
                                 f"from {start} through {via} to {to}")
        gained = extra.get("home_centres", {})
        if not isinstance(gained, dict):
            raise ValueError(f"\"home_centres\" must be an object of power: list of "
                             f"centres, not {shown(gained)}")
        for power, centres in gained.items():
            if power not in b.powers:
                raise ValueError(f"unknown power {shown(power)} in \"home_centres\"")
            for sq in squares(centres, "home_centres"):
                if sq not in b.supply_centres:
                    raise ValueError(f"\"home_centres\" of {power}: {sq} is not a centre")

    # --------------------------------------------------------- order reading
    def read_order(self, position: Position, power: str, text: str) -> Order:
        position = normalise(position)
        return self.check(position, power, parse_order(text, position.phase.kind))

    def check(self, position: Position, power: str, order: Order) -> Order:
        """Order validation (rules §3.3): the true order, or OrderError with the reason."""
        kind = position.phase.kind
        if kind == "M":
            return self._check_piece_order(position, power, order)
        if kind == "A":
            return self.check_adjustment(position, power, order)
        raise OrderError("Chess Dip has no retreat phase: dislodged pieces are disbanded")

    def _bind_piece(self, at: dict[str, Unit], power: str, ref: UnitRef,
              empty: str | None = "P") -> tuple[Unit, UnitRef]:
        """The piece ``ref`` names. Rules §3.3: an empty piece letter means a pawn; a removal
        (``empty=None``) may name the piece by its square alone."""
        unit = at.get(ref.location)
        if unit is None:
            raise OrderError(f"there is no piece on {ref.location}")
        kind = ref.kind or empty or unit.kind
        if unit.kind != kind:
            raise OrderError(f"the piece on {ref.location} is {_a(unit.kind)}, not {_a(kind)}")
        if unit.power != power:
            raise OrderError(f"the {PIECE_NAMES[unit.kind]} on {ref.location} is not yours "
                             f"(it is {unit.power}'s)")
        return unit, UnitRef(unit.kind, unit.location)

    def _check_piece_order(self, position: Position, power: str, order: Order) -> Order:
        if not isinstance(order, MOVEMENT):
            raise OrderError(f"'{order}' is not a movement order")
        b = self.board
        at = {u.location: u for u in position.units}
        if isinstance(order, Castle):
            return self._check_castle(position, at, power, order)
        unit, ref = self._bind_piece(at, power, order.unit)
        here, what = unit.location, PIECE_NAMES[unit.kind]
        if isinstance(order, ChessHold):
            return ChessHold(ref)
        if isinstance(order, ChessMove):
            dest = order.dest
            if b.move_path(unit.kind, power, here, dest) is not None:
                if unit.kind == "P":
                    if order.code == ATTACK:
                        raise OrderError(f"a pawn attacks diagonally; {here} - {dest} "
                                         "is a travel forwards")
                    return ChessMove(ref, dest, TRAVEL)
                if order.code == TRAVEL:
                    raise OrderError("only pawns travel (and pieces castling: O-O, O-O-O)")
                return ChessMove(ref, dest, ATTACK)
            if unit.kind == "P" and dest in b.pawn_attacks(power, here):
                if order.code == TRAVEL:
                    raise OrderError("a pawn travels only forwards; diagonally it attacks")
                return ChessMove(ref, dest, ATTACK)
            if unit.kind == "P":
                raise OrderError(f"a pawn on {here} cannot move to {dest}: it travels forwards "
                                 "(two squares from its side's first two ranks) and attacks "
                                 "one square diagonally forwards")
            raise OrderError(f"a {what} on {here} cannot move to {dest}")
        if isinstance(order, EnPassant):
            return self._check_en_passant(position, at, power, unit, ref, order)
        assert isinstance(order, ChessSupport)
        landing = order.landing
        if landing == here:
            raise OrderError("a piece cannot support an order landing on its own square")
        if b.reach_path(unit.kind, power, here, landing) is None:
            if unit.kind == "P":
                raise OrderError(f"a pawn on {here} supports only one square diagonally "
                                 f"forwards, not {landing}")
            raise OrderError(f"a {what} on {here} cannot reach {landing}, so it cannot "
                             "support there")
        return ChessSupport(ref, order.square, order.action)

    def _check_en_passant(self, position: Position, at: dict[str, Unit], power: str,
                          unit: Unit, ref: UnitRef, order: EnPassant) -> Order:
        if unit.kind != "P":
            raise OrderError("only a pawn can take en passant")
        if order.via not in self.board.pawn_attacks(power, unit.location):
            raise OrderError(f"a pawn on {unit.location} cannot attack {order.via}, so it "
                             "cannot take en passant through it")
        for rec in position.extra.get("en_passant") or ():
            if rec.get("via") == order.via and rec.get("to") == order.capture:
                passed = at.get(order.capture)
                if passed is None or passed.kind != "P" or passed.power != rec.get("power"):
                    raise OrderError(f"the pawn that passed {order.via} is no longer on "
                                     f"{order.capture}")
                if passed.power == power:
                    raise OrderError("en passant is taken against an opponent's pawn")
                return EnPassant(ref, order.via, order.capture)
        raise OrderError(f"no pawn passed {order.via} to land on {order.capture} with a "
                         "two-square move in the previous movement phase")

    def _check_castle(self, position: Position, at: dict[str, Unit], power: str,
                      order: Castle) -> Order:
        c = self.board.castlings[power][order.name]
        moved = set(position.extra.get("moved") or ())
        king, rook = at.get(c.king_from), at.get(c.rook_from)
        if king is None or king.kind != "K" or king.power != power:
            raise OrderError(f"{order.name} needs your king on {c.king_from}")
        if rook is None or rook.kind != "R" or rook.power != power:
            raise OrderError(f"{order.name} needs your rook on {c.rook_from}")
        if c.king_from in moved:
            raise OrderError(f"the king on {c.king_from} has moved: it cannot castle")
        if c.rook_from in moved:
            raise OrderError(f"the rook on {c.rook_from} has moved: it cannot castle")
        return Castle(order.name)

    # ------------------------------------------------------------ adjustments
    def captured(self, position: Position) -> dict[str, str]:
        """Home-rank centre -> the power that gained it by promotion."""
        return {sq: p for p, sqs in (position.extra.get("home_centres") or {}).items()
                for sq in sqs}

    def build_sites(self, position: Position, power: str) -> set[str]:
        """Where ``power`` may build now: unoccupied home-rank centres of its side not taken
        by a promotion, and unoccupied centres it gained by promotion."""
        position = normalise(position)
        taken = self.captured(position)
        occupied = {u.location for u in position.units}
        side = self.board.side(power)
        out = {c for c in self.board.home_rank_centres[side] if c not in taken}
        out |= {c for c, p in taken.items() if p == power}
        return out - occupied

    def build_squares(self, position: Position, power: str) -> list[str]:
        """:meth:`build_sites`, sorted."""
        return sorted(self.build_sites(position, power))

    def build_site_refusal(self, position: Position, power: str, province: str) -> str:
        if any(u.location == province for u in position.units):
            return f"{province} is occupied"
        taken = self.captured(normalise(position)).get(province)
        if taken and taken != power:
            return f"{province} is {taken}'s home centre now (a pawn promoted there)"
        if province not in self.board.supply_centres:
            return f"{province} is not a supply centre"
        return f"{province} is not a home centre of {power}'s side"

    def adjustment_count(self, position: Position, power: str) -> int:
        position = normalise(position)
        owned = len(position.centres.get(power, ()))
        units = sum(1 for u in position.units if u.power == power)
        delta = owned - units
        if delta <= 0:
            return delta
        return min(delta, len(self.build_sites(position, power)))

    def promotions_due(self, position: Position) -> list[Unit]:
        b = self.board
        position = normalise(position)
        return [u for u in position.units
                if u.kind == "P" and int(u.location[1]) == b.promotion_rank(u.power)]

    def units_to_order(self, position: Position, power: str) -> list[Unit]:
        position = normalise(position)
        if position.phase.kind == "M":
            return [u for u in position.units if u.power == power]
        return [u for u in self.promotions_due(position) if u.power == power]

    def check_adjustment(self, position: Position, power: str, order: Order) -> Order:
        if isinstance(order, Promote):
            at = {u.location: u for u in position.units}
            unit, ref = self._bind_piece(at, power, order.unit)
            if unit.kind != "P" or int(unit.location[1]) != self.board.promotion_rank(power):
                raise OrderError(f"the pawn on {unit.location} is not on its last rank")
            if order.kind not in self.board.promotion_kinds:
                raise OrderError("a pawn is promoted to a knight, bishop or rook (N, B or R)")
            return Promote(ref, order.kind)
        count = self.adjustment_count(position, power)
        if isinstance(order, Waive):
            if count <= 0:
                raise OrderError(f"{power} has no builds to waive")
            return order
        if isinstance(order, Remove):
            if count >= 0:
                raise OrderError(f"{power} has no pieces to remove this winter")
            at = {u.location: u for u in position.units}
            unit, ref = self._bind_piece(at, power, order.unit, empty=None)
            return Remove(ref)
        if not isinstance(order, Build):
            raise OrderError(f"'{order}' is not possible in the build phase: build, remove, "
                             "waive or promote")
        sq, kind = order.unit.location, order.unit.kind
        if count <= 0:
            raise OrderError(f"{power} has no builds this winter")
        if kind is None:
            raise OrderError(f"say which piece to build on {sq}: K, N, B, R or P")
        if kind not in self.board.buildable_kinds:
            raise OrderError(f"{kind} is not a Chess Dip piece")
        if sq not in self.build_sites(position, power):
            raise OrderError(self.build_site_refusal(position, power, sq))
        return Build(UnitRef(kind, sq))

    # ------------------------------------------------------------ adjudication
    # The standard skeletons (docs/engine.md, "The phases: skeletons and hooks"), with the
    # hooks below: an order may be for two pieces (castling), dislodged pieces are disbanded
    # at once, and an adjustment phase also promotes pawns.
    REPLACED_REASON = "replaced by a later order for the same piece"

    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome:
        position = normalise(position)
        if position.phase.kind not in "MA":
            raise ValueError("Chess Dip has no retreat phase")
        return super().adjudicate(position, [(power.upper(), order) for power, order in orders])

    def order_checker(self, position: Position) -> Callable[[str, Order], Order]:
        return partial(self.check, position)

    def order_keys(self, power: str, order: Order) -> tuple[str, ...]:
        """The squares of the pieces an order is for (castling: king and rook)."""
        if isinstance(order, Castle):
            c = self.board.castlings[power][order.name]
            return (c.king_from, c.rook_from)
        return (unit_of(order).location,)

    def adjudicate_movement(self, position: Position,
                             orders: list[tuple[str, Order]]) -> Outcome:
        units = position.units
        key = {u.location: i for i, u in enumerate(units)}
        results: list[OrderResult] = []
        chosen, slot = self.checked_orders(position, orders, results, key)
        # One line per order as given: None for one refused or replaced.
        lines: list[tuple[str, Order] | None] = [None] * len(results)
        for i, k in slot.items():
            lines[k] = (results[k].power, chosen[i])
        phase = ChessMovement(self.board, units, lines)
        self.write_verdicts(phase, slot, results)  # type: ignore[arg-type]
        return self.board_after_moves(position, phase, results,  # type: ignore[arg-type]
                                      details=phase)

    def dislodgements(self, phase: Any, after: list[Unit], beaten: list[tuple[Unit, int]]
                      ) -> tuple[list[Dislodged], frozenset[str]]:
        """Rules §2.2: dislodged pieces are disbanded at once: no retreats, no standoffs."""
        return [Dislodged(unit, phase.sq[by], ()) for unit, by in beaten], frozenset()

    def after_movement(self, outcome: Outcome) -> Outcome:
        """No retreat phase: the dislodged are disbanded. The castling marks (``moved``) and
        the pawns' two-square moves (``en_passant``) are brought up to date; then the
        calendar."""
        position, nxt, phase = outcome.previous, outcome.position, outcome.details
        assert isinstance(phase, ChessMovement)
        if len({u.location for u in nxt.units}) != len(nxt.units):  # pragma: no cover
            raise AssertionError("two pieces ended on one square")
        outcome.disbanded = [d.unit for d in outcome.dislodged]
        moved_before = set(position.extra.get("moved") or ())
        moved_now: set[str] = set()
        passes: list[dict[str, str]] = []
        for i, u in enumerate(position.units):
            if phase.dislodger(i) is not None:
                continue
            where = phase.final_square(i)
            if u.kind in "KR" and (where != u.location or u.location in moved_before):
                moved_now.add(where)
            o = phase.leaves[i]
            if (u.kind == "P" and where != u.location and phase.mtype[o] == TRAVEL
                    and len(phase.inter[o]) == 1):
                passes.append({"power": u.power, "from": u.location,
                               "via": phase.inter[o][0], "to": where})
        _set_or_drop(nxt.extra, "moved", sorted(moved_now))
        _set_or_drop(nxt.extra, "en_passant", sorted(passes, key=lambda p: p["to"]))
        self.advance_calendar(nxt, outcome)
        return outcome

    def apply_adjustment(self, adj: Adjustments, power: str, order: Order) -> OrderResult:
        """A promotion is noted (``adj.notes["promoted"]``: square -> kind) and made at the
        end (:meth:`adjustments_done`); builds and removals as in standard play, one per
        square."""
        if not isinstance(order, Promote):
            return super().apply_adjustment(adj, power, order)
        promoted = adj.notes.setdefault("promoted", {})
        sq = order.unit.location
        if sq in promoted:
            return OrderResult(power, str(order), FAILS,
                               "this pawn already has a promotion order")
        promoted[sq] = order.kind
        return OrderResult(power, str(order), SUCCEEDS)

    def adjustment_taken_reason(self, order: Build | Remove) -> str:
        return f"a piece was already built on or removed from {order.unit.location}"

    def adjustments_done(self, adj: Adjustments) -> None:
        """Rules §4.4: a pawn on its last rank *must* be promoted; unordered, it becomes a
        knight (the project's default, the one piece whose moves need no free path). Newly
        built pieces have not moved: they may castle (rules §3.3.2)."""
        due = self.promotions_due(adj.position)
        promoted = adj.notes.get("promoted", {})
        for n, u in enumerate(adj.units):
            if u in due:
                kind = promoted.get(u.location)
                if kind is None:
                    kind = "N"
                    adj.disorder.append(OrderResult(
                        u.power, str(Promote(UnitRef("P", u.location), "N")), SUCCEEDS,
                        "no promotion order: promoted to a knight"))
                adj.units[n] = Unit(u.power, kind, u.location)
        fresh = {u.location for u in adj.built} | {u.location for u in adj.removed}
        extra = dict(adj.position.extra)
        _set_or_drop(extra, "moved", [sq for sq in extra.get("moved") or () if sq not in fresh])
        adj.extra = extra

    def civil_disorder_removals(self, position: Position, power: str, units: list[Unit],
                                count: int) -> list[Unit]:
        """Farthest (in king steps) from any centre the power counts first; pawns before
        knights, bishops, rooks and kings at equal distance; then by square."""
        owned = position.centres.get(power, set()) or set(self.board.supply_centres)

        def distance(u: Unit) -> int:
            f, r = coords(u.location)
            return min(max(abs(f - coords(c)[0]), abs(r - coords(c)[1])) for c in owned)

        mine = [u for u in units if u.power == power]
        mine.sort(key=lambda u: (-distance(u), _REMOVAL_ORDER.index(u.kind), u.location))
        return mine[:count]

    # ---------------------------------------------------------------- calendar
    def advance_calendar(self, nxt: Position, outcome: Outcome) -> None:
        phase = nxt.phase
        if phase.kind == "M" and phase.season == "S":
            nxt.phase = Phase("F", phase.year, "M")
            return
        if phase.kind == "M":
            self.update_centres(nxt, outcome)
            if nxt.winner is None and (self.promotions_due(nxt) or any(
                    self.adjustment_count(nxt, p) != 0 for p in self.board.powers)):
                nxt.phase = Phase("W", phase.year, "A")
                return
        nxt.phase = Phase("S", phase.year + 1, "M")

    def _count_centres(self, position: Position, previous: dict[str, str],
                       captured: dict[str, str]) -> dict[str, set[str]]:
        b = self.board
        at = {u.location: u for u in position.units}
        owner: dict[str, str] = {}
        for c in b.supply_centres:
            u = at.get(c)
            side = next((s for s, cs in b.home_rank_centres.items() if c in cs), None)
            if c in captured:
                owner[c] = captured[c]
            elif side is not None:
                if u is not None and b.side(u.power) == side:
                    owner[c] = u.power
            elif u is not None:
                owner[c] = u.power
            elif c in previous:
                owner[c] = previous[c]
        centres: dict[str, set[str]] = {}
        for c, p in owner.items():
            centres.setdefault(p, set()).add(c)
        return centres

    def update_centres(self, position: Position, outcome: Outcome) -> None:
        """After Fall: promotions claim centres, then every power's centres are counted."""
        b = self.board
        captured = self.captured(position)
        for u in self.promotions_due(position):
            if u.location in b.supply_centres:
                # Rules §4.4: the centre becomes a home centre of the pawn's power.
                captured[u.location] = u.power
        if captured:
            gained: dict[str, list[str]] = {}
            for sq, p in sorted(captured.items()):
                gained.setdefault(p, []).append(sq)
            position.extra["home_centres"] = gained
        previous = {c: p for p, cs in position.centres.items() for c in cs}
        centres = self._count_centres(position, previous, captured)
        for c in b.supply_centres:
            before = previous.get(c)
            after = next((p for p, cs in centres.items() if c in cs), None)
            if before != after and after is not None:
                outcome.centre_changes[c] = (before, after)
        position.centres = centres
        leaders = [p for p, cs in centres.items() if len(cs) >= b.victory_centres]
        if leaders:
            position.winner = max(leaders, key=lambda p: len(centres[p]))

    # ------------------------------------------------------------- reporting
    def events(self, outcome: Outcome, orders: list[tuple[str, Order]]) -> list[Event]:
        """The report's events: the standard ones (everything public), and the board after
        the phase as a chess diagram, since players think in squares."""
        return [*standard_events(outcome, orders),
                Event("diagram", {"text": self.diagram(outcome.position)})]

    def diagram(self, position: Position) -> str:
        """The board as a text chess diagram: each piece as its power's initial and its
        letter (``IK`` Italy's king), ``*`` an empty supply centre, ``.`` an empty square."""
        position = normalise(position)
        at = {u.location: u for u in position.units}
        rows = ["    " + "   ".join(FILES)]
        for rank in range(8, 0, -1):
            cells = []
            for f in FILES:
                sq = f"{f}{rank}"
                u = at.get(sq)
                if u is not None:
                    cells.append(f"{_GEMS.get(u.power, u.power[0])}{u.kind}")
                else:
                    cells.append(" *" if sq in self.board.supply_centres else " .")
            rows.append(f"{rank}  " + "  ".join(cells) + f"  {rank}")
        rows.append(rows[0])
        legend = ", ".join(f"{g} {p.title()}" for p, g in _GEMS.items())
        return "\n".join(rows) + f"\n({legend}; * empty supply centre)"
