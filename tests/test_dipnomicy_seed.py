"""Dipnomicy: the seed's move 1 (../shared/seeds/004_2ba22e06025b0616.txt) and the CLI contract."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.variants import get_variant, variant_names
from judge.variants.dipnomicy.proposals import presentation_order
from judge.variants.dipnomicy.report import move_report, seed_proposals
from judge.variants.dipnomicy.rules import RULES, new_game, turn_number, turn_phase

# A copy of ../shared/seeds/004_2ba22e06025b0616.txt, so the test runs anywhere.
SEED_FILE = Path(__file__).with_name("test_dipnomicy_seed_move1.txt")
VARIANT = get_variant("dipnomicy")
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"
GAME_SEED = 20260121


def seed_text() -> str:
    return SEED_FILE.read_text(encoding="utf-8")


def seed_moves(text: str) -> list[tuple[str, str]]:
    """The seed's moves by country: blocks separated by blank lines, in country order."""
    section = text.split("Move report:")[1].split("Presented in a random order.")[0]
    blocks = [b.splitlines() for b in section.strip().split("\n\n")[1:]]
    powers = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    assert len(blocks) == len(powers)
    return [(p, line) for p, block in zip(powers, blocks, strict=True) for line in block]


def test_seed_move_1_report() -> None:
    text = seed_text()
    moves = seed_moves(text)
    # Turkey sent nothing: its three lines in the seed are the holds the SG reported.
    given = [(p, line) for p, line in moves if p != "TURKEY"]
    assert len(given) == 19
    position = RULES.initial_position(seed=GAME_SEED)
    outcome = VARIANT.adjudicate_lines(position, given)
    assert [r.result for r in outcome.results] == ["succeeds"] * 22
    assert [r.power for r in outcome.results[19:]] == ["TURKEY"] * 3
    assert not outcome.dislodged and outcome.position.phase == turn_phase(2)

    proposals = presentation_order(seed_proposals(), GAME_SEED, 1)
    report = move_report(outcome, proposals, moved={p for p, _ in given})
    ours = report.split("Move report:\n\n")[1]
    theirs = text.split("Move report:\n\n")[1]
    # Summary, non-submitters and the moves by country: exactly the seed's, as adjudicated.
    head = ours.split("Presented in a random order.")[0]
    assert head == theirs.split("Presented in a random order.")[0]
    assert head.startswith("All moves completed successfully.\n"
                           "Turkey did not submit moves or a proposal.\n\n")
    # The proposals: each block is the seed's block for the same proposal, in our order.
    def blocks(s: str) -> list[tuple[str, str]]:
        part = s.split("Presented in a random order.\n\n")[1].split("\n\nVote on every")[0]
        found = re.split(r"(?m)^P\d+: ", part.strip())[1:]
        return [(b.split("\n", 1)[0], b.split("\n", 1)[1].strip()) for b in found]

    mine, seeds = blocks(ours), dict(blocks(theirs))
    assert [t for t, _ in mine] == [p.title for p in proposals]
    assert len(mine) == 6
    for title, body in mine:
        assert body == seeds[title]
    numbered = re.findall(r"(?m)^(P\d+): (.*)$", ours)
    assert [n for n, _ in numbered] == [f"P{k}" for k in range(1, 7)]


def test_presentation_order_comes_from_the_games_seed() -> None:
    proposals = seed_proposals()
    one = presentation_order(proposals, GAME_SEED, 1)
    assert one == presentation_order(list(reversed(proposals)), GAME_SEED, 1)
    orders = {tuple(p.title for p in presentation_order(proposals, s, 1)) for s in range(20)}
    assert len(orders) > 10  # the seed decides: different games see different orders


def test_report_names_non_submitters_by_kind() -> None:
    position = RULES.initial_position()
    outcome = VARIANT.adjudicate_lines(position, [("ITALY", "A Ven -- Tyr")])
    proposals = [p for p in seed_proposals() if p.author not in ("ENGLAND", "RUSSIA")]
    report = move_report(outcome, proposals, moved={"ITALY", "RUSSIA"})
    assert "England and Turkey did not submit moves or a proposal." in report
    assert "Austria, France and Germany did not submit moves." in report
    assert "Russia did not submit a proposal." in report


def test_failed_moves_are_the_summary() -> None:
    position = RULES.initial_position()
    outcome = VARIANT.adjudicate_lines(position, [("ITALY", "A Ven -- Tyr"),
                                                  ("AUSTRIA", "A Vie -- Tyr")])
    report = move_report(outcome, [], moved={"ITALY", "AUSTRIA"})
    assert "All moves completed successfully." not in report
    assert "A Ven -- Tyr (bounced)" in report and "A Vie -- Tyr (bounced)" in report


def test_new_game_assigns_countries_from_the_seed() -> None:
    players = ["ann@x", "bob@x", "cat@x", "dan@x", "eve@x"]
    position, assignment = new_game(players, seed=7)
    assert set(assignment) == set(players) and len(set(assignment.values())) == 5
    assert new_game(players, seed=7)[1] == assignment
    assert any(new_game(players, seed=s)[1] != assignment for s in range(1, 10))
    assert sorted(position.extra["players"]) == sorted(assignment.values())
    assert position.extra["seed"] == 7
    with pytest.raises(ValueError):
        new_game(players[:4], seed=1)


