"""The judge's command grammar: every command the judge itself reads, one
:class:`~judge.commands.spec.CommandSpec` each (its words, usage, argument check, password
word, block), in :data:`JUDGE_GRAMMAR`, and the table the parser reads a mail by
(:class:`CommandTable`, made by :func:`build` from specs).

The grammar knows no handler: the games layer binds each command to what carries it out
(:mod:`judge.games.commands`: the judge's handlers, and each variant flow's own commands,
which come with theirs), so this package never imports the games (issue 22).

To add a command: add its spec to :data:`JUDGE_GRAMMAR`, write its handler
(``def handler(actor, ses, cmd) -> Reply``; raise GameError to refuse) and bind it in
:data:`judge.games.commands.HANDLERS` (a variant: one spec with its handler in its flow's
``commands()``); document it in ``docs/commands.md`` (a variant: in its own docs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from judge.commands.spec import (
    JUDGE,
    Check,
    CommandSpec,
    Form,
    any_arguments,
    no_arguments,
)
from judge.durations import EXAMPLES, read_durations
from judge.engine.position import phase_code
from judge.mail.reading import auto_reply_subject

GAME_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,29}$")


# ------------------------------------------------------------------ checks
# Each: the line's words after the command word -> '' or the reason (or a Form)
def _signon(args: list[str]) -> str | Form:
    if args and args[0].upper() in ("MASTER", "GM"):
        if len(args) != 3:
            return "SIGNON MASTER needs a game and a password"
        return Form(args=tuple(args[1:]), password_at=3, name="MASTER")
    if len(args) == 2:  # njudge: SIGNON Fgame password (F = power initial)
        if len(args[0]) < 2:
            return "SIGNON needs a power, a game and a password"
        return Form(args=(args[0][0], args[0][1:], args[1]), password_at=2)
    if len(args) != 3:
        return "SIGNON needs a power, a game and a password"
    return ""


def _join(args: list[str]) -> str | Form:
    # JOIN <game> <password>: a game whose powers are assigned at the start (Dipnomicy)
    if len(args) not in (2, 3):
        return "JOIN needs a game, a power and a password"
    return Form(password_at=len(args))


def _master(args: list[str]) -> str:
    return "MASTER needs a game and a password" if len(args) != 2 else ""


def _create(args: list[str]) -> str | Form:
    if len(args) == 2 and args[0].upper() in ("A", "F", "ARMY", "FLEET"):
        return Form(name="ORDER")  # "Create A Bud": Dipnomicy's build (P2)
    skip = 1 if args and args[0].upper() == "GAME" else 0
    args = args[skip:]
    if len(args) < 2:
        return "CREATE needs a game name and a master password"
    if not GAME_NAME.match(args[0]):
        return (f"{args[0]!r} cannot be a game name (a letter, then up to 29 letters, digits, "
                "'-' or '_')")
    if auto_reply_subject(f"{args[0]}: "):  # its reports' subjects begin "<name>: "
        return (f"{args[0]!r} cannot be a game name: automatic replies begin their subjects "
                "so, and the judge never answers them (the players' replies to the game's "
                "reports would be taken for some); choose another")
    return Form(args=tuple(args), password_at=2 + skip)


def _map(args: list[str]) -> str:
    # a last word PNG or SVG chooses the picture's format
    if len(args) - (1 if args and args[-1].upper() in ("PNG", "SVG") else 0) > 2:
        return "MAP takes a game name and a phase at most"
    return ""


def _at_most_one_game(name: str) -> Check:
    def check(args: list[str]) -> str:
        return f"{name} takes at most one game name" if len(args) > 1 else ""
    return check


def _deadline(args: list[str]) -> str:
    return "" if args else "DEADLINE needs a time"


def _deadlines(args: list[str]) -> str:
    durations, used = read_durations(args)
    if used < len(args):
        if len(durations) == 3:
            return "DEADLINES takes three durations at most"
        return f"{args[used]!r} is not a duration ({EXAMPLES})"
    if not durations:
        return "DEADLINES needs one to three durations"
    return ""


def _process(args: list[str]) -> str:
    if len(args) == 1 and phase_code(args[0]):
        return ""  # PROCESS <phase>: the phase guard against processing twice
    return "PROCESS takes no arguments" if args else ""


def _exactly(count: int, reason: str) -> Check:
    def check(args: list[str]) -> str:
        return reason if len(args) != count else ""
    return check


def _confirm(args: list[str]) -> str:
    return "CONFIRM needs the code from the judge's confirmation request" if len(args) != 1 \
        else ""


def _history(args: list[str]) -> str:
    if len(args) > 1 and args[-1].upper() == "CLASSIC":  # the classic judges' layout
        args = args[:-1]
    if not 1 <= len(args) <= 3:
        return "HISTORY needs a game name and at most two phases (then CLASSIC for the " \
            "classic judges' layout)"
    for p in args[1:]:
        if not phase_code(p):
            return f"{p!r} is not a phase (write e.g. S1901M, F1902R, W1903A)"
    return ""


def _whois(args: list[str]) -> str:
    return "WHOIS needs a game name and at most one power" if not 1 <= len(args) <= 2 else ""


def _clear(args: list[str]) -> str:
    if args and [a.upper() for a in args] != ["PENDING"]:
        return "CLEAR takes nothing after it, or PENDING (CLEAR PENDING: your orders sent ahead)"
    return ""


def _rollback(args: list[str]) -> str:
    if len(args) != 1 or not phase_code(args[0]):
        return "ROLLBACK needs one phase (e.g. S1901M)"
    return ""


def _replace(args: list[str]) -> str:
    if len(args) != 3 or "@" not in args[1]:
        return "REPLACE needs a power, the new player's address and a password"
    return ""


def _set(args: list[str]) -> str:
    return "" if args else "SET needs a setting"


def _edit(args: list[str]) -> str:
    n = len(args)
    if not n or args[0].upper() not in ("ADD", "REMOVE", "OWNER"):
        return "EDIT needs ADD, REMOVE or OWNER"
    if args[0].upper() == "REMOVE":
        # in a retreat phase a province may hold a unit and the one it dislodged
        which = args[1].upper() if n > 1 else ""
        if n == 3 and which in ("DISLODGED", "STANDING"):  # the type left out
            return (f"EDIT REMOVE {which} takes a unit: its type and place (EDIT REMOVE "
                    f"{which} A {args[2].upper()})")
        if n == 3 or (n == 4 and which in ("DISLODGED", "STANDING")):
            return ""
        return "EDIT REMOVE takes a unit (EDIT REMOVE A PAR), or DISLODGED or STANDING and a unit"
    need = 4 if args[0].upper() == "ADD" else 3
    if n != need:
        return f"EDIT {args[0].upper()} takes {need - 1} words after it"
    return ""


def _press(args: list[str]) -> str:
    if not args or args[0].upper() != "TO" or len(args) < 2:
        return "PRESS needs TO and one or more powers (or ALL)"
    return ""


def _spec(name: str, usage: str, *aliases: str, check: Check = any_arguments,
          password_at: int | None = None, block: str = "", mail_after_reply: bool = False
          ) -> CommandSpec:
    """A judge's command: its name, usage and aliases, then what differs from the defaults
    (any arguments, no password, no block, its mail queued as it goes); no handler yet (the
    games layer binds it)."""
    return CommandSpec(name=name, words=(name, *aliases), usage=usage, handler=None,
                       check=check, grammar=JUDGE, password_at=password_at, block=block,
                       mail_after_reply=mail_after_reply)


# ------------------------------------------------------------------- table
JUDGE_GRAMMAR: tuple[CommandSpec, ...] = (
    # anyone
    _spec("HELP", "HELP"),
    _spec("LIST", "LIST [game]", check=_at_most_one_game("LIST")),
    _spec("STATUS", "STATUS [game]", check=_at_most_one_game("STATUS")),
    _spec("MAP", "MAP [game] [phase] [SVG]", check=_map),
    _spec("HISTORY", "HISTORY <game> [<phase> [<phase>]] [CLASSIC]", check=_history,
          mail_after_reply=True),
    _spec("SUMMARY", "SUMMARY <game>",
          check=_exactly(1, "SUMMARY needs one game name"), mail_after_reply=True),
    _spec("WHOIS", "WHOIS <game> [<power>]", check=_whois, mail_after_reply=True),
    _spec("OBSERVE", "OBSERVE <game>", "OBSERVER", "WATCH",
          check=_exactly(1, "OBSERVE needs one game name"), mail_after_reply=True),
    _spec("UNOBSERVE", "UNOBSERVE <game>", "UNWATCH",
          check=_exactly(1, "UNOBSERVE needs one game name"), mail_after_reply=True),
    _spec("CONFIRM", "CONFIRM <code>", check=_confirm, mail_after_reply=True),
    _spec("END", "END", "SIGNOFF", "BYE", "QUIT"),
    # players
    _spec("SIGNON", "SIGNON <power> <game> <password>", "SIGN-ON", "SIGN_ON",
          "LOGIN", check=_signon, password_at=3),
    _spec("JOIN", "JOIN <game> <power> <password>", check=_join, password_at=3),
    _spec("TAKEOVER", "TAKEOVER <power> <game> <password>",
          check=_exactly(3, "TAKEOVER needs a power, a game and a password"), password_at=3,
          mail_after_reply=True),
    _spec("CLEAR", "CLEAR [PENDING]", "ORDERS-CLEAR", check=_clear),
    _spec("NEWTOKEN", "NEWTOKEN", check=no_arguments("NEWTOKEN")),
    _spec("SET", "SET WAIT | SET NOWAIT | SET ABSENCE <from> TO <to> (players); "
                 "SET <setting> <value> (game masters: send HELP)",
          check=_set, mail_after_reply=True),
    _spec("PRESS", "PRESS TO <power>[,<power>...] [GREY|WHITE], then the message, "
                   "then ENDPRESS", check=_press, block="ENDPRESS",
          mail_after_reply=True),
    _spec("BROADCAST", "BROADCAST [GREY|WHITE], then the message, then ENDPRESS",
          block="ENDPRESS", mail_after_reply=True),
    _spec("DRAW", "DRAW [<power> <power> ...]", mail_after_reply=True),
    _spec("NODRAW", "NODRAW", check=no_arguments("NODRAW"), mail_after_reply=True),
    _spec("CONCEDE", "CONCEDE <power>", "CONCESSION",
          check=_exactly(1, "CONCEDE needs one power"), mail_after_reply=True),
    _spec("NOCONCEDE", "NOCONCEDE", check=no_arguments("NOCONCEDE"),
          mail_after_reply=True),
    # game masters
    _spec("CREATE", "CREATE <game> <password> [VARIANT <name>] [DEADLINES <movement> "
                    "[<retreat> [<adjustment>]]]", check=_create, password_at=2),
    _spec("MASTER", "MASTER <game> <password>", check=_master, password_at=2),
    _spec("OPEN", "OPEN", check=no_arguments("OPEN")),
    _spec("START", "START", check=no_arguments("START")),
    # the reports of the phases processed go after the reply (a flow's own stage, a vote,
    # queues its results while it runs: held until the reply too)
    _spec("PROCESS", "PROCESS", check=_process, mail_after_reply=True),
    _spec("DEADLINE", "DEADLINE <duration from now, e.g. 36h or 2 days> | "
                      "<YYYY-MM-DD HH:MM> [zone] (the game's zone unless written)",
          check=_deadline),
    _spec("DEADLINES", "DEADLINES <movement> [<retreat> [<adjustment>]]",
          check=_deadlines),
    _spec("PAUSE", "PAUSE", check=no_arguments("PAUSE"), mail_after_reply=True),
    _spec("RESUME", "RESUME", check=no_arguments("RESUME"), mail_after_reply=True),
    _spec("PREVIEW", "PREVIEW", check=no_arguments("PREVIEW"),
          mail_after_reply=True),
    _spec("ROLLBACK", "ROLLBACK <phase>", check=_rollback, mail_after_reply=True),
    _spec("EJECT", "EJECT <power>", check=_exactly(1, "EJECT needs one power"),
          mail_after_reply=True),
    _spec("REPLACE", "REPLACE <power> <address> <password>",
          check=_replace, password_at=3, mail_after_reply=True),
    _spec("ACT", "ACT <power>", "ACTAS", check=_exactly(1, "ACT needs one power"),
          mail_after_reply=True),
    _spec("EDIT", "EDIT ADD <power> <unit> | EDIT REMOVE [DISLODGED|STANDING] <unit> | "
                  "EDIT OWNER <centre> <power|NONE>", check=_edit,
          mail_after_reply=True),
    _spec("ENDGAME", "ENDGAME [DRAW <power> ... | WINNER <power>]", "TERMINATE",
          mail_after_reply=True),
)

# The judge's commands whose line carries a password (masked wherever the line is kept)
PASSWORD_COMMANDS = frozenset(s.name for s in JUDGE_GRAMMAR if s.carries_password)


@dataclass(frozen=True, slots=True)
class CommandTable:
    specs: tuple[CommandSpec, ...]
    # word -> the specs it calls: the judge's first, then the variants' in the flows' order
    by_word: dict[str, tuple[CommandSpec, ...]]
    judge: dict[str, CommandSpec]  # the judge's own commands by name

    def grammars(self) -> dict[str, set[str]]:
        """grammar -> the words it reads."""
        out: dict[str, set[str]] = {}
        for spec in self.specs:
            out.setdefault(spec.grammar, set()).update(spec.words)
        return out


def build(judge: Iterable[CommandSpec], others: Iterable[CommandSpec] = ()) -> CommandTable:
    """The table of the judge's commands (``judge``) and others (the variants' flows', in
    their order): a word calls the judge's spec first."""
    judge = tuple(judge)
    specs = [*judge, *others]
    by_word: dict[str, tuple[CommandSpec, ...]] = {}
    for spec in specs:
        for word in spec.words:
            if any(other.grammar == spec.grammar for other in by_word.get(word, ())):
                raise ValueError(f"the word {word} is given twice in the {spec.grammar} "
                                 "grammar")
            by_word[word] = (*by_word.get(word, ()), spec)
    return CommandTable(tuple(specs), by_word, {s.name: s for s in judge})
