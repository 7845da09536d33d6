"""Property tests for Stack 'em: random legal orders on random positions with stacks.

The engine always terminates without raising; no space ends with two powers' units in it
(rule 1); no unit is lost or made: every unit ends where it was, where it was ordered to move,
or among the dislodged; and a dislodged space loses all its units (rule 14).
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.engine.board import province_of
from judge.engine.orders import Move, Order, Unit
from judge.engine.position import Position
from judge.engine.randomgame import random_orders, random_position
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
