"""Stack 'em order syntax (counts), acknowledgements, positions and the CLI contract."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_stackem_common import V, play, position, units

from judge.engine.errors import OrderError, OrderSyntaxError
from judge.variants.stackem.orders import Stacked, split_counts


@pytest.mark.parametrize(("line", "plain", "count", "target"), [
    ("2A BUR-MUN", "A BUR-MUN", 2, 0),
    ("2a bur - mun", "a bur - mun", 2, 0),
    ("2 armies Burgundy to Munich", "army Burgundy to Munich", 2, 0),
    ("2A MAR S 2A PAR-BUR", "A MAR S A PAR-BUR", 2, 2),
    ("A MAR S 2A PAR-BUR", "A MAR S A PAR-BUR", 1, 2),
    ("2A MAR supports A PAR-BUR", "A MAR supports A PAR-BUR", 2, 0),
    ("France: 2A PAR-BUR", "France: A PAR-BUR", 2, 0),
    ("1. 2F NTH C 2A LON-BEL", "1. F NTH C A LON-BEL", 2, 2),
    ("A PAR-BUR", "A PAR-BUR", 1, 0),
    ("2 A PAR-BUR", "2 A PAR-BUR", 1, 0),  # a line number, as players write them
])
def test_split_counts(line: str, plain: str, count: int, target: int) -> None:
    assert split_counts(line) == (plain, count, target)


@pytest.mark.parametrize(("line", "message"), [
    ("0A PAR-BUR", "at least 1"),
    ("2A PAR S 2A MAR S 2A BUR", "two counts"),
])
def test_split_counts_errors(line: str, message: str) -> None:
    with pytest.raises(OrderSyntaxError, match=message):
        split_counts(line)


START = position({"FRANCE": ["3A PAR", "2A MAR", "F BRE"], "GERMANY": ["A MUN"]})


@pytest.mark.parametrize(("line", "ack"), [
    ("2A PAR-BUR", "2A PAR - BUR"),
    ("2 armies Paris to Burgundy", "2A PAR - BUR"),
    ("2A MAR S 2A PAR-BUR", "2A MAR S 2A PAR - BUR"),
    ("2A MAR S A PAR-BUR", "2A MAR S A PAR - BUR"),
    ("A MAR S 2A PAR-BUR", "A MAR S 2A PAR - BUR"),
    ("A PAR S PAR-BUR", "A PAR S A PAR - BUR"),
    ("PAR S A PAR-BUR", "A PAR S A PAR - BUR"),
    ("3A PAR H", "3A PAR H"),
    ("A BUR S A PAR-BUR", None),  # no unit in Burgundy: refused
    ("F BRE S A PAR-BRE", "F BRE S A PAR - BRE"),
])
def test_acknowledged_as_written_back(line: str, ack: str | None) -> None:
    if ack is None:
        with pytest.raises(OrderError):
            V.read_order(START, "FRANCE", line)
        return
    assert str(V.read_order(START, "FRANCE", line)) == ack


def test_one_unit_orders_stay_plain_order_values() -> None:
    assert not isinstance(V.read_order(START, "FRANCE", "A PAR-BUR"), Stacked)
    assert isinstance(V.read_order(START, "FRANCE", "2A PAR-BUR"), Stacked)


def test_orders_of_another_power_are_refused() -> None:
    with pytest.raises(OrderError, match="not yours"):
        V.read_order(START, "GERMANY", "2A PAR-BUR")


def test_position_round_trip_writes_stacks() -> None:
    data = {"variant": "stackem", "phase": "S1901R",
            "units": {"FRANCE": ["A BUR", "2A PAR", "F BRE"]},
            "centres": {"FRANCE": ["PAR"]},
            "dislodged": {"GERMANY": [{"unit": "2A RUH", "attacker_from": "BUR",
                                       "retreats": ["KIE"]}]}}
    pos = V.read_position(data)
    assert len(pos.units) == 4 and len(pos.dislodged) == 2
    out = V.write_position(pos)
    assert out["units"] == {"FRANCE": ["F BRE", "A BUR", "2A PAR"]}
    assert out["dislodged"] == {"GERMANY": [{"unit": "2A RUH", "attacker_from": "BUR",
                                             "retreats": ["KIE"]}]}
    assert units(V.read_position(out)) == units(pos)


@pytest.mark.parametrize("bad", ["0A PAR", "2X PAR", "2A ATLANTIS", "2F MUN"])
def test_bad_units_in_a_position_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        V.read_position({"variant": "stackem", "phase": "S1901M", "units": {"FRANCE": [bad]}})


def test_initial_position_is_the_standard_one_under_this_variant() -> None:
    start = V.initial_position()
    assert start.variant == "stackem"
    assert len(start.units) == 22


def test_a_year_of_play_moves_stacks_and_builds_under_them() -> None:
    spring = play(V.initial_position(), {"FRANCE": ["A PAR-BUR", "A MAR-BUR", "F BRE-PIC"]})
    assert units(spring.position)["FRANCE"] == {"A BUR": 2, "F PIC": 1}
    fall = play(spring.position, {"FRANCE": ["2A BUR-BEL", "F PIC S A BUR-BEL"]})
    assert str(fall.position.phase) == "W1901A"
    assert "BEL" in fall.position.centres["FRANCE"]
    assert V.adjustment_count(fall.position, "FRANCE") == 1
    winter = V.adjudicate_lines(fall.position, [("FRANCE", "BUILD A PAR")])
    assert units(winter.position)["FRANCE"] == {"A BEL": 2, "F PIC": 1, "A PAR": 1}


# ---------------------------------------------------------------------------- the CLI
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def _adjudicate(tmp_path: Path, pos: dict, orders: str, *extra: str) -> subprocess.CompletedProcess[str]:
    p = tmp_path / "position.json"
    p.write_text(json.dumps(pos))
    o = tmp_path / "orders.txt"
    o.write_text(orders)
    return subprocess.run([JUDGE, "adjudicate", "--variant", "stackem", "--position", str(p),
                           "--orders", str(o), *extra], capture_output=True, text=True,
                          timeout=60)


EXAMPLE_8 = {"variant": "stackem", "phase": "F1901M",
             "units": {"FRANCE": ["A PAR", "A BUR"], "GERMANY": ["A MUN", "4A RUH"]},
             "centres": {"FRANCE": ["PAR"], "GERMANY": ["MUN"]}}
ORDERS_8 = """FRANCE:
A PAR-BUR
A BUR S A PAR-BUR
GERMANY:
A MUN-BUR
2A RUH S A MUN-BUR
A RUH-BUR
A RUH S A RUH-BUR
"""


def test_cli_json_contract(tmp_path: Path) -> None:
    out = _adjudicate(tmp_path, EXAMPLE_8, ORDERS_8, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"results", "position"}
    assert [(r["power"], r["order"], r["result"]) for r in data["results"]] == [
        ("FRANCE", "A PAR - BUR", "fails"),
        ("FRANCE", "A BUR S A PAR - BUR", "succeeds"),
        ("GERMANY", "A MUN - BUR", "succeeds"),
        ("GERMANY", "2A RUH S A MUN - BUR", "succeeds"),
        ("GERMANY", "A RUH - BUR", "fails"),
        ("GERMANY", "A RUH S A RUH - BUR", "succeeds"),
    ]
    nxt = data["position"]
    assert nxt["phase"] == "F1901R"
    assert nxt["units"] == {"FRANCE": ["A PAR"], "GERMANY": ["A BUR", "4A RUH"]}
    assert [d["unit"] for d in nxt["dislodged"]["FRANCE"]] == ["A BUR"]
    assert nxt["dislodged"]["FRANCE"][0]["attacker_from"] == "MUN"


def test_cli_text_output_and_bad_input(tmp_path: Path) -> None:
    out = _adjudicate(tmp_path, EXAMPLE_8, ORDERS_8)
    assert out.returncode == 0, out.stderr
    assert "2A RUH S A MUN - BUR" in out.stdout
    bad = _adjudicate(tmp_path, {**EXAMPLE_8, "units": {"FRANCE": ["A BUR"],
                                                        "GERMANY": ["A BUR"]}}, ORDERS_8)
    assert bad.returncode == 2
    assert bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1


def test_cli_text_report_writes_dislodged_stacks(tmp_path: Path) -> None:
    pos = {"variant": "stackem", "phase": "S1901M",
           "units": {"FRANCE": ["2A BUR"], "GERMANY": ["A MUN", "A RUH", "A MAR"]}}
    orders = "GERMANY:\nA MUN-BUR\nA RUH S A MUN-BUR\nA MAR S A MUN-BUR\n"
    out = _adjudicate(tmp_path, pos, orders)
    assert out.returncode == 0, out.stderr
    assert "dislodged: FRANCE 2A BUR (retreats: BEL, GAS, PAR, PIC)" in out.stdout


def test_cli_movement_then_retreat_through_the_written_position(tmp_path: Path) -> None:
    # Example 5, then its retreat: the position the judge writes is read back for the next
    # phase, and the contested Burgundy stays closed.
    pos = {"variant": "stackem", "phase": "S1901M",
           "units": {"FRANCE": ["A BUR", "A RUH", "A BEL"], "GERMANY": ["A HOL", "A KIE", "A MUN"]}}
    orders = ("FRANCE:\nA BUR-MUN\nA RUH S A BUR-MUN\nA BEL-RUH\n"
              "GERMANY:\nA HOL-RUH\nA KIE S A HOL-RUH\nA MUN-BUR\n")
    first = _adjudicate(tmp_path, pos, orders, "--json")
    assert first.returncode == 0, first.stderr
    after = json.loads(first.stdout)["position"]
    assert after["phase"] == "S1901R"
    refused = _adjudicate(tmp_path, after, "FRANCE:\nA RUH-BUR\n", "--json")
    assert json.loads(refused.stdout)["results"][0]["result"] == "fails"
    retreat = _adjudicate(tmp_path, after, "FRANCE:\nA RUH-BEL\n", "--json")
    data = json.loads(retreat.stdout)
    assert data["results"][0]["result"] == "succeeds"
    assert data["position"]["phase"] == "F1901M"
    assert data["position"]["units"]["FRANCE"] == ["2A BEL", "A BUR"]
