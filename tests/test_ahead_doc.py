"""Every PHASE example in docs/commands.md ("Orders for later phases") is read by the judge
and, for each row of the table under it, gives the orders the row states, against the
position the row describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.engine import ahead as H
from judge.engine.position import Phase
from judge.variants import get_variant

DOC = Path(__file__).resolve().parents[1] / "docs" / "commands.md"
STD = get_variant("standard")
_EXAMPLE = re.compile(r"<!-- ahead-example: (\w+) (\w+) -->\n```\n(.*?)```\n\n(\|.*?)\n\n",
                      re.S)


def examples() -> list[tuple[str, str, list[str], list[tuple[str, str]]]]:
    out = []
    for power, current, body, table in _EXAMPLE.findall(DOC.read_text()):
        rows = [line for line in table.splitlines() if line.startswith("|")][2:]
        cells = [tuple(c.strip() for c in row.strip("|").split("|")) for row in rows]
        out.append((power, current, body.splitlines(), cells))
    return out


def position_of(cell: str, phase: str):
    """'Germany: A KIE, A MUN; Russia: A PRU; Germany owns: BER; Germany dislodged: A MUN'"""
    units: dict[str, list[str]] = {}
    centres: dict[str, list[str]] = {}
    dislodged: dict[str, list[dict]] = {}
    for part in cell.split(";"):
        who, _, what = part.partition(":")
        power, *kind = who.split()
        power = power.upper()
        items = [x.strip() for x in what.split(",") if x.strip()]
        if kind == ["owns"]:
            centres.setdefault(power, []).extend(items)
        elif kind == ["dislodged"]:
            dislodged.setdefault(power, []).extend({"unit": u, "attacker_from": None}
                                                   for u in items)
        else:
            assert not kind, part
            units.setdefault(power, []).extend(items)
    if not centres:  # home centres, so that the position is a whole one
        centres = {p: list(STD.board.home_centres.get(p, ())) for p in STD.board.powers}
    return STD.read_position({"variant": "standard", "phase": phase, "units": units,
                              "centres": centres, "dislodged": dislodged})


def test_the_doc_has_its_examples():
    found = examples()
    assert len(found) >= 4
    assert sum(len(rows) for *_, rows in found) >= 10


@pytest.mark.parametrize("power, current, body, rows", examples(),
                         ids=lambda x: x if isinstance(x, str) and x.isupper() else None)
def test_each_documented_example_gives_the_stated_orders(power, current, body, rows):
    block = H.parse_block(body, STD.board, power, Phase.parse(current))
    assert block.problems() == [], block.problems()
    assert block.target is not None
    for cell, stated in rows:
        pos = position_of(cell, str(block.target))
        got = H.evaluate(block, pos, power, STD)
        assert got.dropped == [], (cell, got.dropped)
        assert "; ".join(got.lines) == stated.replace("`", ""), cell
