"""The invariants a season (tests/seasonkit.py) checks on every game once it is over, from
the judge's database, its Maildir, its log and the simulator's own ledger of what it sent."""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections import Counter, defaultdict
from email import message_from_bytes
from email.policy import default as default_policy
from typing import Any

REPLY_KINDS = ("reply", "limit")


def _body(raw: bytes) -> str:
    msg = message_from_bytes(raw, policy=default_policy)
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


def check_season(season: Any) -> dict:
    games = {g.name: g for g in season.games}
    by_gid = {g.gid: g for g in season.games if g.gid is not None}
    v = season.violation
    stats: dict[str, Any] = {"finished": 0, "phases": 0, "mails_out": 0, "internal_errors": 0,
                             "by_variant": {}}
    with contextlib.closing(season.db()) as c:
        # 8. integrity
        ok = c.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            v(None, f"PRAGMA integrity_check: {ok}")
        # 1. every game reaches an end
        rows = {r["name"]: dict(r) for r in c.execute("SELECT * FROM games")}
        for name, g in games.items():
            r = rows.get(name)
            if r is None:
                v(g, "no such game in the database")
                continue
            fin = r["status"] == "finished"
            stats["finished"] += fin
            bv = stats["by_variant"].setdefault(g.kind, {"games": 0, "finished": 0,
                                                         "phases": 0})
            bv["games"] += 1
            bv["finished"] += fin
            if not fin:
                v(g, f"never ended: status {r['status']}, phase {r['phase']}, wake_at "
                  f"{r.get('wake_at')}; master did: {g.master_log[-5:]}", r["phase"])
        extra = set(rows) - set(games)
        if extra:
            v(None, f"games in the database the run did not make: {sorted(extra)}")
        # phases: each adjudicated once (positions are unique per game and phase; a phase
        # adjudicated twice would send its report twice to the same reader)
        for r in c.execute("SELECT game_id, count(*) AS n FROM positions "
                           "WHERE adjudicated IS NOT NULL GROUP BY game_id"):
            g = by_gid.get(r["game_id"])
            stats["phases"] += r["n"]
            if g:
                stats["by_variant"][g.kind]["phases"] += r["n"]
        # 2. internal errors
        errs = c.execute("SELECT id, note FROM inbox WHERE state = 'error'").fetchall()
        stats["internal_errors"] = len(errs)
        mail_game = {s["mid"]: s["game"] for s in season.sent}
        keys = {r["id"]: r["key"].split()[0] for r in c.execute("SELECT id, key FROM inbox")}
        for r in errs:
            g = games.get(mail_game.get(keys.get(r["id"]), "") or "")
            body = next((s["body"] for s in season.sent if s["mid"] == keys.get(r["id"])), "")
            v(g, f"internal error acting on mail {keys.get(r['id'])}: {r['note']}\n"
              f"mail body:\n{body[:1500]}")
        for line in season.judge.error_lines():
            if "acting on inbox message" in line:
                continue  # counted above, with the mail
            v(None, f"ERROR log line: {line}")
        # 3. every inbound mail: exactly one reply, or a silence a documented rule names
        sent_ids = Counter(s["mid"] for s in season.sent)
        stored = Counter(keys.values())
        for mid in sent_ids:
            if stored.get(mid, 0) != 1:
                v(games.get(mail_game.get(mid) or ""),
                  f"mail {mid} stored {stored.get(mid, 0)} times (sent once)")
        replies = Counter()
        for r in c.execute("SELECT inbox_id, kind FROM outbox WHERE inbox_id IS NOT NULL "
                           "AND kind IN ('reply', 'limit')"):
            replies[r["inbox_id"]] += 1
        for row in c.execute("SELECT id, key, state, note FROM inbox"):
            r = {**dict(row), "key": row["key"].split()[0]}
            n = replies.get(r["id"], 0)
            g = games.get(mail_game.get(r["key"]) or "")
            if r["state"] == "ignored":
                if n:
                    v(g, f"mail {r['key']} ignored ({r['note']}) but got {n} replies")
                elif not r["note"]:
                    v(g, f"mail {r['key']} ignored without a rule named")
            elif r["state"] == "done" and n != 1:
                silenced = c.execute("SELECT outcome FROM audit WHERE inbox_id = ? AND "
                                     "outcome LIKE 'not answered%'", (r["id"],)).fetchone()
                if not (n == 0 and silenced):
                    body = next((s["body"] for s in season.sent if s["mid"] == r["key"]), "")
                    v(g, f"mail {r['key']} got {n} replies (one expected)\n{body[:800]}")
        for inbox_id, what in ceiling_breaches(c):
            g = games.get(mail_game.get(keys.get(inbox_id, "")) or "")
            v(g, what)
        # 1. each phase processed exactly once: no reader gets the same report twice
        for gid, what in repeated_reports(c):
            v(by_gid.get(gid), what)
        # 5. no mail to an address that neither wrote nor confirmed: an address a master
        # named (REPLACE) gets its one confirmation request, and nothing else before it
        # writes (CONFIRM, or any mail of its own)
        confirmed = {r[0].lower() for r in c.execute("SELECT address FROM observers")}
        allowed = season.wrote | confirmed
        out_rows = c.execute("SELECT id, game_id, kind, rcpt, subject, state, created "
                             "FROM outbox").fetchall()
        stats["mails_out"] = len(out_rows)
        asked: Counter = Counter()
        for r in out_rows:
            rcpt = r["rcpt"].lower()
            seat_request = r["kind"] == "notice" and r["subject"].startswith("Confirm: a seat")
            first = season.first_wrote.get(rcpt)
            before = first is None or r["id"] <= first
            if seat_request and rcpt in season.named:
                asked[rcpt] += 1
                if asked[rcpt] > 1 and before:
                    v(by_gid.get(r["game_id"]), f"{rcpt} asked twice to confirm a seat "
                      f"before it wrote: {r['subject']!r}")
            elif rcpt not in allowed or (before and rcpt not in confirmed):
                v(by_gid.get(r["game_id"]), f"mail to a stranger {r['rcpt']}: {r['kind']} "
                  f"{r['subject']!r} at {r['created']} (it first wrote after outbox {first})")
            if r["state"] != "sent":
                v(by_gid.get(r["game_id"]), f"outbox {r['id']} never sent: {r['state']}")
        # 8. exactly the phases the run made: no orders, waits or votes of a phase the game
        # does not have (a ROLLBACK undoes the phases after it with all they held)
        for gid, what in orphan_rows(c):
            v(by_gid.get(gid), what)
        # 8. exactly the mails the run made: every sent row is one Maildir file
        files = [f for sub in ("new", "cur") for f in (season.judge.cfg.maildir_path / sub)
                 .glob("*")] if season.judge.cfg.maildir_path.exists() else []
        sent_rows = sum(1 for r in out_rows if r["state"] == "sent")
        if len(files) != sent_rows:
            v(None, f"Maildir holds {len(files)} messages, the outbox {sent_rows} sent rows")
        ids = Counter()
        for f in files:
            head = f.read_bytes()[:8192]
            m = re.search(rb"^Message-ID:\s*(\S+)", head, re.M | re.I)
            if m:
                ids[m.group(1)] += 1
        dup = [k for k, n in ids.items() if n > 1]
        if dup:
            v(None, f"{len(dup)} messages written to the Maildir twice, e.g. {dup[:3]}")
        # not an invariant, a census: what the judge refused of the master's commands (the
        # simulated master writes well-formed ones; a refusal is a rule or a defect)
        refusals: Counter = Counter()
        for r in c.execute("SELECT o.raw FROM outbox o JOIN inbox i ON i.id = o.inbox_id "
                           "WHERE o.kind = 'reply' AND i.mail_from LIKE 'gm.%' AND "
                           "o.subject LIKE '[ERROR]%'"):
            last = ""
            for line in _body(r["raw"]).splitlines():
                if line.startswith("> "):
                    last = line[2:].split()[0] if line[2:].split() else ""
                elif line.startswith("ERROR:"):
                    text = re.sub(r"\b[a-z]+\d+\b", "<game>", line)
                    text = re.sub(r"\b[SFWU]\d+(BC)?[MRA]\b", "<phase>", text)
                    refusals[f"{last}: {text[:160]}"] += 1
        stats["master_refusals"] = dict(refusals.most_common(20))
        # 4. nobody is mailed what the variant hides (Stab!, Gunboat): checked after every
        # round, against the database of that moment (tests/hiddenwatch.py)
        # 6. each adjudicated phase, every power's lines shuffled, gives the same result
        stats["shuffled"] = check_shuffled(season, c, by_gid)
    return stats


