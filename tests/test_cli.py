"""The command-line contract of DESIGN.md, driven through the installed ``judge`` command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGE, *args], capture_output=True, text=True, timeout=60)


@pytest.fixture
def files(tmp_path: Path):
    def write(position: dict | str, orders: str) -> tuple[str, str]:
        p = tmp_path / "position.json"
        p.write_text(position if isinstance(position, str) else json.dumps(position))
        o = tmp_path / "orders.txt"
        o.write_text(orders)
        return str(p), str(o)
    return write


POSITION = {
    "variant": "standard", "phase": "S1901M",
    "units": {"ENGLAND": ["F NTH", "A YOR", "F LON"], "FRANCE": ["A BEL", "F ENG"],
              "GERMANY": ["A HOL"]},
    "centres": {"ENGLAND": ["LON", "EDI", "LVP"]},
}
ORDERS = """ENGLAND:
A Yorkshire - Belgium via convoy
F NTH C A YOR - BEL
FRANCE:
F ENG - LON
A BEL H
A PAR - Atlantis
GERMANY:
A HOL S A YOR - BEL
"""


def test_variants_lists_standard() -> None:
    out = run("variants")
    assert out.returncode == 0
    assert "standard" in out.stdout.split()


def test_adjudicate_json(files) -> None:
    out = run("adjudicate", "--variant", "standard", "--position", *_pair(files), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"results", "position"}
    results = data["results"]
    assert [(r["power"], r["result"]) for r in results[:6]] == [
        ("ENGLAND", "succeeds"), ("ENGLAND", "succeeds"), ("FRANCE", "fails"),
        ("FRANCE", "fails"), ("FRANCE", "invalid"), ("GERMANY", "succeeds")]
    assert results[4]["reason"] == "unknown place 'Atlantis'"
    assert results[6] == {"power": "ENGLAND", "order": "F LON H", "result": "succeeds",
                          "reason": "no order: holds"}
    position = data["position"]
    assert position["phase"] == "S1901R"
    assert position["units"]["ENGLAND"] == ["A BEL", "F LON", "F NTH"]
    assert "FRANCE" in position["dislodged"]
    assert position["dislodged"]["FRANCE"][0]["unit"] == "A BEL"
    assert position["dislodged"]["FRANCE"][0]["attacker_from"] == "YOR"
    assert position["units"]["FRANCE"] == ["F ENG"]


def _pair(files) -> tuple[str, str, str]:
    p, o = files(POSITION, ORDERS)
    return p, "--orders", o


def test_adjudicate_text(files) -> None:
    out = run("adjudicate", "--variant", "standard", "--position", *_pair(files))
    assert out.returncode == 0
    assert "A YOR - BEL VIA CONVOY" in out.stdout
    assert "invalid (unknown place 'Atlantis')" in out.stdout
    assert "dislodged: FRANCE A BEL" in out.stdout


@pytest.mark.parametrize("position, orders, message", [
    ("{", "ENGLAND:\nF NTH H\n", "unreadable input"),
    ({"variant": "standard", "phase": "X1901", "units": {}}, "", "not a phase code"),
    ({"variant": "standard", "phase": "S1901M", "units": {"ENGLAND": ["NTH"]}}, "",
     "not a unit: 'NTH'"),
    ({"variant": "standard", "phase": "S1901M", "units": {"ENGLAND": ["A NTH"]}}, "",
     "an army cannot stand in NTH"),
    ({"variant": "standard", "phase": "S1901M", "units": {"ENGLAND": ["A XYZ"]}}, "",
     "unknown location 'XYZ'"),
    ({"variant": "standard", "phase": "S1901M", "units": {"ENGLAND": ["A PAR"], "FRANCE": ["A PAR"]}},
     "", "two units in PAR"),
    (POSITION, "F NTH H\n", "comes before any 'POWER:' header"),
])
def test_unreadable_input_exits_2_with_one_line(files, position, orders, message) -> None:
    p, o = files(position, orders)
    out = run("adjudicate", "--variant", "standard", "--position", p, "--orders", o, "--json")
    assert out.returncode == 2
    assert out.stdout == ""
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_missing_file_and_unknown_variant(files, tmp_path: Path) -> None:
    p, o = files(POSITION, ORDERS)
    out = run("adjudicate", "--variant", "standard", "--position", str(tmp_path / "nope.json"),
              "--orders", o)
    assert out.returncode == 2 and "cannot read input" in out.stderr
    out = run("adjudicate", "--variant", "atlantis", "--position", p, "--orders", o)
    assert out.returncode == 2 and "unknown variant 'atlantis'" in out.stderr


def test_retreat_and_adjustment_phases_through_the_cli(files) -> None:
    position = {"variant": "standard", "phase": "F1901R",
                "units": {"ENGLAND": ["A BEL", "F NTH"]},
                "centres": {"ENGLAND": ["LON", "EDI", "LVP"], "FRANCE": ["BEL"]},
                "dislodged": {"FRANCE": [{"unit": "A BEL", "attacker_from": "YOR"}]}}
    p, o = files(position, "FRANCE:\nA BEL - PIC\n")
    data = json.loads(run("adjudicate", "--variant", "standard", "--position", p,
                          "--orders", o, "--json").stdout)
    assert data["results"][0]["result"] == "succeeds"
    nxt = data["position"]
    assert nxt["phase"] == "W1901A"
    assert nxt["centres"]["ENGLAND"] == ["BEL", "EDI", "LON", "LVP"]
    p, o = files(nxt, "ENGLAND:\nBUILD F LON\nFRANCE:\nwaive\n")
    data = json.loads(run("adjudicate", "--variant", "standard", "--position", p,
                          "--orders", o, "--json").stdout)
    assert [r["result"] for r in data["results"]] == ["succeeds", "fails", "succeeds"]
    assert data["results"][1]["reason"] == "FRANCE has no builds to waive"
    # France kept its army (now in Picardy) but owns no centre: civil disorder removes it.
    assert data["results"][2] == {"power": "FRANCE", "order": "REMOVE A PIC",
                                  "result": "succeeds",
                                  "reason": "civil disorder: removal not ordered"}
    assert "FRANCE" not in data["position"]["units"]
    assert data["position"]["phase"] == "S1902M"
    assert data["position"]["units"]["ENGLAND"] == ["A BEL", "F LON", "F NTH"]
