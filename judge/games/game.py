"""Games: creating, joining, starting, orders, readiness, adjudication.

Every function here runs inside the caller's transaction on a :class:`~judge.storage.Store`
and raises :class:`GameError` with a specific, player-facing message when a command cannot be
carried out (and then changes nothing).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from judge.engine.board import province_of
from judge.engine.parse import leading_unit
from judge.engine.position import Position
from judge.engine.variant import OrderLine
from judge.games import ahead
from judge.games.auth import hash_password, verify_password
from judge.games.errors import GameError
from judge.games.flow import Chance, flow_of, game_settings, system_chance
from judge.games.phaseclock import begin_phase, deadline_moved
from judge.games.settings import phase_lengths, zone
from judge.games.turn import Turn, stored_orders  # noqa: F401 (read from here too)
from judge.storage import Store, iso, parse_iso
from judge.variants import get_variant, variant_names


class WrongPassword(GameError):
    """A password that did not match. ``scope`` names what it was for (``<game id>:<POWER>``
    or ``<game id>:MASTER``), ``what`` says it in words, ``owner`` is the holder's address."""

    def __init__(self, text: str, scope: str, what: str, owner: str) -> None:
        super().__init__(text)
        self.scope, self.what, self.owner = scope, what, owner


# called with (scope, what) before a password is checked; raises GameError when it is locked
Guard = Callable[[str, str], None]


# ---------------------------------------------------------------------- lookups
def find_game(s: Store, name: str) -> dict:
    game = s.game(name)
    if game is None:
        raise GameError(f"there is no game called {name!r} (send LIST to see the games)")
    return game


def power_name(variant: Any, text: str) -> str:
    """FRANCE from 'France', 'fra', 'F'; GameError naming the powers when it is none of them."""
    powers = list(variant.board.powers)
    t = text.strip().upper()
    if t in powers:
        return t
    matches = [p for p in powers if p.startswith(t)] if t else []
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(p.title() for p in powers)
    if len(matches) > 1:
        raise GameError(f"{text!r} could be {' or '.join(m.title() for m in matches)}; "
                        f"the powers are {names}")
    raise GameError(f"{text!r} is not a power in {variant.title}; the powers are {names}")


def current_position(s: Store, game: dict) -> Position:
    """The game's position in its current phase, read and checked (Variant.read_position)
    once per transaction: kept in the store's memo with the stored text it was read from,
    and read again only when that text changed (a phase processed, a ROLLBACK, an EDIT; a
    savepoint rolled back). The same object is handed to every caller in the transaction:
    a position is never changed in place (``Position.following`` makes the next one)."""
    row = s.position(game["id"], game["phase"])
    if row is None:
        raise GameError(f"game {game['name']} has not started yet")
    key = ("position", game["id"], game["variant"], game["phase"])
    kept = s.memo.get(key)
    if kept is not None and kept[0] == row["position"]:
        return kept[1]
    pos = get_variant(game["variant"]).read_position(json.loads(row["position"]))
    s.memo[key] = (row["position"], pos)
    return pos


# --------------------------------------------------------------- game master
def create_game(s: Store, name: str, password: str, variant: str,
                durations: tuple[int, int, int], address: str,
                settings: dict | None = None) -> dict:
    if s.game(name) is not None:
        raise GameError(f"a game called {name!r} already exists; choose another name")
    try:
        get_variant(variant)
    except KeyError:
        raise GameError(f"there is no variant {variant!r}; this judge runs "
                        f"{', '.join(variant_names())}") from None
    if len(password) < 4:
        raise GameError("the master password must be at least 4 characters long")
    m, r, a = durations
    s.execute("INSERT INTO games (name, variant, status, master_hash, master_address, "
              "movement_seconds, retreat_seconds, adjustment_seconds, created, settings) "
              "VALUES (?, ?, 'forming', ?, ?, ?, ?, ?, ?, ?)",
              (name, variant.lower(), hash_password(password), address, m, r, a,
               iso(s.clock()), json.dumps(settings or {})))
    game = s.game(name)
    assert game is not None
    return game


