"""Invariant 4 of the season (tests/seasonkit.py): nobody is mailed what the variant hides
from them. Checked while the games run, after every round, on every mail the judge sent in
it, against what the database says at that moment (a later ROLLBACK rewrites it):

* Stab! reports: each reader's report against the full adjudication, worked out again from
  the stored positions and order lines, with the oracle of tests/test_stab_leak.py through
  tests/stabkit.py (``check_report``: the public part says only what rules 2, 3 and 6
  reveal, the private part only what rules 1 and 5 tell that power; an observer's and the
  master's have no private part; nobody gets another power's private notice);
* Stab! replies and notices to a player: they name no unit but the player's own and those
  its mail wrote (``stabkit.check_reply``);
* Gunboat: no mail to a player or an observer names another power by its real name while
  the game runs (that ties a pseudonym to a power); the master knows both.
"""

from __future__ import annotations

import contextlib
import json
import re
import traceback
from pathlib import Path
from typing import Any

from mailkit import POWERS, Got

SEASON_REPORT = re.compile(r": (Spring|Autumn|Winter) (\d+) report$")
YOU_PLAY = re.compile(r"^You play (\w+)(?: \((\w+)\))?\.", re.M)


def stab_groups(db: Any, gid: int, start: str) -> list[list[tuple]]:
    """Every processing of the game so far, as the steps (outcome, orders) it adjudicated,
    worked out again from the stored positions and orders (stabkit.FullAdjudication)."""
    from stabkit import PLUGIN, VARIANT

    from judge.storage import Store

    s = Store(db)
    try:
        game = s.game_by_id(gid)
        groups, phase, seen = [], start, set()
        while phase != game["phase"] and phase not in seen:
            seen.add(phase)
            row = s.position(gid, phase)
            if row is None or row["adjudicated"] is None:
                break
            pos = VARIANT.read_position(json.loads(row["position"]))
            sets = s.order_sets(gid, phase)
            lines = [(p, x["order"]) for p in sorted(sets) for x in sets[p] if x["order"]]
            done = PLUGIN.adjudicate(VARIANT, pos, lines)
            groups.append(done)
            phase = str(done[-1][0].position.phase)
        return groups
    finally:
        s.close()


def group_of(groups: list[list[tuple]], season: str, year: int) -> list[tuple] | None:
    """The steps a report '<Season> <year> report' tells: the processing with that movement
    (in NEXT_SEASON mode with the retreats and adjustments sent with its orders), and the
    retreats processed right after it (WITH_ORDERS: sent with the orders, stored as their
    own phase); for Winter, the adjustment on its own."""
    code = {"Spring": "S", "Autumn": "F", "Winter": "W"}[season]
    for k in range(len(groups) - 1, -1, -1):  # the latest (a ROLLBACK played it again)
        phases = [o.previous.phase for o, _ in groups[k]]
        if code == "W":
            if any(p.season == "W" and p.year == year for p in phases) and \
                    not any(p.kind == "M" for p in phases):
                return groups[k]
        elif any(p.season == code and p.year == year and p.kind == "M" for p in phases):
            steps = list(groups[k])
            for after in groups[k + 1:]:
                if not all(o.previous.phase.kind == "R" and o.previous.phase.season == code
                           and o.previous.phase.year == year for o, _ in after):
                    break
                steps += after
            return steps
    return None


def failed_check(exc: AssertionError) -> str:
    """What the oracle found, for the violation's text: its message, and the check that
    failed (file, line and source): many of the oracle's asserts carry no message, and a
    violation that says "()" names nothing to look at."""
    tb = traceback.extract_tb(exc.__traceback__)[-1]
    where = f"{Path(tb.filename).name}:{tb.lineno}: {tb.line}"
    return f"{exc!s:.600} at {where}" if str(exc) else where


