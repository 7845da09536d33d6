"""The command table: the judge's grammar (:mod:`judge.commands.grammar`) bound to the
handlers that carry its commands out, and every variant flow's own commands
(:meth:`judge.games.flow.GameFlow.commands`), in one place; and the mail's lines read by it.

The handlers are in :mod:`judge.games.basics` (signing on, creating, starting, the mail loop's
queries), :mod:`judge.games.gmtools` (running games: deadlines, the GM toolkit, press,
observers, draws) and :mod:`judge.games.newtoken`. This module stands above them and above the
grammar, and below the actor (:mod:`judge.games.acting`) that reads a mail by :func:`table`:
the grammar never imports the games (issue 22).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from judge.commands import parse as P
from judge.commands.grammar import (  # noqa: F401 (read from here too)
    JUDGE_GRAMMAR,
    PASSWORD_COMMANDS,
    CommandTable,
)
from judge.commands.grammar import build as build_table
from judge.commands.spec import Command, CommandSpec
from judge.games import basics as B
from judge.games import gmtools as T
from judge.games.flow import GameFlow, all_flows
from judge.games.newtoken import newtoken
from judge.games.session import CommandHandler

# The judge's commands -> what carries each out (END: none, the parser acts on it)
HANDLERS: dict[str, CommandHandler | None] = {
    # anyone
    "HELP": B.help_command, "LIST": T.list_games, "STATUS": B.status, "MAP": B.map_picture,
    "HISTORY": T.history, "SUMMARY": T.summary, "WHOIS": T.whois, "OBSERVE": T.observe,
    "UNOBSERVE": T.unobserve, "CONFIRM": T.confirm, "END": None,
    # players
    "SIGNON": B.signon, "JOIN": B.join, "TAKEOVER": T.takeover, "CLEAR": B.clear,
    "NEWTOKEN": newtoken, "SET": T.set_setting, "PRESS": T.press, "BROADCAST": T.press,
    "DRAW": T.draw, "NODRAW": T.nodraw, "CONCEDE": T.concede, "NOCONCEDE": T.noconcede,
    # game masters
    "CREATE": B.create, "MASTER": B.master, "OPEN": B.open_game, "START": B.start,
    "PROCESS": T.process, "DEADLINE": B.deadline, "DEADLINES": B.deadlines, "PAUSE": T.pause,
    "RESUME": T.resume, "PREVIEW": T.preview, "ROLLBACK": T.rollback, "EJECT": T.eject,
    "REPLACE": T.replace_player, "ACT": T.act, "EDIT": T.edit, "ENDGAME": T.endgame,
}


def _bound(grammar: tuple[CommandSpec, ...]) -> tuple[CommandSpec, ...]:
    if unbound := {s.name for s in grammar} ^ set(HANDLERS):
        raise ValueError(f"commands without both a spec and a handler: {sorted(unbound)}")
    return tuple(replace(spec, handler=HANDLERS[spec.name]) for spec in grammar)


# The judge's own commands, each spec with its handler
JUDGE_COMMANDS: tuple[CommandSpec, ...] = _bound(JUDGE_GRAMMAR)


def build(flows: tuple[GameFlow, ...]) -> CommandTable:
    """The table of the judge's commands and these flows' own."""
    return build_table(JUDGE_COMMANDS, (spec for f in flows for spec in f.commands()))


@cache
def _table(flows: tuple[GameFlow, ...]) -> CommandTable:
    return build(flows)


def table() -> CommandTable:
    """The whole command table: the judge's commands and every variant flow's."""
    return _table(all_flows())


def parse_line(line: str) -> Command:
    """One line read by the whole table (:func:`judge.commands.parse.parse_line`)."""
    return P.parse_line(line, table())


def parse_lines(lines: list[str]) -> list[Command]:
    """A mail's lines read by the whole table (:func:`judge.commands.parse.parse_lines`)."""
    return P.parse_lines(lines, table())
