"""Multiplicity II on the standard map: multiple units that merge and split."""

from pathlib import Path

from judge.engine.variant import Variant
from judge.variants.multiplicity.rules import MultiplicityRules
from judge.variants.standard import BOARD

VARIANT = Variant(
    name="multiplicity",
    title="Multiplicity II",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BOARD,
    rules=MultiplicityRules(BOARD),
)
