"""Leak test: over many random Stab! turns, every line of the public report and of each
private notice is read back and checked against the full adjudication.

The checks here are an oracle written from the rules' text, independently of
``judge.variants.stab.visibility``: each entry must be true (the unit is there, of that power and
type, with that order), and the public report must be exactly what rule 2 reveals
(:func:`rule2`: every unit it reveals, as much as it reveals, and no other); the private
notices and the other public lines must be allowed by rules 1 and 3-6; any line the oracle
cannot read fails the test, so nothing can slip through in free text.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from judge.engine.board import province_of
from judge.engine.orders import Convoy, Move, Order, SupportHold, SupportMove, UnitRef
from judge.engine.position import Phase
from judge.engine.randomgame import random_orders, random_position
from judge.variants import get_variant
from judge.variants.stab.report import StabSettings, render, stab_turn_events, unit_text
from judge.variants.stab.rules import IfDislodged, Reveal
from judge.variants.standard.movement import MovementPhase

VARIANT = get_variant("stab")
BOARD = VARIANT.board
RULES = VARIANT.rules

UNIT = r"([AF])\(([^)]+)\)"
ENTRY = re.compile(
    rf"^{UNIT}(?:(\*S)|-(\S+)| S {UNIT}(?:-(\S+))?| C {UNIT}-(\S+))?( \[Dislodged\])?$")


def loc(text: str) -> str:
    return text.upper()


# ------------------------------------------------------------------ random turns
def defend(position, orders: list[tuple[str, Order]], rng: random.Random
           ) -> list[tuple[str, Order]]:
    """Fights over some standing units: the neighbours free to help support the unit or an
    attack on it, so that a standing unit often has more supports than it needs (rule 2
    then shows only the supports needed)."""
    units = {u.province: u for u in position.units}
    given = {province_of(o.unit.location): (p, o) for p, o in orders}
    attacks: dict[str, list[Move]] = {}
    for _, o in orders:
        if isinstance(o, Move):
            attacks.setdefault(province_of(o.destination), []).append(o)
    for t, moves in sorted(attacks.items()):
        u = units.get(t)
        if u is None or isinstance(given.get(t, (None, None))[1], Move) or rng.random() < 0.5:
            continue
        for v in position.units:
            free = not isinstance(given.get(v.province, (None, None))[1], (Move, Convoy))
            if v is u or not free or not BOARD.can_reach(v.kind, v.location, t):
                continue
            ref = UnitRef(v.kind, v.location)
            if rng.random() < 0.6:
                given[v.province] = (v.power, SupportHold(ref, UnitRef(u.kind, u.location)))
            elif rng.random() < 0.7:
                m = rng.choice(moves)
                if province_of(m.unit.location) != v.province:
                    dest = m.destination if m.unit.kind == "F" else t
                    given[v.province] = (v.power, SupportMove(ref, m.unit, dest))
    return list(given.values())


def random_turn(seed: int, mode: str):
    rng = random.Random(seed)
    position = random_position(BOARD, rng, rng.randint(18, 45))
    position.variant = "stab"
    position.phase = Phase(rng.choice("SF"), 1903, "M")
    position.extra["retreats"] = mode
    orders: list[tuple[str, Order]] = defend(position, random_orders(BOARD, position, rng), rng)
    # Some powers send nothing at all (NMR).
    silent = {p for p in BOARD.powers if rng.random() < 0.15}
    orders = [(p, o) for p, o in orders if p not in silent]
    # Illegal orders (never revealed): moves to places the unit cannot reach.
    for u in position.units:
        if u.power not in silent and rng.random() < 0.05:
            far = rng.choice(sorted(BOARD.provinces))
            orders.append((u.power, Move(UnitRef(u.kind, u.location), far)))
    # Conditional retreats and reveal instructions.
    for u in position.units:
        if u.power in silent:
            continue
        if mode == "with_orders" and rng.random() < 0.6:
            adj = sorted(BOARD.army_adj[u.location] if u.kind == "A" else BOARD.fleet_adj[u.location])
            dests = tuple(rng.sample(adj, min(len(adj), rng.randint(0, 2))))
            orders.append((u.power, IfDislodged(UnitRef(u.kind, u.location), dests)))
        if rng.random() < 0.1:
            near = [v.province for v in position.units if v.province in BOARD.neighbours(u.province)]
            if near:
                orders.append((u.power, Reveal(tuple(rng.sample(near, 1)))))
    rng.shuffle(orders)
    movement = VARIANT.adjudicate(position, orders)
    steps = [(movement, orders)]
    retreat = None
    if movement.position.phase.kind == "R":
        if mode == "with_orders":
            retreat = VARIANT.adjudicate(movement.position, [])
            steps.append((retreat, []))
        else:
            r_orders = []
            for d in movement.position.dislodged:
                options = list(d.retreats or ())
                if options and rng.random() < 0.8:
                    r_orders.append((d.unit.power, VARIANT.read_order(
                        movement.position, d.unit.power, f"{d.unit} R {rng.choice(options)}")))
            retreat = VARIANT.adjudicate(movement.position, r_orders)
            steps = [(retreat, r_orders)]  # reported on its own, with the next season
            run_oracle(retreat, r_orders, None, stab_turn_events(RULES, steps))
            steps = [(movement, orders)]
            retreat = None
    events = stab_turn_events(RULES, steps)
    return movement, orders, retreat, events, silent


# ----------------------------------------------------------------------- oracle
class Facts:
    """The full adjudication of a movement phase, in the terms the rules use."""

    def __init__(self, ph: MovementPhase) -> None:
        self.ph = ph
        self.r = r = ph.resolver
        self.n = n = len(ph.units)
        self.index = {u.location: i for i, u in enumerate(ph.units)}
        self.moved = [ph.moved(i) for i in range(n)]
        self.dislodger = [ph.dislodger(i) for i in range(n)]
        self.given = [r.result[i] for i in range(n)]
        self._arrives = [self.is_move(i) and ph.has_path(i, r) for i in range(n)]
        self._attack = [ph.attack_strength(i, r) if self._arrives[i] else 0 for i in range(n)]

    def lawful(self, i: int, kinds) -> bool:
        """Unit ``i`` was given an order of one of ``kinds`` that was neither illegal nor void
        (rule 2: "A mis-order or an unlawful order is not revealed")."""
        return isinstance(self.ph.orders[i], kinds) and i not in self.ph.void

    def is_move(self, i: int) -> bool:
        return self.lawful(i, Move)

    def failed_move(self, i: int) -> bool:
        return self.is_move(i) and not self.moved[i]

    def arrives(self, i: int) -> bool:
        """A move that reaches its destination, to win or to bounce there (a convoyed army
        whose convoy was broken never does: it attacks nothing, cuts nothing)."""
        return self._arrives[i]

    def attack(self, i: int) -> int:
        return self._attack[i]

    def foreign(self, i: int, k: int) -> bool:
        return self.ph.power[i] != self.ph.power[k]

    def contested(self, i: int) -> bool:
        """Failed move ``i`` is not a self-standoff: another power's unit took part at its
        destination (it was there and did not leave, it entered the space or tried to), or
        another power broke its convoy."""
        ph = self.ph
        if not self.arrives(i):
            return True
        d = ph.dest[i]
        for k in range(self.n):
            if not self.foreign(i, k):
                continue
            if ph.prov[k] == d and (not self.moved[k] or ph.dest[k] == ph.prov[i]):
                return True
            if self.arrives(k) and ph.dest[k] == d:
                return True
        return False

    def stops_attack_on(self, u: int) -> bool:
        """Unit ``u``, whose move failed (so it kept its place with strength 1), is why
        another power's attack on it failed."""
        ph = self.ph
        return any(self.foreign(u, m) and self.failed_move(m) and self.arrives(m)
                   and ph.dest[m] == ph.prov[u] and self.attack(m) <= 1
                   for m in range(self.n))

    def self_standoffs(self) -> list[set[int]]:
        """The failed moves that no other power took part in, as standoffs: the moves that
        bounced in the same space, or against each other."""
        ph = self.ph
        own = [i for i in range(self.n) if self.failed_move(i) and not self.contested(i)]
        groups: list[set[int]] = []
        for i in own:
            joined = [g for g in groups if any(
                ph.dest[i] == ph.dest[j] or (ph.dest[i] == ph.prov[j] and ph.dest[j] == ph.prov[i])
                for j in g)]
            merged = {i}.union(*joined)
            groups = [g for g in groups if g not in joined] + [merged]
        return groups

    def reason_for_foreign_failure(self, i: int) -> bool:
        """Successful move ``i`` is why another power's move into the same space failed
        (its strength there was enough to stop it)."""
        ph = self.ph
        prevent = ph.prevent_strength(i, self.r)
        return any(self.foreign(i, m) and self.failed_move(m) and self.arrives(m)
                   and ph.dest[m] == ph.dest[i] and self.attack(m) <= prevent
                   for m in range(self.n))

    def supports_of(self, j: int) -> list[int]:
        """The lawful supports of move ``j``."""
        return [s for s in range(self.n)
                if self.lawful(s, SupportMove) and self.ph.target[s] == j]


