"""The generic resolver: Kruijswijk's guess-and-check algorithm with cycle detection.

The resolver knows nothing of Diplomacy. It resolves *decisions*, numbered 0..n-1, each of
which is true or false. A :class:`DecisionRules` object (one per phase, built by a variant's
rules) says how to decide decision ``i`` in terms of other decisions, by calling
:meth:`Resolver.resolve` on them, and what to do when a set of decisions depends on itself and
admits two consistent answers or none (the backup rule).

The algorithm ("The Math of Adjudication", DATC section 5, and Kruijswijk's reference
adjudicator): to resolve ``i`` the resolver first *guesses* ``i`` false and evaluates it. If the
evaluation used no guess, the answer is final. If it used guesses but not the guess on ``i``,
``i`` is part of a larger cycle being resolved further up, and the answer is provisional. If it
used the guess on ``i`` itself, ``i`` is in a cycle: the resolver guesses ``i`` true and
evaluates again. One consistent answer is taken; two (circular movement) or none (a convoy
paradox) hand the cycle to the rules' backup rule.

One refinement of the published algorithm: every use of a guess is recorded, and a decision
whose evaluation used a guess that began before its own (further out) stays provisional even
when its own two guesses agree, because that agreement holds only under the outer guess. So
a cycle handed to the backup rule never contains a decision still being evaluated further out,
and the answer does not depend on the order in which decisions are met.

A second refinement, for a cycle nested in another: a decision ``j`` that used both its own
guess and one further out is a cycle of its own under the outer guess. It is evaluated under
both of its guesses there; if they differ, that cycle has two answers (or none) under the outer
guess, and the outer evaluation follows only one of them. When the outer decision's two
guesses then agree only because of such a way (the guess was refuted along one way only), the
agreement proves nothing, and the outer cycle goes to the backup rule whole, inner cycle
included, instead of being settled while a consistent answer was never tried.

An extension point for backup rules that change the rules themselves: :meth:`Resolver.restart`
abandons the resolution and :meth:`Resolver.resolve_all` starts again from nothing, for a rule
such as "this decision is false from the outset", on which decisions settled earlier may have
leant.

Everything is plain lists indexed by decision number, for speed: a standard movement phase
with 30 units resolves in well under a millisecond.
"""

from __future__ import annotations

from typing import NoReturn, Protocol

UNRESOLVED = 0
GUESSING = 1
RESOLVED = 2


class Resolving(Protocol):
    """What evaluating a decision may ask: the value of another decision. :class:`Resolver`
    answers it; so may a variant's own stand-in (Chess Dip tries each answer of a cycle with
    one), when its ``decide`` takes this type instead of :class:`Resolver`."""

    def resolve(self, i: int) -> bool: ...


class DecisionRules(Protocol):
    """What a variant supplies for one phase."""

    def decide(self, i: int, resolver: Resolver) -> bool:
        """Evaluate decision ``i``, resolving others through ``resolver.resolve``."""
        ...

    def backup(self, cycle: list[int], resolver: Resolver) -> None:
        """Settle a cycle that has two consistent answers or none.

        It must fix (with :meth:`Resolver.settle`) at least one decision of ``cycle``, or change
        its own state so that the cycle no longer forms; the other decisions of the cycle are
        reset and resolved again afterwards. When the change of state may alter decisions
        already settled, it calls :meth:`Resolver.restart` instead of returning.
        """
        ...


class _Restart(Exception):
    """Raised by :meth:`Resolver.restart`, caught by :meth:`Resolver.resolve_all`."""