def repeated_reports(c: Any) -> list[tuple[int, str]]:
    """(game id, what) of each report a reader got again with no ROLLBACK of its game between
    the two copies (invariant 1: each phase is processed once; a rollback plays its phases
    again, and its notice goes out before the reports of the phase played again). Checked
    in every game: a game rolled back once was exempt as a whole, and a phase processed
    twice in it, before or after the rollback, went unseen."""
    rollbacks: dict[int, list[int]] = defaultdict(list)
    for r in c.execute("SELECT game_id, id FROM outbox WHERE kind IN ('notice', 'report') AND "
                       "game_id IS NOT NULL AND subject LIKE '%rolled back to %' ORDER BY id"):
        rollbacks[r["game_id"]].append(r["id"])
    copies: dict[tuple[int, str, str], list[int]] = defaultdict(list)
    for r in c.execute("SELECT game_id, rcpt, subject, id FROM outbox WHERE kind = 'report' "
                       "AND game_id IS NOT NULL ORDER BY id"):
        copies[(r["game_id"], r["rcpt"].lower(), r["subject"])].append(r["id"])
    out = []
    for (gid, rcpt, subject), ids in copies.items():
        again = [b for a, b in zip(ids, ids[1:], strict=False)
                 if not any(a < x < b for x in rollbacks.get(gid, ()))]
        if again:
            out.append((gid, f"{rcpt} got {len(again) + 1} copies of {subject!r} with no "
                        f"ROLLBACK between (outbox {ids})"))
    return out


