"""Ways a hostile stranger, a hostile master or a forged From still made the judge mail an
address that never wrote to it more than once (found by the review of issue 23): spellings
of one mailbox the judge counts as different addresses (postfix delivers ``"victim"@x``,
``victim@x.`` and ``"\\v\\ictim"@x`` to ``victim@x``), seat requests from several games,
one mail naming many list addresses, and a forged JOIN or SIGNON that puts an address on a
game's mail without its answer. Through the real mail servers: the sink records the
envelope recipient postfix relayed to, the mailbox the mail really reached."""

from __future__ import annotations

import pytest
from gmkit import (
    addr,
    gm,
    gm_addr,
    new_game,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)

VICTIM = "victim@elsewhere.test"


def test_spellings_of_one_mailbox_get_one_seat_request(judge):
    g = "spell1"
    new_game(judge, g, ["REMINDER OFF"])
    spellings = [VICTIM, '"victim"@elsewhere.test', "victim@elsewhere.test.",
                 '"\\v\\ictim"@elsewhere.test']
    out = []
    for k, (power, address) in enumerate(zip(["Italy", "France", "Germany", "Austria"],
                                             spellings, strict=True)):
        # a mail each: one mail asks one address at most whatever its spelling
        out += gm(judge, g, f"REPLACE {power} {address} newpw{k}")
    # postfix delivered every one of them to the one mailbox
    assert len(to(out, VICTIM)) <= 1, [m.subject for m in to(out, VICTIM)]


def test_one_mail_cannot_make_the_judge_mail_many_strangers(judge):
    attacker = "attacker@evil.test"
    judge.send(attacker, "CREATE spam1 pw-spam1\n" + "\n".join(
        f"SET LIST stranger{i}@elsewhere.test" for i in range(40)))
    out = judge.pump()
    strangers = {m.rcpt for m in out if m.rcpt != attacker}
    # a game has one list and seven seats: no mail needs more strangers than that
    assert len(strangers) <= 8, len(strangers)
    [reply] = [m for m in out if m.rcpt == attacker]
    assert "one mail makes the judge ask at most one address" in reply.flat, reply.body


def test_a_sender_makes_a_bounded_number_of_confirmation_requests_a_day(judge):
    """One a mail, and at most [limits] confirm_requests_per_day (10) a day in all: each
    mail's one request used to be unbounded across mails (a master's game, or a new one)."""
    attacker = "attacker@evil.test"
    judge.send(attacker, "CREATE spam2 pw-spam2\nOPEN")
    judge.pump()
    out = []
    for i in range(12):
        judge.send(attacker, f"MASTER spam2 pw-spam2\nSET LIST stranger{i}@elsewhere.test")
        out += judge.pump()
    strangers = {m.rcpt for m in out if m.rcpt != attacker}
    assert len(strangers) == 10, sorted(strangers)
    last = [m for m in out if m.rcpt == attacker][-1]
    assert "confirm_requests_per_day" in last.flat, last.body


def test_seat_requests_from_many_games_reach_an_address_once_a_day(judge):
    """The list request was once a day whatever game asks; a seat request was once a day
    per game, so three games (or three masters) made three requests."""
    out = []
    for g in ("many1", "many2", "many3"):
        judge.send(gm_addr(g), f"CREATE {g} gm-{g}\nOPEN")
        judge.pump()
        out += gm(judge, g, f"REPLACE Italy {VICTIM} newpw1")
    assert len(to(out, VICTIM)) == 1, [m.subject for m in to(out, VICTIM)]
    replies = [m for m in out if m.rcpt == gm_addr("many3")]
    assert "was asked less than a day ago" in replies[0].flat, replies[0].body


@pytest.mark.parametrize("how", ["JOIN", "SIGNON"])
def test_a_forged_sign_on_does_not_put_a_stranger_on_the_game_mail(judge, how):
    """The attacker creates a game, takes every seat in the victim's name (a forged From)
    and makes the game run: the victim never wrote, yet gets each phase's report."""
    g = f"forged{how[0]}"
    if how == "JOIN":  # the victim's name, from the start
        judge.send(gm_addr(g), f"CREATE {g} gm-{g}\nOPEN")
        judge.pump()
        judge.send(VICTIM, f"SIGNON ITALY {g} pw-italy")
        judge.pump()
        for p in ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA", "TURKEY"]:
            judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
        judge.pump()
        gm(judge, g, "START")
    else:  # a seat the attacker holds, moved to the victim by a sign-on in its name
        new_game(judge, g, ["REMINDER OFF"])
        judge.send(VICTIM, f"SIGNON ITALY {g} pw-italy\nA VEN H")
        judge.pump()
    out = gm(judge, g, "PROCESS\nPROCESS\nPAUSE\nRESUME")
    # the one reply its forged mail got, and nothing of the game's
    assert not to(out, VICTIM), [m.subject for m in to(out, VICTIM)]


