"""Each of the seed's P1-P6 enacted by a vote in a game played by email, then a turn whose
outcome shows the rule working; the same turn with the proposal voted down shows the
difference. In-process: the judge's real reading, acting, storage and Maildir sender, with a
clock the test moves (P5 is tested with the deadlines in test_dipnomicy_mail_deadline.py)."""

from __future__ import annotations

import pytest
from dipkit import DipGame, play_turn_with_votes, proposal


def enacted_or_not(tmp_path, enact: bool, proposals: dict[str, str], titles: list[str],
                   players: int = 7) -> DipGame:
    """Turn 1: the proposals, everyone votes FOR (``enact``) or AGAINST; all units hold."""
    g = DipGame(tmp_path, players=players)
    g.start()
    choice = "FOR" if enact else "AGAINST"
    _, result = play_turn_with_votes(g, proposals, None, dict.fromkeys(titles, choice))
    assert result.body.count("PASSED: enacted as rule") == (len(titles) if enact else 0), \
        result.body
    return g


def turn_two(g: DipGame, moves: dict[str, str]) -> tuple[dict, str]:
    """Turn 2's moves (acknowledgements by country) and the move report."""
    acks = {c: g.player(c, m, "turn 2") for c, m in moves.items()}
    report = g.to_all(g.to_deadline(), "move report, turn 2")
    return acks, report.body


@pytest.mark.parametrize("enact", [True, False], ids=["P1 enacted", "P1 voted down"])
def test_p1_support(tmp_path, enact):
    g = enacted_or_not(tmp_path, enact, {"FRANCE": proposal("Support actions",
                                                            "support")}, ["Support actions"])
    acks, report = turn_two(g, {"FRANCE": "A Par -- Bur\nA Mar S A Par -- Bur",
                                "GERMANY": "A Mun -- Bur"})
    if enact:  # two units against one: Paris takes Burgundy
        assert not acks["FRANCE"].subject.startswith("[ERROR]")
        assert "A MAR S A PAR - BUR\n" in acks["FRANCE"].body
        assert "A Par -- Bur\n" in report and "A Mun -- Bur (failed" in report
        assert "France:  F Bre, A Bur, A Mar" in report
    else:  # no support: the order is refused at once and both moves are contested (rule 23)
        assert "support actions are not in the rules" in acks["FRANCE"].flat
        assert "A Par -- Bur (failed: bounced)" in report
        assert "France:  F Bre, A Mar, A Par" in report


@pytest.mark.parametrize("enact", [True, False], ids=["P1 enacted", "P1 voted down"])
def test_p1_beaten_out_unit_is_moved_away_in_the_removal_phase(tmp_path, enact):
    g = DipGame(tmp_path)
    g.start()
    # turn 1: Germany into Burgundy while the support rule is voted on
    play_turn_with_votes(g, {"FRANCE": proposal("Support actions", "support")},
                         {"GERMANY": "A Mun -- Bur"},
                         {"Support actions": "FOR" if enact else "AGAINST"})
    _, report = turn_two(g, {"FRANCE": "A Par -- Bur\nA Mar S A Par -- Bur"})
    if not enact:  # Burgundy is occupied and nothing beats its unit out (rule 19)
        assert "A Par -- Bur (failed" in report and "Beaten out" not in report
        assert g.game()["phase"] == "S1902M"
        return
    assert "Beaten out: each of these units must be moved away by its owner within 2 days" \
        in report and "A Bur (Germany): may move to" in report
    assert "Orders for the next phase are due by" in report  # the removal deadline
    assert g.game()["phase"] == "F1901R"
    r = g.player("GERMANY", "A Bur -- Ruh", "removal")
    assert "A BUR R RUH" in r.body and not r.subject.startswith("[ERROR]"), r.body
    done = g.to_all(g.to_deadline(), "Removals after turn 2 (F1901R)")
    assert "Removals after turn 2 is done." in done.body
    assert "Germany: A Bur -- Ruh" in done.body and "A Ruh" in done.body
    assert "Moves for turn 3 are due by" in done.body


