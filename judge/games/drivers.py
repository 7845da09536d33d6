"""Game drivers: the hooks through which a variant with its own cycle runs in the mail loop.

Most variants play the standard cycle (orders, deadline, adjudication, report) and have no
driver. A variant whose game goes differently (Dipnomicy: random countries, proposals, votes,
a vote deadline, rule P5's deadline) supplies a driver; the mail loop asks for it at a few
fixed points instead of testing variant names:

* ``join(actor, game, password, address) -> str`` for ``JOIN <game> <password>``,
  ``check_join(game)`` (raise to refuse choosing a power) and ``join_hint(game)`` (how
  players join, for OPEN's reply);
* ``start(actor, ses, game, now) -> dict`` for START, ``process(actor, ses, game, now) -> str``
  for PROCESS;
* ``check_orders(actor, game, power)``: raise :class:`~judge.games.game.GameError` to refuse
  a power's orders now (and say why);
* ``process_when_ready``: whether the game is processed as soon as every power has ordered;
* ``due_ids(store, now)`` and ``due(actor, game, now) -> int``: the driver's own deadlines and
  the work done at any deadline of its games;
* ``wakeups(store) -> {game id: when}``: extra times the scheduler must wake the judge;
* ``status_notes(store, game) -> [str]``: lines STATUS and LIST add about the game;
* ``commands``: ``{name: handler(actor, ses, cmd) -> (text, kind, data)}`` for the variant's
  own command words (registered with the parser in ``judge/commands/``).
"""

from __future__ import annotations

import importlib
from datetime import datetime
from functools import cache
from typing import Any

from judge.storage import Store

# variant name -> module holding DRIVER
_MODULES = {"dipnomicy": "judge.games.dipnomicy"}


@cache
def _load(variant: str) -> Any:
    module = _MODULES.get(variant.lower())
    return importlib.import_module(module).DRIVER if module else None


def for_game(game: dict | None) -> Any:
    """The driver of ``game``'s variant, or None for the standard cycle."""
    return _load(game["variant"]) if game else None


def all_drivers() -> list[Any]:
    return [_load(v) for v in _MODULES]


def command_handler(name: str) -> Any:
    """The handler of a variant's own command word, or None."""
    for driver in all_drivers():
        handler = driver.commands.get(name)
        if handler is not None:
            return handler
    return None


def due_ids(store: Store, now: datetime) -> set[int]:
    return {gid for d in all_drivers() for gid in d.due_ids(store, now)}


def wakeups(store: Store) -> dict[int, datetime]:
    out: dict[int, datetime] = {}
    for d in all_drivers():
        for gid, when in d.wakeups(store).items():
            out[gid] = min(when, out.get(gid, when))
    return out
