"""Press: messages between powers, by the judge.

A game's ``press`` setting says what is allowed: ``white`` (signed), ``grey`` (anonymous),
``both`` (signed unless the sender writes GREY) or ``none``. Every message is archived in the
``press`` table; HISTORY shows each reader the press that reader could see when it was sent:
its sender, its recipients, every player for a broadcast (observers too when the game's
``observerpress`` is on), and the master only for broadcasts, unless the game's ``gmpress``
lets the master read everything (and then the players are told so, at the start and on every
press they receive).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from judge.games import archiving
from judge.games import game as G
from judge.games import settings as S
from judge.games.flow import flow_of, game_settings
from judge.games.game import GameError
from judge.games.observers import list_headers, readers
from judge.storage import Store, iso

if TYPE_CHECKING:
    from judge.games.flow import FlowContext

MASTER = "MASTER"


def label(game: dict, power: str | None, reader: str | None) -> str:
    """How a power is named to ``reader``: its name, or what the variant calls it (a Gunboat
    game's pseudonyms, so that press never tells who plays what)."""
    if power is None:
        return "an anonymous power"
    if power == MASTER:
        return "the master"
    return flow_of(game["variant"]).label(game_settings(game), power, reader)


def _names(game: dict, powers: list[str], reader: str | None) -> list[str]:
    """``powers`` as ``reader`` knows them, in the order of those names (in the order of the
    real names, a Gunboat game's pseudonyms would tell who is who)."""
    return sorted(label(game, p, reader) for p in powers)


def power_named(game: dict, text: str, reader: str | None) -> str:
    """The power ``text`` names to ``reader`` (a power; None: the master; "": someone who
    plays no power, a newcomer's TAKEOVER), by the names the reader knows (:func:`label`). In a game that hides the powers behind other names
    (Gunboat's pseudonyms) a player names the others by those alone, and himself by either:
    another power's real name gets the very reply an unknown name gets, so that the reply
    never tells who plays what. The master knows both. GameError when it names none."""
    variant = G.get_variant(game["variant"])
    powers = variant.board.powers
    public = {p: label(game, p, None) for p in powers}  # how the other players know each
    if all(public[p] == p.title() for p in powers):
        return G.power_name(variant, text)
    known = {name.upper(): p for p, name in public.items()}
    if reader is None:
        known.update({p: p for p in powers})
    elif reader:
        known[reader] = reader
    t = text.strip().upper()
    if t in known:
        return known[t]
    matches = sorted({name for name in known if name.startswith(t)}) if t else []
    if len({known[m] for m in matches}) == 1:
        return known[matches[0]]
    if matches:
        raise GameError(f"a power named could be {' or '.join(m.title() for m in matches)}: "
                        "write more of its name")
    # neither the name written (a real name would be quoted beside the pseudonyms) nor the
    # pseudonyms (beside the quoted line) are repeated: the reply ties no name to another
    raise GameError(f"a power named is none of game {game['name']}'s: in this game the other "
                    f"powers go by their pseudonyms (STATUS {game['name']} lists them)")


def gm_reads_press(game: dict) -> bool:
    return bool(S.load(game)["gmpress"])


def _grey(game: dict, flags: list[str]) -> bool:
    mode = S.load(game)["press"]
    words = {f.upper() for f in flags}
    bad = words - {"GREY", "GRAY", "WHITE"}
    if bad:
        raise GameError(f"press does not understand {', '.join(sorted(bad))}: after the "
                        "powers write GREY or WHITE, and the message on the next lines")
    want_grey = bool(words & {"GREY", "GRAY"})
    want_white = "WHITE" in words
    if mode == "none":
        raise GameError(f"game {game['name']} is a no-press game: no messages between powers")
    if mode == "white" and want_grey:
        raise GameError(f"game {game['name']} allows only white (signed) press")
    if mode == "grey" and want_white:
        raise GameError(f"game {game['name']} allows only grey (anonymous) press")
    return mode == "grey" or (mode == "both" and want_grey)


def send(actor: FlowContext, game: dict, sender: str, targets: list[str] | None, flags: list[str],
         body: list[str], now: datetime) -> str:
    """Archive and deliver one message; ``targets`` None is a broadcast. Returns the reply."""
    s = actor.s
    if game["status"] in ("forming",):
        raise GameError(f"game {game['name']} has not opened yet: no press")
    text = "\n".join(body).strip()
    if not text:
        raise GameError("the message is empty: write it on the lines after the PRESS line and "
                        "end it with ENDPRESS")
    grey = _grey(game, flags) if sender != MASTER else False
    if targets is not None:
        targets = sorted({power_named(game, t, None if sender == MASTER else sender)
                          for t in targets})
        if sender in targets:
            targets.remove(sender)
        if not targets:
            raise GameError("press to yourself only: name another power")
    s.execute("INSERT INTO press (game_id, phase, sender, recipients, grey, body, created) "
              "VALUES (?, ?, ?, ?, ?, ?, ?)",
              (game["id"], game["phase"], sender, None if targets is None
               else json.dumps(targets), int(grey), text, iso(now)))
    st = S.load(game)
    shown = None if grey else sender
    sent = 0
    for r in readers(s, game):
        if r.role == "list":
            continue
        if r.role == "player":
            if r.power == sender or (targets is not None and r.power not in targets):
                continue
        elif r.role == "master":
            if sender == MASTER or (targets is not None and not st["gmpress"]):
                continue
        elif r.role == "observer" and (targets is not None or not st["observerpress"]):
            continue
        ctx: dict[str, Any] = {
            "sender": label(game, shown, r.power), "grey": grey, "text": text,
            "to": None if targets is None else _names(game, targets, r.power),
            "gmpress": st["gmpress"], "game": game["name"], "you": r.power, "role": r.role}
        actor.outbox.queue(kind="press", to=r.address,
                           subject=f"{game['name']} - press from {ctx['sender']}",
                           template="press.txt.j2", context=ctx,
                           game_id=game["id"], headers=list_headers(actor.cfg, game,
                                                                     r.address))
        sent += 1
    if targets is None and st["observerpress"]:  # what observers get, in the web archive
        archiving.press(actor.outbox, s, game, f"{game['name']} - press from "
                        f"{label(game, shown, None)}", "press.txt.j2", {
                            "sender": label(game, shown, None), "grey": grey, "text": text,
                            "to": None, "gmpress": st["gmpress"], "game": game["name"]})
    who = "everyone" if targets is None else ", ".join(
        _names(game, targets, None if sender == MASTER else sender))
    note = " The master of this game reads all press." if st["gmpress"] else ""
    return (f"{'Grey (anonymous)' if grey else 'White (signed)'} press sent to {who} in game "
            f"{game['name']}.{note}")


def visible(s: Store, game: dict, power: str | None, role: str) -> list[dict]:
    """The archived press a reader may see: (phase, from, to, text) per message."""
    st = S.load(game)
    out = []
    for row in s.all("SELECT * FROM press WHERE game_id = ? ORDER BY id", (game["id"],)):
        targets = json.loads(row["recipients"]) if row["recipients"] else None
        if role == "master":
            ok = targets is None or st["gmpress"] or row["sender"] == MASTER
        elif role == "player":
            ok = targets is None or row["sender"] == power or power in targets
        else:
            ok = targets is None and bool(st["observerpress"])
        if not ok:
            continue
        shown = row["sender"] if (not row["grey"] or row["sender"] == power) else None
        out.append({"phase": row["phase"], "sender": label(game, shown, power),
                    "to": None if targets is None else _names(game, targets, power),
                    "text": row["body"], "grey": bool(row["grey"])})
    return out