def ceiling_breaches(c: Any) -> list[tuple[int | None, str]]:
    """(inbox id, what) of each mail the reply ceiling answered with its [LIMIT] notice or
    left unanswered. The ceiling is a documented silence, but the season sets it out of its
    players' reach (seasonkit.make_config: ``replies_per_hour``): one that closes in a
    season counted wrong, and the mails it silenced went unanswered (invariant 3)."""
    out: list[tuple[int | None, str]] = []
    for r in c.execute("SELECT inbox_id, rcpt, subject FROM outbox WHERE kind = 'limit'"):
        out.append((r["inbox_id"], f"{r['rcpt']} got {r['subject']!r}: the reply ceiling closed, "
                    "which no season's player can reach (a reply went unsent)"))
    for r in c.execute("SELECT inbox_id, address, outcome FROM audit WHERE outcome LIKE "
                       "'not answered: reply ceiling%'"):
        out.append((r["inbox_id"], f"mail {r['inbox_id']} from {r['address']} {r['outcome']}: "
                    "the reply ceiling is out of a season's reach"))
    return out


def orphan_rows(c: Any) -> list[tuple[int, str]]:
    """(game id, what) of each phase the orders, waits or draw votes are stored for that the
    game has no position of (invariant 8: the database holds the phases the run made; a
    ROLLBACK that left an undone phase's rows would see them come back with the phase)."""
    out = []
    for table in ("orders", "waits", "votes"):
        for r in c.execute(f"SELECT t.game_id, t.phase, count(*) AS n FROM {table} t "  # noqa: S608
                           "WHERE NOT EXISTS (SELECT 1 FROM positions p WHERE p.game_id = "
                           "t.game_id AND p.phase = t.phase) GROUP BY t.game_id, t.phase"):
            out.append((r["game_id"], f"{r['n']} row(s) of {table} for {r['phase']}, a phase "
                        "the game does not have"))
    return out