ORDER, CUT, EXISTS = 3, 2, 1  # how much of a unit an entry shows


def rule2(f: Facts, reveal: dict[str, list[str]]) -> tuple[dict[int, str], dict[int, str]]:
    """What the public report must show of each unit, word for word (without
    ``[Dislodged]``), read from rule 2; no other unit may appear. With the reason for each."""
    ph = f.ph
    level: dict[int, int] = {}
    why: dict[int, str] = {}

    def show(i: int, lv: int, reason: str) -> None:
        if lv > level.get(i, 0):
            level[i], why[i] = lv, reason

    # "All failed moves and all supports for failed moves are reported (subject to the
    # self-standoff rule)"; "A self-standoff is not revealed unless it also results in the
    # failure of a move by another player": then it is revealed whole.
    failed = {i for i in range(f.n) if f.failed_move(i) and f.contested(i)}
    for standoff in f.self_standoffs():
        if any(f.stops_attack_on(u) for u in standoff):
            failed |= standoff
    # "A successful move and any associated supports are only revealed if it succeeds in
    # dislodging another unit or is the reason why another move by another unit or units
    # failed" (another power's: a power's moves beating its own are a self-standoff).
    succeeded = {i for i in range(f.n) if f.is_move(i) and f.moved[i]
                 and (i in f.dislodger or f.reason_for_foreign_failure(i))}
    for j in failed | succeeded:
        show(j, ORDER, "failed move" if j in failed else "successful move revealed")
        for s in f.supports_of(j):
            show(s, ORDER, f"supports revealed move {ph.orders[j]}")
    # "The existence of any unit which is the recipient of an unsuccessful attack is also
    # revealed. If an attacked unit was supporting another unit then the fact that a support
    # was cut is revealed"; a standing unit's supports "necessary to justify the failure of
    # the attack", chosen by the player, else "from other spaces as necessary alphabetically,
    # supports from other players being revealed first".
    attacks: dict[int, list[int]] = {}
    for j in failed:
        u = ph.at.get(ph.dest[j])
        if f.arrives(j) and u is not None and u != j and not f.moved[u]:
            attacks.setdefault(u, []).append(j)
    for u, js in attacks.items():
        cut = f.lawful(u, (SupportHold, SupportMove)) and not f.given[u]
        show(u, CUT if cut else EXISTS, f"attacked by {[str(ph.orders[j]) for j in js]}")
        if f.dislodger[u] is not None or f.is_move(u):
            continue
        needed = max(f.attack(j) for j in js) - 1
        given = [s for s in range(f.n) if f.lawful(s, SupportHold) and ph.target[s] == u
                 and f.given[s]]
        chosen = [s for p in reveal.get(ph.power[u], []) for s in given if ph.prov[s] == p]
        rest = sorted((s for s in given if s not in chosen),
                      key=lambda s: (not f.foreign(s, u), ph.prov[s]))
        for s in list(dict.fromkeys(chosen + rest))[:max(needed, 0)]:
            show(s, ORDER, f"needed to stand against {needed + 1}")
    # "The fact that a unit is dislodged is reported"; a dislodged support is cut.
    for u in range(f.n):
        if f.dislodger[u] is not None:
            cut = f.lawful(u, (SupportHold, SupportMove))
            show(u, CUT if cut else EXISTS, "dislodged")
    out = {}
    for i, lv in level.items():
        u = ph.units[i]
        text = unit_text(u.kind, u.location)
        out[i] = order_text(ph.orders[i]) if lv == ORDER else text + ("*S" if lv == CUT else "")
    return out, why


