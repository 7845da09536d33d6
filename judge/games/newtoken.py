"""NEWTOKEN: a player's reply address (judge/mail/replytoken.py) is replaced.

A player whose mail was forwarded, or who fears that someone reads it, sends NEWTOKEN: the
seat's secret is revoked, a mail to the old reply address gets a refusal saying so, and this
reply (like every later mail to the player) carries the new address. Self-contained: the
command table registers :func:`newtoken` as NEWTOKEN's handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.commands.spec import Command, Reply
from judge.games import game as G
from judge.games.game import GameError
from judge.mail import replytoken

if TYPE_CHECKING:
    from judge.games.session import CommandContext, MailSession


def newtoken(actor: CommandContext, ses: MailSession, cmd: Command) -> Reply:
    if not replytoken.enabled(actor.cfg):
        raise GameError('this judge sends no reply addresses ([judge] reply_tokens = "off"): '
                        "there is none to replace")
    ctx = ses.current
    if ctx is None:
        raise GameError("NEWTOKEN needs a sign-on before it: SIGNON <power> <game> <password>, "
                        "or a reply to the judge's mail")
    game = G.refresh(actor.s, ctx.game)
    replytoken.revoke(actor.s, game["id"], ctx.power, "newtoken")
    where = ("Reply-To address" if actor.cfg.reply_tokens == "address"
             else "tag at the end of the Subject")
    return (f"New reply address for {ctx.power.title()} in game {game['name']}: the old one no "
            f"longer works (a mail to it is refused, and says so). This reply and the judge's "
            f"mail to the player from now on carry the new one (its {where}); a password "
            "sign-on works as before.", "text", None)
