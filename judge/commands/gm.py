"""The command words of running games like a seasoned judge (deadlines, the GM toolkit, press,
observers, draws, queries): their grammar and the checks that need no database.

Kept apart from :mod:`judge.commands.parse` so that the shared command table there stays
small; ``parse_line`` consults :data:`COMMANDS` after its own table. Acting on these commands
is :mod:`judge.games.gmtools`.
"""

from __future__ import annotations

import re
from typing import Any

# command word -> (canonical name, usage)
COMMANDS: dict[str, tuple[str, str]] = {
    "SET": ("SET", "SET WAIT | SET NOWAIT | SET ABSENCE <from> TO <to> (players); "
                   "SET <setting> <value> (game masters: send HELP)"),
    "PRESS": ("PRESS", "PRESS TO <power>[,<power>...] [GREY|WHITE], then the message, "
                       "then ENDPRESS"),
    "BROADCAST": ("BROADCAST", "BROADCAST [GREY|WHITE], then the message, then ENDPRESS"),
    "OBSERVE": ("OBSERVE", "OBSERVE <game>"),
    "UNOBSERVE": ("UNOBSERVE", "UNOBSERVE <game>"),
    "CONFIRM": ("CONFIRM", "CONFIRM <code>"),
    "DRAW": ("DRAW", "DRAW [<power> <power> ...]"),
    "NODRAW": ("NODRAW", "NODRAW"),
    "CONCEDE": ("CONCEDE", "CONCEDE <power>"),
    "NOCONCEDE": ("NOCONCEDE", "NOCONCEDE"),
    "HISTORY": ("HISTORY", "HISTORY <game> [<phase> [<phase>]]"),
    "SUMMARY": ("SUMMARY", "SUMMARY <game>"),
    "WHOIS": ("WHOIS", "WHOIS <game> [<power>]"),
    "TAKEOVER": ("TAKEOVER", "TAKEOVER <power> <game> <password>"),
    "PREVIEW": ("PREVIEW", "PREVIEW"),
    "ROLLBACK": ("ROLLBACK", "ROLLBACK <phase>"),
    "EJECT": ("EJECT", "EJECT <power>"),
    "REPLACE": ("REPLACE", "REPLACE <power> <address> <password>"),
    "ACT": ("ACT", "ACT <power>"),
    "EDIT": ("EDIT", "EDIT ADD <power> <unit> | EDIT REMOVE <unit> | "
                     "EDIT OWNER <centre> <power|NONE>"),
    "ENDGAME": ("ENDGAME", "ENDGAME [DRAW <power> ... | WINNER <power>]"),
}
ALIASES = {"OBSERVER": "OBSERVE", "WATCH": "OBSERVE", "UNWATCH": "UNOBSERVE",
           "ACTAS": "ACT", "TERMINATE": "ENDGAME", "CONCESSION": "CONCEDE"}
BLOCKS = {"PRESS", "BROADCAST"}  # followed by free text up to ENDPRESS
END_BLOCK = {"ENDPRESS", "END PRESS", "END-PRESS"}
PASSWORD_AT = {"TAKEOVER": 3, "REPLACE": 3}  # index of the password word in the line
PHASE = re.compile(r"^[SFWU]\d{1,4}[MRA]$", re.IGNORECASE)


def check(name: str, args: list[str]) -> str:
    """A specific reason these arguments cannot be used ("" when they can)."""
    n = len(args)
    if name in ("NODRAW", "NOCONCEDE", "PREVIEW") and n:
        return f"{name} takes no arguments"
    if name in ("OBSERVE", "UNOBSERVE", "SUMMARY") and n != 1:
        return f"{name} needs one game name"
    if name == "CONFIRM" and n != 1:
        return "CONFIRM needs the code from the judge's confirmation request"
    if name == "HISTORY" and not 1 <= n <= 3:
        return "HISTORY needs a game name and at most two phases"
    if name == "HISTORY":
        for p in args[1:]:
            if not PHASE.match(p):
                return f"{p!r} is not a phase (write e.g. S1901M, F1902R, W1903A)"
    if name == "WHOIS" and not 1 <= n <= 2:
        return "WHOIS needs a game name and at most one power"
    if name == "TAKEOVER" and n != 3:
        return "TAKEOVER needs a power, a game and a password"
    if name == "ROLLBACK" and (n != 1 or not PHASE.match(args[0])):
        return "ROLLBACK needs one phase (e.g. S1901M)"
    if name == "EJECT" and n != 1:
        return "EJECT needs one power"
    if name == "REPLACE" and (n != 3 or "@" not in args[1]):
        return "REPLACE needs a power, the new player's address and a password"
    if name in ("ACT", "CONCEDE") and n != 1:
        return f"{name} needs one power"
    if name == "SET" and not n:
        return "SET needs a setting"
    if name == "EDIT":
        if not n or args[0].upper() not in ("ADD", "REMOVE", "OWNER"):
            return "EDIT needs ADD, REMOVE or OWNER"
        need = {"ADD": (4, 4), "REMOVE": (3, 3), "OWNER": (3, 3)}[args[0].upper()]
        if not need[0] <= n <= need[1]:
            return f"EDIT {args[0].upper()} takes {need[0] - 1} words after it"
    if name == "PRESS" and (not n or args[0].upper() != "TO" or n < 2):
        return "PRESS needs TO and one or more powers (or ALL)"
    return ""


def is_block_end(line: str) -> bool:
    return " ".join(line.split()).upper() in END_BLOCK


def summary(cmd: Any) -> str:
    """A press command for the audit log: never its text."""
    return f"{cmd.line} ({len(cmd.block)} line(s))"
