"""A variant's game flow: how its games are played by mail, where that differs from the standard.

A variant is one folder (``variants/<name>/``): its map, rules, order reading and description,
and, when its games play differently, ``flow.py`` holding ``FLOW``, an instance of a
:class:`GameFlow` subclass. :func:`flow_of` is the one lookup; a variant without ``flow.py``
gets the base class, whose every hook is the standard game's flow, so it plays exactly as the
standard game does. The mail loop (``judge/games``, ``judge/reports.py``, ``judge/render``)
asks the flow at a few named points and never names a variant.

What a flow may change (each hook's docstring says more):

* settings chosen at CREATE (:meth:`GameFlow.settings`, :meth:`~GameFlow.describe`), the
  starting position, settings decided at the start (pseudonyms), how powers are named;
* hidden information (:attr:`GameFlow.hidden`): STATUS, LIST and MAP then show a player only
  their own part of the board, and the public report gets no picture;
* how orders are read and counted, how a phase is adjudicated, which deadline it gets;
* its reports (one per adjudication, rendered from the events each reader may see) and its
  start notice;
* its own commands (:meth:`GameFlow.commands`: one
  :class:`~judge.commands.spec.CommandSpec` each, added to the command table
  :mod:`judge.games.commands`);
* its own turn cycle, which the deadline engine drives as it drives any game's: joining
  without a power, START, the phases' deadlines (:meth:`GameFlow.phase_deadline`), a stage
  of its own before a phase (:meth:`GameFlow.stage`: a vote), what "ready" means in it
  (:meth:`GameFlow.waiting_for`), processing it (:meth:`GameFlow.process`), RESUME, STATUS
  notes;
* its own tables (:attr:`GameFlow.storage`).

A flow touches the judge only through the :class:`FlowContext` it is given (the store, the
outbox, the clock, the configuration) and the functions of :mod:`judge.games`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from judge.games import settings as S
from judge.games.errors import GameError
from judge.resources import variant_file
from judge.storage import parse_iso
from judge.variants import variant_names

if TYPE_CHECKING:
    from judge.commands.spec import CommandSpec
    from judge.config import Config
    from judge.engine.events import Event
    from judge.engine.orders import Order
    from judge.engine.position import Phase, Position
    from judge.engine.variant import Outcome, Variant
    from judge.games.turn import Turn
    from judge.mail.outbox import Outbox
    from judge.storage import Store

# The judge's draws of chance in a game (a Dipnomicy game's seed, Gunboat's pseudonyms): given
# what is drawn and for which game (e.g. "pseudonyms:game1"), the random source to draw it from
Chance = Callable[[str], random.Random]


def system_chance(purpose: str) -> random.Random:
    """The draws of a real judge: the operating system's randomness, which nobody can
    predict (a player who could would know the countries or pseudonyms before they are
    drawn). A simulator injects a seeded one instead (judge.service.Service's ``chance``)."""
    return random.SystemRandom()


class FlowContext(Protocol):
    """What a flow may use of the judge acting on a mail or a deadline."""

    s: Store  # the game store, inside the caller's transaction
    outbox: Outbox  # mail to send (queued; sent after the transaction)
    cfg: Config
    clock: Callable[[], datetime]  # the time now (tests move it)
    chance: Chance  # the random source of a game's draws (a simulator seeds it)

    def master_game(self, ses: Any) -> dict:
        """The game the mail's sender signed on to as master (GameError when none)."""
        ...


class GameFlow:
    """The standard game's flow; a variant's flow overrides what it needs."""

    # Whether the game hides information: STATUS, LIST and MAP then show no other power's
    # units, orders or readiness, only what is public; the public report gets no picture.
    hidden = False

    # The phase kinds (M, R, A) a player may send orders for ahead, in PHASE blocks
    # (judge/games/ahead.py); in a hidden game their conditions test only what the player sees.
    ahead_kinds = "MRA"

    # ---------------------------------------------------------------- settings
    def settings(self, variant: Variant, words: list[str]) -> dict:
        """Game settings from the words of CREATE after VARIANT/DEADLINES; GameError when a
        word means nothing for this variant."""
        if words:
            raise GameError(f"CREATE does not understand {words[0]!r}; write: CREATE <game> "
                            "<password> [VARIANT <name>] [DEADLINES <movement> [<retreat> "
                            "[<adjustment>]]]")
        return {}

    def describe(self, settings: dict) -> str:
        """The settings in words, for the CREATE reply and STATUS ('' when none)."""
        return ""

    def initial_position(self, variant: Variant, settings: dict) -> Position:
        return variant.initial_position()

    def on_start(self, settings: dict, powers: list[str], rng: random.Random) -> dict:
        """Settings decided when the game starts (e.g. pseudonyms, drawn from ``rng``);
        returns the new settings."""
        return settings

    # ------------------------------------------------------------------ names
    def label(self, settings: dict, power: str, reader: str | None = None) -> str:
        """How ``power`` is named in mail to ``reader`` (a power, or None: anyone else)."""
        return power.title()

    # ----------------------------------------------------------------- orders
    def read_lines(self, variant: Variant, pos: Position, power: str, texts: list[str]
                   ) -> list[dict] | None:
        """The lines read and checked, as stored (``{text, order, data, unit, error}``, see
        :func:`judge.games.game.order_entry`; a later order to a unit replacing an earlier
        one), or None: the standard reading."""
        return None

    def needs(self, variant: Variant, pos: Position, power: str
              ) -> tuple[list[str], int] | None:
        """(units to order, adjustment count) for ``power``, or None for the standard rule."""
        return None

    def missing(self, variant: Variant, pos: Position, power: str, lines: list[dict],
                submitted: bool) -> list[str] | None:
        """What ``power`` has still to order, or None for the standard count of units."""
        return None

    def adjudicate(self, variant: Variant, pos: Position, lines: list[tuple[str, Order | str]]
                   ) -> list[tuple[Outcome, list | None]]:
        """The phases adjudicated from the orders standing: ``[(outcome, orders as given or
        None)]``; usually one, but a variant may adjudicate several phases from one set of
        orders. Each order is as it was read and checked when it was sent (built from its
        stored data); a line stored as text only (before orders were stored as data, or kept
        as text by the flow to be read when its phase comes) is its text."""
        return [(variant.adjudicate_lines(pos, lines), None)]

    def deadline_kind(self, variant: Variant, pos: Position) -> str:
        """Which phase length (M, R or A) the phase starting at ``pos`` gets."""
        return pos.phase.kind

    # ---------------------------------------------------------------- reports
    # When True, the phases adjudicated together (one call of games.adjudicate) make one
    # report; otherwise each phase has its own.
    one_report_per_adjudication = False

    def classic_names(self, variant: Variant) -> dict | None:
        """What the classic report layout (njudge's, which the Mapper and its successors
        read: docs/commands.md, "The classic layout") needs of the variant, or None: its
        reports have no classic part.

        A variant gets the classic layout by holding ``classic.json`` (its name in the
        ``::`` header and its powers' adjectives) in its folder, as the standard game does. A
        flow that hides information never gets it, whatever its folder holds: the
        classic layout lists every power's orders and units."""
        if self.hidden:
            return None
        return _classic_names(variant.name)

    def turn_events(self, variant: Variant, steps: list[tuple[Outcome, list]]
                    ) -> list[Event] | None:
        """The events of phases reported together, each with its audience; None: the
        standard events of each phase."""
        return None

    def report(self, variant: Variant, game: dict, steps: list[tuple[Outcome, list]],
               seen: list[Event], reader: str | None) -> tuple[str, str, dict] | None:
        """(subject, template, context) of the report for ``reader`` from the events
        ``seen`` (only those it may see); None: the standard report."""
        return None

    def start_notice(self, variant: Variant, game: dict, pos: Position, reader: str | None
                     ) -> tuple[str, dict] | None:
        """(template, context) of the notice sent when the game starts; None: standard."""
        return None

    def summary(self, info: dict, reader: str | None) -> dict:
        """STATUS/LIST of a game as ``reader`` (a power signed on, or None) may see it."""
        return info

    def notice_template(self, kind: str) -> str:
        """The template of the deadline engine's notice ``kind`` (``reminder``...)."""
        return f"notices/{kind}.txt.j2"

    def notice_words(self, position: Position | None) -> dict:
        """What the flow's notice templates say of the phase at ``position``, beside the
        game, phase, deadline and what is missing."""
        return {}

    # --------------------------------------------------------------- commands
    def commands(self) -> list[CommandSpec]:
        """The flow's own commands, added to the command table (judge.games.commands) for
        every mail: each a CommandSpec with ``grammar`` the variant's name and a handler
        ``(ctx: FlowContext, ses, cmd) -> (reply text, kind, data)``. A command names its
        game after its word, or the mail's sign-on does. A word the judge has too (ROLLBACK)
        is read as the flow's when the judge's check refuses the line and the flow's passes."""
        return []

    def master_command(self, ctx: FlowContext, ses: Any, game: dict, cmd: Any
                       ) -> tuple[str, str, Any] | None:
        """A game master's command of the judge's that changes ``game`` (``cmd.name``:
        ROLLBACK, EDIT, REPLACE, EJECT, ACT, PROCESS, PAUSE, RESUME, ENDGAME, SET), asked
        before the judge does it: raise GameError to refuse it, saying why (nothing
        changes); return its reply ``(text, kind, data)`` having done it the variant's way;
        None: the judge does it its own way (which asks the flow's other hooks where they
        apply: the phase's deadline, the stages, RESUME, START, hidden information)."""
        return None

    def check_new_player(self, s: Store, game: dict, power: str, command: str) -> None:
        """Raise GameError to refuse ``power`` of ``game`` a new player by ``command``
        (TAKEOVER, or the master's REPLACE), saying why (nothing changes). Asked when the
        command is read and again when the new player's address confirms."""

    def sent_with(self, game: dict, phase: Phase) -> list[str]:
        """The later phases (codes) whose orders are sent in ``phase``: adjudicated with it
        from the orders sent there, the game never waiting in them (Stab!'s next season,
        sent in the retreat phase or the Winter). Orders sent ahead for them are taken when
        ``phase`` begins, as its orders (judge/games/ahead.py), not left for a phase that
        never begins."""
        return []

    def taken_with(self, game: dict, pos: Position, target: str, lines: list[str]
                   ) -> tuple[list[str], list[tuple[str, str]]]:
        """The order lines of a block sent ahead for ``target``, one of the phases
        :meth:`sent_with` names, as they join the orders of the phase of ``pos`` when it
        begins: (the lines kept, the lines left out with the reason). A line written for
        ``target`` may mean something else among that phase's orders (Stab!'s retreat written
        as a move). By default, every line is kept.

        Asked too whenever such a block is read before then (received, listed in a reply),
        with the game's position at that time: a line left out is shown as an ERROR line
        with the reason from the mail that sends it on, while the player can still send it
        again (judge/games/ahead.py)."""
        return lines, []

    def vacant_seat(self, game: dict, power: str) -> str:
        """What EJECT's reply says of ``power``, just left without a player: how it gets a
        new one (only commands :meth:`check_new_player` lets through) and what happens
        meanwhile."""
        # by the name the newcomer knows it by (Gunboat: its pseudonym, not its power)
        return (f"A new player can TAKEOVER {self.label(game_settings(game), power)} "
                f"{game['name']} <password>, or you can REPLACE them.")

    # ----------------------------------------------------------- joining, starting
    def check_join(self, game: dict) -> None:
        """Raise GameError to refuse a player choosing a power (JOIN/SIGNON with a power)."""

    def join_hint(self, game: dict) -> str:
        """How players join, for OPEN's reply."""
        return f"SIGNON <power> {game['name']} <password>"

    def join(self, ctx: FlowContext, game: dict, password: str, address: str) -> str:
        """JOIN <game> <password>: a player joining without naming a power."""
        raise GameError(f"say which power: JOIN {game['name']} <power> <password>")

    def start(self, ctx: FlowContext, ses: Any, game: dict, now: datetime) -> dict | None:
        """START done the flow's way (returns the game), or None: the standard start."""
        return None

    def check_orders(self, ctx: FlowContext, game: dict, power: str) -> None:
        """Raise GameError to refuse ``power``'s orders now (and say why)."""

    # ---------------------------------------------------------- the turn cycle
    # The deadline engine (judge/games/deadlines.py) drives one stage of a game at a time:
    # the phase of its position, unless the flow runs something else first (a vote). For the
    # stage it sends reminders, late notices in grace, the paused reminders, processes it
    # early once nobody is missing, at its deadline, or on PROCESS.

    def phase_deadline(self, s: Store, game: dict, pos: Position, now: datetime
                       ) -> datetime | None:
        """When the phase starting at ``pos`` now is due, before the game's time of day,
        weekdays and players' absences move it; None: by the game's phase lengths
        (DEADLINES) for :meth:`deadline_kind`."""
        return None

    def stage(self, s: Store, game: dict) -> Stage:
        """What the deadline engine drives now: the phase, with the game's grace and policy."""
        st = S.load(game)
        return Stage(key=game["phase"], deadline=_time(game["deadline"]),
                     started=_time(game["phase_started"]), grace=int(self.grace(s, game)),
                     missed=str(st["missed"]), title=game["phase"])

    def stages(self, s: Store, game: dict) -> list[Stage]:
        """Every stage whose deadline runs now: :meth:`stage` first, then any running beside
        it (a flow's vote before or beside the phase, and the phase itself). A player's
        absence (SET ABSENCE) pushes each of these deadlines that falls inside it."""
        first = self.stage(s, game)
        phase = GameFlow.stage(self, s, game)
        return [first] if first.key == phase.key else [first, phase]

    def grace(self, s: Store, game: dict) -> int:
        """Seconds of grace after the phase's deadline (late notices meanwhile): SET GRACE."""
        return int(S.load(game)["grace"])

    def waiting_for(self, s: Store, game: dict, stage: Stage) -> dict[str, list[str]] | None:
        """Power -> what it has still to send, for a stage that is not the phase's orders;
        None: the orders missing (who is "ready" in the stage)."""
        return None

    def took_part(self, s: Store, game: dict) -> set[str]:
        """Powers that took part in the phase being processed in a way of the variant's own
        though their orders are missing (a Dipnomicy player's proposal or vote): they have
        not missed it, and do not count towards being declared abandoned."""
        return set()

    def process(self, ctx: FlowContext, game: dict, now: datetime) -> list[Turn] | None:
        """Process the current stage (its deadline, early, or the master's PROCESS) and send
        its reports; returns the phases adjudicated. None: the standard (the phase is
        adjudicated and the caller sends the standard reports)."""
        return None

    def move_deadline(self, s: Store, game: dict, stage: Stage, when: datetime,
                      now: datetime, absence: bool = False) -> list[str] | None:
        """The master's DEADLINE while ``stage`` runs: move its deadline to ``when`` and
        return what the reply adds to "Deadline of <stage> set to <when>" (the deadlines
        that moved with it, or stay where the rules put them, and why); raise GameError to
        refuse (nothing changes). None: the standard, the phase's deadline
        (``games.deadline``) is set to ``when``. The caller makes the stage's reminder and
        late notices due again, relative to the new deadline.

        ``absence``: not the master's choice but a player's absence pushing the deadline to
        its end (no deadline falls inside an absence): the flow moves it there even where it
        would refuse the master, and the deadlines that follow it by its rules follow.

        A flow running a stage of its own (``stage.orders`` False: a vote) stores that
        stage's deadline itself; one that does not say how refuses, rather than moving the
        phase's deadline while another deadline is the one running."""
        if not stage.orders:
            raise GameError(f"game {game['name']} is in {stage.title}, whose deadline its "
                            "variant sets: DEADLINE cannot move it")
        return None

    def resume(self, s: Store, game: dict, now: datetime) -> bool:
        """RESUME: renew the flow's deadlines that passed during the pause; False: the
        standard (the phase's deadline, if it passed, runs again from now, as
        :meth:`phase_deadline` or DEADLINES say)."""
        return False

    def lengths(self, s: Store, game: dict) -> str:
        """The phase lengths in words when the flow sets them (CREATE, STATUS; DEADLINES is
        then refused with them); '' when the game's DEADLINES apply."""
        return ""

    def status_notes(self, s: Store, game: dict, now: datetime) -> list[str]:
        """Lines STATUS, LIST and RESUME's notice add about the game; ``now`` is the judge's
        clock (a deadline's time left is counted from it, never from the wall clock)."""
        return []

    # ---------------------------------------------------------------- storage
    # The flow's own tables: numbered migrations (SQL), applied in order once each
    # (judge.storage.Store.migrate_extension, by prepare_storage); append, never edit.
    storage: list[str] = []


@dataclass(frozen=True, slots=True)
class Stage:
    """What the deadline engine drives in a game now: usually the phase of its position."""

    key: str  # names its notices (each goes once): the phase, S1901M, or the flow's
    deadline: datetime | None
    started: datetime | None  # no reminder falls before it
    grace: int = 0  # seconds after the deadline with late notices before it is processed
    missed: str = "process"  # at the end of grace: process, or wait (SET MISSED)
    title: str = ""  # in replies and the log: "S1901M", "the vote on turn 1's proposals"
    orders: bool = True  # False: not the phase's orders (no late notices, no missed count)
    words: str = "orders"  # what is due, in the notices' subjects


def _time(text: str | None) -> datetime | None:
    return parse_iso(text) if text else None


@cache
def _classic_names(variant_name: str) -> dict | None:
    """A variant's ``classic.json``, read once; None when it has none."""
    try:
        source = variant_file(variant_name, "classic.json")
        if not source.is_file():
            return None
    except ModuleNotFoundError:  # not a variant package (a test's stand-in)
        return None
    data = json.loads(source.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


STANDARD = GameFlow()


@cache
def flow_of(variant_name: str) -> GameFlow:
    """The flow of the variant called ``variant_name``: its folder's ``flow.FLOW``, or the
    standard flow when it has none."""
    module = f"judge.variants.{variant_name.strip().lower()}.flow"
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # no such variant
        found = False
    if not found:
        return STANDARD
    flow = importlib.import_module(module).FLOW
    if not isinstance(flow, GameFlow):
        raise TypeError(f"{module}.FLOW is not a GameFlow")
    return flow


def flow_for(game: dict | None) -> GameFlow:
    """The flow of ``game``'s variant (the standard one for no game)."""
    return flow_of(game["variant"]) if game else STANDARD


@cache
def all_flows() -> tuple[GameFlow, ...]:
    """The flows of every variant that has its own (their command words)."""
    return tuple(f for f in (flow_of(n) for n in variant_names()) if f is not STANDARD)


def prepare_storage(s: Store) -> None:
    """Give the database the tables every flow declares (GameFlow.storage)."""
    for name in variant_names():
        flow = flow_of(name)
        if flow.storage:
            s.migrate_extension(name, flow.storage)


def game_settings(game: dict) -> dict:
    """A game's settings (JSON in ``games.settings``; absent in games created before them)."""
    return json.loads(game.get("settings") or "{}")
