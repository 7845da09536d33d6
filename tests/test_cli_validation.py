"""``judge adjudicate`` refuses malformed positions (issue 22): exit status 2, one line on
stderr naming the fault, nothing on stdout; and still reads every position play produces.

Each case runs the installed ``judge`` command, as a user or a script would. The checks are the
board's (``check_position``) and the rules' ``validate_position`` hook, called once where a
position is read from JSON (``Variant.read_position``); see docs/adjudication.md, "What a
position is checked for".
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"
DATC = Path(__file__).resolve().parent / "data" / "datc" / "datc.json"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGE, *args], capture_output=True, text=True, timeout=120)


def adjudicate(tmp_path: Path, variant: str, position: dict | str | bytes,
               orders: str | bytes = "") -> subprocess.CompletedProcess[str]:
    p, o = tmp_path / "position.json", tmp_path / "orders.txt"
    for path, content in ((p, position), (o, orders)):
        if isinstance(content, dict):
            content = json.dumps(content)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return run("adjudicate", "--variant", variant, "--position", str(p), "--orders", str(o),
               "--json")


def refused(out: subprocess.CompletedProcess[str], message: str) -> None:
    assert out.returncode == 2, (out.returncode, out.stdout[:200], out.stderr[-400:])
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("judge: ")
    assert message in lines[0], lines[0]


def std(**keys: object) -> dict:
    return {"variant": "standard", "phase": "S1901M",
            "units": {"ENGLAND": ["F LON", "A LVP"], "FRANCE": ["A PAR"]}, **keys}


def multi(units: dict, phase: str = "S1901M", **keys: object) -> dict:
    return {"variant": "multiplicity", "phase": phase, "units": units, **keys}


def hop(units: dict, centres: dict | None = None, **keys: object) -> dict:
    return {"variant": "hoplite", "phase": "S450BCM", "units": units,
            "centres": centres or {}, **keys}


def chess(phase: str = "S1901M", **keys: object) -> dict:
    return {"variant": "chessdip", "phase": phase,
            "units": {"ENGLAND": ["K e1", "R a1", "P a2"], "FRANCE": ["K e8", "P b7"]}, **keys}


DISLODGED = {"FRANCE": [{"unit": "A PAR", "attacker_from": "BUR"}]}

# (id, variant, position, words the error line must hold)
MALFORMED: list[tuple[str, str, dict | str, str]] = [
    # --------------------------------------------- the cases of issue 22
    ("spring adjustment", "standard", std(phase="S1901A"),
     "S1901A is not a phase of this variant: no Spring Adjustment"),
    ("winter movement", "standard", std(phase="W1901M"),
     "W1901M is not a phase of this variant: no Winter Movement"),
    ("dislodged in movement", "standard", std(dislodged=DISLODGED),
     "dislodged FRANCE A PAR in S1901M: only a retreat phase has dislodged units"),
    ("dislodged in adjustment", "standard", std(phase="W1901A", dislodged=DISLODGED),
     "only a retreat phase has dislodged units"),
    ("dislodged as strings", "standard", std(phase="S1901R", dislodged={"FRANCE": ["A PAR"]}),
     '"dislodged" of FRANCE must list objects such as {"unit": "A PAR"'),
    ("2A at sea", "multiplicity", multi({"ENGLAND": ["2A MAO"]}), "2A MAO (of ENGLAND) is at "
     "sea but not seaworthy"),
    ("2A/F at sea", "multiplicity", multi({"ENGLAND": ["2A/F MAO"]}), "2A/F MAO (of ENGLAND) "
     "is at sea but not seaworthy"),
    ("garrison at sea", "hoplite", hop({"ATHENS": ["G SAR"]}),
     "ATHENS G SAR: a garrison stands only on the City or Town it was built on, and SAR is "
     "neither"),
    ("garrison on plain land", "hoplite", hop({"ATHENS": ["G DEL"]}), "DEL is neither"),
    ("garrison on another's town", "hoplite",
     hop({"ATHENS": ["G ATH"]}, {"SPARTA": ["ATH"]}),
     "a garrison stands only on a City or Town of its own, and ATH belongs to SPARTA"),
    ("moved off the board", "chessdip", chess(moved=["z9"]),
     '"moved" must be a list of squares such as "e1", not ["z9"]'),
    ("moved a string", "chessdip", chess(moved="e1"), '"moved" must be a list of squares'),
    ("moved a number", "chessdip", chess(moved=[5]), '"moved" must be a list of squares'),
    ("moved twice", "chessdip", chess(moved=["e1", "e1"]), '"moved" lists a square twice'),
    ("en passant a string", "chessdip", chess(en_passant="a3"),
     '"en_passant" must be a list of {"power", "from", "via", "to"} objects, not "a3"'),
    ("en passant short", "chessdip", chess(en_passant=[{"power": "ENGLAND", "to": "a4"}]),
     'an "en_passant" entry must be {"power", "from", "via", "to"}'),
    ("en passant mistyped", "chessdip",
     chess(en_passant=[{"power": "ENGLAND", "from": "a2", "via": "a3", "to": 4}]),
     '"en_passant" must be a list of squares'),
    ("en passant unknown power", "chessdip",
     chess(en_passant=[{"power": "NARNIA", "from": "a2", "via": "a3", "to": "a4"}]),
     "unknown power \"NARNIA\" in \"en_passant\""),
    ("en passant backwards", "chessdip",
     chess(en_passant=[{"power": "ENGLAND", "from": "a4", "via": "a3", "to": "a2"}]),
     "ENGLAND's pawns do not move two squares from a4 through a3 to a2"),
    ("home centres not centres", "chessdip", chess(home_centres={"ENGLAND": ["d4"]}),
     '"home_centres" of ENGLAND: d4 is not a centre'),
    ("chess retreat phase", "chessdip", chess("S1901R"),
     "S1901R is not a phase of this variant: no Spring Retreat"),
    # --------------------------------------------- wrong types
    ("phase a number", "standard", std(phase=1901), '"phase" must be a string, not int'),
    ("no phase", "standard", {"units": {}}, 'the position has no "phase"'),
    ("phase not a code", "standard", std(phase="spring"), "not a phase code: 'spring'"),
    ("units a list", "standard", std(units=["F LON"]), '"units" must be an object'),
    ("unit a number", "standard", std(units={"ENGLAND": [7]}),
     '"units" of ENGLAND must list strings, not int (7)'),
    ("centre null", "standard", std(centres={"ENGLAND": [None]}),
     '"centres" of ENGLAND must list strings, not NoneType (null)'),
    ("attacker a number", "standard",
     std(phase="S1901R", dislodged={"FRANCE": [{"unit": "A PAR", "attacker_from": 5}]}),
     '"attacker_from" of FRANCE\'s dislodged A PAR must be a province, not int'),
    ("retreats a string", "standard",
     std(phase="S1901R", dislodged={"FRANCE": [{"unit": "A PAR", "retreats": "PIC"}]}),
     '"retreats" of FRANCE\'s dislodged A PAR must be a list of provinces'),
    ("dislodged without unit", "standard",
     std(phase="S1901R", dislodged={"FRANCE": [{"attacker_from": "BUR"}]}),
     'a dislodged unit of FRANCE needs "unit", a string'),
    ("standoffs a string", "standard", std(standoffs="BUR"), '"standoffs" must be a list'),
    ("winner a number", "standard", std(winner=1), '"winner" must be a string'),
    ("a list", "standard", "[1, 2]", "a position must be a JSON object, not a list"),
    ("not JSON", "standard", "{units: }", "unreadable input: Expecting property name"),
    ("NaN", "standard", '{"phase": "S1901M", "units": {}, "x": NaN}', "NaN is not a JSON number"),
    ("empty file", "standard", "", "unreadable input: Expecting value"),
    ("hoplite units lots", "hoplite", hop({}, delphi_units="lots"),
     '"delphi_units" must be 0, 1 or 2 (rule 7), not "lots"'),
    ("hoplite sacker", "hoplite", hop({}, delphi_sacked_by="ELIS"),
     '"delphi_sacked_by" must be a major state, not "ELIS"'),
    ("hoplite seed", "hoplite", hop({}, seed=[1]), '"seed" must be a number or a string'),
    # --------------------------------------------- names not on the board, impossible places
    ("unknown power", "standard", std(units={"NARNIA": ["A PAR"]}),
     "unknown power 'NARNIA' in units"),
    ("unknown winner", "standard", std(winner="NARNIA"), "unknown power 'NARNIA' in winner"),
    ("unknown province", "standard", std(units={"ENGLAND": ["A XYZ"]}), "'XYZ'"),
    ("fleet inland", "standard", std(units={"FRANCE": ["F PAR"]}), "a fleet cannot stand in PAR"),
    ("army at sea", "standard", std(units={"ENGLAND": ["A NTH"]}),
     "an army cannot stand in NTH"),
    ("coast without coasts", "standard", std(units={"ENGLAND": ["F LON/NC"]}),
     "a fleet cannot stand in LON/NC"),
    ("fleet without its coast", "standard", std(units={"FRANCE": ["F SPA"]}),
     "a fleet cannot stand in SPA"),
    ("army on a coast", "standard", std(units={"FRANCE": ["A SPA/NC"]}),
     "an army cannot stand in SPA/NC"),
    ("two units in one province", "standard",
     std(units={"ENGLAND": ["A PAR"], "FRANCE": ["A PAR"]}), "two units in PAR"),
    ("two powers in one stack", "stackem",
     {"variant": "stackem", "phase": "S1901M", "units": {"ENGLAND": ["A PAR"],
                                                         "FRANCE": ["2A PAR"]}},
     "units of ENGLAND and FRANCE in PAR"),
    ("two players in one province", "multiplicity",
     multi({"ENGLAND": ["A BUR"], "FRANCE": ["2A BUR"]}), "units of ENGLAND and FRANCE in BUR"),
    ("one power's unit twice", "multiplicity", multi({"FRANCE": ["A BUR", "A BUR"]}),
     "two units of FRANCE in BUR: one unit holds them all"),
    ("multiplicity fleets inland", "multiplicity", multi({"FRANCE": ["2F PAR"]}),
     "FRANCE 2F PAR: a fleet cannot stand in PAR"),
    ("multiplicity army on a coast", "multiplicity", multi({"FRANCE": ["2A SPA/NC"]}),
     "only a unit with a fleet stands on a coast"),
    ("multiplicity garrison", "multiplicity", multi({"FRANCE": ["G PAR"]}),
     "G is no unit of this variant (its units: A, F)"),
    ("centre not a centre", "standard", std(centres={"ENGLAND": ["YOR"]}),
     "'YOR' in the centres of ENGLAND is not a supply centre of standard"),
    ("centre owned twice", "standard", std(centres={"ENGLAND": ["LON"], "FRANCE": ["LON"]}),
     "centre LON is owned by both ENGLAND and FRANCE"),
    ("centre listed twice", "standard", std(centres={"ENGLAND": ["LON", "lon"]}),
     'lon is listed twice in the "centres" of ENGLAND'),
    ("owner in two spellings", "standard",
     std(centres={"ENGLAND": ["LON"], "England": ["EDI"]}),
     '"centres" names ENGLAND twice ("ENGLAND" and "England")'),
    ("owner listed twice", "standard",
     '{"phase": "S1901M", "centres": {"ENGLAND": ["LON"], "ENGLAND": ["EDI"]}}',
     'the key "ENGLAND" appears twice in one object'),
    # --------------------------------------------- years and huge numbers
    ("year before the game", "standard", std(phase="S1900M"),
     "S1900M is before the variant's first phase, S1901M"),
    ("year negative", "standard", std(phase="F-5M"), "F-5M is before the variant's first phase"),
    ("year far ahead", "standard", std(phase="S2902M"), "S2902M is out of range"),
    ("year huge", "standard", std(phase="S999999999M"), "S999999999M is out of range"),
    ("year of 20 digits", "standard", std(phase="S99999999999999999999M"),
     "S9999999999999999999...: the year is out of range"),
    ("year of 5000 digits", "standard", std(phase="S" + "9" * 5000 + "M"),
     "the year is out of range"),
    ("hoplite year of 5000 digits", "hoplite", {**hop({}), "phase": "S" + "9" * 5000 + "BCM"},
     "the year is out of range"),
    ("multiplicity before its builds", "multiplicity", multi({}, phase="S1900M"),
     "S1900M is before the variant's first phase, W1900A"),
    ("hoplite before its set-up", "hoplite", {**hop({}), "phase": "S451BCM"},
     "S451BCM is before the variant's first phase, W451BCA"),
    ("huge multiple unit", "multiplicity", multi({"ENGLAND": ["99999999999A LON"]}),
     "a unit of 99999999999 is more than the 34 the board's centres can keep"),
    ("huge stack", "stackem",
     {"variant": "stackem", "phase": "S1901M", "units": {"ENGLAND": ["99999999999A LON"]}},
     "a stack of 99999999999 is more than the 34 units"),
]


@pytest.mark.parametrize("variant, position, message",
                         [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_a_malformed_position_exits_2_with_one_line_naming_the_fault(
        tmp_path: Path, variant: str, position: dict | str, message: str) -> None:
    refused(adjudicate(tmp_path, variant, position), message)


def test_an_orders_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    refused(adjudicate(tmp_path, "standard", std(), b"ENGLAND:\nF LON - NTH\n\xff\xfe\n"),
            "cannot read input: 'utf-8' codec can't decode byte 0xff")


def test_a_position_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    refused(adjudicate(tmp_path, "standard", b'{"phase": "S1901M\xff"}'),
            "cannot read input")


def test_an_empty_orders_file_is_no_orders(tmp_path: Path) -> None:
    out = adjudicate(tmp_path, "standard", std(), "")
    assert out.returncode == 0, out.stderr
    assert {r["order"] for r in json.loads(out.stdout)["results"]} == {
        "F LON H", "A LVP H", "A PAR H"}


def test_batch_reports_each_bad_line_and_goes_on_with_the_others(tmp_path: Path) -> None:
    good = {"variant": "standard", "position": std(), "orders": "ENGLAND:\nF LON - NTH\n"}
    cases = [
        {"id": 1, **good},
        {"id": 2, "variant": "standard", "position": std(phase="S1901A"), "orders": ""},
        {"id": 3, "variant": "chessdip", "position": chess("S1901R"), "orders": ""},
        {"id": 4, **good},
        {"id": 5, "variant": "multiplicity", "position": multi({"ENGLAND": ["2A MAO"]}),
         "orders": ""},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases)
                    + '{"id": 6, "id": 7, "position": {}}\n')
    out = run("adjudicate", "--batch", str(path))
    assert out.returncode == 2
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert [x.get("id") for x in lines] == [1, 2, 3, 4, 5, None]
    assert lines[0]["position"]["units"]["ENGLAND"] == ["A LVP", "F NTH"]
    assert {**lines[3], "id": 1} == lines[0]
    assert "S1901A is not a phase" in lines[1]["error"]
    assert "S1901R is not a phase" in lines[2]["error"]
    assert "not seaworthy" in lines[4]["error"]
    assert "appears twice" in lines[5]["error"]
    errors = out.stderr.strip().splitlines()
    assert [e.split(":")[1] for e in errors] == [" line 2", " line 3", " line 5", " line 6"]


# ------------------------------------------------ what play produces is still read
def test_every_datc_position_and_the_position_after_it_is_read(tmp_path: Path) -> None:
    cases = json.loads(DATC.read_text(encoding="utf-8"))["cases"]
    path = tmp_path / "datc.jsonl"
    path.write_text("".join(json.dumps({
        "id": c["id"], "variant": "standard", "orders": c["orders"],
        "position": {"phase": c["phase"], "units": c["units"],
                     "centres": c.get("supply_centers", {})}}) + "\n" for c in cases))
    out = run("adjudicate", "--batch", str(path))
    assert out.returncode == 0, out.stderr
    outcomes = [json.loads(x) for x in out.stdout.splitlines()]
    assert len(outcomes) == len(cases)
    path.write_text("".join(json.dumps({"variant": "standard", "position": o["position"],
                                        "orders": ""}) + "\n" for o in outcomes))
    again = run("adjudicate", "--batch", str(path))
    assert again.returncode == 0, again.stderr


def test_positions_a_game_of_each_variant_passes_through_are_read(tmp_path: Path) -> None:
    """Each variant's start, and the positions after it with every unit holding (through
    the winters), fed back through the command one after another: all read."""
    from judge.variants import get_variant, variant_names

    for name in variant_names():
        if name == "dipnomicy":  # its positions need the game's seed and ruleset
            continue
        v = get_variant(name)
        position = v.write_position(v.initial_position())
        for _ in range(4):
            out = adjudicate(tmp_path, name, position)
            assert out.returncode == 0, (name, position["phase"], out.stderr)
            position = json.loads(out.stdout)["position"]


def _dipnomicy(**keys: object) -> dict:
    from judge.variants import get_variant

    v = get_variant("dipnomicy")
    return {**v.write_position(v.initial_position()), **keys}


@pytest.mark.parametrize("keys, message", [
    ({"phase": "F-5M"}, "F-5M is before the variant's first phase, S1901M"),
    ({"phase": "S9999999M"}, "S9999999M is out of range"),
    ({"phase": "W1901M"}, "W1901M is not a phase of this variant"),
    ({"dislodged": {"GERMANY": [{"unit": "A SIL", "attacker_from": "BER"}]}},
     "only a retreat phase has dislodged units"),
], ids=["year negative", "year huge", "winter movement", "dislodged in a movement phase"])
def test_a_dipnomicy_position_play_cannot_produce_is_refused(
        tmp_path: Path, keys: dict, message: str) -> None:
    """Found by review: Dipnomicy had no validate_position hook, so a phase before the game,
    a Winter movement or dislodged units in a movement phase were adjudicated (exit 0)."""
    refused(adjudicate(tmp_path, "dipnomicy", _dipnomicy(**keys), "GERMANY:\nA BER - SIL\n"),
            message)


def test_dipnomicy_positions_of_retreats_and_upkeeps_are_still_read(tmp_path: Path) -> None:
    """Under P1 (beaten out) and P2 (upkeep) play passes through retreat and adjustment
    phases: every position of random turns, fed back through the command, is read."""
    import random

    from seasonkit import phase_orders
    from test_dipnomicy_rules import enact

    from judge.variants import get_variant

    v = get_variant("dipnomicy")
    seen: set[str] = set()
    for seed in range(20):
        rng = random.Random(seed)
        position = enact(v.initial_position(), "Support actions", "Supply centres",
                         "Mobile fleets", "Merging units")
        for _ in range(10):
            lines = [(p, x) for p in sorted(v.board.powers)
                     for x in phase_orders("dipnomicy", v, position, p, rng)]
            position = v.adjudicate_lines(position, lines).position
            seen.add(position.phase.kind)
            assert v.read_position(json.loads(json.dumps(v.write_position(position))))
    assert seen == {"M", "R", "A"}, seen
    out = adjudicate(tmp_path, "dipnomicy", v.write_position(position))
    assert out.returncode == 0, out.stderr
