"""Units and orders: small immutable values.

A :class:`Unit` is what stands on the board. An order names the unit it is given to by its type
and location (as the player wrote them, after names are read); the variant's rules
(``Rules.read_order``) bind it to the unit actually there. ``str(order)`` is the canonical text
the judge writes back in acknowledgements and reports (``F NTH C A LON - BEL``).

Variants add their own order classes (merge, split, support-convoy, castle, ...) beside these;
the resolver never looks inside an order, the variant's rules do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """A unit as an order names it: type (``None`` when not written) and location."""

    kind: str | None
    location: str
    province: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "province", province_of(self.location))

    def __str__(self) -> str:
        return f"{self.kind} {self.location}" if self.kind else self.location


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


Order = Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Remove | Waive
MOVEMENT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy)
RETREAT_ORDERS = (Retreat, Disband)
ADJUSTMENT_ORDERS = (Build, Remove, Waive)