def order_text(order) -> str:
    from judge.variants.stab.report import loc_text

    u = unit_text(order.unit.kind, order.unit.location)
    if isinstance(order, Move):
        return f"{u}-{loc_text(order.destination)}"
    if isinstance(order, SupportHold):
        return f"{u} S {unit_text(order.target.kind, order.target.location)}"
    if isinstance(order, SupportMove):
        return (f"{u} S {unit_text(order.target.kind, order.target.location)}-"
                f"{loc_text(order.destination)}")
    if isinstance(order, Convoy):
        return (f"{u} C {unit_text(order.target.kind, order.target.location)}-"
                f"{loc_text(order.destination)}")
    return u


def check_public(movement, orders, retreat, public: str, silent: set[str],
                 nmr: set[str] | None = None) -> None:
    """``nmr``: the powers rule 6 names, when the turn is more than this movement (retreats
    and adjustments sent with it, tests/stabkit.py check_report); by default those with
    units that sent no order for it."""
    f = Facts(movement.details)
    ph = f.ph
    lines = public.splitlines()
    assert lines[0].startswith("Stab!: ")
    shown: dict[int, tuple[str, bool]] = {}  # unit -> (entry without [Dislodged], dislodged)
    disbanded_seen = set()
    nmr_seen: set[str] = set()
    counts_seen = None
    for line in lines[1:]:
        if not line or line == "No contested movement.":
            continue
        if line.startswith("NMR: "):
            nmr_seen = set(line[5:].split(", "))
            continue
        if line.startswith("Supply centres: "):
            counts_seen = {p: int(n) for p, n in (x.split() for x in line[16:].split(", "))}
            continue
        power, _, rest = line.partition(": ")
        assert power in BOARD.powers, line
        if rest.endswith(" [Disbanded]"):
            m = re.fullmatch(UNIT, rest[: -len(" [Disbanded]")])
            assert m, line
            disbanded_seen.add((power, m.group(1), loc(m.group(2))))
            continue
        for text in [e.strip() for e in rest.split(";") if e.strip()]:
            m = ENTRY.match(text)
            assert m, text
            i = f.index.get(loc(m.group(2)))
            assert i is not None, f"{text}: no such unit"
            unit = ph.units[i]
            assert (unit.power, unit.kind) == (power, m.group(1)), text
            assert i not in shown, f"{text}: named twice"
            shown[i] = (text.removesuffix(" [Dislodged]"), text.endswith(" [Dislodged]"))

    # Every entry is true: the unit is there, of that power and type (checked above), and
    # [Dislodged] exactly when it was dislodged.
    for i, (text, dislodged) in shown.items():
        assert dislodged == (f.dislodger[i] is not None), text
    # Rule 2, exactly: every unit it reveals, as much as it reveals, and nothing more.
    reveal: dict[str, list[str]] = {}
    for p, o in orders:
        if isinstance(o, Reveal):
            reveal.setdefault(p, []).extend(o.locations)
    expected, why = rule2(f, reveal)
    problems = [f"{ph.units[i]}: {expected[i]} not reported ({why[i]})"
                for i in expected if i not in shown]
    problems += [f"{shown[i][0]}: revealed for nothing" for i in shown if i not in expected]
    problems += [f"{shown[i][0]}: rule 2 shows {expected[i]} ({why[i]})"
                 for i in shown if i in expected and shown[i][0] != expected[i]]
    assert not problems, "\n".join(problems)
    # Rule 6: a power with units that sent no order at all.
    if nmr is None:
        sent = {p for p, _ in orders}
        nmr = {p for p in movement.previous.powers()
               if movement.previous.units_of(p) and p not in sent}
    assert nmr_seen == nmr, f"NMR reported {sorted(nmr_seen)}, expected {sorted(nmr)}"
    assert silent & set(movement.previous.powers()) <= nmr_seen | {
        p for p in silent if not movement.previous.units_of(p)}
    if retreat is not None:
        gone = {(u.power, u.kind, u.location) for u in retreat.disbanded}
        assert disbanded_seen == gone
    else:
        assert not disbanded_seen
    final = retreat or movement
    if final.previous.phase.season == "F" and final.position.phase.kind != "R":
        assert counts_seen is not None
        for p, n in counts_seen.items():
            assert n == len(final.position.centres.get(p, ()))
    else:
        assert counts_seen is None


