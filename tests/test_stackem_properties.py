"""Property tests for Stack 'em: random legal orders on random positions with stacks.

The engine always terminates without raising; no space ends with two powers' units in it
(rule 1); no unit is lost or made: every unit ends where it was, where it was ordered to move,
or among the dislodged; and a dislodged space loses all its units (rule 14). The lines the
judge keeps from each power's mail give what all the lines give (``judge adjudicate``), and the
same with the lines listed in another order (each space's lines as written, which rules 2, 12
and 13 give a meaning): the random mails order some units twice, alone or counted
(``2A WAR-UKR`` then ``A WAR-SIL``), so the reader and the adjudicator must agree on which
order for a unit stands.

``JUDGE_FUZZ_EXAMPLES`` (tests/fuzzkit.py) runs more random phases, with new seeds.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from fuzzkit import examples, nightly
from fuzzkit import seed as fuzz_seed
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.engine.board import province_of
from judge.engine.orders import Move, Order, Unit
from judge.engine.position import Position
from judge.engine.randomgame import random_orders, random_position
from judge.games.game import read_order_lines
from judge.variants import get_variant
from judge.variants.stackem.orders import Stacked

V = get_variant("stackem")
BOARD = V.board


def _stacked_phase(seed: int, units: int) -> tuple[Position, list[tuple[str, Order | Stacked]]]:
    """A random standard phase, then some units doubled or tripled with their orders
    counted, so that stacks move, support and hold together and apart."""
    rng = random.Random(seed)
    position = random_position(BOARD, rng, units)
    orders = random_orders(BOARD, position, rng)
    by_loc = {o.unit.location: (p, o) for p, o in orders}
    extra: list[Unit] = []
    out: list[tuple[str, Order | Stacked]] = []
    for unit in position.units:
        n = rng.choice((1, 1, 2, 3))
        extra.extend([unit] * (n - 1))
        given = by_loc.get(unit.location)
        if given is None:
            continue
        power, order = given
        if n > 1 and rng.random() < 0.5:
            out.append((power, Stacked(order, n)))  # all alike (rule 2) ...
        else:
            out.append((power, order))  # ... or one ordered and the rest holding
    position.units = [*position.units, *extra]
    rng.shuffle(out)
    return position, out


def _check_board(position: Position) -> None:
    owner: dict[str, str] = {}
    for u in position.units:
        assert owner.setdefault(u.province, u.power) == u.power, f"two powers in {u.province}"


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(2, 30))
def test_movement_keeps_every_unit_and_one_power_per_space(seed: int, units: int) -> None:
    position, orders = _stacked_phase(seed, units)
    outcome = V.adjudicate(position, orders)
    nxt = outcome.position
    _check_board(nxt)
    assert len(outcome.results) >= len(orders)
    before = Counter((u.power, u.kind, u.province) for u in position.units)
    after = Counter((u.power, u.kind, u.province) for u in nxt.units)
    gone = Counter((d.unit.power, d.unit.kind, d.unit.province) for d in nxt.dislodged)
    assert sum(after.values()) + sum(gone.values()) == sum(before.values())
    moves: dict[tuple[str, str, str], set[str]] = {}
    for power, order in orders:
        base = order.order if isinstance(order, Stacked) else order
        if isinstance(base, Move):
            moves.setdefault((power, base.unit.kind or "A", base.unit.province), set()).add(
                province_of(base.destination))
    for (power, kind, prov), n in after.items():
        sources = sum(c for (p, k, q), c in before.items()
                      if p == power and k == kind and (q == prov or prov in moves.get((p, k, q), ())))
        assert sources >= n, f"{n} {kind} of {power} in {prov} came from nowhere"
    for d in nxt.dislodged:
        # All or nothing (rule 14): nobody of the dislodged power stayed behind in the space.
        assert not any(u.province == d.unit.province and u.power == d.unit.power
                       for u in nxt.units)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_random_turns_keep_one_power_per_space(seed: int) -> None:
    position, orders = _stacked_phase(seed, random.Random(seed).randint(10, 30))
    for _ in range(4):
        kind = position.phase.kind
        outcome = V.adjudicate(position, orders if kind == "M" else [])
        position = V.read_position(V.write_position(outcome.position))  # through the JSON
        _check_board(position)
        if kind == "R":
            assert not position.dislodged
        orders = []


def _mails(seed: int) -> tuple[Position, list[tuple[str, str]]]:
    """A random stacked phase written as mails, with some units ordered twice: a second
    order (a hold, or the stack's order again) for one unit or counted for several, before or
    after the first."""
    position, orders = _stacked_phase(seed, random.Random(seed).randint(4, 24))
    rng = random.Random(seed ^ 0x5EED)
    lines = [(power, str(order)) for power, order in orders]
    stacks = Counter((u.power, str(u)) for u in position.units)
    for (power, unit), n in stacks.items():
        if rng.random() < 0.4:
            count = rng.randint(1, n)
            text = f"{count}{unit} H" if count > 1 else f"{unit} H"
            lines.insert(rng.randint(0, len(lines)), (power, text))
    return position, lines


def _kept(position: Position, lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lines the judge keeps when each power mails its lines in this order."""
    out = []
    for power in dict.fromkeys(p for p, _ in lines):
        texts = [t for p, t in lines if p == power]
        out += [(power, x["text"]) for x in read_order_lines(V, position, power, texts)
                if x.get("order") and not x.get("error")]
    return out


FIRST_SEED = fuzz_seed()  # once: a nightly run draws a new seed at each call
MAIL_SEEDS = range(FIRST_SEED, FIRST_SEED + examples(80)) if nightly() else range(80)


@pytest.mark.parametrize("seed", MAIL_SEEDS)
def test_the_lines_a_mail_keeps_give_the_ruling_of_all_its_lines(seed: int) -> None:
    position, lines = _mails(seed)
    given = V.write_position(V.adjudicate_lines(position, lines).position)
    kept = _kept(position, lines)
    alone = V.adjudicate_lines(position, kept)
    assert V.write_position(alone.position) == given, ("the lines the mail refused changed "
                                                       "the outcome", lines, kept)
    assert not [r for r in alone.results if "already has an order" in r.reason
                or "replaced" in r.reason], "a line the mail kept was not obeyed"
    rng = random.Random(seed)
    space = [(p, province_of(t.split()[1])) for p, t in kept]  # "2A PAR - BUR": its space
    lines_of = {k: [t for (_, t), where in zip(kept, space, strict=True) if where == k]
                for k in dict.fromkeys(space)}
    rng.shuffle(space)
    shuffled = [(k[0], lines_of[k].pop(0)) for k in space]
    again = V.write_position(V.adjudicate_lines(position, shuffled).position)
    assert again == given, ("another listing of the lines kept changed the outcome", kept,
                            shuffled)