def check_shuffled(season: Any, c: Any, by_gid: dict) -> int:
    """Every adjudicated movement phase, adjudicated again from its stored position with each
    power's lines shuffled (and the powers in another order): the same next position."""
    from judge.games import game as G

    rng = random.Random(season.seed)
    done = 0
    for r in c.execute("SELECT game_id, phase, position, results FROM positions WHERE "
                       "adjudicated IS NOT NULL ORDER BY id"):
        g = by_gid.get(r["game_id"])
        if g is None:
            continue
        if g.variant == "stab":
            done += _shuffled_stab(season, c, g, r, rng)
            continue
        variant = G.get_variant(g.variant)
        try:
            pos = variant.read_position(json.loads(r["position"]))
        except Exception:  # noqa: BLE001
            continue
        sets = {p: [x["text"] for x in ls] for p, ls in
                _order_sets(c, r["game_id"], r["phase"]).items()}
        if not sets:
            continue
        if g.variant == "dipnomicy":
            done += _shuffled_lines(season, g, r["phase"], variant, pos, {
                p: [x.get("order") or x["text"] for x in ls]
                for p, ls in _order_sets(c, r["game_id"], r["phase"]).items()}, rng)
            continue
        try:
            # the orders that stand: a later line to the same unit replaces an earlier one
            # (that order matters by rule: the variant says which it replaced), then the
            # same orders listed in another order
            given = _orders(variant, pos, sets)
            a, outcome = _adjudicate(variant, pos, given)
            shuffled = _standing_shuffled(pos, given, outcome.results, rng)
            b, _ = _adjudicate(variant, pos, shuffled)
        except Exception as exc:  # noqa: BLE001
            season.violation(g, f"re-adjudication failed: {exc!r}", r["phase"])
            continue
        done += 1
        if a != b:
            season.violation(g, "shuffled lines give another result:\norders "
                             f"{json.dumps(sets)}\nstanding, shuffled: "
                             f"{[(p, str(o)) for p, o in shuffled]}\nas given -> {a}\n"
                             f"shuffled -> {b}", r["phase"])
    return done


def _standing_shuffled(pos: Any, given: list, results: list, rng: random.Random) -> list:
    """The lines that stand (not replaced by a later line; in an adjustment phase only those
    carried out, since builds beyond the count fail in the order listed, by rule), each
    power's in a random order and the powers in a random order."""
    adjusting = pos.phase.kind == "A"
    standing = [x for x, res in zip(given, results, strict=False)
                if "replaced" not in (res.reason or "")
                and not (adjusting and res.result != "succeeds")]
    by_power: dict[str, list] = defaultdict(list)
    for x in standing:
        by_power[x[0]].append(x)
    shuffled: list = []
    for p in rng.sample(sorted(by_power), len(by_power)):
        lines = list(by_power[p])
        rng.shuffle(lines)
        shuffled += lines
    return shuffled


