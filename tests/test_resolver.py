"""The generic resolver on small systems of decisions, with no Diplomacy in them."""

from __future__ import annotations

from collections.abc import Callable

from judge.engine.resolver import Resolver


class Rules:
    """Decisions given as functions of a resolver; the backup rule records each cycle."""

    def __init__(self, functions: list[Callable[[Resolver], bool]],
                 settle: Callable[[list[int], Resolver], None]) -> None:
        self.functions = functions
        self.settle = settle
        self.cycles: list[set[int]] = []

    def decide(self, i: int, r: Resolver) -> bool:
        return self.functions[i](r)

    def backup(self, cycle: list[int], r: Resolver) -> None:
        self.cycles.append(set(cycle))
        self.settle(cycle, r)


def solve(functions, settle=lambda cycle, r: r.settle(min(cycle), True)) -> tuple[list[bool], Rules]:
    rules = Rules(functions, settle)
    return Resolver(rules, len(functions)).resolve_all(), rules


def test_independent_decisions_need_no_backup() -> None:
    result, rules = solve([lambda r: True, lambda r: not r.resolve(0), lambda r: r.resolve(1)])
    assert result == [True, False, False]
    assert rules.cycles == []


def test_a_cycle_with_one_consistent_answer_is_settled_without_backup() -> None:
    # x0 = x1 and False, x1 = x0: only all-false is consistent.
    result, rules = solve([lambda r: r.resolve(1) and False, lambda r: r.resolve(0)])
    assert result == [False, False]
    assert rules.cycles == []


def test_two_consistent_answers_go_to_the_backup_rule() -> None:
    # x0 = x1, x1 = x0 (circular movement): both all-true and all-false are consistent.
    result, rules = solve([lambda r: r.resolve(1), lambda r: r.resolve(0)])
    assert rules.cycles == [{0, 1}]
    assert result == [True, True]


def test_no_consistent_answer_goes_to_the_backup_rule() -> None:
    # x0 = not x1, x1 = x0 (a paradox).
    result, rules = solve([lambda r: not r.resolve(1), lambda r: r.resolve(0)],
                          settle=lambda cycle, r: r.settle(1, False))
    assert rules.cycles == [{0, 1}]
    assert result == [True, False]


def test_an_inner_cycle_that_leans_on_an_outer_guess_stays_provisional() -> None:
    # x1 uses its own guess first, then x0's: both of its own guesses give x0's guess, so
    # settling x1 there would freeze an answer that holds only under x0's guess. The whole
    # system x0 = not x1, x1 = x0 has no consistent answer and must reach the backup rule
    # as one cycle, with x0 never reset while it is being evaluated.
    def x1(r: Resolver) -> bool:
        r.resolve(1)
        return r.resolve(0)

    result, rules = solve([lambda r: not r.resolve(1), x1],
                          settle=lambda cycle, r: r.settle(0, True))
    assert rules.cycles == [{0, 1}]
    assert result == [True, True]



def test_an_inner_cycle_with_two_answers_under_an_outer_guess_reaches_the_backup_rule() -> None:
    # x0 = not x1, x1 = not x0 and x1, met in that order. Under x0's guess false, x1 is a
    # cycle of its own with two answers; following only its first (x1 false) leads x0 to
    # true under both of its guesses, which would settle x0 = true and lose the consistent
    # x0 = false, x1 = true. The system has two answers and goes to the backup rule whole.
    def settle(cycle: list[int], r: Resolver) -> None:
        if 0 in cycle:
            r.settle(0, False)
        else:
            r.settle(1, True)

    result, rules = solve([lambda r: not r.resolve(1),
                           lambda r: not r.resolve(0) and r.resolve(1)], settle)
    assert rules.cycles[0] == {0, 1}
    assert result == [False, True]


def test_a_backup_rule_can_restart_the_resolution_with_changed_rules() -> None:
    # x0 = not off (settled true before the cycle is met); x1 = not x2, x2 = x1 (no consistent
    # answer) while off is false. The backup rule sets off, which changes x0 too: restarted,
    # x0 is worked out again rather than left at the answer settled under the old rules.
    off = [False]

    def settle(cycle: list[int], r: Resolver) -> None:
        off[0] = True
        r.restart()

    result, rules = solve([lambda r: not off[0],
                           lambda r: not off[0] and not r.resolve(2),
                           lambda r: r.resolve(1)], settle)
    assert result == [False, False, False]
    assert rules.cycles == [{1, 2}]
