"""The DATC cases played under Stack 'em: the same result as standard play, except where a
Stack 'em rule says otherwise.

With one unit per space, Stack 'em differs from standard play only where a power's units meet
each other: moving into a space held or entered by its own units (rule 1), swapping (rule 8),
supporting into the supporter's own space (rule 3) or building on an occupied centre (rule 11).
Every DATC case where that happens is listed below with the rule that makes the difference;
every other case must come out exactly as in standard play. The test also checks that each
listed case really does come out differently, so the list cannot go stale without failing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.engine.variant import Outcome
from judge.variants import get_variant

DATC = Path(__file__).resolve().parent / "data" / "datc" / "datc.json"
CASES = json.loads(DATC.read_text(encoding="utf-8"))["cases"]
STANDARD = get_variant("standard")
STACKEM = get_variant("stackem")

DIFFERS = {
    "6.B.13": "rule 8: two Turkish fleets swap places",
    "6.C.3": "rule 1: a Turkish army enters Constantinople though the Turkish fleet fails to leave",
    "6.C.5": "rule 1: the army from Trieste joins the Austrian army in Serbia",
    "6.C.8": "rule 1: the army from Bulgaria joins the Turkish fleet in Constantinople",
    "6.D.10": "rule 1: the German fleet joins the German army in Berlin",
    "6.D.11": "rule 1: the German fleet joins the German army that failed to leave Berlin",
    "6.D.20": "rule 1: the English army joins the English fleet in London",
    "6.D.33": "rule 1: two Austrian armies enter Budapest together",
    "6.D.34": "rule 3: the Italian support into its own space makes the Russian standoff",
    "6.E.2": "rule 8: a German army and fleet swap places",
    "6.E.10": "rule 1: German and English fleets move into spaces their own units hold",
    "6.H.6": "rule 1: two German armies enter Bohemia together",
    "6.H.16": "rule 1: two French fleets enter Spain's north coast together",
    "6.I.3": "rule 11: Germany builds in occupied Berlin",
    "6.I.4": "rule 11: Russia builds in occupied St Petersburg",
}


def _play(variant, case: dict) -> Outcome:
    data = {"variant": variant.name, "phase": case["phase"], "units": case["units"],
            "centres": case.get("supply_centers", {})}
    lines = [(power, text) for power, texts in case["orders"].items() for text in texts]
    return variant.adjudicate_lines(variant.read_position(data), lines)


def _board(outcome: Outcome) -> tuple:
    nxt = outcome.position
    return (sorted((u.power, str(u)) for u in nxt.units),
            sorted((d.unit.power, str(d.unit)) for d in nxt.dislodged),
            [(r.power, r.result) for r in outcome.results])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_case_under_stackem(case: dict) -> None:
    standard = _board(_play(STANDARD, case))
    stackem = _board(_play(STACKEM, case))
    if case["id"] in DIFFERS:
        assert stackem != standard, f"no longer differs: {DIFFERS[case['id']]}"
    else:
        assert stackem == standard