def check_private(movement, retreat, power: str, text: str) -> None:
    final = retreat or movement
    nxt = final.position
    lines = text.splitlines()
    assert lines[0].startswith("Stab!: ") and lines[0].endswith(f"private notice for {power}")
    occupant = {u.province: u for u in (retreat.previous.units if retreat else [])}
    retreated = {}
    if retreat is not None:
        moved = iter(retreat.position.units[len(retreat.previous.units):])
        gone = {id(u) for u in retreat.disbanded}
        for d in retreat.previous.dislodged:
            if id(d.unit) not in gone:
                retreated[(d.unit.power, d.unit.kind, d.unit.location)] = next(moved).location
    for line in lines[1:]:
        if not line:
            continue
        m = re.fullmatch(r"You lost (\w+), taken by (\w+) with " + UNIT + r"\.", line)
        if m:
            centre = m.group(1).upper()
            assert final.centre_changes[centre] == (power, m.group(2)), line
            taker = next(u for u in nxt.units if u.province == centre)
            assert (taker.kind, taker.location) == (m.group(3), loc(m.group(4)))
            continue
        m = re.fullmatch(r"(?:Your|(\w+)) " + UNIT + r" retreated to (\S+)\.", line)
        if m:
            owner = m.group(1) or power
            key = (owner, m.group(2), loc(m.group(3)))
            assert retreated.get(key) == loc(m.group(4)), line
            if owner != power:
                # Only the player whose attack caused the retreat.
                assert occupant[province_of(key[2])].power == power, line
            continue
        m = re.fullmatch(r"You placed: (.*)\.", line)
        if m:
            # Rule 1: its own placement, to itself only.
            mine = sorted(f"{u.kind}({u.location})" for u in movement.previous.units_of(power))
            assert sorted(s[:2] + loc(s[2:-1]) + ")" for s in m.group(1).split(", ")) == mine
            continue
        m = re.fullmatch(r"Your units: (.*)\.", line)
        if m:
            mine = sorted(f"{u.kind}({u.location})" for u in nxt.units_of(power))
            said = [] if m.group(1) == "none" else m.group(1).split(", ")
            assert sorted(s[:2] + loc(s[2:-1]) + ")" for s in said) == mine, line
            continue
        m = re.fullmatch(r"Dislodged, to retreat: (.*)\.", line)
        if m:
            mine = sorted(f"{d.unit.kind}({d.unit.location})" for d in nxt.dislodged
                          if d.unit.power == power)
            assert sorted(s[:2] + loc(s[2:-1]) + ")" for s in m.group(1).split(", ")) == mine
            continue
        m = re.fullmatch(r"Your supply centres: (.*)\.", line)
        if m:
            said = [] if m.group(1) == "none" else [c.upper() for c in m.group(1).split(", ")]
            assert sorted(said) == sorted(nxt.centres.get(power, ())), line
            continue
        raise AssertionError(f"{power}'s notice: unexpected line {line!r}")


