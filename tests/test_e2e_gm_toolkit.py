"""The game master's toolkit end to end: process with a phase guard, preview, rollback, eject
and replace, act as a power, edit the position, end the game; SET refusals change nothing."""

from __future__ import annotations

import json

import pytest
from gmkit import FakeClock, LiveJudge, addr, gm, gm_addr, hold_all, new_game, orders, subj, to
from mailkit import POWERS


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def test_process_guard_preview_and_rollback(judge):
    g = "rb1"
    new_game(judge, g, ["REMINDER OFF"])
    orders(judge, g, "FRANCE", ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"])
    orders(judge, g, "GERMANY", ["A MUN - RUH"])
    judge.pump()

    out = gm(judge, g, "PREVIEW")
    assert [m.rcpt for m in out] == [gm_addr(g)] * 2  # the reply and the preview: GM only
    preview = subj(out, "preview (not processed)")[0]
    assert "PREVIEW ONLY: nothing has been processed" in preview.body
    assert "A PAR - BUR                    succeeds" in preview.body
    assert judge.game(g)["phase"] == "S1901M"

    out = gm(judge, g, "PROCESS S1901M")
    assert len(subj(out, f"{g} - S1901M results")) == 8
    # the same mail again (a resend, a double click): the phase guard refuses it
    out = gm(judge, g, "PROCESS S1901M")
    assert [m.rcpt for m in out] == [gm_addr(g)]
    assert "S1901M is not the current phase of game rb1 (it is F1901M): it has already " \
           "been processed, so nothing was done" in out[0].flat
    assert judge.game(g)["phase"] == "F1901M"

    orders(judge, g, "FRANCE", ["A BUR - MUN"])
    judge.pump()
    out = gm(judge, g, "ROLLBACK S1901M")
    r = to(out, gm_addr(g), lambda m: m.subject.startswith("Re:"))[0]
    assert "back in S1901M; the orders of 2 power(s) for that phase are restored" in r.flat
    notices = subj(out, "rolled back to S1901M")
    assert len(notices) == 8
    assert "orders sent for S1901M are restored" in " ".join(notices[0].body.split())
    assert judge.game(g)["phase"] == "S1901M"
    assert judge.store.all("SELECT phase FROM positions WHERE game_id = ?",
                           (judge.game(g)["id"],)) == [{"phase": "S1901M"}]
    assert judge.store.order_set(judge.game(g)["id"], "F1901M", "FRANCE") is None
    # France sees its Spring orders again
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france")
    out = judge.pump()
    assert "A MAR - SPA" in out[0].body
    out = gm(judge, g, "ROLLBACK F1905M")
    assert "has no phase F1905M" in out[0].flat and judge.game(g)["phase"] == "S1901M"


def test_eject_replace_act_edit_and_end(judge):
    g = "tk1"
    new_game(judge, g, ["REMINDER OFF"])
    out = gm(judge, g, "EJECT Italy")
    assert "ejected" in out[0].flat
    notices = subj(out, "Italy ejected")
    assert addr(g, "ITALY") in [m.rcpt for m in notices]  # the ejected player is told too
    assert len(notices) == 8
    assert addr(g, "ITALY") not in [p["address"] for p in judge.store.players(judge.game(g)["id"])]
    out = gm(judge, g, "REPLACE Italy luigi@players.test luigipw")
    [request] = to(out, "luigi@players.test")  # the confirmation request alone
    code = request.flat.split("CONFIRM ")[1].split()[0]
    judge.send("luigi@players.test", f"CONFIRM {code}")
    out = judge.pump()
    assert len(subj(out, "Italy replaced")) == 8
    luigi = to(out, "luigi@players.test", lambda m: "Italy replaced" in m.subject)[0]
    assert "You now play Italy" in luigi.flat
    judge.send("luigi@players.test", f"SIGNON ITALY {g} luigipw\nA VEN H")
    assert "A VEN H" in judge.pump()[0].body

    out = gm(judge, g, "ACT Austria\nA VIE - GAL")  # and Austria's player is told
    reply = to(out, gm_addr(g))[0]
    assert "You act as Austria" in reply.flat and "A VIE - GAL" in reply.body
    assert judge.store.order_set(judge.game(g)["id"], "S1901M", "AUSTRIA")

    out = gm(judge, g, "EDIT ADD France A PIC\nEDIT OWNER BEL France\nEDIT REMOVE F KIE")
    edits = subj(out, "position edited by the master")
    assert len(edits) == 3 * 8
    assert any("added France A PIC" in m.body for m in edits)
    pos = json.loads(judge.store.position(judge.game(g)["id"], "S1901M")["position"])
    assert "A PIC" in pos["units"]["FRANCE"] and "BEL" in pos["centres"]["FRANCE"]
    assert "F KIE" not in pos["units"]["GERMANY"]
    # orders for the old position are cleared
    assert judge.store.order_set(judge.game(g)["id"], "S1901M", "AUSTRIA") is None
    # bad edits: a clear reply each, nothing changed
    out = gm(judge, g, "EDIT ADD France A XYZ\nEDIT ADD France A PAR\nEDIT REMOVE A BOH\n"
                       "EDIT OWNER BOH France")
    body = out[0].flat
    assert "'XYZ' is not a province" in body and "PAR is occupied" in body
    assert "there is no unit in BOH" in body and "'BOH' is not a supply centre" in body
    assert len(out) == 1
    assert json.loads(judge.store.position(judge.game(g)["id"], "S1901M")["position"]) == pos

    out = gm(judge, g, "ENDGAME DRAW France Germany")
    ended = subj(out, f"{g} - game over")
    assert len(ended) == 8
    assert "draw shared by France, Germany" in ended[0].flat
    assert judge.game(g)["status"] == "finished"


def test_set_refusals_change_nothing(judge):
    g = "st1"
    new_game(judge, g)
    before = judge.game(g)["settings"]
    out = gm(judge, g, "SET ZONE Mars/Olympus\nSET TIME 25:00\nSET DAYS FUNDAY\n"
                       "SET GRACE soon\nSET PRESS LOUD\nSET WIBBLE 3\nSET LIST nobody")
    body = out[0].flat
    for reason in ("'Mars/Olympus' is not a time zone", "'25:00' is not a time of day",
                   "'FUNDAY' is not a weekday", "'soon' is not a duration",
                   "write WHITE, GREY, BOTH or NONE", "SET WIBBLE: no such setting",
                   "'nobody' is not an email address"):
        assert reason in body, reason
    assert judge.game(g)["settings"] == before
    # a player cannot change the game's settings
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\nSET GRACE 2d")
    out = judge.pump()
    assert "this is a game master's command" in out[0].flat
    assert judge.game(g)["settings"] == before


def test_draw_votes_are_secret_reset_each_phase_and_unanimous(judge):
    g = "dr1"
    new_game(judge, g, ["REMINDER OFF"])
    for p in POWERS[:6]:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}\nDRAW")
    out = judge.pump()
    assert len(out) == 6 and all("Votes are secret" in m.flat for m in out)  # only replies
    # the phase is processed: votes reset
    spring = hold_all(g)
    for p in POWERS:
        orders(judge, g, p, spring[p])
    judge.pump()
    assert judge.game(g)["phase"] == "F1901M"
    judge.send(addr(g, "TURKEY"), f"SIGNON TURKEY {g} pw-turkey\nDRAW")
    out = judge.pump()
    assert judge.game(g)["status"] == "active" and len(out) == 1
    # a subset is refused in an all-survivors game
    judge.send(addr(g, "ITALY"), f"SIGNON ITALY {g} pw-italy\nDRAW Italy France")
    assert "allows only a draw of all survivors" in judge.pump()[0].flat
    for p in POWERS[:6]:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}\nDRAW")
    out = judge.pump()
    ended = subj(out, f"{g} - game over")
    assert len(ended) == 8
    assert "draw shared by Austria, England, France, Germany, Italy, Russia, Turkey" in \
        ended[0].flat
    assert judge.game(g)["status"] == "finished"


