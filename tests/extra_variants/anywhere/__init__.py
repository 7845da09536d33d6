"""Anywhere: standard Diplomacy in which a power builds in any supply centre it owns that no
unit holds, home or not (a test variant: the ``build_sites`` hook of the rules alone,
docs/engine.md "How each variant plugs in")."""

from judge.engine.position import Position
from judge.engine.variant import Variant
from judge.variants.standard import BOARD
from judge.variants.standard.rules import StandardRules


class AnywhereRules(StandardRules):
    def build_sites(self, position: Position, power: str) -> set[str]:
        occupied = {u.province for u in position.units}
        return position.centres.get(power, set()) - occupied

    def build_site_refusal(self, position: Position, power: str, province: str) -> str:
        if province not in position.centres.get(power, set()):
            return f"{power} does not own {self.name(province)}"
        return f"{self.name(province)} is occupied"


VARIANT = Variant(
    name="anywhere",
    title="Build-anywhere Diplomacy",
    description="Standard Diplomacy; builds in any owned, unoccupied supply centre.",
    board=BOARD,
    rules=AnywhereRules(BOARD),
)
