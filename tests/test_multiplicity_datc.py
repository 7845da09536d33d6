"""Multiplicity II with single units is standard Diplomacy: every DATC case run through the
``multiplicity`` variant gives the DATC answer, except where Multiplicity's own rules differ
(rule 3: a build on an occupied home centre joins the unit there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.engine.variant import FAILS, INVALID, SUCCEEDS, Outcome
from judge.variants import get_variant

DATC = Path(__file__).resolve().parent / "data" / "datc" / "datc.json"
CASES = json.loads(DATC.read_text(encoding="utf-8"))["cases"]
V = get_variant("multiplicity")
# Multiplicity rule 3 allows what these DATC cases forbid: building on an occupied home centre.
BUILD_JOINS = {"6.I.3": ("GERMANY", "2A BER"), "6.I.7": ("RUSSIA", "2A MOS")}


def _lines(orders: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(power, text) for power, texts in orders.items() for text in texts]


def _check(outcome: Outcome, orders: dict[str, list[str]], expected: dict) -> None:
    k = 0
    for power, texts in orders.items():
        for text, want in zip(texts, expected.get(power, [None] * len(texts)), strict=True):
            got = outcome.results[k]
            k += 1
            if want == SUCCEEDS:
                assert got.result == SUCCEEDS, f"{power} {text}: {got.result} ({got.reason})"
            elif want == FAILS:
                assert got.result in (FAILS, INVALID), f"{power} {text}: succeeded"


def _units(outcome: Outcome) -> dict[str, list[str]]:
    return {p: sorted(us) for p, us in V.write_position(outcome.position)["units"].items()}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_case_through_multiplicity(case: dict) -> None:
    position = V.read_position({"variant": "multiplicity", "phase": case["phase"],
                                "units": case["units"],
                                "centres": case.get("supply_centers", {})})
    outcome = V.adjudicate_lines(position, _lines(case["orders"]))
    expected = case["expected"]
    if case["id"] in BUILD_JOINS:
        power, unit = BUILD_JOINS[case["id"]]
        assert unit in _units(outcome)[power]
        return
    _check(outcome, case["orders"], expected["results"])
    assert _units(outcome) == {p: sorted(us) for p, us in expected["units"].items() if us}
    if "dislodged" in expected:
        got: dict[str, list[str]] = {}
        for d in outcome.position.dislodged:
            got.setdefault(d.unit.power, []).append(str(d.unit))
        assert {p: sorted(v) for p, v in got.items()} == {
            p: sorted(v) for p, v in expected["dislodged"].items() if v}
    for follow in case.get("followup", []):
        outcome = V.adjudicate_lines(outcome.position, _lines(follow["orders"]))
        _check(outcome, follow["orders"], follow["expected"]["results"])
        assert _units(outcome) == {p: sorted(us) for p, us in follow["expected"]["units"].items()
                                   if us}