class Resolver:
    __slots__ = ("rules", "state", "result", "deps", "started", "clock", "ambiguous")

    def __init__(self, rules: DecisionRules, count: int) -> None:
        self.rules = rules
        self._reset(count)

    def _reset(self, count: int) -> None:
        self.state = [UNRESOLVED] * count
        self.result = [False] * count
        self.deps: list[int] = []
        # When each decision began its current guess: a guess used by the evaluation of i
        # that began before i did lies outside i's own evaluation (a guess further out).
        self.started = [0] * count
        self.clock = 0
        # Decisions (still being evaluated) under whose current guess an inner cycle had two
        # answers or none: that evaluation followed one of several ways.
        self.ambiguous: set[int] = set()

    def settle(self, i: int, value: bool) -> None:
        """Fix decision ``i`` to ``value`` (used by backup rules)."""
        self.state[i] = RESOLVED
        self.result[i] = value

    def restart(self) -> NoReturn:
        """Abandon this resolution: :meth:`resolve_all` forgets every answer and starts again
        from nothing, with the rules as they now are. For a backup rule that changed the
        rules' own state in a way the decisions settled so far may have leant on (say, made
        a decision false from the outset); it must change something, or the resolution
        meets the same cycle again. Only :meth:`resolve_all` can start again: called under a
        bare :meth:`resolve`, the restart propagates as an exception."""
        raise _Restart

    def resolve_all(self) -> list[bool]:
        """Resolve every decision (again from nothing each time a backup rule restarts)."""
        while True:
            try:
                for i in range(len(self.state)):
                    if self.state[i] != RESOLVED:
                        self.resolve(i)
                return self.result
            except _Restart:
                self._reset(len(self.state))

    def resolve(self, i: int) -> bool:
        state = self.state
        s = state[i]
        if s == RESOLVED:
            return self.result[i]
        deps = self.deps
        if s == GUESSING:
            # Record the use of a guess every time, not only the first: a decision that
            # uses a guess already on the list is itself only provisional.
            deps.append(i)
            return self.result[i]

        # Unresolved: guess false and evaluate.
        mark = len(deps)
        result = self.result
        result[i] = False
        state[i] = GUESSING
        self.clock += 1
        self.started[i] = self.clock
        first = self.rules.decide(i, self)

        if len(deps) == mark:
            # No guess was used: the answer is final (unless a backup rule already settled it).
            if state[i] != RESOLVED:
                result[i] = first
                state[i] = RESOLVED
            return result[i]

        if self._uses_outer_guess(i, mark):
            # Depends on a guess made further out: a provisional answer, which the
            # evaluation that made that guess will settle. (Otherwise every guess used was
            # made within i's own evaluation, and the chain of them starts at i's own guess.)
            if i in deps[mark:]:
                # i is also a cycle of its own under that outer guess: try its other guess
                # too, so that the outer decision learns whether it has one answer there.
                return self._inner_cycle(i, mark, first)
            self._pass_on(i, mark)
            deps.append(i)
            result[i] = first
            return first

        # Our own guess is used: i is in a cycle. Try the other guess.
        for d in deps[mark:]:
            state[d] = UNRESOLVED
        del deps[mark:]
        unsure_first = self._unsure(i)
        result[i] = True
        state[i] = GUESSING
        second = self.rules.decide(i, self)

        if self._uses_outer_guess(i, mark):
            # The second evaluation met a guess further out: the cycle is part of a larger
            # one, and only the evaluation that made that guess can settle it.
            if unsure_first or first != second:
                self.ambiguous.add(i)
            self._pass_on(i, mark)
            deps.append(i)
            result[i] = second
            return second

        unsure_second = self._unsure(i)
        if first == second and not (unsure_first and first or unsure_second and not second):
            # One consistent answer whatever the guess.
            for d in deps[mark:]:
                state[d] = UNRESOLVED
            del deps[mark:]
            result[i] = first
            state[i] = RESOLVED
            return first

        # Two answers or none (or one of the guesses met an inner cycle with two answers or
        # none, and led to the other guess's answer along one of its ways, so their
        # agreement proves nothing): the cycle goes to the backup rule.
        cycle = list(dict.fromkeys([i, *deps[mark:]]))
        del deps[mark:]
        for d in cycle:
            state[d] = UNRESOLVED
        self.rules.backup(cycle, self)
        return self.resolve(i)

    def _inner_cycle(self, i: int, mark: int, first: bool) -> bool:
        """``i`` used its own guess and one made further out: evaluate it under its other
        guess as well (the outer guesses unchanged). Two different results mean that, under
        the outer guesses, i's cycle has two answers or none, and the outer evaluation only
        follows one of them. The provisional answers left behind are those made under the
        guess i keeps: true if that guess holds, else false (as without this check)."""
        unsure = self._unsure(i)
        second = self._again(i, mark, True)
        unsure = self._unsure(i) or unsure or first != second
        value = second
        if not second:
            value = self._again(i, mark, False)
            unsure = self._unsure(i) or unsure
        if unsure:
            self.ambiguous.add(i)
        self._pass_on(i, mark)
        self.deps.append(i)
        self.result[i] = value
        return value

    def _again(self, i: int, mark: int, guess: bool) -> bool:
        """Evaluate ``i`` again under ``guess``, after forgetting the provisional answers
        made within its evaluation (the guesses further out stay recorded)."""
        state, started, deps = self.state, self.started, self.deps
        outer = [d for d in deps[mark:] if started[d] < started[i]]
        for d in deps[mark:]:
            if started[d] >= started[i]:
                state[d] = UNRESOLVED
        del deps[mark:]
        deps.extend(outer)
        self.result[i] = guess
        state[i] = GUESSING
        return self.rules.decide(i, self)

    def _unsure(self, i: int) -> bool:
        """Whether the evaluation of ``i`` just made met an inner cycle with two answers or
        none (and forget it)."""
        if i in self.ambiguous:
            self.ambiguous.discard(i)
            return True
        return False

    def _pass_on(self, i: int, mark: int) -> None:
        """``i`` stays provisional: an ambiguity met under its guess belongs to the guess
        further out (the earliest ``i`` used), whose evaluation it is part of."""
        if self._unsure(i):
            started = self.started
            self.ambiguous.add(min(self.deps[mark:], key=lambda d: started[d]))

    def _uses_outer_guess(self, i: int, mark: int) -> bool:
        """Whether the evaluation of ``i`` (recorded from ``deps[mark]`` on) used a guess that
        began before ``i``'s own: one made further out, not within ``i``'s evaluation."""
        started = self.started
        since = started[i]
        return any(started[d] < since for d in self.deps[mark:] if d != i)
