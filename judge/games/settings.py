"""Per-game settings (``games.settings``, JSON): what a game master changes with ``SET``.

Every key has a default, so a game created before a key existed reads the default. Values are
checked here and a bad one raises :class:`~judge.games.game.GameError` with the reason, so a
``SET`` with a typo changes nothing.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.durations import LONGEST, TOO_LONG, parse_duration
from judge.games.errors import GameError
from judge.storage import parse_iso
from judge.text import duration_text

WEEKDAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"]

DEFAULTS: dict[str, Any] = {
    "zone": "UTC",          # every date the judge writes for this game is in this zone
    "time": "",             # HH:MM: deadlines fall at this time of day ("" = any time)
    "days": [],             # weekdays (0 = Monday) a deadline may fall on ([] = every day)
    "grace": 0,             # seconds after the deadline before missing orders count as missed
    "reminder": 86400,      # seconds before the deadline to remind powers without orders
    "settle": None,         # seconds between "everyone has ordered" and processing (None: config)
    "missed": "process",    # process (civil disorder at the end of grace) | wait (for a player)
    "abandon": 3,           # missed phases in a row before a power is declared abandoned (0 never)
    "press": "white",       # white (signed) | grey (anonymous) | both | none
    "gmpress": False,       # the master reads all press (and the players are told)
    "observerpress": False,  # observers receive broadcast press
    "draw": "all",          # all survivors | subset (a draw among some survivors)
    "list": "",             # an address (mailing list) that receives every public report
    "anonymous": False,     # WHOIS and LIST do not reveal players' addresses
    "absence": 14 * 86400,  # longest absence a player may declare, seconds
    # how the reports print their results: readable (the judge's own words, written for the
    # players) | classic (the classic judges' block the mapping tools read) | both
    "layout": "readable",
    "layouts": {},          # a player's own choice for their copy: {address (lower): layout}
}
LAYOUTS = {"classic": "the classic judges' layout", "readable": "the readable layout",
           "both": "both layouts, the classic one first"}

_BOOL = {"ON": True, "YES": True, "TRUE": True, "OFF": False, "NO": False, "FALSE": False}
_ADDRESS = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$|^[^@\s<>]+@localhost$")
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")

USAGE = ("SET <key> <value>; keys: ZONE <Area/City>, TIME <HH:MM|ANY>, DAYS <MON-FRI|ALL|"
         "MON,WED,...>, GRACE <duration>, REMINDER <duration|OFF>, SETTLE <duration>, "
         "MISSED <PROCESS|WAIT>, ABANDON <n|OFF>, PRESS <WHITE|GREY|BOTH|NONE>, "
         "GMPRESS <ON|OFF>, OBSERVERPRESS <ON|OFF>, DRAW <ALL|SUBSET>, LIST <address|OFF>, "
         "ANONYMOUS <ON|OFF>, ABSENCE <duration>, LAYOUT <CLASSIC|READABLE|BOTH>, "
         "MOVEMENT/RETREAT/ADJUSTMENT <duration>")


def load(game: dict) -> dict[str, Any]:
    try:
        stored = json.loads(game.get("settings") or "{}")
    except ValueError:
        stored = {}
    return {**DEFAULTS, **stored}


def anonymous(game: dict) -> bool:
    """Whether the game hides who plays what: SET ANONYMOUS, or a Gunboat game (the variant
    settings in the same JSON)."""
    st = load(game)
    return bool(st["anonymous"] or st.get("gunboat"))


def layout_for(game: dict, address: str) -> str:
    """The layout of the reports mailed to ``address``: its player's own choice, else the
    game's."""
    st = load(game)
    own = st["layouts"].get(address.lower()) if isinstance(st["layouts"], dict) else None
    return str(own if own in LAYOUTS else st["layout"])


