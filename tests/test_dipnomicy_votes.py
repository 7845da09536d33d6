"""Dipnomicy proposals and votes: thresholds, abstentions, non-voters, late votes, vetoes,
numbering, repeal, amendment, transmutation and precedence, and the published ruleset."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from judge.variants import get_variant
from judge.variants.dipnomicy.catalogue import Active
from judge.variants.dipnomicy.proposals import (
    Proposal,
    ProposalError,
    Veto,
    Vote,
    attach_module,
    close_vote,
    parse_proposal,
    parse_vote,
    presentation_order,
    renumber,
    tally,
)
from judge.variants.dipnomicy.report import ruleset_text, seed_proposals, vote_report
from judge.variants.dipnomicy.rules import RULES
from judge.variants.dipnomicy.ruleset import (
    INITIAL_RULESET_FILE,
    Rule,
    Ruleset,
    RulesetError,
    initial_ruleset,
    load_ruleset,
)

VARIANT = get_variant("dipnomicy")
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
SEED = {p.title.split(" (")[0]: p for p in seed_proposals()}
SUPPORT = SEED["Support actions"]


def votes(label: str, **choices: str) -> list[Vote]:
    return [Vote(power.upper(), label, choice) for power, choice in choices.items()]


def with_threshold(threshold: str) -> Ruleset:
    base = initial_ruleset()
    return replace(base, settings={**base.settings, "threshold": threshold})


def test_more_for_than_against_abstentions_and_non_voters() -> None:
    cast = votes("P1", austria="FOR", england="FOR", france="AGAINST", germany="ABSTAIN",
                 italy="ABSTAIN")
    result = tally(initial_ruleset(), [SUPPORT], cast, POWERS)
    res = result.results[0]
    assert res.passed and res.rule == 25
    assert res.for_ == ["AUSTRIA", "ENGLAND"] and res.against == ["FRANCE"]
    assert res.abstain == ["GERMANY", "ITALY"] and res.non_voters == ["RUSSIA", "TURKEY"]
    assert result.ruleset.rule(25).module == "support"
    # A tie does not pass.
    tie = votes("P1", austria="FOR", england="FOR", france="AGAINST", germany="AGAINST")
    assert not tally(initial_ruleset(), [SUPPORT], tie, POWERS).results[0].passed


def test_the_threshold_is_a_setting() -> None:
    three = votes("P1", austria="FOR", england="FOR", france="FOR", germany="AGAINST")
    assert tally(with_threshold("more-for-than-against"), [SUPPORT], three, POWERS).results[0].passed
    # Three of seven players is no majority of the players.
    assert not tally(with_threshold("majority-of-players"), [SUPPORT], three, POWERS).results[0].passed
    four = [*three, Vote("ITALY", "P1", "FOR")]
    assert tally(with_threshold("majority-of-players"), [SUPPORT], four, POWERS).results[0].passed
    assert tally(with_threshold("two-thirds"), [SUPPORT], three, POWERS).results[0].passed
    two_one = votes("P1", austria="FOR", england="FOR", france="AGAINST", germany="AGAINST")
    assert not tally(with_threshold("two-thirds"), [SUPPORT], two_one, POWERS).results[0].passed
    assert not tally(with_threshold("unanimous"), [SUPPORT], three, POWERS).results[0].passed
    assert tally(with_threshold("unanimous"), [SUPPORT], three[:3], POWERS).results[0].passed
    with pytest.raises(RulesetError):
        with_threshold("most-shouting")


def test_last_vote_counts_late_votes_do_not_and_strangers_are_ignored() -> None:
    cast = [Vote("AUSTRIA", "P1", "AGAINST"), Vote("AUSTRIA", "P1", "FOR"),
            Vote("ENGLAND", "P1", "AGAINST", late=True), Vote("NOBODY", "P1", "FOR"),
            Vote("FRANCE", "P9", "FOR")]
    result = tally(initial_ruleset(), [SUPPORT], cast, POWERS)
    res = result.results[0]
    assert res.passed and res.for_ == ["AUSTRIA"] and res.against == []
    assert "ENGLAND" in res.non_voters and res.late == ["ENGLAND"]
    assert [v.power for v in result.ignored] == ["NOBODY", "FRANCE"]
    text = vote_report(result, 1)
    assert "late votes from England were not counted" in text


def test_veto() -> None:
    cast = [Vote(p, "P1", "FOR") for p in POWERS]
    result = tally(initial_ruleset(), [SUPPORT], cast, POWERS,
                   vetoes=[Veto("P1", "it would end the game at once")])
    res = result.results[0]
    assert not res.passed and res.vetoed == "it would end the game at once"
    assert result.ruleset == initial_ruleset()
    assert "VETOED by the Secretary General: it would end the game at once" in vote_report(result, 1)


def test_numbering_in_presented_order_never_reused_and_assigned_by_the_sg() -> None:
    props = [SEED["Merging units"], SEED["Support actions"], SEED["Mobile fleets"]]
    cast = [Vote(p, f"P{k}", "FOR") for p in POWERS for k in (1, 2, 3)]
    result = tally(initial_ruleset(), props, cast, POWERS, numbers={"P3": 40})
    assert [r.rule for r in result.results] == [25, 26, 40]
    ruleset = result.ruleset
    assert ruleset.rule(25).title == "Merging units" and ruleset.last_number == 40
    repeal = Proposal("FRANCE", "No merging", action="repeal", rule=25)
    after = tally(ruleset, [repeal, SEED["Speed up the game"]],
                  [Vote(p, f"P{k}", "FOR") for p in POWERS for k in (1, 2)], POWERS)
    assert after.ruleset.rule(25) is None
    assert after.results[1].rule == 41  # 25 is free again, but never given twice
    clash = tally(ruleset, [SUPPORT], [Vote("FRANCE", "P1", "FOR")], POWERS, numbers={"P1": 26})
    assert clash.results[0].note == "rule number 26 is in use" and clash.ruleset == ruleset
    assert renumber(ruleset, 40, 30).rule(30).module == "mobile_fleets"


def test_repeal_of_an_enacted_rule_switches_it_off() -> None:
    position = RULES.initial_position()
    position.units = [u for u in position.units if u.power in ("AUSTRIA", "RUSSIA")]
    _, enacted = close_vote(position, [SUPPORT], [Vote(p, "P1", "FOR") for p in POWERS])
    number = next(r.number for r in RULES.ruleset(enacted).rules if r.module == "support")
    order = ("AUSTRIA", "A Vie S A Bud")
    assert VARIANT.adjudicate_lines(enacted, [order]).results[0].result == "succeeds"
    repeal = Proposal("RUSSIA", "No more support", action="repeal", rule=number)
    result, repealed = close_vote(enacted, [repeal], [Vote(p, "P1", "FOR") for p in POWERS])
    assert result.results[0].took_effect and RULES.ruleset(repealed).rule(number) is None
    refused = VARIANT.adjudicate_lines(repealed, [order]).results[0]
    assert refused.result == "fails" and "not in the rules" in refused.reason
    assert f"rule {number} is repealed" in vote_report(result, 2)


def test_a_proposal_is_exactly_one_legal_change() -> None:
    ruleset = initial_ruleset()
    with pytest.raises(ProposalError, match="immutable"):
        Proposal("FRANCE", "No SG", action="repeal", rule=1).check(ruleset)
    with pytest.raises(ProposalError, match="immutable"):
        Proposal("FRANCE", "SG", "New text", action="amend", rule=6).check(ruleset)
    with pytest.raises(ProposalError, match="no rule 99"):
        Proposal("FRANCE", "x", action="repeal", rule=99).check(ruleset)
    with pytest.raises(ProposalError, match="no rule module"):
        Proposal("FRANCE", "x", "text", module="teleport").check(ruleset)
    with pytest.raises(ProposalError, match="days"):
        Proposal("FRANCE", "x", "text", module="deadline", params={"days": 0}).check(ruleset)
    with pytest.raises(ProposalError, match="title"):
        Proposal("FRANCE", " ", "text").check(ruleset)
    with pytest.raises(ProposalError):
        Proposal("FRANCE", "x", "text", action="enact twice").check(ruleset)


def test_a_later_proposal_on_a_rule_gone_earlier_in_the_same_vote() -> None:
    repeal = Proposal("FRANCE", "No circles", action="repeal", rule=21)
    amend = Proposal("ITALY", "Circles", "Circles fail.", action="amend", rule=21)
    cast = [Vote(p, f"P{k}", "FOR") for p in POWERS for k in (1, 2)]
    result = tally(initial_ruleset(), [repeal, amend], cast, POWERS)
    assert result.results[0].took_effect
    assert result.results[1].passed and result.results[1].note == "there is no rule 21"
    assert "PASSED, but it cannot take effect: there is no rule 21" in vote_report(result, 3)


def test_transmutation_and_immutable_beats_mutable() -> None:
    base = initial_ruleset()
    forbid = Rule(30, "No support", "There shall be no support.", mutable=False,
                  module="support", params={"enabled": False})
    allow = Rule(25, "Support actions", SUPPORT.text, module="support")
    ruleset = base.with_rules([*base.rules, forbid, allow])
    # The immutable rule wins although its number is higher.
    assert not ruleset.active().on("support")
    transmute = Proposal("AUSTRIA", "Free support", action="transmute", rule=30)
    result = tally(ruleset, [transmute], [Vote(p, "P1", "FOR") for p in POWERS], POWERS)
    after = result.ruleset
    assert after.rule(30).mutable
    # Both mutable now: the lower number (25) takes precedence.
    assert after.active().on("support")
    assert Active.from_rules([forbid]).modules == {}


def test_amending_a_text_only_rule_and_attaching_a_module() -> None:
    text_only = Proposal("GERMANY", "Support actions", SUPPORT.text)
    result = tally(initial_ruleset(), [text_only], [Vote(p, "P1", "FOR") for p in POWERS], POWERS)
    ruleset = result.ruleset
    assert not ruleset.active().on("support")
    ruleset = attach_module(ruleset, 25, "support", {"retreat_days": 4})
    assert ruleset.active().param("support", "retreat_days") == 4
    with pytest.raises(ProposalError):
        attach_module(ruleset, 25, "support", {"retreat_days": "soon"})


def test_parse_vote() -> None:
    assert parse_vote("austria", "VOTE P1 FOR") == Vote("AUSTRIA", "P1", "FOR")
    assert parse_vote("austria", "vote 3 against").choice == "AGAINST"
    assert parse_vote("austria", "Vote p2 Abstain", late=True) == Vote("AUSTRIA", "P2", "ABSTAIN", True)
    with pytest.raises(ProposalError):
        parse_vote("austria", "VOTE P1 MAYBE")


def test_published_ruleset() -> None:
    ruleset = tally(initial_ruleset(), [SUPPORT], [Vote(p, "P1", "FOR") for p in POWERS],
                    POWERS).ruleset
    text = ruleset_text(ruleset)
    assert "Rule 1 (immutable): The rules" in text
    assert "Rule 23 (mutable): Contested moves" in text
    assert "Rule 25 (mutable): Support actions\nA support action causes" in text
    assert "[The judge applies this rule: module support (retreat_days = 2).]" in text
    assert text.index("Rule 9 ") < text.index("Rule 10 ") < text.index("Rule 25 ")


def test_the_initial_ruleset_file_is_editable(tmp_path: Path) -> None:
    text = INITIAL_RULESET_FILE.read_text(encoding="utf-8")
    edited = tmp_path / "rules.toml"
    edited.write_text(text.replace('threshold = "more-for-than-against"',
                                   'threshold = "two-thirds"')
                      + '\n[[rule]]\nnumber = 30\ntitle = "Support"\ntext = "Units support."\n'
                        'module = "support"\nparams = { retreat_days = 1 }\n')
    ruleset = load_ruleset(edited)
    assert ruleset.setting("threshold") == "two-thirds"
    assert ruleset.active().param("support", "retreat_days") == 1
    position = RULES.initial_position(ruleset=ruleset)
    assert RULES.ruleset(position) == ruleset
    bad = tmp_path / "bad.toml"
    bad.write_text('[[rule]]\nnumber = 1\ntitle = "a"\n[[rule]]\nnumber = 1\ntitle = "b"\n')
    with pytest.raises(RulesetError, match="same number"):
        load_ruleset(bad)
    bad.write_text('[[rule]]\ntitle = "a"\n')
    with pytest.raises(RulesetError, match="number"):
        load_ruleset(bad)


def test_parse_proposal_as_emailed() -> None:
    p5 = SEED["Speed up the game"]
    lines = [f"PROPOSE {p5.title}", p5.lead, "MODULE deadline days=3", *p5.text.splitlines(),
             "END"]
    parsed = parse_proposal("italy", lines)
    assert parsed == replace(p5, comment=None)
    parsed.check(initial_ruleset())
    repeal = parse_proposal("france", ["Propose: No convoys", "Repeal rule 17.", ""])
    assert (repeal.action, repeal.rule, repeal.text, repeal.heading) == \
        ("repeal", 17, "", "Repeal rule 17.")
    homes = parse_proposal("england", [
        "PROPOSE More homes", "Amend rule 30 to read:",
        'MODULE home_centres homes={"ENGLAND": ["YOR"]}', "York is English."])
    assert homes.params == {"homes": {"ENGLAND": ["YOR"]}} and homes.rule == 30
    with pytest.raises(ProposalError, match="PROPOSE"):
        parse_proposal("france", ["Enact the following mutable rule:", "x"])
    with pytest.raises(ProposalError, match="Enact, Repeal"):
        parse_proposal("france", ["PROPOSE Nice", "Please make a rule", "x"])


def test_one_proposal_per_player_per_turn() -> None:
    with pytest.raises(ProposalError, match="one proposal"):
        presentation_order([SUPPORT, replace(SEED["Mobile fleets"], author=SUPPORT.author)], 1, 1)


def test_report_of_a_repeal_and_an_sg_comment() -> None:
    from judge.variants.dipnomicy.report import move_report

    position = RULES.initial_position()
    outcome = VARIANT.adjudicate_lines(position, [])
    repeal = replace(Proposal("FRANCE", "No convoys", action="repeal", rule=17),
                     comment="Fleets will be lonely. - Sec. Gen.")
    text = move_report(outcome, [repeal, SEED["Mobile fleets"]])
    assert ("P1: No convoys\n\n[Fleets will be lonely. - Sec. Gen.]\n\nRepeal rule 17.\n\n"
            "P2: Mobile fleets\n\nEnact the following mutable rule:\nFleets may make") in text
