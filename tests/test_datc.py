"""Every DATC v3.0 case in ``tests/data/datc/datc.json`` as its own test.

Each asserts what the entry expects: the per-order results where given, the units after the
phase, the dislodged units, the retreat phase that follows (6.H) and the civil-disorder
removals (6.J).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.engine.position import Position
from judge.engine.variant import FAILS, INVALID, SUCCEEDS, Outcome
from judge.variants import get_variant

DATC = Path(__file__).resolve().parent / "data" / "datc" / "datc.json"
CASES = json.loads(DATC.read_text(encoding="utf-8"))["cases"]
VARIANT = get_variant("standard")


def _lines(orders: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(power, text) for power, texts in orders.items() for text in texts]


def _check_results(outcome: Outcome, orders: dict[str, list[str]],
                   expected: dict[str, list[str | None]]) -> None:
    k = 0
    for power, texts in orders.items():
        wanted = expected.get(power, [None] * len(texts))
        for text, want in zip(texts, wanted, strict=True):
            got = outcome.results[k]
            k += 1
            assert got.power == power
            if want == SUCCEEDS:
                assert got.result == SUCCEEDS, f"{power} {text}: {got.result} ({got.reason})"
            elif want == FAILS:
                assert got.result in (FAILS, INVALID), f"{power} {text}: succeeded"


def _units(position: Position) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for u in position.units:
        out.setdefault(u.power, []).append(str(u))
    return {p: sorted(us) for p, us in out.items()}


def _expected_units(units: dict[str, list[str]]) -> dict[str, list[str]]:
    return {p: sorted(us) for p, us in units.items() if us}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_datc_case(case: dict) -> None:
    position = Position.from_json({
        "variant": "standard",
        "phase": case["phase"],
        "units": case["units"],
        "centres": case.get("supply_centers", {}),
    })
    outcome = VARIANT.adjudicate_lines(position, _lines(case["orders"]))
    expected = case["expected"]
    _check_results(outcome, case["orders"], expected["results"])
    nxt = outcome.position
    assert _units(nxt) == _expected_units(expected["units"])
    if "dislodged" in expected:
        got = {}
        for d in nxt.dislodged:
            got.setdefault(d.unit.power, []).append(str(d.unit))
        assert {p: sorted(v) for p, v in got.items()} == {
            p: sorted(v) for p, v in expected["dislodged"].items() if v}
    if "civil_disorder_removed" in expected:
        removed: dict[str, list[str]] = {}
        for r in outcome.results:
            if r.reason.startswith("civil disorder"):
                removed.setdefault(r.power, []).append(r.order.removeprefix("REMOVE "))
        assert {p: sorted(v) for p, v in removed.items()} == {
            p: sorted(v) for p, v in expected["civil_disorder_removed"].items() if v}
    for follow in case.get("followup", []):
        assert str(nxt.phase) == follow["phase"]
        outcome = VARIANT.adjudicate_lines(nxt, _lines(follow["orders"]))
        _check_results(outcome, follow["orders"], follow["expected"]["results"])
        nxt = outcome.position
        assert _units(nxt) == _expected_units(follow["expected"]["units"])
        assert not nxt.dislodged
