"""A Stab! game played by mail, and the leak checks on everything each player receives.

Used in-process (tests/test_stab_mail.py) and over the real mail servers
(tests/test_e2e_stab.py). Every report a player receives is checked against the full
adjudication, worked out again from the judge's database (the positions and the orders
it stored), with the independent oracle of tests/test_stab_leak.py; every reply is checked
to name no unit the player may not know of.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from mailkit import POWERS, Backend, Got, subject_has
from test_stab_leak import check_private, check_public

from judge.engine.position import Position
from judge.storage import Store
from judge.variants import get_variant
from judge.variants.stab.flow import FLOW as PLUGIN
from judge.variants.stab.report import loc_text

VARIANT = get_variant("stab")
RULES = VARIANT.rules

PLACEMENT = {
    "AUSTRIA": ["PLACE A VIE", "PLACE A BUD", "PLACE F TRI"],
    "ENGLAND": ["PLACE F LON", "PLACE F EDI", "PLACE A LVP"],
    "FRANCE": ["PLACE F BRE", "PLACE A PAR", "PLACE A MAR"],
    "GERMANY": ["PLACE A BER", "PLACE A MUN", "PLACE F KIE"],
    "ITALY": ["PLACE A VEN", "PLACE A ROM", "PLACE F NAP"],
    "RUSSIA": ["PLACE A WAR", "PLACE A MOS", "PLACE F SEV", "PLACE F STP/SC"],
    "TURKEY": ["PLACE F ANK", "PLACE A CON", "PLACE A SMY"],
}
SPRING = {
    "AUSTRIA": ["A VIE H", "A BUD H", "F TRI H"],
    "ENGLAND": ["F LON - ENG", "F EDI - NTH", "A LVP - YOR"],
    "FRANCE": ["F BRE - MAO", "A PAR - PIC", "A MAR - BUR"],
    "GERMANY": ["A MUN - RUH", "A BER - MUN", "F KIE - DEN"],
    "ITALY": ["A VEN H", "A ROM H", "F NAP H"],
    "RUSSIA": ["A WAR H", "A MOS H", "F SEV H", "F STP/SC H"],
    "TURKEY": ["F ANK H", "A CON H", "A SMY H"],
}
# Autumn: Germany dislodges the French A(Bur) (which retreats as it asked, to Gas); England
# and France bounce in Belgium (contested: both revealed); Germany takes Sweden unopposed
# (hidden); France takes Portugal unopposed (hidden). England REVEALs nothing.
AUTUMN = {
    "ENGLAND": ["F ENG H", "F NTH - BEL", "A YOR H"],
    "FRANCE": ["A BUR H", "A PIC - BEL", "F MAO - POR", "IF DISLODGED A BUR R GAS, PAR"],
    "GERMANY": ["A RUH - BUR", "A MUN S A RUH - BUR", "F DEN - SWE"],
    "AUSTRIA": ["A VIE H"], "ITALY": ["A VEN H"], "RUSSIA": ["A WAR H"], "TURKEY": ["F ANK H"],
}
AUTUMN = {p: AUTUMN[p] + [x for x in SPRING[p] if x.endswith(" H") and x not in AUTUMN[p]]
          for p in AUTUMN}
WINTER = {"FRANCE": ["BUILD A MAR"], "GERMANY": ["BUILD F KIE"]}
# Retreats taken with the next season's orders: the French retreat, the builds and the
# Spring 1902 orders in one mail each; Germany's orders depend on where A(Bur) retreated.
NEXT_SEASON = {
    "ENGLAND": ["F ENG H", "F NTH H", "A YOR H"],
    "FRANCE": ["A BUR R GAS", "BUILD A MAR", "A GAS H", "A PIC H", "F POR H", "A MAR H"],
    "GERMANY": ["BUILD F KIE", "IF A BUR R GAS: A BUR - GAS", "IF A(Bur) R Par: A BUR - PAR",
                "A MUN H", "F SWE H", "F KIE H"],
    **{p: [x for x in SPRING[p] if x.endswith(" H")] for p in ("AUSTRIA", "ITALY", "RUSSIA",
                                                               "TURKEY")},
}


class FullAdjudication:
    """The judge's database, read back: what really happened in each phase."""

    def __init__(self, db: Path, game: str) -> None:
        self.db, self.game = db, game

    def steps_since(self, phase: str) -> list[tuple]:
        """Every phase adjudicated from ``phase`` to the current one, with its orders as
        given, adjudicated again from the stored positions and order lines."""
        s = Store(self.db)
        try:
            game = s.game(self.game)
            assert game is not None
            steps = []
            while phase != game["phase"]:
                row = s.position(game["id"], phase)
                assert row is not None, phase
                pos = VARIANT.read_position(json.loads(row["position"]))
                sets = s.order_sets(game["id"], phase)
                lines = [(p, x["order"]) for p in sorted(sets) for x in sets[p] if x["order"]]
                done = PLUGIN.adjudicate(VARIANT, pos, lines)
                steps += done
                phase = str(done[-1][0].position.phase)
            return steps
        finally:
            s.close()

    def position(self) -> object:
        s = Store(self.db)
        try:
            game = s.game(self.game)
            row = s.position(game["id"], game["phase"])
            return VARIANT.read_position(json.loads(row["position"]))
        finally:
            s.close()


