"""The board: provinces, coasts, supply centres, home centres and adjacency.

A board is loaded from a variant's map file (the project's own format, written by
:mod:`judge.engine.mapconvert`). Everything here is read-only after loading, so one board
is shared by every game of a variant.

Terms used throughout the engine:

* a **province** is an abbreviation such as ``STP``;
* a **location** is where a unit stands: a province, or a coast of a split-coast province
  such as ``STP/SC`` (fleets only);
* **adjacency** is kept per unit type: armies move between provinces, fleets between
  locations. Support and convoy reach use the province level (a fleet on ``SPA/NC`` may
  support into ``GAS``).
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from os import PathLike
from pathlib import Path
from typing import Literal

ProvinceKind = Literal["land", "sea", "coast"]
# A file a variant loads: a path, or one of its package's resources (``files(__name__) /
# "map.json"``, which need not be a file on disk when the package is installed zipped).
Source = str | PathLike[str] | Traversable
ARMY = "A"
FLEET = "F"


@dataclass(frozen=True, slots=True)
class Province:
    abbrev: str
    name: str
    kind: ProvinceKind
    supply_centre: bool
    home: str | None
    coasts: tuple[str, ...]


def normalise_name(text: str) -> str:
    """The key under which a place name is looked up: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def province_of(location: str) -> str:
    """``STP/SC`` -> ``STP``; a province is its own province."""
    slash = location.find("/")
    return location if slash < 0 else location[:slash]


