"""Faulty: standard Diplomacy whose rules raise when asked to adjudicate a chosen phase (the
tests of issue 22: one game's failure is contained to that game). A test puts the phases in
``FAIL_IN`` (or ``FAIL_STAGE_IN``) and takes them out again when "the fault is fixed"; the judge, which never names
a variant, sees only an exception out of the variant's rules."""

from judge.engine.variant import Variant
from judge.variants.standard import BOARD
from judge.variants.standard.rules import StandardRules

FAIL_IN: set[str] = set()  # phase codes (S1901M) whose adjudication raises
FAIL_STAGE_IN: set[str] = set()  # phase codes whose stage (flow.py) raises


class EngineFault(RuntimeError):
    """What a bug in an adjudication engine looks like to the judge."""


class FaultyRules(StandardRules):
    def adjudicate(self, position, orders):
        if str(position.phase) in FAIL_IN:
            raise EngineFault(f"cannot resolve {position.phase}: decision cycle without a "
                              "backup rule")
        return super().adjudicate(position, orders)


VARIANT = Variant(
    name="faulty",
    title="Faulty Diplomacy",
    description="Standard Diplomacy whose adjudication fails in the phases a test chooses.",
    board=BOARD,
    rules=FaultyRules(BOARD),
)
