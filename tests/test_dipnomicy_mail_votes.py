"""Dipnomicy votes and the Secretary General's commands, by email (in-process, real storage):
threshold, abstentions, non-voters, veto, a late vote, numbering, comments, attaching a module
to a passed text proposal, repeal of an enacted rule, roll back, the ruleset on request; and
the game's start: 5 to 7 players, countries drawn from the game's seed."""

from __future__ import annotations

import re

import pytest
from dipkit import GM, DipGame, labels, play_turn_with_votes, proposal

from judge.variants.dipnomicy.rules import assign_countries


def test_countries_are_drawn_from_the_seed_for_five_to_seven_players(tmp_path):
    g = DipGame(tmp_path, name="few", players=5)
    r = g.reply(GM, "CREATE few sgpass VARIANT dipnomicy\nOPEN", "new")
    for k, a in enumerate(g.addresses[:4]):
        g.reply(a, f"JOIN few seat-{k}", "join")
    r = g.reply(GM, "MASTER few sgpass\nSTART", "start")
    assert r.subject.startswith("[ERROR]") and "needs 5 to 7" in r.flat
    # choosing a country is refused: they are drawn at the start
    r = g.reply(g.addresses[4], "JOIN few France seat-4", "join")
    assert "assigned at random when the game starts" in r.flat
    g.reply(g.addresses[4], "JOIN few seat-4", "join")
    r = g.reply(GM, "MASTER few sgpass\nSTART", "start")
    assert not r.subject.startswith("[ERROR]"), r.body
    store = g.judge.store
    game = store.game("few")
    seed = store.one("SELECT seed FROM dipnomicy_games WHERE game_id = ?", (game["id"],))["seed"]
    seats = store.all("SELECT address, power FROM players WHERE game_id = ? ORDER BY id",
                      (game["id"],))
    drawn = assign_countries([f"SEAT{k}" for k in range(1, 6)], seed)
    g.countries = {s["power"]: s["address"] for s in seats}
    assert [s["power"] for s in seats] == [drawn[f"SEAT{k}"] for k in range(1, 6)]
    # each player is told its country; the rules in force are published at the start
    notices = {m.rcpt: m for m in g.mail if "the game has started" in m.subject}
    for s in seats:
        assert f"You play {s['power'].title()}" in notices[s["address"]].body
    assert sum("the rules in force at the start" in m.subject for m in g.mail) == 6
    start_rules = [m for m in g.mail if "the rules in force at the start" in m.subject][0]
    assert "Moves and proposals for turn 1 are due by" in start_rules.body
    # a sixth... eighth player may not join a started game; the unplayed countries hold
    r = g.reply("late@players.test", "JOIN few latepw", "join")
    assert "no new players" in r.flat
    g.clock.to(g.deadline())
    report = g.to_all(g.tick(), "move report, turn 1")
    # only the five players' countries are named as not having submitted anything
    line = [x for x in report.body.splitlines() if "did not submit" in x][0]
    assert all(c.title() in line for c in drawn.values()), line
    unplayed = {"AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"} - \
        set(drawn.values())
    assert len(unplayed) == 2 and not any(c.title() in line for c in unplayed), line


