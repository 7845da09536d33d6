"""Dipnomicy end to end through the real mail servers: ``judge serve`` reads the players' and
the SG's mail from its dovecot mailbox over IMAP (delivered by postfix) and sends through
postfix, which relays to the test's sink. One full cycle: random countries, a proposal with
the moves, the move report, votes, the vote result with the new ruleset, and the next turn
showing the enacted rule (P1, support) working. The SG's PROCESS stands in for the moves
deadlines, which are days long (the deadlines are tested with a controllable clock
in-process); the vote closes early, once every player has voted."""

from __future__ import annotations

import re

from dipkit import proposal
from mailkit import JudgeProcess, SinkBackend, imap_config, subject_has, unique, write_config


def test_dipnomicy_cycle_over_imap_and_smtp(judge_mailbox, smtp_sink, tmp_path):
    env = judge_mailbox
    judge = JudgeProcess(write_config(tmp_path, imap_config(env, tmp_path)), tmp_path).start()
    try:
        judge.wait_log("IMAP: connected")
        domain = f"{unique('dip')}.test"
        b = SinkBackend(smtp_sink, env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]),
                        f"judge@{env['MAILTEST_DOMAIN']}")
        game, sg = unique("d"), f"sg@{domain}"
        players = [f"player{k}@{domain}" for k in range(7)]
        b.send(sg, f"CREATE {game} sgpass VARIANT dipnomicy\nOPEN", "new game")
        created = b.wait(sg, subject_has("new game"), 60)
        assert "created; you are its master" in created.body
        if b.confirm(sg, created, "confirm master"):  # the game's mail reaches it then
            b.wait(sg, subject_has("confirm master"), 60)
        # each answers the judge's confirmation request, as a new player does
        for r in b.sign_on([(a, f"JOIN {game} pw-{k}") for k, a in enumerate(players)], "join",
                           60):
            assert "drawn at random" in r.flat, r.body
        b.send(sg, f"MASTER {game} sgpass\nSTART", "start")
        country: dict[str, str] = {}  # country -> address
        login: dict[str, str] = {}
        for k, a in enumerate(players):
            notice = b.wait(a, subject_has("the game has started"), 60)
            c = re.search(r"You play (\w+)\.", notice.body).group(1).upper()
            country[c], login[c] = a, f"SIGNON {c} {game} pw-{k}"
        assert len(country) == 7

        def send(c: str, body: str, label: str) -> str:
            b.send(country[c], f"{login[c]}\n{body}", label)
            r = b.wait(country[c], subject_has(label), 60)
            assert not r.subject.startswith("[ERROR]"), r.body
            return r.flat

        ack = send("FRANCE", "A Par -- Pic\n" + proposal("Support actions", "support"), "t1")
        assert "Proposal of France for turn 1 received" in ack and "Deadline:" in ack
        b.send(sg, f"MASTER {game} sgpass\nPROCESS", "process 1")
        for a in [*players, sg]:
            report = b.wait(a, subject_has("move report, turn 1"), 60)
            assert "P1: Support actions" in report.body and "A Par -- Pic" in report.body
            assert "Votes are due by" in report.body
        for c in country:  # all at once: the judge takes them as they come
            b.send(country[c], f"{login[c]}\nVOTE P1 FOR", "vote")
        for c in country:
            ack = b.wait(country[c], subject_has("Re: vote"), 60)
            assert f"Vote of {c.title()} recorded: P1 FOR" in ack.flat, ack.body
        # every player has voted: the deadline engine closes the vote early (this judge has
        # no settling delay), as it processes a phase once every power has ordered
        for a in [*players, sg]:
            result = b.wait(a, subject_has("votes on the proposals of turn 1"), 60)
            assert "PASSED: enacted as rule 25" in result.body
            assert "Rule 25 (mutable): Support actions" in result.body
            assert "Moves for turn 2 are due by" in result.body
        send("FRANCE", "A Pic -- Bur\nA Mar S A Pic -- Bur", "t2")
        send("GERMANY", "A Mun -- Bur", "t2")
        b.send(sg, f"MASTER {game} sgpass\nPROCESS", "process 3")
        for a in [*players, sg]:
            report = b.wait(a, subject_has("move report, turn 2"), 60)
            assert "A Pic -- Bur\n" in report.body and "A Mun -- Bur (failed" in report.body
    finally:
        assert judge.stop() == 0, judge.log.read_text()


