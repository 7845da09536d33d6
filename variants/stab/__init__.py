"""Stab!: hidden-movement Diplomacy on the standard map (seed 003, rules by Andy Evans and
Stephen Agar). Adjudication is standard; what each player sees is decided by
:mod:`judge.variants.stab.visibility` and written by :mod:`judge.variants.stab.report`."""

from pathlib import Path

from judge.engine.board import Board
from judge.engine.variant import Variant
from judge.variants.stab.rules import StabRules

# The standard map, read from the standard variant's folder: Stab! changes no province.
BOARD = Board.load(Path(__file__).parent.parent / "standard" / "map.json")

VARIANT = Variant(
    name="stab",
    title="Stab!",
    description=(Path(__file__).with_name("description.md")).read_text(encoding="utf-8"),
    board=BOARD,
    rules=StabRules(BOARD),
)
