"""The deadline engine end to end: real mail in and out, a clock the test moves.

Reminders before the deadline (only to powers without complete orders), late notices at the
deadline and every day of grace, civil disorder at the end of grace, abandonment and takeover,
early processing after the settling delay, SET WAIT, absences, the game's time zone, time of
day and weekdays, pause and resume.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from gmkit import (
    START,
    FakeClock,
    LiveJudge,
    addr,
    gm_addr,
    hold_all,
    new_game,
    orders,
    subj,
    to,
)
from mailkit import POWERS

from judge.storage import parse_iso

TICK = timedelta(minutes=1)


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def _reports(mail, phase):
    return subj([m for _, m in mail] if mail and isinstance(mail[0], tuple) else mail,
                f" - {phase} results")


def test_reminders_late_notices_grace_and_civil_disorder(judge):
    g = "cd1"
    new_game(judge, g, ["REMINDER 12h", "GRACE 2d", "MISSED PROCESS", "ABANDON 1"])
    deadline = parse_iso(judge.game(g)["deadline"])
    assert deadline == START + timedelta(hours=48)
    spring = hold_all(g)
    for p in POWERS:
        if p not in ("ENGLAND", "FRANCE"):
            orders(judge, g, p, spring[p])
    orders(judge, g, "FRANCE", spring["FRANCE"][:1])  # one of three units
    judge.pump()

    early = judge.advance(deadline - timedelta(hours=12) - TICK)
    assert early == []  # nothing before the reminder time
    got = judge.advance(deadline - timedelta(hours=12))
    mails = [m for _, m in got]
    assert sorted(m.rcpt for m in mails) == [addr(g, "ENGLAND"), addr(g, "FRANCE")]
    fr = to(mails, addr(g, "FRANCE"))[0]
    assert fr.subject == f"{g} - S1901M reminder: orders due"
    assert "A MAR" in fr.body and "F BRE" in fr.body and "A PAR" not in fr.body
    assert "Wed 25 Nov 2026 10:00 UTC (in 12 hours)" in fr.body
    assert "F LON" in to(mails, addr(g, "ENGLAND"))[0].body

    got = judge.advance(deadline)  # the deadline: late notices, no processing (grace)
    mails = [m for _, m in got]
    assert not _reports(mails, "S1901M")
    late = subj(mails, "late: orders missing")
    assert sorted(m.rcpt for m in late) == sorted(
        [addr(g, "ENGLAND"), addr(g, "FRANCE"), gm_addr(g)])
    assert "grace period ends Fri 27 Nov 2026 10:00 UTC" in to(late, addr(g, "ENGLAND"))[0].flat
    assert "England, France" in to(late, gm_addr(g))[0].flat

    got = judge.advance(deadline + timedelta(days=1))  # late notices again, one day later
    assert [t for t, m in got] == [deadline + timedelta(days=1)] * 3
    assert all("late" in m.subject for _, m in got)

    got = judge.advance(deadline + timedelta(days=2) + 5 * TICK)
    reports = _reports(got, "S1901M")
    assert len(reports) == 8  # seven players and the master, once each
    assert {t for t, m in got if m in reports} == {deadline + timedelta(days=2)}
    eng = to(reports, addr(g, "ENGLAND"))[0]
    assert "F LON H                        succeeds (no order: holds)" in eng.body, eng.body
    # England and France missed a phase; with ABANDON 1 both are declared abandoned
    abandoned = subj([m for _, m in got], "abandoned")
    england = subj(abandoned, "England abandoned")  # France's come in the relay's order too
    assert len(england) == 8 and len(subj(abandoned, "France abandoned")) == 8
    assert "TAKEOVER England cd1 <password>" in england[0].body
    assert judge.game(g)["phase"] == "F1901M"


def test_wait_for_a_replacement_then_takeover(judge):
    g = "wt1"
    new_game(judge, g, ["MISSED WAIT", "ABANDON 1", "REMINDER OFF"])
    deadline = parse_iso(judge.game(g)["deadline"])
    spring = hold_all(g)
    for p in POWERS:
        if p != "ENGLAND":
            orders(judge, g, p, spring[p])
    judge.pump()
    got = [m for _, m in judge.advance(deadline + timedelta(hours=23))]
    assert not _reports(got, "S1901M")
    assert len(subj(got, "England abandoned")) == 8
    assert len(to(subj(got, "late"), addr(g, "ENGLAND"))) == 1
    got = [m for _, m in judge.advance(deadline + timedelta(days=1))]
    assert len(to(subj(got, "late"), addr(g, "ENGLAND"))) == 1  # daily while waiting
    assert judge.game(g)["phase"] == "S1901M"  # still waiting

    # someone else cannot take over a power that has a player
    judge.send("newbie@players.test", f"TAKEOVER France {g} newpass")
    out = judge.pump()
    assert "France in game wt1 has a player" in to(out, "newbie@players.test")[0].flat
    judge.send("newbie@players.test", f"TAKEOVER England {g} newpass\n" + "\n".join(
        spring["ENGLAND"]))
    out = judge.pump()
    reply = to(out, "newbie@players.test", lambda m: m.subject.startswith("Re:"))[0]
    assert "You now play England in game wt1" in reply.body
    assert "S1901M has been processed" in reply.flat  # the last orders were in
    assert len(subj(out, "England taken over")) == 8
    assert len(_reports(out, "S1901M")) == 8
    assert to(_reports(out, "S1901M"), "newbie@players.test")
    assert not to(_reports(out, "S1901M"), addr(g, "ENGLAND"))  # the old player is gone


def test_a_wait_does_not_hold_a_phase_past_its_deadline(judge):
    """attack31: SET WAIT keeps a phase from being processed early; once the deadline had
    passed with England's orders missing (MISSED WAIT), Germany's wait, sent before it, still
    held the phase when England's orders came in: 'processed at the deadline' (passed), and
    it was, a day later, at the next late notice."""
    g = "wl1"
    new_game(judge, g, ["MISSED WAIT", "REMINDER OFF"])
    deadline = parse_iso(judge.game(g)["deadline"])
    spring = hold_all(g)
    for p in POWERS:
        if p != "ENGLAND":
            orders(judge, g, p, spring[p])
    judge.send(addr(g, "GERMANY"), f"SIGNON GERMANY {g} pw-germany\nSET WAIT")
    judge.pump()
    got = [m for _, m in judge.advance(deadline + timedelta(hours=1))]
    assert not _reports(got, "S1901M") and subj(got, "late")
    orders(judge, g, "ENGLAND", spring["ENGLAND"])
    out = judge.pump()
    reply = to(out, addr(g, "ENGLAND"), lambda m: m.subject.startswith("Re:"))[0]
    assert "asked to wait" not in reply.flat, reply.body
    assert len(_reports(out, "S1901M")) == 8, [m.subject for m in out]
    assert judge.game(g)["phase"] == "F1901M"


def test_a_wait_sent_after_the_deadline_does_not_stop_early_processing(judge_mailbox, smtp_sink,
                                                                       tmp_path):
    """review33: once the deadline has passed a wait holds nothing (0c1a43a), but a SET WAIT
    sent then, while the late orders settled, cancelled their early processing: with MISSED
    WAIT the phase then waited for the next daily late notice, a day, and Germany was told
    it 'will not be processed before its deadline', already passed."""
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), settle="5m")
    try:
        g = "wl2"
        new_game(j, g, ["MISSED WAIT", "REMINDER OFF"])
        deadline = parse_iso(j.game(g)["deadline"])
        spring = hold_all(g)
        for p in POWERS:
            if p != "ENGLAND":
                orders(j, g, p, spring[p])
        j.pump()
        got = [m for _, m in j.advance(deadline + timedelta(hours=1))]
        assert not _reports(got, "S1901M") and subj(got, "late")
        orders(j, g, "ENGLAND", spring["ENGLAND"])
        out = j.pump()
        assert "will be processed early" in to(out, addr(g, "ENGLAND"))[0].flat
        j.send(addr(g, "GERMANY"), f"SIGNON GERMANY {g} pw-germany\nSET WAIT")
        out = j.pump()
        reply = to(out, addr(g, "GERMANY"))[0].flat
        assert "has passed: a wait no longer holds it" in reply, reply
        got = j.advance(j.clock() + 10 * TICK)
        assert len(_reports(got, "S1901M")) == 8, [m.subject for _, m in got]
    finally:
        j.close()


def test_early_processing_after_settling_and_set_wait(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), settle="5m")
    try:
        g = "ep1"
        new_game(j, g, ["REMINDER OFF"])
        spring = hold_all(g)
        for p in POWERS:
            orders(j, g, p, spring[p])
        out = j.pump()
        # the reply to whichever mail completed the orders says when
        said = [m for m in out if "will be processed early, at Mon 23 Nov 2026 10:05 UTC"
                in m.flat]
        assert len(said) == 1, [m.body for m in out]
        assert not _reports(out, "S1901M")
        assert j.advance(START + 4 * TICK) == []
        got = j.advance(START + 10 * TICK)
        assert {t for t, m in got} == {START + 5 * TICK}
        assert len(_reports(got, "S1901M")) == 8

        # Fall: Germany asks to wait; everyone orders; nothing happens until NOWAIT
        j.send(addr(g, "GERMANY"), f"SIGNON GERMANY {g} pw-germany\nSET WAIT")
        out = j.pump()
        assert "Germany waits" in to(out, addr(g, "GERMANY"))[0].flat
        for p in POWERS:
            orders(j, g, p, [f"{u.split()[0]} {u.split()[1]} H" for u in
                             ["A VIE", "A BUD", "F TRI"]] if p == "AUSTRIA" else spring[p])
        out = j.pump()
        assert len([m for m in out if "asked to wait (SET WAIT)" in m.flat]) == 1
        assert [m for _, m in j.advance(j.clock() + timedelta(hours=5))] == []
        t_nowait = j.clock()
        j.send(addr(g, "GERMANY"), f"SIGNON GERMANY {g} pw-germany\nSET NOWAIT")
        out = j.pump()
        assert "will be processed early" in to(out, addr(g, "GERMANY"))[0].flat
        got = j.advance(t_nowait + 10 * TICK)
        assert {t for t, m in got} == {t_nowait + 5 * TICK}
        assert len(_reports(got, "F1901M")) == 8
        # waits belong to a phase: Spring 1902 starts with nobody waiting
        assert j.store.all("SELECT * FROM waits WHERE phase = ?", (j.game(g)["phase"],)) == []
    finally:
        j.close()


def test_zone_time_of_day_weekdays_and_absence(judge):
    g = "tz1"
    # deadlines at 18:00 Paris time, only on Monday, Tuesday and Thursday
    new_game(judge, g, ["ZONE Europe/Paris", "TIME 18:00", "DAYS MON,TUE,THU",
                        "REMINDER OFF"])
    game = judge.game(g)
    # Mon 10:00 UTC + 48h = Wed 11:00 Paris: not a deadline day, so Thursday 18:00 Paris
    assert parse_iso(game["deadline"]) == START + timedelta(days=3, hours=7)
    out = judge.pump()
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france")
    out = judge.pump()
    assert "Deadline: Thu 26 Nov 2026 18:00 CET" in to(out, addr(g, "FRANCE"))[0].body

    # an absence over the deadline pushes it past the end of the absence (and realigns)
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
                                  "SET ABSENCE 2026-11-26 TO 2026-11-30")
    out = judge.pump()
    r = to(out, addr(g, "FRANCE"))[0]
    assert "Absence of France recorded" in r.flat, r.body
    assert "The current deadline moves to Tue 01 Dec 2026 18:00 CET" in r.flat
    # a later phase of the game falls after the absence too; a too long absence is refused
    judge.send(addr(g, "ITALY"), f"SIGNON ITALY {g} pw-italy\n"
                                 "SET ABSENCE 2026-12-01 TO 2027-01-30")
    out = judge.pump()
    r = to(out, addr(g, "ITALY"))[0]
    assert r.subject.startswith("[ERROR]") and "at most 14 days" in r.flat
    assert judge.store.one("SELECT count(*) AS n FROM absences")["n"] == 1
    # processing on the new deadline, not before
    got = judge.advance(START + timedelta(days=8, hours=16), step=timedelta(minutes=30))
    assert {t for t, m in got if " - S1901M results" in m.subject} == {
        START + timedelta(days=8, hours=7)}
    report = subj([m for _, m in got], " - S1901M results")[0]
    # Fall: 48h from Tue 1 Dec 18:00 Paris = Thu 3 Dec 18:00 Paris (a Thursday)
    assert "Deadline: Thu 03 Dec 2026 18:00 CET" in report.body


def test_pause_and_resume(judge):
    g = "pz1"
    new_game(judge, g, ["REMINDER OFF"])
    deadline = parse_iso(judge.game(g)["deadline"])
    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nPAUSE")
    out = judge.pump()
    paused = subj(out, f"{g} - paused")
    assert len(paused) == 8 and "has been paused by its master" in paused[0].body
    got = judge.advance(deadline + timedelta(hours=1), step=timedelta(minutes=30))
    assert not _reports(got, "S1901M")  # the deadline passed while paused: nothing
    still = [(t, m) for t, m in got if "still paused" in m.subject]
    assert len(still) == 16  # one a day (two days), to everyone
    assert {t for t, _ in still} == {START + timedelta(days=1), START + timedelta(days=2)}
    # orders wait while paused
    out_orders = orders(judge, g, "FRANCE", ["A PAR H"])
    out = judge.pump()
    assert "is paused: orders wait" in to(out, addr(g, "FRANCE"))[0].flat
    assert out_orders
    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nRESUME")
    out = judge.pump()
    resumed = subj(out, f"{g} - resumed")
    assert len(resumed) == 8
    new_deadline = parse_iso(judge.game(g)["deadline"])
    assert new_deadline == judge.clock() + timedelta(hours=48)
    assert "Deadline: Fri 27 Nov 2026 11:00 UTC (in 2 days)" in resumed[0].body
    # a repeated RESUME is refused and changes nothing
    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nRESUME")
    out = judge.pump()
    assert "is not paused" in to(out, gm_addr(g))[0].flat
    assert parse_iso(judge.game(g)["deadline"]) == new_deadline


def test_orders_completed_during_grace_are_processed_after_settling(judge_mailbox, smtp_sink,
                                                                    tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), settle="5m")
    try:
        g = "gr1"
        new_game(j, g, ["REMINDER OFF", "GRACE 2d"])
        deadline = parse_iso(j.game(g)["deadline"])
        spring = hold_all(g)
        for p in POWERS[1:]:
            orders(j, g, p, spring[p])
        j.pump()
        got = [m for _, m in j.advance(deadline + timedelta(hours=3), step=timedelta(hours=1))]
        assert len(subj(got, "late")) == 2 and not _reports(got, "S1901M")  # Austria, GM
        late_at = j.clock()
        orders(j, g, "AUSTRIA", spring["AUSTRIA"])
        out = j.pump()
        assert "will be processed early, at Wed 25 Nov 2026 13:05 UTC" in out[0].flat
        got = j.advance(late_at + 10 * TICK)
        assert {t for t, m in got} == {late_at + 5 * TICK}
        assert len(_reports(got, "S1901M")) == 8
    finally:
        j.close()


def test_a_new_deadline_brings_its_own_reminder_and_late_notice(judge):
    g = "nd1"
    new_game(judge, g, ["REMINDER 6h", "GRACE 1d"])
    deadline = parse_iso(judge.game(g)["deadline"])
    got = [m for _, m in judge.advance(deadline + timedelta(hours=1),
                                       step=timedelta(minutes=30))]
    assert len(subj(got, "reminder")) == 7 and len(subj(got, "late")) == 8
    # the master gives one more day: the reminder and the late notice come again, once
    judge.send(gm_addr(g), f"MASTER {g} gm-{g}\nDEADLINE 24h")
    out = judge.pump()  # the master's reply and the players' notices, in the relay's order
    assert "Deadline of S1901M set to Thu 26 Nov 2026 11:00 UTC" in to(out, gm_addr(g))[0].flat
    new = parse_iso(judge.game(g)["deadline"])
    got = judge.advance(new + timedelta(hours=1), step=timedelta(minutes=30))
    reminders = [(t, m) for t, m in got if "reminder" in m.subject]
    assert len(reminders) == 7 and {t for t, _ in reminders} == {new - timedelta(hours=6)}
    lates = [(t, m) for t, m in got if "late" in m.subject]
    assert len(lates) == 8 and {t for t, _ in lates} == {new}


def test_no_grace_and_missed_process_still_tells_late_powers(judge):
    """The default grace (none) with MISSED PROCESS: the phase is processed at the deadline,
    and the powers without complete orders are told so (issue 17, item 8)."""
    g = "nograce"
    new_game(judge, g, ["MISSED PROCESS"])
    deadline = parse_iso(judge.game(g)["deadline"])
    spring = hold_all(g)
    for p in POWERS:
        if p not in ("ENGLAND", "FRANCE"):
            orders(judge, g, p, spring[p])
    orders(judge, g, "FRANCE", spring["FRANCE"][:1])  # one of three units
    judge.pump()
    got = judge.advance(deadline + TICK)
    mails = [m for _, m in got]
    assert len(_reports(mails, "S1901M")) == 8
    late = subj(mails, "S1901M late: processed without")
    assert sorted(m.rcpt for m in late) == sorted(
        [addr(g, "ENGLAND"), addr(g, "FRANCE"), gm_addr(g)])
    eng = to(late, addr(g, "ENGLAND"))[0]
    assert "no complete orders from England" in eng.flat
    assert "has been processed now" in eng.flat and "units without orders held" in eng.flat
    assert "grace period ends" not in eng.flat
    fra = to(late, addr(g, "FRANCE"))[0]
    assert "A MAR" in fra.body and "A PAR" not in fra.body
    assert "England, France" in to(late, gm_addr(g))[0].flat
    assert {t for t, m in got if m in late} == {deadline}
    assert judge.game(g)["phase"] == "F1901M"
    # the next phase's deadline brings its own notice, once: nobody orders in the autumn
    deadline = parse_iso(judge.game(g)["deadline"])
    got = judge.advance(deadline + TICK)
    assert len(subj([m for _, m in got], "F1901M late: processed without")) == 8
