"""The judge's texts that the mail layer and the variants' rules both use: the one Jinja2
environment every mail is rendered in (templates in ``templates/``, found by
:func:`judge.resources.template_loader`) and how deadlines and durations are written.

It stands below the mail layer (:mod:`judge.mail.compose` builds messages with it) and below
the variants, whose rules render their own reports' templates here without reaching the mail
layer (issue 22).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from zoneinfo import ZoneInfo

import jinja2

from judge.resources import template_loader
from judge.storage import parse_iso


def deadline_text(value: str | datetime | None, now: datetime,
                  tz: str | None = None) -> str:
    """``Sun 22 Nov 2026 07:00 UTC (in 1 day 23 hours 59 minutes)``, in the game's time zone
    ``tz`` (dates are stored in UTC; players read them in their game's zone). ``now`` is the
    judge's clock, which a test or the season simulator moves: no default, so no text
    counts the time left from the wall clock by accident."""
    if not value:
        return "none set"
    dt = parse_iso(value) if isinstance(value, str) else value
    left = int((dt - now).total_seconds())
    when = time_text(dt, tz)
    if left <= 0:
        return f"{when} (passed: the phase is processed now)"
    return f"{when} (in {duration_text(left)})"


def time_text(value: str | datetime | None, tz: str | None = None) -> str:
    """``Sun 22 Nov 2026 07:00 UTC``: a time alone, in the zone ``tz``."""
    if not value:
        return "none set"
    dt = parse_iso(value) if isinstance(value, str) else value
    local = dt.astimezone(ZoneInfo(tz or "UTC"))
    return local.strftime("%a %d %b %Y %H:%M ") + (local.tzname() or "UTC")


def duration_text(seconds: int) -> str:
    days, rest = divmod(max(0, int(seconds)), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute")):
        if n:
            parts.append(f"{n} {unit}{'s' if n != 1 else ''}")
    if not parts:
        parts.append(f"{secs} second{'s' if secs != 1 else ''}")
    return " ".join(parts)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=template_loader(),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # plain-text mail
    )
    env.filters["deadline"] = _deadline_filter
    env.filters["when"] = _when_filter
    env.filters["duration"] = duration_text
    env.filters["classic_time"] = _classic_time_filter
    return env


@jinja2.pass_context
def _deadline_filter(ctx: jinja2.runtime.Context, value: str | datetime | None,
                     tz: str | None = None) -> str:
    """``{{ deadline | deadline }}``: in the zone and at the "now" the mail is written with
    (the judge's injectable clock), so a test clock and a game's zone both show. Every mail
    is rendered with one (Outbox.queue, the archive); without it, the time alone, rather
    than a time left counted from the wall clock."""
    now, zone = ctx.get("now"), tz or ctx.get("tz") or "UTC"
    return deadline_text(value, now, zone) if now is not None else time_text(value, zone)


@jinja2.pass_context
def _when_filter(ctx: jinja2.runtime.Context, value: str | datetime | None,
                 tz: str | None = None) -> str:
    """``{{ deadline | when }}``: the date alone (no "in 2 days"), in the game's zone."""
    return time_text(value, tz or ctx.get("tz") or "UTC")


@jinja2.pass_context
def _classic_time_filter(ctx: jinja2.runtime.Context, value: str | datetime | None,
                         tz: str | None = None) -> str:
    """``{{ deadline | classic_time }}``: the date as the classic judges wrote it, ``Sat Nov
    28 2026 07:00:00 +0000``, in the game's zone (the classic report layout)."""
    if not value:
        return ""
    dt = parse_iso(value) if isinstance(value, str) else value
    return dt.astimezone(ZoneInfo(tz or ctx.get("tz") or "UTC")).strftime("%a %b %d %Y %H:%M:%S %z")


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)