def test_calendar() -> None:
    assert [str(turn_phase(n)) for n in (1, 2, 3, 4)] == ["S1901M", "F1901M", "S1902M", "F1902M"]
    assert all(turn_number(turn_phase(n)) == n for n in range(1, 30))


# ------------------------------------------------------------------ the CLI contract
def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGE, *args], capture_output=True, text=True, timeout=60)


def test_cli_lists_dipnomicy() -> None:
    assert "dipnomicy" in variant_names()
    out = run("variants")
    assert out.returncode == 0 and "dipnomicy" in out.stdout.split()


def test_cli_adjudicates_a_bare_position_under_the_initial_rules(tmp_path: Path) -> None:
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"variant": "dipnomicy", "phase": "S1901M",
                               "units": {"AUSTRIA": ["A VIE", "A BUD"], "RUSSIA": ["A GAL"]}}))
    orders = tmp_path / "o.txt"
    orders.write_text("AUSTRIA:\nA Bud -- Gal\nA Vie S A Bud -- Gal\nRUSSIA:\nA Gal H\n")
    out = run("adjudicate", "--variant", "dipnomicy", "--position", str(pos),
              "--orders", str(orders), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [r["result"] for r in data["results"]] == ["fails", "fails", "succeeds", "succeeds"]
    # The refused support leaves A Vie without an order: it holds.
    assert data["results"][3]["order"] == "A VIE H"
    assert "support actions are not in the rules" in data["results"][1]["reason"]
    assert data["position"]["phase"] == "F1901M"
    assert data["position"]["dislodged"] == {}
    # The next position carries the rules it was played under.
    assert [r["number"] for r in data["position"]["rules_in_force"]][:3] == [1, 2, 3]


def test_cli_with_rules_in_force_and_sizes(tmp_path: Path) -> None:
    ruleset = RULES.initial_position().extra
    rules = ruleset["rules_in_force"] + [
        {"number": 25, "title": "Support actions", "text": "...", "module": "support"},
        {"number": 26, "title": "Merging units", "text": "...", "module": "merging"}]
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"variant": "dipnomicy", "phase": "F1901M",
                               "units": {"AUSTRIA": ["2A VIE", "A BUD"], "RUSSIA": ["A GAL"]},
                               "rules_in_force": rules}))
    orders = tmp_path / "o.txt"
    orders.write_text("AUSTRIA:\nA Vie -- Gal\nRUSSIA:\nA Gal H\n")
    out = run("adjudicate", "--variant", "dipnomicy", "--position", str(pos),
              "--orders", str(orders), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["results"][0]["result"] == "succeeds"
    nxt = data["position"]
    assert nxt["phase"] == "F1901R"
    assert nxt["units"]["AUSTRIA"] == ["A BUD", "2A GAL"]
    assert nxt["dislodged"]["RUSSIA"][0]["unit"] == "A GAL"
    assert "VIE" in nxt["dislodged"]["RUSSIA"][0]["retreats"]


def test_cli_refuses_a_bad_ruleset(tmp_path: Path) -> None:
    pos = tmp_path / "p.json"
    pos.write_text(json.dumps({"variant": "dipnomicy", "phase": "S1901M", "units": {},
                               "rules_in_force": [{"number": 1, "title": "x",
                                                   "module": "teleport"}]}))
    orders = tmp_path / "o.txt"
    orders.write_text("")
    out = run("adjudicate", "--variant", "dipnomicy", "--position", str(pos),
              "--orders", str(orders), "--json")
    assert out.returncode == 2
    assert "teleport" in out.stderr and out.stderr.count("\n") == 1


def test_report_defaults_and_deadlines() -> None:
    position = RULES.initial_position()
    outcome = VARIANT.adjudicate_lines(position, [("ITALY", "A Ven -- Tyr"),
                                                  ("FRANCE", "A Par -- Atlantis")])
    report = move_report(outcome, [], moves_deadline="Tue 24 Nov 2026 07:00 UTC")
    # Who moved is read from the outcome; France's unreadable order still counts as sent.
    assert ("Austria, England, Germany, Russia and Turkey did not submit moves or a proposal.\n"
            "France and Italy did not submit a proposal.\n") in report
    assert "A Par -- Atlantis (invalid:" in report
    assert "Moves for Turn 2 (Autumn) are due by Tue 24 Nov 2026 07:00 UTC." in report
    assert "No proposals were submitted this turn." in report


def test_adjudication_leaves_the_callers_position_alone() -> None:
    data = {"variant": "dipnomicy", "phase": "S1901M", "units": {"ITALY": ["A VEN"]}}
    position = VARIANT.read_position(data)
    before = VARIANT.write_position(position)
    outcome = VARIANT.adjudicate_lines(position, [("ITALY", "A Ven -- Tyr")])
    assert VARIANT.write_position(position) == before
    assert "rules_in_force" in VARIANT.write_position(outcome.position)


@pytest.mark.parametrize("bad", [
    {"phase": "S1901M", "units": {"ITALY": ["0A VEN"]}},
    {"phase": "S1901M", "units": {"ITALY": "A VEN"}},
    {"phase": "S1901R", "units": {}, "dislodged": {"ITALY": [17]}},
    {"phase": "S1901M", "units": {"ITALY": ["A VEN", "2F VEN"]}},
    {"phase": "S1901M", "units": {}, "rules_in_force": {"1": "x"}},
])
def test_malformed_positions_are_value_errors(bad: dict) -> None:
    with pytest.raises(ValueError):
        VARIANT.read_position({"variant": "dipnomicy", **bad})
