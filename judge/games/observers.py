"""Who receives a game's public mail: players, the master, observers and the game's mailing list,
and the list headers every report carries (RFC 2919 List-Id, RFC 2369 List-Unsubscribe, RFC
8058 one-click List-Unsubscribe-Post when the deployment has an address that handles it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from judge.games import game as G
from judge.games import settings as S
from judge.storage import Store, iso


@dataclass(frozen=True, slots=True)
class Reader:
    address: str
    power: str | None  # None: sees only what is public
    role: str  # player | master | observer | list


def readers(s: Store, game: dict) -> list[Reader]:
    """Players, then the master, observers and the list address; each address once."""
    out: list[Reader] = []
    seen: set[str] = set()

    def add(address: str, power: str | None, role: str) -> None:
        if address and address.lower() not in seen:
            seen.add(address.lower())
            out.append(Reader(address, power, role))

    for p in s.players(game["id"]):
        add(p["address"], p["power"], "player")
    add(game["master_address"], None, "master")
    for o in s.all("SELECT address FROM observers WHERE game_id = ? ORDER BY since",
                   (game["id"],)):
        add(o["address"], None, "observer")
    add(S.load(game)["list"], None, "list")
    return out


def list_headers(cfg: Any, game: dict, address: str) -> dict[str, str]:
    """Headers of a game's public mail; the unsubscribe goes through the judge's UNOBSERVE."""
    name = game["name"]
    headers = {
        "List-Id": f"Diplomacy game {name} <{name.lower()}.games.{cfg.domain}>",
        "List-Unsubscribe": f"<mailto:{cfg.address}?subject={quote('UNOBSERVE ' + name)}>",
    }
    url = getattr(cfg, "unsubscribe_url", "")
    if url:  # only an HTTPS endpoint can do RFC 8058 one-click; the deployment runs it
        query = urlencode({"game": name, "address": address})
        headers["List-Unsubscribe"] = (f"<{url}{'&' if '?' in url else '?'}{query}>, "
                                       + headers["List-Unsubscribe"])
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return headers


def observe(s: Store, game: dict, address: str, now: datetime) -> bool:
    """Add an observer; False when the address already observes."""
    if game["status"] == "finished":
        raise G.GameError(f"game {game['name']} has ended: there is nothing left to observe")
    cur = s.execute("INSERT OR IGNORE INTO observers (game_id, address, since) VALUES (?, ?, ?)",
                    (game["id"], address, iso(now)))
    return bool(cur.rowcount)


def unobserve(s: Store, game: dict, address: str) -> bool:
    cur = s.execute("DELETE FROM observers WHERE game_id = ? AND address = ?",
                    (game["id"], address))
    return bool(cur.rowcount)