def check_master(s: Store, name: str, password: str, guard: Guard | None = None) -> dict:
    game = find_game(s, name)
    scope, what = f"{game['id']}:MASTER", f"the master of game {game['name']}"
    if guard is not None:
        guard(scope, what)
    if not verify_password(password, game["master_hash"]):
        raise WrongPassword(f"wrong master password for game {game['name']}", scope, what,
                            game["master_address"])
    return game


def open_game(s: Store, game: dict) -> dict:
    if game["status"] != "forming":
        raise GameError(f"game {game['name']} is already {game['status']}")
    s.execute("UPDATE games SET status = 'open' WHERE id = ?", (game["id"],))
    return refresh(s, game)


def refresh(s: Store, game: dict) -> dict:
    g = s.game_by_id(game["id"])
    assert g is not None
    return g


def start_game(s: Store, game: dict, now: datetime, chance: Chance = system_chance) -> dict:
    if game["status"] in ("active", "paused", "finished"):
        raise GameError(f"game {game['name']} has already started")
    variant = get_variant(game["variant"])
    taken = {p["power"] for p in s.players(game["id"])}
    missing = [p for p in variant.board.powers if p not in taken]
    if missing:
        raise GameError(f"game {game['name']} cannot start: no player yet for "
                        f"{', '.join(p.title() for p in missing)}")
    plug = flow_of(game["variant"])
    settings = plug.on_start(game_settings(game), list(variant.board.powers),
                             chance(f"start:{game['name']}"))
    pos = plug.initial_position(variant, settings)
    s.execute("UPDATE games SET settings = ? WHERE id = ?", (json.dumps(settings), game["id"]))
    phase = str(pos.phase)
    s.save_position(game["id"], phase, variant.write_position(pos))
    s.execute("UPDATE games SET status = 'active', phase = ? WHERE id = ?", (phase, game["id"]))
    begin_phase_of(s, refresh(s, game), pos, now)
    return refresh(s, game)


def begin_phase_of(s: Store, game: dict, pos: Position, now: datetime) -> str:
    """Start the clock of the phase at ``pos`` now: its deadline as the game's flow says
    (the rules of the variant), else by the game's phase lengths (DEADLINES)."""
    flow = flow_of(game["variant"])
    return begin_phase(s, game, now, flow.deadline_kind(get_variant(game["variant"]), pos),
                       flow.phase_deadline(s, game, pos, now))


def set_deadline(s: Store, game: dict, when: datetime) -> dict:
    if game["status"] not in ("active", "paused"):
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")
    s.execute("UPDATE games SET deadline = ? WHERE id = ?", (iso(when), game["id"]))
    deadline_moved(s, game)  # its reminder and late notices follow the new deadline
    return refresh(s, game)


def set_durations(s: Store, game: dict, durations: list[int]) -> dict:
    m = durations[0]
    r = durations[1] if len(durations) > 1 else game["retreat_seconds"]
    a = durations[2] if len(durations) > 2 else game["adjustment_seconds"]
    s.execute("UPDATE games SET movement_seconds = ?, retreat_seconds = ?, "
              "adjustment_seconds = ? WHERE id = ?", (m, r, a, game["id"]))
    return refresh(s, game)


def pause_game(s: Store, game: dict, now: datetime, why: str | None = None) -> dict:
    """Pause a running game at ``now`` (PAUSE; the judge itself, with ``why``, when
    processing the game failed): no deadline runs, early processing is off."""
    if game["status"] != "active":
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")
    s.execute("UPDATE games SET status = 'paused', paused_at = ?, early_at = NULL, "
              "paused_why = ? WHERE id = ?", (iso(now), why, game["id"]))
    return refresh(s, game)


