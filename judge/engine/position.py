"""Positions and phases.

A :class:`Position` is the state of a game between two phases: the phase about to be played,
the units, who owns which centre, and (in a retreat phase) the dislodged units. It reads and
writes the position JSON of the command-line contract (``docs/adjudication.md``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from judge.engine.orders import Unit

SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
PHASE_TYPES = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}
_PHASE_RE = re.compile(r"^([SFW])(-?\d+)([MRA])$")
# A phase code as the judge prints one: S1901M, F1905R, W1903A, in a calendar of BC years (a
# variant's Phase subclass prints those) S450BCM, W451BCA, and in the classic layout's header
# F1901B, DPjudge's code for the winter adjustments (judge/render/classic.py)
_PHASE_CODE_RE = re.compile(r"^([SFW])0*(\d{1,4})(BC)?([MRA])$|^F0*(\d{1,4})(BC)?B$")


def phase_code(text: str) -> str | None:
    """``text`` written as the judge writes a phase code (``s1901m`` -> ``S1901M``,
    ``s450bcm`` -> ``S450BCM``, the classic ``F1901B`` -> ``W1901A``), or None when it is not
    one. Only the shape is read: a game knows its phases by these codes, so commands that name
    a phase (ROLLBACK, PROCESS, HISTORY, MAP) look the code up among the game's own phases."""
    m = _PHASE_CODE_RE.match(text.strip().upper())
    if not m:
        return None
    season, year, bc, kind, builds_year, builds_bc = m.groups()
    if builds_year is not None:
        season, year, bc, kind = "W", builds_year, builds_bc, "A"
    return f"{season}{year}{bc or ''}{kind}"


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value),
                                                                   type(value).__name__)


def shown(value: Any) -> str:
    """A value of a hostile file as an error line shows it: JSON, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_json_object(text: str, what: str = "a position") -> dict[str, Any]:
    """The JSON object of a position file or ``--batch`` line; ValueError when it is not one,
    when an object names a key twice (``{"ENGLAND": [...], "ENGLAND": [...]}``: JSON readers
    keep the last silently, so half of what was written would be dropped) or when it uses
    ``NaN``/``Infinity`` (not JSON)."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"the key {shown(key)} appears twice in one object")
            out[key] = value
        return out

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object, not {_kind(data)}")
    return data


def _check_dislodged_entry(power: str, entry: Any) -> None:
    if not isinstance(entry, dict):
        raise ValueError(f"\"dislodged\" of {power} must list objects such as "
                         f"{{\"unit\": \"A PAR\", \"attacker_from\": \"BUR\"}}, not "
                         f"{_kind(entry)} ({shown(entry)})")
    if not isinstance(entry.get("unit"), str):
        raise ValueError(f"a dislodged unit of {power} needs \"unit\", a string "
                         f"({shown(entry)})")
    if entry.get("attacker_from") is not None and not isinstance(entry["attacker_from"], str):
        raise ValueError(f"\"attacker_from\" of {power}'s dislodged {entry['unit']} must be "
                         f"a province, not {_kind(entry['attacker_from'])}")
    retreats = entry.get("retreats")
    if retreats is not None and (not isinstance(retreats, list)
                                 or not all(isinstance(r, str) for r in retreats)):
        raise ValueError(f"\"retreats\" of {power}'s dislodged {entry['unit']} must be a "
                         f"list of provinces, not {shown(retreats)}")


def check_shape(data: dict[str, Any]) -> None:
    """The contract's JSON types (``"centres": {"ENGLAND": ["LON"]}``, not ``"LON"``;
    dislodged units as objects): raises ValueError naming the key at fault. What the names
    mean is the board's to check (:func:`judge.engine.variant.check_position`), what play
    could have produced the rules' (``validate_position``)."""
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
        seen: dict[str, str] = {}
        for power, entries in value.items():
            # "England" and "ENGLAND" are one power: the second would replace the first
            if power.upper() in seen:
                raise ValueError(f"\"{key}\" names {power.upper()} twice ("
                                 f"{shown(seen[power.upper()])} and {shown(power)})")
            seen[power.upper()] = power
            if not isinstance(entries, list):
                raise ValueError(f"\"{key}\" of {power} must be a list, not "
                                 f"{_kind(entries)} ({shown(entries)})")
            listed: set[str] = set()
            for entry in entries:
                if key == "dislodged":
                    _check_dislodged_entry(power, entry)
                    continue
                if not isinstance(entry, str):
                    raise ValueError(f"\"{key}\" of {power} must list strings, not "
                                     f"{_kind(entry)} ({shown(entry)})")
                if key != "units" and entry.upper() in listed:
                    raise ValueError(f"{entry} is listed twice in the \"{key}\" of {power}")
                listed.add(entry.upper())
    standoffs = data.get("standoffs")
    if standoffs is not None and (not isinstance(standoffs, list)
                                  or not all(isinstance(x, str) for x in standoffs)):
        raise ValueError("\"standoffs\" must be a list of provinces")


def year_of(digits: str, code: str) -> int:
    """The year of a phase code, refused past nine digits (``int`` of thousands of digits
    is slow, and refused past 4300 with a message about Python)."""
    if len(digits.lstrip("-")) > 9:
        raise ValueError(f"{code[:20]}...: the year is out of range")
    return int(digits)


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
            raise ValueError(f"not a phase code: {code[:40]!r} (expected e.g. S1901M)")
        return cls(m.group(1), year_of(m.group(2), code), m.group(3))

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


#: How many years a position may be past its variant's first year: far beyond any game (they
#: end within decades), near enough to refuse a year no game reaches (``S99999999M``).
MAX_GAME_YEARS = 1000


def check_dislodged_only_in_retreats(position: Position) -> None:
    """Dislodged units wait for a retreat phase: in another they would be dropped unheard."""
    if position.dislodged and position.phase.kind != "R":
        d = position.dislodged[0]
        raise ValueError(f"dislodged {d.unit.power} {d.unit} in {position.phase}: only a "
                         "retreat phase has dislodged units")


def check_calendar(position: Position, phases: Collection[str], first: Phase) -> None:
    """The phase is one of the variant's calendar (``phases``: season and kind letters, such
    as ``"SM"``, ``"WA"``), not before its first phase ``first`` nor more than
    :data:`MAX_GAME_YEARS` years after it. Raises ValueError naming the fault."""
    phase = position.phase
    if f"{phase.season}{phase.kind}" not in phases:
        known = ", ".join(f"{SEASONS[p[0]]} {PHASE_TYPES[p[1]]}" for p in phases)
        raise ValueError(f"{phase} is not a phase of this variant: no "
                         f"{SEASONS[phase.season]} {PHASE_TYPES[phase.kind]} (its phases: "
                         f"{known})")
    order = "SFW"
    if (phase.year, order.index(phase.season)) < (first.year, order.index(first.season)):
        raise ValueError(f"{phase} is before the variant's first phase, {first}")
    if phase.year > first.year + MAX_GAME_YEARS:
        raise ValueError(f"{phase} is out of range: a game ends long before "
                         f"{MAX_GAME_YEARS} years after {first}")


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
