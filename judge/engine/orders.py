"""Units and orders: small immutable values.

A :class:`Unit` is what stands on the board. An order names the unit it is given to by its type
and location (as the player wrote them, after names are read); the variant's rules
(``Rules.read_order``) bind it to the unit actually there. ``str(order)`` is the canonical text
the judge writes back in acknowledgements and reports (``F NTH C A LON - BEL``).

Variants add their own order classes (merge, split, support-convoy, castle, ...) beside these;
the resolver never looks inside an order, the variant's rules do.

An order is stored as plain JSON (:func:`order_to_data`, :func:`order_from_data`): a read
order is kept structured, so that adjudication never reads a line of text twice. Each order
class, and each value an order holds (:class:`UnitRef`, Chess Dip's actions...), has a stable
type name in its variant's table (:data:`ORDER_TYPES` here; a variant's rules extend it as
``order_types``). The form is documented in ``docs/engine.md`` ("Orders as data").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields, is_dataclass
from typing import Any, ClassVar, Protocol, cast

from judge.engine.board import province_of


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit on the board: its owner, its type (``A`` or ``F``) and its location."""

    power: str
    kind: str
    location: str
    # Derived from location and stored, because the engine asks for it constantly.
    province: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "province", province_of(self.location))

    def __str__(self) -> str:
        return f"{self.kind} {self.location}"

    @classmethod
    def parse(cls, power: str, text: str) -> Unit:
        """``"F STP/SC"`` -> Unit(power, "F", "STP/SC"): the position-file form."""
        parts = text.split()
        if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
            raise ValueError(f"not a unit: {text!r} (expected e.g. 'A PAR' or 'F STP/SC')")
        return cls(power, parts[0].upper(), parts[1].upper())


@dataclass(frozen=True, slots=True)
class UnitRef:
    """A unit as an order names it: type (``None`` when not written) and location; for a
    supported or convoyed unit, ``power``: the power the line says it is (``S French A PAR``),
    for the rules to check against the unit there, never part of the order's text nor of
    its equality (an order checked and stored has none)."""

    kind: str | None
    location: str
    province: str = field(init=False, repr=False, compare=False)
    power: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "province", province_of(self.location))

    def __str__(self) -> str:
        return f"{self.kind} {self.location}" if self.kind else self.location


