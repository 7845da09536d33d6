"""``MAP [game] [phase] [SVG]``: the picture of a game's position, mailed back as a PNG file
(an SVG file when asked), with the orders as arrows when the phase is a movement already
adjudicated.

Kept apart from :mod:`judge.games.acting` so the command is one call there. Who may see what
follows the reports: in an open game anyone may ask (the reports show everyone the whole
board); in a hidden-information game (Stab!) a player signed on to it gets their private map,
its master the whole board, anyone else nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from judge.engine.position import phase_code
from judge.games import game as G
from judge.games.flow import flow_of
from judge.games.game import GameError
from judge.mail.compose import Attachment
from judge.render import svg_to_png
from judge.render.views import map_for
from judge.storage import Store

FORMATS = {"png": "image/png", "svg": "image/svg+xml"}  # the last word of MAP may choose
TEXT_ROOM = 32_000  # of a reply's reply_max_bytes, kept for its text: the rest for pictures
PNG_GUESS = 72_000  # a PNG not drawn yet (base64): standard's are ~52 KB, ~70 KB in base64


@dataclass(slots=True)
class MailMaps:
    """The pictures one mail's MAP lines have attached to its reply: each distinct picture is
    drawn once (a mail of a thousand MAP lines drew a thousand, though a reply carries about
    three), and none is drawn past what the reply can carry (``room``: bytes of base64).
    With ``defer`` (judge serve) a PNG is not drawn here, in the worker that answers everyone,
    but by the pool after the transaction: its SVG waits in ``later`` (file name, SVG) and
    the reply waits in the outbox for it (judge/mail/outbox.py)."""

    room: int
    defer: bool = False
    drawn: dict[tuple, str] = field(default_factory=dict)  # picture -> its file name
    used: int = 0  # bytes the pictures attached take in the mail (base64)
    largest: int = 0  # the largest of them: what the next one is guessed to take
    later: list[tuple[str, str]] = field(default_factory=list)

    limit: int = 0  # the most the reply may be, as sent
    unconfirmed: int = 0  # the limit once the address confirms, when it has not (else 0)
    created: str | None = None  # a game whose CREATE from it waits for it to confirm

    @classmethod
    def for_reply(cls, limit: int, defer: bool = False, unconfirmed: int = 0,
                  created: str | None = None) -> MailMaps:
        """``limit``: the most the reply may be to its recipient (the outbox's reply_limit:
        reply_max_bytes, or [limits] unconfirmed_reply_bytes to an address that has never
        confirmed it reads the judge's mail, ``unconfirmed`` then being the former): a
        picture the outbox would leave out is not drawn."""
        return cls(room=max(0, limit - TEXT_ROOM), defer=defer, limit=limit,
                   unconfirmed=unconfirmed, created=created)

    def full(self, what: str, filename: str) -> GameError:
        if not self.drawn:  # not even one fits
            if self.unconfirmed:
                return GameError(
                    f"{what}, as {filename}, not drawn: a reply to an address that has not "
                    f"confirmed that it reads the judge's mail carries at most {self.limit} "
                    f"bytes, too few for a picture ({self.unconfirmed} once it has: "
                    + (f"if you created game {self.created}, reply YES to the judge's reply "
                       "to your CREATE; otherwise " if self.created else "")
                    + "send OBSERVE <game> and reply YES to the request, then ask again)")
            return GameError(f"{what}, as {filename}, not drawn: a reply carries at most "
                             f"{self.limit} bytes (reply_max_bytes), too few for a picture")
        return GameError(
            f"{what}, as {filename}, not drawn: this reply carries {len(self.drawn)} "
            "picture(s) already, as many as fit in one reply (reply_max_bytes); ask for it "
            "in another mail")

    def fits(self, size: int) -> bool:
        """Whether a picture of ``size`` bytes (base64) fits beside those attached."""
        return self.used + size <= self.room


def _guess(kind: str) -> int:
    """What a picture not drawn yet is guessed to take in a mail: a PNG as PNG_GUESS; an
    SVG is measured once made (it is text, cheap), before it is attached."""
    return PNG_GUESS if kind == "png" else 0


def map_command(s: Store, args: list[str], power_game: tuple[dict, str] | None,
                master_game: dict | None, maps: MailMaps | None = None
                ) -> tuple[str, Attachment | None]:
    """The reply text and the picture for ``MAP [game] [phase] [SVG|PNG]`` (PNG unless the
    last word asks for SVG: most mail clients show a PNG, an SVG opens in a browser).

    ``power_game`` is the game and power this mail signed on as, ``master_game`` the game it
    signed on to as master (either may be None). ``maps``: the pictures this mail's reply
    has already; a picture it has is not attached again (None is returned for it), and past
    what the reply can carry a GameError says so, nothing drawn.
    """
    kind = "png"
    if args and args[-1].lower() in FORMATS:
        kind, args = args[-1].lower(), args[:-1]
    game_name = args[0] if args else None
    phase_text = args[1] if len(args) > 1 else None
    if len(args) == 1 and phase_code(args[0]) and s.game(args[0]) is None:
        # MAP S1901M: a phase of the game the mail signed on to, not a game's name
        if not (power_game or master_game):
            raise GameError(f"{args[0].upper()} is a phase: name the game too (MAP <game> "
                            f"{args[0].upper()}), or sign on before it")
        game_name, phase_text = None, args[0]
    if game_name is None:
        signed = power_game[0] if power_game else master_game
        if signed is None:
            raise GameError("MAP needs a game name (MAP <game> [phase] [SVG]), or a SIGNON "
                            "before it")
        game = G.refresh(s, signed)
    else:
        game = G.find_game(s, game_name)
    variant = G.get_variant(game["variant"])
    if phase_text is None:
        row = s.position(game["id"], game["phase"]) if game["phase"] else s.one(
            "SELECT * FROM positions WHERE game_id = ? ORDER BY created DESC, rowid DESC",
            (game["id"],))
        if row is None:
            raise GameError(f"game {game['name']} has no position yet: it has not started")
    else:
        phase = phase_code(phase_text)
        if phase is None:  # the judge's own codes, BC years too (S450BCM)
            raise GameError(f"not a phase code: {phase_text[:40]!r} (expected e.g. S1901M)")
        row = s.position(game["id"], phase)
        if row is None:
            raise GameError(f"game {game['name']} has no position for {phase}")
    position = json.loads(row["position"])
    reader: str | None = None
    is_master = master_game is not None and master_game["id"] == game["id"]
    if flow_of(variant.name).hidden:
        if power_game is not None and power_game[0]["id"] == game["id"]:
            reader = power_game[1]
        elif not is_master:
            raise GameError(f"game {game['name']} is played with hidden units: only its "
                            "players (after SIGNON) and its master may ask for its map")
    filename = f"{game['name']}-{row['phase']}.{kind}"
    whose = f" (what {reader.title()} knows)" if reader else ""
    what = f"The map of game {game['name']}, {row['phase']}{whose}"
    key = (game["id"], row["phase"], reader, is_master, kind)
    if maps is not None:
        if key in maps.drawn:
            return f"{what}, is attached once, as {maps.drawn[key]}.", None
        if not maps.fits(maps.largest if maps.drawn else _guess(kind)):
            raise maps.full(what, filename)
    # A movement phase already adjudicated is drawn with its orders, as its report was.
    results = json.loads(row["results"]) if row.get("results") and \
        str(row["phase"]).endswith("M") else []
    svg = map_for(variant.name, position, reader, results,
                  hidden=flow_of(variant.name).hidden, title=f"{game['name']} {variant.title}",
                  supply_centres=sorted(variant.board.supply_centres),
                  master=is_master and reader is None)
    if svg is None:  # pragma: no cover - every case above has a reader or the master
        raise GameError("no map can be shown")
    if maps is not None and maps.defer and kind == "png":  # drawn by the pool
        size = max(maps.largest, PNG_GUESS)
        if not maps.fits(size):
            raise maps.full(what, filename)
        maps.drawn[key] = filename
        maps.used += size
        maps.largest = size
        maps.later.append((filename, svg))
        return f"{what}, is attached as {filename}.", None
    data = svg_to_png(svg) if kind == "png" else svg.encode("utf-8")
    if maps is not None:
        size = len(data) * 4 // 3
        if not maps.fits(size):
            raise maps.full(what, filename)
        maps.drawn[key] = filename
        maps.used += size
        maps.largest = max(maps.largest, size)
    return f"{what}, is attached as {filename}.", Attachment(filename, FORMATS[kind], data)
