"""Hoplite Wars: ancient Greece, seven major and seven minor states, Multiplicity II rules.

The map is a reconstruction (the original is lost): see ``description.md``.
"""

from importlib.resources import files

from judge.engine.variant import Variant
from judge.variants.hoplite.rules import HopliteRules

BOARD, RULES = HopliteRules.load(files(__name__).joinpath("map.json"))

VARIANT = Variant(
    name="hoplite",
    title="Hoplite Wars",
    description=files(__name__).joinpath("description.md").read_text(encoding="utf-8"),
    board=BOARD,
    rules=RULES,
)
