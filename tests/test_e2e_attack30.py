"""What an outside attack on the judge found (session 30), each through the real mail
servers: a player's or a stranger's mail, and what the judge mailed back."""

from __future__ import annotations

import logging
import re
from datetime import timedelta

from gmkit import (
    addr,
    gm,
    gm_addr,
    new_game,
    open_game,
    seats,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)
from mailkit import send_smtp

VICTIM = "victim@elsewhere.test"


def test_help_with_words_after_it_is_answered_once_too(judge):
    """HELP answers the same whatever follows it, so 'HELP 1' ... 'HELP 100' in a victim's
    name (800 bytes) got the help text 100 times: a 196 KB reply, where 'HELP' x100 gets one
    help text and a line per repeat."""
    judge.send(VICTIM, "HELP")
    [once] = to(judge.pump(), VICTIM)
    judge.send(VICTIM, "".join(f"HELP {k}\n" for k in range(100)))
    [reply] = to(judge.pump(), VICTIM)
    assert len(reply.raw) < len(once.raw) + 12_000, len(reply.raw)
    assert reply.flat.count("answered above") == 99, reply.flat[-600:]


def test_absences_end_to_end_are_one_absence_for_the_longest(judge):
    """SET ABSENCE is at most the game's ABSENCE (14 days) long, but each line was measured
    alone: six of them end to end in one mail moved the deadline 84 days (any number, as
    long as the player likes), and told nobody else. Absences of one power with no whole
    phase between them count as one: the second is refused, the deadline stays."""
    g = "ab1"
    new_game(judge, g, ["REMINDER OFF"])  # 48h movement, 24h retreats and adjustments
    judge.pump()
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               "SET ABSENCE 2026-11-25 TO 2026-12-08\n"
               "SET ABSENCE 2026-12-09 TO 2026-12-22\n"
               "SET ABSENCE 2026-12-23 TO 2027-01-05\n"
               "SET ABSENCE 2027-01-07 TO 2027-01-20\n"
               "SET ABSENCE 2027-01-09 TO 2027-01-20")
    [r] = to(judge.pump(), addr(g, "FRANCE"))
    assert "The current deadline moves to Wed 09 Dec 2026" in r.flat, r.body
    assert "ERROR: with the absence of France from Wed 25 Nov 2026 00:00 UTC to Wed 23 Dec" \
        in r.flat, r.body
    assert "absences with no whole phase between them count as one" in r.flat, r.body
    # 14 days after the first ends is another absence; a day after that one ends is not (a
    # retreat begun when it ends would be due inside the next); 3 days after is not either:
    # a phase is played between, but 25 days away of 28 is more than 14 of any 28
    assert "Absence of France recorded: Wed 23 Dec 2026" in r.flat, r.body
    assert "ERROR: with the absence of France from Wed 23 Dec 2026 00:00 UTC to Thu 21 Jan" \
        in r.flat, r.body
    assert "ERROR: with this absence France would be away 25 days of the 28 days from Wed " \
        "23 Dec 2026" in r.flat, r.body
    assert "Deadline: Wed 09 Dec 2026" in r.flat, r.body
    assert judge.store.one("SELECT count(*) AS n FROM absences")["n"] == 2