@pytest.mark.parametrize("written", ['"victim"@Elsewhere.TEST', "victim@elsewhere.test.",
                                     '"\\v\\ictim"@elsewhere.test', "<victim@ELSEWHERE.test.>"])
def test_a_sender_is_recorded_in_one_spelling(written):
    """The author's address is what the judge records for a player, a master or an
    observer, and what its ceilings count: every spelling of one mailbox is one sender."""
    from judge.mail.reading import read_message

    raw = (f"From: {written}\r\nTo: judge@localhost\r\nSubject: x\r\n"
           "Message-ID: <a@b>\r\n\r\nHELP\r\n").encode()
    assert read_message(raw, None, "judge@localhost").sender == VICTIM


def test_a_master_cannot_name_what_is_no_address(judge):
    g = "plain1"
    new_game(judge, g, ["REMINDER OFF"])
    out = gm(judge, g, "REPLACE Italy @elsewhere.test newpw1")
    [reply] = [m for m in out if m.rcpt == gm_addr(g)]
    assert "is not one plain mail address" in reply.flat, reply.body


def test_a_list_or_seat_request_is_confirmed_by_replying_yes(judge):
    """A reply to any confirmation request answers it by its first line; the list and seat
    requests said only "send CONFIRM <code>" and so hid the simpler way, and NO."""
    g = "ask1"
    new_game(judge, g, ["REMINDER OFF"])
    lister, seated = "list@elsewhere.test", VICTIM
    for command, who in ((f"SET LIST {lister}", lister),
                         (f"REPLACE Italy {seated} newpw1", seated)):
        [request] = to(gm(judge, g, command), who)
        assert "replying YES to this mail" in request.flat, request.body
        assert "reply NO or ignore this mail" in request.flat, request.body
        judge.send(who, "Yes, that was us.", subject=f"Re: {request.subject}",
                   In_Reply_To=request.msg["Message-ID"])
        got = to(judge.pump(), who)
        [answer] = [m for m in got if m.subject.startswith("Re: Confirm:")]
        assert "Confirmed" in answer.flat and "ERROR" not in answer.body, answer.body
    out = gm(judge, g, "PROCESS")
    assert to(out, lister) and to(out, seated), [(m.rcpt, m.subject) for m in out]


def test_wrong_master_passwords_do_not_mail_a_forged_creates_address(judge):
    """attack31: a game CREATEd in the victim's name (a forged From) has the victim as its
    master's address until it answers; five wrong master passwords from the attacker then
    mailed the victim the password-lock notice (naming the attacker), again every half hour
    the lock ran out, for each game the attacker had created so."""
    judge.send(VICTIM, "CREATE lock1 secret-lock1\nOPEN")
    out = judge.pump()
    assert len(to(out, VICTIM)) == 1  # the reply its forged mail got, asking to confirm
    attacker = "attacker@evil.test"
    for k in range(6):
        judge.send(attacker, f"MASTER lock1 guess{k}\nSTATUS")
        out += judge.pump()
    assert len(to(out, VICTIM)) == 1, [m.subject for m in to(out, VICTIM)]
    locking = [m for m in out if m.rcpt == attacker][4]  # the fifth wrong password
    assert "LIMIT: 5 wrong passwords" in locking.flat, locking.body
    assert "owner is told, if its address has confirmed" in locking.flat, locking.body



def declined_in_new_game(judge, g: str) -> None:
    """Game ``g`` created by a master who REPLACEs Italy's player by VICTIM, who answers NO."""
    new_game(judge, g, ["REMINDER OFF"])
    [request] = to(gm(judge, g, f"REPLACE Italy {VICTIM} newpw1"), VICTIM)
    judge.send(VICTIM, "No", subject=f"Re: {request.subject}",
               In_Reply_To=request.msg["Message-ID"])
    [answer] = to(judge.pump(), VICTIM)
    assert "Declined" in answer.flat, answer.body


def test_an_address_that_declined_is_not_asked_again_by_a_master(judge):
    """attack31: the request says 'If nobody here asked for this, reply NO or ignore this
    mail: nothing more will come', and the NO 'the judge sends this address nothing more
    about it'; yet the hostile master's REPLACE (or SET LIST) the next day, and every day
    after, mailed the stranger who had declined a new request. Now a master's request to an
    address that declined one is refused, saying why."""
    from datetime import timedelta

    g = "decl1"
    declined_in_new_game(judge, g)
    for day in (1, 2, 8):
        judge.clock.set(judge.clock() + timedelta(days=1, hours=1))
        out = gm(judge, g, f"REPLACE Italy {VICTIM} newpw{day}\nSET LIST {VICTIM}")
        assert not to(out, VICTIM), (day, [m.subject for m in to(out, VICTIM)])
        [reply] = to(out, gm_addr(g))
        assert "declined" in reply.flat, reply.body