def resume_game(s: Store, game: dict, now: datetime) -> dict:
    if game["status"] != "paused":
        raise GameError(f"game {game['name']} is not paused (it is {game['status']})")
    deadline = game["deadline"]
    s.execute("UPDATE games SET status = 'active', paused_at = NULL, paused_why = NULL "
              "WHERE id = ?", (game["id"],))
    if game.get("paused_why"):
        pass  # paused by a failure: its deadlines stand, so what failed is due again at once
    elif flow_of(game["variant"]).resume(s, refresh(s, game), now):
        pass  # the flow renewed its deadlines by its own rules
    elif not deadline or parse_iso(deadline) < now:
        begin_phase_of(s, refresh(s, game), current_position(s, game), now)
    return refresh(s, game)


# -------------------------------------------------------------------- players
def join_game(s: Store, game: dict, power_text: str, password: str, address: str,
              password_hash: str | None = None) -> str:
    """``address`` plays the free ``power_text`` of the open ``game`` (with ``password``, or
    the hash of one given before: a sign-on that waited for its address to confirm)."""
    variant = get_variant(game["variant"])
    power = power_name(variant, power_text)
    if game["status"] != "open":
        why = {"forming": "is not open for sign-on yet (its master sends OPEN)"}.get(
            game["status"], f"is {game['status']}: no new players")
        raise GameError(f"game {game['name']} {why}")
    if s.player(game["id"], power) is not None:
        raise GameError(f"{power.title()} in game {game['name']} already has a player")
    if password_hash is None and len(password) < 4:
        raise GameError("a password must be at least 4 characters long")
    s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) "
              "VALUES (?, ?, ?, ?, ?)",
              (game["id"], power, address, password_hash or hash_password(password),
               iso(s.clock())))
    return power


def public_names(game: dict) -> dict[str, str]:
    """The name everyone knows each power by: its own, or another (Gunboat's pseudonym)."""
    flow, settings = flow_of(game["variant"]), game_settings(game)
    return {p: flow.label(settings, p, None) for p in get_variant(game["variant"]).board.powers}


def hides_who_plays(game: dict, names: dict[str, str] | None = None) -> bool:
    """Whether the game names the powers by other names (Gunboat's pseudonyms), so that no
    answer may tell which power stands behind which name; ``names``: its
    :func:`public_names`, when the caller has them."""
    names = public_names(game) if names is None else names
    return any(name != p.title() for p, name in names.items())


def sign_on(s: Store, game: dict, power_text: str, password: str, address: str,
            guard: Guard | None = None) -> tuple[str, bool]:
    """(power, joined): signs on, or joins when the power is free in an open game."""
    variant = get_variant(game["variant"])
    power = power_name(variant, power_text)
    player = s.player(game["id"], power)
    if player is None:
        if game["status"] in ("open", "forming"):
            return join_game(s, game, power, password, address), True
        if not hides_who_plays(game):
            raise GameError(f"{power.title()} in game {game['name']} has no player")
    scope, what = f"{game['id']}:{power}", f"{power.title()} in game {game['name']}"
    if guard is not None:
        guard(scope, what)
    if player is None:  # answered as a wrong password: 'has no player' would tell anyone
        # which power's pseudonym was ejected or abandoned (counted towards the lock alike)
        raise WrongPassword(f"wrong password for {what}", scope, what, "")
    if not verify_password(password, player["password_hash"]):
        raise WrongPassword(f"wrong password for {what}", scope, what, player["address"])
    if player["address"].lower() != address.lower():
        s.execute("UPDATE players SET address = ? WHERE id = ?", (address, player["id"]))
    return power, False


# --------------------------------------------------------------------- orders
@dataclass(slots=True)
class OrderStatus:
    """What the judge tells a power about its orders for the current phase."""

    game: str
    power: str
    phase: str
    phase_name: str
    deadline: str | None
    lines: list[dict] = field(default_factory=list)  # {text, order, data, unit, error}
    missing: list[str] = field(default_factory=list)  # units (or builds/removals) left
    adjustment: int = 0
    submitted: bool = False
    tz: str = "UTC"  # the game's time zone, for the deadline shown
    todo: bool = False  # ``missing`` is the variant's own list of what is left to send
    paused: bool = False  # no clock runs: the deadline shown is the one it had

    @property
    def has_errors(self) -> bool:
        return any(line.get("error") for line in self.lines)


