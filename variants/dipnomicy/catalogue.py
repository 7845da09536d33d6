"""The rule catalogue: the rule modules a Dipnomicy rule can name, and their parameters.

A rule is text; the judge can only enforce what a *rule module* implements. A rule that names a
module (``module = "support"``) switches it on, with its parameters, for every adjudication
after the rule is enacted; repealing the rule switches it off. The modules are the behaviours
of :class:`judge.variants.dipnomicy.rules.TurnRules` and
:class:`judge.variants.dipnomicy.movement.DipnomicyMovement`; this file only says which exist and
checks their parameters, so that a bad proposal is refused when it is made, not when it would
first be adjudicated.

Which rules are in force, and with which parameters, is :class:`Active`: built from the ruleset
in a position, by precedence (immutable before mutable, then the lower number first, as rule 8
of the initial ruleset says). The first rule naming a module decides its parameters; a rule may
name a module with ``enabled = false`` to forbid it, so an immutable rule can keep a module off
whatever the mutable rules say.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from judge.variants.dipnomicy.mapdata import BASE_BOARD

if TYPE_CHECKING:
    from judge.variants.dipnomicy.ruleset import Rule

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")

# P2's home territories, as the proposal lists them.
STANDARD_HOMES: dict[str, list[str]] = {
    "AUSTRIA": ["VIE", "BUD", "TRI"],
    "ENGLAND": ["EDI", "LVP", "LON"],
    "FRANCE": ["BRE", "PAR", "MAR"],
    "GERMANY": ["BER", "KIE", "MUN"],
    "ITALY": ["NAP", "ROM", "VEN"],
    "RUSSIA": ["MOS", "STP", "SEV", "WAR"],
    "TURKEY": ["CON", "ANK", "SMY"],
}
# P3's extra home supply centres.
P3_HOMES: dict[str, list[str]] = {
    "RUSSIA": ["FIN", "LVN"],
    "AUSTRIA": ["ALB", "TYR"],
    "ITALY": ["TUS", "APU"],
    "ENGLAND": ["YOR", "WAL"],
}


class ParameterError(ValueError):
    """A rule names an unknown module or gives it parameters it cannot take."""


def _days(name: str, low: int) -> Callable[[dict[str, Any]], None]:
    def check(params: dict[str, Any]) -> None:
        value = params.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ParameterError(f"{name} must be a whole number of days, at least {low}")
    return check


def _homes(params: dict[str, Any]) -> None:
    homes = params.get("homes")
    if not isinstance(homes, dict):
        raise ParameterError("homes must map each country to a list of territories")
    taken: dict[str, str] = {}
    for power, places in homes.items():
        if power not in POWERS:
            raise ParameterError(f"unknown country {power!r}")
        if not isinstance(places, list):
            raise ParameterError(f"the home territories of {power} must be a list")
        for p in places:
            if p not in BASE_BOARD.provinces:
                raise ParameterError(f"unknown territory {p!r}")
            if BASE_BOARD.is_sea(p):
                raise ParameterError(f"{p} is a sea: it cannot be a home supply centre")
            if taken.setdefault(p, power) != power:
                raise ParameterError(f"{p} is a home territory of both {taken[p]} and {power}")


def _nothing(params: dict[str, Any]) -> None:
    return None


@dataclass(frozen=True, slots=True)
class ModuleSpec:
    """One module of the catalogue: its name, what it does, its parameters' defaults."""

    name: str
    title: str
    summary: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], None] = _nothing


CATALOGUE: dict[str, ModuleSpec] = {m.name: m for m in (
    ModuleSpec("convoy", "Convoys",
               "Fleets at sea may convoy armies (the base game's rule 17)."),
    ModuleSpec("support", "Support actions (P1)",
               "Units may support a hold or a move into an adjacent territory. Supports are "
               "never cut. A contested action is decided by the number of units involved on "
               "each side; a tie on a hold goes to the defender, otherwise every move fails. "
               "A unit beaten out must be moved away in a removal phase of retreat_days days "
               "or is disbanded.",
               {"retreat_days": 2}, _days("retreat_days", 0)),
    ModuleSpec("supply_centres", "Supply centres (P2)",
               "Supply centres are owned; after every even (Autumn) turn an Upkeep phase: "
               "owners take the centres their units occupy, then create units in free home "
               "centres or disband down to their count (alphabetically by territory when no "
               "report is sent).",
               {"homes": STANDARD_HOMES}, _homes),
    ModuleSpec("home_centres", "More supply centres (P3)",
               "Adds home supply centres (new supply centres where the map has none).",
               {"homes": P3_HOMES}, _homes),
    ModuleSpec("mobile_fleets", "Mobile fleets (P4)",
               "A fleet may make two consecutive moves (F Edi -- NTH -- Hol) as its only "
               "action, not ending in a supply centre territory. See description.md for how "
               "the territory passed through is contested."),
    ModuleSpec("deadline", "Move deadline (P5)",
               "Moves are due days after the last move report; late moves are not counted.",
               {"days": 3}, _days("days", 1)),
    ModuleSpec("merging", "Merging units (P6)",
               "Units have sizes; Me [unit removed] [unit embiggened] merges two adjacent "
               "units of equal size; a unit named in two merges of a turn takes part in "
               "neither; in a contest the size of a unit is what it counts.",
               ),
)}


def module_params(module: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The parameters ``module`` runs with: its defaults, overridden by ``params``, checked.

    Raises :class:`ParameterError` with a reason a player can act on.
    """
    spec = CATALOGUE.get(module)
    if spec is None:
        raise ParameterError(f"no rule module called {module!r}; the catalogue has "
                             f"{', '.join(sorted(CATALOGUE))}")
    given = dict(params or {})
    enabled = given.pop("enabled", True)
    if not isinstance(enabled, bool):
        raise ParameterError("enabled must be true or false")
    unknown = set(given) - set(spec.defaults)
    if unknown:
        raise ParameterError(f"module {module} takes no parameter {', '.join(sorted(unknown))}"
                             + (f" (it takes {', '.join(spec.defaults)})" if spec.defaults
                                else " (it takes none)"))
    merged = {**json.loads(json.dumps(dict(spec.defaults))), **given}
    spec.check(merged)
    if not enabled:
        merged["enabled"] = False
    return merged


@dataclass(frozen=True, slots=True)
class Active:
    """The modules in force for one adjudication, with their effective parameters."""

    modules: Mapping[str, Mapping[str, Any]]

    @classmethod
    def from_rules(cls, rules: list[Rule]) -> Active:
        chosen: dict[str, Mapping[str, Any]] = {}
        # Precedence: immutable rules first, then by number (lower first).
        for rule in sorted(rules, key=lambda r: (r.mutable, r.number)):
            if rule.module and rule.module not in chosen:
                chosen[rule.module] = module_params(rule.module, rule.params)
        return cls({m: p for m, p in chosen.items() if p.get("enabled", True)})

    def on(self, module: str) -> bool:
        return module in self.modules

    def param(self, module: str, name: str) -> Any:
        return self.modules[module][name]

    @property
    def key(self) -> str:
        """A stable text key, to cache what is built from the same modules."""
        return json.dumps(self.modules, sort_keys=True)
