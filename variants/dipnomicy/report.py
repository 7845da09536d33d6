"""What the judge publishes in a Dipnomicy game, rendered from ``templates/dipnomicy/``.

* :func:`move_report`: the report after a turn, in the seed's form (summary line, who did not
  submit moves or a proposal, the moves by country, the proposals "presented in a random
  order"), then the game state;
* :func:`phase_report`: after a removal phase (P1) or an Upkeep phase (P2);
* :func:`vote_report`: the votes on each proposal, vetoes, what changed, and the new ruleset;
* :func:`ruleset_text`: the current ruleset (on request, and with every change).

These functions build plain data from engine values and hand it to the templates; every word
the judge sends is in a template, rendered by the judge's one Jinja2 environment
(:func:`judge.text.environment`; ``templates/`` is the root, so the names are
``dipnomicy/...``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Sequence
from importlib.resources import files
from typing import Any

from judge.engine.position import Position
from judge.engine.variant import FAILS, Outcome
from judge.text import environment
from judge.variants.dipnomicy.catalogue import CATALOGUE, POWERS, module_params
from judge.variants.dipnomicy.mapdata import BASE_BOARD
from judge.variants.dipnomicy.orders import notation, place
from judge.variants.dipnomicy.proposals import Proposal, Tally
from judge.variants.dipnomicy.rules import RULES, phase_days, phase_title, turn_number
from judge.variants.dipnomicy.ruleset import Ruleset

SEED_PROPOSALS_FILE = files(__package__).joinpath("seed_proposals.toml")

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth", "tenth")


def render(template: str, **context: Any) -> str:
    return environment().get_template(f"dipnomicy/{template}").render(**context)


def country(power: str) -> str:
    return power.title()


def names(powers: Iterable[str]) -> str:
    """``Italy``, ``Italy and Turkey``, ``England, Italy and Turkey``."""
    items = [country(p) for p in powers]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def seed_proposals() -> list[Proposal]:
    """The six proposals of the seed's move 1 report (P1-P6), with their rule modules."""
    data = tomllib.loads(SEED_PROPOSALS_FILE.read_text(encoding="utf-8"))
    return [Proposal.from_json(p) for p in data["proposal"]]


# The engine's standard words, as the Dipnomicy rules say them.
_REASONS = {
    "dislodged": "beaten out",
    "civil disorder: removal not ordered":
        "not reported: disbanded by the Secretary General, in alphabetical order",
}


def reason_text(reason: str) -> str:
    return _REASONS.get(reason, reason)


def order_text(canonical: str) -> str:
    """An order in the seed's notation, with P2's words for the Upkeep reports and P1's
    removal phase written as the move it is."""
    text = notation(BASE_BOARD, canonical)
    if text.startswith("BUILD "):
        return "Create " + text[len("BUILD "):]
    if text.startswith("REMOVE "):
        return "Disband " + text[len("REMOVE "):]
    return re.sub(r"^(\d*[AF] \S+) R ", r"\1 -- ", text)


def _proposal_view(p: Proposal) -> dict[str, Any]:
    return {"title": p.title, "comment": p.comment, "heading": p.heading, "text": p.text,
            "author": country(p.author)}


def game_state(position: Position) -> dict[str, Any]:
    """Units (with sizes) and owned supply centres, by country, in the seed's notation."""
    units = {}
    for power in POWERS:
        mine = sorted((u for u in position.units if u.power == power), key=lambda u: u.location)
        if mine:
            units[country(power)] = [notation(BASE_BOARD, str(u)) for u in mine]
    centres = {country(p): [place(BASE_BOARD, c) for c in sorted(cs)]
               for p, cs in sorted(position.centres.items()) if cs}
    return {"units": units, "centres": centres}


