"""Taking a seat from an address the judge has not heard back from (issue 23): the judge mails
an address that has never answered it at most once, whoever names it, so a sign-on with a
forged From must not put that address on a game's mail.

A sign-on (JOIN, SIGNON of a free power or of a held seat from a new address, TAKEOVER) from
an address that has not yet confirmed anything is tried in a savepoint, so that it is refused
exactly as it would be; if it would seat the address, it is undone and recorded as a request
(:func:`judge.games.observers.sign_on_request`), and the reply to the mail is the one
confirmation request: replying to it, or sending ``CONFIRM <code>``, confirms the address for
good and does the sign-ons that waited for it (:func:`take`). Orders in the same mail are not
kept (the reply says to send them again). A later sign-on within a day waits with the first,
and its mail is not answered. An address that has confirmed once (any confirmation the judge
records: OBSERVE, a game's list, a seat, a sign-on) signs on at once, as before.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from judge.games import game as G
from judge.games import notices as N
from judge.games import observers as O
from judge.games import press as P
from judge.games.flow import FlowContext, flow_for
from judge.games.game import GameError
from judge.mail import replytoken
from judge.storage import iso

if TYPE_CHECKING:
    from judge.games.session import MailSession

T = TypeVar("T")


class _Undone(Exception):
    """Rolls back a sign-on that was tried only to see that it would succeed."""


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def seat(actor: FlowContext, game: dict, power: str, address: str, password_hash: str,
         now: datetime, change: str) -> None:
    """``address`` plays ``power`` from now on (REPLACE confirmed, TAKEOVER); everyone told."""
    s = actor.s
    if s.player(game["id"], power) is None:
        s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) "
                  "VALUES (?, ?, ?, ?, ?)", (game["id"], power, address, password_hash,
                                             iso(now)))
    else:
        s.execute("UPDATE players SET address = ?, password_hash = ?, state = 'active', "
                  "missed = 0, joined = ? WHERE game_id = ? AND power = ?",
                  (address, password_hash, iso(now), game["id"], power))
    s.execute("INSERT INTO player_changes (game_id, phase, power, change, at) VALUES "
              "(?, ?, ?, ?, ?)", (game["id"], game["phase"], power, change, iso(now)))
    # the absences were the player's who left: they would push the new one's deadlines and
    # count as one stretch with its own (a deadline one has moved already stays where it is)
    s.execute("DELETE FROM absences WHERE game_id = ? AND power = ?", (game["id"], power))
    replytoken.revoke(s, game["id"], power, change)  # the old player's reply address ends
    N.player_change(actor, game, power, change)


def sign_on(actor: FlowContext, ses: MailSession, game: dict, role: str,
            act: Callable[[], T], named: bool = True) -> tuple[T, str | None]:
    """Do ``act`` (a sign-on of the mail's sender in ``game``: ``role`` join or takeover)
    and return ``(its result, None)``; or, when it seats the sender's address where it was
    not and that address has never confirmed, undo it and return ``(its result, the
    reply)``: it waits for the address to confirm. ``named``: the power is the one the
    sender chose (False: a flow's JOIN <game> <password>, whose seat is drawn later)."""
    s, sender = actor.s, ses.inbound.sender
    if s.confirmed(sender):
        return act(), None
    before = {p["power"]: p for p in s.players(game["id"])}
    result: T
    new: dict = {}
    mark = actor.outbox.held_mark()
    try:
        with s.db.atomic():
            result = act()
            new = next((p for p in s.players(game["id"]) if _same(p["address"], sender) and not (
                p["power"] in before and _same(before[p["power"]]["address"], sender))), {})
            if new:
                raise _Undone
    except _Undone:
        pass
    if not new:
        return result, None
    actor.outbox.drop_held(mark)  # the notices the undone sign-on queued tell nothing true
    held = before.get(new["power"])
    if held is not None and role == "join":  # a held seat's password, from a new address
        role, password_hash = "signon", held["password_hash"]
    else:
        password_hash = new["password_hash"]
    power = new["power"] if named else None
    token, ask = O.sign_on_request(s, game, sender, actor.clock(), ses.inbox_id, role, power,
                                   password_hash)
    ses.signon_held = True
    if not ask:
        ses.unanswered = ("a sign-on from an address that has not confirmed, sent a "
                          "confirmation request less than a day ago")
    if token is None:
        return result, (f"Not done: {O.PENDING_SIGN_ONS} sign-ons from {sender} already wait "
                        "for this address to confirm; answer the judge's confirmation request "
                        "first.")
    what = _what(role, game, power)
    return result, (
        f"Not yet done: {sender} has not yet shown this judge that it reads its mail, so "
        f"{what} waits until it does. To confirm within {O.CONFIRM_DAYS} days, reply YES to "
        "this mail (or an empty reply), or send the line\n\n"
        f"CONFIRM {token}\n\n"  # alone on its line: copied whole
        "Then it is done, and from then on your sign-ons act at once. Until then the seat is "
        "not yours and nothing else is sent to this address. Other sign-ons sent from this "
        "address in the next day wait with this one, without a reply: YES does them all, NO "
        "drops them all and names them (then one sent again is asked about at once). Orders "
        "sent with this sign-on are not kept: send them again once you have confirmed. If "
        "you did not send this, reply NO or ignore this mail: nothing more will come.")


def _what(role: str, game: dict, power: str | None) -> str:
    name = game["name"]
    if power is None:
        return f"your JOIN of game {name}"
    if role == "signon":
        return f"your sign-on as {power.title()} in game {name} (from this new address)"
    if role == "takeover":  # as the newcomer named it: Gunboat's pseudonym, not the power
        return f"your TAKEOVER of {P.label(game, power, None)} in game {name}"
    return f"your sign-on to {power.title()} in game {name}"


def reply_hint(actor: FlowContext, game: dict, power: str) -> str:
    """What the reply to a player who joined adds when the judge's mail to that player
    carries the seat's reply address (judge/mail/replytoken.py): replying signs on. Not
    when reply addresses are off, nor for an address holding two seats of the game (its game
    mail carries neither seat's address)."""
    player = actor.s.player(game["id"], power)
    if not replytoken.enabled(actor.cfg) or player is None or sum(
            p["address"].strip().lower() == player["address"].strip().lower()
            for p in actor.s.players(game["id"])) != 1:
        return ""
    return (", or simply reply: replying to the judge's mail about this game from this "
            f"address signs you on as {power.title()}, without the password")

def joined_text(actor: FlowContext, game: dict, power: str) -> str:
    """The reply to a player who just joined ``game`` as ``power`` (at once or on confirming)."""
    return (f"You have joined game {game['name']} as {power.title()}. Sign on with SIGNON "
            f"{power.title()} {game['name']} <password> to send orders"
            f"{reply_hint(actor, game, power)}.")


def taker(actor: FlowContext, ses: MailSession) -> O.TakeSignOn:
    """What does a sign-on that waited once its address confirmed (observers.confirm)."""

    def take(game: dict, row: dict) -> str:
        s, now = actor.s, actor.clock()
        role, power, address = row["role"], row["power"], row["address"]
        name = game["name"]
        ses.games_touched.add(game["id"])
        if role == "join" and power is None:  # a flow's JOIN <game> <password>
            text = flow_for(game).join(actor, game, secrets.token_hex(16), address)
            s.execute("UPDATE players SET password_hash = ? WHERE game_id = ? AND address = ?",
                      (row["password_hash"], game["id"], address))
            return text
        if role == "join":
            flow_for(game).check_join(game)
            G.join_game(s, game, power, "", address, password_hash=row["password_hash"])
            N.seats_filled_after(actor, ses, game)  # the master is told when it fills
            return joined_text(actor, game, power)
        player = s.player(game["id"], power)
        if role == "signon":
            if player is None or player["password_hash"] != row["password_hash"]:
                raise GameError(f"{power.title()}'s password changed meanwhile; sign on again "
                                "with SIGNON")
            s.execute("UPDATE players SET address = ? WHERE id = ?", (address, player["id"]))
            return (f"{address} now plays {power.title()} in game {name}: sign on with "
                    f"SIGNON {power.title()} {name} <password>.")
        if game["status"] not in ("active", "paused"):
            raise GameError(f"game {name} is not running (it is {game['status']})")
        flow_for(game).check_new_player(s, game, power, "TAKEOVER")
        if player is not None and player["state"] != "abandoned":
            raise GameError(f"{P.label(game, power, None)} has a player again")
        seat(actor, game, power, address, row["password_hash"], now, "taken over")
        return (f"You now play {power.title()} in game {name} ({game['phase']}). Your orders go "
                f"in with SIGNON {power.title()} {name} <password>.")

    return take
