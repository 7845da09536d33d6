"""The game's variant names its flow and its positions (issue 22 #4): a hidden variant on the
standard board (tests/extra_variants/veiled, built as docs/engine.md's blindfold example)
has its ``read_lines`` run, played by mail through the real servers, and no reply names
another power's unit; every variant's positions say its own name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gmkit import FakeClock, LiveJudge, addr, gm_addr, to
from mailkit import POWERS

import judge.variants
from judge.games import flow
from judge.variants import get_variant, variant_names

EXTRA = Path(__file__).with_name("extra_variants")


@pytest.fixture
def veiled(monkeypatch):
    monkeypatch.setattr(judge.variants, "__path__", [*judge.variants.__path__, str(EXTRA)])
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()
    yield
    flow.flow_of.cache_clear()
    flow.all_flows.cache_clear()


@pytest.fixture
def live(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def test_a_hidden_variants_own_reading_runs_and_names_no_other_unit(live, veiled):
    from judge.variants.veiled.flow import REFUSAL  # on the path only with the fixture

    g = "veil1"
    live.send(gm_addr(g), f"CREATE {g} gm-{g} VARIANT veiled\nOPEN")
    live.pump()
    for p in POWERS:
        live.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
    live.pump()
    live.send(gm_addr(g), f"MASTER {g} gm-{g}\nSTART")
    live.pump()
    # France orders a German unit (and one of its own)
    live.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\nA MUN - BUR\nA PAR - PIC")
    out = live.pump()
    [reply] = to(out, addr(g, "FRANCE"))
    assert REFUSAL in reply.flat, reply.body
    assert "GERMAN" not in reply.flat.upper(), reply.body  # whose unit stands in Munich
    assert "not yours" not in reply.flat, reply.body
    assert "A PAR - PIC" in reply.flat.upper()
    rows = live.store.all("SELECT position FROM positions WHERE game_id = ?",
                          (live.game(g)["id"],))
    assert [json.loads(r["position"])["variant"] for r in rows] == ["veiled"]


@pytest.mark.parametrize("name", variant_names())
def test_every_variants_positions_say_its_own_name(name, tmp_path):
    variant = get_variant(name)
    start = variant.write_position(variant.initial_position())
    assert start["variant"] == name
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(start), encoding="utf-8")
    orders = tmp_path / "orders.txt"
    orders.write_text("", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "judge.cli", "adjudicate", "--variant", name,
                           "--position", str(path), "--orders", str(orders), "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["position"]["variant"] == name
