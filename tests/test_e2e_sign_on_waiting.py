"""A genuine sign-on that waits, unanswered, with a confirmation request a forger's sign-on
got its address (session 30), and the code of every confirmation request on a line of its
own. Through the real mail servers: a forged JOIN in a new address's name, then the
address's own JOIN within the day, which gets no reply (the flood bound: one mail a day to
an address that never confirmed)."""

from __future__ import annotations

import re

from gmkit import (
    LiveJudge,
    gm,
    new_game,
    open_game,
    seats,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)

VICTIM = "victim@elsewhere.test"
STRANGER = "stranger@elsewhere.test"






def _forged_then_own(j: LiveJudge) -> object:
    """A forger's JOIN of wa1 in VICTIM's name, then VICTIM's own JOIN of wa2 the same day:
    the request the forgery got, which the victim's own JOIN waits with, unanswered."""
    open_game(j, "wa1")
    open_game(j, "wa2")
    j.send(VICTIM, "JOIN wa1 Italy forger-pw", subject="forged")
    [asked] = to(j.pump(), VICTIM)
    j.send(VICTIM, "JOIN wa2 England victims-pw", subject="mine")
    assert not to(j.pump(), VICTIM)  # the flood bound: one mail a day
    return asked


def _code_line(reply) -> str:
    """The code of a confirmation request, from the line that holds it and nothing else."""
    lines = [line for line in reply.body.splitlines() if "CONFIRM" in line.upper()
             and re.search(r"[0-9a-f]{16}", line)]
    assert lines, reply.body
    assert all(re.fullmatch(r"CONFIRM [0-9a-f]{16}", line) for line in lines), lines
    return lines[0].split()[1]


def test_the_request_says_later_sign_ons_wait_with_it_unanswered(judge):
    """The request told nothing of the silence to come: the address's own JOIN the same day
    got no reply, and its sender could not know why nor what to do."""
    asked = _forged_then_own(judge)
    assert "Other sign-ons sent from this address in the next day wait with this one, " \
        "without a reply" in asked.flat, asked.body


def test_declining_lists_the_sign_ons_dropped_and_a_later_one_is_asked_at_once(judge):
    """The victim declines the forger's request: its own JOIN, which waited with it, was
    dropped without a word. The decline lists what it dropped (game and power, never a
    password), says to send one's own again, and that one gets its own request at once."""
    asked = _forged_then_own(judge)
    judge.send(VICTIM, "No, not me.", subject="Re: forged", In_Reply_To=asked["Message-ID"])
    [declined] = to(judge.pump(), VICTIM)
    assert "Declined" in declined.flat, declined.body
    assert "Italy in game wa1" in declined.flat and "England in game wa2" in declined.flat, \
        declined.body
    assert "If one of them was yours, send it again" in declined.flat, declined.body
    assert "forger-pw" not in declined.body and "victims-pw" not in declined.body
    assert seats(judge, "wa1") == {} and seats(judge, "wa2") == {}
    judge.send(VICTIM, "JOIN wa2 England victims-pw", subject="again")
    [again] = to(judge.pump(), VICTIM)  # a fresh request, the same day
    assert "your sign-on to England in game wa2" in again.flat, again.body
    judge.send(VICTIM, "yes", subject="Re: again", In_Reply_To=again["Message-ID"])
    [done] = to(judge.pump(), VICTIM)
    assert "You have joined game wa2 as England" in done.flat, done.body
    assert seats(judge, "wa2") == {"ENGLAND": VICTIM} and seats(judge, "wa1") == {}


def test_a_decline_does_not_make_forged_sign_ons_act_at_once(judge):
    """The NO came from the mailbox that received the request, but it says 'stop': a
    forged JOIN after it asks again (once a day), it does not seat the address."""
    asked = _forged_then_own(judge)
    judge.send(VICTIM, "NO", subject="Re: forged", In_Reply_To=asked["Message-ID"])
    judge.pump()
    judge.send(VICTIM, "JOIN wa1 Italy forger-pw", subject="forged again")
    [again] = to(judge.pump(), VICTIM)
    assert "Not yet done" in again.flat, again.body
    judge.send(VICTIM, "JOIN wa2 France forger-pw", subject="forged thrice")
    assert not to(judge.pump(), VICTIM)
    assert seats(judge, "wa1") == {} and seats(judge, "wa2") == {}


def test_confirming_lists_the_sign_ons_that_waited_and_how_to_leave_one(judge):
    """The victim answers YES to get its own JOIN done: the forger's was done with it (the
    seat with the forger's password). The reply names every seat the confirmation took,
    says which ones waited unanswered, and how to leave one that was not yours."""
    asked = _forged_then_own(judge)
    judge.send(VICTIM, "yes", subject="Re: forged", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), VICTIM)
    assert "You have joined game wa1 as Italy" in done.flat, done.body
    assert "You have joined game wa2 as England" in done.flat, done.body
    assert "This confirmation did 2 sign-ons: Italy in game wa1, England in game wa2" \
        in done.flat, done.body
    assert "If one of them was not yours, ask that game's master to EJECT the power" \
        in done.flat, done.body
    assert "forger-pw" not in done.body and "victims-pw" not in done.body


def test_every_confirmation_code_stands_on_a_line_of_its_own(judge):
    """The sign-on request wrapped 'send the line CONFIRM' and its code onto two lines: a
    reader copying the line got half of it. Sign-on, OBSERVE, CREATE and the reply that
    was not a yes each show the code alone on its line (SET LIST's and REPLACE's requests,
    templates, did already)."""
    open_game(judge, "cl1")
    judge.send(VICTIM, "JOIN cl1 Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), VICTIM)
    code = _code_line(asked)
    judge.send(VICTIM, "maybe", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [unsure] = to(judge.pump(), VICTIM)
    assert _code_line(unsure) == code
    judge.send(VICTIM, f"CONFIRM {code}")
    [done] = to(judge.pump(), VICTIM)
    assert "You have joined game cl1 as Italy" in done.flat, done.body
    judge.send(STRANGER, "OBSERVE cl1", subject="watch")
    [observe] = to(judge.pump(), STRANGER)
    _code_line(observe)
    judge.send("newgm@elsewhere.test", "CREATE cl2 gm-pw", subject="create")
    [create] = to(judge.pump(), "newgm@elsewhere.test")
    _code_line(create)
    new_game(judge, "cl3", ["REMINDER OFF"])
    judge.pump()
    out = gm(judge, "cl3", "SET LIST list@elsewhere.test")
    [listing] = to(out, "list@elsewhere.test")
    _code_line(listing)
