"""A sign-on from an address that has never confirmed waits until it does (issue 23, the last
hole): JOIN, SIGNON of a free power or of a held seat from a new address, TAKEOVER. The reply
is the one confirmation request; replying to it, or CONFIRM <code>, confirms the address for
good and does the sign-ons that waited. A flood of forged sign-ons gets the address one mail.
Through the real mail servers: the sink records the envelope recipient postfix relayed to."""

from __future__ import annotations

import re

from gmkit import (
    addr,
    confirm_code,
    gm,
    gm_addr,
    new_game,
    open_game,
    seats,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)

VICTIM = "victim@elsewhere.test"
NEWBIE = "newbie@elsewhere.test"








def test_a_forged_join_asks_once_and_seats_no_one(judge):
    g = "fj1"
    open_game(judge, g)
    judge.send(VICTIM, f"JOIN {g} Italy pw-italy\nA VEN H", subject="join")
    [reply] = to(judge.pump(), VICTIM)
    assert "Italy" not in seats(judge, g)
    assert "has not yet shown this judge that it reads its mail" in reply.flat, reply.body
    assert "reply YES to this mail" in reply.flat and len(confirm_code(reply)) >= 16
    # the order after it is not lost silently
    assert "waits for this address to confirm; send your orders again" in reply.flat


def test_a_waiting_sign_on_is_not_said_to_be_carried_out(judge):
    """A newcomer's first JOIN: the reply began "Your mail was read and carried out." above
    "Not yet done: ..." (newhost33: the first thing a new player reads contradicted the
    second). Its first line now says the sign-on waits; a sign-on that acts says as before."""
    g = "wj1"
    open_game(judge, g)
    judge.send(NEWBIE, f"JOIN {g} Italy pw-italy", subject="join")
    [reply] = to(judge.pump(), NEWBIE)
    assert reply.body.startswith("Your mail was read; the sign-on in it is not done yet: it "
                                 "waits for this\naddress to confirm (below).\n"), reply.body
    assert "carried out" not in reply.body
    judge.send(NEWBIE, f"CONFIRM {confirm_code(reply)}", subject="confirm")
    judge.pump()
    judge.send(NEWBIE, f"SIGNON Italy {g} pw-italy", subject="again")
    [again] = to(judge.pump(), NEWBIE)
    assert again.body.startswith("Your mail was read and carried out.\n"), again.body


def test_a_flood_of_forged_sign_ons_gets_the_address_one_mail(judge):
    """JOINs of several games, a SIGNON to a held seat, a TAKEOVER, each in its own mail:
    the first mail's reply is the one request; the others wait with it, unanswered."""
    new_game(judge, "fl0", ["REMINDER OFF"])
    gm(judge, "fl0", "EJECT Turkey")
    for g in ("fl1", "fl2", "fl3"):
        open_game(judge, g)
    bodies = [f"JOIN fl{k} France pw-france" for k in (1, 2, 3)] + [
        f"SIGNON ITALY fl{k} pw-italy" for k in (1, 2)] + [
        "SIGNON ITALY fl0 pw-italy\nA VEN H", "TAKEOVER Turkey fl0 pw-turkey",
        "JOIN fl1 France pw-france"]
    out = []
    for body in bodies:
        judge.send(VICTIM, body)
        out += judge.pump()
    out += gm(judge, "fl0", "PROCESS")
    assert len(to(out, VICTIM)) == 1, "\n\n".join(m.flat[:400] for m in to(out, VICTIM))
    assert seats(judge, "fl0")["ITALY"] == addr("fl0", "ITALY")
    assert "TURKEY" not in seats(judge, "fl0")
    assert all(VICTIM not in seats(judge, g).values() for g in ("fl1", "fl2", "fl3"))


def test_a_reply_to_the_request_seats_and_later_sign_ons_act_at_once(judge):
    g1, g2 = "cr1", "cr2"
    open_game(judge, g1)
    open_game(judge, g2)
    judge.send(NEWBIE, f"JOIN {g1} Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, f"JOIN {g2} England pw-england", subject="join again")  # before answering
    assert not to(judge.pump(), NEWBIE)  # waits with the first: one request a day
    judge.send(NEWBIE, "", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), NEWBIE)
    assert seats(judge, g1)["ITALY"] == NEWBIE and seats(judge, g2)["ENGLAND"] == NEWBIE
    assert f"You have joined game {g1} as Italy" in done.flat, done.body
    assert f"You have joined game {g2} as England" in done.flat, done.body
    # confirmed for good: the next sign-on acts at once, and with the password chosen
    g3 = "cr3"
    open_game(judge, g3)
    judge.send(NEWBIE, f"JOIN {g3} Russia pw-russia\nSIGNON ITALY {g1} pw-italy", subject="j3")
    [now] = to(judge.pump(), NEWBIE)
    assert f"You have joined game {g3} as Russia" in now.flat, now.body
    assert f"Signed on as Italy in game {g1}" in now.flat, now.body


