"""Command lines -> commands, in the tradition of njudge and DPjudge.

One command per line. A line whose first word is not a command word is an order line for the
power the mail signed on as. Parsing never raises: a malformed command becomes a
:class:`Command` with ``error`` set to a specific message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from judge.commands import gm
from judge.durations import (  # noqa: F401 (commands read them from here)
    EXAMPLES,
    parse_duration,
    read_durations,
)
from judge.games.flow import all_flows

# command word -> (canonical name, usage)
COMMANDS: dict[str, tuple[str, str]] = {
    "HELP": ("HELP", "HELP"),
    "LIST": ("LIST", "LIST [game]"),
    "SIGNON": ("SIGNON", "SIGNON <power> <game> <password>"),
    "JOIN": ("JOIN", "JOIN <game> <power> <password>"),
    "MASTER": ("MASTER", "MASTER <game> <password>"),
    "CREATE": ("CREATE", "CREATE <game> <password> [VARIANT <name>] [DEADLINES <movement> "
                         "[<retreat> [<adjustment>]]]"),
    "OPEN": ("OPEN", "OPEN"),
    "START": ("START", "START"),
    "PROCESS": ("PROCESS", "PROCESS"),
    "DEADLINE": ("DEADLINE", "DEADLINE <duration from now, e.g. 36h or 2 days> | "
                             "<YYYY-MM-DD HH:MM> [zone] (the game's zone unless written)"),
    "DEADLINES": ("DEADLINES", "DEADLINES <movement> [<retreat> [<adjustment>]]"),
    "PAUSE": ("PAUSE", "PAUSE"),
    "RESUME": ("RESUME", "RESUME"),
    "CLEAR": ("CLEAR", "CLEAR"),
    "STATUS": ("STATUS", "STATUS [game]"),
    "MAP": ("MAP", "MAP [game] [phase] [SVG]"),
    "SIGNOFF": ("END", "SIGNOFF"),
    "END": ("END", "END"),
    "NEWTOKEN": ("NEWTOKEN", "NEWTOKEN"),  # judge/games/newtoken.py
}
# Variants' own command words are their game flows' (judge.games.flow: grammar, block_commands,
# check_command(name, args) -> reason)
_ALIASES = {"SIGN-ON": "SIGNON", "SIGN_ON": "SIGNON", "LOGIN": "SIGNON", "BYE": "END",
            "QUIT": "END", "ORDERS-CLEAR": "CLEAR"}
# commands whose line carries a password (gm.PASSWORD_AT adds the game-running ones)
PASSWORD_COMMANDS = {"SIGNON", "JOIN", "MASTER", "CREATE"} | set(gm.PASSWORD_AT)

GAME_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,29}$")
@dataclass(slots=True)
class Command:
    name: str  # canonical command name, or "ORDER"
    args: list[str] = field(default_factory=list)
    line: str = ""  # the line as written
    error: str = ""  # a specific reason the line cannot be used
    # a block command's lines (PROPOSE ... END; PRESS/BROADCAST ... ENDPRESS)
    block: list[str] = field(default_factory=list)
    # an ORDER line at the end of the mail that looks like a sign-off ("Cheers,", "Grüße",
    # a name under it): skipped, and said so, unless it reads as a valid order
    signoff: bool = False

    # indexes (in ``line.split()``) of the words that are passwords, set by the parser; a
    # malformed password command hides every word after its command word
    hide: tuple[int, ...] = ()

    @property
    def masked(self) -> str:
        """The line with any password replaced by ``****`` (for replies and the audit log)."""
        if not self.hide:
            return self.line
        words = self.line.split()
        for i in self.hide:
            if i < len(words):
                words[i] = "****"
        return " ".join(words)

    @property
    def passwords(self) -> list[str]:
        """The password words of this line (to mask them wherever the mail is kept)."""
        words = self.line.split()
        return [words[i] for i in self.hide if i < len(words)]


def parse_line(line: str) -> Command:
    cmd = _parse_line(line)
    words = line.split()
    if cmd.hide or not words:
        return cmd
    head = _ALIASES.get(words[0].upper().rstrip(":"), words[0].upper().rstrip(":"))
    head = gm.ALIASES.get(head, head)
    if cmd.error and (head in PASSWORD_COMMANDS or cmd.name in PASSWORD_COMMANDS):
        # which word is the password is unknown: hide every word after the command word
        first = 2 if len(words) > 1 and words[1].upper() in ("MASTER", "GM", "GAME") else 1
        cmd.hide = tuple(range(first, len(words)))
    return cmd


def _parse_line(line: str) -> Command:
    words = line.split()
    head = words[0].upper().rstrip(":") if words else ""
    head = _ALIASES.get(head, gm.ALIASES.get(head, head))
    if head not in COMMANDS and head in gm.COMMANDS:  # the judge's game-running commands
        cmd = Command(gm.COMMANDS[head][0], words[1:], line)
        reason = gm.check(cmd.name, cmd.args)
        if not reason and cmd.name in gm.PASSWORD_AT:
            cmd.hide = (gm.PASSWORD_AT[cmd.name],)
        if reason:
            for flow in all_flows():  # the same word in a variant's own form (ROLLBACK <turn>)
                if head in flow.grammar and not flow.check_command(flow.grammar[head][0],
                                                                   words[1:]):
                    return Command(flow.grammar[head][0], words[1:], line)
            cmd.error = f"{reason}; write: {gm.COMMANDS[head][1]}"
        return cmd
    if head not in COMMANDS:
        for flow in all_flows():
            if head in flow.grammar:
                name, usage = flow.grammar[head]
                cmd = Command(name, words[1:], line)
                reason = "" if name in flow.block_commands else flow.check_command(name,
                                                                                   words[1:])
                if reason:
                    cmd.error = f"{reason}; write: {usage}"
                return cmd
        return Command("ORDER", [], line)
    name, usage = COMMANDS[head]
    args = words[1:]
    cmd = Command(name, args, line)

    def bad(reason: str) -> Command:
        cmd.error = f"{reason}; write: {usage}"
        return cmd

    if name == "SIGNON":
        if args and args[0].upper() in ("MASTER", "GM"):
            if len(args) != 3:
                return bad("SIGNON MASTER needs a game and a password")
            cmd.name, cmd.args, cmd.hide = "MASTER", args[1:], (3,)
            return cmd
        if len(args) == 2:  # njudge: SIGNON Fgame password (F = power initial)
            if len(args[0]) < 2:
                return bad("SIGNON needs a power, a game and a password")
            cmd.args, cmd.hide = [args[0][0], args[0][1:], args[1]], (2,)
            return cmd
        if len(args) != 3:
            return bad("SIGNON needs a power, a game and a password")
        cmd.hide = (3,)
        return cmd
    if name == "JOIN":
        # JOIN <game> <password>: a game whose powers are assigned at the start (Dipnomicy)
        if len(args) not in (2, 3):
            return bad("JOIN needs a game, a power and a password")
        cmd.hide = (len(args),)
        return cmd
    if name == "MASTER":
        if len(args) != 2:
            return bad("MASTER needs a game and a password")
        cmd.hide = (2,)
        return cmd
    if name == "CREATE":
        if len(args) == 2 and args[0].upper() in ("A", "F", "ARMY", "FLEET"):
            return Command("ORDER", [], line)  # "Create A Bud": Dipnomicy's build (P2)
        skip = 1 if args and args[0].upper() == "GAME" else 0
        args = args[skip:]
        if len(args) < 2:
            return bad("CREATE needs a game name and a master password")
        if not GAME_NAME.match(args[0]):
            return bad(f"{args[0]!r} cannot be a game name (a letter, then up to 29 letters, "
                       "digits, '-' or '_')")
        cmd.args, cmd.hide = args, (2 + skip,)
        return cmd
    if name == "MAP":  # a last word PNG or SVG chooses the picture's format
        if len(args) - (1 if args and args[-1].upper() in ("PNG", "SVG") else 0) > 2:
            return bad("MAP takes a game name and a phase at most")
        return cmd
    if name in ("LIST", "STATUS"):
        if len(args) > 1:
            return bad(f"{name} takes at most one game name")
        return cmd
    if name == "DEADLINE":
        if not args:
            return bad("DEADLINE needs a time")
        return cmd
    if name == "DEADLINES":
        durations, used = read_durations(args)
        if used < len(args):
            if len(durations) == 3:
                return bad("DEADLINES takes three durations at most")
            return bad(f"{args[used]!r} is not a duration ({EXAMPLES})")
        if not durations:
            return bad("DEADLINES needs one to three durations")
        return cmd
    if name == "PROCESS" and len(args) == 1 and gm.PHASE.match(args[0]):
        return cmd  # PROCESS <phase>: the phase guard against processing twice
    if args and name not in ("END", "HELP"):
        return bad(f"{name} takes no arguments")
    return cmd


# Closings a player writes under the orders (compared without case and punctuation)
CLOSINGS = frozenset("""
cheers|thanks|thank you|thanks a lot|many thanks|thanks again|thx|tks|regards|best|
best regards|kind regards|warm regards|warmest regards|best wishes|all the best|yours|
yours truly|sincerely|yours sincerely|love|see you|see ya|later|greetings|good luck|
have fun|br|kr|grüße|grüsse|gruß|gruss|viele grüße|liebe grüße|beste grüße|schöne grüße|
herzliche grüße|lg|vg|mfg|mit freundlichen grüßen|danke|vielen dank|tschüss|tschüß|ciao|
salut|merci|merci beaucoup|cordialement|bien cordialement|amitiés|bien à vous|à bientôt|
a bientot|bises|bonne journée|saluti|cordiali saluti|grazie|saludos|un saludo|gracias|
abrazos|groeten|groetjes|met vriendelijke groet|hälsningar|mvh|pozdrawiam|pozdrav|
cumprimentos|obrigado|abraços""".replace("\n", "").split("|"))
# the first word of a line that is an order, never a sign-off ("A Par!", "Build!")
_ORDER_WORDS = {"A", "F", "ARMY", "FLEET", "BUILD", "REMOVE", "WAIVE", "DISBAND", "RETREAT",
                "PLACE"}
_WORD = re.compile(r"[^\W\d_]+(?:['’.-]+[^\W\d_]+)*\.?")
_TAIL = 3  # at most this many lines at the end: a closing and a name or two under it


def _words(line: str) -> list[str] | None:
    """The words of a line made of letters only (a closing's trailing , ! . allowed)."""
    words = line.strip().lstrip("-–—").rstrip(",!.").strip().split()
    if not words or not all(_WORD.fullmatch(w) for w in words):
        return None
    return words


def is_closing(line: str) -> bool:
    """A known closing (``Cheers``, ``Grüße``, ``Best regards``) or one or two words ending
    with ``,`` or ``!`` (``Bis bald!``, ``Yours,``); never a line led by an order word."""
    words = _words(line)
    if words is None or words[0].upper() in _ORDER_WORDS:
        return False
    if " ".join(w.lower().rstrip(".") for w in words) in CLOSINGS:
        return True
    return len(words) <= 2 and line.strip()[-1] in ",!"


def is_name(line: str) -> bool:
    """A signature's name under a closing: one to three words of letters (``Anna``,
    ``Hans Müller``, ``J.-P. Martin``)."""
    words = _words(line)
    return words is not None and len(words) <= 3 and words[0].upper() not in _ORDER_WORDS \
        and not line.strip().endswith((",", "!"))


def mark_signoff(cmds: list[Command]) -> None:
    """Mark the sign-off at the end of a mail's commands: the last lines (at most
    :data:`_TAIL`) when the first of them is a closing and the rest are closings or names,
    all of them lines that are not commands (the reader keeps any that reads as an order)."""
    tail = 0
    while tail < min(_TAIL, len(cmds)) and cmds[-1 - tail].name == "ORDER" and \
            (is_closing(cmds[-1 - tail].line) or is_name(cmds[-1 - tail].line)):
        tail += 1
    block = cmds[len(cmds) - tail:]
    while block and not is_closing(block[0].line):  # a name is one only under a closing
        block.pop(0)
    for cmd in block:
        cmd.signoff = True


def parse_lines(lines: list[str]) -> list[Command]:
    """Commands from a mail's lines; stops at SIGNOFF/END; blank lines are skipped; a
    sign-off at the end is marked (:func:`mark_signoff`)."""
    out: list[Command] = []
    block: Command | None = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if block is not None:  # inside PROPOSE ... END: prose, blank lines kept
            if line.upper() == "END":
                block = None
            else:
                block.block.append(raw.rstrip())
            continue
        if not line:
            continue
        cmd = parse_line(line)
        if cmd.name == "END":
            break
        if cmd.name in gm.BLOCKS:  # press runs to ENDPRESS (or the end of the mail)
            while i < len(lines) and not gm.is_block_end(lines[i]):
                cmd.block.append(lines[i].rstrip())
                i += 1
            i += 1
            while cmd.block and not cmd.block[-1].strip():
                cmd.block.pop()
            first = next((k for k, x in enumerate(cmd.block) if x.strip()), len(cmd.block))
            del cmd.block[:first]
        out.append(cmd)
        if not cmd.error and any(cmd.name in f.block_commands for f in all_flows()):
            block = cmd
    mark_signoff(out)
    return out
