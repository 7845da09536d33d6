"""The Stab! visibility rule: from the full adjudication, the events each reader may see.

Rule 2 decides what the public report shows of a movement phase, rule 3 what the Winter
report shows, rule 5 what each player is told privately, rule 6 the NMRs. Everything is
worked out from the standard :class:`~judge.variants.standard.movement.MovementPhase` the outcome
keeps (``Outcome.details``): per-unit decisions, support lists, dislodgers, convoy routes and
void (mis-)orders. Nothing here renders text; :mod:`judge.variants.stab.report` does that from the
events, through templates.

Public movement events are ``entry`` events, one per unit the report names, with ``show``:

* ``"order"``: the whole order (a failed move and its supports, a revealed
  successful move and its supports, the supports a standing unit needed);
* ``"cut"``: only that the unit's support was cut (``F(Pic)*S``), never what it supported;
* ``"unit"``: only that the unit exists (it received an unsuccessful attack, or was
  dislodged and nothing more of it is revealed);

and ``dislodged`` when it was dislodged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judge.engine.events import Event, only
from judge.engine.orders import Convoy, Move, Order, SupportHold, SupportMove, Unit
from judge.engine.position import Position
from judge.engine.variant import Outcome
from judge.variants.stab.rules import (
    STAB_ORDERS,
    IfRetreated,
    Place,
    Reveal,
    StabRules,
)
from judge.variants.standard.movement import MOVE, SUPPORT_HOLD, SUPPORT_MOVE, MovementPhase

ORDER, CUT, EXISTS = "order", "cut", "unit"
_RANK = {None: 0, EXISTS: 1, CUT: 2, ORDER: 3}
_LAST = 10**6  # sequence number of units that had no order: after all ordered units


@dataclass(frozen=True, slots=True)
class Analysis:
    """What rule 2 reveals of one movement phase, unit by unit (indices of ``phase.units``)."""

    show: dict[int, str]
    dislodged: set[int]
    blockers: dict[int, set[int]]  # failed move -> the units that made it fail
    revealed_moves: set[int]


def order_fields(unit: Unit, order: Order | None) -> dict:
    """An order as plain fields for templates: type, target unit, destination."""
    fields: dict = {"type": "hold"}
    if isinstance(order, Move):
        fields = {"type": "move", "destination": order.destination}
    elif isinstance(order, SupportHold):
        fields = {"type": "support_hold", "target_kind": order.target.kind,
                  "target": order.target.location}
    elif isinstance(order, SupportMove):
        fields = {"type": "support_move", "target_kind": order.target.kind,
                  "target": order.target.location, "destination": order.destination}
    elif isinstance(order, Convoy):
        fields = {"type": "convoy", "target_kind": order.target.kind,
                  "target": order.target.location, "destination": order.destination}
    return fields


def analyse(ph: MovementPhase, reveal: Mapping[str, Sequence[str]] | None = None
            ) -> Analysis:
    """Apply rule 2 to an adjudicated movement phase.

    ``reveal`` maps a power to the supporting spaces it elected to reveal first (rule 2's
    exception); without it, supports are revealed from other players first, then by space.
    """
    r = ph.resolver
    res = r.result
    n = len(ph.units)
    power, kind = ph.power, ph.kind
    moved = [ph.moved(i) for i in range(n)]
    dislodger = [ph.dislodger(i) for i in range(n)]
    void = ph.void

    # Why each failed move failed: the units whose strength stopped it (a successful move,
    # or a unit kept in place by a self-standoff, that stopped another player's move is
    # revealed).
    blockers: dict[int, set[int]] = {}
    attack: dict[int, int] = {}
    for j in range(n):
        if kind[j] != MOVE or moved[j] or j in void:
            continue
        a = attack[j] = ph.attack_strength(j, r)
        d = ph.dest_of(j)
        b: set[int] = set()
        if not ph.has_path(j, r):
            # A broken convoy: whoever dislodged a fleet on the route stopped it.
            b = {by for c in ph.convoy_fleets[j] if (by := dislodger[c]) is not None}
        else:
            k = ph.at.get(d)
            if k is not None and k != j:
                if ph.head_to_head(j, k):
                    if a <= ph.defend_strength(k, r):
                        b.add(k)
                elif not moved[k] and (a == 0 or a <= ph.hold_strength(d, r)):
                    b.add(k)
            if a > 0:
                for m in ph.moves_into.get(d, ()):
                    if m != j and a <= ph.prevent_strength(m, r):
                        b.add(m)
        blockers[j] = b

    def stops_foreign(i: int) -> bool:
        """Unit ``i`` made another player's move fail."""
        return any(i in b and power[m] != power[i] for m, b in blockers.items())

    def arrives(j: int) -> bool:
        """A move that reaches its destination (a broken convoy attacks nothing)."""
        return kind[j] == MOVE and j not in void and ph.has_path(j, r)

    def contested(j: int) -> bool:
        """Failed move ``j`` is no self-standoff: another power's unit took part at its
        destination (it was there and did not leave, or it entered or tried to enter the
        space), or another power broke its convoy."""
        if not arrives(j):
            return True
        d = ph.dest_of(j)
        k = ph.at.get(d)
        if k is not None and power[k] != power[j] and (not moved[k] or ph.dest[k] == ph.prov[j]):
            return True
        return any(power[m] != power[j] and arrives(m) for m in ph.moves_into[d])

    # Rule 2: every failed move is reported, except a self-standoff. A self-standoff (the
    # failed moves into one space, or against each other, that only one power took part in)
    # is revealed whole when one of its units made another player's move fail: it kept its
    # place because of the standoff, and that stopped an attack on it.
    revealed_fail = {j for j in blockers if contested(j)}
    for standoff in _self_standoffs(ph, [j for j in blockers if j not in revealed_fail]):
        if any(stops_foreign(j) for j in standoff):
            revealed_fail |= standoff
    revealed_ok = {i for i in range(n) if moved[i] and (
        any(dislodger[k] == i for k in range(n)) or stops_foreign(i))}

    show: dict[int, str] = {}

    def raise_to(i: int, level: str) -> None:
        if _RANK[level] > _RANK[show.get(i)]:
            show[i] = level

    # Rule 2 reveals a move's supports; it says nothing of convoys, so a convoying fleet is
    # shown only if something else reveals it (it is attacked or dislodged), and then only
    # as a unit.
    for j in revealed_fail | revealed_ok:
        raise_to(j, ORDER)
        for s in ph.supports[j]:
            raise_to(s, ORDER)

    # The recipients of the reported unsuccessful attacks (another power's, or a revealed
    # self-standoff's): their existence, a cut support, and the supports a standing one
    # needed to withstand the attack.
    attackers_of: dict[int, list[int]] = {}
    for j in revealed_fail:
        k = ph.at.get(ph.dest_of(j))
        if k is not None and k != j and not moved[k] and arrives(j):
            attackers_of.setdefault(k, []).append(j)
    prefs = reveal or {}
    for k, js in attackers_of.items():
        if kind[k] in (SUPPORT_HOLD, SUPPORT_MOVE) and k not in void and not res[k]:
            raise_to(k, CUT)
        else:
            raise_to(k, EXISTS)
        if kind[k] == MOVE:
            continue
        needed = max(attack[j] for j in js) - 1
        given = [s for s in ph.supports[k] if res[s]]
        chosen = list(prefs.get(power[k], ()))
        given.sort(key=lambda s: (
            chosen.index(ph.prov[s]) if ph.prov[s] in chosen else len(chosen),
            power[s] == power[k], ph.prov[s]))
        for s in given[:max(0, needed)]:
            raise_to(s, ORDER)

    dislodged = {i for i in range(n) if dislodger[i] is not None}
    for i in dislodged:
        if kind[i] in (SUPPORT_HOLD, SUPPORT_MOVE) and i not in void:
            raise_to(i, CUT)  # a dislodged unit's support is always cut
        else:
            raise_to(i, EXISTS)
    return Analysis(show, dislodged, blockers, revealed_fail | revealed_ok)


