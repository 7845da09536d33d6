"""Signing on by a reply address (judge/mail/replytoken.py): what a mail sent to a seat's
reply address (or keeping its Subject tag) is told, and the seat it is signed on to. The actor
calls :func:`seat` at the start of a mail that holds no SIGNON, in a savepoint; a GameError
it raises is the mail's first error line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.games.game import GameError, WrongPassword
from judge.mail import replytoken

if TYPE_CHECKING:
    from judge.games.session import CommandContext, MailSession


def seat(actor: CommandContext, ses: MailSession, presented: replytoken.Presented) -> str:
    """Sign ``ses`` on as the seat ``presented`` names, or raise GameError saying why not
    (WrongPassword for an address that is none of the seat's: it counts as a guess)."""
    label, sender = presented.label, ses.inbound.sender
    v = replytoken.verify(actor.s, actor.cfg, presented)
    if v.game is None or v.kind == "unknown":
        raise GameError(f"not signed on: this mail went to the reply address {label}, "
                        "which names no power with a player; sign on with SIGNON <power> "
                        "<game> <password>")
    game, power = v.game, v.power
    what = f"{power.title()} in game {game['name']}"
    how = f"sign on with SIGNON {power.title()} {game['name']} <password>"
    if v.kind == "revoked" and v.revoked is not None:
        why = {"newtoken": "its player asked for a new one with NEWTOKEN",
               "taken over": f"{power.title()} was taken over",
               "replaced": f"the player of {power.title()} was replaced",
               "ejected": f"the player of {power.title()} was ejected"}.get(
                   v.revoked["why"], v.revoked["why"])
        raise GameError(f"not signed on: the reply address {label} of {what} no longer "
                        f"works: it was replaced on {v.revoked['revoked'][:16].replace('T', ' ')}"
                        f" UTC because {why}. Reply to the judge's latest mail instead, "
                        f"or {how}")
    scope = f"{game['id']}:{power}"
    actor.guard_password(scope, what)
    if v.kind == "forged" and v.player is not None:
        raise WrongPassword(f"not signed on: {label} is not a reply address of {what} (it "
                            f"counts as a wrong password); {how}", scope, what,
                            v.player["address"])
    assert v.player is not None
    if v.player["address"].strip().lower() != sender.strip().lower():
        raise GameError(f"not signed on: the reply address of {what} works only from its "
                        f"player's own address, and this mail is from {sender}; {how} "
                        "(a password sign-on also makes this address the player's)")
    actor.set_context(ses, game, power)
    ses.signon_failed = False
    return f"Signed on as {power.title()} in game {game['name']} by your reply address."