def test_a_player_away_every_weekend_declares_every_weekend(judge):
    """Absences less than 14 days apart counted as one, past ones too: a player away every
    weekend could declare two weekends of every four (the third: 'with the absence of
    France from Sat 28 Nov ... to Mon 14 Dec'). A weekend moves a deadline past it, and a
    whole phase is played before the next: each is its own, in a week-long game too."""
    g = "ab4"
    new_game(judge, g, ["REMINDER OFF"], deadlines="7d 2d 2d")
    judge.pump()
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               "SET ABSENCE 2026-11-28 TO 2026-11-29\n"
               "SET ABSENCE 2026-12-05 TO 2026-12-06\n"
               "SET ABSENCE 2026-12-12 TO 2026-12-13\n"
               "SET ABSENCE 2026-12-19 TO 2026-12-20")
    [r] = to(judge.pump(), addr(g, "FRANCE"))
    assert "ERROR" not in r.flat, r.body
    for day in ("Sat 28 Nov", "Sat 05 Dec", "Sat 12 Dec", "Sat 19 Dec"):
        assert f"Absence of France recorded: {day} 2026" in r.flat, r.body
    # away the weeks in between too leaves no phase between them: one stretch, refused
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               "SET ABSENCE 2026-11-30 TO 2026-12-11")
    [r] = to(judge.pump(), addr(g, "FRANCE"))
    assert "ERROR: with the absence of France from Sat 28 Nov 2026 00:00 UTC to Mon 14 Dec" \
        in r.flat, r.body
    assert judge.store.one("SELECT count(*) AS n FROM absences")["n"] == 4


def test_set_noabsence_cancels_the_absences_to_come(judge):
    """There was no way to take an absence back: one with a wrong date stood, and (counted
    with the right one) could refuse it. SET NOABSENCE cancels the power's absences still
    to come and names them; one that has moved a deadline stays (else absence, cancel,
    absence... would move it on without end), and the reply says so."""
    g = "ab5"
    new_game(judge, g, ["REMINDER OFF"])
    judge.pump()
    me = addr(g, "FRANCE")
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET NOABSENCE")
    [r] = to(judge.pump(), me)
    assert "France has no absence to come in game ab5." in r.flat, r.body
    # meant 2026-12-18 TO 2026-12-28: the typo stands in the way of the right one
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-11-28 TO 2026-12-08")
    judge.pump()
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET ABSENCE 2026-12-10 TO 2026-12-20")
    [r] = to(judge.pump(), me)
    assert "ERROR: with the absence of France from Sat 28 Nov 2026" in r.flat, r.body
    assert "cancel an absence with SET NOABSENCE" in r.flat, r.body
    judge.send(me, f"SIGNON FRANCE {g} pw-france\nSET NOABSENCE\n"
               "SET ABSENCE 2026-12-10 TO 2026-12-20")
    [r] = to(judge.pump(), me)
    assert "Absence of France from Sat 28 Nov 2026 00:00 UTC to Wed 09 Dec 2026 00:00 UTC " \
        "cancelled." in r.flat, r.body
    assert "Absence of France recorded: Thu 10 Dec 2026" in r.flat, r.body
    assert "ERROR" not in r.flat, r.body
    # an absence over the deadline moved it: cancelling it is refused, and the next
    # absence from where it put the deadline is one stretch with it
    judge.send(addr(g, "ITALY"), f"SIGNON ITALY {g} pw-italy\n"
               "SET ABSENCE 2026-11-25 TO 2026-12-06\nSET NOABSENCE\n"
               "SET ABSENCE 2026-12-07 TO 2026-12-20\nSET NOABSENCE extra")
    [r] = to(judge.pump(), addr(g, "ITALY"))
    assert "The current deadline moves to Mon 07 Dec 2026" in r.flat, r.body
    assert "The absence from Wed 25 Nov 2026 00:00 UTC to Mon 07 Dec 2026 00:00 UTC stays: " \
        "it moved the deadline of S1901M" in r.flat, r.body
    assert "ERROR: with the absence of Italy from Wed 25 Nov 2026" in r.flat, r.body
    assert "ERROR: SET NOABSENCE takes nothing after it" in r.flat, r.body
    assert "Deadline: Mon 07 Dec 2026" in r.flat, r.body


NEWBIE = "newbie@elsewhere.test"






