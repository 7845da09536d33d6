"""Reply addresses: a player answers the judge's mail without typing a password.

Mail the judge sends a player about a game they play (replies, reports, notices) carries a
reply address that names the seat and proves it: ``judge+g1.france.<token>@host`` in
``Reply-To`` (``[judge] reply_tokens = "address"``), or ``[g1.france.<token>]`` at the end of
the Subject (``"subject"``, for a host that cannot deliver sub-addressed mail). A mail to that
address, or whose Subject keeps the tag, from the seat's own address, is signed on as that
power (judge/games/acting.py).

The token is HMAC-SHA256 over the game's id, the power and the seat's own random secret,
keyed with the judge's key (``[judge] reply_token_key``, or one made once and kept in the
``reply_keys`` table), cut to 128 bits and written as 26 lower-case base32 characters (an MTA
may lower-case a local part). ``NEWTOKEN`` and every change of player (TAKEOVER, REPLACE,
EJECT) revoke the seat's secret; the next mail carries a new one. Revoked secrets are kept, so
an old address is told it was replaced instead of being counted as a guess.

The token is a secret: it is never written to the audit table or the log and never sent to
anyone but the seat's player; the stored copy of a mail is masked once acted on
(:func:`judge.mail.masking.mask_tokens`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from judge.config import Config
from judge.mail.compose import clean_header
from judge.storage import Store, iso

TOKEN_CHARS = 26  # 128 bits in base32
_SEAT = r"([A-Za-z][A-Za-z0-9_-]{0,29})\.([A-Za-z_]{1,40})\.([A-Za-z2-7]{26})"
_LOCAL = re.compile(_SEAT)
_TAG = re.compile(r"\s*\[" + _SEAT + r"\]")
# a seat's reply address anywhere in a mail's bytes (a quoted header, a forwarded report):
# masked in the stored copy whoever it belongs to
_ANYWHERE = re.compile(rb"(?<![A-Za-z0-9_-])[A-Za-z][A-Za-z0-9_-]{0,29}\.[A-Za-z_]{1,40}\."
                       rb"([A-Za-z2-7]{26})(?![A-Za-z0-9])")


@dataclass(frozen=True, slots=True)
class Presented:
    """A seat and token a mail was sent with (not yet checked)."""

    game: str
    power: str
    token: str
    where: str  # "address" or "subject"

    @property
    def label(self) -> str:
        """The seat it names, the token masked: what a reply may show."""
        return f"{self.game}.{self.power}.****".lower()


@dataclass(slots=True)
class Verdict:
    kind: str  # ok | revoked | forged | unknown
    game: dict | None = None
    power: str = ""
    player: dict | None = None
    revoked: dict | None = None  # the revoked secret's row (revoked, why)


def enabled(cfg: Config) -> bool:
    return cfg.reply_tokens != "off"


# -------------------------------------------------------------------- keys
def _judge_key(store: Store, cfg: Config) -> bytes:
    if cfg.reply_token_key:
        return hashlib.sha256(cfg.reply_token_key.encode("utf-8")).digest()
    row = store.one("SELECT value FROM reply_keys WHERE name = 'judge'")
    if row is None:
        store.execute("INSERT OR IGNORE INTO reply_keys (name, value, created) VALUES "
                      "('judge', ?, ?)", (secrets.token_bytes(32).hex(), iso(store.clock())))
        row = store.one("SELECT value FROM reply_keys WHERE name = 'judge'")
    assert row is not None
    return bytes.fromhex(row["value"])


def _sign(key: bytes, game_id: int, power: str, secret: str) -> str:
    mac = hmac.new(key, f"{game_id}\0{power.upper()}\0{secret}".encode(), hashlib.sha256)
    return base64.b32encode(mac.digest()[:16]).decode("ascii").rstrip("=").lower()


def _current_secret(store: Store, game_id: int, power: str) -> str:
    """The seat's secret, made the first time the seat is sent a reply address."""
    row = store.one("SELECT secret FROM reply_secrets WHERE game_id = ? AND power = ? AND "
                    "revoked IS NULL ORDER BY id DESC LIMIT 1", (game_id, power))
    if row is not None:
        return str(row["secret"])
    secret = secrets.token_hex(16)
    store.execute("INSERT INTO reply_secrets (game_id, power, secret, created) VALUES "
                  "(?, ?, ?, ?)", (game_id, power, secret, iso(store.clock())))
    return secret


def revoke(store: Store, game_id: int, power: str, why: str) -> bool:
    """The seat's reply address stops working (its next mail carries a new one); False when
    it had none yet."""
    cur = store.execute("UPDATE reply_secrets SET revoked = ?, why = ? WHERE game_id = ? AND "
                        "power = ? AND revoked IS NULL", (iso(store.clock()), why, game_id, power))
    return bool(cur.rowcount)