def _unit_of(order: Any) -> str | None:
    unit = getattr(order, "unit", None)
    return province_of(unit.location) if unit is not None else None


def order_entry(variant: Any, text: str, order: Any, unit: str | None) -> dict:
    """A line read into an order, as stored: the line as written (``text``), the order as data
    (``data``: ``docs/engine.md``, "Orders as data") and its canonical text (``order``, what
    acknowledgements and reports show), and the unit it is for (``unit``, the province)."""
    return {"text": text, "order": str(order), "data": variant.order_to_data(order),
            "unit": unit, "error": None}


def refuse(entry: dict, error: str) -> None:
    """A stored line's order refused after all (one build too many...)."""
    entry["error"] = error
    entry["order"] = entry["data"] = None


def set_aside(entry: dict, later: str) -> None:
    """A stored line whose order a later line of the mail replaced (``later``, that order's
    text): no error (the player changed their mind, or wrote the order twice), shown with a
    note beside it (``note``) and not used."""
    entry["note"] = "same as the later line" if later == entry["order"] \
        else f"replaced by the later order {later}"
    entry["order"] = entry["data"] = None


def read_order_lines(variant: Any, pos: Position, power: str, texts: list[str],
                     known: dict[str, OrderLine] | None = None) -> list[dict]:
    """Read a power's lines, keeping exactly the orders the adjudicator obeys: a later order
    to the same unit replaces an earlier one, as the variant counts orders per unit
    (Variant.replaced_orders: where a variant stacks units, a space takes as many orders as
    it holds units); in an adjustment phase, the builds or removals due, as the variant
    counts them (Variant.refused_adjustments), else one order per space and per build or
    removal due, the first ones written. ``known``: the lines already read against this
    position for this power, by their text, and where the lines read now are kept (one mail's
    lines read again in another order are not read twice)."""
    out: list[dict] = []
    # the flow is the game's variant's (``variant`` is made from the game), never looked up
    # by the position: a variant played on another's board reads with its own flow
    special = flow_of(variant.name).read_lines(variant, pos, power, texts)
    if special is not None:  # the variant's plug-in reads (and replaces) lines its own way
        return special
    read = variant.read_orders(pos, power, texts) if known is None else \
        _read_each_once(variant, pos, power, texts, known)
    kind = pos.phase.kind
    refused = variant.refused_adjustments(
        pos, power, [ol.order for ol in read if ol.order is not None]) if kind == "A" else None
    adjusted: set[str] = set()  # adjustments by the general rule: the spaces with an order
    orders: list[Any] = []  # the orders read, in order, and their lines
    entries: list[dict] = []
    for ol in read:
        if ol.order is None:
            out.append({"text": ol.text, "order": None, "data": None, "unit": None,
                        "error": ol.error or "cannot read this order"})
            continue
        unit = _unit_of(ol.order)
        if unit and kind == "A" and refused is None:
            if unit in adjusted:
                out.append({"text": ol.text, "order": None, "data": None, "unit": None,
                            "error": f"{unit} already has an order in this mail"})
                continue
            adjusted.add(unit)
        entry = order_entry(variant, ol.text, ol.order, unit)
        out.append(entry)
        orders.append(ol.order)
        entries.append(entry)
    if kind in "MR":  # a later order replaces an earlier one, as the variant rules
        for old, replaced in variant.replaced_orders(pos, power, orders).items():
            if replaced.rest is None:
                set_aside(entries[old], str(orders[replaced.by]))
            else:  # replaced for some of its units: the rest stands, as the reply shows
                entries[old]["order"] = str(replaced.rest)
                entries[old]["data"] = variant.order_to_data(replaced.rest)
    elif refused is not None:  # the builds and removals the adjudicator carries out
        for k, reason in refused.items():
            refuse(entries[k], reason)
    elif kind == "A":
        allowed = abs(variant.adjustment_count(pos, power))
        valid = [line for line in out if line["order"]]
        for extra in valid[allowed:]:
            what = "builds" if variant.adjustment_count(pos, power) > 0 else "removals"
            refuse(extra, f"{power.title()} has only {allowed} {what} this phase"
                   if allowed else f"{power.title()} has no {what} this phase")
    return out


