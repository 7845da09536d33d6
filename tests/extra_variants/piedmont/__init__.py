"""Piedmont: standard Diplomacy in which Italy's army starts in Piedmont, not Venice (a test
variant: a different start is the ``starting_units`` hook of the rules alone, docs/engine.md
"How each variant plugs in"). Builds stay in home centres; Italy still owns Venice."""

from judge.engine.variant import Variant
from judge.variants.standard import BOARD
from judge.variants.standard.rules import StandardRules


class PiedmontRules(StandardRules):
    starting_units = {**BOARD.starting_units, "ITALY": ("A PIE", "A ROM", "F NAP")}


VARIANT = Variant(
    name="piedmont",
    title="Piedmont Diplomacy",
    description="Standard Diplomacy; Italy's army starts in Piedmont.",
    board=BOARD,
    rules=PiedmontRules(BOARD),
)
