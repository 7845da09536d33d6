"""Dipnomicy whole games: the cycle the mail loop will drive (moves and proposals, report,
votes, new ruleset, next turn), and random games under every module checking invariants."""

from __future__ import annotations

import random

import pytest

from judge.engine.board import FLEET, province_of
from judge.engine.orders import Move, SupportHold, SupportMove, Unit, UnitRef
from judge.engine.randomgame import random_orders, random_position
from judge.variants import get_variant
from judge.variants.dipnomicy.orders import Merge, size_of
from judge.variants.dipnomicy.proposals import (
    Vote,
    close_vote,
    presentation_order,
    voters_of,
    with_ruleset,
)
from judge.variants.dipnomicy.report import move_report, phase_report, seed_proposals, vote_report
from judge.variants.dipnomicy.rules import RULES, new_game, phase_days, turn_number
from judge.variants.dipnomicy.ruleset import Rule, initial_ruleset

VARIANT = get_variant("dipnomicy")
PLAYERS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org",
           "ed@example.org", "flo@example.org"]


def test_the_cycle_of_a_game() -> None:
    position, assignment = new_game(PLAYERS, seed=99)
    countries = sorted(assignment.values())
    assert len(countries) == 6
    # Turn 1: every player moves an army if it has one, and proposes one of the seed's rules.
    lines = []
    for u in position.units:
        if u.power in countries and u.kind == "A":
            dest = sorted(VARIANT.board.army_adj[u.location])[0]
            lines.append((u.power, f"A {u.location} -- {dest}"))
    outcome = VARIANT.adjudicate_lines(position, lines)
    proposals = presentation_order(seed_proposals(), position.extra["seed"], 1)
    report = move_report(outcome, proposals, moved=countries,
                         vote_deadline="Mon 23 Nov 2026 07:00 UTC")
    absent = [c for c in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
              if c not in countries]
    assert absent[0].title() + " did not submit" not in report  # not a player: not named
    assert "Votes are due by Mon 23 Nov 2026 07:00 UTC." in report
    # Voting: everyone for P1 and P2, against the rest; one player does not vote at all.
    votes = [Vote(c, f"P{k}", "FOR" if k <= 2 else "AGAINST")
             for c in countries[1:] for k in range(1, 7)]
    result, turn2 = close_vote(outcome.position, proposals, votes)
    assert voters_of(turn2) == countries
    assert [r.passed for r in result.results] == [True, True, False, False, False, False]
    assert all(r.non_voters == [countries[0]] for r in result.results)
    text = vote_report(result, 1)
    assert f"Did not vote: {countries[0].title()}." in text
    enacted = {proposals[0].module, proposals[1].module}
    active = RULES.active(turn2)
    assert all(active.on(m) for m in enacted)
    assert turn_number(turn2.phase) == 2
    # The next position's JSON carries the new rules, and reads back the same.
    again = VARIANT.read_position(VARIANT.write_position(turn2))
    assert RULES.ruleset(again) == result.ruleset