@pytest.mark.parametrize("threshold", ["more-for-than-against", "two-thirds"])
def test_threshold_abstentions_non_voters_veto_late_vote_and_numbers(tmp_path, threshold):
    g = DipGame(tmp_path)
    if threshold != "more-for-than-against":  # chosen by the SG before the game starts
        r = g.reply(GM, "CREATE dip sgpass VARIANT dipnomicy\nSETTING threshold half\n"
                        f"SETTING threshold {threshold}", "new")
        assert "unknown threshold 'half'" in r.flat, r.body
        assert f"Setting threshold will be {threshold} when the game starts" in r.flat
    g.start()
    r = g.reply("x@players.test", "RULES dip", "rules")
    assert f"A proposal passes with {threshold.replace('-', ' ')}." in r.body
    g.player("FRANCE", proposal("Support actions", "support"))
    g.player("ENGLAND", proposal("Mobile fleets", "mobile_fleets"))
    g.player("GERMANY", proposal("Supply centres", "supply_centres"))
    r = g.reply("x@players.test", "STATUS dip", "status")
    assert "Turn 1: proposals received from England, France, Germany." in r.flat, r.body
    report = g.to_all(g.to_deadline(), "move report")
    p = labels(report)
    sup, mob, sc = p["Support actions"], p["Mobile fleets"], p["Supply centres"]
    # Support: 3 for, 2 against, 1 abstains, Turkey does not vote (then votes late)
    votes = {"FRANCE": "FOR", "ENGLAND": "FOR", "GERMANY": "FOR", "AUSTRIA": "AGAINST",
             "ITALY": "AGAINST", "RUSSIA": "ABSTAIN"}
    for c, choice in votes.items():
        r = g.player(c, f"VOTE {sup} {choice}\nVOTE {mob} FOR\nVOTE {sc} FOR", "votes")
        assert f"Vote of {c.title()} recorded: {sup} {choice}" in r.flat
        assert "Votes are due by" in r.flat
    r = g.reply("x@players.test", "STATUS dip", "status")
    assert "Yet to vote on every proposal: Turkey." in r.flat, r.body
    r = g.player("ITALY", "VOTE P9 FOR", "votes")
    assert r.subject.startswith("[ERROR]") and "there is no P9" in r.flat
    r = g.player("FRANCE", f"VETO {mob} no", "veto")  # a player is not the SG
    assert "game master's command" in r.flat
    r = g.sg(f"VETO {mob} It would break the game.\nNUMBER {sc} 40")
    assert "is vetoed: It would break the game." in r.flat and "becomes rule 40" in r.flat
    g.clock.to(g.vote_deadline())
    g.clock.advance(minutes=5)
    late = g.reply(g.countries["TURKEY"],
                   f"SIGNON TURKEY dip seat-{g.addresses.index(g.countries['TURKEY'])}\n"
                   f"VOTE {sup} FOR", "late vote")
    assert late.subject.startswith("[ERROR]") and "too late" in late.flat
    assert "is not counted" in late.flat
    result = g.to_all(g.mail, "votes on")  # the vote closed right after the late vote
    body = result.body
    section = body.split(f"{sup}: Support actions")[1].split("\n\n")[0]
    assert "For 3 (England, France and Germany), against 2 (Austria and Italy), " \
           "abstaining 1 (Russia)." in section
    assert "Did not vote: Turkey (late votes from Turkey were not counted)." in section
    if threshold == "two-thirds":  # 3 of 5 votes cast is less than two thirds
        assert "FAILED." in section
    else:
        assert "PASSED: enacted as rule" in section
    mob_section = body.split(f"{mob}: Mobile fleets")[1].split("\n\n")[0]
    assert "VETOED by the Secretary General: It would break the game." in mob_section
    assert "Did not vote: Turkey." in mob_section
    sc_section = body.split(f"{sc}: Supply centres")[1].split("\n\n")[0]
    assert "PASSED: enacted as rule 40" in sc_section
    assert "Rule 40 (mutable): Supply centres" in body
    assert "Mobile fleets" not in body.split("The rules in force from turn 2")[1]
    # after the vote: no vote open any more
    r = g.player("FRANCE", f"VOTE {sup} AGAINST", "too late")
    assert "no vote is open" in r.flat


