"""Multiplicity II movement as decisions on the generic resolver.

The rules (``variants/multiplicity/rules.py``) turn each force's orders into *pieces*: a piece
is the part of a force that carries out one order (a whole unit usually; each component of a
split; each unit of a merge). Decisions are numbered:

* one per piece: for a move, *it succeeds*; for any other piece, *its force is not dislodged*;
* one per supporting component: *this component's support is given*. A multiple unit's
  supports are cut component by component (rule 4: "cut up to the strength of the strongest
  attack ... the last written support order is cut first"), so a support is not one yes/no
  but as many as its size.

Strength is size where standard play counts 1. A merge (rule 3) is a group of pieces of one
player heading for one space; its members support each other, so every member attacks,
defends and prevents with the group's total. Pieces of a force that stay, and its moves that
fail, make up the force that holds and can be dislodged (rule 7: "considered never to have
split"). The resolver (``judge/engine/resolver.py``) is the same one standard play uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from judge.engine.board import Board
from judge.engine.resolver import Resolver
from judge.variants.multiplicity.units import ARMY, FLEET, GARRISON, counts_of, seaworthy

HOLD, MOVE, SUPPORT_HOLD, SUPPORT_MOVE, SUPPORT_MERGE, CONVOY = range(6)
SUPPORTS = (SUPPORT_HOLD, SUPPORT_MOVE, SUPPORT_MERGE)
# Step 1 of a ring's ruling tries at most this many ways of giving its supports (a ring of
# six 3A has 4096); a larger ring is ruled by step 2 alone.
RING_SEARCH_LIMIT = 4096
RING_NOTE = "; in a ring of supports, which do not cut each other"


@dataclass(slots=True)
class Piece:
    """The part of a force that carries out one order."""

    force: int
    player: str
    origin: str  # province the piece starts in
    location: str  # where it stands (a coast for fleets in split-coast provinces)
    parts: tuple[tuple[str, str], ...]  # (owning power, letter) per component
    kind: int = HOLD
    dest: str | None = None  # move: province; support/convoy: the province moved to
    dest_loc: str | None = None  # move: the location (with coast)
    target: str | None = None  # support/convoy: province of the unit supported/convoyed
    via: bool = False  # the order asked for a convoy
    merging: bool = False  # from a MERGE order, or a component of a split
    line: int = -1  # index of the order it came from (-1: no order, it holds)

    @property
    def size(self) -> int:
        return len(self.parts)

    def counts(self) -> tuple[int, int, int]:
        return counts_of(self.parts)

    def to(self) -> str:
        """The province this piece's move goes to (a support's or convoy's: the move it
        helps); only for those orders (``dest`` is None for the others)."""
        if self.dest is None:
            raise ValueError(f"the piece in {self.origin} has no destination")
        return self.dest

    def supported(self) -> str:
        """The province of the unit this piece supports or convoys; only for those orders."""
        if self.target is None:
            raise ValueError(f"the piece in {self.origin} supports or convoys nothing")
        return self.target

    def all_army(self) -> bool:
        return all(letter == ARMY for _, letter in self.parts)


@dataclass(slots=True)
class PieceOutcome:
    succeeded: bool
    reason: str = ""


class MultiMovement:
    """One Multiplicity II movement phase. ``pieces`` come from checked orders."""

    def __init__(self, board: Board, pieces: Sequence[Piece],
                 support_counts: Callable[[str, str], bool] | None = None) -> None:
        self.board = board
        self.p = list(pieces)
        n = self.n = len(self.p)
        # support_counts(supporter's player, supported player): Hoplite's Delphi rule says a
        # sacker's units may receive no support from other players.
        self.support_counts = support_counts or (lambda _a, _b: True)
        self.pieces_at: dict[str, list[int]] = {}
        self.moves_into: dict[str, list[int]] = {}
        for i, pc in enumerate(self.p):
            self.pieces_at.setdefault(pc.origin, []).append(i)
            if pc.kind == MOVE:
                self.moves_into.setdefault(pc.dest, []).append(i)  # type: ignore[arg-type]
        self.void: dict[int, str] = {}
        self.group = [-1] * n
        self.members: list[list[int]] = []
        self.stationary: list[list[int]] = []
        self.group_dest: list[str] = []
        self.convoyed = [False] * n
        self.convoy_fleets: list[list[int]] = [[] for _ in range(n)]
        self.move_supports: list[list[int]] = [[] for _ in range(n)]
        self.hold_supports: dict[str, list[int]] = {}
        self.merge_supports: list[list[int]] = []
        self.paradox: set[int] = set()
        # Rings of supports that cut each other (see _rule_rings): piece -> ring number.
        self.ring_of: dict[int, int] = {}
        self.rings: list[set[int]] = []
        self.ring_failed: set[int] = set()
        self.missed: set[int] = set()  # supports in cycles the resolver met (see backup)
        self._groups()
        self._convoys()
        self._supports()
        # Support components: decision n + k is component k's support.
        self.comp_piece: list[int] = []
        self.comp_rank: list[int] = []
        self.comps_of: list[list[int]] = [[] for _ in range(n)]
        by_force: dict[int, list[int]] = {}
        for i, pc in enumerate(self.p):
            if pc.kind in SUPPORTS:
                by_force.setdefault(pc.force, []).append(i)
        for supporters in by_force.values():
            supporters.sort(key=lambda i: self.p[i].line)
            total = sum(self.p[s].size for s in supporters)
            k = 0
            for s in supporters:
                for _ in range(self.p[s].size):
                    # Rank 0 is the last component of the last written support: cut first.
                    self.comps_of[s].append(n + len(self.comp_piece))
                    self.comp_piece.append(s)
                    self.comp_rank.append(total - 1 - k)
                    k += 1
        self.resolver = Resolver(self, n + len(self.comp_piece))

    # ------------------------------------------------------------ set-up
    def _groups(self) -> None:
        found: dict[tuple[str, str], list[int]] = {}
        for i, pc in enumerate(self.p):
            if not pc.merging:
                continue
            where = pc.to() if pc.kind == MOVE else pc.origin
            found.setdefault((pc.player, where), []).append(i)
        for (_player, where), members in sorted(found.items()):
            if len(members) < 2 or not any(self.p[m].kind == MOVE for m in members):
                continue
            g = len(self.members)
            self.members.append(members)
            self.stationary.append([m for m in members if self.p[m].kind != MOVE])
            self.group_dest.append(where)
            self.merge_supports.append([])
            for m in members:
                self.group[m] = g

    def _convoys(self) -> None:
        p, board = self.p, self.board
        fleets_for: dict[int, list[int]] = {}
        for c, pc in enumerate(p):
            if pc.kind != CONVOY:
                continue
            carried = [t for t in self.pieces_at.get(pc.target or "", ())
                       if p[t].kind == MOVE and p[t].dest == pc.dest and p[t].all_army()]
            if not carried:
                self.void[c] = "void: no matching move to convoy"
                continue
            t = carried[0]
            a, f, g = pc.counts()
            # Rule 6: the convoying unit and the units it carries together must be seaworthy.
            if not seaworthy(a + p[t].size, f, g):
                self.void[c] = (f"void: a unit with {f} fleets cannot carry {p[t].size} "
                                "more armies and stay seaworthy")
                continue
            fleets_for.setdefault(t, []).append(c)
        for i, pc in enumerate(p):
            if (pc.kind != MOVE or not pc.all_army() or board.is_sea(pc.to())
                    or board.is_sea(pc.origin)):
                # Armies leaving an A/F at sea land directly (rule 7); they are not convoyed.
                continue
            adjacent = board.can_move(ARMY, pc.origin, pc.to())
            fleets = fleets_for.get(i, [])
            if adjacent and not pc.via and not any(p[c].player == pc.player for c in fleets):
                for c in fleets:
                    self.void[c] = "void: the army moves by land"
                continue
            seas = {p[c].origin: c for c in fleets if board.is_sea(p[c].origin)}
            needed = board.convoy_routes(pc.origin, pc.to(), seas) if seas else set()
            self.convoyed[i] = True
            if not needed:
                self.void[i] = "no convoy route ordered"
                for c in fleets:
                    self.void[c] = "void: no complete convoy route"
                continue
            self.convoy_fleets[i] = sorted(seas[s] for s in needed)
            for c in fleets:
                if c not in self.convoy_fleets[i]:
                    self.void[c] = "void: not on a convoy route"

    def _supports(self) -> None:
        p = self.p
        for s, pc in enumerate(p):
            if pc.kind == SUPPORT_HOLD:
                stay = [j for j in self.pieces_at.get(pc.target or "", ()) if p[j].kind != MOVE]
                if not stay:
                    self.void[s] = "void: the unit supported moves"
                else:
                    self.hold_supports.setdefault(pc.supported(), []).append(s)
            elif pc.kind == SUPPORT_MOVE:
                movers = [j for j in self.pieces_at.get(pc.target or "", ())
                          if p[j].kind == MOVE and p[j].dest == pc.dest]
                if movers and "/" in (pc.dest_loc or "") and p[movers[0]].dest_loc != pc.dest_loc:
                    self.void[s] = f"void: the fleet moves to {p[movers[0]].dest_loc}"
                elif not movers:
                    self.void[s] = f"void: no move from {pc.target} to {pc.dest}"
                else:
                    self.move_supports[movers[0]].append(s)
            elif pc.kind == SUPPORT_MERGE:
                groups = [g for g, d in enumerate(self.group_dest) if d == pc.dest]
                own = [g for g in groups if p[self.members[g][0]].player == pc.player]
                chosen = own or groups
                if len(chosen) != 1:
                    self.void[s] = f"void: no merge in {pc.dest}"
                else:
                    self.merge_supports[chosen[0]].append(s)

    # ------------------------------------------------------------ resolver plug-in
    def decide(self, i: int, r: Resolver) -> bool:
        if i >= self.n:
            return self._component_given(i, r)
        if self.p[i].kind == MOVE:
            return self._move_ok(i, r)
        return not self._dislodged_at(self.p[i].origin, self.p[i].player, r)

    def backup(self, cycle: list[int], r: Resolver) -> None:
        """Convoy paradox: Szykman (the convoyed moves fail). Otherwise circular movement
        succeeds. (Rings of supports that cut each other are settled before the resolver
        runs, see :meth:`_rule_rings`; a cycle through cuts that is left is noted as a ring
        for :meth:`resolve` to rule.)"""
        n = self.n
        carried = set()
        for d in cycle:
            if d < n and self.p[d].kind == CONVOY:
                carried |= {m for m in range(n) if d in self.convoy_fleets[m]}
        if carried:
            for m in carried:
                self.paradox.add(m)
                r.settle(m, False)
            return
        comps = [d for d in cycle if d >= n]
        if comps:
            # A ring the static look (_static_rings) did not see: noted, so that resolve()
            # rules it as a ring and runs again; meanwhile the supports are given.
            self.missed.update(self.comp_piece[d - n] for d in comps)
            for d in comps:
                r.settle(d, True)
            return
        for d in cycle:
            if self.p[d].kind == MOVE:
                r.settle(d, True)

    # ------------------------------------------------------------ rings of supports
    def _feeding(self, m: int) -> list[int]:
        """The supports that add to the strength of move ``m``."""
        g = self.group[m]
        if g < 0:
            return self.move_supports[m]
        return [t for mm in self.members[g] for t in self.move_supports[mm]] \
            + self.merge_supports[g]

    def _static_rings(self) -> list[list[int]]:
        """Rings of supports: sets of (non-void) supports in which the cut of each depends on
        others of them, round in a circle. The cut of ``s`` depends on ``t`` when ``t``
        supports a move into the space of ``s`` (it adds to an attack on ``s``, or to a move
        that keeps one from dislodging it) or ``t`` supports what stands there (and so decides
        whether ``s`` is dislodged). A ring is a strongly connected set of that relation."""
        p = self.p
        edges: dict[int, set[int]] = {}
        for s, pc in enumerate(p):
            if pc.kind not in SUPPORTS or s in self.void:
                continue
            feeding: set[int] = set(self.hold_supports.get(pc.origin, ()))
            for m in self.moves_into.get(pc.origin, ()):
                feeding.update(self._feeding(m))
            for g, where in enumerate(self.group_dest):
                if where == pc.origin:
                    feeding.update(self._feeding(self.members[g][0]))
            edges[s] = {t for t in feeding if t != s and t not in self.void}

        def reach(start: int) -> set[int]:
            seen = {start}
            todo = [start]
            while todo:
                for t in edges.get(todo.pop(), ()):
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
            return seen

        reached = {s: reach(s) for s in edges}
        rings: list[list[int]] = []
        placed: set[int] = set()
        for s in sorted(edges):
            if s in placed:
                continue
            ring = sorted(t for t in reached[s] if s in reached[t])
            placed.update(ring)
            if len(ring) > 1:
                rings.append(ring)
        # A ring whose cuts depend on another ring comes after it.
        ordered: list[list[int]] = []
        while rings:
            first = next(ring for ring in rings
                         if not any(o is not ring and o[0] in reached[ring[0]] for o in rings))
            ordered.append(first)
            rings.remove(first)
        return ordered

    def _rule_rings(self, rings: list[list[int]]) -> dict[int, bool]:
        """How the supports of each ring are given (rule 4 is silent; ``description.md``,
        "Rings of supports"), a ring after the rings it depends on. Returns the components
        settled by step 1.

        1. Every way of giving the ring's supports is tried (how many components of each
           support are given; the highest ranks are given first). An answer is kept when the
           rules, worked out with those supports, give exactly them again. If the ring has one
           such answer, it is the ruling.
        2. If it has none or several, rule 4's own remedy for a ring of two is applied to the
           whole ring: a support of the ring does not count towards cutting another support
           of the ring. Then step 1 again.
        3. If the ring still has no single answer, the moves its supports support fail.
        """
        fixed: dict[int, bool] = {}
        for ring in rings:
            comps = [c for s in ring for c in self.comps_of[s]]
            for step in (1, 2):
                if step == 2:
                    number = len(self.rings)
                    self.rings.append(set(ring))
                    for s in ring:
                        self.ring_of[s] = number
                answers = self._ring_answers(ring, fixed)
                if answers is None and step == 1:
                    continue  # too many ways to try: straight to step 2
                if answers is None:
                    break  # the resolver rules the ring with step 2's cuts
                if len(answers) == 1:
                    fixed.update((c, answers[0][c]) for c in comps)
                    break
            else:
                for s in ring:
                    self.ring_failed.update(m for m in range(self.n) if s in self._feeding(m))
        return fixed

    def _ring_answers(self, ring: list[int],
                      fixed: dict[int, bool]) -> list[dict[int, bool]] | None:
        """The consistent ways of giving the supports of ``ring`` (step 1 of _rule_rings), up
        to two; None if there are more than RING_SEARCH_LIMIT ways to try."""
        choices: list[list[dict[int, bool]]] = []
        count = 1
        for s in ring:
            # A support's components are cut lowest rank first: giving g of them gives the
            # g highest ranks.
            comps = sorted(self.comps_of[s], key=lambda c: -self.comp_rank[c - self.n])
            choices.append([{c: k < g for k, c in enumerate(comps)}
                            for g in range(len(comps) + 1)])
            count *= len(comps) + 1
        if count > RING_SEARCH_LIMIT:
            return None
        answers = []
        for combo in product(*choices):
            candidate: dict[int, bool] = {}
            for option in combo:
                candidate.update(option)
            r = self._run({**fixed, **candidate})
            if all(self._component_given(c, r) == v for c, v in candidate.items()):
                answers.append(candidate)
                if len(answers) > 1:
                    break
        return answers

    def _run(self, settled: dict[int, bool]) -> Resolver:
        """Resolve every decision afresh, with ``settled`` (and the moves failed by step 3 of
        a ring's ruling) fixed beforehand."""
        r = self.resolver = Resolver(self, len(self.resolver.state))
        self.paradox = set()
        self.missed = set()
        for d, value in settled.items():
            r.settle(d, value)
        for d in self.ring_failed:
            r.settle(d, False)
        r.resolve_all()
        return r

    # ------------------------------------------------------------ strengths
    def given(self, s: int, r: Resolver) -> int:
        """How many components of support ``s`` are given."""
        if s in self.void:
            return 0
        return sum(1 for c in self.comps_of[s] if r.resolve(c))

    def _support_sum(self, supports: list[int], supported: str, r: Resolver,
                     exclude_player: str | None, exclude_prov: str | None,
                     ring: int = -1) -> int:
        total = 0
        for s in supports:
            pc = self.p[s]
            if pc.player == exclude_player or pc.origin == exclude_prov:
                continue
            if ring >= 0 and self.ring_of.get(s) == ring:
                continue
            if pc.player != supported and not self.support_counts(pc.player, supported):
                continue
            total += self.given(s, r)
        return total

    def has_path(self, i: int, r: Resolver) -> bool:
        if not self.convoyed[i]:
            return True
        if i in self.paradox or i in self.void:
            return False
        fleets = self.convoy_fleets[i]
        reach = self.board.fleet_reach
        pc = self.p[i]
        locs = [self.p[c].location for c in fleets]
        frontier = [k for k, _ in enumerate(fleets) if pc.origin in reach[locs[k]]]
        seen = set(frontier)
        while frontier:
            k = frontier.pop()
            if not r.resolve(fleets[k]):
                continue
            if pc.dest in reach[locs[k]]:
                return True
            for k2, c2 in enumerate(fleets):
                if k2 not in seen and self.p[c2].origin in reach[locs[k]]:
                    seen.add(k2)
                    frontier.append(k2)
        return False

    def strength(self, i: int, r: Resolver, exclude_player: str | None = None,
                 exclude_prov: str | None = None, supports: bool = True,
                 ring: int = -1) -> int:
        """The strength piece ``i`` moves with: its size and supports, or, in a merge, the
        group's sizes and supports (rule 3: the merging forces support each other).

        ``exclude_player``: supports of that player do not count (no help to dislodge one's
        own unit). ``exclude_prov``: pieces and supports from there do not count (rule 4:
        support from A for an attack into C does not help cut C's support against A; a merging
        unit does not cut support for an attack on its own space). ``ring``: supports of that
        ring do not count (they are cutting a support of the same ring, see _rule_rings).
        """
        g = self.group[i]
        player = self.p[i].player
        if g < 0:
            if not supports:
                return self.p[i].size
            return self.p[i].size + self._support_sum(self.move_supports[i], player, r,
                                                      exclude_player, exclude_prov, ring)
        dest = self.group_dest[g]
        at_sea = self.board.is_sea(dest)
        total = 0
        for m in self.members[g]:
            pm = self.p[m]
            if pm.origin == exclude_prov:
                continue
            if pm.kind == MOVE and m != i and not self.has_path(m, r):
                continue
            # Rule 5: an army joining a fleet at sea cannot support the merge.
            if not (at_sea and pm.kind == MOVE and pm.all_army()):
                total += pm.size
            if supports:
                total += self._support_sum(self.move_supports[m], player, r, exclude_player,
                                           exclude_prov, ring)
        if not supports:
            return total
        return total + self._support_sum(self.merge_supports[g], player, r, exclude_player,
                                         exclude_prov, ring)

    def _h2h(self, i: int, j: int) -> bool:
        """Pieces ``i`` and ``j`` move into each other's province, neither by convoy."""
        pi, pj = self.p[i], self.p[j]
        return (pj.kind == MOVE and pi.kind == MOVE and pj.dest == pi.origin
                and pi.dest == pj.origin and not self.convoyed[i] and not self.convoyed[j])

    def attack(self, i: int, r: Resolver) -> int:
        if not self.has_path(i, r):
            return 0
        pc = self.p[i]
        at = self.pieces_at.get(pc.to(), [])
        g = self.group[i]
        if not at or (g >= 0 and self.stationary[g]):
            return self.strength(i, r)
        if all(self.p[j].kind == MOVE and not self._h2h(i, j) and r.resolve(j) for j in at):
            return self.strength(i, r)
        occupant = self.p[at[0]].player
        if occupant == pc.player:
            return 0
        return self.strength(i, r, exclude_player=occupant)

    def prevent(self, k: int, r: Resolver) -> int:
        if not self.has_path(k, r):
            return 0
        for j in self.pieces_at.get(self.p[k].to(), ()):
            if self._h2h(k, j) and r.resolve(j):
                return 0
        return self.strength(k, r)

    def hold(self, prov: str, r: Resolver, assume_failed: Sequence[int] = ()) -> int:
        """What a move into ``prov`` must beat: the force left there (pieces that stay and
        moves that fail), with support to hold and, when a merge forms on it, the units
        merging into it."""
        total = 0
        stays = False
        for j in self.pieces_at.get(prov, ()):
            pj = self.p[j]
            if pj.kind != MOVE:
                total += pj.size
                stays = True
            elif j in assume_failed or not r.resolve(j):
                total += pj.size
        if not stays:
            return total
        player = self.p[self.pieces_at[prov][0]].player  # the force that stays there
        total += self._support_sum(self.hold_supports.get(prov, []), player, r, None, None)
        for g, where in enumerate(self.group_dest):
            if where == prov and self.stationary[g]:
                for m in self.members[g]:
                    if self.p[m].kind == MOVE and self.has_path(m, r):
                        if not (self.board.is_sea(prov) and self.p[m].all_army()):
                            total += self.p[m].size
                        total += self._support_sum(self.move_supports[m], player, r, None,
                                                   None)
                total += self._support_sum(self.merge_supports[g], player, r, None, None)
        return total

    # ------------------------------------------------------------ decisions
    def _base_move(self, i: int, r: Resolver) -> bool:
        if i in self.void:
            return False
        a = self.attack(i, r)
        if a == 0:
            return False
        pc = self.p[i]
        dest = pc.to()
        g = self.group[i]
        if g >= 0 and self.stationary[g]:
            # Joining a unit that stays: it succeeds unless that unit is dislodged (the
            # joining units count in its hold strength, see hold()).
            return not self._dislodged_at(dest, pc.player, r)
        h2h = [j for j in self.pieces_at.get(dest, ()) if self._h2h(i, j)]
        for j in h2h:
            if a <= self.strength(j, r):
                return False
        if a <= self.hold(dest, r, h2h):
            return False
        for k in self.moves_into[dest]:
            if k == i or (g >= 0 and self.group[k] == g):
                continue
            if a <= self.prevent(k, r):
                return False
        if self.board.is_sea(dest) and not seaworthy(*pc.counts()):
            # An army reaches a sea only inside a seaworthy merge (rule 5).
            if g < 0:
                return False
            arriving = list(pc.parts)
            for m in self.members[g]:
                pm = self.p[m]
                if m == i:
                    continue
                # Armies count as arriving (they need the same fleets); a fleet only if it
                # stays there or its own move succeeds.
                if pm.all_army() or pm.kind != MOVE or r.resolve(m):
                    arriving.extend(pm.parts)
            if not seaworthy(*counts_of(arriving)):
                return False
        return True

    def _move_ok(self, i: int, r: Resolver) -> bool:
        if not self._base_move(i, r):
            return False
        pc = self.p[i]
        if not self.board.is_sea(pc.origin):
            return True
        # Rule 7: if a failed split would leave an unseaworthy unit at sea, every split fails.
        left: list[tuple[str, str]] = []
        siblings = [j for j in self.pieces_at[pc.origin] if self.p[j].force == pc.force]
        for j in siblings:
            pj = self.p[j]
            if pj.kind != MOVE or (j != i and not self._base_move(j, r)):
                left.extend(pj.parts)
        return not left or seaworthy(*counts_of(left))

    def _dislodged_at(self, prov: str, player: str, r: Resolver) -> bool:
        return any(self.p[k].player != player and r.resolve(k)
                   for k in self.moves_into.get(prov, ()))

    def _component_given(self, c: int, r: Resolver) -> bool:
        k = c - self.n
        s = self.comp_piece[k]
        if s in self.void:
            return False
        pc = self.p[s]
        if self._dislodged_at(pc.origin, pc.player, r):
            return False
        # The space the support goes into: an attack from there cuts nothing unless it
        # dislodges (standard rule); support from there does not count toward cutting (rule 4).
        into = pc.target if pc.kind == SUPPORT_HOLD else pc.dest
        exclude = into if pc.kind != SUPPORT_HOLD else None
        rank = self.comp_rank[k]
        attacks = []
        for m in self.moves_into.get(pc.origin, ()):
            pm = self.p[m]
            if pm.player == pc.player or (pc.kind != SUPPORT_HOLD and pm.origin == into):
                continue
            if not self.has_path(m, r):
                continue
            # Sizes alone may already cut this component: then the attack's own supports
            # need not be known (which keeps standard play free of support cycles).
            if self.strength(m, r, pc.player, exclude, supports=False) > rank:
                return False
            attacks.append(m)
        ring = self.ring_of.get(s, -1)
        return all(self.strength(m, r, pc.player, exclude, ring=ring) <= rank for m in attacks)

    # ------------------------------------------------------------ results
    def resolve(self) -> list[PieceOutcome]:
        rings = self._static_rings()
        while True:
            self.ring_of, self.rings, self.ring_failed = {}, [], set()
            r = self._run(self._rule_rings(rings) if rings else {})
            missed = self.missed
            if not missed or any(missed <= set(ring) for ring in rings):
                break
            # A cycle through cuts that only the resolver met: rule it as a ring (joined
            # with the rings it touches), after the others.
            rest = []
            for ring in rings:
                if missed & set(ring):
                    missed |= set(ring)
                else:
                    rest.append(ring)
            rings = [*rest, sorted(missed)]
        out = []
        for i, pc in enumerate(self.p):
            if i in self.void:
                out.append(PieceOutcome(False, self.void[i]))
            elif pc.kind == MOVE:
                ok = r.result[i]
                out.append(PieceOutcome(ok, "" if ok else self._move_failure(i)))
            elif pc.kind in SUPPORTS:
                gone = self.dislodged(pc.origin)
                given = self.given(i, r)
                note = RING_NOTE if i in self.ring_of else ""
                if gone:
                    out.append(PieceOutcome(False, "dislodged"))
                elif given == pc.size:
                    out.append(PieceOutcome(True, note.lstrip("; ")))
                elif given == 0:
                    out.append(PieceOutcome(False, "cut" + note))
                else:
                    out.append(PieceOutcome(True, f"cut to {given} of {pc.size}{note}"))
            else:
                gone = self.dislodged(pc.origin)
                out.append(PieceOutcome(not gone, "dislodged" if gone else ""))
        return out

    def _move_failure(self, i: int) -> str:
        if i in self.paradox:
            return "convoy paradox: the convoyed move fails (Szykman rule)"
        if i in self.ring_failed:
            return "fails: a ring of supports that cut each other has no single answer"
        if self.convoyed[i] and not self.has_path(i, self.resolver):
            return "convoy disrupted"
        pc = self.p[i]
        if self.board.is_sea(pc.origin) and self._base_move(i, self.resolver):
            return "the unit left at sea would not be seaworthy"
        return "bounced"

    def moved(self, i: int) -> bool:
        return self.p[i].kind == MOVE and self.resolver.result[i]

    def dislodger(self, prov: str) -> int | None:
        """The move that dislodged what was left in ``prov``, if anything was left there."""
        left = [j for j in self.pieces_at.get(prov, ()) if not self.moved(j)]
        if not left:
            return None
        player = self.p[left[0]].player
        for k in self.moves_into.get(prov, ()):
            if self.p[k].player != player and self.resolver.result[k]:
                return k
        return None

    def dislodged(self, prov: str) -> bool:
        return self.dislodger(prov) is not None

    def standoffs(self) -> set[str]:
        """Empty provinces where two or more moves with a path met (no retreat there)."""
        r = self.resolver
        occupied = {pc.dest if self.moved(i) else pc.origin for i, pc in enumerate(self.p)}
        out = set()
        for prov, movers in self.moves_into.items():
            if prov in occupied:
                continue
            if sum(1 for k in movers if self.has_path(k, r)) >= 2:
                out.add(prov)
        return out


__all__ = ["ARMY", "CONVOY", "FLEET", "GARRISON", "HOLD", "MOVE", "MultiMovement", "Piece",
           "PieceOutcome", "SUPPORT_HOLD", "SUPPORT_MERGE", "SUPPORT_MOVE"]
