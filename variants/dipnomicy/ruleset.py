"""The ruleset as data: rules, the game's settings, and where they live in a position.

A Dipnomicy game's rules are not code: they are a list of :class:`Rule` values kept in every
position (key ``rules_in_force``), with the game's settings (key ``settings``) and the highest
rule number ever used (key ``last_rule_number``, so that a repealed rule's number is never
given again). The rules object of the variant reads them at each adjudication
(:meth:`Ruleset.active`); a passed proposal changes the next position's ruleset
(:func:`judge.variants.dipnomicy.proposals.apply_tally`), never the code.

The initial ruleset is ``initial_ruleset.toml`` beside this file, which the GM may edit
before a game starts (:func:`load_ruleset` reads any such file).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib.resources import files
from typing import Any

from judge.engine.board import Source, read_source
from judge.variants.dipnomicy.catalogue import Active, ParameterError, module_params

INITIAL_RULESET_FILE = files(__package__).joinpath("initial_ruleset.toml")

THRESHOLDS = ("more-for-than-against", "majority-of-players", "two-thirds", "unanimous")
DEFAULT_SETTINGS: dict[str, Any] = {
    "threshold": "more-for-than-against",
    "vote_days": 2,
    "default_move_days": 7,
    "upkeep_days": 2,
}


class RulesetError(ValueError):
    """A ruleset (file or position key) that cannot be read, with the reason."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: number, title, text, mutability, and optionally the module that enforces it."""

    number: int
    title: str
    text: str
    mutable: bool = True
    module: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rule:
        try:
            number = data["number"]
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                raise RulesetError(f"rule number must be a positive whole number, not {number!r}")
            rule = cls(number=number, title=str(data["title"]).strip(),
                       text=str(data.get("text", "")).strip(),
                       mutable=bool(data.get("mutable", True)),
                       module=data.get("module") or None,
                       params=dict(data.get("params") or {}))
        except KeyError as exc:
            raise RulesetError(f"a rule lacks its {exc.args[0]}") from exc
        if rule.module:
            try:
                module_params(rule.module, rule.params)
            except ParameterError as exc:
                raise RulesetError(f"rule {number}: {exc}") from exc
        return rule

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"number": self.number, "title": self.title, "text": self.text,
                               "mutable": self.mutable}
        if self.module:
            out["module"] = self.module
            if self.params:
                out["params"] = dict(self.params)
        return out

    @property
    def kind(self) -> str:
        return "mutable" if self.mutable else "immutable"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The rules in force, in number order, with the game's settings."""

    rules: tuple[Rule, ...]
    settings: Mapping[str, Any] = field(default_factory=lambda: dict(DEFAULT_SETTINGS))
    last_number: int = 0

    def __post_init__(self) -> None:
        numbers = [r.number for r in self.rules]
        if len(set(numbers)) != len(numbers):
            raise RulesetError("two rules have the same number")
        object.__setattr__(self, "rules", tuple(sorted(self.rules, key=lambda r: r.number)))
        object.__setattr__(self, "last_number", max([self.last_number, *numbers], default=0))
        threshold = self.settings.get("threshold", DEFAULT_SETTINGS["threshold"])
        if threshold not in THRESHOLDS:
            raise RulesetError(f"unknown threshold {threshold!r}; one of {', '.join(THRESHOLDS)}")

    # ------------------------------------------------------------------ queries
    def rule(self, number: int) -> Rule | None:
        for r in self.rules:
            if r.number == number:
                return r
        return None

    def active(self) -> Active:
        """The rule modules in force, by precedence."""
        return Active.from_rules(list(self.rules))

    def setting(self, name: str) -> Any:
        return self.settings.get(name, DEFAULT_SETTINGS.get(name))

    # ------------------------------------------------------------------ changes
    def with_rules(self, rules: Iterable[Rule], last_number: int | None = None) -> Ruleset:
        return replace(self, rules=tuple(rules),
                       last_number=self.last_number if last_number is None else last_number)

    # ------------------------------------------------------------------ storage
    def to_position_keys(self) -> dict[str, Any]:
        """The keys this ruleset occupies in a position."""
        return {"rules_in_force": [r.to_json() for r in self.rules],
                "settings": dict(self.settings),
                "last_rule_number": self.last_number}

    @classmethod
    def from_position_keys(cls, extra: Mapping[str, Any]) -> Ruleset:
        """The ruleset stored in a position's keys; the initial ruleset when there is none
        (a bare position given to ``judge adjudicate`` is a game under the initial rules)."""
        if "rules_in_force" not in extra:
            base = initial_ruleset()
            if "settings" in extra:
                return replace(base, settings={**base.settings, **extra["settings"]})
            return base
        raw = extra["rules_in_force"]
        if not isinstance(raw, list):
            raise RulesetError("rules_in_force must be a list of rules")
        rules = tuple(Rule.from_json(r) for r in raw)
        settings = {**DEFAULT_SETTINGS, **dict(extra.get("settings") or {})}
        return cls(rules, settings, int(extra.get("last_rule_number") or 0))


def load_ruleset(path: Source) -> Ruleset:
    """Read a ruleset file (TOML: ``[settings]`` and ``[[rule]]`` tables)."""
    try:
        return parse_ruleset(read_source(path))
    except OSError as exc:
        raise RulesetError(f"cannot read ruleset {path}: {exc}") from exc


def parse_ruleset(text: str) -> Ruleset:
    """A ruleset from the text of a ruleset file (as the SG may mail it before the start);
    RulesetError with the reason when it cannot be used."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"the ruleset is not valid TOML: {exc}") from exc
    try:
        rules = tuple(Rule.from_json(r) for r in data.get("rule", []))
    except RulesetError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RulesetError(f"a [[rule]] table is incomplete or wrong: {exc}") from exc
    if not rules:
        raise RulesetError("the ruleset has no [[rule]] tables")
    numbers = [r.number for r in rules]
    if len(set(numbers)) != len(numbers):
        raise RulesetError("two rules have the same number")
    unknown = sorted(set(data.get("settings", {})) - set(DEFAULT_SETTINGS))
    if unknown:
        raise RulesetError(f"unknown setting(s): {', '.join(unknown)}")
    settings = {**DEFAULT_SETTINGS, **data.get("settings", {})}
    return Ruleset(rules, settings)


# Loaded once, at import: the engine does no I/O after its data files are read.
INITIAL_RULESET = load_ruleset(INITIAL_RULESET_FILE)


def initial_ruleset() -> Ruleset:
    """The ruleset of ``initial_ruleset.toml`` (as it was when the judge started)."""
    return INITIAL_RULESET