@pytest.mark.parametrize("enact", [True, False], ids=["P2 enacted", "P2 voted down"])
def test_p2_supply_centres_and_upkeep_after_an_even_turn(tmp_path, enact):
    g = enacted_or_not(tmp_path, enact, {"GERMANY": proposal("Supply centres",
                                                             "supply_centres")},
                       ["Supply centres"])
    _, report = turn_two(g, {"GERMANY": "F Kie -- Den"})
    if not enact:  # no centres, no Upkeep: the next turn follows
        assert "Supply centres:" not in report and g.game()["phase"] == "S1902M"
        r = g.player("GERMANY", "Create F Kie", "upkeep")
        assert r.subject.startswith("[ERROR]"), r.body
        return
    assert g.game()["phase"] == "W1901A"
    assert "Germany: Ber, Den, Kie, Mun (4)" in report  # Denmark owned at the Upkeep
    r = g.player("GERMANY", "Create F Kie", "upkeep")
    assert not r.subject.startswith("[ERROR]"), r.body
    done = g.to_all(g.to_deadline(), "Upkeep after turn 2 (W1901A)")
    assert "Upkeep after turn 2 is done." in done.body
    assert "Created: F Kie (Germany)" in done.body
    assert g.game()["phase"] == "S1902M"


@pytest.mark.parametrize("enact", [True, False], ids=["P3 enacted", "P3 voted down"])
def test_p3_more_home_centres(tmp_path, enact):
    """P2 passes in both games; P3 only in one: Russia's Finland and Livonia then count."""
    g = DipGame(tmp_path)
    g.start()
    _, result = play_turn_with_votes(
        g, {"RUSSIA": proposal("More supply centres", "home_centres"),
            "GERMANY": proposal("Supply centres", "supply_centres")}, None,
        {"Supply centres": "FOR", "More supply centres": "FOR" if enact else "AGAINST"})
    assert ("FAILED" in result.body) is not enact
    _, report = turn_two(g, {})
    if not enact:  # nobody has anything to do at the Upkeep: it is skipped
        assert "Russia:  Mos, Sev, StP, War (4)" in report
        assert g.game()["phase"] == "S1902M"
        return
    assert "Russia:  Fin, Lvn, Mos, Sev, StP, War (6)" in report, report
    r = g.player("RUSSIA", "Create A Fin\nCreate A Lvn", "upkeep")
    assert not r.subject.startswith("[ERROR]"), r.body
    done = g.to_all(g.to_deadline(), "Upkeep after turn 2 (W1901A)")
    assert "A Fin (Russia)" in done.body and "A Lvn (Russia)" in done.body


@pytest.mark.parametrize("enact", [True, False], ids=["P4 enacted", "P4 voted down"])
def test_p4_mobile_fleets(tmp_path, enact):
    g = enacted_or_not(tmp_path, enact, {"ENGLAND": proposal("Mobile fleets",
                                                             "mobile_fleets")},
                       ["Mobile fleets"])
    acks, report = turn_two(g, {"ENGLAND": "F Lon -- NTH -- Hel"})
    if enact:
        assert "F Lon -- NTH -- HEL\n" in report
        assert "England: F Edi, F HEL, A Lvp" in report
    else:
        assert "ERROR" in acks["ENGLAND"].body
        assert "England: F Edi, F Lon, A Lvp" in report


@pytest.mark.parametrize("enact", [True, False], ids=["P6 enacted", "P6 voted down"])
def test_p6_merging_and_the_larger_unit_wins(tmp_path, enact):
    g = enacted_or_not(tmp_path, enact, {"AUSTRIA": proposal("Merging units", "merging")},
                       ["Merging units"])
    acks, report = turn_two(g, {"AUSTRIA": "Me A Vie A Bud"})
    if enact:
        assert "Merged away: A Vie" in report and "Austria: 2A Bud, F Tri" in report
    else:
        assert "ERROR" in acks["AUSTRIA"].body
        assert "Austria: A Bud, F Tri, A Vie" in report
    # turn 3: with P6 the larger unit wins a contested move; under rule 23 both fail
    g.player("AUSTRIA", "2A Bud -- Rum" if enact else "A Bud -- Rum")  # as the report writes it
    g.player("RUSSIA", "F Sev -- Rum")
    report3 = g.to_all(g.to_deadline(), "move report, turn 3").body
    assert "F Sev -- Rum (failed" in report3
    if enact:
        assert "A Bud -- Rum\n" in report3 and "Austria: 2A Rum, F Tri" in report3
    else:
        assert "A Bud -- Rum (failed" in report3
