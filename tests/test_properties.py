"""Property tests: random legal order sets on random standard positions.

The engine always terminates without raising, its result does not depend on the order in
which the orders were listed, no two units end in one province, and a unit is either where it
was, where it was ordered to move, or dislodged.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.engine.board import province_of
from judge.engine.orders import Move
from judge.engine.randomgame import random_orders, random_position
from judge.variants import get_variant

VARIANT = get_variant("standard")
BOARD = VARIANT.board


def _phase(seed: int, units: int):
    rng = random.Random(seed)
    position = random_position(BOARD, rng, units)
    return position, random_orders(BOARD, position, rng)


def _summary(outcome) -> tuple:
    nxt = outcome.position
    return (
        sorted((u.power, str(u)) for u in nxt.units),
        sorted((d.unit.power, str(d.unit), d.attacker_from, d.retreats) for d in nxt.dislodged),
        str(nxt.phase),
    )


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(2, 34))
def test_engine_terminates_and_one_unit_per_province(seed: int, units: int) -> None:
    position, orders = _phase(seed, units)
    outcome = VARIANT.adjudicate(position, orders)
    provinces = [u.province for u in outcome.position.units]
    assert len(provinces) == len(set(provinces))
    assert len(outcome.results) == len(orders) + sum(
        1 for u in position.units if u.province not in {province_of(o.unit.location) for _, o in orders})
    moved_to = {province_of(o.unit.location): province_of(o.destination)
                for _, o in orders if isinstance(o, Move)}
    for unit in position.units:
        here = [u for u in outcome.position.units
                if u.power == unit.power and u.kind == unit.kind
                and u.province in (unit.province, moved_to.get(unit.province))]
        gone = [d for d in outcome.position.dislodged if d.unit == unit]
        assert here or gone, f"{unit} vanished"


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), units=st.integers(2, 34), shuffle=st.randoms())
def test_result_does_not_depend_on_order_of_listing(seed: int, units: int, shuffle) -> None:
    position, orders = _phase(seed, units)
    first = VARIANT.adjudicate(position, orders)
    shuffled = list(orders)
    shuffle.shuffle(shuffled)
    second = VARIANT.adjudicate(position, shuffled)
    assert _summary(first) == _summary(second)
    by_order = {(r.power, r.order): r.result for r in first.results}
    assert by_order == {(r.power, r.order): r.result for r in second.results}


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_random_turns_keep_the_board_consistent(seed: int) -> None:
    """Movement, retreats and adjustments in sequence, from random positions."""
    rng = random.Random(seed)
    position = random_position(BOARD, rng, rng.randint(10, 34))
    for _ in range(6):
        kind = position.phase.kind
        if kind == "M":
            outcome = VARIANT.adjudicate(position, random_orders(BOARD, position, rng))
        else:
            outcome = VARIANT.adjudicate(position, [])
        position = outcome.position
        provinces = [u.province for u in position.units]
        assert len(provinces) == len(set(provinces))
        if kind == "R":
            assert not position.dislodged
        if kind == "A":  # unordered removals were made by civil disorder, builds waived
            for power in position.powers():
                units = sum(1 for u in position.units if u.power == power)
                assert units <= len(position.centres.get(power, ()))