def test_confirming_ones_own_sign_on_does_not_do_a_forged_one(judge):
    """A forged JOIN in a new address's name got it one request, which it ignored, as the
    request says. Two days later the address joins a game itself and answers that game's
    request: every sign-on waiting for the address was done, the forged one too, with the
    forger's password (it played Italy in fg1, a game it never asked for, and the forger
    could sign on for it). A confirmation does what the mail it answers asked."""
    open_game(judge, "fg1")
    open_game(judge, "fg2")
    judge.send(NEWBIE, "JOIN fg1 Italy forger-pw", subject="forged")
    [forged] = to(judge.pump(), NEWBIE)
    assert "your sign-on to Italy in game fg1" in forged.flat, forged.body
    judge.clock.set(judge.clock() + timedelta(days=2))
    judge.send(NEWBIE, "JOIN fg2 England my-own-pw", subject="mine")
    [asked] = to(judge.pump(), NEWBIE)
    assert "your sign-on to England in game fg2" in asked.flat, asked.body
    judge.send(NEWBIE, "", subject="Re: mine", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), NEWBIE)
    assert "You have joined game fg2 as England" in done.flat, done.body
    assert "fg1" not in done.flat, done.body
    assert seats(judge, "fg2") == {"ENGLAND": NEWBIE}
    assert seats(judge, "fg1") == {}


def test_confirming_an_observe_does_not_do_a_forged_sign_on(judge):
    """The same through OBSERVE: confirming it did the forged JOIN waiting for the address."""
    open_game(judge, "fo1")
    open_game(judge, "fo2")
    judge.send(NEWBIE, "JOIN fo1 Italy forger-pw", subject="forged")
    judge.pump()
    judge.clock.set(judge.clock() + timedelta(days=2))
    judge.send(NEWBIE, "OBSERVE fo2", subject="watch")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, "CONFIRM " + re.search(r"CONFIRM\s+(\w+)", asked.flat).group(1))
    [done] = to(judge.pump(), NEWBIE)
    assert "now observes game fo2" in done.flat, done.body
    assert "fo1" not in done.flat, done.body
    assert seats(judge, "fo1") == {}


def test_a_line_with_an_odd_character_keeps_its_units_earlier_order(judge):
    """A typo in a revision keeps that unit's earlier order, but a line with a character the
    order reader has no use for (a minus sign U+2212 for the hyphen, a thumbs-up, '#') was
    not read at all, not even for its unit: the unit lost its order and held."""
    g = "od1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.pump()
    italy = addr(g, "ITALY")
    judge.send(italy, f"SIGNON ITALY {g} pw-italy\nA VEN - TYR\nA ROM - APU\nF NAP - ION")
    judge.pump()
    judge.send(italy, f"SIGNON ITALY {g} pw-italy\nA VEN\u2212PIE\nA ROM - APU \U0001f44d\n"
               "F NAP H")
    [r] = to(judge.pump(), italy)
    assert "A VEN keeps its earlier order A VEN - TYR" in r.flat, r.body
    assert "A ROM keeps its earlier order A ROM - APU" in r.flat, r.body
    assert "Units without orders" not in r.flat, r.body


def test_a_code_copied_with_the_comma_after_it_confirms(judge):
    """The request says 'send the line CONFIRM <code>, within 7 days' (OBSERVE's: 'send
    CONFIRM <code>.'): copying the line with its comma or full stop was refused as a code
    never sent, with how to ask again for an observer, a list or a seat, not a sign-on."""
    open_game(judge, "cc1")
    judge.send(NEWBIE, "JOIN cc1 Italy my-own-pw", subject="join")
    [asked] = to(judge.pump(), NEWBIE)
    code = re.search(r"CONFIRM\s+(\w+)", asked.flat).group(1)  # on its own line now
    judge.send(NEWBIE, f"CONFIRM {code},")
    [done] = to(judge.pump(), NEWBIE)
    assert "You have joined game cc1 as Italy" in done.flat, done.body
    assert seats(judge, "cc1") == {"ITALY": NEWBIE}
    judge.send(NEWBIE, "CONFIRM 0123456789abcdef")
    [wrong] = to(judge.pump(), NEWBIE)
    assert "a sign-on by sending it again" in wrong.flat, wrong.body


