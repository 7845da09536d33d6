"""Draws and concessions.

A draw vote names the powers sharing the draw: all survivors (powers with a centre or a unit;
in a game that hides the board, with a centre: :func:`survivors`) unless the game's ``draw``
setting is ``subset``, when a vote may name some of them. Votes are secret: nobody is told how
anyone voted until every survivor has voted for the same draw, which ends the game. A
concession is a vote that one named power wins; when every other survivor concedes to it, the
game ends with that power the winner. Votes belong to a phase, so they reset when the phase is
processed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from judge.games import game as G
from judge.games import notices as N
from judge.games import press as P
from judge.games import settings as S
from judge.games.flow import flow_for
from judge.games.game import GameError
from judge.storage import Store

if TYPE_CHECKING:
    from judge.games.flow import FlowContext


def survivors(s: Store, game: dict) -> list[str]:
    """The powers with a centre or a unit; in a game that hides the board (Stab!), the
    powers with a centre. There the counts are public and the units are not: a vote naming
    a power without centres, accepted while its units stand and refused once they are gone,
    or a draw all the others agreed waiting for its vote, would tell that it still has units
    (it may only in the Winter that removes them)."""
    pos = G.current_position(s, game)
    variant = G.get_variant(game["variant"])
    if flow_for(game).hidden:
        return [p for p in variant.board.powers if pos.centres.get(p)]
    return [p for p in variant.board.powers if pos.centres.get(p) or pos.units_of(p)]


def _check(s: Store, game: dict, power: str) -> list[str]:
    if game["status"] not in ("active", "paused"):
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")
    alive = survivors(s, game)
    if power not in alive:
        if flow_for(game).hidden:  # it may have units till the Winter removes them
            raise GameError(f"{power.title()} has no supply centre left and does not vote")
        raise GameError(f"{power.title()} has been eliminated and does not vote")
    return alive


def _vote(s: Store, game: dict, power: str, kind: str, value: str | None) -> None:
    s.execute("DELETE FROM votes WHERE game_id = ? AND phase = ? AND power = ? AND kind = ?",
              (game["id"], game["phase"], power, kind))
    if value is not None:
        s.execute("INSERT INTO votes (game_id, phase, power, kind, value) VALUES (?, ?, ?, ?, ?)",
                  (game["id"], game["phase"], power, kind, value))


def _unanimous(s: Store, game: dict, kind: str, voters: list[str]) -> str | None:
    rows = {r["power"]: r["value"] for r in s.all(
        "SELECT power, value FROM votes WHERE game_id = ? AND phase = ? AND kind = ?",
        (game["id"], game["phase"], kind))}
    values = {rows.get(p) for p in voters}
    if len(values) == 1 and None not in values:
        return values.pop()
    return None


def finish(actor: FlowContext, game: dict, how: str, powers: list[str]) -> None:
    """End the game (draw, concession, or the master's decision) and tell everyone."""
    s = actor.s
    result = f"{how}: {', '.join(p.title() for p in powers)}" if powers else how
    winner = powers[0] if how == "conceded" and powers else None
    s.execute("UPDATE games SET status = 'finished', deadline = NULL, early_at = NULL, "
              "wake_at = NULL, result = ?, winner = COALESCE(?, winner) WHERE id = ?",
              (result, winner, game["id"]))
    N.ended(actor, G.refresh(s, game), how, powers)


def _shown(game: dict, reader: str, powers: list[str]) -> str:
    """``powers`` as ``reader`` knows them (a Gunboat game's pseudonyms), in the order of the
    names shown: an order by the real names would tell which pseudonym is which."""
    names = N.names_for(game, reader, "player")["names"]
    return ", ".join(sorted(names[p] for p in powers))


def draw(actor: FlowContext, game: dict, power: str, names: list[str]) -> str:
    s = actor.s
    alive = _check(s, game, power)
    if names:
        if S.load(game)["draw"] != "subset":
            raise GameError(f"game {game['name']} allows only a draw of all survivors: write "
                            "DRAW alone")
        chosen = sorted({P.power_named(game, n, power) for n in names})
        dead = [p for p in chosen if p not in alive]
        if dead and not G.hides_who_plays(game):
            raise GameError(f"{_shown(game, power, dead)} cannot share a draw: eliminated")
        # a survivor may vote for a draw it is not part of (conceding it to the others)
    else:
        chosen = sorted(alive)
    # Gunboat: the centre counts are public by power, not by pseudonym, so refusing a
    # pseudonym without centres would tell whose it is; the vote is for the draw of the
    # powers it names that have one (none: a draw nobody shares, never agreed)
    _vote(s, game, power, "draw", json.dumps([p for p in chosen if p in alive]))
    agreed = _unanimous(s, game, "draw", alive)
    if agreed is not None and json.loads(agreed):
        finish(actor, game, "drawn", json.loads(agreed))
        return (f"Every survivor has voted for the same draw: game {game['name']} ends in a "
                f"draw. Everyone has been told.")
    return (f"Your draw vote ({_shown(game, power, chosen)}) is recorded. Votes are "
            f"secret until every survivor agrees; they are cleared when {game['phase']} is "
            f"processed.")


def nodraw(actor: FlowContext, game: dict, power: str) -> str:
    _check(actor.s, game, power)
    _vote(actor.s, game, power, "draw", None)
    return "Your draw vote is withdrawn."


def concede(actor: FlowContext, game: dict, power: str, to: str) -> str:
    s = actor.s
    alive = _check(s, game, power)
    winner = P.power_named(game, to, power)
    if winner not in alive and not G.hides_who_plays(game):  # Gunboat: as in draw()
        raise GameError(f"{_shown(game, power, [winner])} has been eliminated: nobody can "
                        "concede to it")
    if winner == power:
        raise GameError("you cannot concede to yourself: the others concede to you")
    _vote(s, game, power, "concede", winner)
    others = [p for p in alive if p != winner]
    if winner in alive and _unanimous(s, game, "concede", others) == winner:
        finish(actor, game, "conceded", [winner])
        return (f"Every other survivor has conceded: {_shown(game, power, [winner])} wins game "
                f"{game['name']}. Everyone has been told.")
    return (f"Your concession to {_shown(game, power, [winner])} is recorded (secret until "
            f"every other survivor concedes; cleared when {game['phase']} is processed).")


def noconcede(actor: FlowContext, game: dict, power: str) -> str:
    _check(actor.s, game, power)
    _vote(actor.s, game, power, "concede", None)
    return "Your concession is withdrawn."