def _random_extras(position, rng: random.Random) -> list[tuple[str, object]]:
    """Double moves for some fleets and merges for some pairs, as players would send them."""
    board = RULES.turn_rules(position).board
    extras = []
    at = {u.province: u for u in position.units}
    used: set[str] = set()
    for u in position.units:
        if u.province in used or rng.random() < 0.7:
            continue
        if u.kind == FLEET:
            for loc in sorted(board.fleet_adj[u.location]):
                ends = sorted(e for e in board.fleet_adj[loc]
                              if e.partition("/")[0] not in board.supply_centres
                              and e.partition("/")[0] != u.province)
                if ends:
                    extras.append((u.power, Move(UnitRef(u.kind, u.location), rng.choice(ends),
                                                 False, (loc.partition("/")[0],))))
                    used.add(u.province)
                    break
        else:
            for n in sorted(board.neighbours(u.province)):
                other = at.get(n)
                if other and other.power == u.power and size_of(other) == size_of(u) \
                        and n not in used:
                    extras.append((u.power, Merge(UnitRef(u.kind, u.location),
                                                  UnitRef(other.kind, other.location))))
                    used |= {u.province, n}
                    break
    return extras


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("everything", [True, False])
def test_random_games_keep_the_board_sound(seed: int, everything: bool) -> None:
    rng = random.Random(seed)
    position = RULES.initial_position(seed=seed)
    if everything:
        proposals = seed_proposals()
        votes = [Vote(p, f"P{k + 1}", "FOR") for p in voters_of(position)
                 for k in range(len(proposals))]
        _, position = close_vote(position, proposals, votes)
    kinds = []
    for _ in range(40):
        kind = position.phase.kind
        kinds.append(kind)
        if kind == "M":
            orders = random_orders(VARIANT.board, position, rng) + _random_extras(position, rng)
        elif kind == "R":
            orders = []
            for d in position.dislodged:
                if d.retreats and rng.random() < 0.7:
                    orders.append((d.unit.power, VARIANT.read_order(
                        position, d.unit.power, f"{d.unit.kind} {d.unit.location} -- {d.retreats[0]}")))
        else:
            orders = []
        outcome = VARIANT.adjudicate(position, orders)
        nxt = outcome.position
        provinces = [u.province for u in nxt.units]
        assert len(provinces) == len(set(provinces)), "two units in one territory"
        assert all(size_of(u) >= 1 for u in nxt.units)
        if not everything:
            # The base game: nothing is ever beaten out, no supply centres, no sizes.
            assert not outcome.dislodged and nxt.phase.kind == "M" and not nxt.centres
            assert all(type(u) is Unit for u in nxt.units)
        if kind == "M":
            report = move_report(outcome, [])
            assert report.count("\n") > len(nxt.units)
            for r in outcome.results:
                if r.result == "succeeds" and r.order.count(" - ") == 2 and r.order.startswith("F"):
                    end = r.order.split(" - ")[-1].partition("/")[0]
                    assert end not in RULES.turn_rules(position).board.supply_centres
        else:
            assert phase_report(outcome)
            assert phase_days(position) is not None
        data = VARIANT.write_position(nxt)
        assert VARIANT.write_position(VARIANT.read_position(data)) == data
        position = nxt
    if everything:
        assert "R" in kinds and "A" in kinds


def _compare_with_standard(seed: int, modules: tuple[str, ...], select) -> int:
    """Adjudicate random orders (those ``select`` keeps) in Dipnomicy with ``modules`` in force
    and in standard Diplomacy; assert they agree; return how many orders were compared."""
    standard = get_variant("standard")
    rng = random.Random(seed)
    base = random_position(standard.board, rng, 28)
    orders = select(random_orders(standard.board, base, rng))
    extra = [Rule(100 + k, m, m, module=m) for k, m in enumerate(modules)]
    ruleset = initial_ruleset()
    position = with_ruleset(RULES.initial_position(), ruleset.with_rules([*ruleset.rules, *extra]))
    position.units, position.centres = list(base.units), {}
    ours = VARIANT.adjudicate(position, orders)
    theirs = standard.adjudicate(base, orders)
    assert [(r.order, r.result) for r in ours.results] == \
        [(r.order, r.result) for r in theirs.results]
    assert sorted(str(d.unit) for d in ours.dislodged) == \
        sorted(str(d.unit) for d in theirs.dislodged)
    return len(orders)


@pytest.mark.parametrize("seed", range(40))
def test_the_base_game_is_standard_diplomacy_without_support(seed: int) -> None:
    # Without supports, standard Diplomacy never dislodges either: the two must agree.
    def no_support(orders):
        return [(p, o) for p, o in orders if not isinstance(o, (SupportHold, SupportMove))]

    assert _compare_with_standard(seed, (), no_support) > 0


@pytest.mark.parametrize("seed", range(40))
def test_p1_is_standard_support_when_no_support_could_be_cut(seed: int) -> None:
    # Leave out every move into a supporting unit's territory: standard support is then never
    # cut, and P1 ("without a mechanism for cutting support") must agree with it.
    def uncut(orders):
        supporters = {o.unit.province for _, o in orders
                      if isinstance(o, (SupportHold, SupportMove))}
        return [(p, o) for p, o in orders
                if not (isinstance(o, Move) and province_of(o.destination) in supporters)]

    assert _compare_with_standard(seed, ("support",), uncut) > 0
