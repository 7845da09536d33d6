"""docs/adjudication.md describes the position and orders files in the repository itself
(issue 18, item 6), and its examples are files `judge adjudicate` reads as they stand."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "adjudication.md").read_text()
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def example(heading: str, kind: str) -> str:
    m = re.search(rf"### {re.escape(heading)}\n.*?```{kind}\n(.*?)```", DOC, re.S)
    assert m, f"docs/adjudication.md has no {kind} example under {heading!r}"
    return m.group(1)


def test_the_documented_examples_adjudicate(tmp_path):
    position = example("The position file", "json")
    orders = example("The orders file", "text")
    (tmp_path / "position.json").write_text(position)
    (tmp_path / "orders.txt").write_text(orders)
    out = subprocess.run([JUDGE, "adjudicate", "--variant", "standard", "--position",
                          "position.json", "--orders", "orders.txt", "--json"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)["results"]
    order_lines = [line for line in orders.splitlines()
                   if line.strip() and not line.startswith("#") and not line.endswith(":")]
    assert len(results) >= len(order_lines)
    assert [r["result"] for r in results[:len(order_lines)]].count("invalid") == 0
    assert json.loads(out.stdout)["position"]["phase"] != json.loads(position)["phase"]


def test_every_position_key_is_documented():
    """The keys the engine writes are each in the table of the position file."""
    table = DOC.split("### The position file", 1)[1].split("###", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    out = subprocess.run([JUDGE, "adjudicate", "--variant", "standard", "--position",
                          "/dev/stdin", "--orders", "/dev/null", "--json"],
                         input=example("The position file", "json"), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)["position"]) <= documented
