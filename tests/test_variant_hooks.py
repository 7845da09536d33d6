"""The contract a variant writer meets (issue 22): a variant that changes where a game starts
or where a power builds is its folder alone, a few lines on the rules' public hooks
(``starting_units``, ``build_sites``; docs/engine.md "How each variant plugs in"), played by
mail (tests/extra_variants/piedmont, tests/extra_variants/anywhere); and no variant reaches
into its base class by overriding a private method."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from pathlib import Path

import pytest
from mailkit import FALL, POWERS, SPRING, InProcessJudge

import judge.variants
from judge.games import flow

EXTRA = Path(__file__).with_name("extra_variants")


@pytest.fixture
def extra(monkeypatch):
    monkeypatch.setattr(judge.variants, "__path__", [*judge.variants.__path__, str(EXTRA)])
    judge.variants.get_variant.cache_clear()
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()
    yield
    judge.variants.get_variant.cache_clear()
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


class Game:
    def __init__(self, judge: InProcessJudge, name: str, variant: str) -> None:
        self.judge, self.name = judge, name
        judge.send("gm@p.test", f"CREATE {name} masterpw VARIANT {variant}\nOPEN", "new")
        for p in POWERS:
            judge.send(addr(p), f"SIGNON {p.title()} {name} pw-{p.lower()}", "join")
        self.started = judge.send("gm@p.test", f"MASTER {name} masterpw\nSTART", "start")

    def orders(self, power: str, lines: list[str]) -> list:
        return self.judge.send(addr(power), f"SIGNON {power.title()} {self.name} "
                               f"pw-{power.lower()}\n" + "\n".join(lines), "orders")

    def season(self, orders: dict[str, list[str]]) -> None:
        for p, lines in orders.items():
            self.orders(p, lines)

    def process(self) -> None:
        self.judge.send("gm@p.test", f"MASTER {self.name} masterpw\nPROCESS", "process")

    def position(self) -> dict:
        rows = self.judge.store.all(
            "SELECT p.position FROM positions p JOIN games g ON g.id = p.game_id "
            "WHERE g.name = ? ORDER BY p.id", (self.name,))
        return json.loads(rows[-1]["position"])


def test_a_different_start_is_its_starting_units_and_builds_stay_home(tmp_path, extra):
    judge = InProcessJudge(tmp_path)
    game = Game(judge, "pied1", "piedmont")
    start = game.position()
    assert sorted(start["units"]["ITALY"]) == ["A PIE", "A ROM", "F NAP"]
    assert sorted(start["centres"]["ITALY"]) == ["NAP", "ROM", "VEN"]
    [italy_start] = [m for m in game.started if m.rcpt == addr("ITALY")
                     and "has started" in m.subject]
    assert "A PIE" in italy_start.body.upper() and "A VEN" not in italy_start.body.upper()
    italy_spring = ["A PIE H", "A ROM - APU", "F NAP - ION"]
    italy_fall = ["A PIE H", "A APU - TUN", "F ION C A APU - TUN"]
    game.season({**SPRING, "ITALY": italy_spring})
    game.season({**FALL, "ITALY": italy_fall})
    game.process()  # France's dislodged army in Burgundy disbands
    assert game.position()["phase"] == "W1901A"
    # Italy owns Tunis (its army holds it) and one build: only a home centre takes it
    [reply] = game.orders("ITALY", ["BUILD A TUN", "BUILD A VEN"])
    assert "not one of ITALY's home centres" in reply.body, reply.body
    game.process()
    after = game.position()
    assert after["phase"] == "S1902M"
    assert sorted(after["units"]["ITALY"]) == ["A PIE", "A TUN", "A VEN", "F ION"]


def test_builds_anywhere_is_its_build_sites_and_builds_in_a_captured_centre(tmp_path, extra):
    judge = InProcessJudge(tmp_path)
    game = Game(judge, "any1", "anywhere")
    assert game.position()["units"]["ITALY"] == ["F NAP", "A ROM", "A VEN"]
    game.season(SPRING)
    game.season(FALL)  # Italy takes Tunis
    game.process()  # France's army in Burgundy disbands
    game.process()  # W1901A: nobody builds
    assert game.position()["phase"] == "S1902M"
    game.orders("ITALY", ["A TUN - NAF"])
    game.process()
    game.process()  # F1902M: everything holds, Tunis stays Italy's, empty
    pos = game.position()
    assert pos["phase"] == "W1902A" and "TUN" in pos["centres"]["ITALY"]
    [reply] = game.orders("ITALY", ["BUILD A BER", "BUILD F TUN"])
    assert "ITALY does not own Berlin" in reply.body, reply.body
    game.process()
    after = game.position()
    assert after["phase"] == "S1903M"
    assert "F TUN" in after["units"]["ITALY"], after["units"]


def _variant_classes() -> list[type]:
    """Every class defined in every variant folder's modules."""
    found = []
    for info in pkgutil.walk_packages(judge.variants.__path__, "judge.variants."):
        module = importlib.import_module(info.name)
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if c.__module__ == module.__name__]
    return found


def test_no_variant_overrides_a_private_method_of_its_base() -> None:
    overrides = []
    for cls in _variant_classes():
        for name in vars(cls):
            if not name.startswith("_") or name.startswith("__"):
                continue
            for base in cls.__mro__[1:]:
                if name in vars(base):
                    overrides.append(f"{cls.__module__}.{cls.__qualname__}.{name} overrides "
                                     f"{base.__module__}.{base.__qualname__}.{name}")
                    break
    assert not overrides, "\n".join(overrides)


def test_the_check_sees_the_rules_and_movement_classes_of_every_variant() -> None:
    from judge.variants.standard.movement import MovementPhase
    from judge.variants.standard.rules import StandardRules

    classes = _variant_classes()
    rules = {c.__module__.split(".")[2] for c in classes if issubclass(c, StandardRules)}
    movement = {c.__module__.split(".")[2] for c in classes if issubclass(c, MovementPhase)}
    assert rules >= {"standard", "stackem", "multiplicity", "hoplite", "chessdip", "stab",
                     "dipnomicy"}
    assert movement >= {"standard", "stackem", "dipnomicy"}