def test_concession(judge):
    g = "cc1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\nCONCEDE France")
    assert "cannot concede to yourself" in judge.pump()[0].flat
    others = [p for p in POWERS if p != "FRANCE"]
    for p in others[:-1]:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}\nCONCEDE France")
    out = judge.pump()
    assert len(out) == 5 and judge.game(g)["status"] == "active"
    judge.send(addr(g, others[-1]), f"SIGNON {others[-1]} {g} pw-x\nCONCEDE France")
    out = judge.pump()  # wrong password: nothing counted
    assert "wrong password" in out[0].flat and judge.game(g)["status"] == "active"
    judge.send(addr(g, others[-1]), f"SIGNON {others[-1]} {g} pw-{others[-1].lower()}\n"
                                    "CONCEDE France")
    out = judge.pump()
    ended = subj(out, f"{g} - game over")
    assert len(ended) == 8 and "France wins" in ended[0].flat
    game = judge.game(g)
    assert game["status"] == "finished" and game["winner"] == "FRANCE"



def to_fall_retreats(judge: LiveJudge, g: str) -> None:
    """Game ``g`` played to F1901R, where Germany's A BUR has dislodged France's A BUR."""
    from mailkit import FALL, SPRING

    new_game(judge, g, ["REMINDER OFF"])
    for season in (SPRING, FALL):
        for p, lines in season.items():
            orders(judge, g, p, lines)
        judge.pump()
    assert judge.game(g)["phase"] == "F1901R"