class Board:
    """A map: the static facts of the board a variant is played on."""

    def __init__(self, data: dict) -> None:
        self.name: str = data["name"]
        self.powers: tuple[str, ...] = tuple(data["powers"])
        self.provinces: dict[str, Province] = {}
        for abbrev, p in data["provinces"].items():
            self.provinces[abbrev] = Province(
                abbrev=abbrev,
                name=p["name"],
                kind=p["type"],
                supply_centre=bool(p["supply_centre"]),
                home=p.get("home"),
                coasts=tuple(p.get("coasts", ())),
            )
        self.coast_names: dict[str, str] = dict(data.get("coast_names", {}))
        self.army_adj: dict[str, frozenset[str]] = {
            k: frozenset(v) for k, v in data["adjacency"]["army"].items()
        }
        self.fleet_adj: dict[str, frozenset[str]] = {
            k: frozenset(v) for k, v in data["adjacency"]["fleet"].items()
        }
        # Province-level reach of a fleet, for supports and convoys.
        self.fleet_reach: dict[str, frozenset[str]] = {
            loc: frozenset(province_of(x) for x in adj) for loc, adj in self.fleet_adj.items()
        }
        self.home_centres: dict[str, tuple[str, ...]] = {
            power: tuple(c) for power, c in data["home_centres"].items()
        }
        self.supply_centres: frozenset[str] = frozenset(
            a for a, p in self.provinces.items() if p.supply_centre
        )
        self.starting_units: dict[str, tuple[str, ...]] = {
            power: tuple(u) for power, u in data.get("starting_units", {}).items()
        }
        self.victory_centres: int = int(data.get("victory_centres", len(self.supply_centres) // 2 + 1))
        self.aliases: dict[str, str] = {}
        self._build_aliases(data.get("aliases", {}))
        self._distances: dict[str, dict[str, int]] | None = None

    @classmethod
    def load(cls, path: Source) -> Board:
        return cls(json.loads(read_source(path)))

    # ----------------------------------------------------------------- names
    def _build_aliases(self, extra: dict[str, str]) -> None:
        for abbrev, p in self.provinces.items():
            self.aliases[normalise_name(abbrev)] = abbrev
            self.aliases[normalise_name(p.name)] = abbrev
        for loc, name in self.coast_names.items():
            self.aliases[normalise_name(loc)] = loc
            self.aliases[normalise_name(name)] = loc
        for alias, loc in extra.items():
            self.aliases[normalise_name(alias)] = loc

    def lookup(self, name: str) -> str | None:
        """The province (or coast) a written name means, or None.

        Accepts abbreviations, full names and the map's listed spellings, in any case and with
        any punctuation or spacing: ``StP``, ``St. Petersburg``, ``saint petersburg``.
        """
        return self.aliases.get(normalise_name(name))

    def full_name(self, location: str) -> str:
        if location in self.coast_names:
            return self.coast_names[location]
        return self.provinces[province_of(location)].name

    # ------------------------------------------------------------- geometry
    def is_sea(self, province: str) -> bool:
        return self.provinces[province].kind == "sea"

    def is_land(self, province: str) -> bool:
        return self.provinces[province].kind == "land"

    def fleet_locations(self, province: str) -> tuple[str, ...]:
        """Where a fleet may stand in a province: its coasts, or the province itself."""
        p = self.provinces[province]
        if p.coasts:
            return p.coasts
        return () if p.kind == "land" else (province,)

    def can_stand(self, unit_type: str, location: str) -> bool:
        prov = province_of(location)
        if prov not in self.provinces:
            return False
        p = self.provinces[prov]
        if unit_type == ARMY:
            return location == prov and p.kind != "sea"
        return location in self.fleet_adj

    def can_move(self, unit_type: str, origin: str, destination: str) -> bool:
        """One step by land (army) or by sea (fleet); ``destination`` is a location."""
        if unit_type == ARMY:
            return destination in self.army_adj.get(origin, ())
        return destination in self.fleet_adj.get(origin, ())

    def can_reach(self, unit_type: str, origin: str, province: str) -> bool:
        """Whether a unit could move into some part of ``province`` (support reach)."""
        if unit_type == ARMY:
            return province in self.army_adj.get(origin, ())
        return province in self.fleet_reach.get(origin, ())

    def fleet_coasts_reachable(self, origin: str, province: str) -> list[str]:
        """The locations of ``province`` a fleet at ``origin`` can move to."""
        adj = self.fleet_adj.get(origin, ())
        return [loc for loc in self.fleet_locations(province) if loc in adj]

    def neighbours(self, province: str) -> set[str]:
        """Provinces next to ``province`` by land or by sea (any coast)."""
        out = set(self.army_adj.get(province, ()))
        for loc in self.fleet_locations(province):
            out |= self.fleet_reach.get(loc, frozenset())
        return out

    def distances_from(self, province: str) -> dict[str, int]:
        """Steps from ``province`` to every province, moving by land or sea (either type)."""
        if self._distances is None:
            self._distances = {}
        cached = self._distances.get(province)
        if cached is not None:
            return cached
        dist = {province: 0}
        queue = deque([province])
        while queue:
            here = queue.popleft()
            for nxt in self.neighbours(here):
                if nxt not in dist:
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        self._distances[province] = dist
        return dist

    def convoy_routes(self, origin: str, goal: str, seas: Iterable[str]) -> set[str]:
        """The seas among ``seas`` that lie on some convoy chain from ``origin`` to ``goal``.

        A chain is a run of adjacent seas from a sea next to ``origin`` to one next to
        ``goal`` with no shortcut: a sea that a chain could skip is not needed by it (DATC
        6.G.19 treats a convoy order by such a fleet as illegal). Empty when there is none.
        """
        reach = {s: self.fleet_reach[s] for s in seas}
        needed: set[str] = set()
        path: list[str] = []

        def extend(last: str) -> None:
            if goal in reach[last]:
                needed.update(path)
                return
            for nxt in reach:
                if (nxt in path or origin in reach[nxt] or nxt not in reach[last]
                        or any(nxt in reach[p] for p in path[:-1])):
                    continue
                path.append(nxt)
                extend(nxt)
                path.pop()

        for first in reach:
            if origin in reach[first]:
                path.append(first)
                extend(first)
                path.pop()
        return needed


def read_source(source: Source) -> str:
    """The text (UTF-8) of a file given as a path or as a package resource."""
    if isinstance(source, (str, PathLike)):
        return Path(source).read_text(encoding="utf-8")
    return source.read_text(encoding="utf-8")