class HiddenWatch:
    def __init__(self) -> None:
        self.last = 0  # the outbox rows up to this one are checked
        self.checked = {"reports": 0, "replies": 0, "notices": 0, "gunboat": 0}
        self.read = 0  # the season's sent mails up to this one are in ``written``
        # (game, power) -> what that power's players wrote so far: a reply may echo it (the
        # orders standing, written by a player replaced since)
        self.written: dict[tuple[str, str], list[str]] = {}

    def after_round(self, season: Any) -> None:
        from stabkit import RULES, check_reply, check_report

        stab = {g.gid: g for g in season.games if g.variant == "stab" and g.gid is not None}
        if not stab:
            return
        mail_game = {s["mid"]: s for s in season.sent}
        by_name = {g.name: g for g in stab.values()}
        for m in season.sent[self.read:]:
            g = by_name.get(m["game"] or "")
            if g is not None and m["from"] in g.who:
                self.written.setdefault((g.name, g.who[m["from"]]), []).append(m["body"])
        self.read = len(season.sent)
        with contextlib.closing(season.db()) as c:
            rows = c.execute("SELECT o.id, o.game_id, o.kind, o.rcpt, o.subject, o.raw, o.state, "
                             "i.key FROM outbox o LEFT JOIN inbox i ON i.id = o.inbox_id "
                             "WHERE o.id > ? ORDER BY o.id", (self.last,)).fetchall()
            games = {r["id"]: dict(r) for r in c.execute("SELECT * FROM games")}
            positions = {}
            for gid in stab:
                g = games.get(gid)
                row = c.execute("SELECT position FROM positions WHERE game_id = ? AND phase = ?",
                                (gid, g["phase"])).fetchone() if g else None
                positions[gid] = json.loads(row["position"]) if row else None
        owned_before = {gid: dict(g.owned) for gid, g in stab.items()}
        for gid, g in stab.items():
            units = (positions.get(gid) or {}).get("units") or {}
            g.owned = {p: {u.split()[-1].split("/")[0] for u in us} for p, us in units.items()}
        # a mail not built yet (the painter renders it; held past the ceiling on mail to its
        # address) is read with those after it next round, once it is
        unbuilt = next((k for k, r in enumerate(rows) if not r["raw"]
                        and r["state"] in ("waiting", "held")), None)
        rows = rows[:unbuilt]
        if not rows:
            return
        self.last = rows[-1]["id"]
        groups: dict[int, list] = {}
        for r in rows:
            sent = mail_game.get((r["key"] or "").split(" ")[0]) if r["key"] else None
            gid = r["game_id"]
            if gid is None and sent is not None:
                gid = next((g.gid for g in stab.values() if g.name == sent["game"]), None)
            g = stab.get(gid)
            if g is None:
                continue
            rcpt = r["rcpt"].lower()
            if rcpt == g.gm.lower():
                continue  # the master sees everything
            got = Got(r["raw"], rcpt)
            power = g.who.get(rcpt)  # None: an observer
            settings = json.loads(games[gid].get("settings") or "{}")
            names = settings.get("pseudonyms") or {}

            def label(p: str, n: dict = names) -> str:
                return str(n.get(p, p))

            where = f"{r['kind']} {r['subject']!r} to {rcpt} ({power or 'observer'})"
            running = games[gid]["status"] != "finished"
            # Gunboat, while the game runs: no other power's real name (the judge's own
            # words: the lines it quotes are the reader's), and no mail with both a power's
            # real name and its pseudonym (a tie, even through a quoted line)
            if names and running:
                self.checked["gunboat"] += 1
                text = r["subject"] + "\n" + got.body
                own_words = "\n".join(x for x in text.splitlines() if not x.startswith(">"))
                for p in POWERS:
                    if p == power:
                        continue
                    if re.search(rf"\b{p}\b", text, re.I) and names.get(p) and \
                            re.search(rf"\b{re.escape(names[p])}\b", text):
                        season.violation(g, f"Gunboat: {where} ties {p} to its pseudonym "
                                         f"{names[p]} while the game runs:\n{got.body[:1500]}")
                        break
                    if re.search(rf"\b{p}\b", own_words, re.I):
                        season.violation(g, f"Gunboat: {where} names the power {p} while the "
                                         f"game runs:\n{got.body[:1500]}")
                        break
            m = SEASON_REPORT.search(r["subject"])
            if r["kind"] == "report" and m:
                if gid not in groups:
                    groups[gid] = stab_groups(season.d / "judge.db", gid, g.start_phase)
                steps = group_of(groups[gid], m.group(1), int(m.group(2)))
                if steps is None:
                    season.violation(g, f"Stab!: {where}: no processing of the database "
                                     "tells it")
                    continue
                self.checked["reports"] += 1
                try:
                    check_report(steps, power, got, label)
                except AssertionError as exc:
                    season.violation(g, f"Stab! hidden information: {where} tells what the "
                                     f"rules hide from its reader ({failed_check(exc)}):\n"
                                     f"{got.body[:2500]}")
                except ValueError as exc:  # not a report's shape: the run goes on, says so
                    season.violation(g, f"Stab!: {where} is not a report the oracle can read "
                                     f"({exc!r}, outbox {r['id']}, state {r['state']}):\n"
                                     f"{got.body[:2500]}")
                continue
            if power is None:
                for p in POWERS:
                    if f"private notice for {label(p)}".lower() in got.body.lower():
                        season.violation(g, f"Stab!: {where} holds {p}'s private notice")
                continue
            # a reply or a notice to a player about the game: no unit but its own and those
            # its players wrote (a reply not about the game, HELP's, has only examples)
            if g.name not in got.body:
                continue
            pos = positions.get(gid) or {}
            own = {u.split()[-1].split("/")[0] for u in (pos.get("units") or {}).get(power, [])}
            own |= set(RULES.board.home_centres.get(power, ()))
            dislodged = pos.get("dislodged") if isinstance(pos.get("dislodged"), dict) else {}
            for d in dislodged.get(power, []):
                own.add(str(d.get("unit", "")).split()[-1].split("/")[0])
            body = "\n".join(self.written.get((g.name, power), []))
            self.checked["replies" if r["kind"] == "reply" else "notices"] += 1
            # the judge's own example in an error message
            got.body = got.body.replace("'IF DISLODGED F PIC R BEL, ENG'", "'<example>'")
            # ... and the judge's fixed examples of how to write a line ("e.g. IF A MUN"), as
            # tests/test_fuzz_ahead_mail.py reads them
            got.body = re.sub(r"e\.g\.[^\n]*", "", got.body)
            try:
                check_reply(got, power, body, own | owned_before[gid].get(power, set()))
            except AssertionError as exc:
                season.violation(g, f"Stab! hidden information: {where} names a unit its "
                                 f"reader may not know of ({exc!s:.1500})")
