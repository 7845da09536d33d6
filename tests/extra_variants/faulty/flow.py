"""Faulty's game flow: the standard one, but working out what is due (the stage) raises in
the phases a test puts in ``FAIL_STAGE_IN``: a fault that the deadline worker meets before a
game's transaction, when it only looks at whether the game has something due."""

from judge.games.flow import GameFlow
from judge.variants.faulty import FAIL_STAGE_IN, EngineFault


class FaultyFlow(GameFlow):
    def stage(self, s, game):
        if game["phase"] in FAIL_STAGE_IN:
            raise EngineFault(f"no stage for {game['phase']}: flow state unreadable")
        return super().stage(s, game)


FLOW = FaultyFlow()
