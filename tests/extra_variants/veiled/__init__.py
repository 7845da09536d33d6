"""Veiled: standard Diplomacy on the standard board in which a player reads orders against its
own units alone (a test variant: a hidden flow whose ``read_lines`` refuses what it cannot
see, built as docs/engine.md's blindfold example is)."""

from judge.engine.variant import Variant
from judge.variants.standard import BOARD
from judge.variants.standard.rules import StandardRules

VARIANT = Variant(
    name="veiled",
    title="Veiled Diplomacy",
    description="Standard Diplomacy; a player's orders are read against its own units only.",
    board=BOARD,
    rules=StandardRules(BOARD),
)
