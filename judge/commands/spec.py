"""What a command is: its spec (:class:`CommandSpec`, one per command, in the command table
:mod:`judge.commands.grammar`) and a command line read by it (:class:`Command`).

A spec says everything the judge needs of a command: the words that call it, its usage, which
grammar it belongs to (the judge's, or a variant's own), how its arguments are checked, where
its password stands, whether it takes the lines after it, and what carries it out. The parser
(:mod:`judge.commands.parse`) reads each line once into a :class:`Command` that keeps the spec
it was read by; the actor (:mod:`judge.games.acting`) calls that spec's handler.

This module imports nothing of the games layer: the handlers' first argument is whatever the
actor passes (see :class:`judge.games.flow.FlowContext`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JUDGE = "judge"  # the grammar of the judge's own commands; a variant's is the variant's name
ORDER = "ORDER"  # the name of a line that is no command: an order line

# What a handler returns: (reply text, kind of reply item, data for the reply template)
Reply = tuple[str, str, Any]
# A handler: (the actor, a judge.games.flow.FlowContext; the mail session; the command).
# It raises judge.games.errors.GameError to refuse; the command's savepoint then changes nothing.
Handler = Callable[[Any, Any, "Command"], Reply]


@dataclass(frozen=True, slots=True)
class Form:
    """How a line of a command whose words do not always stand in the same places reads
    (SIGNON's three forms, JOIN's two, CREATE's optional GAME): a check returns one."""

    error: str = ""  # why the line cannot be used ('' when it can)
    args: tuple[str, ...] | None = None  # the arguments in the standard form (None: as written)
    password_at: int | None = None  # the index of the password in the line's words
    name: str = ""  # read as another command of the judge ("MASTER"), or ORDER; '' itself


# '' when the arguments (the line's words after the command word) can be used, else the reason
# (the parser adds the usage); or a Form
Check = Callable[[list[str]], "str | Form"]


def any_arguments(args: list[str]) -> str:
    return ""


def no_arguments(name: str) -> Check:
    """The check of a command that takes nothing after its word."""
    def check(args: list[str]) -> str:
        return f"{name} takes no arguments" if args else ""
    return check


# A block command's lines end at one of these lines (``block="ENDPRESS"``) ...
END_PRESS = frozenset({"ENDPRESS", "END PRESS", "END-PRESS"})
# ... or at a line holding only END (``block="END"``)


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One command. ``words[0]`` is usually ``name``; the others are its aliases. Two grammars
    may share a word (the judge's ``ROLLBACK <phase>``, Dipnomicy's ``ROLLBACK <turn>``): a line
    is read by the first spec whose check passes (the judge's before the variants'), and when
    none passes it gets the first one's reason."""

    name: str  # canonical name (what Command.name says)
    words: tuple[str, ...]  # the words that call it, upper case
    usage: str  # shown after a reason: "...; write: <usage>"
    handler: Handler | None  # what carries it out (None: END, which the parser acts on)
    check: Check = any_arguments
    grammar: str = JUDGE  # "judge", or the name of the variant whose flow adds it
    password_at: int | None = None  # index in the line's words of its password, if it has one
    # "" or the line(s) ending the text that follows the command: "ENDPRESS" (press: always
    # taken, up to ENDPRESS, a line with a password or the end of the mail, so the text is
    # never read as orders) or "END" (a proposal, a ruleset: taken when the command line
    # reads, up to a line END; refused when a line with a password, which is read as a
    # command, or the end of the mail comes first)
    block: str = ""
    # Mail the handler queues goes out after the reply, and only if the command succeeds (the
    # actor holds it back while the handler runs: judge.mail.outbox.Outbox.holding)
    mail_after_reply: bool = False

    @property
    def carries_password(self) -> bool:
        return self.password_at is not None


@dataclass(slots=True)
class Command:
    """A line of a mail, read once: a command (``spec`` says which) or an order line."""

    name: str  # canonical command name, or ORDER
    args: list[str] = field(default_factory=list)
    line: str = ""  # the line as written
    error: str = ""  # a specific reason the line cannot be used
    # a block command's lines (PROPOSE ... END; PRESS/BROADCAST ... ENDPRESS)
    block: list[str] = field(default_factory=list)
    # an ORDER line at the end of the mail that looks like a sign-off ("Cheers,", "Grüße",
    # a name under it): skipped, and said so, unless it reads as a valid order
    signoff: bool = False
    # said in the reply after the command's own answer (a press cut short by a password line)
    note: str = ""
    # a sign-off only by its looks (prose, a name with no closing above it): skipped only when
    # its first word is no place or unit either
    loose: bool = False
    # a closing word alone on its line above the mail's last lines (``Best`` over ``Anna
    # (Germany)``): the lines under it, none of which may read as an order for it to be skipped
    under: tuple[str, ...] = ()

    # indexes (in ``line.split()``) of the words that are passwords, set by the parser; a
    # malformed password command hides every word after its command word
    hide: tuple[int, ...] = ()
    spec: CommandSpec | None = None  # the spec the line was read by (None: an order line)

    @property
    def grammar(self) -> str:
        """The grammar the line was read by: "judge", a variant's name, or "" (an order)."""
        return self.spec.grammar if self.spec is not None else ""

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
