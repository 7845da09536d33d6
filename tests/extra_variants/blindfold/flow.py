"""Blindfold's game flow: every event about a unit is told to its owner only."""

from dataclasses import replace

from judge.engine.events import Event, only, standard_events
from judge.games.flow import GameFlow
from judge.reports import phase_report, position_context

# The events about one power's units (and its orders), with that power in ``fields["power"]``.
PRIVATE = {"order", "dislodged", "disbanded", "built", "units"}


class BlindfoldFlow(GameFlow):
    hidden = True  # STATUS/LIST/MAP: own part of the board only; no public picture

    def turn_events(self, variant, steps):
        events = [e for outcome, orders in steps for e in standard_events(outcome, orders)]
        return [replace(e, audience=only(e.fields["power"])) if e.kind in PRIVATE else e
                for e in events]

    def report(self, variant, game, steps, seen: list[Event], reader):
        return phase_report(variant, game, steps[-1][0], seen, reader,
                            classic_names=self.classic_names(variant))

    def start_notice(self, variant, game, pos, reader):
        mine = pos.following(pos.units_of(reader) if reader else [])
        return "started.txt.j2", {
            "game": game["name"], "variant": variant.title, "phase": game["phase"],
            "phase_name": pos.phase.long_name, "deadline": game["deadline"],
            "table": position_context(variant, mine), "you": reader, "gmpress": False}

    def summary(self, info, reader):
        for entry in info["powers"]:
            if entry["power"] != reader:
                for key in ("units", "to_order", "ordered"):
                    entry.pop(key, None)
        return info


FLOW = BlindfoldFlow()