def _self_standoffs(ph: MovementPhase, moves: Sequence[int]) -> list[set[int]]:
    """``moves`` (failed moves of self-standoffs) as standoffs: the moves into one space, and
    moves into each other's space, belong to the same one."""
    group = {j: {j} for j in moves}
    for j in moves:
        for k in moves:
            if group[j] is not group[k] and (ph.dest[j] == ph.dest[k] or (
                    ph.dest[j] == ph.prov[k] and ph.dest[k] == ph.prov[j])):
                merged = group[j] | group[k]
                for m in merged:
                    group[m] = merged
    return list({id(g): g for g in group.values()}.values())


def _order_seq(ph: MovementPhase, orders: Sequence[tuple[str, Order]]) -> list[int]:
    """For each unit, where its order came in the orders given (the last one counts), so
    that the report lists a power's orders as the player wrote them."""
    seq = [_LAST + i for i in range(len(ph.units))]
    for k, (pw, order) in enumerate(orders):
        if isinstance(order, IfRetreated):
            order = order.order
        if isinstance(order, STAB_ORDERS):
            continue
        i = ph.at.get(order.unit.province)  # type: ignore[union-attr]
        if i is not None and ph.power[i] == pw:
            seq[i] = k
    return seq


def powers_due(rules: StabRules, previous: Position) -> set[str]:
    """The powers that had something to order in the phase that starts at ``previous``."""
    kind = previous.phase.kind
    if kind == "R" and rules.retreats_are_automatic(previous):
        return set()  # the retreats were sent with the movement orders
    due = set()
    for p in previous.powers():
        if kind == "A":
            if rules.adjustment_count(previous, p) != 0:
                due.add(p)
        elif (kind == "M" and rules.placement_pending(previous)) or rules.units_to_order(previous, p):
            due.add(p)  # (every power places its units with its first orders)
    return due