def test_edit_in_a_retreat_phase_names_the_dislodged_unit(judge):
    """In a retreat phase a province can hold two units: the one that moved in and the one it
    dislodged. EDIT REMOVE A BUR removed the one that moved in, whichever the master meant,
    and nothing removed the dislodged one; a unit EDIT ADD put on a dislodged unit's retreat
    could be retreated onto (two units in one province)."""
    g = "rt1"
    to_fall_retreats(judge, g)

    def position() -> dict:
        return json.loads(judge.store.position(judge.game(g)["id"], "F1901R")["position"])

    before = position()
    out = gm(judge, g, "EDIT REMOVE A BUR\nEDIT REMOVE F BUR\nEDIT REMOVE DISLODGED A MUN\n"
                       "EDIT REMOVE A PIC")
    body = out[0].flat
    assert "BUR holds two armies: Germany A BUR, which stands there, and France A BUR, " \
           "dislodged; write EDIT REMOVE DISLODGED A BUR or EDIT REMOVE STANDING A BUR" in body
    assert "there is no fleet in BUR (Germany A BUR stands there, France A BUR is " \
           "dislodged there)" in body
    assert "there is no dislodged unit in MUN (Germany A MUN stands there)" in body
    assert "there is no unit in PIC" in body
    assert len(out) == 1 and position() == before

    # the German army removed, a unit is added on BUR and on PAR, where the dislodged French
    # army could retreat: it may no longer (it would share PAR with the Italian army)
    out = gm(judge, g, "EDIT REMOVE STANDING A BUR\nEDIT ADD Italy A BUR\nEDIT ADD Italy A PAR")
    assert "ERROR" not in out[0].flat, out[0].body
    assert "removed Germany A BUR" in out[0].flat
    pos = position()
    assert "A BUR" in pos["units"]["ITALY"] and "A BUR" not in pos["units"]["GERMANY"]
    [french] = [d for d in pos["dislodged"]["FRANCE"] if d["unit"] == "A BUR"]
    assert "PAR" not in french["retreats"]
    orders(judge, g, "FRANCE", ["A BUR - PAR"])
    out = judge.pump()
    assert "A BUR cannot retreat to Paris" in out[0].flat, out[0].body

    # still two armies in BUR: the plain form stays refused
    out = gm(judge, g, "EDIT REMOVE A BUR\nEDIT REMOVE DISLODGED A BUR")
    assert "BUR holds two armies: Italy A BUR, which stands there, and France A BUR, " \
           "dislodged" in out[0].flat
    assert "edited: removed the dislodged France A BUR" in out[0].flat
    # the phase has nothing left to order: the master is told how to go on (review34)
    assert ("No unit is dislodged now: send PROCESS to go on at once, or Fall 1901 Retreat "
            "is processed at its deadline.") in out[0].flat, out[0].body
    edits = subj(out, "position edited by the master")
    assert len(edits) == 8 and "removed the dislodged France A BUR" in edits[0].flat
    pos = position()
    assert "A BUR" in pos["units"]["ITALY"]
    assert not any(d["unit"] == "A BUR" for ds in pos.get("dislodged", {}).values() for d in ds)
    # one unit left in BUR: the plain form names it
    out = gm(judge, g, "EDIT REMOVE A BUR")
    assert "removed Italy A BUR" in out[0].flat


def test_edit_of_the_last_dislodged_unit_of_a_paused_game_tells_to_resume(judge):
    """Review35 of 626f3a1: EDIT that left a retreat phase with no dislodged unit told the
    master 'send PROCESS to go on at once, or <phase> is processed at its deadline' even in a
    paused game, where PROCESS is refused ('RESUME it first') and no deadline runs."""
    g = "rt2"
    to_fall_retreats(judge, g)
    out = gm(judge, g, "PAUSE")
    assert judge.game(g)["status"] == "paused", out[0].body
    out = gm(judge, g, "EDIT REMOVE DISLODGED A BUR")
    reply = out[0].flat
    assert "edited: removed the dislodged France A BUR" in reply, out[0].body
    assert "now: send PROCESS" not in reply, out[0].body
    assert ("No unit is dislodged now: once the game resumes (RESUME), send PROCESS to go "
            "on at once, or Fall 1901 Retreat is processed at its deadline.") in reply, \
        out[0].body
