"""What a command's handler is given: the actor as a :class:`CommandContext` and the mail
being acted on as a :class:`MailSession`, with a :class:`PowerContext` per power it signed on
as.

The handlers (:mod:`judge.games.basics`, :mod:`judge.games.gmtools`, a variant's flow) and
the actor that calls them (:mod:`judge.games.acting`) both import this module, and it imports
neither: a handler never names the actor's class, so the actor, the command table that binds
the grammar to the handlers (:mod:`judge.games.commands`) and the handlers stand in layers
without a cycle (issue 22).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from judge.engine.ahead import is_header
from judge.games.errors import cut_quoted
from judge.games.flow import FlowContext

if TYPE_CHECKING:
    from judge.commands.spec import Command, Reply
    from judge.games.mapcmd import MailMaps
    from judge.mail.compose import Attachment
    from judge.mail.reading import Inbound


@dataclass(slots=True)
class PowerContext:
    """A power the mail signed on as, and the order lines it gathers for it."""

    game: dict
    power: str
    lines: list[str] = field(default_factory=list)
    cleared: bool = False
    touched: bool = False  # orders or CLEAR in this mail
    pending_cleared: bool = False  # CLEAR PENDING: the reply lists the (empty) pending orders
    # CLEAR PENDING inside a PHASE block: that block's PHASE line, so that the order lines
    # after it stay in a block (they were written under it) rather than replace the orders
    # for the phase; put back before the next order line, unless that starts a block itself
    reopen: str | None = None
    # (phase, variant, position) the order lines of this mail are read against, cached
    reading: tuple[str, Any, Any] | None = None
    # the PHASE blocks (by their place among the mail's blocks) that held a command carried
    # to their phase (SET WAIT): a block without order lines then withdraws nothing
    commanded: set[int] = field(default_factory=set)

    # whether ``lines`` held a PHASE line when ``seen`` of them were looked at (in_block)
    seen: int = 0
    has_block: bool = False
    # entered by the game's master (ACT): its player is told of the orders it changed
    by_master: bool = False

    def in_block(self) -> bool:
        """Whether the next order line falls in a PHASE block (one is open)."""
        if self.reopen is not None:
            return True
        if len(self.lines) < self.seen:  # CLEAR PENDING took the blocks out: look again
            self.seen, self.has_block = 0, False
        if not self.has_block:  # only the lines added since (a mail is read in one pass)
            self.has_block = any(is_header(x) for x in self.lines[self.seen:])
        self.seen = len(self.lines)
        return self.has_block


@dataclass(slots=True)
class MailSession:
    """One mail being acted on (one transaction): who it signed on as, and its reply."""

    inbound: Inbound
    inbox_id: int
    items: list[dict] = field(default_factory=list)
    contexts: dict[tuple[int, str], PowerContext] = field(default_factory=dict)
    current: PowerContext | None = None
    signon_failed: bool = False
    signon_held: bool = False  # a sign-on waits for the sender's address to confirm
    unanswered: str = ""  # why the mail gets no reply at all (judge/games/signup.py)
    address_refused: bool = False  # the reply address the mail was sent to signed on nothing
    master: dict | None = None
    master_failed: bool = False
    password_failed: bool = False  # a wrong (or locked) password: no later one is checked
    passwords: int = 0  # commands with a password looked at so far
    master_actions: int = 0  # commands that change a game (acting.MASTER_ACTIONS) so far
    games_touched: set[int] = field(default_factory=set)
    # games whose readers are told, after the mail, that their deadline moved (once): by
    # game, who moved it (None: the master; a power: its absence), in the mail's order
    deadline_told: dict[int, list[str | None]] = field(default_factory=dict)
    errors: int = 0
    later: list[Callable[[], None]] = field(default_factory=list)  # mail queued after the reply
    attachments: list[Attachment] = field(default_factory=list)  # files sent with the reply
    maps: MailMaps | None = None  # the pictures MAP lines attached (judge/games/mapcmd.py)

    def say(self, cmd: Command | None, text: str, *, error: bool = False, kind: str = "text",
            data: Any = None) -> None:
        if error:  # the word it could not use, quoted back cut short (errors.cut_quoted)
            text = cut_quoted(text)
        self.items.append({"echo": cmd.masked if cmd else "", "text": text, "error": error,
                           "kind": kind, "data": data})
        if error:
            self.errors += 1


class CommandContext(FlowContext, Protocol):
    """What a command's handler may use of the actor (judge.games.acting.Actor): a flow's
    context (the store, the outbox, the configuration, the clock), and signing on."""

    def master_game(self, ses: MailSession) -> dict:
        """The game the mail's sender signed on to as master (GameError when none)."""
        ...

    def set_context(self, ses: MailSession, game: dict, power: str) -> None:
        """The mail now acts as ``power`` in ``game`` (its order lines go to that power)."""
        ...

    def guard_password(self, scope: str, what: str) -> None:
        """Refuse (GameError) to check a password for ``scope`` while it is locked."""
        ...


# A judge command's handler (judge.commands.spec.Handler, typed)
CommandHandler = Callable[[CommandContext, MailSession, "Command"], "Reply"]
