"""A variant added as a folder alone (tests/extra_variants/blindfold, docs/engine.md): its
game flow hides every unit from every player but its owner, and the judge, which never names
it, plays it by mail."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mailkit import FALL, POWERS, SPRING, InProcessJudge

import judge.variants
from judge.games import flow

EXTRA = Path(__file__).with_name("extra_variants")


@pytest.fixture
def blindfold(monkeypatch):
    monkeypatch.setattr(judge.variants, "__path__", [*judge.variants.__path__, str(EXTRA)])
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()
    yield
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()


def addr(power: str) -> str:
    return f"{power.lower()}@p.test"


def _play(judge: InProcessJudge) -> dict[str, list]:
    judge.send("gm@p.test", "CREATE blind1 masterpw VARIANT blindfold\nOPEN", "new")
    for p in POWERS:
        judge.send(addr(p), f"SIGNON {p.title()} blind1 pw-{p.lower()}", "join")
    got = judge.send("gm@p.test", "MASTER blind1 masterpw\nSTART", "start")
    for orders in (SPRING, FALL):
        for p, lines in orders.items():
            got += judge.send(addr(p), f"SIGNON {p.title()} blind1 pw-{p.lower()}\n"
                              + "\n".join(lines), "orders")
    mails: dict[str, list] = {}
    for m in got:
        mails.setdefault(m.rcpt.lower(), []).append(m)
    return mails


def _units_named(text: str) -> set[str]:
    return set(re.findall(r"\b[AF] [A-Z]{3}(?:/[NSEW]C)?\b", text.upper()))


def test_each_player_is_told_only_of_its_own_units(tmp_path, blindfold):
    judge = InProcessJudge(tmp_path)
    mails = _play(judge)
    for p in POWERS:
        got = mails[addr(p)]
        reports = [m for m in got if "results" in m.subject]
        assert [m.subject for m in reports] == ["blind1 - S1901M results",
                                                "blind1 - F1901M results"], p
        start = next(m for m in got if "has started" in m.subject)
        own = {u.split()[-1] for u in _units_named("\n".join(SPRING[p]))}
        assert {u.split()[-1] for u in _units_named(start.body)} == own, start.body
        for m in reports:
            for other in POWERS:
                if other != p:  # another power's orders never reach this player
                    for line in SPRING[other] + FALL[other]:
                        assert line not in m.body.upper(), (p, other, line, m.body)
        for line in SPRING[p]:  # its own orders, with their results
            assert line in reports[0].body.upper(), (p, line, reports[0].body)
    master = [m for m in mails["gm@p.test"] if "results" in m.subject]
    assert master and not any(_units_named(m.body) for m in master)  # the public report


def test_status_shows_other_powers_without_units(tmp_path, blindfold):
    judge = InProcessJudge(tmp_path)
    _play(judge)
    [reply] = judge.send(addr("FRANCE"), "SIGNON France blind1 pw-france\nSTATUS", "status")
    rows = {line.split()[0]: line for line in reply.body.splitlines()
            if line.startswith("  ") and line.split()[0].upper() in POWERS}
    assert sorted(rows) == sorted(p.title() for p in POWERS), reply.body
    for power, row in rows.items():
        assert ("unit" in row) == (power == "France"), row  # no count of others' units


def test_the_folder_is_found_and_the_standard_flow_is_unchanged(blindfold):
    assert flow.flow_of("blindfold").hidden
    assert not flow.flow_of("standard").hidden
    assert "blindfold" in judge.variants.variant_names()
