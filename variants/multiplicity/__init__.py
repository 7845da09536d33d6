"""Multiplicity II on the standard map: multiple units that merge and split."""

from importlib.resources import files

from judge.engine.variant import Variant
from judge.variants.multiplicity.rules import MultiplicityRules
from judge.variants.standard import BOARD

VARIANT = Variant(
    name="multiplicity",
    title="Multiplicity II",
    description=files(__name__).joinpath("description.md").read_text(encoding="utf-8"),
    board=BOARD,
    rules=MultiplicityRules(BOARD),
)
