"""Multiple units: compositions such as ``2A``, ``A/F``, ``A/2F`` and (Hoplite) ``2G``.

A multiple unit is kept on the board as the engine's ordinary :class:`Unit` whose ``kind`` is the
composition as the rules write it (``Unit("FRANCE", "2A", "BUR")`` prints ``2A BUR``), so the
contract's position JSON reads and writes it without any change to :class:`Position`.

For adjudication the units of one player in one province are gathered into a :class:`Force`:
its components, each with the power that owns it (in Hoplite Wars a major state's multiple
unit may contain components of its minor state, which keeps its own centre chart).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from judge.engine.board import province_of
from judge.engine.orders import Unit

ARMY, FLEET, GARRISON = "A", "F", "G"
LETTERS = (ARMY, FLEET, GARRISON)
_PART_RE = re.compile(r"^(\d*)([AFG])$")


@lru_cache(maxsize=512)
def parse_kind(text: str) -> tuple[int, int, int]:
    """``"2A/F"`` -> (armies, fleets, garrisons) = (2, 1, 0); ValueError if not a composition."""
    counts = {ARMY: 0, FLEET: 0, GARRISON: 0}
    parts = text.upper().split("/")
    for part in parts:
        m = _PART_RE.match(part)
        if not m:
            raise ValueError(f"not a unit: {text!r}")
        n = int(m.group(1)) if m.group(1) else 1
        if n < 1 or counts[m.group(2)]:
            raise ValueError(f"not a unit: {text!r}")
        counts[m.group(2)] = n
    return counts[ARMY], counts[FLEET], counts[GARRISON]


def format_kind(armies: int, fleets: int, garrisons: int = 0) -> str:
    """(2, 1, 0) -> ``"2A/F"``: the way the rules write a multiple unit (armies first)."""
    out = []
    for n, letter in ((armies, ARMY), (fleets, FLEET), (garrisons, GARRISON)):
        if n:
            out.append(letter if n == 1 else f"{n}{letter}")
    return "/".join(out)


def is_kind(text: str) -> bool:
    try:
        parse_kind(text)
    except ValueError:
        return False
    return True


def seaworthy(armies: int, fleets: int, garrisons: int = 0) -> bool:
    """Rule 5: a unit may be at sea when its fleets are at least as many as its armies."""
    return fleets >= armies + garrisons and fleets > 0


@dataclass(frozen=True, slots=True)
class Force:
    """One player's unit in one province: components as (owning power, letter), in order."""

    player: str
    location: str
    parts: tuple[tuple[str, str], ...]

    @property
    def province(self) -> str:
        return province_of(self.location)

    @property
    def size(self) -> int:
        return len(self.parts)

    def counts(self) -> tuple[int, int, int]:
        c = Counter(letter for _, letter in self.parts)
        return c[ARMY], c[FLEET], c[GARRISON]

    @property
    def kind(self) -> str:
        return format_kind(*self.counts())

    def __str__(self) -> str:
        return f"{self.kind} {self.location}"

    def units(self) -> list[Unit]:
        """Back to board units: one per owning power (``A/F`` of one power is one unit)."""
        by_owner: dict[str, Counter[str]] = {}
        for owner, letter in self.parts:
            by_owner.setdefault(owner, Counter())[letter] += 1
        out = []
        for owner, c in by_owner.items():
            location = self.location if c[FLEET] else self.province
            out.append(Unit(owner, format_kind(c[ARMY], c[FLEET], c[GARRISON]), location))
        return out


def counts_of(parts: Iterable[tuple[str, str]]) -> tuple[int, int, int]:
    c = Counter(letter for _, letter in parts)
    return c[ARMY], c[FLEET], c[GARRISON]


def unit_parts(unit: Unit) -> list[tuple[str, str]]:
    a, f, g = parse_kind(unit.kind)
    return [(unit.power, ARMY)] * a + [(unit.power, FLEET)] * f + [(unit.power, GARRISON)] * g


def gather(units: Iterable[Unit], player_of: Callable[[str], str]) -> list[Force]:
    """Board units -> forces, one per (player, province), in a stable order.

    A fleet component fixes the location (its coast); armies stand in the province.
    """
    found: dict[tuple[str, str], list[Unit]] = {}
    for u in units:
        found.setdefault((player_of(u.power), u.province), []).append(u)
    out = []
    for (player, _prov), us in sorted(found.items()):
        # The player's own components first: splits take them first (documented choice).
        us.sort(key=lambda u: (u.power != player, u.power))
        parts: list[tuple[str, str]] = []
        location = us[0].province
        for u in us:
            parts.extend(unit_parts(u))
            if "/" in u.location:
                location = u.location
        out.append(Force(player, location, tuple(parts)))
    return out


def take(parts: list[tuple[str, str]], armies: int, fleets: int, garrisons: int
         ) -> list[tuple[str, str]] | None:
    """Remove the given numbers of each letter from ``parts`` (in order); None if short."""
    want = {ARMY: armies, FLEET: fleets, GARRISON: garrisons}
    taken = []
    rest = []
    for p in parts:
        if want[p[1]] > 0:
            want[p[1]] -= 1
            taken.append(p)
        else:
            rest.append(p)
    if any(want.values()):
        return None
    parts[:] = rest
    return taken