def run_oracle(outcome, orders, retreat, events, silent=frozenset()) -> None:
    public, private = render(events, StabSettings())
    if outcome.previous.phase.kind == "M":
        check_public(outcome, orders, retreat, public, set(silent))
        for power, text in private.items():
            check_private(outcome, retreat, power, text)
        return
    # A retreat phase reported on its own (retreats taken with the next season's orders):
    # only disbands, NMRs and centre counts are public.
    for line in public.splitlines()[1:]:
        assert (not line or line.endswith("[Disbanded]") or line.startswith("NMR: ")
                or line.startswith("Supply centres: ")), line
    for power, text in private.items():
        check_private(outcome, outcome, power, text)


def situations(movement) -> Counter:
    """The rule 2 situations a movement phase contains, by the oracle's reading."""
    f = Facts(movement.details)
    ph = f.ph
    seen: Counter = Counter()
    for standoff in f.self_standoffs():
        revealed = any(f.stops_attack_on(u) for u in standoff)
        seen["self-standoff revealed" if revealed else "self-standoff kept secret"] += 1
        if revealed and len(standoff) > 1:
            seen["self-standoff of several moves revealed"] += 1
    for u in range(f.n):
        attacks = [f.attack(j) for j in range(f.n) if f.failed_move(j) and f.arrives(j)
                   and f.foreign(j, u) and ph.dest[j] == ph.prov[u]]
        supports = [s for s in range(f.n) if f.lawful(s, SupportHold) and ph.target[s] == u
                    and f.given[s]]
        if attacks and not f.moved[u] and f.dislodger[u] is None and len(supports) >= max(attacks) > 1:
            seen["more supports than needed"] += 1
    for i in range(f.n):
        u = ph.at.get(ph.dest[i]) if f.failed_move(i) else None
        if u is not None and not f.foreign(i, u) and f.dislodger[u] is not None:
            seen["failed move into an own unit dislodged by another power"] += 1
    return seen