def sections(body: str) -> tuple[str, str]:
    """(public report, private notice) of a report mail, as the oracle reads them."""
    start = body.index("\nStab! ") + 1
    end = body.find("\nPrivate: for you only\n")
    public = body[start:end if end > 0 else body.index("\nNext phase:")].strip("\n")
    private = ""
    if end > 0:
        rest = body[end + len("\nPrivate: for you only\n"):]
        private = rest[:rest.index("\nNext phase:")].strip("\n")
    # The oracle reads reports of a game without a name.
    public = re.sub(r"^Stab! \S+: ", "Stab!: ", public)
    private = re.sub(r"^Stab! \S+: ", "Stab!: ", private)
    return public, private


def check_report(steps: list[tuple], power: str | None, got: Got, label: Callable[[str], str]
                 ) -> None:
    """One recipient's report against the full adjudication: the public part says only what
    rule 2, 3, 6 reveal, the private part only what rules 1 and 5 tell ``power``."""
    public, private = sections(got.body)
    # The oracle reads power names: Gunboat pseudonyms are turned back (the test knows them
    # all, from each player's start notice).
    for p in POWERS:
        if label(p) != p:
            public = re.sub(rf"\b{label(p)}\b", p, public)
            private = re.sub(rf"\b{label(p)}\b", p, private)
    for other in POWERS:
        if other != power:
            assert f"private notice for {label(other)}" not in got.body, (power, other)
    kinds = [o.previous.phase.kind for o, _ in steps]
    movement = next((o for o, _ in steps if o.previous.phase.kind == "M"), None)
    retreat = next((o for o, _ in steps if o.previous.phase.kind == "R"), None)
    adjust = next((o for o, _ in steps if o.previous.phase.kind == "A"), None)
    if power is None:
        assert not private
    lines = private.splitlines()
    header, body = lines[:1], [x for x in lines[1:] if x]
    # Builds and removals: the reader's own, from the adjustment phase.
    builds = [x for x in body if re.fullmatch(r"You (?:built|removed) \S+\.", x)]
    body = [x for x in body if x not in builds]
    built = {f"You built {u.kind}({loc_text(u.location)})." for u in
             (adjust.built if adjust else []) if u.power == power}
    removed = {f"You removed {u.kind}({loc_text(u.location)})." for u in
               (adjust.disbanded if adjust else []) if u.power == power}
    assert set(builds) == built | removed, (builds, built, removed)
    if movement is None:
        # A Winter adjustment on its own: nothing public but the title and NMRs.
        for line in public.splitlines()[1:]:
            assert not line or line.startswith("NMR: "), line
        if power is not None:
            mine = {f"{u.kind}({loc_text(u.location)})" for u in adjust.position.units_of(power)}
            for line in body:
                m = re.fullmatch(r"Your units: (.*)\.", line)
                assert m, line
                # A power whose last unit was removed is told "none".
                assert (set() if m.group(1) == "none" else set(m.group(1).split(", "))) == mine, line
        return
    orders = next(g for o, g in steps if o is movement)
    # Rule 6 over the turn, as one mail sends it: with NEXT_SEASON a season's retreats,
    # adjustments and movement come together, and a power that sent any line of them sent
    # orders (its units hold, no NMR: the judge's reading, tests/test_stab_rules.py). Read
    # from the movement's orders alone, a power that sent only its retreat was wanted as
    # an NMR (bench/season.py seed 31, stabnext1 Spring 1904: Germany's A KIE R HOL).
    sent = {p for _, given in steps for p, _ in given}
    silent = {p for p in movement.previous.powers() if p not in sent}
    due = {p for p in movement.previous.powers() if movement.previous.units_of(p)}
    if retreat is not None:
        due |= {d.unit.power for d in retreat.previous.dislodged}
    if adjust is not None:
        due |= {p for p in POWERS if owes_adjustment(adjust.previous, p)}
    seen_after = retreat
    if retreat is not None and kinds.index("R") < kinds.index("M") and \
            retreat.previous.phase.season != "F":
        # Spring retreats sent with the Autumn orders: the oracle takes the disbands from
        # them, and the centre counts from the Autumn movement that ends the report.
        seen_after = SimpleNamespace(disbanded=retreat.disbanded, previous=movement.previous,
                                     position=movement.position)
    check_public(movement, orders, seen_after, public, silent, due - sent)
    if power is None:
        return
    if kinds[0] == "M":
        # The movement and the retreats sent with it.
        check_private(movement, retreat, power, "\n".join(header + body))
        return
    # Retreats (and adjustments) sent with the next season's orders, then its movement: what
    # the retreats did is checked against the retreat phase, where the units are against the
    # movement.
    kept = ("Your units:", "Dislodged, to retreat:")
    if retreat is None or retreat.previous.phase.season != "F":
        # Spring retreats: centres change hands (and are counted) with the Autumn movement.
        kept += ("You lost ", "Your supply centres:")
    after = [x for x in body if x.startswith(kept)]
    before = [x for x in body if x not in after]
    if retreat is not None:
        check_private(retreat, retreat, power, "\n".join(header + before))
    else:
        assert not before, before
    check_private(movement, None, power, "\n".join(header + after))