def parse_layout(value: str, own: bool = False) -> str | None:
    """``CLASSIC``, ``READABLE``, ``BOTH`` (and, for a player's own copy, ``GAME``: the
    game's again, None); GameError otherwise."""
    v = value.strip().lower()
    if own and v in ("game", "default"):
        return None
    if v not in LAYOUTS:
        choices = "CLASSIC, READABLE, BOTH or GAME" if own else "CLASSIC, READABLE or BOTH"
        raise GameError(f"SET LAYOUT: write {choices}, not {value.strip()!r}")
    return v


def zone(game: dict) -> str:
    return str(load(game)["zone"])


# zone abbreviations a player may write after a time; each is its fixed offset (CET is +01:00
# all year: in summer write CEST, or the zone's name, Europe/Paris)
ABBREVIATIONS = {
    "UTC": 0, "GMT": 0, "Z": 0, "UT": 0, "WET": 0, "WEST": 60, "BST": 60, "IST": 60,
    "CET": 60, "CEST": 120, "MET": 60, "MEST": 120, "EET": 120, "EEST": 180, "MSK": 180,
    "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360,
    "PST": -480, "PDT": -420, "AEST": 600, "AEDT": 660, "JST": 540,
}
_AT = re.compile(r"^(\d{4}-\d{1,2}-\d{1,2})(?:[ T]+(\d{1,2})[:h](\d{2})(?::(\d{2}))?)?\s*(.*)$",
                 re.IGNORECASE)
_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)
TIME_HELP = ("write 2026-11-25 18:00, read in the game's time zone, or with a zone after it: "
             "18:00 CET, 18:00 UTC, 18:00 +01:00, 18:00 Europe/London")


def time_help(now: datetime | None, tz: str) -> str:
    """:data:`TIME_HELP` with an example still to come: tomorrow at 18:00 in the game's zone
    (a refusal must not suggest a date already past)."""
    if now is None:
        return TIME_HELP
    try:
        local = now.astimezone(ZoneInfo(tz))
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long
        local = now.astimezone(UTC)
    day = (local + timedelta(days=1)).strftime("%Y-%m-%d")
    return TIME_HELP.replace("2026-11-25 18:00", f"{day} 18:00", 1)


def day_ahead(now: datetime, tz: str, days: int) -> str:
    """The date ``days`` after ``now`` in the zone ``tz`` (``2026-12-24``): a printed
    example of a date must still be to come when the reader copies it."""
    try:
        local = now.astimezone(ZoneInfo(tz))
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long
        local = now.astimezone(UTC)
    return (local + timedelta(days=days)).strftime("%Y-%m-%d")


PHASE_WORDS = (("M", "movement"), ("R", "retreat"), ("A", "adjustment"))


def phase_kinds(variant: Any) -> set[str]:
    """The kinds of phase (M, R, A) the variant's calendar has; all three when it says
    none (Chess Dip has no retreats)."""
    calendar = getattr(getattr(variant, "rules", None), "calendar", None) or ("M", "R", "A")
    return {str(c)[-1] for c in calendar}


def phase_lengths(variant: Any, movement: int, retreat: int, adjustment: int) -> str:
    """``Phase lengths: movement 2 days, retreat 1 day, adjustment 1 day.``, naming only the
    phases the variant has."""
    kinds = phase_kinds(variant)
    seconds = {"M": movement, "R": retreat, "A": adjustment}
    parts = [f"{word} {duration_text(seconds[k])}" for k, word in PHASE_WORDS if k in kinds]
    return f"Phase lengths: {', '.join(parts)}."


def written_zone(text: str) -> timezone | ZoneInfo:
    """The zone a player wrote after a time: ``CET``, ``UTC``, ``+01:00``, ``Europe/London``;
    GameError when it is none."""
    t = text.strip()
    if t.upper() in ABBREVIATIONS:
        return timezone(timedelta(minutes=ABBREVIATIONS[t.upper()]), t.upper())
    m = _OFFSET.match(t)
    if m and int(m.group(2)) <= 14 and int(m.group(3) or 0) < 60:
        minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
        return timezone(timedelta(minutes=-minutes if m.group(1) == "-" else minutes))
    for name in (t, "/".join(part.title() for part in t.split("/"))):
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long
            continue
    raise GameError(f"{t!r} is not a time zone (write e.g. CET, UTC, +01:00 or Europe/London)")


