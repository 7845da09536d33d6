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
    assert results[4]["reason"].startswith("unknown place 'Atlantis'")
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
    assert "invalid (unknown place 'Atlantis'" in out.stdout
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


# ------------------------------------------------ positions checked against the board (#17)
BAD_POSITIONS = [
    ({**POSITION, "centres": {"ENGLAND": "LON"}}, "standard",
     '"centres" of ENGLAND must be a list, not a string ("LON")'),
    ({**POSITION, "centres": {"ENGLAND": ["LON", "XYZ"]}}, "standard",
     "'XYZ' in the centres of ENGLAND is not a supply centre of standard"),
    ({**POSITION, "centres": {"NARNIA": ["LON"]}}, "standard",
     "unknown power 'NARNIA' in centres"),
    ({**POSITION, "units": {"NARNIA": ["A PAR"]}}, "standard",
     "unknown power 'NARNIA' in units"),
    ({**POSITION, "variant": "stab"}, "standard",
     "the position is for variant 'stab', not 'standard'"),
    ({**POSITION, "centres": {"ENGLAND": ["LON"], "FRANCE": ["LON"]}}, "standard",
     "centre LON is owned by both ENGLAND and FRANCE"),
    ({**POSITION, "units": {"ENGLAND": "F NTH"}}, "standard",
     '"units" of ENGLAND must be a list'),
    ({**POSITION, "centres": ["LON"]}, "standard", '"centres" must be an object'),
    ({"variant": "stackem", "phase": "S1901M", "units": {"ENGLAND": ["2A XYZ"]}}, "stackem",
     "XYZ"),
    ({"variant": "multiplicity", "phase": "S1901M", "units": {"ENGLAND": ["2A XYZ"]}},
     "multiplicity", "XYZ"),
    ({"variant": "chessdip", "phase": "S1901M", "units": {"ENGLAND": ["K e1"]},
      "centres": {"ENGLAND": ["z9"]}}, "chessdip", "z9 is not a supply centre"),
    ({"variant": "hoplite", "phase": "S500M", "units": {},
      "centres": {"ATLANTIS": ["ATH"]}}, "hoplite", "unknown power 'ATLANTIS' in centres"),
    ({**POSITION, "dislodged": {"FRANCE": [{"unit": "A PAR", "attacker_from": "XYZ"}]},
      "phase": "S1901R"}, "standard", "unknown province 'XYZ' in attacker_from"),
]


@pytest.mark.parametrize("position, variant, message", BAD_POSITIONS)
def test_adjudicate_refuses_positions_not_on_the_board(files, position, variant, message
                                                       ) -> None:
    p, o = files(position, "")
    out = run("adjudicate", "--variant", variant, "--position", p, "--orders", o, "--json")
    assert out.returncode == 2, out.stdout
    assert out.stdout == ""
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_positions_each_variant_writes_are_read_back(files) -> None:
    from judge.variants import get_variant, variant_names

    for name in variant_names():
        if name == "dipnomicy":  # its positions need the game's seed and ruleset
            continue
        v = get_variant(name)
        p, o = files(v.write_position(v.initial_position()), "")
        out = run("adjudicate", "--variant", name, "--position", p, "--orders", o, "--json")
        assert out.returncode == 0, (name, out.stderr)


def test_batch_gives_one_outcome_per_case_and_an_error_per_bad_case(tmp_path: Path) -> None:
    cases = [
        {"id": "good", "variant": "standard", "position": POSITION, "orders": ORDERS},
        {"id": "string centres", "variant": "standard",
         "position": {**POSITION, "centres": {"ENGLAND": "LON"}}, "orders": ""},
        {"id": "map", "position": POSITION, "orders": {"ENGLAND": ["F NTH - NWY"]}},
        {"id": "wrong variant", "variant": "standard",
         "position": {**POSITION, "variant": "stab"}, "orders": ""},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in cases) + "\n\nnot json\n")
    out = run("adjudicate", "--batch", str(path))
    assert out.returncode == 2
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[0]["id"] == "good" and lines[0]["position"]["phase"] == "S1901R"
    assert lines[1] == {"id": "string centres",
                        "error": '"centres" of ENGLAND must be a list, not a string ("LON")'}
    assert "F NWY" in lines[2]["position"]["units"]["ENGLAND"]
    assert lines[3]["error"] == "the position is for variant 'stab', not 'standard'"
    assert lines[4]["error"].startswith("not JSON")
    errors = out.stderr.strip().splitlines()
    assert [e.split(":")[1] for e in errors] == [" line 2", " line 4", " line 6"]


def test_batch_of_good_cases_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"variant": "standard", "position": POSITION,
                                "orders": ORDERS}) + "\n")
    out = run("adjudicate", "--batch", str(path))
    assert out.returncode == 0 and out.stderr == ""
    assert json.loads(out.stdout)["results"][0]["result"] == "succeeds"


def test_a_position_without_a_variant_key_is_written_back_as_the_variants(files) -> None:
    position = {k: v for k, v in POSITION.items() if k != "variant"}
    p, o = files(position, "")
    out = run("adjudicate", "--variant", "stab", "--position", p, "--orders", o, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["position"]["variant"] == "stab"


def test_batch_gives_line_for_line_what_json_gives(files, tmp_path: Path) -> None:
    """The same position and orders through --batch and through --json: the same outcome."""
    cases = [(POSITION, ORDERS), (POSITION, ""),
             ({**POSITION, "phase": "F1901M"}, "ENGLAND:\nF NTH - NWY\nA LVP - YOR\n")]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({"variant": "standard", "position": position,
                                        "orders": orders}) + "\n"
                            for position, orders in cases))
    batch = run("adjudicate", "--batch", str(path))
    assert batch.returncode == 0, batch.stderr
    lines = [json.loads(x) for x in batch.stdout.splitlines()]
    assert len(lines) == len(cases)
    for (position, orders), line in zip(cases, lines, strict=True):
        p, o = files(position, orders)
        single = run("adjudicate", "--variant", "standard", "--position", p, "--orders", o,
                     "--json")
        assert single.returncode == 0, single.stderr
        assert line == json.loads(single.stdout)