def _shuffled_lines(season: Any, g: Any, phase: str, variant: Any, pos: Any,
                    sets: dict[str, list[str]], rng: random.Random) -> int:
    """Dipnomicy: its lines are read at adjudication under the rules in force (the position
    carries them), so the lines as stored, adjudicated as given and shuffled
    (Variant.adjudicate_lines: one result per line); a line the variant says a later one
    replaced, and in adjustments one not carried out, is left out of the shuffle."""
    given = [(p, x) for p in sorted(sets) for x in sets[p]]
    try:
        first = variant.adjudicate_lines(pos, given)
        a = json.dumps(variant.write_position(first.position), sort_keys=True)
        shuffled = _standing_shuffled(pos, given, first.results, rng)
        second = variant.adjudicate_lines(pos, shuffled)
        b = json.dumps(variant.write_position(second.position), sort_keys=True)
    except Exception as exc:  # noqa: BLE001
        season.violation(g, f"re-adjudication failed: {exc!r}", phase)
        return 0
    if a != b:
        season.violation(g, f"shuffled lines give another result:\nlines {given}\nstanding, "
                         f"shuffled: {shuffled}\nas given -> {a}\nshuffled -> {b}", phase)
    return 1


def _shuffled_stab(season: Any, c: Any, g: Any, r: Any, rng: random.Random) -> int:
    """Stab!: the phase and those its flow adjudicates with it (retreats sent with the
    orders, or the next season's), from the stored position and orders, as the flow does
    (stabkit.FullAdjudication), then with each power's orders shuffled: the same positions.
    Where the first adjudication says an order was replaced by a later one for the same
    unit, the listing matters by rule: such a phase is not counted."""
    from stabkit import PLUGIN, VARIANT

    pos = VARIANT.read_position(json.loads(r["position"]))
    sets = _order_sets(c, r["game_id"], r["phase"])
    lines = [(p, x["order"]) for p in sorted(sets) for x in sets[p] if x.get("order")]
    if not lines:
        return 0
    by_power: dict[str, list] = defaultdict(list)
    for x in lines:
        by_power[x[0]].append(x)
    shuffled = []
    for p in rng.sample(sorted(by_power), len(by_power)):
        ls = list(by_power[p])
        rng.shuffle(ls)
        shuffled += ls
    try:
        first = PLUGIN.adjudicate(VARIANT, pos, lines)
        second = PLUGIN.adjudicate(VARIANT, pos, shuffled)
    except Exception as exc:  # noqa: BLE001
        season.violation(g, f"re-adjudication failed: {exc!r}", r["phase"])
        return 0

    def positions(done: list) -> list[str]:
        return [json.dumps(VARIANT.write_position(o.position), sort_keys=True)
                for o, _ in done]

    if positions(first) != positions(second):
        # by rule: an order replaced by a later one for the same unit; builds or removals
        # beyond the count (the first listed count)
        if any("replaced" in (x.reason or "") or (o.previous.phase.kind == "A"
                                                   and x.result != "succeeds")
               for o, _ in first for x in o.results):
            return 0
        season.violation(g, f"shuffled lines give another result:\nlines {lines}\nshuffled: "
                         f"{shuffled}\nas given -> {positions(first)}\nshuffled -> "
                         f"{positions(second)}", r["phase"])
    return 1


def _order_sets(c: Any, gid: int, phase: str) -> dict[str, list[dict]]:
    out = {}
    for r in c.execute("SELECT power, lines FROM orders WHERE game_id = ? AND phase = ?",
                       (gid, phase)):
        out[r["power"]] = [x for x in json.loads(r["lines"]) if x.get("text")]
    return out


def _orders(variant: Any, pos: Any, sets: dict[str, list[str]]) -> list[tuple[str, Any]]:
    """The orders the lines give, power by power, in the order written."""
    from judge.games.game import read_order_lines

    orders = []
    for p, lines in sets.items():
        for x in read_order_lines(variant, pos, p, lines):
            if x.get("order") is not None and not x.get("error"):
                orders.append((p, variant.read_order(pos, p, x["order"])
                               if isinstance(x["order"], str) else x["order"]))
    return orders


def _adjudicate(variant: Any, pos: Any, orders: list[tuple[str, Any]]) -> tuple[str, Any]:
    outcome = variant.adjudicate(pos, orders)
    return json.dumps(variant.write_position(outcome.position), sort_keys=True), outcome
