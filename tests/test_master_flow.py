"""The game master's generic commands ask the game's flow first (issue 22 #5): in Dipnomicy
ROLLBACK <phase> is Dipnomicy's roll back (its deadline, its vote closed), SET MOVEMENT is
refused as DEADLINES is; in Stab! EDIT tells each player only what the rules let it see."""

from __future__ import annotations

from datetime import timedelta

from dipkit import GM, DipGame, open_vote
from mailkit import POWERS, InProcessJudge
from stabkit import PLACEMENT


def test_dipnomicy_rollback_by_phase_is_dipnomicys(tmp_path):
    g = DipGame(tmp_path)
    open_vote(g)  # turn 1 played, its vote open
    assert g.state()["voting"] == 1 and g.game()["phase"] == "F1901M"
    r = g.sg("ROLLBACK S1901M")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert "back at the start of turn 1" in r.flat, r.body
    assert g.state()["voting"] == 0  # no vote left open
    assert g.game()["phase"] == "S1901M"
    # the moves are due default_move_days (7) from now, not the judge's 2 days
    assert g.deadline() - g.clock() >= timedelta(days=6), g.deadline()
    told = g.published(g.mail[-len(g.countries) - 1:], "rolled back")
    assert set(told) >= set(g.countries.values())


def test_dipnomicy_refuses_set_movement_like_deadlines(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    before = g.game()
    r = g.sg("SET MOVEMENT 2d")
    assert r.subject.startswith("[ERROR]") and "set by the rules" in r.flat, r.body
    assert g.game()["movement_seconds"] == before["movement_seconds"]


def test_dipnomicy_rollback_to_a_phase_no_turn_starts_is_refused(tmp_path):
    g = DipGame(tmp_path)
    open_vote(g)
    r = g.sg("ROLLBACK W1901A")
    assert r.subject.startswith("[ERROR]") and "ROLLBACK <turn>" in r.flat, r.body
    assert g.state()["voting"] == 1 and g.game()["phase"] == "F1901M"


def _stab(tmp_path) -> InProcessJudge:
    judge = InProcessJudge(tmp_path)
    judge.send(GM, "CREATE st1 masterpw VARIANT stab\nOPEN")
    for p in POWERS:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} st1 pw-{p.lower()}")
    judge.send(GM, "MASTER st1 masterpw\nSTART")
    return judge


def test_stab_edit_tells_each_player_only_its_own_part(tmp_path):
    judge = _stab(tmp_path)
    got = judge.send(GM, "MASTER st1 masterpw\nEDIT ADD France A PIC\nEDIT OWNER BEL Germany")
    notices: dict[str, str] = {}
    for m in got:
        if "position edited" in m.subject:
            notices[m.rcpt] = notices.get(m.rcpt, "") + m.flat
    assert set(notices) == {GM, *(f"{p.lower()}@players.test" for p in POWERS)}, got
    assert "A PIC" in notices[GM] and "BEL" in notices[GM]
    assert "A PIC" in notices["france@players.test"]
    assert "BEL" in notices["germany@players.test"]
    for p in POWERS:
        body = notices[f"{p.lower()}@players.test"]
        if p != "FRANCE":
            assert "PIC" not in body, (p, body)
        if p != "GERMANY":
            assert "BEL" not in body, (p, body)


def test_stab_rollback_notice_names_no_unit(tmp_path):
    judge = _stab(tmp_path)
    for p in POWERS:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} st1 pw-{p.lower()}\n"
                   + "\n".join(PLACEMENT[p]))
    judge.send(GM, "MASTER st1 masterpw\nPROCESS")
    assert judge.store.game("st1")["phase"] != "S1901M"
    got = judge.send(GM, "MASTER st1 masterpw\nROLLBACK S1901M")
    notices = [m for m in got if "rolled back" in m.subject]
    assert len(notices) == len(POWERS) + 1
    for m in notices:
        for p in POWERS:
            for line in PLACEMENT[p]:
                assert line.split()[-1] not in m.flat.upper().split(), (m.rcpt, m.body)


def test_every_master_command_in_dipnomicy_keeps_its_state(tmp_path):
    g = DipGame(tmp_path)
    open_vote(g)

    def consistent() -> None:
        st, game = g.state(), g.game()
        assert not st["voting"] or st["vote_deadline"], st
        if game["status"] == "active":
            assert game["deadline"], game

    for body in ["PAUSE", "RESUME", "DEADLINE 3d", "PREVIEW", "ACT France\nA PAR H",
                 "EDIT OWNER BEL France", "SET GRACE 1h", "PROCESS", "ROLLBACK S1901M",
                 "EJECT Italy", "ENDGAME"]:
        r = g.sg(body)
        assert not r.subject.startswith("[ERROR]"), (body, r.body)
        consistent()
    assert g.game()["status"] == "finished"


def test_every_master_command_in_stab_tells_no_player_of_another_powers_unit(tmp_path):
    judge = _stab(tmp_path)
    got = []
    for body in ["EDIT ADD France A PIC", "PAUSE", "RESUME", "DEADLINE 3d", "PREVIEW",
                 "ACT Germany\nPLACE A BER", "SET GRACE 1h", "PROCESS", "ROLLBACK S1901M",
                 "EJECT Italy", "ENDGAME"]:
        sent = judge.send(GM, f"MASTER st1 masterpw\n{body}")
        reply = next(m for m in sent if m.rcpt == GM and "Re: " in m.subject)
        assert not reply.subject.startswith("[ERROR]"), (body, reply.body)
        got += sent
    for m in got:
        if m.rcpt not in (GM, "france@players.test"):
            assert "PIC" not in m.flat.upper().replace("PICTURE", ""), (m.rcpt, m.body)


def test_dipnomicy_rollback_of_a_paused_game_leaves_it_paused(tmp_path):
    """Found by review: Dipnomicy's ROLLBACK set the game 'active' whatever it was, so a
    paused game ran again (paused_at still set) and its moves were processed at the
    deadline; the judge's ROLLBACK keeps a paused game paused."""
    g = DipGame(tmp_path)
    open_vote(g)
    g.sg("PAUSE")
    r = g.sg("ROLLBACK 1")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert (g.game()["status"], g.game()["phase"]) == ("paused", "S1901M")
    g.clock.to(g.deadline() + timedelta(seconds=1))
    g.tick()
    assert (g.game()["status"], g.game()["phase"]) == ("paused", "S1901M")


def test_dipnomicy_rollback_of_an_ended_game_clears_its_result(tmp_path):
    """Found by review: a finished Dipnomicy game rolled back was running again with its
    old result ('drawn: ...') still recorded, as the judge's ROLLBACK clears it."""
    g = DipGame(tmp_path)
    open_vote(g)
    g.sg("ENDGAME DRAW")
    assert g.game()["result"]
    r = g.sg("ROLLBACK 1")
    assert not r.subject.startswith("[ERROR]"), r.body
    game = g.game()
    assert (game["status"], game["result"], game["winner"]) == ("active", None, None)
