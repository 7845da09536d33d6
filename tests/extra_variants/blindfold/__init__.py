"""Blindfold: standard Diplomacy in which each player sees only its own units (the worked
example of docs/engine.md: a variant with a hidden-information flow, added as a folder alone).
The board and the rules are the standard game's; ``flow.py`` says what each player is told."""

from judge.engine.variant import Variant
from judge.variants.standard import BOARD
from judge.variants.standard.rules import StandardRules

VARIANT = Variant(
    name="blindfold",
    title="Blindfold Diplomacy",
    description="Standard Diplomacy; each player sees only its own units and orders.",
    board=BOARD,
    rules=StandardRules(BOARD),
)
