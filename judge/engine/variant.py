"""What a variant is to the rest of the judge, and the outcome of adjudicating a phase.

The judge (mail loop, CLI, reports) talks to variants only through :class:`Variant`. A variant
bundles its :class:`~judge.engine.board.Board` with a rules object that reads orders and
adjudicates each kind of phase; :func:`judge.variants.get_variant` finds one by name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from judge.engine.board import Board, province_of
from judge.engine.orders import ORDER_TYPES, Order, Unit, order_from_data, order_to_data
from judge.engine.position import Dislodged, Position

SUCCEEDS = "succeeds"
FAILS = "fails"
INVALID = "invalid"


@dataclass(slots=True)
class OrderResult:
    """One order's fate, as ``judge adjudicate --json`` prints it."""

    power: str
    order: str
    result: str  # SUCCEEDS | FAILS | INVALID
    reason: str = ""
    # False when the order had no effect on the board because it was refused (unreadable,
    # not a legal order for the unit) or replaced by a later order for the same unit. The
    # classic report lists only the orders that stood, as the classic judges did.
    stands: bool = True
    # False when no order was given and the result is the rules' default for the unit (it
    # holds, a dislodged unit disbands, civil disorder removes it).
    given: bool = True

    def to_json(self) -> dict[str, str]:
        return {"power": self.power, "order": self.order, "result": self.result,
                "reason": self.reason}


@dataclass(slots=True)
class Outcome:
    """Everything one adjudicated phase produced.

    ``results`` are in the order the orders were given (then the units that had none);
    ``position`` is the next position. ``dislodged`` are the units dislodged in a movement
    phase, each with where it may retreat; ``disbanded`` the units removed from the board
    (failed retreats, removals, civil disorder); ``built`` the units built.
    """

    previous: Position
    position: Position
    results: list[OrderResult]
    dislodged: list[Dislodged] = field(default_factory=list)
    disbanded: list[Unit] = field(default_factory=list)
    built: list[Unit] = field(default_factory=list)
    centre_changes: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    # The variant's own record of how it decided (standard movement: the MovementPhase, with
    # every decision, support list and dislodger), for reports that must say more or less
    # than ``results`` (Stab!'s visibility rule in variants/stab/visibility.py). None when a
    # variant does not keep one.
    details: object | None = None



def check_position(board: Board, position: Position) -> None:
    """Every name in ``position`` is on ``board``: owners are its powers (or the neutral
    holders of home centres, as Hoplite's city-states), centres its supply centres (each
    owned once), units, dislodged units, retreats and standoffs its provinces. Raises
    ValueError saying what is wrong."""
    owners = set(board.powers) | set(board.home_centres)
    known = ", ".join(board.powers)

    def power(name: str, what: str) -> None:
        if name not in owners:
            raise ValueError(f"unknown power {name!r} in {what} (the powers of "
                             f"{board.name}: {known})")

    def place(name: str | None, what: str) -> None:
        if name is not None and province_of(name) not in board.provinces:
            raise ValueError(f"unknown province {name!r} in {what}")

    owner: dict[str, str] = {}
    for who, centres in position.centres.items():
        power(who, "centres")
        for centre in sorted(centres):
            if centre not in board.supply_centres:
                raise ValueError(f"{centre!r} in the centres of {who} is not a supply centre "
                                 f"of {board.name}")
            if centre in owner:
                raise ValueError(f"centre {centre} is owned by both {owner[centre]} and {who}")
            owner[centre] = who
    for unit in position.units:
        power(unit.power, "units")
        place(unit.location, f"the units of {unit.power}")
    for d in position.dislodged:
        power(d.unit.power, "dislodged")
        place(d.unit.location, f"the dislodged units of {d.unit.power}")
        place(d.attacker_from, f"attacker_from of {d.unit.power}'s dislodged unit")
        for r in d.retreats or ():
            place(r, f"the retreats of {d.unit.power}'s dislodged unit")
    for s in position.standoffs:
        place(s, "standoffs")
    if position.winner is not None:
        power(position.winner.upper(), "winner")


@dataclass(slots=True)
class OrderLine:
    """A line a power sent, read against a position: an order, or the reason it is refused."""

    text: str
    order: Order | None = None
    error: str | None = None