def _read_each_once(variant: Any, pos: Position, power: str, texts: list[str],
                    known: dict[str, OrderLine]) -> list[OrderLine]:
    """``variant.read_orders(pos, power, texts)``, reading only the lines not in ``known``
    (and keeping them there): Variant.read_orders reads each line alone, so a line reads the
    same wherever it stands among others."""
    out = []
    for line in texts:
        text = line.strip()
        if not text:
            continue
        if text not in known:
            known[text] = variant.read_orders(pos, power, [text])[0]
        out.append(known[text])
    return out


KEPT_NOTE = "your earlier order, kept"


def keep_earlier_orders(variant: Any, pos: Position, power: str, texts: list[str],
                        lines: list[dict], earlier: list[dict],
                        known: dict[str, OrderLine] | None = None) -> list[dict]:
    """``lines`` (``texts`` read) with the earlier orders that lines in error keep. A mail's
    orders replace the power's set, but a line in error never leaves a unit it names with
    less than it had: when a line that cannot be used starts with a unit whose order in the
    set stored before (``earlier``) no line of the mail replaces, that order stays. Which
    orders stay is decided by reading them again before the mail's lines, by the variant's
    own reading and its count of orders per unit (Variant.replaced_orders), so the set
    stored is exactly what the adjudicator obeys. Each kept order is stored after the line
    in error, whose reason says so ("A MUN keeps its earlier order A MUN - TYR"). Only the
    power's own stored orders are looked at: nothing is said about another power's unit.
    ``known``: the readings ``lines`` came from (:func:`read_order_lines`), so that the mail's
    lines, read again among the earlier orders, are not read again."""
    if pos.phase.kind not in "MR" or not earlier:
        return lines
    board_of = getattr(variant.rules, "board_of", None)
    board = board_of(pos) if board_of else variant.board
    old = [e for e in earlier if e.get("order")]
    wanted: list[tuple[int, dict]] = []  # (index of the line in error, the earlier entry)
    taken: set[int] = set()
    for at, line in enumerate(lines):
        if not line.get("error") or line.get("order"):
            continue
        location = leading_unit(board, line["text"], pos.phase.kind)
        if location is None:
            continue
        for k, entry in enumerate(old):
            if k not in taken and province_of(location) in _spaces(variant, power, entry):
                taken.add(k)
                wanted.append((at, entry))
    if not wanted:
        return lines
    again = read_order_lines(variant, pos, power, [e["text"] for _, e in wanted] + texts,
                             known)
    kept, rest = again[:len(wanted)], again[len(wanted):]
    if len(rest) != len(lines):  # pragma: no cover (the same lines read the same way)
        return lines
    after: dict[int, list[dict]] = {}
    for (at, _), entry in zip(wanted, kept, strict=True):
        if not entry.get("order"):  # a line of the mail replaces it after all
            continue
        entry["note"] = KEPT_NOTE
        after.setdefault(at, []).append(entry)
        try:
            unit = getattr(variant.order_from_data(entry["data"]), "unit", None)
        except (ValueError, KeyError, TypeError, AttributeError):
            unit = None
        who = str(unit) if unit is not None else entry.get("unit") or "the unit"
        rest[at]["error"] = (f"{rest[at]['error']}; {who} keeps its earlier order "
                             f"{entry['order']}")
    if not after:
        return rest
    beside = [x for at, line in enumerate(rest) for x in (line, *after.get(at, ()))]
    # stored beside its line when that reads the same (a stack's count of orders may depend
    # on where a line stands), else before the mail's lines, as it was read
    if [x.get("order") for x in read_order_lines(variant, pos, power,
                                                  [x["text"] for x in beside], known)] \
            == [x.get("order") for x in beside]:
        return beside
    return [x for x in kept if x.get("order")] + rest