# ------------------------------------------------------------------- what an order is
class Order(Protocol):
    """What every order is, the standard ones below and each variant's own (a merge, a
    castling, a placement...): a dataclass, so that it is stored as data by its fields
    (:func:`order_to_data`), whose ``str()`` is its canonical text. The engine and the judge
    take and hand on this type; only a variant's rules look inside an order. A protocol, not
    a base class: a variant's order classes fit it as they are, and a string (an order line
    not yet read) does not."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def __str__(self) -> str: ...


class OrderWithUnit(Order, Protocol):
    """An order given to one unit, named as the player wrote it (every order but WAIVE,
    Chess Dip's castling, Multiplicity's merge, Stab!'s reveal...)."""

    @property
    def unit(self) -> UnitRef: ...


def unit_of(order: Order) -> UnitRef:
    """The unit ``order`` names, for code that knows the order is given to one (an order of
    a movement or retreat phase once a variant's orders to no unit are set apart).
    AttributeError, as ``order.unit`` would raise, for an order to no unit (WAIVE)."""
    return cast(OrderWithUnit, order).unit


# --------------------------------------------------------------- movement orders
@dataclass(frozen=True, slots=True)
class Hold:
    unit: UnitRef

    def __str__(self) -> str:
        return f"{self.unit} H"


@dataclass(frozen=True, slots=True)
class Move:
    """A move; ``via_convoy`` when the player asked for a convoy, ``route`` when they named one."""

    unit: UnitRef
    destination: str
    via_convoy: bool = False
    route: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.route:
            return f"{self.unit} - {' - '.join(self.route)} - {self.destination}"
        return f"{self.unit} - {self.destination}" + (" VIA CONVOY" if self.via_convoy else "")


@dataclass(frozen=True, slots=True)
class SupportHold:
    unit: UnitRef
    target: UnitRef

    def __str__(self) -> str:
        return f"{self.unit} S {self.target}"


@dataclass(frozen=True, slots=True)
class SupportMove:
    unit: UnitRef
    target: UnitRef
    destination: str

    def __str__(self) -> str:
        return f"{self.unit} S {self.target} - {self.destination}"


@dataclass(frozen=True, slots=True)
class Convoy:
    unit: UnitRef
    target: UnitRef
    destination: str

    def __str__(self) -> str:
        return f"{self.unit} C {self.target} - {self.destination}"


# ---------------------------------------------------------------- retreat orders
@dataclass(frozen=True, slots=True)
class Retreat:
    unit: UnitRef
    destination: str

    def __str__(self) -> str:
        return f"{self.unit} R {self.destination}"


@dataclass(frozen=True, slots=True)
class Disband:
    """Disband a dislodged unit (retreat phase)."""

    unit: UnitRef

    def __str__(self) -> str:
        return f"{self.unit} D"


# ------------------------------------------------------------- adjustment orders
@dataclass(frozen=True, slots=True)
class Build:
    unit: UnitRef

    def __str__(self) -> str:
        return f"BUILD {self.unit}"


@dataclass(frozen=True, slots=True)
class Remove:
    unit: UnitRef

    def __str__(self) -> str:
        return f"REMOVE {self.unit}"


@dataclass(frozen=True, slots=True)
class Waive:
    def __str__(self) -> str:
        return "WAIVE"


# the engine's own orders, the ones every variant reads (besides its own)
StandardOrder = (Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build
                 | Remove | Waive)
MOVEMENT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy)
RETREAT_ORDERS = (Retreat, Disband)
ADJUSTMENT_ORDERS = (Build, Remove, Waive)


# ------------------------------------------------------------------ orders as data
# The stable type names of the values above, as stored. Never rename one: stored orders name
# them. A variant's rules extend this table with their own (``Rules.order_types``).
ORDER_TYPES: dict[str, type] = {
    "unit": UnitRef, "hold": Hold, "move": Move, "support_hold": SupportHold,
    "support_move": SupportMove, "convoy": Convoy, "retreat": Retreat, "disband": Disband,
    "build": Build, "remove": Remove, "waive": Waive,
}


def order_to_data(order: Order | Any, types: Mapping[str, type] = ORDER_TYPES) -> Any:
    """``order`` as plain JSON: ``{"type": <name>, <field>: <value>, ...}`` for an order or a
    value it holds (fields left at their default are left out), a list for a tuple, strings,
    numbers, booleans and null as they are. TypeError for a class ``types`` does not name."""
    return _to_data(order, {cls: name for name, cls in types.items()})


def _to_data(value: Any, names: dict[type, str]) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        name = names.get(type(value))
        if name is None:
            raise TypeError(f"{type(value).__name__} has no type name in the variant's "
                            "order_types")
        out: dict[str, Any] = {"type": name}
        for f in fields(value):
            if not f.init:
                continue
            v = getattr(value, f.name)
            if f.default is not MISSING and v == f.default:
                continue
            out[f.name] = _to_data(v, names)
        return out
    if isinstance(value, (tuple, list)):
        return [_to_data(x, names) for x in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot store {value!r} in an order")


def order_from_data(data: Any, types: Mapping[str, type] = ORDER_TYPES) -> Any:
    """The order (or value) :func:`order_to_data` wrote; ValueError when ``data`` names a
    type ``types`` does not have or a field its class does not take."""
    if isinstance(data, dict):
        name = data.get("type")
        cls = types.get(name) if isinstance(name, str) else None
        if cls is None:
            raise ValueError(f"unknown order type {name!r} in stored order {data!r}")
        try:
            return cls(**{k: order_from_data(v, types) for k, v in data.items() if k != "type"})
        except TypeError as exc:
            raise ValueError(f"stored order {data!r} does not fit {name!r}: {exc}") from None
    if isinstance(data, list):
        return tuple(order_from_data(x, types) for x in data)
    return data