def move_report(outcome: Outcome, proposals: Sequence[Proposal], *,
                players: Iterable[str] | None = None, moved: Iterable[str] | None = None,
                proposed: Iterable[str] | None = None, vote_deadline: str | None = None,
                moves_deadline: str | None = None) -> str:
    """The move report of the turn ``outcome`` adjudicated, in the seed's form.

    ``proposals`` are in presentation order (:func:`~judge.variants.dipnomicy.proposals.
    presentation_order`); ``players`` the countries in play (default: the position's
    ``players`` key, else every country with a unit); ``moved`` those who sent moves;
    ``moved`` those who sent moves (default: those with an order in the outcome);
    ``proposed`` those who sent a proposal (default: the proposals' authors).
    ``vote_deadline`` and ``moves_deadline`` are the mail loop's texts for when voting closes
    and when the next moves are due (P5: :func:`~judge.variants.dipnomicy.rules.move_deadline_days`
    after this report is sent).
    """
    before = outcome.previous
    turn = turn_number(before.phase)
    if players is None:
        players = before.extra.get("players") or sorted({u.power for u in before.units})
    players = [p.upper() for p in players]
    if moved is None:
        moved = {r.power for r in outcome.results if not r.reason.startswith("no order")}
    moved_set = {p.upper() for p in moved}
    proposed_set = ({p.author.upper() for p in proposals} if proposed is None
                    else {p.upper() for p in proposed})
    missing_both = [p for p in POWERS if p in players and p not in moved_set | proposed_set]
    missing_moves = [p for p in POWERS if p in players and p not in moved_set
                     and p in proposed_set]
    missing_proposal = [p for p in POWERS if p in players and p in moved_set
                        and p not in proposed_set]
    missing = []
    if missing_both:
        missing.append(f"{names(missing_both)} did not submit moves or a proposal.")
    if missing_moves:
        missing.append(f"{names(missing_moves)} did not submit moves.")
    if missing_proposal:
        missing.append(f"{names(missing_proposal)} did not submit a proposal.")
    blocks: dict[str, list[str]] = {}
    failures = []
    for r in outcome.results:
        text = order_text(r.order)
        if r.result != "succeeds":
            reason = reason_text(r.reason) or r.result
            failures.append(f"{text} ({reason})")
            text = f"{text} (failed: {reason})" if r.result == FAILS else f"{text} (invalid: {reason})"
        blocks.setdefault(r.power, []).append(text)
    by_country = [blocks[p] for p in POWERS if p in blocks]
    beaten = [{"unit": notation(BASE_BOARD, str(d.unit)), "country": country(d.unit.power),
               "to": [place(BASE_BOARD, x) for x in d.retreats or ()]}
              for d in outcome.dislodged]
    nxt = outcome.position
    return render(
        "move_report.txt.j2",
        turn=turn, ordinal=_ORDINALS[turn - 1] if turn <= len(_ORDINALS) else None,
        failures=failures, missing=missing, blocks=by_country,
        proposals=[_proposal_view(p) for p in proposals],
        beaten=beaten, removal_days=phase_days(nxt) if nxt.phase.kind == "R" else None,
        merged=[notation(BASE_BOARD, str(u)) for u in outcome.disbanded],
        state=game_state(nxt), next_title=phase_title(nxt.phase),
        supply_centres=RULES.active(nxt).on("supply_centres"),
        deadline_rule=RULES.active(nxt).on("deadline"),
        vote_deadline=vote_deadline, moves_deadline=moves_deadline,
    )


def phase_report(outcome: Outcome) -> str:
    """After a removal phase (P1) or an Upkeep phase (P2): what was moved, created, disbanded."""
    lines = []
    for r in outcome.results:
        lines.append({"country": country(r.power), "order": order_text(r.order),
                      "result": r.result, "reason": reason_text(r.reason)})
    return render(
        "phase_report.txt.j2", title=phase_title(outcome.previous.phase), results=lines,
        disbanded=[f"{notation(BASE_BOARD, str(u))} ({country(u.power)})" for u in outcome.disbanded],
        built=[f"{notation(BASE_BOARD, str(u))} ({country(u.power)})" for u in outcome.built],
        changes=[{"centre": place(BASE_BOARD, c), "old": country(o) if o else None,
                  "new": country(n)} for c, (o, n) in sorted(outcome.centre_changes.items())],
        state=game_state(outcome.position), next_title=phase_title(outcome.position.phase),
    )


def _value(v: Any) -> str:
    if isinstance(v, dict):
        return "; ".join(f"{country(k)}: {', '.join(map(str, x)) if isinstance(x, list) else x}"
                         for k, x in v.items())
    return str(v)


def rule_view(rule: Any) -> dict[str, Any]:
    module = None
    if rule.module:
        spec = CATALOGUE[rule.module]
        # The parameters it runs with, defaults included, so the published rule is complete.
        effective = module_params(rule.module, rule.params)
        params = ", ".join(f"{k} = {_value(v)}" for k, v in sorted(effective.items()))
        module = f"{spec.name}" + (f" ({params})" if params else "")
    return {"number": rule.number, "title": rule.title, "text": rule.text,
            "kind": rule.kind, "module": module}


def ruleset_text(ruleset: Ruleset, heading: str | None = None) -> str:
    """The ruleset as published: every rule with its number, title, kind, module and text."""
    return render("ruleset.txt.j2", heading=heading,
                  rules=[rule_view(r) for r in ruleset.rules],
                  threshold=ruleset.setting("threshold"))


def vote_report(result: Tally, turn: int) -> str:
    """The result of the vote after turn ``turn`` and the ruleset it leaves in force."""
    rows = []
    for res in result.results:
        rows.append({
            "label": res.label, "title": res.proposal.title,
            "for": names(res.for_) if res.for_ else "", "n_for": len(res.for_),
            "against": names(res.against) if res.against else "", "n_against": len(res.against),
            "abstain": names(res.abstain) if res.abstain else "", "n_abstain": len(res.abstain),
            "non_voters": names(res.non_voters) if res.non_voters else "",
            "late": names(res.late) if res.late else "",
            "passed": res.passed, "vetoed": res.vetoed, "note": res.note,
            "action": res.proposal.action, "rule": res.rule,
        })
    return render("vote_report.txt.j2", turn=turn, rows=rows,
                  threshold=result.ruleset.setting("threshold"),
                  ruleset=ruleset_text(result.ruleset, f"The rules in force from turn {turn + 1}"))
