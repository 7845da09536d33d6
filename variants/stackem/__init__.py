"""Stack 'em Diplo: several units of one power may share a space (standard map)."""

from pathlib import Path

from judge.engine.variant import Variant
from judge.variants.stackem.rules import StackRules

# The standard map, loaded once by the standard variant and shared (boards are read-only).
from judge.variants.standard import BOARD

VARIANT = Variant(
    name="stackem",
    title="Stack 'em Diplo",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BOARD,
    rules=StackRules(BOARD),
)