def read_time(text: str, tz: str, end_of_day: bool = False,
              now: datetime | None = None) -> datetime:
    """``2026-11-25 18:00`` (or a whole day, ``2026-11-25``), in the game's zone ``tz`` unless
    a zone is written after it (``18:00 CET``, ``18:00 +01:00``, ``18:00 Europe/London``);
    returned in UTC. A whole day ends at midnight after it when ``end_of_day``."""
    m = _AT.match(" ".join(text.split()))
    if not m:
        raise GameError(f"{text.strip()!r} is not a date and time ({time_help(now, tz)})")
    date, hour, minute, second, rest = m.groups()
    rest = rest.strip().strip("()").strip()
    where = written_zone(rest) if rest else ZoneInfo(tz)
    try:
        local = datetime.strptime(date, "%Y-%m-%d").replace(
            hour=int(hour or 0), minute=int(minute or 0), second=int(second or 0))
        if hour is None and end_of_day:
            local += timedelta(days=1)
        return local.replace(tzinfo=where).astimezone(UTC)
    except (ValueError, OverflowError):  # 9999-12-31 -12:00 is past the last date there is
        raise GameError(f"{text.strip()!r} is not a date and time ({time_help(now, tz)})") from None


def in_utc(value: str | datetime | None, tz: str) -> str:
    """`` (17:00 UTC)`` after a deadline shown in a game zone other than UTC ("" otherwise)."""
    if not value or tz.upper() in ("UTC", "ETC/UTC", "GMT"):
        return ""
    dt = parse_iso(value) if isinstance(value, str) else value
    return f"; in UTC {dt.astimezone(UTC).strftime('%a %d %b %Y %H:%M')} UTC"


def _duration(key: str, value: str, allow_off: bool = False) -> int:
    if allow_off and value.upper() in ("OFF", "NONE", "0"):
        return 0
    seconds = parse_duration(value)
    if seconds is None:
        raise GameError(f"SET {key}: {value!r} is not a duration (e.g. 24h, 2d, 90m)")
    if seconds > LONGEST:
        raise GameError(f"SET {key}: {value!r} is too long: {TOO_LONG}")
    return seconds


def _bool(key: str, value: str) -> bool:
    if value.upper() not in _BOOL:
        raise GameError(f"SET {key}: write ON or OFF, not {value!r}")
    return _BOOL[value.upper()]


def parse_days(text: str) -> list[int]:
    """``MON-FRI``, ``SAT,SUN``, ``ALL`` -> weekday numbers (0 = Monday)."""
    t = text.upper().replace(" ", "")
    if t in ("ALL", "ANY", "EVERY"):
        return []
    days: set[int] = set()
    for part in t.split(","):
        lo, _, hi = part.partition("-")
        try:
            a = WEEKDAYS.index(lo[:3])
            b = WEEKDAYS.index(hi[:3]) if hi else a
        except ValueError:
            raise GameError(f"SET DAYS: {part!r} is not a weekday or a range of weekdays "
                            "(MON, TUE, ..., SUN; e.g. MON-FRI or SAT,SUN)") from None
        i = a
        while True:
            days.add(i)
            if i == b:
                break
            i = (i + 1) % 7
    return sorted(days) if len(days) < 7 else []