def owes_adjustment(pos: Position, power: str) -> bool:
    """A Winter in which ``power`` has something to order: a removal, or a build with a
    home centre of its own left empty to build in."""
    units = pos.units_of(power)
    centres = pos.centres.get(power, set())
    if len(units) > len(centres):
        return True
    held = {u.province for u in pos.units}
    free = [c for c in RULES.board.home_centres.get(power, ()) if c in centres and c not in held]
    return len(units) < len(centres) and bool(free)


UNIT_TOKEN = re.compile(r"\b([AF])[ (]([A-Z][A-Za-z]{2})\b")


def check_reply(reply: Got, power: str, sent: str, own: set[str]) -> None:
    """A reply names no unit but the player's own and those it wrote itself."""
    written = {m.group(2).upper()[:3] for m in UNIT_TOKEN.finditer(sent)}
    written |= {w.upper()[:3] for w in re.findall(r"[A-Za-z]{3,}", sent)}
    for m in UNIT_TOKEN.finditer(reply.body):
        prov = m.group(2).upper()
        if prov not in RULES.board.provinces:
            continue
        assert prov in own or prov in written, f"{power}'s reply names {m.group(0)}:\n{reply.body}"


def check_ack_blind(pos: Position, power: str, lines: list[str], reply: Got) -> None:
    """What the judge says about a power's orders cannot depend on the other powers' units:
    the same lines read against the board without them are read the same way (a reply that
    said "no unit in Belgium to support", or "it is GERMANY's", would differ)."""
    from judge.games.game import read_order_lines

    blind = Position(pos.variant, pos.phase, [u for u in pos.units if u.power == power],
                     pos.centres, [d for d in pos.dislodged if d.unit.power == power],
                     extra=dict(pos.extra))
    seen = [(x["order"], x["error"], x.get("note"))
            for x in read_order_lines(VARIANT, pos, power, lines)]
    without = [(x["order"], x["error"], x.get("note"))
               for x in read_order_lines(VARIANT, blind, power, lines)]
    assert seen == without, f"{power}'s reply depends on other powers' units: {seen} {without}"
    for order, error, note in seen:  # and these are what the reply said (a replaced line: note)
        assert (f"<-- ERROR: {error}" if error else f"<-- {note}" if note else f"  {order}\n") \
            in reply.body, reply.body