class Rules(Protocol):
    """The plug-in a variant gives the engine (see ``docs/engine.md``). Most variants
    subclass :class:`judge.variants.standard.rules.StandardRules` and override its hooks."""

    def initial_position(self) -> Position: ...

    def read_position(self, data: dict) -> Position: ...

    def write_position(self, position: Position) -> dict: ...

    def read_order(self, position: Position, power: str, text: str) -> Order: ...

    def adjudicate(self, position: Position, orders: list[tuple[str, Order]]) -> Outcome: ...

    def adjustment_count(self, position: Position, power: str) -> int: ...

    def units_to_order(self, position: Position, power: str) -> list[Unit]: ...

    # Optional: ``order_types``, the stable type names of the variant's order classes and the
    # values they hold (:data:`judge.engine.orders.ORDER_TYPES` when absent), for storing
    # orders as data (``docs/engine.md``, "Orders as data").
    # Optional: ``board_of(position) -> Board``, the board a position is played on when it is
    # not always the variant's own (the rules in force change it).
    # Optional: ``validate_position(position) -> None``, raising ValueError naming what in a
    # position read from JSON play under these rules could not have produced (a phase not in
    # the calendar, an army at sea, a garrison away from its town); ``StandardRules`` has it
    # and each variant extends it (``docs/adjudication.md``, "What a position is checked for").
    # Optional: ``replaced_orders(position, power, orders) -> dict[int, int | Replaced]``,
    # which orders of one mail a later one replaces, when the variant's adjudicator decides
    # it otherwise than :func:`replaced_by_later` (see :meth:`Variant.replaced_orders`).
    # Optional: ``refused_adjustments(position, power, orders) -> dict[int, str]``, which
    # adjustment orders of one mail the adjudicator does not carry out, when it counts them
    # otherwise than one build or removal per line and one order per space (usually
    # :func:`refused_in_adjudication`; see :meth:`Variant.refused_adjustments`).


@dataclass(frozen=True, slots=True)
class Replaced:
    """An order of one mail that later orders replaced: ``by`` the index of the last of them;
    ``rest`` what of the order still stands when they replaced it for only some of its units
    (Stack 'em: ``2A WAR - UKR`` then ``A WAR - SIL`` leaves ``A WAR - UKR``), else None."""

    by: int
    rest: Order | None = None


def refused_in_adjudication(rules: Rules, position: Position, power: str,
                            orders: list[Order]) -> dict[int, str]:
    """The adjustment orders of one mail (read and checked, in written order) that the
    adjudicator, given them alone, does not carry out: index -> its reason. A variant whose
    adjustments are counted otherwise than one per line (multiple units, half-centre
    budgets) gives this as its ``refused_adjustments``, so the mail keeps exactly the
    orders the adjudicator obeys, by the adjudicator's own code."""
    results = rules.adjudicate(position, [(power, o) for o in orders]).results
    return {k: r.reason or "not carried out" for k, r in enumerate(results[:len(orders)])
            if r.result != SUCCEEDS}


def replaced_by_later(position: Position, units: list[Unit], orders: list[Order],
                      spaces: Callable[[Order], tuple[str, ...]] | None = None
                      ) -> dict[int, int]:
    """The judge's general rule for one mail: a later order for a unit replaces the earlier
    one. ``orders`` are one power's orders, read and checked, in the order written; ``units``
    the units it orders; ``spaces(order)`` the spaces of the units an order is for (default:
    its unit's; Chess Dip's castling is for a king and a rook). A space takes as many orders
    as it holds of ``units`` (Stack 'em: one per unit); past that, an order replaces the
    earliest one still standing there, and an order replaced for one of its units is replaced
    for all. Returns the index of each replaced order -> the index of the order that
    replaced it."""
    stacked = Counter(province_of(u.location) for u in units) \
        if position.phase.kind in "MR" else Counter()
    live: dict[str, list[int]] = {}  # space -> its orders still standing, in order
    replaced: dict[int, int] = {}
    for i, order in enumerate(orders):
        if spaces is not None:
            keys = spaces(order)
        else:
            unit = getattr(order, "unit", None)
            keys = (province_of(unit.location),) if unit is not None else ()
        for space in keys:
            earlier = [j for j in live.get(space, []) if j not in replaced]
            if len(earlier) >= max(1, stacked[space]):
                replaced[earlier.pop(0)] = i
            live[space] = [*earlier, i]
    return replaced


