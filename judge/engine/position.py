"""Positions and phases.

A :class:`Position` is the state of a game between two phases: the phase about to be played,
the units, who owns which centre, and (in a retreat phase) the dislodged units. It reads and
writes the position JSON of the command-line contract (``docs/adjudication.md``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from judge.engine.orders import Unit

SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
PHASE_TYPES = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}
_PHASE_RE = re.compile(r"^([SFW])(-?\d+)([MRA])$")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value),
                                                                   type(value).__name__)


def check_shape(data: dict[str, Any]) -> None:
    """The contract's JSON types (``"centres": {"ENGLAND": ["LON"]}``, not ``"LON"``): raises
    ValueError naming the key at fault. What the names mean is the board's to check
    (:func:`judge.engine.variant.check_position`)."""
    if not isinstance(data, dict):
        raise ValueError("a position must be a JSON object")
    if "phase" not in data:
        raise ValueError("the position has no \"phase\"")
    for key in ("variant", "phase", "winner"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ValueError(f"\"{key}\" must be a string, not {_kind(data[key])}")
    for key in ("units", "centres", "supply_centers", "dislodged"):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ValueError(f"\"{key}\" must be an object of power: list, not "
                             f"{_kind(value)}")
        for power, entries in value.items():
            if not isinstance(entries, list):
                raise ValueError(f"\"{key}\" of {power} must be a list, not "
                                 f"{_kind(entries)} ({json.dumps(entries)})")
            for entry in entries:
                if isinstance(entry, str) or (key == "dislodged" and isinstance(entry, dict)):
                    continue
                raise ValueError(f"\"{key}\" of {power} must list strings, not "
                                 f"{_kind(entry)} ({json.dumps(entry)})")
    standoffs = data.get("standoffs")
    if standoffs is not None and (not isinstance(standoffs, list)
                                  or not all(isinstance(x, str) for x in standoffs)):
        raise ValueError("\"standoffs\" must be a list of provinces")


@dataclass(frozen=True, slots=True)
class Phase:
    """``S1901M``: season letter, year, phase letter."""

    season: str
    year: int
    kind: str

    @classmethod
    def parse(cls, code: str) -> Phase:
        m = _PHASE_RE.match(code.strip().upper())
        if not m:
            raise ValueError(f"not a phase code: {code!r} (expected e.g. S1901M)")
        return cls(m.group(1), int(m.group(2)), m.group(3))

    def __str__(self) -> str:
        return f"{self.season}{self.year}{self.kind}"

    @property
    def long_name(self) -> str:
        return f"{SEASONS[self.season]} {self.year} {PHASE_TYPES[self.kind]}"


@dataclass(frozen=True, slots=True)
class Dislodged:
    """A unit dislodged in the movement phase, waiting to retreat.

    ``retreats`` are the locations it may retreat to, worked out when it was dislodged (they
    depend on standoffs in that phase, which the next position no longer shows).
    """

    unit: Unit
    attacker_from: str | None
    retreats: tuple[str, ...] | None = None


@dataclass(slots=True)
class Position:
    variant: str
    phase: Phase
    units: list[Unit]
    centres: dict[str, set[str]]
    dislodged: list[Dislodged] = field(default_factory=list)
    standoffs: frozenset[str] = frozenset()
    winner: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ JSON
    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Position:
        """Read a contract position; raises ValueError with a one-line reason if malformed."""
        check_shape(data)
        try:
            phase = Phase.parse(str(data["phase"]))
            units = [
                Unit.parse(power.upper(), text)
                for power, texts in (data.get("units") or {}).items()
                for text in texts
            ]
            centres = {
                power.upper(): {c.upper() for c in cs}
                for power, cs in (data.get("centres") or data.get("supply_centers") or {}).items()
            }
            dislodged = []
            for power, entries in (data.get("dislodged") or {}).items():
                for entry in entries:
                    if isinstance(entry, str):
                        entry = {"unit": entry}
                    retreats = entry.get("retreats")
                    dislodged.append(
                        Dislodged(
                            Unit.parse(power.upper(), entry["unit"]),
                            (entry.get("attacker_from") or "").upper() or None,
                            tuple(r.upper() for r in retreats) if retreats is not None else None,
                        )
                    )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed position: {exc}") from exc
        known = {"variant", "phase", "units", "centres", "supply_centers", "dislodged",
                 "standoffs", "winner"}
        return cls(
            variant=str(data.get("variant", "standard")),
            phase=phase,
            units=units,
            centres=centres,
            dislodged=dislodged,
            standoffs=frozenset(s.upper() for s in data.get("standoffs") or ()),
            winner=data.get("winner"),
            extra={k: v for k, v in data.items() if k not in known},
        )

    def to_json(self) -> dict[str, Any]:
        units: dict[str, list[str]] = {}
        for u in sorted(self.units, key=lambda u: (u.power, u.location)):
            units.setdefault(u.power, []).append(str(u))
        dislodged: dict[str, list[dict[str, Any]]] = {}
        for d in sorted(self.dislodged, key=lambda d: (d.unit.power, d.unit.location)):
            entry: dict[str, Any] = {"unit": str(d.unit), "attacker_from": d.attacker_from}
            if d.retreats is not None:
                entry["retreats"] = list(d.retreats)
            dislodged.setdefault(d.unit.power, []).append(entry)
        out: dict[str, Any] = {
            "variant": self.variant,
            "phase": str(self.phase),
            "units": units,
            "centres": {p: sorted(cs) for p, cs in sorted(self.centres.items()) if cs},
            "dislodged": dislodged,
        }
        if self.standoffs:
            out["standoffs"] = sorted(self.standoffs)
        if self.winner:
            out["winner"] = self.winner
        out.update(self.extra)
        return out

    def following(self, units: list[Unit], *, phase: Phase | None = None,
                  centres: dict[str, set[str]] | None = None,
                  dislodged: list[Dislodged] | None = None,
                  standoffs: frozenset[str] = frozenset(), winner: str | None = None,
                  extra: dict[str, Any] | None = None) -> Position:
        """The one way to make a position from this one (rules never call ``Position(...)``
        for that): same variant and phase (the caller moves the phase on), ``units`` as
        given, centres and variant keys (``extra``) copied, and no dislodged units,
        standoffs or winner unless given. A copy of the whole position is
        ``p.following(list(p.units), dislodged=list(p.dislodged), standoffs=p.standoffs,
        winner=p.winner)``."""
        return Position(
            self.variant, self.phase if phase is None else phase, units,
            {p: set(cs) for p, cs in self.centres.items()} if centres is None else centres,
            [] if dislodged is None else dislodged, standoffs, winner,
            dict(self.extra) if extra is None else extra)

    # --------------------------------------------------------------- queries
    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units if u.power == power]

    def powers(self) -> list[str]:
        """Powers with a unit or a centre (the ones still in the game)."""
        names = {u.power for u in self.units} | {p for p, cs in self.centres.items() if cs}
        names |= {d.unit.power for d in self.dislodged}
        return sorted(names)