class StabMailGame:
    """A Stab! game driven by mail, checking every mail the players and the master get."""

    def __init__(self, b: Backend, game: str, addr: Callable[[str], str], gm: str, db: Path,
                 timeout: float = 30.0) -> None:
        self.b, self.game, self.addr, self.gm, self.timeout = b, game, addr, gm, timeout
        self.pw = {p: f"pw-{p.lower()}" for p in POWERS}
        self.full = FullAdjudication(db, game)
        self.db = db
        self.labels: dict[str, str] = {}
        self.gunboat = False
        self.reports: dict[str, list[Got]] = {p: [] for p in [*POWERS, "GM"]}

    def label(self, p: str) -> str:
        return self.labels[p]

    def start(self, next_season: bool = False, gunboat: bool = False) -> None:
        b, game, timeout = self.b, self.game, self.timeout
        self.gunboat = gunboat
        options = f"RETREATS {'NEXT_SEASON' if next_season else 'WITH_ORDERS'}" + (
            " GUNBOAT" if gunboat else "")
        b.send(self.gm, f"CREATE {game} master-{game} VARIANT stab {options}\nOPEN", "new stab")
        r = b.wait(self.gm, subject_has("new stab"), timeout)
        if b.confirm(self.gm, r, "confirm master"):  # the game's mail reaches the master then
            b.wait(self.gm, subject_has("confirm master"), timeout)
        assert ("retreats and adjustments are sent with the next season's orders" if next_season
                else "conditional retreats are sent with the movement orders") in r.flat, r.body
        b.sign_on([(self.addr(p), f"SIGNON {p.title()} {game} {self.pw[p]}") for p in POWERS],
                  "join", timeout)
        b.send(self.gm, f"MASTER {game} master-{game}\nSTART", "start")
        b.wait(self.gm, subject_has("Re: start"), timeout)
        for p in POWERS:
            r = b.wait(self.addr(p), subject_has("the game has started"), timeout)
            m = re.search(r"You play (\w+)(?: \((\w+)\))?\.", r.body)
            assert m and m.group(1) == p.title(), r.body
            self.labels[p] = m.group(2) or p
            assert "PLACE" in r.body and "units:" not in r.body  # nobody sees the board
        if gunboat:
            assert len(set(self.labels.values())) == len(POWERS)
            assert all(self.labels[p] != p for p in POWERS)

    def phase(self) -> str:
        s = Store(self.db)
        try:
            return str(s.game(self.game)["phase"])
        finally:
            s.close()

    def ready(self) -> set[str]:
        """The powers that order in the current phase and whose orders are already complete
        (a draft did it)."""
        from judge.games.deadlines import missing_powers, ordering_powers

        s = Store(self.db)
        try:
            game = s.game(self.game)
            return set(ordering_powers(s, game)) - set(missing_powers(s, game))
        finally:
            s.close()

    def send_orders(self, p: str, lines: list[str], subject: str, errors: bool | None) -> Got:
        """Send ``p``'s lines; its reply names no unit it may not know of, and says the same
        whatever the other powers' units are. ``errors``: whether the reply must say ERROR
        (None: either)."""
        return self.send_all({p: lines}, subject, errors)[p]

    def send_all(self, orders: dict[str, list[str]], subject: str, errors: bool | None
                 ) -> dict[str, Got]:
        """:meth:`send_orders` for several powers at once: every mail is sent before the
        first reply is awaited (over IMAP each wait costs the server's half-second IDLE
        notice, and orders of one phase do not depend on each other's replies)."""
        pos = self.full.position()
        bodies = {p: f"SIGNON {p} {self.game} {self.pw[p]}\n" + "\n".join(lines)
                  for p, lines in orders.items()}
        for p, body in bodies.items():
            self.b.send(self.addr(p), body, subject)
        replies: dict[str, Got] = {}
        for p, lines in orders.items():
            owned = {u.province for u in pos.units_of(p)} | {
                d.unit.province for d in pos.dislodged if d.unit.power == p}
            r = replies[p] = self.b.wait(self.addr(p), subject_has(subject), self.timeout)
            if errors is not None:
                assert r.subject.startswith("[ERROR]") == errors, r.body
            check_reply(r, p, bodies[p], owned | set(RULES.board.home_centres[p]))
            check_ack_blind(pos, p, lines, r)
            self.check_names(p, r)
        return replies

    def check_names(self, reader: str | None, got: Got) -> None:
        """Gunboat: no mail to ``reader`` names another power by its real name."""
        if not self.gunboat:
            return
        text = got.body.upper()
        for p in POWERS:
            if p != reader:
                assert p not in text, (reader, p, got.body)

    def reports_since(self, phase: str) -> None:
        """Every player's and the master's report of what was adjudicated since ``phase``,
        checked against the full adjudication."""
        steps = self.full.steps_since(phase)
        for p in POWERS:
            got = self.b.wait(self.addr(p), subject_has(" report"), self.timeout)
            check_report(steps, p, got, self.label)
            self.check_names(p, got)
            self.reports[p].append(got)
        got = self.b.wait(self.gm, subject_has(" report"), self.timeout)
        check_report(steps, None, got, self.label)
        self.check_names(None, got)
        self.reports["GM"].append(got)

    def play(self, orders: dict[str, list[str]], tag: str, errors: bool | None = False,
             process: bool = False, first: tuple[str, ...] = ()) -> None:
        """Each power's orders, then (``process``: the master's PROCESS) the reports.
        ``first``: powers whose mail is answered before the others' are sent. A power whose
        draft already makes its orders complete must go first: the relay may hand its mail to
        the judge last, after the others' have completed the phase and processed it early."""
        phase = self.phase()
        # the check that would have caught the autumn's race and the winter's: the others'
        # mails alone complete the phase, so a ready power's mail may be read after it
        early = (self.ready() & set(orders)) - set(first)
        assert not early, f"{sorted(early)}: orders already complete; pass them in first="
        for p in first:
            self.send_orders(p, orders[p], f"{tag} orders", errors)
        self.send_all({p: x for p, x in orders.items() if p not in first}, f"{tag} orders",
                      errors)
        if process and self.phase() == phase:
            self.b.send(self.gm, f"MASTER {self.game} master-{self.game}\nPROCESS", tag)
            self.b.wait(self.gm, subject_has(f"Re: {tag}"), self.timeout)
        self.reports_since(phase)