def test_confirm_moves_a_held_seat_to_its_players_new_address(judge):
    """A player whose seat is held signs on from a new address: it moves once the new
    address confirms, and the game's mail goes there."""
    g = "mv1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.send(NEWBIE, f"SIGNON ITALY {g} pw-italy", subject="moved")
    [asked] = to(judge.pump(), NEWBIE)
    assert seats(judge, g)["ITALY"] == addr(g, "ITALY")
    judge.send(NEWBIE, f"CONFIRM {confirm_code(asked)}")
    [done] = to(judge.pump(), NEWBIE)
    assert f"{NEWBIE} now plays Italy in game {g}" in done.flat, done.body
    assert seats(judge, g)["ITALY"] == NEWBIE
    out = gm(judge, g, "PROCESS")
    assert to(out, NEWBIE) and not to(out, addr(g, "ITALY"))


def test_an_address_that_confirmed_anything_signs_on_at_once(judge):
    g = "ob1"
    open_game(judge, g)
    judge.send(NEWBIE, f"OBSERVE {g}")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, "CONFIRM " + re.search(r"CONFIRM (\w+)", asked.flat).group(1))
    judge.pump()
    judge.send(NEWBIE, f"SIGNON AUSTRIA {g} pw-austria")
    [joined] = to(judge.pump(), NEWBIE)
    assert f"You have joined game {g} as Austria" in joined.flat, joined.body
    assert seats(judge, g)["AUSTRIA"] == NEWBIE


def test_a_game_starts_with_its_confirmed_players_only(judge):
    """The master sees who plays: a sign-on that waits holds no seat, and a power taken
    meanwhile makes the late confirmation say so."""
    g = "st1"
    open_game(judge, g)
    judge.send(VICTIM, f"SIGNON ENGLAND {g} pw-england")
    [asked] = to(judge.pump(), VICTIM)
    judge.send(addr(g, "ENGLAND"), f"SIGNON ENGLAND {g} pw-mine")
    judge.pump()  # also unconfirmed: it waits as well
    assert "ENGLAND" not in seats(judge, g)
    judge.send(addr(g, "ENGLAND"), f"SIGNON ENGLAND {g} pw-mine")  # the same again
    judge.pump()
    judge.send(VICTIM, f"CONFIRM {confirm_code(asked)}")
    judge.pump()
    assert seats(judge, g)["ENGLAND"] == VICTIM
    judge.send(addr(g, "ENGLAND"), "CONFIRM " + judge.store.one(
        "SELECT token FROM observer_requests WHERE address = ?", (addr(g, "ENGLAND"),))["token"])
    [late] = to(judge.pump(), addr(g, "ENGLAND"))
    assert "could not be done now: England in game st1 already has a player" in late.flat, \
        late.body


def test_a_forged_confirm_code_is_refused(judge):
    open_game(judge, "gu1")
    judge.send(VICTIM, "JOIN gu1 Italy pw-italy")
    judge.pump()
    judge.send("attacker@evil.test", "CONFIRM 0123456789abcdef")
    [r] = to(judge.pump(), "attacker@evil.test")
    assert "is not a confirmation code" in r.flat, r.body
    assert "ITALY" not in seats(judge, "gu1")


def test_a_dipnomicy_join_waits_and_keeps_its_password(judge):
    g = "dn1"
    judge.send(gm_addr(g), f"CREATE {g} gm-{g} VARIANT dipnomicy\nOPEN")
    judge.pump()
    judge.send(NEWBIE, f"JOIN {g} seat-pass")
    [asked] = to(judge.pump(), NEWBIE)
    assert not seats(judge, g)
    judge.send(NEWBIE, "", subject="Re: x", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), NEWBIE)
    assert f"You have joined game {g}" in done.flat, done.body
    from judge.games.auth import verify_password

    [row] = judge.store.players(judge.game(g)["id"])
    assert row["address"] == NEWBIE and verify_password("seat-pass", row["password_hash"])


