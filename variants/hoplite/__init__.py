"""Hoplite Wars: ancient Greece, seven major and seven minor states, Multiplicity II rules.

The map is a reconstruction (the original is lost): see ``description.md``.
"""

from pathlib import Path

from judge.engine.variant import Variant
from judge.variants.hoplite.rules import HopliteRules

BOARD, RULES = HopliteRules.load(Path(__file__).with_name("map.json"))

VARIANT = Variant(
    name="hoplite",
    title="Hoplite Wars",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BOARD,
    rules=RULES,
)
