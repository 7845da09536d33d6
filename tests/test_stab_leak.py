"""Leak test: over many random Stab! turns, every line of the public report and of each
private notice is read back and checked against the full adjudication.

The checks here are an oracle written from the rules' text, independently of
``judge.variants.stab.visibility``: each entry must be true (the unit is there, of that power and
type, with that order) and allowed (some clause of rules 2-6 reveals it to that reader); what
the rules require to be revealed must be there; any line the oracle cannot read fails the
test, so nothing can slip through in free text.
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
from judge.variants.stab.report import StabSettings, render, stab_turn_events
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
def random_turn(seed: int, mode: str):
    rng = random.Random(seed)
    position = random_position(BOARD, rng, rng.randint(18, 45))
    position.variant = "stab"
    position.phase = Phase(rng.choice("SF"), 1903, "M")
    position.extra["retreats"] = mode
    orders: list[tuple[str, Order]] = random_orders(BOARD, position, rng)
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
        r = ph.resolver
        n = len(ph.units)
        self.index = {u.location: i for i, u in enumerate(ph.units)}
        self.moved = [ph.moved(i) for i in range(n)]
        self.dislodger = [ph.dislodger(i) for i in range(n)]
        self.given = [r.result[i] for i in range(n)]

    def is_move(self, i: int) -> bool:
        return isinstance(self.ph.orders[i], Move) and i not in self.ph.void

    def failed_move(self, i: int) -> bool:
        return self.is_move(i) and not self.moved[i]

    def foreign_contact(self, i: int) -> bool:
        """A failed move touched another power's unit (rule 2: contested; not a
        self-standoff): a foreign unit stayed in, or also moved to, its destination, a foreign
        move into its own province failed, or its convoy was broken."""
        ph = self.ph
        dest = ph.dest[i]
        for k in range(len(ph.units)):
            if ph.power[k] == ph.power[i]:
                continue
            if ph.prov[k] == dest and not self.moved[k]:
                return True
            if self.is_move(k) and ph.dest[k] == dest:
                return True
            if self.failed_move(k) and ph.dest[k] == ph.prov[i]:
                return True
            if ph.prov[k] == dest and self.is_move(k) and ph.dest[k] == ph.prov[i]:
                return True
        return bool(ph.convoyed[i] and any(self.dislodger[c] is not None
                                           for c in ph.convoy_fleets[i]))

    def stops_foreign(self, i: int) -> bool:
        """A successful move that dislodged a unit or beat another power's move."""
        ph = self.ph
        if any(d == i for d in self.dislodger):
            return True
        return any(ph.power[k] != ph.power[i] and self.failed_move(k)
                   and (ph.dest[k] == ph.dest[i] or ph.dest[k] == ph.prov[i])
                   for k in range(len(ph.units)))


def order_text(order) -> str:
    from judge.variants.stab.report import loc_text, unit_text

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


def check_public(movement, orders, retreat, public: str, silent: set[str]) -> None:
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

    # Every entry is true and allowed.
    def attacked_by_shown_foreign_failure(i: int) -> list[int]:
        return [k for k in shown if ph.power[k] != ph.power[i] and f.failed_move(k)
                and ph.dest[k] == ph.prov[i] and not f.moved[i]
                and shown[k][0] == order_text(ph.orders[k])]

    for i, (text, dislodged) in shown.items():
        order = ph.orders[i]
        assert dislodged == (f.dislodger[i] is not None), text
        if isinstance(order, (Move, SupportHold, SupportMove, Convoy)) and text == order_text(order):
            # The whole order is shown: it must be a lawful one the rules reveal.
            assert i not in ph.void, f"{text}: a mis-order revealed"
            if isinstance(order, Move):
                if f.moved[i]:
                    assert f.stops_foreign(i), f"{text}: successful move revealed for nothing"
                else:
                    assert f.foreign_contact(i), f"{text}: self-standoff or uncontested failure"
            elif isinstance(order, Convoy):
                raise AssertionError(f"{text}: rule 2 reveals no convoy order")
            elif isinstance(order, SupportMove):
                t = ph.target[i]
                assert t >= 0 and t in shown and shown[t][0] == order_text(ph.orders[t]), \
                    f"{text}: supports a move that is not revealed"
            else:
                t = ph.target[i]
                assert f.given[i], f"{text}: a cut support shown as given"
                assert attacked_by_shown_foreign_failure(t), \
                    f"{text}: supports a unit no revealed attack failed against"
            continue
        if text.endswith("*S"):
            assert isinstance(order, (SupportHold, SupportMove)) and i not in ph.void, text
            assert not f.given[i], f"{text}: support was not cut"
            assert dislodged or attacked_by_shown_foreign_failure(i), text
            continue
        # Existence only.
        assert re.fullmatch(UNIT, text), f"{text}: not what the unit was ordered"
        assert dislodged or attacked_by_shown_foreign_failure(i), f"{text}: revealed for nothing"

    # Supports of a standing unit: no more than needed to withstand the attack.
    per_target = Counter(ph.target[i] for i, (text, _) in shown.items()
                         if isinstance(ph.orders[i], SupportHold) and text == order_text(ph.orders[i]))
    for t, count in per_target.items():
        strongest = max(ph.attack_strength(k, ph.resolver) for k in attacked_by_shown_foreign_failure(t))
        assert count <= strongest - 1, f"{ph.units[t]}: {count} supports shown, {strongest} attack"

    # What the rules require is there.
    for i in range(len(ph.units)):
        if f.dislodger[i] is not None:
            assert i in shown and shown[i][1], f"{ph.units[i]} dislodged but not reported"
            assert f.dislodger[i] in shown, f"the move dislodging {ph.units[i]} not reported"
        if f.failed_move(i) and any(ph.prov[k] == ph.dest[i] and not f.moved[k]
                                    and ph.power[k] != ph.power[i] for k in range(len(ph.units))):
            assert i in shown and shown[i][0] == order_text(ph.orders[i]), \
                f"failed attack {ph.orders[i]} not reported"
        # Bounced with another power's move into the same space: contested, so reported
        # (unless its own unit stayed there: a move into one's own unit is a self-standoff).
        own = ph.at.get(ph.dest[i])
        own_stays = own is not None and ph.power[own] == ph.power[i] and not f.moved[own]
        if f.failed_move(i) and not own_stays and any(
                f.is_move(k) and ph.dest[k] == ph.dest[i] and ph.power[k] != ph.power[i]
                for k in range(len(ph.units))):
            assert i in shown and shown[i][0] == order_text(ph.orders[i]), \
                f"standoff {ph.orders[i]} with another power not reported"
        # A reported failed move comes with all its supports.
        if f.failed_move(i) and i in shown and shown[i][0] == order_text(ph.orders[i]):
            for s in ph.supports[i]:
                assert s in shown and shown[s][0] == order_text(ph.orders[s]), \
                    f"support {ph.orders[s]} of a reported failed move not reported"
    # Rule 6: a power with units that sent no order at all.
    sent = {p for p, _ in orders}
    assert nmr_seen == {p for p in movement.previous.powers()
                        if movement.previous.units_of(p) and p not in sent}
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


@pytest.mark.parametrize("mode", ["with_orders", "next_season"])
def test_no_leaks_over_random_turns(mode):
    revealed = 0
    for seed in range(400):
        movement, orders, retreat, events, silent = random_turn(seed, mode)
        run_oracle(movement, orders, retreat, events, silent)
        revealed += sum(1 for e in events if e.kind == "entry")
    # The random turns exercise the rules: many entries are revealed, not none.
    assert revealed > 2000


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
