"""Fuzzing PHASE blocks: for every variant, sample blocks (conditions, nesting, retreats,
builds) are mutated line by line and with garbage; reading a block never raises (every fault
is a line with its reason), stays within the limits, and deciding it against the variant's
start position never raises either. Budget: tests/fuzzkit.py."""

from __future__ import annotations

import random

import pytest
from fuzzkit import NASTY, examples, mutate_text, seed

from judge.engine import ahead as H
from judge.variants import get_variant, variant_names

SAMPLE = """PHASE Fall 1901 Movement
IF NOT French Army Ruhr AND (Russian Prussia OR Russian Silesia) THEN
  A MUN - BUR
ELSE IF OWN MUN OR A KIE DISLODGED
  IF ((A BER)) AND NOT NOT F NTH
    A BER H
  ENDIF
ELSE
  F KIE - DEN
ENDIF
PHASE W1901A
BUILD A MUN
PHASE F1901R
IF A MUN DISLODGED
A MUN - BOH
IF DISLODGED A BUR R GAS, PAR""".splitlines()


@pytest.mark.parametrize("name", variant_names())
def test_blocks_never_raise(name):
    variant = get_variant(name)
    pos = variant.initial_position()
    power = variant.board.powers[0]
    rng = random.Random(f"{seed()}:{name}")
    for _ in range(examples(40)):
        lines = [mutate_text(rng, x) if rng.random() < 0.4 else x for x in SAMPLE]
        if rng.random() < 0.3:
            lines.insert(rng.randrange(len(lines) + 1),
                         "".join(rng.choice(NASTY) for _ in range(rng.randrange(1, 30))))
        if rng.random() < 0.2:
            lines += ["IF " + "(" * rng.randrange(20) + "MUN"] * rng.randrange(12)
        now, blocks = H.split_blocks(lines)
        for block_lines in blocks:
            for visible in (None, H.own_only):
                block = H.parse_block(block_lines, variant.board, power, pos.phase,
                                      kinds=rng.choice(["MRA", "M"]), visible=visible)
                assert all(isinstance(r, str) and r for _, r in block.problems())
                assert len(block.lines()) <= len(block_lines) + 20
                got = H.evaluate(block, pos, power, variant)
                assert set(got.lines) <= {x.strip() for x in block_lines}
