"""A P4 double move through a two-coast territory in a game played by email (issue 22).

``F BOT -- StP -- Lvn`` was acknowledged, then failed at the deadline (KeyError 'STP/SC'),
and the game stayed at its phase for ever. Now the turn is adjudicated, the fleet ends in
Livonia, and the game goes on. In-process: the judge's real reading, acting, storage and
Maildir sender, with a clock the test moves."""

from __future__ import annotations

from dipkit import DipGame, play_turn_with_votes, proposal


def test_double_move_through_st_petersburg_by_mail(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    # Turn 1: Russia's fleet into the Gulf of Bothnia while P4 is voted on (and passes).
    _, result = play_turn_with_votes(g, {"ENGLAND": proposal("Mobile fleets", "mobile_fleets")},
                                     {"RUSSIA": "F StP -- BOT"}, {"Mobile fleets": "FOR"})
    assert "PASSED: enacted as rule" in result.body
    ack = g.player("RUSSIA", "F BOT -- StP -- Lvn", "turn 2")
    assert not ack.subject.startswith("[ERROR]"), ack.body
    report = g.to_all(g.to_deadline(), "move report, turn 2").body
    assert "F BOT -- StP/sc -- Lvn\n" in report
    assert "Russia:  F Lvn, A Mos, F Sev, A War" in report
    assert g.game()["phase"] == "S1902M"
