"""Multiplicity II and Hoplite Wars: an order line that cannot be read, such as a unit of size
zero (``0A MAR``, ``BUILD 0F BRE``), is refused with a specific reason and the rest of the
orders stand, in a mail, through ``judge adjudicate`` and in the engine; and no line, however
garbled, makes the order readers raise anything but the documented order error."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mailkit import POWERS, InProcessJudge

from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.position import Position
from judge.engine.variant import FAILS, INVALID, SUCCEEDS
from judge.variants import get_variant

MULTI = get_variant("multiplicity")
HOPLITE = get_variant("hoplite")
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"
ZERO = "each letter counts 1 or more components"


def multi(phase: str, **extra: object) -> Position:
    data = {"variant": "multiplicity", "phase": phase,
            "units": {"FRANCE": ["2A MAR", "A PIC"], "GERMANY": ["A MUN"]},
            "centres": {"FRANCE": ["MAR", "PAR", "BRE", "SPA", "POR"], "GERMANY": ["MUN"]}}
    data.update(extra)
    return MULTI.read_position(data)


def hoplite(phase: str, **extra: object) -> Position:
    data = {"variant": "hoplite", "phase": phase,
            "units": {"ATHENS": ["2A ATH", "F MAR"], "SPARTA": ["A SPA"]},
            "centres": {"ATHENS": ["ATH", "MAR", "THO"], "SPARTA": ["SPA"]}}
    data.update(extra)
    return HOPLITE.read_position(data)


@pytest.mark.parametrize(("line", "reason"), [
    ("0A MAR - BUR", f"'0A' is not a unit: {ZERO}"),
    ("-1A MAR H", f"'-1A' is not a unit: {ZERO}"),
    ("00A MAR H", f"'00A' is not a unit: {ZERO}"),
    ("A/0F MAR H", f"'A/0F' is not a unit: {ZERO}"),
    ("A/A MAR H", "'A/A' is not a unit: write each letter once"),
    ("0A(Mar) & A(Pic) MERGE 2A(Bur)", f"'0A' is not a unit: {ZERO}"),
    ("A PIC & A MAR MERGE 0A BUR", f"'0A' is not a unit: {ZERO}"),
    ("2A MAR SPLIT 0A GAS, A MAR H", f"'0A' is not a unit: {ZERO}"),
    ("A PIC S MERGE 0A BUR", f"'0A' is not a unit: {ZERO}"),
    ("A PIC S 0A MAR", f"'0A' is not a unit: {ZERO}"),
    ("99999999999999999999A MAR H",
     "'99999999999999999999A' is not a unit: no unit has that many components"),
])
def test_a_movement_line_with_a_unit_of_no_size_is_invalid_and_the_rest_stands(
        line: str, reason: str) -> None:
    out = MULTI.adjudicate_lines(multi("S1901M"), [("FRANCE", line),
                                                   ("GERMANY", "A MUN - BUR")])
    assert out.results[0].result == INVALID
    assert out.results[0].reason.startswith(reason)
    assert (out.results[1].result, out.results[1].reason) == (SUCCEEDS, "")
    assert MULTI.write_position(out.position)["units"]["GERMANY"] == ["A BUR"]


def test_an_absurd_size_fails_against_the_unit_it_names() -> None:
    out = MULTI.adjudicate_lines(multi("S1901M"), [("FRANCE", "999A MAR - BUR")])
    assert (out.results[0].result, out.results[0].reason) == (
        FAILS, "the unit in Marseilles is 2A, not 999A")


@pytest.mark.parametrize(("line", "reason"), [
    ("BUILD 0F BRE", f"'0F' is not a unit: {ZERO}"),
    ("BUILD 0A PAR", f"'0A' is not a unit: {ZERO}"),
    ("REMOVE 0A MAR", f"'0A' is not a unit: {ZERO}"),
    ("BUILD 999A PAR", "999A would take 999 builds; FRANCE has 2 left"),
])
def test_a_build_of_no_size_or_absurd_size_is_refused_and_the_other_build_stands(
        line: str, reason: str) -> None:
    out = MULTI.adjudicate_lines(multi("W1901A"), [("FRANCE", line),
                                                   ("FRANCE", "BUILD 2A PAR")])
    assert out.results[0].result in (INVALID, FAILS)
    assert out.results[0].reason.startswith(reason)
    assert out.results[1].result == SUCCEEDS
    assert "2A PAR" in MULTI.write_position(out.position)["units"]["FRANCE"]


@pytest.mark.parametrize(("line", "reason"), [
    ("0G ATH H", f"'0G' is not a unit: {ZERO}"),
    ("0A ATH - MAR", f"'0A' is not a unit: {ZERO}"),
    ("2A ATH SPLIT 0A THO, A ATH H", f"'0A' is not a unit: {ZERO}"),
    ("0A ATH - THO FOR ATHENS", f"'0A' is not a unit: {ZERO}"),
    ("0A ATH SACK", f"'0A' is not a unit: {ZERO}"),
])
def test_hoplite_lines_with_a_unit_of_no_size_are_invalid(line: str, reason: str) -> None:
    out = HOPLITE.adjudicate_lines(hoplite("S450BCM"), [("ATHENS", line)])
    assert out.results[0].result == INVALID
    assert out.results[0].reason.startswith(reason)


@pytest.mark.parametrize("line", ["BUILD 0G THO", "TRANSFORM 0A ATH TO FLEET", "REMOVE 0G ATH"])
def test_hoplite_adjustment_lines_with_a_unit_of_no_size_are_invalid(line: str) -> None:
    out = HOPLITE.adjudicate_lines(hoplite("W450BCA"), [("ATHENS", line)])
    assert out.results[0].result == INVALID
    assert "is not a unit" in out.results[0].reason


def test_judge_adjudicate_reports_a_unit_of_no_size_as_invalid(tmp_path: Path) -> None:
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps(MULTI.write_position(multi("W1901A"))))
    orders = tmp_path / "o.txt"
    orders.write_text("FRANCE:\nBUILD 0F BRE\nBUILD 2A PAR\n")
    out = subprocess.run([JUDGE, "adjudicate", "--variant", "multiplicity", "--position",
                          str(pos), "--orders", str(orders), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    results = json.loads(out.stdout)["results"]
    assert results[0]["result"] == INVALID
    assert results[0]["reason"].startswith(f"'0F' is not a unit: {ZERO}")
    assert results[1]["result"] == SUCCEEDS


def test_a_mail_with_a_unit_of_no_size_refuses_that_line_and_keeps_the_rest(tmp_path) -> None:
    judge = InProcessJudge(tmp_path)
    judge.send("gm@players.test", "CREATE mz1 masterpw VARIANT multiplicity\nOPEN")
    for p in POWERS:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} mz1 pw-{p.lower()}")
    judge.send("gm@players.test", "MASTER mz1 masterpw\nSTART")
    reply = judge.send("france@players.test",
                       "SIGNON FRANCE mz1 pw-france\nBUILD 0F BRE\nBUILD 2A PAR")
    assert len(reply) == 1
    body = reply[0].body
    assert re.search(r"BUILD 0F BRE +<-- ERROR: '0F' is not a unit: " + ZERO, body), body
    assert re.search(r"^ +BUILD 2A PAR$", body, re.MULTILINE), body
    assert "internal error" not in body.lower()
    sent = judge.send("gm@players.test", "MASTER mz1 masterpw\nPROCESS")
    reports = {m.rcpt: m.body for m in sent if "results" in m.subject}
    assert "2A PAR" in reports["italy@players.test"]


# ------------------------------------------------------------------ garbled lines
WORDS = ["A", "F", "G", "0A", "2A", "-1A", "+2A", "A/F", "A/0F", "A/A", "2A/2F", "999A", "3G",
         "00A", "1A", "A/G", "99999999999999999999A", "MAR", "PIC", "BUR", "Mar", "(Bur)", "(",
         ")", "BRE", "SPA/NC", "SPA", "MAO", "ATH", "THO", "SPA", "DEL", "S", "C", "H", "-",
         "->", "R", "MERGE", "SPLIT", "S MERGE", "&", ",", ";", "and", "into", "BUILD",
         "REMOVE", "WAIVE", "DISBAND", "SACK", "Delphi", "FOR", "ATHENS", "ELATEA",
         "TRANSFORM", "TO", "FLEET", "ARMY", "garrison", "France:", "VIA", "CONVOY", ":", "/"]
LINE = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map("".join),
    st.text(max_size=40),
    st.text(alphabet="AFG0123456789/-()&,;: MARPICBUSH", max_size=30),
)


def positions() -> list[tuple[object, str, Position]]:
    return [
        (MULTI, "FRANCE", multi("S1901M")),
        (MULTI, "FRANCE", multi("W1901A")),
        (MULTI, "FRANCE", multi("S1901R", units={"FRANCE": ["A PIC"]}, dislodged={
            "FRANCE": [{"unit": "2A MAR", "from": "PIE", "retreats": ["BUR", "GAS"]}]})),
        (HOPLITE, "ATHENS", hoplite("S450BCM")),
        (HOPLITE, "ATHENS", hoplite("W450BCA")),
    ]


POSITIONS = positions()


@settings(max_examples=300, deadline=None)
@given(line=LINE, which=st.integers(0, len(POSITIONS) - 1))
def test_garbled_lines_raise_nothing_but_order_errors(line: str, which: int) -> None:
    variant, power, pos = POSITIONS[which]
    try:
        variant.read_order(pos, power, line)  # type: ignore[attr-defined]
    except OrderError as exc:
        assert str(exc).strip(), "an order error always says why"
    # Through the whole adjudication, the line gets a result and nothing raises.
    out = variant.adjudicate_lines(pos, [(power, line)])  # type: ignore[attr-defined]
    assert out.results[0].result in (SUCCEEDS, FAILS, INVALID)
    assert issubclass(OrderSyntaxError, OrderError)