def nmr_events(rules: StabRules, steps: Sequence[tuple[Outcome, Sequence[tuple[str, Order]]]]
               ) -> list[Event]:
    """Rule 6: a power that had something to order in the turn and sent nothing at all
    (a turn may span phases: retreats and adjustments sent with the next season's orders)."""
    due: set[str] = set()
    sent: set[str] = set()
    for outcome, orders in steps:
        due |= powers_due(rules, outcome.previous)
        sent |= {p for p, _ in orders}
    return [Event("nmr", {"power": p}) for p in sorted(due - sent)]


def _unit_fields(u: Unit) -> dict:
    return {"power": u.power, "kind": u.kind, "location": u.location}


def stab_events(rules: StabRules, outcome: Outcome, orders: Sequence[tuple[str, Order]] = (),
                nmr: bool = True) -> list[Event]:
    """Every event of one adjudicated Stab! phase, each with its audience.

    ``orders`` are the orders as given to ``adjudicate`` (the report follows their order and
    the players' REVEAL instructions). The mail loop renders these with
    :func:`judge.variants.stab.report.render`; public events make the game report, events for one
    power its private notice.
    """
    prev, nxt = outcome.previous, outcome.position
    events: list[Event] = [Event("phase", {"phase": str(prev.phase), "next": str(nxt.phase)})]
    kind = prev.phase.kind
    if kind == "M":
        events += _movement_events(outcome, orders)
    elif kind == "R":
        events += _retreat_events(outcome)
    else:
        events += _adjustment_events(outcome)
    if nmr:
        events += nmr_events(rules, [(outcome, orders)])
    events += _centre_events(outcome)
    # Rule 5: every season, each player privately learns where all its units are.
    for p in sorted(set(prev.powers()) | set(nxt.powers())):
        units = [_unit_fields(u) for u in sorted(nxt.units_of(p), key=lambda u: u.location)]
        waiting = [_unit_fields(d.unit) for d in nxt.dislodged if d.unit.power == p]
        events.append(Event("units", {"power": p, "units": units, "dislodged": waiting},
                            only(p)))
    return events


