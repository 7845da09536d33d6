"""The one duration parser of the judge, shared by the config (``default_movement``, ...) and
the mail commands (``DEADLINES``, ``SET SETTLE``, ``EXTEND``, ...).

Accepted: ``48h``, ``2d``, ``90m``, ``30s``, ``1d12h``, ``1d 12h``, ``48 hours``, ``2 days``,
``1 day 12 hours``, ``1 day, 12 hours``, ``1 day and 12 hours``, ``1 week``, and a bare number of
hours (``36``). Each unit at most once.
"""

from __future__ import annotations

import re

_UNITS = {
    "w": 7 * 86400, "wk": 7 * 86400, "wks": 7 * 86400, "week": 7 * 86400, "weeks": 7 * 86400,
    "d": 86400, "day": 86400, "days": 86400,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
}
_PART = re.compile(r"(\d+)\s*([a-z]+)")
_JOINER = re.compile(r"[\s,]+(?:and\s+)?")

EXAMPLES = "e.g. 48h, 2d, 90m, 48 hours, 2 days, 1 day 12 hours"

# The longest duration a game takes (a phase, a grace, a deadline ahead): 99999999d was read,
# and adding it to a date overflowed Python's dates in the middle of a mail or a phase.
LONGEST = 365 * 86400
TOO_LONG = "a game's durations and deadlines are at most 365 days (ahead)"


def parse_duration(text: str) -> int | None:
    """The duration ``text`` in seconds, or None when it is not one."""
    t = text.strip().lower()
    if t.isdigit():
        return int(t) * 3600
    seconds, seen, pos = 0, set(), 0
    while pos < len(t):
        m = _PART.match(t, pos)
        if not m or m.group(2) not in _UNITS or _UNITS[m.group(2)] in seen:
            return None
        seen.add(_UNITS[m.group(2)])
        seconds += int(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
        if pos < len(t):
            sep = _JOINER.match(t, pos)
            if sep and sep.end() < len(t):
                pos = sep.end()
            elif not t[pos].isdigit():
                return None
    return seconds if seen else None


def read_durations(words: list[str], most: int = 3) -> tuple[list[int], int]:
    """Up to ``most`` durations from the start of a command's ``words``, and how many words
    they took; reading stops at the first word that does not continue a duration.

    Each duration is one written form: ``48h``, ``1d12h``, a number and its unit word
    (``48 hours``, ``2 days``), several of those joined by ``and`` (``1 day and 12 hours``);
    a comma ends a duration (``48 hours, 24 hours``). So ``DEADLINES 2d 12h 12h`` stays three
    durations, as it always was.
    """
    out: list[int] = []
    i = 0
    while i < len(words) and len(out) < most:
        text, j = _one(words, i)
        if text is None:
            break
        while j + 1 < len(words) and words[j].lower() == "and":
            more, k = _one(words, j + 1)
            if more is None or parse_duration(f"{text} {more}") is None:
                break
            text, j = f"{text} {more}", k
        seconds = parse_duration(text)
        if seconds is None:
            break
        out.append(seconds)
        i = j
    return out, i


def _one(words: list[str], i: int) -> tuple[str | None, int]:
    """One written part at ``words[i]``: ``48h`` or ``48 hours`` (a trailing comma dropped)."""
    word = words[i].rstrip(",")
    if word.isdigit() and i + 1 < len(words) and words[i].rstrip(",") == words[i] \
            and words[i + 1].rstrip(",").lower() in _UNITS:
        return f"{word} {words[i + 1].rstrip(',')}", i + 2
    return (word, i + 1) if word and parse_duration(word) is not None else (None, i)