def test_a_forged_create_puts_the_address_on_no_game_mail(judge):
    """The attacker creates a game in the victim's name and runs it under MASTER from its own
    address: the victim gets the CREATE's reply, never the game's reports or notices."""
    g = "fc1"
    judge.send(VICTIM, f"CREATE {g} gm-{g}\nOPEN")
    [created] = to(judge.pump(), VICTIM)
    assert "once it confirms that it reads its mail" in created.flat, created.body
    from gmkit import POWERS
    from mailkit import confirmed

    confirmed(judge.store, *[addr(g, p) for p in POWERS])
    for p in POWERS:
        judge.send(addr(g, p), f"SIGNON {p} {g} pw-{p.lower()}")
    judge.pump()
    out = gm(judge, g, "START\nPROCESS\nPAUSE\nRESUME")
    assert to(out, addr(g, "ITALY")) and not to(out, VICTIM), [m.subject for m in out]
    # the master's answer: the game's mail comes from then on
    judge.send(VICTIM, "", subject="Re: x", In_Reply_To=created["Message-ID"])
    [ok] = to(judge.pump(), VICTIM)
    assert f"receives the reports and notices of game {g} as its master" in ok.flat, ok.body
    assert to(gm(judge, g, "PROCESS"), VICTIM)


def test_a_takeover_waits_and_everyone_is_told_once_it_is_done(judge):
    """The notice of a TAKEOVER goes out when the seat is taken, not when it was asked."""
    g = "tk1"
    new_game(judge, g, ["REMINDER OFF"])
    gm(judge, g, "EJECT Turkey")
    judge.send(NEWBIE, f"TAKEOVER Turkey {g} pw-new")
    out = judge.pump()
    [asked] = to(out, NEWBIE)
    assert "your TAKEOVER of Turkey" in asked.flat, asked.body
    assert not to(out, addr(g, "ITALY")) and "TURKEY" not in seats(judge, g)
    judge.send(NEWBIE, f"CONFIRM {confirm_code(asked)}")
    out = judge.pump()
    assert seats(judge, g)["TURKEY"] == NEWBIE
    assert [m.subject for m in to(out, addr(g, "ITALY"))] == [f"{g} - Turkey taken over"]


def test_the_last_seat_taken_by_a_confirmation_tells_the_master(judge):
    """The last power is filled when its player's address confirms, not when it wrote: the
    master is told then, as for a sign-on that acts at once, and the player's reply says,
    as the JOIN reply does, that replying works."""
    from mailkit import confirmed
    g = "ls1"
    confirmed(judge.store, gm_addr(g))
    open_game(judge, g)
    powers = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA", "TURKEY"]
    confirmed(judge.store, *[addr(g, p) for p in powers])
    for p in powers:
        judge.send(addr(g, p), f"JOIN {g} {p} pw-{p.lower()}")
    assert not to(judge.pump(), gm_addr(g))
    judge.send(NEWBIE, f"JOIN {g} Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, "", subject="Re: join", In_Reply_To=asked["Message-ID"])
    out = judge.pump()
    [done] = to(out, NEWBIE)
    assert seats(judge, g)["ITALY"] == NEWBIE
    assert "replying to the judge's mail about this game from this address signs you on as " \
        "Italy" in done.flat, done.body
    [told] = to(out, gm_addr(g))
    assert told.subject == f"{g} - every power has a player"


def test_the_yes_that_answered_the_request_is_not_skipped_as_a_sign_off(judge):
    """A reply 'Yes' (or 'No') to a confirmation request with a command in it also got
    "Skipped 'Yes': looks like a sign-off" under the confirmation's answer: a line that
    answers the request is told by that answer, not reported again."""
    g = "cr9"
    open_game(judge, g)
    judge.send(NEWBIE, f"JOIN {g} Italy pw-italy", subject="join")
    [asked] = to(judge.pump(), NEWBIE)
    judge.send(NEWBIE, f"Yes\nLIST {g}\nYes", subject="Re: join",
               In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), NEWBIE)
    assert f"You have joined game {g} as Italy" in done.flat, done.body
    assert f"> LIST {g}" in done.flat, done.body  # the command in it is answered
    assert "sign-off" not in done.flat and "Skipped" not in done.flat, done.body
    # a command above it: not the answer the request wants, and said so once
    judge.send(VICTIM, f"JOIN {g} France pw-france", subject="join")
    [asked] = to(judge.pump(), VICTIM)
    judge.send(VICTIM, f"LIST {g}\nNo", subject="Re: join", In_Reply_To=asked["Message-ID"])
    [done] = to(judge.pump(), VICTIM)
    assert "Not confirmed: a reply to the judge's confirmation request" in done.flat, done.body
    assert "sign-off" not in done.flat and "Skipped" not in done.flat, done.body
