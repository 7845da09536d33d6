"""Who receives a game's public mail: players, the master, observers and the game's mailing list,
and the list headers every report carries (RFC 2919 List-Id, RFC 2369 List-Unsubscribe, RFC
8058 one-click List-Unsubscribe-Post when the deployment has an address that handles it).

Observing is double opt-in, as on every mailing list: ``OBSERVE <game>`` only records a
request with a random token, sent in the reply; the address becomes an observer when it
answers that reply or sends ``CONFIRM <token>`` within CONFIRM_DAYS. So nobody can subscribe
someone else (a forged From gets that address one confirmation request a day, no reports).
The game's mailing list (``SET LIST <address>``, a master's setting) is confirmed the same
way: the list address is sent one request (at most one a day, whichever game asks), and
receives reports only once someone there answers. So is a seat the master gives an address
(``REPLACE <power> <address> <password>``): the address is sent one request and plays the
power only once it answers; until then it gets no game mail and the power stays as it was.
Whoever names an address, the judge mails it once before it answers. So is a sign-on (JOIN,
SIGNON, TAKEOVER) from an address that has never confirmed anything (roles join, signon,
takeover; judge/games/signup.py): the reply to it is the one request, later ones within
RESEND_AFTER wait with it unmailed, and confirming that request does them with it
(:func:`_waiting_with`), not the address's other sign-ons, which wait for their own answer.
A reply to a request answers it by its first line (:func:`reply_says`): yes, or no (the
request dropped), or neither (told how). An address that has confirmed once is in
``confirmed_addresses`` for good.
A game's master that has not confirmed gets the replies to its mails, never the game's mail,
until it answers the code in CREATE's reply (role master).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

from judge.archive.store import game_folder
from judge.games import game as G
from judge.games import settings as S
from judge.mail.reading import (
    auto_reply_subject,
    canonical_address,
    reads_out_of_office,
    same_mailbox,
)
from judge.storage import CONFIRM_DAYS, Store, iso

RESEND_AFTER = timedelta(days=1)  # one confirmation request a day per address and game
WITHDRAWN = "withdrawn"  # a seat request a later one for the power replaced: dead, but counted
# an address that answered NO to a master's request (a seat, a list): that master's (nor an
# unconfirmed master's) request is not sent to it again ("nothing more will come", its
# request said; _declined); its own mail is not refused
DECLINED = "declined"
# a sign-on waiting for its own sender's address to confirm: a new seat (JOIN, or SIGNON of
# a free power), a seat moved to a new address (SIGNON with its password), a TAKEOVER
SIGN_ONS = ("join", "signon", "takeover")
_SIGN_ONS_SQL = "('join', 'signon', 'takeover')"
PENDING_SIGN_ONS = 10  # sign-ons one address may have waiting at once; later ones are dropped


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
    if s.confirmed(game["master_address"]):  # a forged CREATE puts nobody on a game's mail
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
    archive = getattr(cfg, "archive_url", "")
    if archive:  # RFC 2369: where the game's public mail is archived (judge/archive/)
        headers["List-Archive"] = f"<{archive}/{game_folder(name)}>"
    return headers


def observe(s: Store, game: dict, address: str, now: datetime) -> bool:
    """Add an observer; False when the address already observes."""
    if game["status"] == "finished":
        raise G.GameError(f"game {game['name']} has ended: there is nothing left to observe")
    cur = s.execute("INSERT OR IGNORE INTO observers (game_id, address, since) VALUES (?, ?, ?)",
                    (game["id"], address, iso(now)))
    return bool(cur.rowcount)


def unobserve(s: Store, game: dict, address: str) -> bool:
    """Stop observing (or, from the game's list address, stop the list); also withdraws
    unanswered requests. True when any was there."""
    cur = s.execute("DELETE FROM observers WHERE game_id = ? AND address = ?",
                    (game["id"], address))
    # not an address's NO (DECLINED): a forged UNOBSERVE, honoured unanswered when marked
    # auto-submitted, would let the master it refused mail the address again
    pending = s.execute("DELETE FROM observer_requests WHERE game_id = ? AND address = ? AND "
                        "role != ?", (game["id"], address, DECLINED))
    was_list = (S.load(game)["list"] or "").lower() == address.lower()
    if was_list:
        _set_list(s, game, "")
    return bool(cur.rowcount or pending.rowcount or was_list)


def _set_list(s: Store, game: dict, address: str) -> None:
    stored = json.loads(game.get("settings") or "{}")
    stored["list"] = address
    s.execute("UPDATE games SET settings = ? WHERE id = ?", (json.dumps(stored), game["id"]))


def observes(s: Store, game: dict, address: str) -> bool:
    return s.one("SELECT 1 AS x FROM observers WHERE game_id = ? AND address = ?",
                 (game["id"], address)) is not None


def request(s: Store, game: dict, address: str, now: datetime, inbox_id: int | None,
            role: str = "observer", power: str | None = None,
            password_hash: str | None = None, requester: str = "",
            per_day: int = 0) -> str | None:
    """A new confirmation token for ``address`` to observe ``game`` (or be its list, or take
    the seat of ``power`` with ``password_hash``); None when one was sent to it less than
    RESEND_AFTER ago (an observer: for this game; a list or a seat: a list or a seat
    request for any game): the forged-sender and hostile-master cases must not flood anyone.
    A list or a seat request (the master names someone else) is refused when mail
    ``inbox_id`` already made one, or when the mails of ``requester`` made ``per_day`` in the
    last RESEND_AFTER: one mail of SET LIST lines made the judge mail 998 strangers."""
    if game["status"] == "finished":
        raise G.GameError(f"game {game['name']} has ended: there is nothing left to "
                          f"{'play' if role == 'seat' else 'observe'}")
    address = canonical_address(address)  # whoever calls: one spelling per mailbox
    mailbox, spellings = same_mailbox("address", address)  # and its plus tags with it
    if role in ("list", "seat"):
        _check_asking(s, now, inbox_id, requester, per_day)
        declined = None if s.confirmed(address) else _declined(s, game, address)
        if declined is not None:
            raise G.GameError(f"{address} declined a request from this judge (on "
                              f"{declined['requested'][:10]}): no request of that game's "
                              "master, nor of a master whose address has not confirmed, is "
                              "sent to it again. It can sign on or OBSERVE by itself")
        # a NO counts as that day's request, whoever asks next (the bound below counts the
        # requests waiting; the NO replaced the one it answered): else a second confirmed
        # master, a hostile one's other address, mailed it again the minute it said NO
        said_no = s.one(f"SELECT requested FROM observer_requests WHERE role = '{DECLINED}' "
                        f"AND {mailbox} AND requested >= ? ORDER BY requested DESC",
                        (*spellings, iso(now - RESEND_AFTER)))
        if said_no is not None:
            raise G.GameError(f"{address} declined a request from this judge less than a "
                              f"day ago (at {said_no['requested'][:16].replace('T', ' ')}): "
                              "no master's request is sent to it within a day of a NO")
    if role in ("list", "seat"):  # a master names the address: whichever game asks (a
        # seat request once a day per game let three games, or three masters, send three)
        recent = s.one("SELECT 1 AS x FROM observer_requests WHERE role IN ('list', 'seat', "
                       f"'{WITHDRAWN}') AND {mailbox} AND requested >= ?",
                       (*spellings, iso(now - RESEND_AFTER)))
    else:
        recent = s.one("SELECT 1 AS x FROM observer_requests WHERE game_id = ? AND "
                       f"{mailbox} AND role = ? AND requested >= ?",
                       (game["id"], *spellings, role, iso(now - RESEND_AFTER)))
    if recent is not None:
        return None
    if role == "seat":  # a later seat for the power replaces an unanswered one; kept as
        # WITHDRAWN (no code confirms it) so that it still counts towards the caps
        s.execute(f"UPDATE observer_requests SET role = '{WITHDRAWN}' WHERE game_id = ? AND "
                  "role = 'seat' AND power = ?", (game["id"], power))
    token = secrets.token_hex(8)
    s.execute("INSERT INTO observer_requests (token, game_id, address, role, requested, "
              "inbox_id, power, password_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              (token, game["id"], address, role, iso(now), inbox_id, power, password_hash))
    return token


def _declined(s: Store, game: dict, address: str) -> dict | None:
    """The NO (its DECLINED mark) of ``address``'s mailbox that stops a master's
    request from ``game``: one that answered a request of this game or of any game of its
    master (the mailbox: a plus tag is no new master), or any NO while its master's address
    has not confirmed (a forged CREATE from a new address each day would ask again). Not a
    NO to another, confirmed master: anyone could CREATE a game and REPLACE a newcomer into
    it, and the newcomer's NO then stopped its real master's requests."""
    mailbox, spellings = same_mailbox("r.address", address)
    marks = f"SELECT r.requested FROM observer_requests r WHERE r.role = '{DECLINED}' AND " \
        f"{mailbox}"
    if not s.confirmed(game["master_address"]):
        return s.one(f"{marks} ORDER BY r.requested DESC", spellings)
    master, masters = same_mailbox("g.master_address", game["master_address"])
    return s.one(f"{marks} AND (r.game_id = ? OR r.game_id IN (SELECT g.id FROM games g "
                 f"WHERE {master})) ORDER BY r.requested DESC",
                 (*spellings, game["id"], *masters))


def prove(s: Store, address: str, now: datetime, how: str) -> None:
    s.execute("INSERT OR IGNORE INTO confirmed_addresses (address, since, how) "
              "VALUES (?, ?, ?)", (canonical_address(address), iso(now), how))


def master_request(s: Store, game: dict, address: str, now: datetime,
                   inbox_id: int | None) -> str | None:
    """A code for the master ``address`` of the new ``game`` to confirm with, when it has
    never confirmed: until it does, the game's mail is not sent to it (:func:`readers`),
    only the replies to its own mails. None: it is confirmed already."""
    if s.confirmed(address):
        return None
    token = secrets.token_hex(8)
    s.execute("INSERT INTO observer_requests (token, game_id, address, role, requested, "
              "inbox_id) VALUES (?, ?, ?, 'master', ?, ?)",
              (token, game["id"], canonical_address(address), iso(now), inbox_id))
    return token


def sign_on_request(s: Store, game: dict, address: str, now: datetime, inbox_id: int | None,
                    role: str, power: str | None, password_hash: str
                    ) -> tuple[str | None, bool]:
    """Record a sign-on of ``address`` (``role`` one of SIGN_ONS) that waits until the
    address confirms; ``(token, ask)``. ``ask``: this mail's reply is to carry the request;
    False when a reply carried one to the address less than RESEND_AFTER ago (this sign-on
    waits with it, and the mail is not answered: a flood of forged sign-ons gets the address
    one mail a day). ``token`` None: PENDING_SIGN_ONS already wait, this one is dropped."""
    address = canonical_address(address)
    since = iso(now - RESEND_AFTER)
    mailbox, spellings = same_mailbox("address", address)  # its plus tags: one mailbox
    asked = s.one(f"SELECT 1 AS x FROM observer_requests WHERE role IN {_SIGN_ONS_SQL} AND "
                  f"{mailbox} AND requested >= ? AND message_id IS NOT NULL",
                  (*spellings, since))
    again = s.one("SELECT token FROM observer_requests WHERE game_id = ? AND address = ? AND "
                  "role = ? AND power IS ?", (game["id"], address, role, power))
    if again is not None:  # the same sign-on again: it replaces the one waiting, in its place
        s.execute("UPDATE observer_requests SET password_hash = ?, inbox_id = ?, requested = ?, "
                  f"message_id = {'message_id' if asked else 'NULL'} WHERE token = ?",
                  (password_hash, inbox_id, iso(now), again["token"]))
        return again["token"], asked is None
    waiting = s.one(f"SELECT count(*) AS n FROM observer_requests WHERE role IN "
                    f"{_SIGN_ONS_SQL} AND {mailbox} AND requested >= ?",
                    (*spellings, iso(now - timedelta(days=CONFIRM_DAYS))))
    if waiting is not None and waiting["n"] >= PENDING_SIGN_ONS:
        return None, asked is None
    token = secrets.token_hex(8)
    s.execute("INSERT INTO observer_requests (token, game_id, address, role, requested, "
              "inbox_id, power, password_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              (token, game["id"], address, role, iso(now), inbox_id, power, password_hash))
    return token, asked is None


def _check_asking(s: Store, now: datetime, inbox_id: int | None, requester: str,
                  per_day: int) -> None:
    """Refuse a list or seat request past the per-mail and per-sender caps."""
    asked = f"role IN ('list', 'seat', '{WITHDRAWN}')"
    if inbox_id is not None and s.one(f"SELECT 1 AS x FROM observer_requests WHERE {asked} "
                                      "AND inbox_id = ?", (inbox_id,)) is not None:
        raise G.GameError("not sent: one mail makes the judge ask at most one address to "
                          "confirm a seat or a game's list; send the others in later mails")
    if not requester or per_day <= 0:
        return
    # the sender's mails are known by the audit log of their commands
    row = s.one(f"SELECT count(*) AS n FROM observer_requests WHERE {asked} AND "
                "requested >= ? AND inbox_id IN (SELECT inbox_id FROM audit WHERE "
                "address = ? COLLATE NOCASE AND inbox_id IS NOT NULL)",
                (iso(now - RESEND_AFTER), requester))
    if row is not None and row["n"] >= per_day:
        raise G.GameError(f"not sent: {requester} made the judge ask {row['n']} addresses to "
                          "confirm a seat or a game's list in the last day, the most it may "
                          "([limits] confirm_requests_per_day); try again tomorrow")


def request_sent(s: Store, token: str, message_id: str) -> None:
    s.execute("UPDATE observer_requests SET message_id = ? WHERE token = ?",
              (message_id, token))


def requests_sent(s: Store, inbox_id: int, message_id: str) -> None:
    """The requests made by mail ``inbox_id`` went out in the reply ``message_id``."""
    s.execute("UPDATE observer_requests SET message_id = ? WHERE inbox_id = ? AND "
              f"message_id IS NULL AND role IN ('observer', 'master', {_SIGN_ONS_SQL[1:]}",
              (message_id, inbox_id))


# the seat confirmed: (game, the request's row) -> what the reply says; the caller's, which
# seats the player and tells everyone (this module sends no game mail)
TakeSeat = Callable[[dict, dict], str]
# a sign-on that waited for its address: (game, the request's row) -> what the reply says;
# the caller's (judge/games/signup.py), raising GameError when it cannot be done any more
TakeSignOn = Callable[[dict, dict], str]


def _take(s: Store, row: dict, now: datetime, take_seat: TakeSeat | None = None) -> str:
    game = s.game_by_id(row["game_id"])
    assert game is not None
    if row["role"] == "seat":
        if take_seat is None:
            raise G.GameError("a seat is taken by sending CONFIRM <code>")
        s.execute("DELETE FROM observer_requests WHERE token = ?", (row["token"],))
        if game["status"] == "finished":
            return f"Game {game['name']} has ended meanwhile: there is no seat left to take."
        return take_seat(game, row)
    s.execute("DELETE FROM observer_requests WHERE game_id = ? AND address = ? AND role = ?",
              (game["id"], row["address"], row["role"]))
    if game["status"] == "finished":
        return f"Game {game['name']} has ended meanwhile: there is nothing left to observe."
    if row["role"] == "master":
        return (f"Confirmed: {row['address']} receives the reports and notices of game "
                f"{game['name']} as its master.")
    if row["role"] == "list":
        _set_list(s, game, row["address"])
        return (f"Confirmed: {row['address']} is now the mailing list of game {game['name']} "
                f"and receives its public reports. UNOBSERVE {game['name']} from that address "
                "stops them.")
    observe(s, game, row["address"], now)
    return (f"Confirmed: {row['address']} now observes game {game['name']} and receives its "
            f"public reports. UNOBSERVE {game['name']} stops them.")


def _waiting_with(s: Store, address: str, now: datetime, answered: list[dict]) -> list[dict]:
    """The sign-ons of ``address`` the requests ``answered`` asked about, oldest first: the
    ones they named and those that waited with them, unanswered, in the day after."""
    mails = {r["message_id"] for r in answered if r["role"] in SIGN_ONS and r["message_id"]}
    if not mails:
        return []
    rows, mail = [], None
    for row in s.all(f"SELECT * FROM observer_requests WHERE role IN {_SIGN_ONS_SQL} AND "
                     "address = ? AND requested >= ? ORDER BY requested, rowid",
                     (address, iso(now - timedelta(days=CONFIRM_DAYS)))):
        mail = row["message_id"] or mail  # a silent one waits with the request before it
        if mail in mails:
            rows.append(row)
    return rows


def _proven(s: Store, address: str, now: datetime, how: str,
            take_sign_on: TakeSignOn | None, answered: list[dict]) -> list[str]:
    """``address`` answered the requests ``answered``: it is confirmed for good, and the
    sign-ons that mail asked about are done now, oldest first (what the reply says of
    each): the ones it named and those that waited with it, unanswered, in the day after
    it. Others wait for their own answer: a sign-on forged in the address's name was done
    when it confirmed its own, or an OBSERVE, with the forger's password."""
    prove(s, address, now, how)
    if take_sign_on is None:
        return []
    rows = _waiting_with(s, address, now, answered)
    if not rows:
        return []
    _drop(s, [r["token"] for r in rows])
    out, done = [], []
    for row in rows:
        game = s.game_by_id(row["game_id"])
        assert game is not None
        if game["status"] == "finished":
            out.append(f"Game {game['name']} has ended meanwhile: your sign-on to it was "
                       "not done.")
            continue
        try:
            with s.db.atomic():  # one that cannot be done any more leaves no trace
                out.append(take_sign_on(game, row))
            done.append(_sign_on_named(game, row))
        except G.GameError as exc:
            out.append(f"Your sign-on to game {game['name']} could not be done now: {exc}.")
    if len(done) > 1:  # some waited unanswered: a forged one among them is seen, and left
        out.append(f"This confirmation did {len(done)} sign-ons: {', '.join(done)} (the "
                   "request's, and those sent from this address in the day after it, which "
                   "waited with it without a reply). If one of them was not yours, ask that "
                   "game's master to EJECT the power: a player does not leave a game by "
                   "itself, and you do not know the password it was sent with.")
    return out


def _drop(s: Store, tokens: list[str]) -> None:
    """The requests ``tokens`` are done with (answered, or declined)."""
    s.execute(f"DELETE FROM observer_requests WHERE token IN ({','.join('?' * len(tokens))})",
              tokens)


def _sign_on_named(game: dict, row: dict) -> str:
    """A waiting sign-on as a reply names it: its power and game, never its password."""
    where = f"in game {game['name']}"
    return f"{row['power'].title()} {where}" if row["power"] else f"a seat {where}"


def confirm(s: Store, token: str, now: datetime, take_seat: TakeSeat | None = None,
            take_sign_on: TakeSignOn | None = None) -> str:
    """``CONFIRM <token>``: the request's address observes from now on, or is the game's
    list, or takes the seat it was offered (``take_seat``), whoever sends the token: only
    the address it was mailed to can know it. The address is confirmed for good, and the
    sign-ons that waited for it are done (``take_sign_on``)."""
    row = s.one("SELECT * FROM observer_requests WHERE token = ? AND requested >= ? AND "
                f"role != '{WITHDRAWN}'",
                # copied with the comma or full stop the request's sentence puts after it
                (token.strip().strip(".,;:!?'\"()<>[]").lower(),
                 iso(now - timedelta(days=CONFIRM_DAYS))))
    if row is None:
        raise G.GameError(f"{token!r} is not a confirmation code the judge sent in the last "
                          f"{CONFIRM_DAYS} days: a request to observe or to be a game's list "
                          "is made again by OBSERVE or SET LIST; a seat by its game's "
                          "master's REPLACE; a sign-on by sending it again")
    said = [] if row["role"] in SIGN_ONS else [_take(s, row, now, take_seat)]
    done = _proven(s, row["address"], now, row["role"], take_sign_on, [row])
    if row["role"] in SIGN_ONS:
        said.append(f"Confirmed: {row['address']} reads its mail; from now on its sign-ons "
                    "act at once.")
    return "\n".join(said + done)


# the first word of a reply to a request that says yes, or no (docs/commands.md, CONFIRM)
_YES = frozenset({"yes", "y", "ok", "okay", "confirm", "confirmed", "sure"})
_NO = frozenset({"no", "n", "not", "nope", "stop", "cancel", "decline", "unsubscribe",
                 "never", "wrong"})


def reply_says(lines: list[str], tokens: set[str], subject: str = "") -> str:
    """What a reply to a confirmation request answers, by the first line its sender wrote
    (``lines``: quotes and signature dropped): ``yes`` (none, or one whose first word is
    YES, OK, CONFIRM... or the request's code), ``no`` (NO, STOP, "not me"...), ``command``
    (a CONFIRM line with a code: that command does it), ``auto`` (an out-of-office reply, by
    what only a responder writes: its ``subject``'s prefix, or a responder's prefix on its
    first line), else ``""`` (a first line that reads as out of office, "Not in the office
    until Monday", too: no NO, yet a person may write it, and is answered).
    Any reply at all confirmed, "not me, stop this" too: the person who did not ask was
    signed up."""
    first = next((line.strip() for line in lines if line.strip()), "")
    if not first:
        return "auto" if _out_of_office(subject) else "yes"
    words = re.findall(r"[^\W_]+", first.casefold())
    if not words:
        return "auto" if _out_of_office(subject) else ""
    if words[0] == "confirm" and len(words) > 1 and re.fullmatch(r"[0-9a-f]{16}", words[1]):
        return "command"
    if words[0] in _YES or words[0] in tokens:
        return "yes"
    # "No", "No, I'm on holiday", "Not me": an answer; "Not in the office", "No access to
    # email until Monday": a responder's
    answer = words[0] in _NO and (words[:2] == ["not", "me"] or re.match(
        r"[^\W_]+\s*(?:[^\w\s]|$)", first) is not None)
    if not answer and (_out_of_office(subject) or auto_reply_subject(first)):
        return "auto"
    if not answer and reads_out_of_office(first):
        # no NO, but a person writes that too ("I'm away this weekend, but yes..."): only
        # what a responder alone writes (its subject, its headers) leaves a mail unanswered
        return ""
    return "no" if words[0] in _NO else ""


def _out_of_office(subject: str) -> bool:
    """A responder's subject: its prefix ("Automatic reply:", "Out of Office:"), never the
    subject it answers, which quotes the request's (a game named "out-of-office")."""
    return auto_reply_subject(subject) or reads_out_of_office(subject.split(":", 1)[0])


def is_answer(line: str) -> bool:
    """Whether ``line`` alone answers a confirmation request yes or no ("Yes", "No thanks",
    "OK!"): in a reply to one it is that answer (or says it again), not an order nor a
    sign-off to report."""
    return len(re.findall(r"[^\W_]+", line)) <= 3 and reply_says([line], set()) in ("yes", "no")


def _answered(s: Store, message_ids: list[str], address: str, now: datetime) -> list[dict]:
    """The requests still waiting that a reply from ``address`` answers (``message_ids``:
    its In-Reply-To and References)."""
    ids = [m for m in dict.fromkeys(message_ids[-11:]) if m]
    if not ids or not address:
        return []
    marks = ",".join("?" * len(ids))
    return s.all(f"SELECT * FROM observer_requests WHERE message_id IN ({marks}) AND "
                 f"address = ? AND requested >= ? AND role IN ('observer', 'list', 'master', 'seat', "
                 f"{_SIGN_ONS_SQL[1:]}", (*ids, address, iso(now - timedelta(days=CONFIRM_DAYS))))


def out_of_office_answer(s: Store, message_ids: list[str], address: str, now: datetime,
                         subject: str, lines: list[str]) -> bool:
    """Whether a mail from ``address`` is a responder's out-of-office reply to one of its
    confirmation requests without the headers that say so (:func:`reply_says` ``auto``):
    it neither confirms nor declines, and is not answered."""
    rows = _answered(s, message_ids, address, now)
    return bool(rows) and reply_says(lines, {row["token"] for row in rows}, subject) == "auto"


def confirm_by_reply(s: Store, message_ids: list[str], address: str, now: datetime,
                     take_sign_on: TakeSignOn | None = None,
                     lines: list[str] | None = None,
                     take_seat: TakeSeat | None = None) -> list[str]:
    """A reply from ``address`` to a confirmation request (``message_ids``: its In-Reply-To
    and References) answers it by its first line (:func:`reply_says`): yes confirms it, no
    drops it (with the sign-ons that waited with it, named), anything else is told how to
    confirm; what the reply to it says."""
    rows = _answered(s, message_ids, address, now)
    if not rows:
        return []
    says = reply_says(lines or [], {row["token"] for row in rows})
    if says == "command":
        return []
    mails = {row["inbox_id"] for row in rows}
    if says in ("yes", "no") and len(mails) > 1:  # a digest of several mails' replies: a
        # forger's JOIN folded beside one's own OBSERVE was done by the YES meant for it
        return [f"Not done: the digest this replies to carried the confirmation requests "
                f"of {len(mails)} mails, and a reply cannot say which it answers. Send the "
                "line CONFIRM <code> of each request you made (each is in the digest); "
                f"ignore the others: they expire in {CONFIRM_DAYS} days."]
    if says == "no":  # what the request asked, and what waited with it: not the address's
        # other sign-ons (a forger's JOIN, declined, dropped the player's own before it)
        gone = {r["token"]: r for r in [*rows, *_waiting_with(s, address, now, rows)]}
        _drop(s, list(gone))
        for row in gone.values():
            if row["role"] in ("list", "seat"):  # a master named it: not again (request)
                s.execute("INSERT INTO observer_requests (token, game_id, address, role, "
                          "requested) VALUES (?, ?, ?, ?, ?)",
                          (secrets.token_hex(8), row["game_id"], canonical_address(address),
                           DECLINED, iso(now)))
                break
        # named, since one may be the address's own, sent after a forged one's request and
        # unanswered (the flood bound); with these gone, its next one is asked at once
        dropped = [_sign_on_named(game, row) for row in gone.values()
                   if row["role"] in SIGN_ONS
                   and (game := s.game_by_id(row["game_id"])) is not None]
        if len(dropped) > 1:
            return [f"Declined: nothing was done for {address}. These sign-ons, sent from this "
                    f"address and waiting for it to confirm, are dropped: {', '.join(dropped)}. "
                    "If one of them was yours, send it again: it gets its own confirmation "
                    "request at once. The judge sends this address nothing more about the "
                    "others."]
        return [f"Declined: nothing was done for {address}, and the request is dropped; the "
                "judge sends this address nothing more about it."]
    if says != "yes":
        return [f"Not confirmed: a reply to the judge's confirmation request confirms it when "
                f"its first line is YES (or it is empty), and this one's was not. To confirm, "
                f"reply YES, or send the line\n\nCONFIRM {rows[0]['token']}\n\nReply NO to "
                "drop the request."]
    said = [_take(s, row, now, take_seat) for row in rows if row["role"] not in SIGN_ONS]
    if any(row["role"] in SIGN_ONS for row in rows):
        said.append(f"Confirmed: {address} reads its mail; from now on its sign-ons act at "
                    "once.")
    return said + _proven(s, address, now, rows[0]["role"], take_sign_on, rows)
