"""What a variant may change in how the mail loop runs its games.

The mail loop (``judge/games``, ``judge/reports.py``) is the same for every variant; a variant
whose games need more (settings chosen at CREATE, orders that are not one per unit, phases
that run on their own, reports that hide things, pseudonyms) supplies a :class:`GamePlugin`
registered in :data:`PLUGINS`. The defaults here are the standard behaviour, so a variant
without a plug-in plays exactly as before. Plug-ins live in their own modules
(``judge/games/stab.py``) so that variant code stays out of the shared files.
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.engine.events import Event
    from judge.engine.position import Position
    from judge.engine.variant import Outcome


class GamePlugin:
    """The standard behaviour; a variant's plug-in overrides what it needs."""

    # Whether the game hides information: STATUS and LIST then show no other power's units,
    # orders or readiness, only what is public.
    hidden = False

    # ---------------------------------------------------------------- settings
    def settings(self, variant: Any, words: list[str]) -> dict:
        """Game settings from the words of CREATE after VARIANT/DEADLINES; GameError when a
        word means nothing for this variant."""
        if words:
            from judge.games.game import GameError

            raise GameError(f"CREATE does not understand {words[0]!r}; write: CREATE <game> "
                            "<password> [VARIANT <name>] [DEADLINES <movement> [<retreat> "
                            "[<adjustment>]]]")
        return {}

    def describe(self, settings: dict) -> str:
        """The settings in words, for the CREATE reply and STATUS ('' when none)."""
        return ""

    def initial_position(self, variant: Any, settings: dict) -> Position:
        return variant.initial_position()

    def on_start(self, settings: dict, powers: list[str]) -> dict:
        """Settings decided when the game starts (e.g. pseudonyms); returns the new settings."""
        return settings

    # ------------------------------------------------------------------ names
    def label(self, settings: dict, power: str, reader: str | None = None) -> str:
        """How ``power`` is named in mail to ``reader`` (a power, or None: anyone else)."""
        return power.title()

    # ----------------------------------------------------------------- orders
    def read_lines(self, variant: Any, pos: Position, power: str, texts: list[str]
                   ) -> list[dict] | None:
        """The lines read and checked, as stored (``{text, order, unit, error}``, a later
        order to a unit replacing an earlier one), or None: the standard reading."""
        return None

    def needs(self, variant: Any, pos: Position, power: str) -> tuple[list[str], int] | None:
        """(units to order, adjustment count) for ``power``, or None for the standard rule."""
        return None

    def missing(self, variant: Any, pos: Position, power: str, lines: list[dict],
                submitted: bool) -> list[str] | None:
        """What ``power`` has still to order, or None for the standard count of units."""
        return None

    def adjudicate(self, variant: Any, pos: Position, lines: list[tuple[str, str]]
                   ) -> list[tuple[Outcome, list | None]]:
        """The phases adjudicated from these lines: ``[(outcome, orders as given or None)]``;
        usually one, but a variant may adjudicate several phases from one set of orders."""
        return [(variant.adjudicate_lines(pos, lines), None)]

    def deadline_kind(self, variant: Any, pos: Position) -> str:
        """Which phase length (M, R or A) the phase starting at ``pos`` gets."""
        return pos.phase.kind

    # ---------------------------------------------------------------- reports
    # When True, the phases adjudicated together (one call of games.adjudicate) make one
    # report; otherwise each phase has its own.
    one_report_per_adjudication = False

    def turn_events(self, variant: Any, steps: list[tuple[Outcome, list]]) -> list[Event] | None:
        """The events of phases reported together, each with its audience; None: the
        standard events of each phase."""
        return None

    def report(self, variant: Any, game: dict, steps: list[tuple[Outcome, list]],
               seen: list[Event], reader: str | None) -> tuple[str, str, dict] | None:
        """(subject, template, context) of the report for ``reader`` from the events
        ``seen`` (only those it may see); None: the standard report."""
        return None

    def start_notice(self, variant: Any, game: dict, pos: Position, reader: str | None
                     ) -> tuple[str, dict] | None:
        """(template, context) of the notice sent when the game starts; None: standard."""
        return None

    def summary(self, info: dict, reader: str | None) -> dict:
        """STATUS/LIST of a game as ``reader`` (a power signed on, or None) may see it."""
        return info


DEFAULT = GamePlugin()

# variant name -> module holding ``PLUGIN``; imported when first needed.
PLUGINS: dict[str, str] = {"stab": "judge.games.stab"}


def plugin(variant_name: str) -> GamePlugin:
    module = PLUGINS.get(variant_name.lower())
    if module is None:
        return DEFAULT
    return importlib.import_module(module).PLUGIN  # type: ignore[no-any-return]


def game_settings(game: dict) -> dict:
    """A game's settings (JSON in ``games.settings``; absent in games created before them)."""
    return json.loads(game.get("settings") or "{}")
