"""Orders stored as data (issue 14): every order kind of every variant goes to plain JSON and
back unchanged, the stored form is stable, rows stored as text by earlier versions still
adjudicate, and adjudicating stored orders reads no text."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import judge.engine.parse
import judge.variants.standard.rules
from judge.engine.orders import (
    ORDER_TYPES,
    Hold,
    Move,
    UnitRef,
    Waive,
    order_from_data,
    order_to_data,
)
from judge.engine.randomgame import random_orders, random_position
from judge.engine.variant import Variant
from judge.games import game as G
from judge.resources import variant_file
from judge.storage import Store, now_utc
from judge.variants import get_variant, variant_names
from judge.variants.chessdip.randomgame import random_phase
from judge.variants.hoplite.rules import Sack
from judge.variants.multiplicity.orders import Split


def ref(text: str) -> UnitRef:
    kind, _, location = text.rpartition(" ")
    return UnitRef(kind or None, location)


def samples(name: str) -> list[dict]:
    """One stored order of every kind variant ``name`` stores: its folder's
    ``order_samples.json`` (with the samples of the variants it ``extends``), or the standard
    samples for a variant that stores only standard orders (it needs no file)."""
    source = variant_file(name, "order_samples.json")
    if not source.is_file():
        return samples("standard")
    data = json.loads(source.read_text(encoding="utf-8"))
    return [s for base in data.get("extends", ()) for s in samples(base)] + data["samples"]


def _type_names(data: Any) -> set[str]:
    if isinstance(data, dict):
        return {data["type"]} | {n for v in data.values() for n in _type_names(v)}
    if isinstance(data, list):
        return {n for v in data for n in _type_names(v)}
    return set()


def _round_trip(variant: Variant, order: Any) -> Any:
    data = variant.order_to_data(order)
    stored = json.loads(json.dumps(data))  # what the orders table keeps
    assert stored == data
    back = variant.order_from_data(stored)
    assert back == order and type(back) is type(order)
    assert str(back) == str(order)
    assert variant.order_to_data(back) == data
    return data


@pytest.mark.parametrize("name", variant_names())
def test_every_order_kind_round_trips(name: str) -> None:
    """Every kind the variant can store has a sample in its folder (a new kind adds one
    there), and each sample reads back and writes again unchanged."""
    variant = get_variant(name)
    seen: set[str] = set()
    for data in samples(name):
        order = variant.order_from_data(data)
        assert variant.order_to_data(order) == data, data
        seen |= _type_names(_round_trip(variant, order))
    assert seen == set(variant.order_types)


def test_the_stored_form_is_stable() -> None:
    """The JSON as documented in docs/engine.md ("Orders as data"): stored rows depend on it."""
    assert order_to_data(Move(ref("A LON"), "BEL", via_convoy=True)) == {
        "type": "move", "unit": {"type": "unit", "kind": "A", "location": "LON"},
        "destination": "BEL", "via_convoy": True}
    assert order_to_data(Hold(ref("MUN"))) == {
        "type": "hold", "unit": {"type": "unit", "kind": None, "location": "MUN"}}
    assert order_to_data(Waive()) == {"type": "waive"}
    split = get_variant("multiplicity").order_to_data(
        Split(ref("2A PAR"), (Move(ref("A PAR"), "PIC"), Hold(ref("A PAR")))))
    assert split == {"type": "split", "unit": {"type": "unit", "kind": "2A", "location": "PAR"},
                     "parts": [{"type": "move", "unit": {"type": "unit", "kind": "A",
                                                         "location": "PAR"},
                                "destination": "PIC"},
                               {"type": "hold", "unit": {"type": "unit", "kind": "A",
                                                         "location": "PAR"}}]}
    doc = (Path(__file__).resolve().parents[1] / "docs" / "engine.md").read_text()
    assert json.dumps(order_to_data(Move(ref("A LON"), "BEL", via_convoy=True))) in doc


def test_unknown_types_are_refused() -> None:
    with pytest.raises(TypeError, match="Sack"):
        order_to_data(Sack(ref("A DEL")))  # not a standard order
    with pytest.raises(ValueError, match="unknown order type 'sack'"):
        order_from_data({"type": "sack", "unit": {"type": "unit", "kind": "A",
                                                  "location": "DEL"}}, ORDER_TYPES)
    with pytest.raises(ValueError, match="does not fit"):
        order_from_data({"type": "hold", "unit": None, "speed": 3})


@pytest.mark.parametrize("seed", range(20))
def test_orders_read_from_lines_round_trip(seed: int) -> None:
    """Orders as the variants read them from players' lines (checked, made canonical)."""
    rng = random.Random(seed)
    standard = get_variant("standard")
    position = random_position(standard.board, rng, 30)
    for power, order in random_orders(standard.board, position, rng):
        read = standard.read_order(position, power, str(order))
        _round_trip(standard, read)
        # the canonical text reads back to the same order
        assert standard.read_order(position, power, str(read)) == read
    chess = get_variant("chessdip")
    cpos, lines, _ = random_phase(chess.board, chess.rules, seed)  # type: ignore[arg-type]
    for power, line in lines:
        try:
            read = chess.read_order(cpos, power, line)
        except ValueError:
            continue
        _round_trip(chess, read)
        assert chess.read_order(cpos, power, str(read)) == read