def test_dipnomicy_reminder_and_late_notice_over_imap_and_smtp(judge_mailbox, smtp_sink,
                                                               tmp_path):
    """The deadline engine reminds the players whose moves are not in, and tells them when
    the deadline has passed, in Dipnomicy's words, through the real servers: once one player
    has moved, the SG moves the deadline to 10 seconds away with the reminder 8 seconds before
    it, with a day's grace. The judge wakes for each at its time; a reminder it wakes for
    only after the deadline is not sent, so the reminder's lead is how late a loaded machine
    may wake it (it was 4 s), and the reminder comes 2 s after the SG's mail."""
    env = judge_mailbox
    judge = JudgeProcess(write_config(tmp_path, imap_config(env, tmp_path)), tmp_path).start()
    try:
        judge.wait_log("IMAP: connected")
        domain = f"{unique('dipr')}.test"
        b = SinkBackend(smtp_sink, env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]),
                        f"judge@{env['MAILTEST_DOMAIN']}")
        game, sg = unique("r"), f"sg@{domain}"
        players = [f"player{k}@{domain}" for k in range(5)]
        b.send(sg, f"CREATE {game} sgpass VARIANT dipnomicy\nSET GRACE 1d\nOPEN",
               "new game")
        created = b.wait(sg, subject_has("new game"), 60)
        assert not created.subject.startswith("[ERROR]"), created.body
        if b.confirm(sg, created, "confirm master"):  # the game's mail reaches it then
            b.wait(sg, subject_has("confirm master"), 60)
        b.sign_on([(a, f"JOIN {game} pw-{k}") for k, a in enumerate(players)], "join", 60)
        b.send(sg, f"MASTER {game} sgpass\nSTART", "start")
        country: dict[str, str] = {}
        for a in players:
            notice = b.wait(a, subject_has("the game has started"), 60)
            c = re.search(r"You play (\w+)\.", notice.body).group(1).upper()
            country[c] = a
        # five of the seven: the first in alphabetical order is one of these three
        moves = {"AUSTRIA": "A Vie H\nA Bud H\nF Tri H", "ENGLAND": "A Lvp H\nF Lon H\nF Edi H",
                 "FRANCE": "A Par H\nA Mar H\nF Bre H"}
        first = sorted(country)[0]
        b.send(country[first], f"SIGNON {first} {game} pw-{players.index(country[first])}\n"
               f"{moves[first]}", "moves")
        ack = b.wait(country[first], subject_has("moves"), 60)
        assert not ack.subject.startswith("[ERROR]"), ack.body
        b.send(sg, f"MASTER {game} sgpass\nSET REMINDER 8s\nDEADLINE 10s", "reminder soon")
        r = b.wait(sg, subject_has("reminder soon"), 60)
        assert "Deadline of S1901M set to" in r.flat, r.body
        for c, a in country.items():
            if c == first:
                continue
            reminder = b.wait(a, subject_has("reminder"), 90)
            assert "moves and proposals for turn 1 are due by" in reminder.flat, reminder.body
            assert c.title() in reminder.body
        assert not [m for m in smtp_sink.for_rcpt(country[first]) if "reminder" in m.subject]
        for c, a in country.items():
            if c == first:
                continue
            late = b.wait(a, subject_has("late: orders missing"), 90)
            assert "the deadline of the moves for turn 1 has passed" in late.flat, late.body
            assert "The grace period ends" in late.flat
        assert not [m for m in smtp_sink.for_rcpt(country[first]) if "late" in m.subject]
    finally:
        assert judge.stop() == 0, judge.log.read_text()