def test_text_proposal_gets_its_module_from_the_sg_then_repeal(tmp_path):
    """A passed text-only proposal does nothing until the SG attaches the module; a later
    proposal repeals it and support is refused again."""
    g = DipGame(tmp_path)
    g.start()
    r = g.sg("COMMENT France This is support without cutting. - Sec. Gen.")
    assert r.subject.startswith("[ERROR]") and "has no proposal" in r.flat
    g.player("FRANCE", proposal("Support actions", text="Units may support."))
    r = g.sg("COMMENT France This is support without cutting. - Sec. Gen.")
    assert not r.subject.startswith("[ERROR]"), r.body
    report = g.to_all(g.to_deadline(), "move report")
    assert "[This is support without cutting. - Sec. Gen.]" in report.body
    p = labels(report)["Support actions"]
    for c in g.countries:
        g.player(c, f"VOTE {p} FOR", "votes")
    result = g.to_all(g.to_vote_deadline(), "votes on")
    assert "PASSED: enacted as rule 25" in result.body
    r = g.player("FRANCE", "A Mar S A Par -- Bur", "support?")
    assert "support actions are not in the rules" in r.flat  # text only: no module yet
    r = g.sg("ATTACH 25 support retreat_days=1")
    assert "Rule 25 is now applied by the judge through module support" in r.flat
    ruleset = g.to_all(g.mail, "the ruleset has changed")
    assert "module support (retreat_days = 1)" in ruleset.body
    assert "Moves for turn 2 are due by" in ruleset.body
    r = g.player("FRANCE", "A Par -- Bur\nA Mar S A Par -- Bur", "support")
    assert not r.subject.startswith("[ERROR]"), r.body
    g.player("GERMANY", "A Mun -- Bur\n" + "\n".join(
        ["PROPOSE No support", "Repeal rule 25.", "END"]))
    report = g.to_all(g.to_deadline(), "move report, turn 2")
    assert "A Par -- Bur\n" in report.body  # the support rule worked this turn
    assert "Repeal rule 25." in report.body
    p = labels(report)["No support"]
    for c in g.countries:
        g.player(c, f"VOTE {p} FOR", "votes")
    result = g.to_all(g.to_vote_deadline(), "votes on")
    assert "PASSED: rule 25 is repealed" in result.body
    assert "Rule 25" not in result.body.split("The rules in force from turn 3")[1]
    r = g.player("FRANCE", "A Bur -- Mun\nA Mar S A Bur -- Mun", "support again")
    assert "support actions are not in the rules" in r.flat


def test_rollback_restores_the_position_and_its_rules_and_rules_on_request(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"FRANCE": proposal("Support actions", "support")},
                         {"FRANCE": "A Par -- Pic"}, {"Support actions": "FOR"})
    r = g.reply("anyone@players.test", "RULES dip", "rules")
    assert "Rule 25 (mutable): Support actions" in r.body
    assert "[The judge applies this rule: module support (retreat_days = 2).]" in r.body
    r = g.player("FRANCE", "A Pic -- Bel", "turn 2")
    assert not r.subject.startswith("[ERROR]")
    r = g.sg("ROLLBACK 1")
    assert "back at the start of turn 1" in r.flat and "Moves for turn 1 are due by" in r.flat
    notice = g.to_all(g.mail, "rolled back to turn 1")
    assert "Rule 25" not in notice.body  # the rules of turn 1 came back with its position
    assert g.game()["phase"] == "S1901M"
    r = g.reply("anyone@players.test", "RULES dip", "rules")
    assert "Rule 25" not in r.body
    r = g.player("FRANCE", "A Mar S A Par -- Bur", "support?")
    assert "support actions are not in the rules" in r.flat
    r = g.sg("RULES")  # the SG's request publishes the ruleset to everyone
    assert "Sent to every player:" in r.body
    published = g.to_all(g.mail, "the rules in force")
    assert "Rule 24 (mutable)" in published.body and "Rule 25" not in published.body
    assert "Moves for turn 1 are due by" in published.body
    r = g.sg("ROLLBACK 5")
    assert r.subject.startswith("[ERROR]") and "no stored position of turn 5" in r.flat