# ------------------------------------------------------------------ stored games
ORDERS = {"FRANCE": ["A PAR - BUR", "F BRE - MAO", "A MAR S A PAR - BUR"],
          "GERMANY": ["A MUN - BUR", "F KIE - DEN"], "ENGLAND": ["F LON - NTH"]}


def _running_game(tmp_path: Path, db: str = "judge.db") -> tuple[Store, dict]:
    s = Store(tmp_path / db)
    variant = get_variant("standard")
    with s.transaction():
        game = G.create_game(s, "g1", "secret", "standard", (86400, 86400, 86400),
                             "gm@example.org")
        game = G.open_game(s, game)
        for power in variant.board.powers:
            G.join_game(s, game, power, "pass" + power, f"{power.lower()}@example.org")
        game = G.start_game(s, G.refresh(s, game), now_utc())
        for power, lines in ORDERS.items():
            G.submit_orders(s, game, power, lines, None)
    return s, game


def _results(s: Store, game: dict) -> list[dict]:
    row = s.one("SELECT results FROM positions WHERE game_id = ? AND phase = 'S1901M'",
                (game["id"],))
    return json.loads(row["results"])


def test_orders_are_stored_as_data(tmp_path: Path) -> None:
    s, game = _running_game(tmp_path)
    variant = get_variant("standard")
    lines = s.order_set(game["id"], "S1901M", "FRANCE")
    assert lines is not None
    for line in lines:
        order = variant.order_from_data(line["data"])
        assert str(order) == line["order"]  # the text shown is the data's canonical text
    assert lines[0]["data"] == {"type": "move", "destination": "BUR",
                                "unit": {"type": "unit", "kind": "A", "location": "PAR"}}


def test_adjudication_reads_no_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s, game = _running_game(tmp_path)

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("an order was read from text at adjudication")

    monkeypatch.setattr(judge.variants.standard.rules, "parse_order", no_parsing)
    monkeypatch.setattr(judge.engine.parse, "parse_order", no_parsing)
    monkeypatch.setattr(Variant, "read_order", no_parsing)
    with s.transaction():
        turns = G.adjudicate(s, game, now_utc() + timedelta(days=2))
    assert [str(t.previous.phase) for t in turns] == ["S1901M"]
    by_order = {r["order"]: r["result"] for r in _results(s, game)}
    assert by_order["A PAR - BUR"] == "succeeds"  # supported from Marseilles
    assert by_order["A MUN - BUR"] == "fails"
    assert by_order["F KIE - DEN"] == "succeeds"