@dataclass(slots=True)
class Variant:
    name: str
    title: str
    description: str
    board: Board
    rules: Rules
    # what a picture of the board is, and shows, in the variant's own words (the web
    # archive's text alternative: "Map of game X after S1901M: every unit and supply centre")
    picture_name: str = "Map"
    picture_shows: str = "every unit and supply centre"

    def initial_position(self) -> Position:
        """The first position, named for this variant (rules shared by several variants,
        StandardRules on the standard board, know only their board's name)."""
        position = self.rules.initial_position()
        position.variant = self.name
        return position

    def read_position(self, data: dict) -> Position:
        """A position from the contract's JSON (a variant may write units its own way,
        e.g. ``2A BUR``), checked against this variant's board (:func:`check_position`) and
        its rules (their ``validate_position``); raises ValueError with a one-line reason
        when it is malformed."""
        from judge.engine.position import check_shape

        check_shape(data)
        declared = data.get("variant")
        if declared is not None and declared.lower() not in (self.name, self.board.name):
            raise ValueError(f"the position is for variant {declared!r}, not {self.name!r}")
        position = self.rules.read_position(data)
        # a position is this variant's, whatever board name it was written with (or none):
        # the variant's name is what finds its game flow and what the positions it writes say
        position.variant = self.name
        # a variant whose board changes during the game (Dipnomicy's rules add centres) says
        # which board a position is on
        board_of = getattr(self.rules, "board_of", None)
        check_position(board_of(position) if board_of else self.board, position)
        # then what the rules say play can produce: the one place every position read from
        # JSON (files, --batch, a game's storage) is checked, before anything adjudicates it
        validate = getattr(self.rules, "validate_position", None)
        if validate is not None:
            validate(position)
        return position

    def write_position(self, position: Position) -> dict:
        """The contract's JSON for a position, as this variant writes it."""
        return self.rules.write_position(position)

    def outcome_json(self, outcome: Outcome) -> dict:
        """What ``judge adjudicate --json`` prints: ``{"results": [...], "position": {...}}``."""
        return {"results": [r.to_json() for r in outcome.results],
                "position": self.write_position(outcome.position)}

    def read_order(self, position: Position, power: str, text: str) -> Order:
        """Read and check one order line for ``power``; raises OrderError with the reason."""
        return self.rules.read_order(position, power, text)

    @property
    def order_types(self) -> dict[str, type]:
        """The stable type names of this variant's orders (and the values they hold)."""
        return getattr(self.rules, "order_types", ORDER_TYPES)

    def order_to_data(self, order: Order) -> dict:
        """``order`` as plain JSON, as it is stored (``docs/engine.md``, "Orders as data");
        ``str(self.order_from_data(data))`` is its canonical text."""
        return order_to_data(order, self.order_types)

    def order_from_data(self, data: dict) -> Order:
        """The order :meth:`order_to_data` wrote, as it was read and checked: no text is
        parsed and nothing is checked again. ValueError when ``data`` is not one."""
        return order_from_data(data, self.order_types)

    def read_orders(self, position: Position, power: str, lines: list[str]) -> list[OrderLine]:
        """Read every non-blank line; each becomes an order or carries its own error."""
        from judge.engine.errors import OrderError

        out = []
        for line in lines:
            text = line.strip()
            if not text:
                continue
            try:
                out.append(OrderLine(text, order=self.read_order(position, power, text)))
            except OrderError as exc:
                out.append(OrderLine(text, error=str(exc)))
        return out

    def units_to_order(self, position: Position, power: str) -> list[Unit]:
        """The units ``power`` should order this phase (movement: all; retreat: dislodged)."""
        return self.rules.units_to_order(position, power)

    def order_spaces(self, power: str, order: Order) -> tuple[str, ...]:
        """The spaces of the units ``power``'s checked order is for: the rules' ``order_keys``
        (a merge is for each unit it names, castling for a king and a rook), else its unit's."""
        hook = getattr(self.rules, "order_keys", None)
        if hook is not None:
            try:
                return tuple(hook(power, order))
            except AttributeError:  # an order for no unit (WAIVE)
                return ()
        unit = getattr(order, "unit", None)
        return (province_of(unit.location),) if unit is not None else ()

    def replaced_orders(self, position: Position, power: str, orders: list[Order]
                        ) -> dict[int, Replaced]:
        """Which of ``power``'s orders of one mail (read and checked, in the order written) a
        later one replaces: index -> :class:`Replaced` (the later order, and what of the
        order still stands, if anything). The judge reading a mail must keep exactly the
        orders the adjudicator obeys, or the orders kept would give another result when
        listed in another order. The rules' ``replaced_orders`` when they have one
        (Multiplicity: a MERGE is an order for each unit it names; Stack 'em: an order for
        each unit of a stack it counts), else :func:`replaced_by_later`."""
        hook = getattr(self.rules, "replaced_orders", None)
        if hook is not None:
            found = hook(position, power, orders)
        else:
            found = replaced_by_later(position, self.units_to_order(position, power), orders,
                                      partial(self.order_spaces, power))
        return {k: v if isinstance(v, Replaced) else Replaced(v) for k, v in found.items()}

    def refused_adjustments(self, position: Position, power: str, orders: list[Order]
                            ) -> dict[int, str] | None:
        """Which of ``power``'s adjustment orders of one mail (read and checked, in the order
        written) the adjudicator does not carry out, index -> reason, by the rules'
        ``refused_adjustments`` (Multiplicity, Hoplite, Stack 'em: builds and removals
        counted by units or by cost, :func:`refused_in_adjudication`); None when the rules
        have none, and the mail reader's general rule holds (one order per space, as many
        orders as builds or removals due, the first ones written)."""
        hook = getattr(self.rules, "refused_adjustments", None)
        return hook(position, power, orders) if hook is not None else None

    def adjustment_count(self, position: Position, power: str) -> int:
        """Builds allowed (> 0) or removals due (< 0) for ``power`` in an adjustment phase."""
        return self.rules.adjustment_count(position, power)

    def adjudicate(self, position: Position,
                   orders: dict[str, list[Order]] | list[tuple[str, Order]]) -> Outcome:
        """Adjudicate a phase from read orders (units without orders hold, unordered retreats
        disband, unordered removals go by civil disorder).

        ``results[k]`` of the outcome is the fate of the k-th order given (a dict is taken
        power by power); results for units that had no order follow.
        """
        if isinstance(orders, dict):
            orders = [(power, o) for power, os in orders.items() for o in os]
        return self.rules.adjudicate(position, orders)

    def adjudicate_lines(self, position: Position, lines: Sequence[tuple[str, str | Order]]
                         ) -> Outcome:
        """Adjudicate from order lines as players write them: ``[(power, line), ...]``; a
        line may also be an order already read and checked (stored as data), taken as it is.

        One result per line, in order: a line that cannot be read is ``invalid``, one that
        reads but cannot be given (not adjacent, not your unit...) ``fails``, each with its
        reason; the rest as adjudicated.
        """
        from judge.engine.errors import OrderError, OrderSyntaxError

        slots: list[OrderResult | int] = []
        orders: list[tuple[str, Order]] = []
        for power, line in lines:
            power = power.upper()
            if not isinstance(line, str):
                slots.append(len(orders))
                orders.append((power, line))
                continue
            try:
                order = self.read_order(position, power, line)
            except OrderSyntaxError as exc:
                slots.append(OrderResult(power, line.strip(), INVALID, str(exc), stands=False))
                continue
            except OrderError as exc:
                slots.append(OrderResult(power, line.strip(), FAILS, str(exc), stands=False))
                continue
            slots.append(len(orders))
            orders.append((power, order))
        outcome = self.rules.adjudicate(position, orders)
        given = outcome.results[: len(orders)]
        rest = outcome.results[len(orders):]
        outcome.results = [given[s] if isinstance(s, int) else s for s in slots] + rest
        return outcome
