"""Every phase code the judge prints for a variant is read back by every command that names a
phase: ROLLBACK, PROCESS, HISTORY, MAP and PHASE blocks. Hoplite Wars' years are BC
(``S450BCM``): the master's ROLLBACK and PROCESS refused them ("ROLLBACK needs one phase"),
HISTORY too, and MAP said it was not a phase code (found by the season simulator). The
classic layout's header codes the winter adjustments F1901B (DPjudge's): read as W1901A."""

from __future__ import annotations

import json

import pytest
from mailkit import InProcessJudge

from judge.engine.ahead import read_phase
from judge.engine.position import Phase, phase_code
from judge.games.commands import parse_line
from judge.games.flow import flow_of
from judge.render.classic import classic_phase
from judge.variants import get_variant, variant_names

STANDARD_CALENDAR = ("SM", "SR", "FM", "FR", "WA")


def printed_phases(name: str) -> list[Phase]:
    """The phases of three years of the variant's calendar, from its first, as its own phase
    class writes them (a BC calendar counts its years down: ``year + 1``)."""
    variant = get_variant(name)
    first = variant.initial_position().phase
    calendar = getattr(variant.rules, "calendar", STANDARD_CALENDAR)
    phases = [type(first)(sk[0], first.year + n, sk[1]) for n in range(3) for sk in calendar]
    return [p for p in phases if (p.year, "SFW".index(p.season)) >= (first.year, "SFW".index(
        first.season))]


@pytest.mark.parametrize("name", variant_names())
def test_every_printed_phase_code_is_read_back_by_every_phase_command(name):
    phases = printed_phases(name)
    first = phases[0]
    classic = flow_of(name).classic_names(get_variant(name)) is not None
    for phase in phases:
        code = str(phase)
        if classic:  # the classic layout's header: F1901B for W1901A (DPjudge's)
            shown = classic_phase(phase)
            assert phase_code(shown) == code, (name, shown)
            assert read_phase(f"PHASE {shown}", first) == phase, (name, shown)
            assert not parse_line(f"ROLLBACK {shown}").error, (name, shown)
        for line in (f"ROLLBACK {code}", f"PROCESS {code}", f"HISTORY g1 {code}",
                     f"HISTORY g1 {code} {code}", f"MAP g1 {code}", f"MAP g1 {code} SVG"):
            cmd = parse_line(line)
            assert not cmd.error, (name, line, cmd.error)
        # the commands look the code up among the game's phases, stored as printed
        assert phase_code(code) == phase_code(code.lower()) == code, (name, code)
        assert read_phase(f"PHASE {code}", first) == phase, (name, code)


def test_hoplite_master_commands_take_its_bc_phases(tmp_path):
    powers = get_variant("hoplite").board.powers
    judge = InProcessJudge(tmp_path)
    judge.send("gm@players.test", "CREATE hw masterpw VARIANT hoplite\nOPEN")
    for p in powers:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} hw pw-{p.lower()}")
    judge.send("gm@players.test", "MASTER hw masterpw\nSTART")
    assert judge.store.game("hw")["phase"] == "W451BCA"

    def master(body: str) -> str:
        sent = judge.send("gm@players.test", f"MASTER hw masterpw\n{body}")
        return next(" ".join(m.body.split()) for m in sent if m.rcpt == "gm@players.test"
                    and "Re: " in m.subject)

    text = master("PROCESS w451bca")
    assert "Processed W451BCA" in text and "ERROR" not in text, text
    now = judge.store.game("hw")["phase"]  # no units yet: the empty phases after it go too
    assert now.endswith("BCA") and now != "W451BCA", now
    text = master("PROCESS W451BCA")  # the guard: processed already
    assert f"W451BCA is not the current phase of game hw (it is {now})" in text, text
    text = master("HISTORY hw W451BCA S450BCM")
    assert "ERROR" not in text, text
    text = master("MAP hw S450BCM SVG")
    assert "The map of game hw, S450BCM" in text and "ERROR" not in text, text
    text = master("ROLLBACK S450BCM")
    assert "Game hw is back in S450BCM" in text, text
    assert judge.store.game("hw")["phase"] == "S450BCM"
    first = powers[0]
    home = sorted(get_variant("hoplite").board.home_centres[first])[0]
    sent = judge.send(f"{first.lower()}@players.test",
                      f"SIGNON {first} hw pw-{first.lower()}\nPHASE F450BCM\nA {home} H")
    assert "ERROR" not in sent[0].subject, sent[0].body
    blocks = judge.store.all("SELECT phase, lines FROM pending_orders")
    assert [(b["phase"], json.loads(b["lines"])[0]) for b in blocks] == [
        ("F-450M", "PHASE F450BCM")], sent[0].body