def test_a_forged_unobserve_does_not_undo_an_addresss_no(judge):
    """review33 of 8376e6d: the mark an address's NO leaves was a row of observer_requests
    for the master's game, and UNOBSERVE <game> from the address deletes that game's rows
    for it: the hostile master forged an auto-submitted 'Subject: UNOBSERVE decl2' from the
    victim (honoured, and not answered, so the victim saw nothing), and his next REPLACE
    mailed the victim a new request, every day."""
    from datetime import timedelta

    g = "decl2"
    declined_in_new_game(judge, g)
    judge.send(VICTIM, "", subject=f"UNOBSERVE {g}", Auto_Submitted="auto-replied")
    assert not to(judge.pump(), VICTIM)
    judge.clock.set(judge.clock() + timedelta(days=1, hours=1))
    out = gm(judge, g, f"REPLACE Italy {VICTIM} newpw2")
    assert not to(out, VICTIM), [m.subject for m in to(out, VICTIM)]
    [reply] = to(out, gm_addr(g))
    assert "declined" in reply.flat, reply.body


def test_a_no_to_one_master_does_not_stop_another_masters_seat_request(judge):
    """Reviewer of 8376e6d: the NO's mark stopped every master's request to the address, so
    anyone could CREATE a game, REPLACE a newcomer's address into it, and the newcomer's NO
    (as the request invites) then refused its real master's REPLACE until the newcomer
    confirmed something by itself. The NO stops the master it answered (its games, whatever
    their address's plus tag) and any master whose address has not confirmed (a forged
    CREATE's, a new address each day); a confirmed master's request is sent."""
    from datetime import timedelta

    from mailkit import confirmed

    hostile, real = "grief1", "grief2"
    declined_in_new_game(judge, hostile)
    judge.clock.set(judge.clock() + timedelta(days=1, hours=1))
    new_game(judge, real, ["REMINDER OFF"])
    confirmed(judge.store, gm_addr(real))  # a master that reads the judge's mail
    out = gm(judge, real, f"REPLACE Italy {VICTIM} newpw2")
    [request] = to(out, VICTIM)
    assert "grief2" in request.flat, request.body
    # the hostile master's new game, from a plus tag of its address (both confirmed: its
    # mailbox), is still refused; so is a master whose address never confirmed
    judge.clock.set(judge.clock() + timedelta(days=1, hours=1))
    tagged = gm_addr(hostile).replace("@", "+2@")
    confirmed(judge.store, gm_addr(hostile), tagged)
    for master, game in ((tagged, "grief3"), ("fresh@evil.test", "grief4")):
        judge.send(master, f"CREATE {game} gm-{game}\nOPEN")
        judge.pump()
        judge.send(master, f"MASTER {game} gm-{game}\nREPLACE Italy {VICTIM} newpw3")
        out = judge.pump()
        assert not to(out, VICTIM), (game, [m.subject for m in to(out, VICTIM)])
        [reply] = to(out, master, lambda m: "Re:" in m.subject)
        assert "declined a request from this judge" in reply.flat, reply.body


def test_a_no_does_not_open_the_day_to_another_masters_request(judge):
    """Review35 of 51ec54a: a confirmed other master may ask an address that said NO, 'still
    at most one a day to the address, whoever asks'; but the NO replaced the request it
    answered by its DECLINED mark, which that day's bound did not count, so a hostile master
    with a second confirmed address (its own, cheap: a catch-all domain) had the address
    mailed again the minute it said NO, and again after each NO. The NO counts as that
    day's request: the next master's REPLACE, within the day, mails nothing."""
    from datetime import timedelta

    from mailkit import confirmed

    first, second = "nomore1", "nomore2"
    for game in (first, second):
        new_game(judge, game, ["REMINDER OFF"])
    confirmed(judge.store, gm_addr(first), gm_addr(second))
    [request] = to(gm(judge, first, f"REPLACE Italy {VICTIM} newpw1"), VICTIM)
    judge.clock.set(judge.clock() + timedelta(hours=1))
    judge.send(VICTIM, "No", subject=f"Re: {request.subject}",
               In_Reply_To=request.msg["Message-ID"])
    [answer] = to(judge.pump(), VICTIM)
    assert "Declined" in answer.flat, answer.body
    judge.clock.set(judge.clock() + timedelta(minutes=5))
    out = gm(judge, second, f"REPLACE Italy {VICTIM.upper()} newpw2")
    assert not to(out, VICTIM), [m.subject for m in to(out, VICTIM)]
    [reply] = to(out, gm_addr(second))
    assert "within a day of a NO" in reply.flat, reply.body
    # a day after the NO, the other master's request is sent, as 51ec54a meant
    judge.clock.set(judge.clock() + timedelta(days=1, hours=1))
    [request] = to(gm(judge, second, f"REPLACE Italy {VICTIM} newpw3"), VICTIM)
    assert gm_addr(second).split("@")[0] in request.flat or "nomore2" in request.flat, \
        request.body
