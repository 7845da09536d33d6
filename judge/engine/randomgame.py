"""Random legal movement phases, for property tests and benchmarks.

Deterministic given the ``random.Random`` passed in. The orders are legal for the units they
are given to and look like real play: many moves, supports that usually match a real move or a
holding unit, and convoys along real sea routes.
"""

from __future__ import annotations

import random

from judge.engine.board import ARMY, FLEET, Board, province_of
from judge.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove, Unit, UnitRef
from judge.engine.position import Phase, Position


def random_position(board: Board, rng: random.Random, units: int) -> Position:
    """``units`` units on distinct provinces, of random powers and suitable types."""
    provinces = sorted(board.provinces)
    rng.shuffle(provinces)
    placed: list[Unit] = []
    for prov in provinces[:units]:
        p = board.provinces[prov]
        if p.kind == "sea":
            kind = FLEET
        elif p.kind == "land":
            kind = ARMY
        else:
            kind = rng.choice((ARMY, FLEET))
        location = rng.choice(board.fleet_locations(prov)) if kind == FLEET else prov
        placed.append(Unit(rng.choice(board.powers), kind, location))
    centres: dict[str, set[str]] = {}
    for c in sorted(board.supply_centres):
        owner = rng.choice(board.powers)
        centres.setdefault(owner, set()).add(c)
    return Position(board.name, Phase("S", 1901, "M"), placed, centres)


def random_orders(board: Board, position: Position, rng: random.Random) -> list[tuple[str, Order]]:
    """One legal order per unit (some units are left without orders, as real players do)."""
    units = position.units
    at = {u.province: u for u in units}
    moves: dict[str, str] = {}  # origin province -> destination location
    orders: dict[str, Order] = {}

    def ref(u: Unit) -> UnitRef:
        return UnitRef(u.kind, u.location)

    # Moves first, so that supports can match them.
    for u in units:
        if rng.random() < 0.5:
            adj = sorted(board.army_adj[u.location] if u.kind == ARMY else board.fleet_adj[u.location])
            if adj:
                dest = rng.choice(adj)
                moves[u.province] = dest
                orders[u.province] = Move(ref(u), dest)
    # Convoys: an army on a coast next to a fleet at sea may be carried one sea further.
    for u in units:
        if u.kind != ARMY or u.province in moves or rng.random() > 0.3:
            continue
        for sea in sorted(board.neighbours(u.province)):
            fleet = at.get(sea)
            if fleet is None or fleet.kind != FLEET or not board.is_sea(sea) or sea in orders:
                continue
            coasts = sorted(p for p in board.fleet_reach[fleet.location]
                            if p != u.province and board.provinces[p].kind == "coast")
            if not coasts:
                continue
            dest = rng.choice(coasts)
            moves[u.province] = dest
            orders[u.province] = Move(ref(u), dest, via_convoy=True)
            orders[sea] = Convoy(ref(fleet), ref(u), dest)
            break
    # Supports: mostly for a real neighbouring move or a holding neighbour.
    for u in units:
        if u.province in orders or rng.random() < 0.25:
            continue
        options: list[Order] = []
        for other in units:
            if other is u:
                continue
            goes_to = moves.get(other.province)
            if goes_to is not None:
                dp = province_of(goes_to)
                if dp != u.province and board.can_reach(u.kind, u.location, dp):
                    options.append(SupportMove(ref(u), ref(other),
                                               goes_to if other.kind == FLEET else dp))
            elif board.can_reach(u.kind, u.location, other.province):
                options.append(SupportHold(ref(u), ref(other)))
        if options:
            orders[u.province] = rng.choice(options)
        elif rng.random() < 0.5:
            orders[u.province] = Hold(ref(u))
    return [(at[p].power, o) for p, o in orders.items()]