def needs(variant: Any, pos: Position, power: str) -> tuple[list[str], int]:
    """(units to order, adjustment count) for ``power`` in this phase."""
    special = flow_of(variant.name).needs(variant, pos, power)
    if special is not None:
        return special
    if pos.phase.kind == "A":
        return [], variant.adjustment_count(pos, power)
    return [str(u) for u in variant.units_to_order(pos, power)], 0


def order_status(s: Store, game: dict, power: str, pos: Position | None = None
                 ) -> OrderStatus:
    variant = get_variant(game["variant"])
    pos = pos or current_position(s, game)
    stored = s.order_set(game["id"], game["phase"], power)
    lines = stored or []
    status = OrderStatus(game["name"], power, game["phase"], pos.phase.long_name,
                         game["deadline"], lines=lines, submitted=stored is not None,
                         tz=_zone(game), paused=game["status"] == "paused")
    units, count = needs(variant, pos, power)
    status.adjustment = count
    special = flow_of(variant.name).missing(variant, pos, power, lines, status.submitted)
    if special is not None:
        status.missing, status.todo = special, True
    elif pos.phase.kind == "A":
        left = abs(count) - sum(1 for line in lines if line.get("order"))
        if left > 0:
            word = "build" if count > 0 else "removal"
            status.missing = [f"{left} {word}{'s' if left != 1 else ''} not yet ordered"]
    else:
        ordered_count = Counter(space for line in lines if line.get("order")
                                for space in _spaces(variant, power, line))
        for u in units:  # each order covers one unit of its space
            province = province_of(u.split()[-1])
            if ordered_count[province] > 0:
                ordered_count[province] -= 1
            else:
                status.missing.append(u)
    return status


def _spaces(variant: Any, power: str, line: dict) -> tuple[str, ...]:
    """The spaces of the units a stored line's order is for (a merge: each unit it names)."""
    try:
        return variant.order_spaces(power, variant.order_from_data(line["data"]))
    except (ValueError, KeyError, TypeError, AttributeError):  # a line stored as text only
        return (line["unit"],) if line.get("unit") else ()


def _orders_state(s: Store, game: dict, power: str, pos: Position, sets: dict) -> str:
    """``complete``, ``partial (N left)`` or ``none``: how far ``power`` has ordered."""
    if power not in sets:
        return "none"
    st = order_status(s, game, power, pos)
    left = st.missing
    if not left:
        return "complete"
    if st.todo:  # the variant's own list of what is left (placements, ...)
        return f"partial ({len(left)} to do)"
    if len(left) == 1 and left[0][:1].isdigit():  # "2 builds not yet ordered"
        return f"partial ({left[0].split(' not yet')[0]} left)"
    return f"partial ({len(left)} unit{'s' if len(left) != 1 else ''} without an order)"


def _zone(game: dict) -> str:
    return zone(game)


def check_running(game: dict, master: str | None = None) -> None:
    """Refuse what needs a running game. ``master``: the master's command asking (PROCESS):
    a paused game's master is told to RESUME it first, not that orders wait."""
    if game["status"] == "paused":
        if master and game.get("paused_why"):  # deadlines.contain_failure paused it
            raise GameError(f"game {game['name']} is paused by the judge "
                            f"({game['paused_why']}): RESUME processes it again at once "
                            "(nothing was done)")
        if master:
            raise GameError(f"game {game['name']} is paused: RESUME it first, then {master} "
                            "(nothing was done)")
        raise GameError(f"game {game['name']} is paused: orders wait until it resumes")
    if master:
        check_not_ended(game, master)
    if game["status"] != "active":
        raise GameError(f"game {game['name']} is not running (it is {game['status']})")