def parse_setting(key: str, words: list[str]) -> tuple[str, Any]:
    """(settings key, value) from ``SET KEY words...``; GameError when it is not usable."""
    k = key.upper()
    value = " ".join(words).strip()
    if not value:
        raise GameError(f"SET {k} needs a value; write: {USAGE}")
    if k in ("ZONE", "TIMEZONE", "TZ"):
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long
            raise GameError(f"SET ZONE: {value!r} is not a time zone (write e.g. "
                            "Europe/Paris, America/New_York or UTC)") from None
        return "zone", value
    if k == "TIME":
        if value.upper() in ("ANY", "OFF", "NONE"):
            return "time", ""
        if not _TIME.match(value):
            raise GameError(f"SET TIME: {value!r} is not a time of day (write e.g. 18:00)")
        h, m = value.split(":")
        return "time", f"{int(h):02d}:{m}"
    if k in ("DAYS", "WEEKDAYS"):
        return "days", parse_days(value)
    if k == "GRACE":
        return "grace", _duration(k, value, allow_off=True)
    if k == "REMINDER":
        return "reminder", _duration(k, value, allow_off=True)
    if k == "SETTLE":
        return "settle", _duration(k, value, allow_off=True)
    if k == "MISSED":
        if value.upper() not in ("PROCESS", "WAIT"):
            raise GameError(f"SET MISSED: write PROCESS or WAIT, not {value!r}")
        return "missed", value.lower()
    if k == "ABANDON":
        if value.upper() in ("OFF", "NEVER"):
            return "abandon", 0
        if not value.isdigit() or int(value) > 99:
            raise GameError(f"SET ABANDON: write a number of phases (e.g. 2) or OFF, "
                            f"not {value!r}")
        return "abandon", int(value)
    if k == "PRESS":
        if value.upper() in ("GRAY",):
            value = "GREY"
        if value.upper() not in ("WHITE", "GREY", "BOTH", "NONE"):
            raise GameError(f"SET PRESS: write WHITE, GREY, BOTH or NONE, not {value!r}")
        return "press", value.lower()
    if k in ("GMPRESS", "OBSERVERPRESS", "ANONYMOUS"):
        return k.lower(), _bool(k, value)
    if k == "DRAW":
        if value.upper() not in ("ALL", "SUBSET"):
            raise GameError(f"SET DRAW: write ALL or SUBSET, not {value!r}")
        return "draw", value.lower()
    if k == "LIST":
        if value.upper() in ("OFF", "NONE"):
            return "list", ""
        if not _ADDRESS.match(value):
            raise GameError(f"SET LIST: {value!r} is not an email address")
        return "list", value
    if k == "ABSENCE":
        return "absence", _duration(k, value)
    if k == "LAYOUT":
        return "layout", parse_layout(value)
    raise GameError(f"SET {k}: no such setting; write: {USAGE}")


def describe(game: dict, settle_default: int) -> list[tuple[str, str]]:
    """(name, value) rows for LIST <game>."""
    st = load(game)
    settle = st["settle"] if st["settle"] is not None else settle_default
    days = ", ".join(WEEKDAYS[d].title() for d in st["days"]) or "every day"
    return [
        ("time zone", st["zone"]),
        ("deadlines", f"{'at ' + st['time'] if st['time'] else 'any time of day'}, "
                      f"{days}"),
        ("grace", duration_text(st["grace"]) if st["grace"] else "none"),
        ("reminder", (duration_text(st["reminder"]) + " before the deadline")
         if st["reminder"] else "none"),
        ("early processing", f"{duration_text(settle)} after the last orders"
         if settle else "as soon as every power has ordered"),
        ("missed orders", "civil disorder at the end of grace" if st["missed"] == "process"
         else "the game waits for a replacement"),
        ("abandoned after", f"{st['abandon']} missed phases in a row" if st["abandon"]
         else "never"),
        ("press", {"white": "white (signed)", "grey": "grey (anonymous)",
                   "both": "white or grey", "none": "no press"}[st["press"]]),
        ("master reads all press", "yes" if st["gmpress"] else "no"),
        ("observers receive broadcast press", "yes" if st["observerpress"] else "no"),
        ("draws", "all survivors" if st["draw"] == "all" else "any subset of survivors"),
        ("mailing list", st["list"] or "none"),
        ("players' addresses", "hidden" if anonymous(game) else "shown"),
        ("longest absence", duration_text(st["absence"])),
        ("report layout", LAYOUTS.get(st["layout"], st["layout"])),
    ]