@pytest.mark.parametrize("mode", ["with_orders", "next_season"])
def test_no_leaks_over_random_turns(mode):
    revealed = 0
    seen: Counter = Counter()
    for seed in range(500):
        movement, orders, retreat, events, silent = random_turn(seed, mode)
        run_oracle(movement, orders, retreat, events, silent)
        revealed += sum(1 for e in events if e.kind == "entry")
        seen += situations(movement)
    # The random turns exercise the rules: many entries are revealed, not none, and every
    # case rule 2 tells apart for self-standoffs and supports occurs.
    assert revealed > 2500
    assert set(seen) == {"self-standoff revealed", "self-standoff kept secret",
                         "self-standoff of several moves revealed",
                         "failed move into an own unit dislodged by another power",
                         "more supports than needed"}, seen


# ------------------------------------------------ the oracle itself must catch leaks
def _fails_somewhere(mode: str = "with_orders", seeds: int = 60) -> bool:
    for seed in range(seeds):
        try:
            run_oracle(*random_turn(seed, mode))
        except AssertionError:
            return True
    return False


def _mutated_analyse(monkeypatch, change) -> None:
    import judge.variants.stab.visibility as vis

    real = vis.analyse

    def leaky(ph, reveal=None):
        a = real(ph, reveal)
        change(ph, a)
        return a

    monkeypatch.setattr(vis, "analyse", leaky)


def test_oracle_catches_every_order_revealed(monkeypatch):
    def everything(ph, a):
        for i in range(len(ph.units)):
            a.show[i] = "order"
    _mutated_analyse(monkeypatch, everything)
    assert _fails_somewhere()


def test_oracle_catches_a_hidden_dislodgement(monkeypatch):
    def hide(ph, a):
        for i in list(a.dislodged):
            a.dislodged.discard(i)
            a.show.pop(i, None)
    _mutated_analyse(monkeypatch, hide)
    assert _fails_somewhere()


def test_oracle_catches_too_many_supports(monkeypatch):
    def all_supports(ph, a):
        for i in list(a.show):
            for s in ph.supports[i]:
                a.show[s] = "order"
    _mutated_analyse(monkeypatch, all_supports)
    assert _fails_somewhere(seeds=150)