def _movement_events(outcome: Outcome, orders: Sequence[tuple[str, Order]]) -> list[Event]:
    ph = outcome.details
    if not isinstance(ph, MovementPhase):
        raise ValueError("a Stab! movement outcome must keep its MovementPhase in details")
    events: list[Event] = []
    # Rule 1: a power's placement is told to that power only, never published.
    for pw in sorted({pw for pw, o in orders if isinstance(o, Place)}):
        placed = [_unit_fields(u) for u in sorted(outcome.previous.units_of(pw),
                                                  key=lambda u: u.location)]
        events.append(Event("placed", {"power": pw, "units": placed}, only(pw)))
    reveal: dict[str, list[str]] = {}
    for pw, order in orders:
        if isinstance(order, Reveal):
            reveal.setdefault(pw, []).extend(order.locations)
    a = analyse(ph, reveal)
    seq = _order_seq(ph, orders)
    for i in sorted(a.show, key=lambda i: (seq[i], ph.units[i].location)):
        u = ph.units[i]
        fields = {**_unit_fields(u), "show": a.show[i], "dislodged": i in a.dislodged,
                  "seq": seq[i]}
        if a.show[i] == ORDER:
            fields["order"] = order_fields(u, ph.orders[i])
        elif a.show[i] == CUT:
            fields["order"] = {"type": "support_cut"}
        events.append(Event("entry", fields))
    return events


def _retreat_events(outcome: Outcome) -> list[Event]:
    prev, nxt = outcome.previous, outcome.position
    events: list[Event] = []
    gone = {id(u) for u in outcome.disbanded}
    retreated = iter(nxt.units[len(prev.units):])
    occupant = {u.province: u for u in prev.units}
    for d in prev.dislodged:
        attacker = occupant.get(d.unit.province)
        if id(d.unit) in gone:
            # Rule 2: a disband is reported, whether chosen, for lack of an order or because
            # the retreat failed; which of these it was is not said (rule 4).
            events.append(Event("disbanded", _unit_fields(d.unit)))
            continue
        to = next(retreated)
        # Rule 2/5: the destination goes to the retreating player and to the player whose
        # attack caused the retreat, no one else.
        audience = {d.unit.power} | ({attacker.power} if attacker else set())
        events.append(Event("retreat", {**_unit_fields(d.unit), "to": to.location,
                                        "attacker": attacker.power if attacker else None},
                            frozenset(audience)))
    return events


def _adjustment_events(outcome: Outcome) -> list[Event]:
    # Builds and removals are hidden movement too: only their owner hears of them.
    events = [Event("built", _unit_fields(u), only(u.power)) for u in outcome.built]
    events += [Event("removed", _unit_fields(u), only(u.power)) for u in outcome.disbanded]
    return events


def _centre_events(outcome: Outcome) -> list[Event]:
    """Rule 5: centres lost that move, to the loser only; rule 3: after the Fall, the centre
    counts for everyone and each power's own centres to itself."""
    prev, nxt = outcome.previous, outcome.position
    events: list[Event] = []
    at = {u.province: u for u in nxt.units}
    for centre, (old, new) in sorted(outcome.centre_changes.items()):
        if old is None:
            continue
        taker = at.get(centre)
        events.append(Event("centre_lost", {
            "power": old, "centre": centre, "taken_by": new,
            "unit": _unit_fields(taker) if taker else None}, only(old)))
    if prev.phase.season == "F" and prev.phase.kind in "MR" and nxt.phase.kind != "R":
        powers = sorted(set(prev.powers()) | set(nxt.powers()) | set(nxt.centres))
        counts = {p: len(nxt.centres.get(p, ())) for p in powers}
        events.append(Event("centre_count", {"counts": counts}))
        for p in powers:
            events.append(Event("centres_owned", {"power": p,
                                                  "centres": sorted(nxt.centres.get(p, ()))},
                                only(p)))
    return events