def test_one_proposal_per_turn_a_second_replaces_the_first_and_bad_ones_are_refused(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    r = g.player("ITALY", proposal("Support actions", "support"))
    assert "Proposal of Italy for turn 1 received" in r.flat and "Deadline:" in r.body
    r = g.player("ITALY", proposal("Mobile fleets", "mobile_fleets"))
    assert "It replaces your earlier proposal \"Support actions\"" in r.flat
    r = g.player("ITALY", "\n".join(["PROPOSE Bad", "Repeal rule 3.", "END"]))
    assert r.subject.startswith("[ERROR]") and "rule 3 is immutable" in r.flat
    r = g.player("ITALY", proposal("Nonsense", "teleport"))
    assert r.subject.startswith("[ERROR]") and "proposal not taken" in r.flat
    report = g.to_all(g.to_deadline(), "move report")
    assert "P1: Mobile fleets" in report.body and "Support actions" not in report.body


def test_the_seeds_move_1_by_email(tmp_path):
    """The seed's move 1 (../shared/seeds/004_2ba22e06025b0616.txt) played by email: the 19
    orders (Turkey's units hold), the six proposals sent by their authors with the SG's
    comments, and the move report every player gets, in the seed's form, the proposals in the
    order drawn from the game's seed."""
    from test_dipnomicy_seed import seed_moves, seed_text

    from judge.variants.dipnomicy.proposals import presentation_order
    from judge.variants.dipnomicy.report import seed_proposals

    g = DipGame(tmp_path)
    g.start()
    moves: dict[str, list[str]] = {}
    for power, line in seed_moves(seed_text()):
        if power != "TURKEY":
            moves.setdefault(power, []).append(line)
    assert sum(len(v) for v in moves.values()) == 19
    proposals = seed_proposals()
    for p in proposals:
        module = ""
        if p.module:
            params = " ".join(f"{k}={v}" for k, v in (p.params or {}).items())
            module = f"{p.module} {params}".strip()
        block = proposal(p.title, module, p.text, lead=p.heading)
        r = g.player(p.author, "\n".join(moves[p.author]) + "\n" + block, "move 1")
        assert not r.subject.startswith("[ERROR]"), r.body
        assert f"Proposal of {p.author.title()} for turn 1 received" in r.flat
        if p.comment:
            r = g.sg(f"COMMENT {p.author} {' '.join(p.comment.split())}")
            assert not r.subject.startswith("[ERROR]"), r.body
    report = g.to_all(g.to_deadline(), "move report, turn 1").body
    seed = seed_text()
    # the moves section is the seed's, line for line
    ours = report.split("Move report:")[1].split("Presented in a random order.")[0]
    theirs = seed.split("Move report:")[1].split("Presented in a random order.")[0]
    assert ours.strip() == theirs.strip()
    # the proposals, numbered in the order drawn from the game's seed, with their texts
    order = presentation_order(proposals, g.state()["seed"], 1)
    assert list(labels(g.to_all(g.mail, "move report, turn 1"))) == [p.title for p in order]
    for k, p in enumerate(order, start=1):
        assert f"P{k}: {p.title}\n\n" in report
        assert p.text.splitlines()[0] in report
    assert "[This is a basically the same as support from the original game, but without a " \
           "mechanism for cutting support. - Sec. Gen.]" in report
    assert "Votes are due by" in report and "Moves for Turn 2 (Autumn) are due by" in report


def test_amend_and_transmute_by_email_and_proposals_with_the_moves_and_votes(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    play_turn_with_votes(g, {"FRANCE": proposal("Support actions", "support")}, None,
                         {"Support actions": "FOR"})
    amend = "\n".join(["PROPOSE Quicker removals", "Amend rule 25 to read:",
                       "MODULE support retreat_days=1",
                       "Support as before; beaten out units have one day to move.", "END"])
    transmute = "\n".join(["PROPOSE Support for ever", "Transmute rule 25.", "END"])
    # one a turn: in one vote the order drawn could put the transmutation first, and an
    # immutable rule cannot be amended
    play_turn_with_votes(g, {"ENGLAND": amend}, None, {"Quicker removals": "FOR"})
    _, result = play_turn_with_votes(g, {"GERMANY": transmute}, None,
                                     {"Support for ever": "FOR"})
    rules = result.body.split("The rules in force from turn 4")[1]
    assert "Rule 25 (immutable): Support actions" in rules
    assert "Support as before; beaten out units have one day to move." in rules
    assert "module support (retreat_days = 1)" in rules
    # proposals come with the moves, which are taken from the move report on: a proposal
    # sent while voting is open is the next turn's
    g.player("ITALY", proposal("Mobile fleets", "mobile_fleets"))
    g.to_deadline()
    assert g.state()["voting"] == 1
    r = g.player("RUSSIA", proposal("Merging units", "merging"), "next proposal")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "Proposal of Russia for turn 5 received" in r.flat
    assert "Voting on the proposals of turn 4 is open until" in r.flat


def test_dipnomicy_commands_elsewhere_are_refused_clearly(tmp_path):
    g = DipGame(tmp_path)
    g.reply(GM, "CREATE std sgpass\nOPEN", "new")
    r = g.reply("p@players.test", "SIGNON France std frpw\nVOTE P1 FOR\n" +
                proposal("Support actions", "support"), "vote")
    assert r.flat.count("is not a Dipnomicy game") == 2, r.body
    r = g.reply("p@players.test", "VOTE P1 FOR", "vote")
    assert "VOTE needs a SIGNON before it" in r.flat
    r = g.reply("p@players.test", "RULES std", "rules")
    assert "is not a Dipnomicy game" in r.flat
    r = g.reply("p@players.test", "VOTE P1 MAYBE", "vote")
    assert "'MAYBE' is not FOR, AGAINST or ABSTAIN" in r.flat


def test_the_sg_mails_the_games_starting_ruleset_before_the_start(tmp_path):
    from judge.variants.dipnomicy.ruleset import INITIAL_RULESET_FILE

    text = INITIAL_RULESET_FILE.read_text(encoding="utf-8")
    first_title = next(line for line in text.splitlines() if line.startswith("title"))
    edited = text.replace(first_title, 'title = "Our own first rule"', 1)
    g = DipGame(tmp_path, name="own", players=5)
    g.reply(GM, "CREATE own sgpass VARIANT dipnomicy\nOPEN", "new")
    # a ruleset that cannot be used is refused with the reason, and changes nothing
    r = g.reply(GM, "MASTER own sgpass\nRULESET\n[[rule]]\nnumber = 1\nEND", "bad ruleset")
    assert r.subject.startswith("[ERROR]") and "a rule lacks its title" in r.flat
    r = g.reply(GM, "MASTER own sgpass\nRULESET\n" + edited + "\nEND\nSETTING vote_days 2",
                "ruleset")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "will start with this ruleset" in r.flat and "Our own first rule" in r.flat
    r = g.reply("someone@players.test", "RULES own", "rules")
    assert "Our own first rule" in r.flat
    for k, a in enumerate(g.addresses[:5]):
        g.reply(a, f"JOIN own seat-{k}", "join")
    g.reply(GM, "MASTER own sgpass\nSTART", "start")
    start_rules = [m for m in g.mail if "the rules in force at the start" in m.subject]
    assert start_rules and all("Our own first rule" in m.body for m in start_rules)
    # once started, the rules change only by proposal and vote
    r = g.reply(GM, "MASTER own sgpass\nRULESET\n" + text + "\nEND", "late ruleset")
    assert r.subject.startswith("[ERROR]") and "has started" in r.flat


def test_observers_and_the_games_list_receive_the_public_reports(tmp_path):
    g = DipGame(tmp_path, name="obs", players=5)
    g.reply(GM, "CREATE obs sgpass VARIANT dipnomicy", "new")
    r = g.reply(GM, "MASTER obs sgpass\nSET LIST obs-list@lists.test", "list")
    assert not r.subject.startswith("[ERROR]"), r.body
    [ask] = [m for m in g.mail if m.rcpt == "obs-list@lists.test"]  # double opt-in
    code = re.search(r"CONFIRM ([0-9a-f]{16})", ask.flat).group(1)
    r = g.reply("owner@lists.test", f"CONFIRM {code}", "confirm")
    assert "is now the mailing list of game obs" in r.flat, r.body
    g.start()
    r = g.reply("watcher@players.test", "OBSERVE obs", "observe")
    assert not r.subject.startswith("[ERROR]"), r.body
    code = re.search(r"CONFIRM ([0-9a-f]{16})", r.flat).group(1)  # double opt-in
    r = g.reply("watcher@players.test", f"CONFIRM {code}", "confirm")
    assert "now observes game obs" in r.flat, r.body
    got = g.to_deadline()
    report = g.published(got, "move report, turn 1")
    assert {"watcher@players.test", "obs-list@lists.test"} <= set(report)
    for address in ("watcher@players.test", "obs-list@lists.test"):
        mail = report[address]
        # an observer's copy ends with how to stop it (docs/operating.md, "Security")
        body, _, footer = mail.body.partition("\nYou receive this because you observe")
        assert body == report[GM].body
        assert bool(footer) == (address == "watcher@players.test")
        assert "obs" in mail["List-Id"] and "UNOBSERVE" in mail["List-Unsubscribe"]