def test_oracle_catches_a_retreat_told_to_everyone(monkeypatch):
    import dataclasses

    import judge.variants.stab.visibility as vis

    real = vis._retreat_events

    def everyone(outcome):
        return [dataclasses.replace(e, audience=frozenset(BOARD.powers)) for e in real(outcome)]
    monkeypatch.setattr(vis, "_retreat_events", everyone)
    assert _fails_somewhere()


def test_oracle_catches_hidden_failed_moves(monkeypatch):
    def hide(ph, a):
        for j in a.blockers:
            if a.show.get(j) == "order":
                a.show.pop(j)
    _mutated_analyse(monkeypatch, hide)
    assert _fails_somewhere()


def test_oracle_catches_self_standoffs_revealed(monkeypatch):
    def reveal(ph, a):
        for j in a.blockers:
            a.show[j] = "order"
    _mutated_analyse(monkeypatch, reveal)
    assert _fails_somewhere(seeds=150)


def test_oracle_catches_a_half_revealed_self_standoff(monkeypatch):
    # The defect of issue 17: of two own moves that bounced, only the one whose unit
    # stopped an attack was shown.
    def half(ph, a):
        for j in sorted(a.show):
            partners = [k for k in sorted(a.show) if k != j and k in a.blockers
                        and ph.dest[k] == ph.dest[j] and ph.power[k] == ph.power[j]]
            if j in a.blockers and a.show.get(j) == "order" and partners:
                for k in partners:
                    a.show.pop(k)
                return
    _mutated_analyse(monkeypatch, half)
    assert _fails_somewhere(seeds=200)


def test_oracle_catches_an_omitted_move_into_an_own_unit_that_was_dislodged(monkeypatch):
    def omit(ph, a):
        for j in a.blockers:
            k = ph.at.get(ph.dest[j])
            if k is not None and ph.power[k] == ph.power[j] and k in a.dislodged:
                a.show.pop(j, None)
    _mutated_analyse(monkeypatch, omit)
    assert _fails_somewhere(seeds=300)


def test_oracle_catches_other_supports_than_the_rule_chooses(monkeypatch):
    from judge.variants.standard.movement import SUPPORT_HOLD

    def swap(ph, a):
        for s in [s for s, level in a.show.items() if level == "order"
                  and ph.kind[s] == SUPPORT_HOLD]:
            others = [o for o in ph.supports[ph.target[s]]
                      if ph.resolver.result[o] and o not in a.show]
            if others:
                a.show.pop(s)
                a.show[others[0]] = "order"
    _mutated_analyse(monkeypatch, swap)
    assert _fails_somewhere(seeds=300)


def test_oracle_catches_a_hidden_recipient_of_an_attack(monkeypatch):
    def hide(ph, a):
        for i in [i for i, level in a.show.items() if level == "unit" and i not in a.dislodged]:
            a.show.pop(i)
    _mutated_analyse(monkeypatch, hide)
    assert _fails_somewhere()


def test_no_leaks_in_placement_turns():
    from judge.engine.orders import Unit
    from judge.variants.stab.rules import Place

    for seed in range(60):
        rng = random.Random(seed)
        start = RULES.initial_position()
        units = []
        for power, homes in BOARD.home_centres.items():
            for h in homes:
                coasts = BOARD.fleet_locations(h) if not BOARD.is_land(h) else ()
                if coasts and rng.random() < 0.5:
                    units.append(Unit(power, "F", rng.choice(coasts)))
                else:
                    units.append(Unit(power, "A", h))
        shadow = start.__class__(start.variant, start.phase, units, start.centres)
        orders = [(u.power, Place(UnitRef(u.kind, u.location))) for u in units]
        orders += random_orders(BOARD, shadow, rng)
        movement = VARIANT.adjudicate(start, orders)
        assert sorted(map(str, movement.previous.units)) == sorted(map(str, units))
        retreat = None
        steps = [(movement, orders)]
        if movement.position.phase.kind == "R":
            retreat = VARIANT.adjudicate(movement.position, [])
            steps.append((retreat, []))
        run_oracle(movement, orders, retreat, stab_turn_events(RULES, steps))