def seat_tag(store: Store, cfg: Config, game: dict, power: str) -> str:
    """``g1.france.<token>``: the seat's current tag."""
    token = _sign(_judge_key(store, cfg), game["id"], power,
                  _current_secret(store, game["id"], power))
    return f"{game['name']}.{power}.{token}".lower()


def address_of(cfg: Config, tag: str) -> str:
    local, _, domain = cfg.address.rpartition("@")
    return f"{local}{cfg.reply_delimiter}{tag}@{domain}"


# ------------------------------------------------------------ outgoing mail
def tag_for(store: Store, cfg: Config, to: str, game_id: int | None,
            seats: list[tuple[int, str]] | None = None) -> str | None:
    """The tag a mail to ``to`` carries: that of the first of ``seats`` (a reply: the seats
    the mail signed on to) whose player is ``to``; else, for game mail, that of the one seat
    of the game ``to`` plays. None for anyone else (a master, an observer, a mailing list):
    a token goes to its seat's player and nobody else."""
    if not enabled(cfg):
        return None
    who = to.strip().lower()
    candidates = list(seats or [])
    if not candidates and game_id is not None:
        candidates = [(game_id, p["power"]) for p in store.players(game_id)
                      if p["address"].strip().lower() == who]
        if len(candidates) != 1:  # two seats at one address: which one is unclear
            return None
    for gid, power in candidates:
        player = store.player(gid, power)
        game = store.game_by_id(gid)
        if player is not None and game is not None and player["address"].strip().lower() == who:
            return seat_tag(store, cfg, game, power)
    return None


def mark(cfg: Config, subject: str, headers: dict[str, str] | None, tag: str
         ) -> tuple[str, dict[str, str]]:
    """(subject, headers) of a mail carrying ``tag``: in Reply-To, or at the end of the
    Subject (the Subject cut so that the tag survives the 200-character limit)."""
    out = dict(headers or {})
    if cfg.reply_tokens == "subject":
        label = f"[{tag}]"
        return f"{clean_header(subject, 200 - len(label) - 1)} {label}", out
    out["Reply-To"] = address_of(cfg, tag)
    return subject, out


# ------------------------------------------------------------ incoming mail
def presented(cfg: Config, recipients: list[str], subject: str) -> Presented | None:
    """The seat and token a mail names: in the first of ``recipients`` (envelope and
    Delivered-To first, then To and Cc) that is the judge's address with a tag, else in a
    Subject tag."""
    if not enabled(cfg):
        return None
    local, _, domain = cfg.address.lower().rpartition("@")
    prefix = local + cfg.reply_delimiter
    for address in recipients:
        left, _, right = address.strip().strip("<>").rpartition("@")
        if right.lower() != domain or not left.lower().startswith(prefix):
            continue
        m = _LOCAL.fullmatch(left[len(prefix):])
        if m:
            return Presented(m.group(1), m.group(2), m.group(3).lower(), "address")
    m = _TAG.search(subject)
    if m:
        return Presented(m.group(1), m.group(2), m.group(3).lower(), "subject")
    return None


def strip_subject(subject: str) -> str:
    """The Subject without reply tags (never echoed, never read as a command)."""
    return _TAG.sub("", subject).strip()


def tokens_in(raw: bytes) -> set[str]:
    """Every token-like word in a mail's bytes (lower case): what its stored copy masks."""
    return {m.group(1).decode("ascii").lower() for m in _ANYWHERE.finditer(raw)}


def verify(store: Store, cfg: Config, p: Presented) -> Verdict:
    """ok: the seat's current token (compared in constant time); revoked: one of its old
    ones; forged: the seat has a player but this is none of its tokens; unknown: no such
    seat."""
    game = store.game(p.game)
    if game is None:
        return Verdict("unknown")
    power = p.power.upper()
    player = store.player(game["id"], power)
    key = _judge_key(store, cfg)
    rows = store.all("SELECT secret, revoked, why FROM reply_secrets WHERE game_id = ? AND "
                     "power = ? ORDER BY id DESC", (game["id"], power))
    matches = [r for r in rows if hmac.compare_digest(
        _sign(key, game["id"], power, r["secret"]).encode(), p.token.lower().encode())]
    if player is not None and any(r["revoked"] is None for r in matches):
        return Verdict("ok", game, power, player)
    if matches:
        return Verdict("revoked", game, power, player, matches[0])
    if player is not None:
        return Verdict("forged", game, power, player)
    return Verdict("unknown", game, power)
