"""Chess Dip movement adjudication as decisions for the generic resolver (rules §3).

The checked orders of one movement phase are expanded into *true orders* (rules §3.3): holds,
moves (attack or travel), supports, and the implicit convoy orders that every multiple-square
move or support puts on each of its intermediate squares. Castling and en passant are two
coupled move orders each.

Decisions, two per true order ``o`` (``2*o`` and ``2*o + 1``):

* move: MAIN *the move succeeds*; LAND *it would succeed if its own path and its coupled
  partner were sound* (the seed's strength comparisons at the landing square).
* support: MAIN *the support is given*; LAND *it is neither cut nor dislodged* (its path aside).
* convoy on square X: PATH *X is passable*: no piece stays on X, no move onto X succeeds, and
  the convoy's strength (its successful support-convoys) is greater than every other convoy's
  on X; ACTIVE *the convoy counts as a prevent strength*: no piece stays on X, its strength is
  the greatest, and the order it carries would succeed were X passable: it lands (LAND), its
  other intermediate squares are passable, and so is its coupled partner (issue 17).

Why two decisions where the seed has one: the seed's convoy succeeds only if the order it
carries succeeds, while that order's path needs the convoy to succeed. Read literally, every
bishop move would be its own two-answer cycle, and the convoy paradox rule would make it fail.
The split keeps the seed's meaning without the self-reference: a move's path asks PATH (is the
square passable), and a convoy blocks other pieces from X (its prevent strength) only while
the order it carries succeeds but for X (ACTIVE), so a support-convoy on a failed move blocks
nothing ("pieces cannot arbitrarily support-convoy squares"). The order a convoy carries
succeeds exactly when LAND and all its PATHs do, so the convoy's success as reported (MAIN of
the carried order and PATH) is the seed's.

Supports (rules §3.7.2): an attack cuts a support when "the attacking piece's path is
successful"; a multiple-square attack's path is successful only when its convoys are, and
they succeed only when it does (§3.5, §3.7.1). So a multiple-square attack cuts a support only
by dislodging the supporter; one that fails cuts nothing.

Backup rule (rules §3.9), for a cycle of decisions with two consistent answers or none. The
cycle's consistent answers are enumerated from nothing (its decisions evaluated by their
rules, never read from what the resolver has settled, which depends on the order in which it
met them), and:

1. if exactly one is consistent, it is taken: the resolver hands over such a cycle when its
   two guesses agreed only along one of the answers of an inner cycle;
2. circular movement succeeds: of several answers, one is taken when, against every answer
   that moves other pieces, the circles it moves strictly include the other's (so a circle
   through an attacked convoy moves and the convoy holds, as in DATC 6.C.4). A circle is a set
   of moves each going where another leaves: landing there or passing through it. Answers
   that move the same pieces differ in convoys only, and the one where the fewest hold is
   taken;
3. a move's own convoys hold alike (issue 22): when every convoy in the cycle carries one
   multiple-square order and none of that order's own decisions is in it (two or more of its
   convoys attacked, each one's prevent strength counting only while the order would pass
   the others), the answer in which the order succeeds is taken, if consistent. With one
   attacked convoy there is no cycle and the support-convoys hold the attack off; they hold
   "similar to support-holds" whatever the number of convoys;
4. otherwise a cycle involving a convoy is a convoy paradox: "the convoy fails", the one of
   its convoys whose failure leaves a consistent answer keeping the most convoys holding
   (then the first in an order of the board), or else all of them; the resolution starts
   again with it failed from the outset (false by rule), since decisions settled before may
   have leant on it;
5. a cycle with a pawn attack has no consistent answer (the pawn moves only if it dislodges;
   the piece leaves only if the pawn moves) and the seed has no rule for it: the pawn does not
   move (the project's ruling);
6. several consistent answers and no convoy to fail: the first in an order of the board (the
   seed has no rule); no consistent answer, no convoy, no pawn attack: its moves succeed.

The resolver hands the backup rule a cycle whole, never one that hangs on a guess further
out, and an inner cycle with two answers under an outer guess reaches it as part of the outer
cycle; and the true orders are numbered in an order of the board, not of the listing, so the
resolver meets the same cycles the same way however the lines are listed: the rulings and
their reasons do not depend on the order of the orders (tests/test_chessdip_order.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

from judge.engine.orders import Order, Unit, unit_of
from judge.engine.resolver import Resolver, Resolving
from judge.variants.chessdip.board import ChessBoard
from judge.variants.chessdip.orders import (
    ANY,
    ATTACK,
    TRAVEL,
    Castle,
    ChessHold,
    ChessMove,
    ChessSupport,
    ConvoyAct,
    EnPassant,
    HoldAct,
    MoveAct,
)

HOLD, MOVE, SUPPORT, CONVOY = range(4)
MAIN, LAND = 0, 1
PATH, ACTIVE = 0, 1
COUPLED = "the coupled order failed"


@dataclass(slots=True)
class LineOutcome:
    """The fate of one order line: success and, on failure, why."""

    succeeded: bool
    reason: str = ""


@dataclass(slots=True)
class Dislodgement:
    piece: int
    by: int  # the true order that dislodged it


_MAX_GUESSES = 12


class _Beyond(Exception):
    """A trial reached a decision that depends on itself: it must be guessed."""

    def __init__(self, decision: int) -> None:
        super().__init__(decision)
        self.decision = decision


class _Trial:
    """A stand-in resolver for :meth:`ChessMovement._solutions`: the guessed decisions take
    the trial values, the rest are evaluated from those, from nothing (never from what the
    resolver has settled, which depends on the order in which it met the decisions)."""

    def __init__(self, phase: ChessMovement, values: dict[int, bool]) -> None:
        self.phase = phase
        self.values = values
        self.busy: set[int] = set()

    def resolve(self, j: int) -> bool:
        v = self.values.get(j)
        if v is not None:
            return v
        if j in self.busy:
            raise _Beyond(j)
        self.busy.add(j)
        v = self.phase.decide(j, self)
        self.busy.discard(j)
        self.values[j] = v
        return v


def _known(trial: _Trial, d: int) -> bool | None:
    """Decision ``d`` under a trial, or None when it depends on itself outside the trial."""
    try:
        return trial.resolve(d)
    except _Beyond:
        trial.busy.clear()
        return None


class ChessMovement:
    """One movement phase. ``lines[k]`` is the k-th checked order (or None if it was refused,
    or replaced); ``units`` are the pieces on the board, squares in lower case."""

    def __init__(self, board: ChessBoard, units: Sequence[Unit],
                 lines: Sequence[tuple[str, Order] | None]) -> None:
        self.board = board
        self.units = list(units)
        self.piece_at: dict[str, int] = {u.location: i for i, u in enumerate(self.units)}
        # True orders, as parallel lists.
        self.kind: list[int] = []
        self.piece: list[int] = []
        self.power: list[str] = []
        self.sq: list[str] = []  # where the order is given: the piece's square, or X
        self.landing: list[str] = []
        self.mtype: list[str] = []  # moves: ATTACK or TRAVEL; convoys: the carried code
        self.inter: list[tuple[str, ...]] = []
        self.convoys: list[list[int]] = []
        self.partner: list[int] = []
        self.spec: list[tuple[str, object] | None] = []  # supports: (square, action)
        self.target: list[int] = []  # supports: matched order; convoys: carried order
        self.supports: list[list[int]] = []
        self.void: dict[int, str] = {}
        self.paradox: set[int] = set()
        self.line_orders: list[list[int]] = []
        self.piece_orders: list[list[int]] = [[] for _ in self.units]
        self.line_of: list[int] = [-1] * len(self.units)  # each piece's order line, or -1
        self._expand(lines)
        self._index()
        # Decisions the backup rule fixed by a ruling (a paradox's pawn, circular movement with
        # no consistent answer...), not to a consistent answer: the only ones whose answer
        # need not be what their rule gives from the others' (tests check every other one).
        self.ruled: set[int] = set()
        self.result: list[bool] = []
        self.dest_loc: list[str] = []  # each piece's square after the moves (once resolved)
        self._dislodgers: dict[int, int] = {}
        self.resolver = Resolver(self, 2 * len(self.kind))

    # ------------------------------------------------------------ set-up
    def _add(self, kind: int, piece: int, power: str, sq: str, landing: str,
             mtype: str = "", inter: tuple[str, ...] = ()) -> int:
        o = len(self.kind)
        self.kind.append(kind)
        self.piece.append(piece)
        self.power.append(power)
        self.sq.append(sq)
        self.landing.append(landing)
        self.mtype.append(mtype)
        self.inter.append(inter)
        self.convoys.append([])
        self.partner.append(-1)
        self.spec.append(None)
        self.target.append(-1)
        self.supports.append([])
        if piece >= 0:
            self.piece_orders[piece].append(o)
        return o

    def _move(self, piece: int, dest: str, mtype: str,
              inter: tuple[str, ...] | None = None) -> int:
        u = self.units[piece]
        if inter is None:
            path = self.board.move_path(u.kind, u.power, u.location, dest)
            inter = path or ()
        return self._add(MOVE, piece, u.power, u.location, dest, mtype, inter)

    def _expand(self, lines: Sequence[tuple[str, Order] | None]) -> None:
        """The true orders, numbered in an order of the board (the squares of the pieces
        ordered), never in the order of the listing: the resolver meets the decisions, and so
        the cycles and convoy paradoxes, the same way however the lines are listed."""
        board = self.board
        ordered: set[int] = set()
        self.line_orders = [[] for _ in lines]
        live = [(n, entry) for n, entry in enumerate(lines) if entry is not None]
        live.sort(key=lambda line: self._first_square(*line[1]))
        for n, (power, order) in live:
            made = self.line_orders[n]
            if isinstance(order, Castle):
                c = board.castlings[power][order.name]
                k, r = self.piece_at[c.king_from], self.piece_at[c.rook_from]
                # Rules §3.3.2: the king's travel has no intermediate square.
                made.append(self._move(k, c.king_to, TRAVEL, ()))
                made.append(self._move(r, c.rook_to, TRAVEL, c.rook_intermediate))
                ordered.update((k, r))
                self.line_of[k] = self.line_of[r] = n
            else:
                i = self.piece_at[unit_of(order).location]
                ordered.add(i)
                self.line_of[i] = n
                u = self.units[i]
                if isinstance(order, ChessHold):
                    made.append(self._add(HOLD, i, power, u.location, u.location))
                elif isinstance(order, ChessMove):
                    made.append(self._move(i, order.dest, order.code))
                elif isinstance(order, EnPassant):
                    made.append(self._move(i, order.via, TRAVEL, ()))
                    made.append(self._move(i, order.capture, ATTACK, ()))
                else:
                    assert isinstance(order, ChessSupport)
                    landing = order.landing
                    path = board.reach_path(u.kind, u.power, u.location, landing) or ()
                    s = self._add(SUPPORT, i, power, u.location, landing, "S", path)
                    self.spec[s] = (order.square, order.action)
                    made.append(s)
            if len(made) == 2:
                a, b = made
                self.partner[a], self.partner[b] = b, a
        for i, u in enumerate(self.units):
            if i not in ordered:
                self._add(HOLD, i, u.power, u.location, u.location)

    def _first_square(self, power: str, order: Order) -> str:
        """The square of the (first) piece an order line is for: castling, the king's."""
        if isinstance(order, Castle):
            return self.board.castlings[power][order.name].king_from
        return unit_of(order).location

    def _index(self) -> None:
        n = len(self.kind)
        self.moves_into: dict[str, list[int]] = {}
        self.convoys_at: dict[str, list[int]] = {}
        keyed: dict[tuple[str, str, str, str], int] = {}
        for o in range(n):
            if self.kind[o] == MOVE:
                self.moves_into.setdefault(self.landing[o], []).append(o)
            if self.kind[o] in (MOVE, SUPPORT):
                code = self.mtype[o]
                for x in self.inter[o]:
                    c = self._add(CONVOY, -1, self.power[o], x, x, code)
                    self.target[c] = o
                    self.convoys[o].append(c)
                    self.convoys_at.setdefault(x, []).append(c)
                    keyed[(x, self.sq[o], code, self.landing[o])] = c
        # A piece's square and the order that decides whether it leaves it.
        self.leaves: list[int] = [-1] * len(self.units)
        for i, orders in enumerate(self.piece_orders):
            for o in orders:
                # En passant: the piece ends on its travel's landing square (rules §3.8).
                if self.kind[o] == MOVE and (self.leaves[i] < 0 or self.mtype[o] == TRAVEL):
                    self.leaves[i] = o
        for s in range(len(self.kind)):
            if self.kind[s] == SUPPORT:
                self._match(s, keyed)

    def _match(self, s: int, keyed: dict[tuple[str, str, str, str], int]) -> None:
        spec = self.spec[s]
        assert spec is not None, "every support has its (square, action)"
        square, action = spec
        i = self.piece_at.get(square)
        if isinstance(action, ConvoyAct):
            codes = (ATTACK, TRAVEL) if action.code == ANY else (action.code,)
            for code in codes:
                c = keyed.get((square, action.origin, code, action.landing))
                if c is not None:
                    self._link(s, c)
                    return
            self.void[s] = f"void: no convoy order on {square} for {action.origin} " \
                           f"{action.code} {action.landing}"
            return
        if i is None:
            self.void[s] = f"void: no piece on {square}"
            return
        if isinstance(action, HoldAct):
            if self.leaves[i] >= 0:
                self.void[s] = f"void: the piece on {square} moves"
                return
            self._link(s, self.piece_orders[i][0])
            return
        assert isinstance(action, MoveAct)
        for o in self.piece_orders[i]:
            if (self.kind[o] == MOVE and self.landing[o] == action.dest
                    and action.code in (ANY, self.mtype[o])):
                self._link(s, o)
                return
        self.void[s] = f"void: the piece on {square} has no order {action.code} {action.dest}"

    def _link(self, s: int, o: int) -> None:
        self.target[s] = o
        self.supports[o].append(s)

    # --------------------------------------------------------- decisions
    def decide(self, d: int, r: Resolving) -> bool:
        o, which = divmod(d, 2)
        k = self.kind[o]
        if k == MOVE:
            if which == LAND:
                return self._move_lands(o, r)
            return self._sound(o, -1, r)
        if k == SUPPORT:
            if which == LAND:
                return self._support_holds(o, r)
            return self.path_ok(o, r) and r.resolve(2 * o + LAND)
        if k == CONVOY:
            if o in self.paradox or not self._convoy_local(o, r):
                return False
            if which == ACTIVE:
                return self._sound(self.target[o], o, r)
            return not any(r.resolve(2 * m) for m in self.moves_into.get(self.sq[o], ()))
        return True  # holds have no decision of their own

    def _sound(self, o: int, passable: int, r: Resolving) -> bool:
        """Whether order ``o`` (a move or a support) succeeds, taking the square of convoy
        ``passable`` as passable (-1: none): it lands (LAND), every other intermediate square
        of its path is passable, and so is its coupled partner (rules §3.5, §3.7.4)."""
        orders = (o,) if self.partner[o] < 0 else (o, self.partner[o])
        return all(r.resolve(2 * c + PATH) for t in orders for c in self.convoys[t]
                   if c != passable) and all(r.resolve(2 * t + LAND) for t in orders)

    def backup(self, cycle: list[int], r: Resolver) -> None:
        """Rules §3.9, for a cycle with two consistent answers or none (see the module
        docstring). The resolver hands over a cycle whole, never one that still hangs on a
        guess further out, so the ruling does not depend on the order of the orders."""
        members = sorted(set(cycle), key=self._key)
        solutions = self._solutions(members)
        chosen = self._choose(members, solutions) if solutions else None
        if chosen is None and solutions:
            chosen = self._own_convoys_hold(members, solutions)
        if chosen is not None:
            for d, value in zip(members, chosen, strict=True):
                r.settle(d, value)
            return
        if solutions is not None:
            failing = self._failing_convoy(members)
            if failing is not None:
                self._fail({failing}, r)
        convoys = {d // 2 for d in cycle if self.kind[d // 2] == CONVOY} - self.paradox
        if convoys:
            self._fail(convoys, r)
        if solutions:
            # Several answers, none of them circular movement, and no convoy to fail: the
            # seed has no rule; the project takes one of them, in a fixed order of the board.
            for d, value in zip(members, min(s for s, _ in solutions), strict=True):
                self.ruled.add(d)
                r.settle(d, value)
            return
        pawns = [d for d in members if self.kind[d // 2] == MOVE
                 and self.mtype[d // 2] == ATTACK and self.units[self.piece[d // 2]].kind == "P"]
        if pawns:
            # A pawn attack in a cycle: the pawn moves only if it dislodges, and the piece it
            # would dislodge leaves only if the pawn moves (a cycle with no consistent answer,
            # which the seed's two paradox rules do not cover). It cannot be circular
            # movement, since a pawn attack onto a square being vacated has no strength. The
            # project's ruling: the pawn does not move.
            for d in pawns:
                self.ruled.add(d)
                r.settle(d, False)
            return
        moves = [d for d in members if self.kind[d // 2] == MOVE]
        for d in moves:
            self.ruled.add(d)
            r.settle(d, True)  # circular movement succeeds
        if not moves:
            self.ruled.add(members[0])
            r.settle(members[0], False)

    def _fail(self, convoys: set[int], r: Resolver) -> NoReturn:
        """"Given a paradox involving a convoy, the convoy fails": the resolution starts again
        (:meth:`Resolver.restart`) with the convoys failed from the outset (their decisions
        false by rule), since decisions settled before may have leant on them."""
        self.paradox |= convoys
        self.ruled = set()
        r.restart()

    def _choose(self, members: list[int],
                solutions: list[tuple[tuple[bool, ...], _Trial]]) -> tuple[bool, ...] | None:
        """Which consistent answer of a cycle the rules pick, or None to rule otherwise.

        One answer: that one (the resolver hands over such a cycle when its two guesses
        agreed only along one answer of an inner cycle). Several: circular movement
        succeeds (rules §3.9). An answer is taken when, against every answer that moves other
        pieces, the circles it moves (its moves that land where another of them leaves, or
        are coupled to one that does) strictly include the other's: the more circular
        movement, the better, even when the other answer moves some piece this one stops (a
        circle through an attacked convoy moves, as in DATC 6.C.4). Otherwise None: a
        paradox, which the caller rules on. Convoys that merely hang on a circle (a path
        through a square the circle enters or leaves) do not make it a paradox."""
        # A lone answer passes the test below against itself.
        moves = [o for o in range(len(self.kind)) if self.kind[o] == MOVE]
        answers = [{o: _known(trial, 2 * o + MAIN) for o in moves} for _, trial in solutions]
        # Moves caught in some other, unrelated cycle are left out of the comparison.
        moves = [o for o in moves if all(a[o] is not None for a in answers)]
        moved = [frozenset(o for o in moves if a[o]) for a in answers]
        circles = [self._circles(m) for m in moved]
        best = [k for k in range(len(moved))
                if all(moved[j] == moved[k] or circles[j] < circles[k]
                       for j in range(len(moved)))]
        if not best:
            return None
        # Answers that move the same pieces differ in convoys and strengths only: the one
        # where the fewest convoys hold ("the convoy fails"), then a fixed order of the
        # board's squares (members are in that order), never the order of the listing.
        convoys = [n for n, d in enumerate(members) if self.kind[d // 2] == CONVOY]

        def rank(k: int) -> tuple:
            values = solutions[k][0]
            return (sum(values[n] for n in convoys), values)

        return solutions[min(best, key=rank)][0]

    def _own_convoys_hold(self, members: list[int],
                          solutions: list[tuple[tuple[bool, ...], _Trial]]
                          ) -> tuple[bool, ...] | None:
        """Rule 3 of the backup rule (module docstring): when the cycle's only circle is one
        multiple-square order and its own convoys (every convoy in it carries that order,
        and none of the order's own decisions is in it), the answer in which the order
        succeeds, if one is consistent; else None.

        Such a cycle is two or more attacked convoys of one order: each convoy's prevent
        strength counts while the order would succeed but for its square, which needs the
        order's other convoys to hold. With one attacked convoy there is no cycle and the
        order passes when its support-convoys hold the attack off; "similar to support-holds"
        (the seed), they hold the same way whatever the number of convoys, not a paradox
        ruling that fails them all. A cycle that passes through the order itself (its
        landing cuts a support that feeds an attack on its path: the convoy paradox proper)
        is not one of these."""
        carried = {self.target[d // 2] for d in members if self.kind[d // 2] == CONVOY}
        if len(carried) != 1:
            return None
        (order,) = carried
        own = {order, self.partner[order]} - {-1}
        if any(d // 2 in own for d in members):
            return None
        passing = [values for values, trial in solutions if _known(trial, 2 * order + MAIN)]
        # several answers in which it succeeds: a fixed order of the board (members are in
        # that order), never the listing's
        return min(passing) if passing else None

    def _key(self, d: int) -> tuple[str, ...]:
        """A decision described by the board alone (squares, kinds), for canonical order."""
        o = d // 2
        t = self.target[o] if self.kind[o] == CONVOY else o
        return (self.sq[o], self.sq[t], self.landing[t], str(self.kind[o]), self.mtype[o],
                str(d % 2))

    def _circles(self, moves: frozenset[int]) -> frozenset[int]:
        """The moves of ``moves`` that form circles: the largest subset in which each goes
        where another of them leaves (lands there, or passes through it: a rook passing a
        square its partner in the circle vacates), or is coupled to one that does (the
        castling rook carried by its king's circle)."""
        ring = set(moves)
        while True:
            leaving = {self.sq[o] for o in ring}
            follows = {o for o in ring if self.landing[o] in leaving
                       or any(x in leaving for x in self.inter[o])}
            keep = {o for o in ring if o in follows or self.partner[o] in follows}
            if keep == ring:
                return frozenset(ring)
            ring = keep

    def _failing_convoy(self, members: list[int]) -> int | None:
        """The convoy a paradox makes fail ("the convoy fails", rules §3.9): of the cycle's
        convoys, one whose failure leaves the cycle a consistent answer; of those, the one
        whose answer keeps the most convoys on the board holding (the convoy at the heart
        of the paradox, not one whose failure only starves it), then the first in an order of
        the board (square, then the carried order's squares), never of the orders' listing.
        None when there is no such convoy."""
        involved: set[int] = set()
        for d in members:
            o = d // 2
            if self.kind[o] == CONVOY:
                involved.add(o)
            else:
                # The paths of the cycle's orders (and of their coupled partners) are in it
                # too, whichever of their decisions the resolver happened to meet first.
                involved.update(self.convoys[o])
                if self.partner[o] >= 0:
                    involved.update(self.convoys[self.partner[o]])
        convoys = [c for c in range(len(self.kind)) if self.kind[c] == CONVOY]
        best: tuple[int, tuple[str, ...], int] | None = None
        for c in involved - self.paradox:
            forced = {2 * c + PATH: False, 2 * c + ACTIVE: False}
            rest = [d for d in members if d not in forced]
            found = self._solutions(rest, forced)
            if not found:
                continue
            # Counted over the whole board, not the cycle as met: which decisions the cycle
            # holds depends on the order in which the resolver met them.
            failing = min(sum(1 for c2 in convoys if _known(trial, 2 * c2 + PATH) is False)
                          for _, trial in found)
            rank = (failing, self._key(2 * c), c)
            if best is None or rank < best:
                best = rank
        return None if best is None else best[2]

    def _solutions(self, members: list[int], forced: dict[int, bool] | None = None
                   ) -> list[tuple[tuple[bool, ...], _Trial]] | None:
        """Every consistent answer of a cycle, as (the members' values, the trial): the
        members are evaluated by their rules from nothing (``forced`` decisions aside); a
        decision met again while it is being evaluated (a cycle) is guessed instead, and
        every assignment of the guessed decisions whose rules give them back is an answer.
        None when too many decisions must be guessed."""
        guessed: list[int] = []
        while len(guessed) <= _MAX_GUESSES:
            try:
                return self._enumerate(guessed, members, forced or {})
            except _Beyond as beyond:
                guessed.append(beyond.decision)
        return None

    def _enumerate(self, guessed: list[int], members: list[int], forced: dict[int, bool]
                   ) -> list[tuple[tuple[bool, ...], _Trial]]:
        found = []
        for bits in range(1 << len(guessed)):
            values = tuple(bool(bits >> n & 1) for n in range(len(guessed)))
            trial = _Trial(self, {**forced, **dict(zip(guessed, values, strict=True))})
            answer = tuple(trial.resolve(d) for d in members)
            if all(self.decide(d, trial) == v
                   for d, v in zip(guessed, values, strict=True)):
                found.append((answer, trial))
        return found

    # --------------------------------------------------------- strengths
    def path_ok(self, o: int, r: Resolving) -> bool:
        """Rules §3.5: every intermediate square's convoy order holds."""
        return all(r.resolve(2 * c + PATH) for c in self.convoys[o])

    def count_supports(self, o: int, r: Resolving, exclude_power: str | None = None) -> int:
        return sum(1 for s in self.supports[o]
                   if self.power[s] != exclude_power and r.resolve(2 * s + MAIN))

    def leaves_square(self, i: int, r: Resolving) -> bool:
        o = self.leaves[i]
        return o >= 0 and r.resolve(2 * o + MAIN)

    def head_to_head(self, o: int) -> int:
        """The move of the piece on ``o``'s landing square that lands on ``o``'s square, when
        the two pieces are of different powers (rules §3.6), else -1."""
        i = self.piece_at.get(self.landing[o])
        if i is None:
            return -1
        for k in self.piece_orders[i]:
            if (self.kind[k] == MOVE and self.landing[k] == self.sq[o]
                    and self.power[k] != self.power[o]):
                return k
        return -1

    def hold_strength(self, square: str, r: Resolving) -> int:
        i = self.piece_at.get(square)
        if i is None:
            return 0
        if self.leaves[i] >= 0:
            return 0 if self.leaves_square(i, r) else 1
        return 1 + self.count_supports(self.piece_orders[i][0], r)

    def attack_strength(self, o: int, r: Resolving) -> float:
        """Rules §3.6.2 with the project's travel rule; the path is checked by MAIN."""
        i = self.piece_at.get(self.landing[o])
        travel = self.mtype[o] == TRAVEL
        if i is None or (self.head_to_head(o) < 0 and self.leaves_square(i, r)):
            if travel:
                n = self.count_supports(o, r)
                return n if n else 0.5
            if self.units[self.piece[o]].kind == "P":
                return 0  # a pawn attack moves only when it dislodges
            return 1 + self.count_supports(o, r)
        if self.units[i].power == self.power[o]:
            return 0
        n = self.count_supports(o, r, exclude_power=self.units[i].power)
        return n if travel else 1 + n

    def defend_strength(self, o: int, r: Resolving) -> int:
        n = self.count_supports(o, r)
        return n if self.mtype[o] == TRAVEL else 1 + n

    def prevent_strength(self, o: int, r: Resolving) -> int:
        if not self.path_ok(o, r):
            return 0
        h = self.head_to_head(o)
        if h >= 0 and r.resolve(2 * h + MAIN):
            return 0
        return 1 + self.count_supports(o, r)

    def convoy_strength(self, c: int, r: Resolving) -> int:
        """Rules §3.6.5: the number of successful support-convoy orders."""
        return self.count_supports(c, r)

    def convoy_prevent(self, c: int, r: Resolving) -> int:
        s = self.convoy_strength(c, r)
        if s == 0:
            return 0
        return s if r.resolve(2 * c + ACTIVE) else 0

    def _convoy_local(self, c: int, r: Resolving) -> bool:
        """No piece stays on the convoy's square, and its strength beats every other's."""
        x = self.sq[c]
        i = self.piece_at.get(x)
        if i is not None and not self.leaves_square(i, r):
            return False
        others = [c2 for c2 in self.convoys_at[x] if c2 != c]
        if not others:
            return True
        s = self.convoy_strength(c, r)
        return all(s > self.convoy_strength(c2, r) for c2 in others)

    def _move_lands(self, o: int, r: Resolving) -> bool:
        a = self.attack_strength(o, r)
        if a == 0:
            return False
        square = self.landing[o]
        h = self.head_to_head(o)
        if h >= 0:
            if a <= self.defend_strength(h, r):
                return False
        elif a <= self.hold_strength(square, r):
            return False
        for m in self.moves_into[square]:
            if m != o and a <= self.prevent_strength(m, r):
                return False
        return all(a > self.convoy_prevent(c, r) for c in self.convoys_at.get(square, ()))

    def _support_holds(self, s: int, r: Resolving) -> bool:
        """Rules §3.7.2: not dislodged, not cut (the path is checked by MAIN)."""
        if self.target[s] < 0:
            return False
        attackers = self.moves_into.get(self.sq[s], ())
        for k in attackers:
            # A multiple-square attack's path is successful only if its convoys are, and
            # they succeed only if the attack does (rules §3.5, §3.7.1): it cuts only by
            # dislodging the supporter, below.
            if (self.mtype[k] == ATTACK and self.power[k] != self.power[s]
                    and self.sq[k] != self.landing[s] and not self.convoys[k]):
                return False
        return not any(r.resolve(2 * k + MAIN) for k in attackers)

    # ----------------------------------------------------------- results
    def resolve(self) -> list[LineOutcome]:
        """Resolve every decision on the generic resolver (which starts again, with the
        convoys a paradox made fail failed from the outset, each time a paradox fails one).
        Returns each piece's fate: its order line's (castling: both pieces'), or its hold's
        when it had none (as the standard rules' movement skeleton reads it)."""
        self.ruled = set()
        self.resolver = Resolver(self, 2 * len(self.kind))
        self.result = self.resolver.resolve_all()
        self._dislodgers = {d.piece: d.by for d in self.dislodged()}
        self.dest_loc = [self.final_square(i) for i in range(len(self.units))]
        return [self.line_outcome(k) if k >= 0 else self.hold_outcome(i)
                for i, k in enumerate(self.line_of)]

    def moved(self, i: int) -> bool:
        """Whether piece ``i`` left its square (for the movement skeleton)."""
        o = self.leaves[i]
        return o >= 0 and self.succeeded(o)

    def dislodger(self, i: int) -> int | None:
        """The true order that dislodged piece ``i``, or None."""
        return self._dislodgers.get(i)

    def succeeded(self, o: int) -> bool:
        return self.result[2 * o + MAIN]

    def convoy_succeeded(self, c: int) -> bool:
        """The seed's convoy success: the carried order succeeds and the square held."""
        return self.succeeded(self.target[c]) and self.result[2 * c + PATH]

    def dislodged(self) -> list[Dislodgement]:
        """Pieces that stay on their square while a move onto it succeeds (rules §3.4; a
        supported travel that wins its square dislodges too, or two pieces would share it)."""
        out = []
        for i, u in enumerate(self.units):
            if self.leaves[i] >= 0 and self.succeeded(self.leaves[i]):
                continue
            for k in self.moves_into.get(u.location, ()):
                if self.succeeded(k):
                    out.append(Dislodgement(i, k))
                    break
        return out

    def final_square(self, i: int) -> str:
        o = self.leaves[i]
        if o >= 0 and self.succeeded(o):
            return self.landing[o]
        return self.units[i].location

    def line_outcome(self, k: int) -> LineOutcome:
        orders = self.line_orders[k]
        fails = [o for o in orders if not self._order_ok(o)]
        if not fails:
            return LineOutcome(True)
        # Of a coupled pair, tell why the order that failed on its own failed.
        reasons = [self._why(o) for o in fails]
        own = [w for w in reasons if w != COUPLED]
        return LineOutcome(False, own[0] if own else reasons[0])

    def hold_outcome(self, i: int) -> LineOutcome:
        """For a piece without an order line."""
        o = self.piece_orders[i][0]
        return LineOutcome(self._order_ok(o), "" if self._order_ok(o) else self._why(o))

    def _order_ok(self, o: int) -> bool:
        k = self.kind[o]
        if k == HOLD:
            return not any(self.succeeded(m) for m in self.moves_into.get(self.sq[o], ()))
        if k == SUPPORT and self.target[o] >= 0 and self.kind[self.target[o]] == CONVOY:
            # Rules §3.1: "a support-convoy on a failed multiple-square order also fails".
            return self.succeeded(o) and self.convoy_succeeded(self.target[o])
        return self.succeeded(o)

    def _why(self, o: int) -> str:
        if o in self.void:
            return self.void[o]
        result = self.result
        k = self.kind[o]
        if k == HOLD:
            return "dislodged"
        for c in self.convoys[o]:
            if not result[2 * c + PATH]:
                if c in self.paradox:
                    return f"convoy paradox: the convoy on {self.sq[c]} fails"
                return f"path blocked on {self.sq[c]}"
        if k == SUPPORT:
            if not result[2 * o + LAND]:
                attackers = self.moves_into.get(self.sq[o], ())
                return "dislodged" if any(self.succeeded(m) for m in attackers) else "cut"
            t = self.target[o]
            if self.kind[t] == CONVOY:
                return f"the convoy on {self.sq[t]} fails"
            return "failed"
        if not result[2 * o + LAND]:
            i = self.piece_at.get(self.landing[o])
            empty = i is None or (self.leaves[i] >= 0 and self.succeeded(self.leaves[i]))
            if self.mtype[o] == ATTACK and self.units[self.piece[o]].kind == "P" and empty:
                return "a pawn attack moves only when it dislodges a piece"
            return "bounced"
        return COUPLED