def check_not_ended(game: dict, command: str) -> None:
    """A master's ``command`` that changes a game is refused once the game has ended (only
    ROLLBACK reopens it)."""
    if game["status"] == "finished":
        how = game.get("result") or (f"won by {game['winner'].title()}" if game.get("winner")
                                     else "")
        raise GameError(f"game {game['name']} has ended{f' ({how})' if how else ''}: "
                        f"{command} is refused once a game is over (ROLLBACK <phase> "
                        "reopens it)")


def submit_orders(s: Store, game: dict, power: str, texts: list[str], inbox_id: int | None
                  ) -> OrderStatus:
    """Replace ``power``'s orders for the current phase with these lines."""
    check_running(game)
    variant = get_variant(game["variant"])
    pos = current_position(s, game)
    units, count = needs(variant, pos, power)
    if not units and not count:
        raise GameError(f"{power.title()} has nothing to order in {pos.phase.long_name} "
                        f"of game {game['name']}")
    known: dict[str, OrderLine] = {}  # each line read once, however often it is arranged
    lines = keep_earlier_orders(variant, pos, power, texts,
                                read_order_lines(variant, pos, power, texts, known),
                                s.order_set(game["id"], game["phase"], power) or [], known)
    # "your earlier order, kept" is said in the reply to this mail only: stored, a kept order
    # is an order like any other, shown plainly by a later STATUS
    s.save_order_set(game["id"], game["phase"], power,
                     [_without_kept_note(x) for x in lines], inbox_id)
    status = order_status(s, game, power, pos)
    status.lines = lines
    return status


def _without_kept_note(line: dict) -> dict:
    if line.get("note") != KEPT_NOTE:
        return line
    return {k: v for k, v in line.items() if k != "note"}


def clear_orders(s: Store, game: dict, power: str) -> None:
    check_running(game)
    s.clear_order_set(game["id"], game["phase"], power)


def activate_pending(s: Store, game: dict) -> list[ahead.Activation]:
    """The orders sent ahead for the phase that has just begun become the powers' orders, read
    as if sent now (through :func:`submit_orders`); a line that no longer reads is left out,
    with its reason, in the activation returned (the player is told by mail)."""
    if game["status"] != "active":
        return []
    variant = get_variant(game["variant"])
    pos = current_position(s, game)
    due = ahead.take_due(s, game, pos)
    for act in due:
        if act.expired or not act.lines:
            continue
        read = read_order_lines(variant, pos, act.power, act.lines)
        # a line in error, or one a later line replaced (its note), is left out and told
        act.dropped += [(r["text"], r.get("error") or r["note"]) for r in read
                        if r.get("error") or r.get("note")]
        act.lines = [r["text"] for r in read if not r.get("error") and not r.get("note")]
        if not act.lines:
            continue
        try:
            submit_orders(s, game, act.power, act.lines, act.inbox_id)
        except GameError as exc:
            act.dropped += [(line, str(exc)) for line in act.lines]
            act.lines = []
    return due


def powers_to_order(variant: Any, pos: Position) -> list[str]:
    """The powers that have something to order in ``pos`` (units, or adjustments)."""
    return [p for p in variant.board.powers if needs(variant, pos, p) != ([], 0)]


def nothing_to_order(variant: Any, pos: Position) -> bool:
    return all(needs(variant, pos, p) == ([], 0) for p in variant.board.powers)