def play_stab_game(b: Backend, game: str, addr: Callable[[str], str], gm: str, db: Path,
                   gunboat: bool = False, next_season: bool = False, timeout: float = 30.0
                   ) -> dict[str, list[Got]]:
    """Create a Stab! game, place, play Spring and Autumn 1901 (a dislodgement, a contested
    bounce, hidden moves) and the Winter; check every mail each player and the master
    receive. Retreats come with the orders (conditional), or with ``next_season`` in one
    mail with the builds and the Spring 1902 orders. Returns the reports."""
    g = StabMailGame(b, game, addr, gm, db, timeout)
    g.start(next_season, gunboat)
    label, labels, pw, reports = g.label, g.labels, g.pw, g.reports
    send_orders, play = g.send_orders, g.play

    # A player's draft, wrong on purpose: the reply names no other power's unit.
    r = send_orders("FRANCE", ["PLACE F BRE", "A MUN S A BUR", "A PAR - PIC"], "draft", True)
    assert "no unit in Munich" in r.body and "GERMANY" not in r.body.upper(), r.body
    assert "Still to do: PLACE a unit in MAR, PLACE a unit in PAR" in r.body, r.body

    # STATUS shows no other power's units nor whether it has ordered.
    b.send(addr("ENGLAND"), f"SIGNON ENGLAND {game} {pw['ENGLAND']}\nSTATUS", "status")
    r = b.wait(addr("ENGLAND"), subject_has("status"), timeout)
    for p in POWERS:
        shown = p.title() if labels[p] == p or p == "ENGLAND" else labels[p]
        row = next(x for x in r.body.splitlines() if x.strip().startswith(shown))
        assert ("units" in row) == (p == "ENGLAND"), row
        assert ("orders" in row) == (p == "ENGLAND"), row
        if gunboat and p != "ENGLAND":
            assert p.title() not in r.body, r.body

    play({p: PLACEMENT[p] + SPRING[p] for p in POWERS}, "spring")
    fr = reports["FRANCE"][-1].body
    assert "You placed: F(Bre), A(Mar), A(Par)." in fr, fr
    # Each placement is told to its own power only.
    ge = reports["GERMANY"][-1].body
    assert ge.count("You placed") == 1 and "You placed: A(Ber), F(Kie), A(Mun)." in ge, ge
    assert "No contested movement." in fr

    # Drafts that the whole board would answer differently: a unit that is Germany's, a
    # support of an empty space, a fleet that is an army, a convoy route through other
    # powers' fleets.
    r = send_orders("FRANCE", ["A MUN H", "A PIC S A BEL", "F MAO S F ENG"], "draft A", True)
    assert "no unit in Munich" in r.body and "GERMANY" not in r.body.upper(), r.body
    r = send_orders("FRANCE", ["A PIC - HOL", "F MAO C A PIC - LVP", "A BUR S F MUN"],
                    "draft B", False)
    assert "A BUR S F MUN\n" in r.body, r.body
    if next_season:
        play({p: [x for x in AUTUMN[p] if not x.startswith("IF")] for p in AUTUMN}, "autumn",
             first=("FRANCE",))
        pub = sections(reports["AUSTRIA"][-1].body)[0]
        assert f"{label('FRANCE')}: A(Bur) [Dislodged]; A(Pic)-Bel;" in pub, pub
        assert "Supply centres" not in pub  # they come once the retreats are made
        fr = sections(reports["FRANCE"][-1].body)[1]
        assert "Dislodged, to retreat: A(Bur)." in fr, fr
        assert "retreat" not in sections(reports["GERMANY"][-1].body)[1]
        assert "(in 1 day 23 hours" in reports["FRANCE"][-1].body  # a movement deadline
        play(NEXT_SEASON, "next season")
        pub = sections(reports["AUSTRIA"][-1].body)[0]
        # Germany's order for the case where A(Bur) retreated to Gas stood, and failed
        # against it: revealed with the unit it attacked; the other condition was not met.
        assert f"{label('GERMANY')}: A(Bur)-Gas;" in pub, pub
        assert f"{label('FRANCE')}: A(Gas);" in pub and "Par" not in pub, pub
        assert "Supply centres: " in pub
        fr = sections(reports["FRANCE"][-1].body)[1]
        assert "Your A(Bur) retreated to Gas." in fr and "You built A(Mar)." in fr, fr
        ge = sections(reports["GERMANY"][-1].body)[1]
        assert f"{label('FRANCE')} A(Bur) retreated to Gas." in ge, ge
        assert "You built F(Kie)." in ge, ge
        assert "retreated" not in sections(reports["ENGLAND"][-1].body)[1]
        return reports

    play(AUTUMN, "autumn", first=("FRANCE",))  # draft B left France's orders complete
    pub = sections(reports["AUSTRIA"][-1].body)[0]
    assert f"{label('GERMANY')}: A(Ruh)-Bur; A(Mun) S A(Ruh)-Bur;" in pub, pub
    assert f"{label('FRANCE')}: A(Bur) [Dislodged]; A(Pic)-Bel;" in pub, pub
    assert f"{label('ENGLAND')}: F(NTH)-Bel;" in pub, pub
    assert "Swe" not in pub and "Por" not in pub and "Gas" not in pub  # hidden
    assert "Supply centres: " in pub
    fr = sections(reports["FRANCE"][-1].body)[1]
    assert "Your A(Bur) retreated to Gas." in fr, fr
    ge = sections(reports["GERMANY"][-1].body)[1]
    assert f"{label('FRANCE')} A(Bur) retreated to Gas." in ge, ge
    assert "retreated" not in sections(reports["ENGLAND"][-1].body)[1]
    assert "Your supply centres: Bre, Mar, Par, Por." in fr, fr

    # A Winter draft naming another power's unit: answered as if it were not there.
    r = send_orders("FRANCE", ["REMOVE A MUN", "BUILD A MAR"], "winter draft", True)
    assert "GERMANY" not in r.body.upper(), r.body
    play(WINTER, "winter", first=("FRANCE",))  # the winter draft left France's build standing
    assert "You built A(Mar)." in reports["FRANCE"][-1].body
    assert "built" not in reports["ENGLAND"][-1].body
    return reports