def test_a_row_stored_as_text_still_adjudicates(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows written before orders were stored as data hold the canonical text only: each is
    read once, at the deadline, and the ruling is the one the data gives."""
    s, game = _running_game(tmp_path)
    with s.transaction():
        for row in s.all("SELECT power, lines FROM orders WHERE game_id = ?", (game["id"],)):
            old = [{k: v for k, v in line.items() if k != "data"}
                   for line in json.loads(row["lines"])]
            s.execute("UPDATE orders SET lines = ? WHERE game_id = ? AND power = ?",
                      (json.dumps(old), game["id"], row["power"]))
        assert all("data" not in line for lines in s.order_sets(game["id"], "S1901M").values()
                   for line in lines)
    read: list[str] = []
    real_read = Variant.read_order

    def counted(self: Variant, position: Any, power: str, text: str) -> Any:
        read.append(text)
        return real_read(self, position, power, text)

    monkeypatch.setattr(Variant, "read_order", counted)
    with s.transaction():
        G.adjudicate(s, game, now_utc() + timedelta(days=2))
    text_results = _results(s, game)
    assert sorted(read) == sorted(line for lines in ORDERS.values() for line in lines)
    monkeypatch.undo()

    s2, game2 = _running_game(tmp_path, "new.db")
    with s2.transaction():
        G.adjudicate(s2, game2, now_utc() + timedelta(days=2))
    assert text_results == _results(s2, game2)
    assert {r["order"]: r["result"] for r in text_results}["A PAR - BUR"] == "succeeds"


def test_a_stab_placement_is_adjudicated_from_data(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Stab! reads its movement lines against the power's own units; the orders it stored
    are adjudicated as they are, with the placement they were read against."""
    s = Store(tmp_path / "judge.db")
    variant = get_variant("stab")
    with s.transaction():
        game = G.open_game(s, G.create_game(s, "s1", "secret", "stab", (86400,) * 3,
                                            "gm@example.org"))
        for power in variant.board.powers:
            G.join_game(s, game, power, "pass" + power, f"{power.lower()}@example.org")
        game = G.start_game(s, G.refresh(s, game), now_utc())
        status = G.submit_orders(s, game, "FRANCE", ["PLACE F BRE", "PLACE A MAR", "PLACE A PAR",
                                                     "A PAR - BUR", "F BRE - MAO"], None)
        assert not status.has_errors
        # Germany's placement is refused (two units in Kiel): it gets the standard units,
        # and its move, read against the fleet it placed, is not adjudicated
        status = G.submit_orders(s, game, "GERMANY", ["PLACE A MUN", "PLACE A KIE",
                                                      "PLACE F KIE", "F KIE - DEN"], None)
        assert [x["error"] for x in status.lines][:3] == ["two units placed in Kiel"] * 3
        assert status.lines[3]["data"] is not None

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("an order was read from text at adjudication")

    for module in ("judge.variants.stab.rules", "judge.variants.stab.flow",
                   "judge.variants.standard.rules"):
        monkeypatch.setattr(f"{module}.parse_order", no_parsing)
    monkeypatch.setattr(Variant, "read_order", no_parsing)
    monkeypatch.setattr("judge.variants.stab.rules.StabRules.read_order", no_parsing)
    with s.transaction():
        turns = G.adjudicate(s, game, now_utc() + timedelta(days=2))
    after = turns[0].outcome.position
    france = sorted(str(u) for u in after.units_of("FRANCE"))
    assert france == ["A BUR", "A MAR", "F MAO"]
    germany = sorted(str(u) for u in after.units_of("GERMANY"))
    assert germany == ["A BER", "A MUN", "F KIE"]  # the standard units, unmoved
    assert "F KIE - DEN" not in [r.order for r in turns[0].outcome.results]