def test_durations_past_a_year_are_refused_not_an_internal_error(judge):
    """'DEADLINE 99999999d', 'SET GRACE 99999999d' and 'DEADLINE 9999-12-31 23:59' with a
    grace overflowed Python's dates: the master's whole mail was an internal error. 'SET
    MOVEMENT 99999999d' was accepted, and the next PROCESS, or the deadline, failed on it (the
    game paused, every player told it was delayed). Each is refused, saying the longest."""
    g = "du1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.pump()
    out = gm(judge, g, "DEADLINE 99999999d\nSET GRACE 99999999d\nDEADLINE 9999-12-31 23:59\n"
                       "SET MOVEMENT 99999999d\nSET RETREAT 400d\nDEADLINES 2d 1d 999999d\n"
                       "DEADLINE 9999-12-31 23:59 -12:00")
    [r] = to(out, gm_addr(g))
    assert "error of its own" not in r.flat, r.body
    assert r.flat.count("at most 365 days") == 6, r.body
    assert "'9999-12-31 23:59 -12:00' is not a date and time" in r.flat, r.body
    out = gm(judge, g, "PROCESS")
    assert to(out, addr(g, "FRANCE"), lambda m: "S1901M results" in m.subject), \
        [m.subject for m in out]
    assert judge.game(g)["movement_seconds"] == 48 * 3600
    judge.send(gm_addr("du2"), "CREATE du2 gm-du2 DEADLINES 99999999d")
    [r] = to(judge.pump(), gm_addr("du2"))
    assert "at most 365 days" in r.flat and judge.store.game("du2") is None, r.body


def test_a_header_cannot_write_terminal_escapes_into_the_judges_log(judge, caplog):
    """The judge logs why it does not answer a mail, with the Auto-Submitted header's value:
    'auto-replied ESC]0;...BEL ESC[2J' went into the log as it was, to retitle and clear the
    terminal of the keeper who reads the log with tail -f (and journald keeps it as a blob).
    The log line has no control character."""
    caplog.set_level(logging.INFO, logger="judge.acting")
    raw = (b"From: auto@elsewhere.test\r\nTo: " + judge.address.encode() + b"\r\n"
           b"Subject: away\r\nMessage-ID: <esc-1@elsewhere.test>\r\n"
           b"Auto-Submitted: auto-replied\x1b]0;owned\x07\x1b[2J\r\n\r\nHELP\r\n")
    send_smtp(judge.env["MAILTEST_HOST"], int(judge.env["MAILTEST_SMTP_PORT"]),
              "auto@elsewhere.test", judge.address, raw)
    judge.expected += 1
    assert not judge.pump()
    [line] = [r.getMessage() for r in caplog.records if "auto-submitted" in r.getMessage()]
    assert "auto-replied" in line and not re.search("[\x00-\x1f\x7f-\x9f]", line), repr(line)


def test_phases_of_no_length_are_refused_by_deadlines_as_by_set(judge):
    """'SET MOVEMENT 0s' is refused (a phase needs a length), but 'DEADLINES 0s 0s 0s' and
    'CREATE ... DEADLINES 0s' were taken: every phase's deadline is its start, so each
    phase is processed as it begins, with no time for anyone to order."""
    g = "zl1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.pump()
    [r] = to(gm(judge, g, "DEADLINES 0s 0s 0s"), gm_addr(g))
    assert "longer than zero" in r.flat and r.subject.startswith("[ERROR]"), r.body
    assert judge.game(g)["movement_seconds"] == 48 * 3600
    judge.send(gm_addr("zl2"), "CREATE zl2 gm-zl2 DEADLINES 48h 0s 24h")
    [r] = to(judge.pump(), gm_addr("zl2"))
    assert "longer than zero" in r.flat and judge.store.game("zl2") is None, r.body
