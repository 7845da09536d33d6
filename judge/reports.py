"""Turn reports: an adjudicated phase becomes one email to every player and the game master.

Standard games show everything to everyone, so each recipient gets the same report; the
report context is built once from the engine's Outcome and the stored orders.
"""

from __future__ import annotations

from typing import Any

from judge.engine.position import Position
from judge.games import game as G
from judge.mail.compose import duration_text
from judge.mail.outbox import Outbox
from judge.storage import Store


def duration(seconds: int) -> str:
    return duration_text(seconds)


def recipients(s: Store, game: dict) -> list[tuple[str, str | None]]:
    """(address, power) of every player, then the master (power None); each address once."""
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()
    for p in s.players(game["id"]):
        if p["address"].lower() not in seen:
            seen.add(p["address"].lower())
            out.append((p["address"], p["power"]))
    if game["master_address"].lower() not in seen:
        out.append((game["master_address"], None))
    return out


def position_context(variant: Any, pos: Position) -> list[dict]:
    """Per power: units, centres, count, builds/removals due (adjustment phase)."""
    rows = []
    for power in variant.board.powers:
        centres = sorted(pos.centres.get(power, ()))
        units = sorted(str(u) for u in pos.units_of(power))
        adjust = variant.adjustment_count(pos, power) if pos.phase.kind == "A" else 0
        rows.append({"power": power, "centres": centres, "count": len(centres),
                     "units": units, "adjust": adjust})
    return rows


def turn_context(s: Store, turn: G.Turn) -> dict:
    game = G.refresh(s, turn.game)
    variant = G.get_variant(game["variant"])
    outcome = turn.outcome
    prev: Position = turn.previous
    new: Position = outcome.position
    by_power: dict[str, list[dict]] = {}
    for r in outcome.results:
        by_power.setdefault(r.power, []).append(
            {"order": r.order, "result": r.result, "reason": r.reason})
    dislodged = [{"power": d.unit.power, "unit": str(d.unit),
                  "attacker_from": d.attacker_from,
                  "retreats": [variant.board.full_name(x) + f" ({x})" for x in d.retreats or ()]}
                 for d in (outcome.dislodged or new.dislodged)]
    changes = [{"centre": c, "old": old, "new": newo}
               for c, (old, newo) in sorted((outcome.centre_changes or {}).items())]
    return {
        "game": game["name"], "variant": variant.title,
        "phase": str(prev.phase), "phase_name": prev.phase.long_name,
        "powers": list(variant.board.powers),
        "results": by_power,
        "dislodged": dislodged,
        "disbanded": [f"{u.power.title()} {u}" for u in outcome.disbanded or ()],
        "built": [f"{u.power.title()} {u}" for u in outcome.built or ()],
        "changes": changes,
        "table": position_context(variant, new),
        "next_phase": str(new.phase), "next_phase_name": new.phase.long_name,
        "deadline": None if new.winner else game["deadline"],
        "winner": new.winner,
        "adjustment_next": new.phase.kind == "A",
        "retreat_next": new.phase.kind == "R",
    }


def queue_turns(outbox: Outbox, s: Store, turns: list[G.Turn]) -> None:
    for turn in turns:
        ctx = turn_context(s, turn)
        subject = f"{ctx['game']}: {ctx['phase_name']} ({ctx['phase']}) results"
        for address, power in recipients(s, turn.game):
            outbox.queue(kind="report", to=address, subject=subject, template="report.txt.j2",
                         context={**ctx, "you": power}, game_id=turn.game["id"])


def queue_start(outbox: Outbox, s: Store, game: dict) -> None:
    variant = G.get_variant(game["variant"])
    pos = G.current_position(s, game)
    ctx = {"game": game["name"], "variant": variant.title, "phase": game["phase"],
           "phase_name": pos.phase.long_name, "deadline": game["deadline"],
           "table": position_context(variant, pos),
           "players": [(p["power"]) for p in s.players(game["id"])]}
    subject = f"{game['name']}: the game has started ({pos.phase.long_name})"
    for address, power in recipients(s, game):
        outbox.queue(kind="report", to=address, subject=subject, template="started.txt.j2",
                     context={**ctx, "you": power}, game_id=game["id"])
