"""Proposals and votes: pure data and pure functions, for the mail loop to call.

The cycle of a turn, and the function for each step:

1. A player sends moves and at most one :class:`Proposal`; :meth:`Proposal.check` says at once
   whether it is a legal rule change under the ruleset in force (the reply can quote the
   reason).
2. After the move deadline the game is adjudicated (``Variant.adjudicate_lines``) and the
   proposals are put in a random order drawn from the game's seed (:func:`presentation_order`);
   the move report (:func:`judge.variants.dipnomicy.report.move_report`) numbers them P1, P2, ...
3. Players vote (:class:`Vote`: ``VOTE P1 FOR``, :func:`parse_vote`); the SG may veto
   (:class:`Veto`) and assign rule numbers.
4. When voting closes, :func:`tally` counts the votes against the game's threshold and
   produces the new ruleset; :func:`with_ruleset` writes it into the position of the next
   turn; :func:`judge.variants.dipnomicy.report.vote_report` publishes the result and the ruleset.

Nothing here reads a clock: a vote that arrived after the vote deadline is given with
``late=True`` by the caller, and is reported but not counted.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from judge.engine.position import Position
from judge.variants.dipnomicy.catalogue import ParameterError, module_params
from judge.variants.dipnomicy.rules import with_home_ownership
from judge.variants.dipnomicy.ruleset import Rule, Ruleset

ACTIONS = ("enact", "repeal", "amend", "transmute")
CHOICES = ("FOR", "AGAINST", "ABSTAIN")


class ProposalError(ValueError):
    """A proposal that is not one legal rule change, or a vote that cannot be read."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """Exactly one rule change, as a player proposed it.

    ``action``: ``enact`` a new mutable rule (``text`` is its text, ``title`` its title);
    ``repeal`` or ``amend`` the mutable rule ``rule`` (an amendment replaces its text, and its
    module when one is given; ``params`` alone changes the module's parameters); or
    ``transmute`` rule ``rule`` (mutable to immutable or back). ``module``/``params`` name
    the rule module that makes the rule real (``catalogue.CATALOGUE``); a proposal without
    one is text the SG enforces, or attaches a module to later (:func:`attach_module`).
    ``comment`` is the SG's bracketed comment; ``lead`` the opening line as the player wrote
    it ("Enact a mutable rule:"), generated when absent.
    """

    author: str
    title: str
    text: str = ""
    action: str = "enact"
    rule: int | None = None
    module: str | None = None
    params: Mapping[str, Any] | None = None
    comment: str | None = None
    lead: str | None = None

    @property
    def heading(self) -> str:
        if self.lead:
            return self.lead
        if self.action == "enact":
            return "Enact the following mutable rule:"
        if self.action == "repeal":
            return f"Repeal rule {self.rule}."
        if self.action == "amend":
            return f"Amend rule {self.rule} to read:"
        return f"Transmute rule {self.rule}."

    def check(self, ruleset: Ruleset) -> None:
        """Raise :class:`ProposalError` unless this is one legal rule change of ``ruleset``."""
        if self.action not in ACTIONS:
            raise ProposalError(f"a proposal enacts, repeals, amends or transmutes one rule, "
                                f"not {self.action!r}")
        if not self.title.strip():
            raise ProposalError("a proposal needs a title")
        if self.action == "enact":
            if self.rule is not None:
                raise ProposalError("a new rule gets its number from the Secretary General")
            if not self.text.strip():
                raise ProposalError("a proposal to enact a rule needs the rule's text")
        else:
            if self.rule is None:
                raise ProposalError(f"say which rule to {self.action}")
            target = ruleset.rule(self.rule)
            if target is None:
                raise ProposalError(f"there is no rule {self.rule}")
            if self.action in ("repeal", "amend") and not target.mutable:
                raise ProposalError(f"rule {self.rule} is immutable: it can only be transmuted")
            if self.action == "amend" and not (self.text.strip() or self.module or self.params):
                raise ProposalError("an amendment needs the rule's new text, module or parameters")
            if self.action in ("repeal", "transmute") and (self.module or self.params):
                raise ProposalError(f"a proposal to {self.action} a rule names no module")
        if self.module or self.params:
            module = self.module
            if module is None:
                target = ruleset.rule(self.rule or 0)
                module = target.module if target else None
                if module is None:
                    raise ProposalError("parameters need a rule module to go with")
            try:
                module_params(module, self.params)
            except ParameterError as exc:
                raise ProposalError(str(exc)) from exc

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"author": self.author, "title": self.title, "text": self.text,
                               "action": self.action}
        for name in ("rule", "module", "params", "comment", "lead"):
            value = getattr(self, name)
            if value is not None:
                out[name] = dict(value) if name == "params" else value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Proposal:
        return cls(author=str(data["author"]).upper(), title=str(data["title"]),
                   text=str(data.get("text", "")), action=str(data.get("action", "enact")),
                   rule=data.get("rule"), module=data.get("module"),
                   params=data.get("params"), comment=data.get("comment"),
                   lead=data.get("lead"))


_ACTION = re.compile(r"^\s*(enact|repeal|amend|transmute)\b(?:.*?\brule\s+(\d+))?",
                     re.IGNORECASE)
_MODULE = re.compile(r"^\s*module\s*:?\s+(\w+)(.*)$", re.IGNORECASE)
_PARAM = re.compile(r"(\w+)\s*=\s*(\{.*\}|\[.*\]|\S+)")


def parse_proposal(author: str, lines: Sequence[str]) -> Proposal:
    """A proposal as a player writes it in an email, one block of lines::

        PROPOSE Support actions
        Enact the following mutable rule:
        MODULE support retreat_days=2
        A support action causes a unit to stay in the territory it holds ...
        END

    The first line gives the title. The second says the change, in the player's words, and is
    kept as written: it starts with ``Enact``, ``Repeal``, ``Amend`` or ``Transmute`` and names
    the rule (``Repeal rule 17.``, ``Amend rule 17 to read:``) unless it enacts one. An optional
    ``MODULE name key=value ...`` line names the rule module (values are numbers, true/false,
    words or JSON). The rest, up to ``END`` or the end of the block, is the rule's text.
    Raises :class:`ProposalError`; whether the change is legal is :meth:`Proposal.check`'s.
    """
    rows = [line.rstrip() for line in lines]
    while rows and not rows[-1].strip():
        rows.pop()
    if rows and rows[-1].strip().upper() == "END":
        rows.pop()
    if not rows:
        raise ProposalError("an empty proposal")
    head = re.match(r"^\s*propos(?:e|al)\s*:?\s*(.*)$", rows[0], re.IGNORECASE)
    if not head or not head.group(1).strip():
        raise ProposalError("a proposal starts with PROPOSE and its title")
    title = head.group(1).strip()
    if len(rows) < 2:
        raise ProposalError("say what the proposal does: Enact, Repeal, Amend or Transmute")
    action = _ACTION.match(rows[1])
    if not action:
        raise ProposalError("the line after the title says the change: it starts with Enact, "
                            "Repeal, Amend or Transmute")
    rest = rows[2:]
    module, params = None, None
    if rest and (m := _MODULE.match(rest[0])):
        module = m.group(1).lower()
        params = {}
        for key, raw in _PARAM.findall(m.group(2)):
            try:
                params[key] = json.loads(raw)
            except ValueError:
                params[key] = raw
        rest = rest[1:]
    return Proposal(author=author.upper(), title=title, text="\n".join(rest).strip("\n"),
                    action=action.group(1).lower(),
                    rule=int(action.group(2)) if action.group(2) else None,
                    module=module, params=params or None, lead=rows[1].strip())


def presentation_order(proposals: Iterable[Proposal], seed: int, turn: int) -> list[Proposal]:
    """The proposals "presented in a random order", drawn from the game's seed and the turn.

    They are sorted by author first, so the order does not depend on when they arrived. A
    player makes at most one proposal a turn (rule 4): a second is an error of the caller's.
    """
    ordered = sorted(proposals, key=lambda p: (p.author, p.title))
    authors = [p.author for p in ordered]
    if len(set(authors)) != len(authors):
        raise ProposalError("at most one proposal per player per turn")
    random.Random(f"dipnomicy-proposals:{seed}:{turn}").shuffle(ordered)
    return ordered


# --------------------------------------------------------------------------- votes
@dataclass(frozen=True, slots=True)
class Vote:
    """``power`` votes ``choice`` on proposal ``label`` (``P1``...); ``late`` votes (sent after
    the vote deadline) are reported and not counted."""

    power: str
    label: str
    choice: str
    late: bool = False


@dataclass(frozen=True, slots=True)
class Veto:
    """The Secretary General's veto of proposal ``label``, with the reason given."""

    label: str
    reason: str


_VOTE = re.compile(r"^\s*vote\s+p?(\d+)\s+(for|yes|against|no|abstain)\s*$", re.IGNORECASE)
_CHOICE = {"FOR": "FOR", "YES": "FOR", "AGAINST": "AGAINST", "NO": "AGAINST",
           "ABSTAIN": "ABSTAIN"}


def parse_vote(power: str, line: str, late: bool = False) -> Vote:
    """``VOTE P1 FOR`` (or ``AGAINST``, ``ABSTAIN``) -> a :class:`Vote`."""
    m = _VOTE.match(line)
    if not m:
        raise ProposalError("a vote reads VOTE P1 FOR, VOTE P1 AGAINST or VOTE P1 ABSTAIN")
    return Vote(power.upper(), f"P{int(m.group(1))}", _CHOICE[m.group(2).upper()], late)


@dataclass(slots=True)
class ProposalResult:
    """How the vote on one proposal went, and what it did to the ruleset."""

    label: str
    proposal: Proposal
    for_: list[str] = field(default_factory=list)
    against: list[str] = field(default_factory=list)
    abstain: list[str] = field(default_factory=list)
    non_voters: list[str] = field(default_factory=list)
    late: list[str] = field(default_factory=list)
    passed: bool = False
    vetoed: str | None = None
    rule: int | None = None  # the rule enacted, repealed, amended or transmuted
    note: str = ""  # why a passed proposal could not take effect

    @property
    def took_effect(self) -> bool:
        return self.passed and not self.note


@dataclass(slots=True)
class Tally:
    results: list[ProposalResult]
    ruleset: Ruleset
    ignored: list[Vote] = field(default_factory=list)  # votes by non-players or on no proposal


def meets_threshold(threshold: str, for_: int, against: int, players: int) -> bool:
    """Whether ``for_`` votes for and ``against`` against pass, among ``players`` voters."""
    if threshold == "more-for-than-against":
        return for_ > against
    if threshold == "majority-of-players":
        return 2 * for_ > players
    if threshold == "two-thirds":
        return for_ > 0 and 3 * for_ >= 2 * (for_ + against)
    if threshold == "unanimous":
        return for_ > 0 and against == 0
    raise ValueError(f"unknown threshold {threshold!r}")


def tally(ruleset: Ruleset, proposals: Sequence[Proposal], votes: Iterable[Vote],
          voters: Iterable[str], vetoes: Iterable[Veto] = (),
          numbers: Mapping[str, int] | None = None) -> Tally:
    """Count the votes on ``proposals`` (as presented: P1 is ``proposals[0]``) and apply the
    passed ones, in that order, to ``ruleset``.

    ``voters`` are the countries that must vote. A voter's last vote on a proposal counts; a
    voter with no (timely) vote is a non-voter, reported, and counted as abstaining. ``numbers``
    are rule numbers the SG assigns to enacted rules (``{"P2": 30}``); the others get the next
    number never used. A proposal that passed but can no longer apply (its rule was repealed
    or transmuted by an earlier proposal of the same vote) is reported with the reason.
    """
    voters = sorted({v.upper() for v in voters})
    labels = {f"P{k + 1}": p for k, p in enumerate(proposals)}
    vetoed = {v.label.upper(): v.reason for v in vetoes}
    numbers = {k.upper(): n for k, n in (numbers or {}).items()}
    cast: dict[tuple[str, str], str] = {}
    late: dict[str, set[str]] = {}
    ignored: list[Vote] = []
    for v in votes:
        label, power = v.label.upper(), v.power.upper()
        if label not in labels or power not in voters or v.choice not in CHOICES:
            ignored.append(v)
        elif v.late:
            late.setdefault(label, set()).add(power)
        else:
            cast[(label, power)] = v.choice
    threshold = ruleset.setting("threshold")
    results = []
    current = ruleset
    for label, proposal in labels.items():
        res = ProposalResult(label, proposal)
        for power in voters:
            choice = cast.get((label, power))
            if choice is None:
                res.non_voters.append(power)
                if power in late.get(label, ()):
                    res.late.append(power)
            else:
                {"FOR": res.for_, "AGAINST": res.against, "ABSTAIN": res.abstain}[choice].append(power)
        if label in vetoed:
            res.vetoed = vetoed[label]
        else:
            res.passed = meets_threshold(threshold, len(res.for_), len(res.against), len(voters))
        if res.passed:
            try:
                current, res.rule = apply_proposal(current, proposal, numbers.get(label))
            except ProposalError as exc:
                res.note = str(exc)
        results.append(res)
    return Tally(results, current, ignored)


def apply_proposal(ruleset: Ruleset, proposal: Proposal,
                   number: int | None = None) -> tuple[Ruleset, int]:
    """The ruleset with ``proposal`` in effect, and the number of the rule it changed."""
    proposal.check(ruleset)
    rules = list(ruleset.rules)
    if proposal.action == "enact":
        if number is None:
            number = ruleset.last_number + 1
        elif number <= 0 or ruleset.rule(number) is not None:
            raise ProposalError(f"rule number {number} is in use")
        rule = Rule(number, proposal.title.strip(), proposal.text.strip(), True,
                    proposal.module, dict(proposal.params or {}))
        return ruleset.with_rules([*rules, rule], max(ruleset.last_number, number)), number
    assert proposal.rule is not None
    old = ruleset.rule(proposal.rule)
    assert old is not None  # check() made sure
    rules.remove(old)
    if proposal.action == "repeal":
        return ruleset.with_rules(rules), old.number
    if proposal.action == "transmute":
        return ruleset.with_rules([*rules, replace(old, mutable=not old.mutable)]), old.number
    module = proposal.module or old.module
    if proposal.module:
        params: Mapping[str, Any] = dict(proposal.params or {})
    else:
        params = {**old.params, **(proposal.params or {})}
    new = replace(old, text=proposal.text.strip() or old.text, module=module,
                  params=params if module else {})
    return ruleset.with_rules([*rules, new]), old.number


def attach_module(ruleset: Ruleset, number: int, module: str | None,
                  params: Mapping[str, Any] | None = None) -> Ruleset:
    """The SG attaches the rule module that makes rule ``number`` real (or, with ``None``,
    detaches it): for a passed proposal that came as text only."""
    old = ruleset.rule(number)
    if old is None:
        raise ProposalError(f"there is no rule {number}")
    if module is not None:
        try:
            module_params(module, params)
        except ParameterError as exc:
            raise ProposalError(str(exc)) from exc
    new = replace(old, module=module, params=dict(params or {}) if module else {})
    return ruleset.with_rules([r for r in ruleset.rules if r.number != number] + [new])


def renumber(ruleset: Ruleset, old: int, new: int) -> Ruleset:
    """The SG gives rule ``old`` the number ``new`` (never one in use)."""
    rule = ruleset.rule(old)
    if rule is None:
        raise ProposalError(f"there is no rule {old}")
    if ruleset.rule(new) is not None or new <= 0:
        raise ProposalError(f"rule number {new} is in use")
    rules = [r for r in ruleset.rules if r.number != old] + [replace(rule, number=new)]
    return ruleset.with_rules(rules, max(ruleset.last_number, new))


def with_ruleset(position: Position, ruleset: Ruleset) -> Position:
    """A copy of ``position`` under ``ruleset``: what the next turn is played with."""
    extra = {**position.extra, **ruleset.to_position_keys()}
    nxt = Position(position.variant, position.phase, list(position.units),
                   {p: set(cs) for p, cs in position.centres.items()},
                   list(position.dislodged), position.standoffs, position.winner, extra)
    return with_home_ownership(nxt, ruleset.active())


def voters_of(position: Position) -> list[str]:
    """The countries that vote: the players' countries (key ``players``), else every country
    with a unit or a supply centre."""
    return sorted(position.extra.get("players") or position.powers())


def close_vote(position: Position, proposals: Sequence[Proposal], votes: Iterable[Vote],
               vetoes: Iterable[Veto] = (), numbers: Mapping[str, int] | None = None,
               voters: Iterable[str] | None = None) -> tuple[Tally, Position]:
    """Voting closes on ``proposals`` (as presented) in the game at ``position`` (the position
    the next turn is played from): the tally, and that position under the new ruleset."""
    ruleset = Ruleset.from_position_keys(position.extra)
    result = tally(ruleset, proposals, votes, voters if voters is not None else voters_of(position),
                   vetoes, numbers)
    return result, with_ruleset(position, result.ruleset)
