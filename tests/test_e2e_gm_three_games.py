"""Three games at once for three years, driven by the clock alone (civil disorder at every
deadline, one power ordering in one game), with a restart of the judge in the middle.

Checks: every phase is processed once (each reader gets each report once), never before its
deadline and never later than one scheduler tick after it; every reminder goes once, at its
time; after the restart every pending deadline and reminder still happens, once.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta

from gmkit import START, FakeClock, LiveJudge, addr, new_game, orders

from judge.storage import parse_iso

STEP = timedelta(minutes=10)  # the scheduler tick of this test


def test_three_games_for_three_years_with_a_restart(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    games = {
        "tga": (["REMINDER 6h"], "1d 12h 12h"),
        "tgb": (["ZONE America/New_York", "TIME 18:00"], "36h 12h 12h"),
        "tgc": (["DAYS MON-FRI", "REMINDER 6h"], "2d 1d 1d"),
    }
    mail: list = []
    try:
        for g, (settings, lengths) in games.items():
            mail += [(j.clock(), m) for m in new_game(j, g, settings, deadlines=lengths)]
        deadlines: dict[tuple[str, str], str] = {}
        reminders_due: dict[tuple[str, str], object] = {}
        france = {"S1901M": ["A PAR - BUR", "A MAR - SPA", "F BRE - MAO"],
                  "F1901M": ["A SPA H", "F MAO - POR", "A BUR H"]}
        restarted = False
        t = j.clock()
        while any(int(j.game(g)["phase"][1:5]) < 1904 for g in games):
            for g in games:
                game = j.game(g)
                deadlines.setdefault((g, game["phase"]), game["deadline"])
                if game["phase_started"]:
                    rem = {"tga": 6, "tgb": 24, "tgc": 6}[g]
                    at = parse_iso(game["deadline"]) - timedelta(hours=rem)
                    if at > parse_iso(game["phase_started"]):
                        reminders_due[(g, game["phase"])] = at
            phase_a = j.game("tga")["phase"]
            if phase_a in france:
                orders(j, "tga", "FRANCE", france.pop(phase_a))
                mail += [(j.clock(), m) for m in j.pump()]
            if not restarted and t >= START + timedelta(days=9, hours=3):
                j.restart()  # the scheduler's jobs are rebuilt from the database
                assert set(j.scheduler.deadline_jobs()) == {j.game(g)["id"] for g in games}
                restarted = True
            t += STEP
            j.clock.set(t)
            mail += [(t, m) for m in j.tick()]
            assert t < START + timedelta(days=60), "the games never reached 1904"
        assert restarted

        # every processed phase: once, not early, not later than one tick after its deadline
        processed = 0
        done_phases: set[tuple[str, str]] = set()
        for g in games:
            gid = j.game(g)["id"]
            for row in j.store.all("SELECT phase, adjudicated FROM positions WHERE game_id = ? "
                                   "AND adjudicated IS NOT NULL", (gid,)):
                deadline = parse_iso(deadlines[(g, row["phase"])])
                done = parse_iso(row["adjudicated"])
                assert deadline <= done <= deadline + STEP, (g, row["phase"], deadline, done)
                processed += 1
                done_phases.add((g, row["phase"]))
        assert processed >= 3 * 6
        reports = Counter((m.rcpt, m.subject) for _, m in mail if " results" in m.subject)
        assert reports and set(reports.values()) == {1}, reports.most_common(3)
        assert len(reports) == processed * 8

        # reminders: once per power without orders, at the reminder time (within a tick)
        sent = Counter((m.rcpt, m.subject) for _, m in mail if "reminder" in m.subject)
        assert set(sent.values()) == {1}
        for (g, phase), at in reminders_due.items():
            if (g, phase) not in done_phases:  # the phase in hand when the test stopped
                continue
            got = [(when, m) for when, m in mail
                   if m.subject == f"{g} - {phase} reminder: orders due"]
            if phase.endswith("M"):  # every movement phase: all seven, or six in tga
                expected = 6 if g == "tga" and phase in ("S1901M", "F1901M") else 7
                assert len(got) == expected, (g, phase, len(got))
            for when, _ in got:
                assert at <= when <= at + STEP, (g, phase, at, when)
        assert addr("tga", "FRANCE") not in [m.rcpt for _, m in mail
                                              if m.subject.startswith("tga - S1901M remind")]
        # the New York game's deadlines are 18:00 New York time
        for (g, _phase), d in deadlines.items():
            if g == "tgb" and d:
                local = parse_iso(d).astimezone(__import__("zoneinfo").ZoneInfo(
                    "America/New_York"))
                assert (local.hour, local.minute) == (18, 0)
            if g == "tgc" and d:
                assert parse_iso(d).weekday() < 5
        # France's two builds in tga were never ordered: waived at the deadline (civil
        # disorder), and the adjustment phase was processed once, at its deadline
        assert sum(1 for _, m in mail if m.subject == "tga - W1901A results") == 8
        spring = json.loads(j.store.position(j.game("tga")["id"], "S1902M")["position"])
        assert len(spring["centres"]["FRANCE"]) == 5 and len(spring["units"]["FRANCE"]) == 3
        assert ("tga", "W1901A") in done_phases
    finally:
        j.close()
