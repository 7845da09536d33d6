"""Dipnomicy: Diplomacy whose rules the players change by proposal and vote.

The board is the standard map (``variants/standard/map.json``, loaded, not copied). The rules
are data kept in each position (``ruleset.py``); the rule modules that make rules real are in
``catalogue.py`` (which exist), ``rules.py`` and ``movement.py`` (what they do). Proposals and
votes are ``proposals.py``; the move report and the published ruleset are ``report.py`` with
the templates in ``templates/dipnomicy/``. ``description.md`` is for players, ``INTEGRATION.md`` for the mail loop.
"""

from pathlib import Path

from judge.engine.variant import Variant
from judge.variants.dipnomicy.mapdata import BASE_BOARD
from judge.variants.dipnomicy.rules import RULES

VARIANT = Variant(
    name="dipnomicy",
    title="Dipnomicy",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BASE_BOARD,
    rules=RULES,
)