def adjudicate(s: Store, game: dict, now: datetime) -> list[Turn]:
    """Adjudicate the current phase (and any following phase with nothing to order)."""
    turns: list[Turn] = []
    variant = get_variant(game["variant"])
    while True:
        pos = current_position(s, game)
        sets = s.order_sets(game["id"], game["phase"])
        # Usually one phase; a variant may adjudicate several from one set of orders.
        steps = flow_of(game["variant"]).adjudicate(variant, pos, stored_orders(variant, sets))
        for outcome, given in steps:
            # stands/given when not the default: HISTORY's classic layout lists only the
            # orders that stood and words a unit without an order as the classic judges did
            results = [{**r.to_json(), **({} if r.stands else {"stands": False}),
                        **({} if r.given else {"given": False})} for r in outcome.results]
            s.execute("UPDATE positions SET results = ?, adjudicated = ? WHERE game_id = ? "
                      "AND phase = ?", (json.dumps(results), iso(now), game["id"],
                                        str(outcome.previous.phase)))
            s.save_position(game["id"], str(outcome.position.phase),
                            variant.write_position(outcome.position))
            turns.append(Turn(game, outcome.previous, outcome, sets if given is None else {},
                              given))
        new = steps[-1][0].position
        phase = str(new.phase)
        status = "finished" if new.winner else game["status"]
        s.execute("UPDATE games SET phase = ?, deadline = NULL, status = ?, winner = ? "
                  "WHERE id = ?", (phase, status, new.winner, game["id"]))
        if not new.winner:  # the phase's deadline by the game's flow and settings
            begin_phase_of(s, refresh(s, game), new, now)
        game = refresh(s, game)
        if not new.winner:
            turns[-1].ahead += activate_pending(s, game)
        if new.winner or not nothing_to_order(variant, new) or len(turns) > 10:
            return turns


def game_summary(s: Store, game: dict, now: datetime, reader: str | None = None) -> dict:
    """What STATUS and LIST <game> show about a game to ``reader`` (the power the mail
    signed on as in this game, or None), at ``now`` by the judge's clock."""
    variant = get_variant(game["variant"])
    plug = flow_of(game["variant"])
    settings = game_settings(game)
    players = {p["power"]: p for p in s.players(game["id"])}
    info: dict[str, Any] = {
        "name": game["name"], "variant": variant.title, "status": game["status"],
        "phase": game["phase"], "deadline": game["deadline"],
        # as the reader knows it: a Gunboat pseudonym (the game-over notice's name for it)
        "winner": plug.label(settings, game["winner"], reader) if game["winner"] else None,
        "movement": game["movement_seconds"], "retreat": game["retreat_seconds"],
        "adjustment": game["adjustment_seconds"], "phase_name": None, "powers": [],
        "tz": _zone(game),
    }
    pos = None
    if game["phase"]:
        pos = current_position(s, game)
        info["phase_name"] = pos.phase.long_name
    sets = s.order_sets(game["id"], game["phase"]) if game["phase"] else {}
    for power in variant.board.powers:
        entry: dict[str, Any] = {"power": power, "taken": power in players,
                                 "label": plug.label(settings, power, reader)}
        if pos is not None:
            centres = sorted(pos.centres.get(power, ()))
            entry["centres"] = len(centres)
            entry["units"] = len(pos.units_of(power))
            units, count = needs(variant, pos, power)
            entry["to_order"] = bool(units or count)
            entry["orders"] = _orders_state(s, game, power, pos, sets) if entry["to_order"] \
                else ""
        info["powers"].append(entry)
    info["notes"] = plug.status_notes(s, game, now)
    info["paused_why"] = game.get("paused_why") if game["status"] == "paused" else None
    if info["paused_why"]:  # paused by the judge, processing it failed (judge/games/deadlines.py)
        info["notes"] = [f"Paused by the judge: {info['paused_why']}. The master has been "
                         "told, and processes it again with RESUME.", *info["notes"]]
    # the flow's own words, else the lengths of the phases the variant has (no retreat
    # length for Chess Dip, which has no retreats)
    info["lengths"] = plug.lengths(s, game) or phase_lengths(
        variant, game["movement_seconds"], game["retreat_seconds"], game["adjustment_seconds"])
    return plug.summary(info, reader)
