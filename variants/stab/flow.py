"""Stab! games by mail (issue 5): the game flow of the ``stab`` variant.

What it adds to the standard game flow (:class:`judge.games.flow.GameFlow`):

* settings at CREATE: ``RETREATS WITH_ORDERS`` (conditional retreats sent with the movement
  orders, the default) or ``RETREATS NEXT_SEASON`` (retreats and adjustments taken with the
  next season's orders), and ``GUNBOAT`` (every power known by a pseudonym, chosen at START);
* the first Spring orders carry the placement (``PLACE F LON``); the player is told what is
  missing from its own placement and orders only;
* acknowledgements never reveal other powers' units: orders are checked against the power's
  own units only, as if every other place might hold a unit of any power (the standard
  checks would say "no unit in Burgundy to support" or "it is GERMANY's");
* retreats sent with the orders are adjudicated at once; with NEXT_SEASON, the retreats,
  adjustments and movement sent together are adjudicated together;
* the report of everything adjudicated together is one mail per recipient, rendered from the
  events that recipient may see (:func:`judge.games.reporting.queue_flow_report`): the public
  report (rule 2, 3, 6) for everyone, and below it the reader's private notice (rule 1, 5);
* STATUS shows other powers' names (pseudonyms) and centre counts only;
* ROLLBACK to a phase adjudicated with the one before it, from the orders sent there (with
  NEXT_SEASON the adjustments and movement taken with the retreats; with WITH_ORDERS the
  retreats), goes back to the phase its orders were sent in, and PROCESS naming such a
  phase processes that phase (:meth:`StabFlow.master_command`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from judge.engine.board import province_of
from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.events import Event
from judge.engine.orders import (
    Convoy,
    Disband,
    Order,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    UnitRef,
    unit_of,
)
from judge.engine.parse import parse_order
from judge.engine.position import Phase, Position
from judge.engine.variant import Outcome
from judge.games import gmtools
from judge.games.errors import GameError
from judge.games.flow import FlowContext, GameFlow, game_settings
from judge.games.game import order_entry, refuse, set_aside
from judge.variants import get_variant
from judge.variants.stab.report import SEASON_NAMES, StabSettings, render_private, render_public
from judge.variants.stab.rules import (
    _IF,
    _IF_DISLODGED,
    NEXT_SEASON,
    RETREAT_MODES,
    STAB_ORDERS,
    WITH_ORDERS,
    IfDislodged,
    Place,
    StabRules,
    seed_notation,
    split_line,
)

PSEUDONYMS = ["Teapot", "Marmalade", "Gherkin", "Walrus", "Crumpet", "Banjo", "Pelican",
              "Custard", "Noodle", "Badger", "Kipper", "Trombone", "Wombat", "Pudding"]
_MODE_WORDS = {"WITH_ORDERS": WITH_ORDERS, "WITH-ORDERS": WITH_ORDERS, "CONDITIONAL": WITH_ORDERS,
               "NEXT_SEASON": NEXT_SEASON, "NEXT-SEASON": NEXT_SEASON, "NEXT": NEXT_SEASON}
_MODE_TEXT = {WITH_ORDERS: "conditional retreats are sent with the movement orders",
              NEXT_SEASON: "retreats and adjustments are sent with the next season's orders"}


def _rules(variant: Any) -> StabRules:
    rules = variant.rules
    assert isinstance(rules, StabRules)
    return rules


def mode(settings: dict) -> str:
    return str(settings.get("retreats") or WITH_ORDERS)


def combined(rules: StabRules, pos: Position) -> bool:
    """A retreat or adjustment phase whose orders come with the next season's movement."""
    return pos.phase.kind in "RA" and rules.retreat_mode(pos) == NEXT_SEASON


def folded(phase: Phase, retreats: str) -> list[str]:
    """The phases adjudicated with ``phase`` from the orders sent in it, which are never
    phases a game waits in and have no orders of their own (each only if it comes).
    ``NEXT_SEASON``: after a retreat or adjustment phase, which takes the next season's
    orders, the phases up to and including that season's movement. ``WITH_ORDERS``: after a
    movement phase, its retreat phase (the conditional retreats came with its orders)."""
    if retreats == WITH_ORDERS:
        return [f"{phase.season}{phase.year}R"] if phase.kind == "M" else []
    if phase.kind == "R" and phase.season == "S":
        return [f"F{phase.year}M"]
    if phase.kind == "R":
        return [f"W{phase.year}A", f"S{phase.year + 1}M"]
    return [f"S{phase.year + 1}M"] if phase.kind == "A" else []


def sent_in(phases: list[str], target: str, retreats: str) -> str:
    """The phase in which ``target``'s orders were sent, in a game whose stored phases are
    ``phases`` (in order): the phase ``target`` was adjudicated with (:func:`folded`), else
    ``target`` itself (a phase the game waited in, which took its own orders)."""
    start = target
    while start in phases and phases.index(start) > 0:
        before = Phase.parse(phases[phases.index(start) - 1])
        if start not in folded(before, retreats):
            break
        start = str(before)  # adjudicated with the phase before it: ordered there (or earlier)
    return start


_SENT_WITH = {NEXT_SEASON: "with the retreats and adjustments (they are sent with the next "
                           "season's orders)",
              WITH_ORDERS: "as conditional retreats with the movement orders"}


# ------------------------------------------------------------ reading blind
def _guess_kind(rules: StabRules, location: str, towards: str | None) -> str:
    """The type of an unnamed unit the player refers to: fleets at sea, armies inland; on a
    coast, a fleet when it is said to go to sea."""
    b = rules.board
    prov = province_of(location)
    if b.is_sea(prov) or "/" in location:
        return "F"
    if b.is_land(prov):
        return "A"
    return "F" if towards and b.is_sea(province_of(towards)) else "A"


def _referenced(rules: StabRules, text: str) -> list[UnitRef]:
    """The units an order line names as targets (supported or convoyed), read for syntax only."""
    texts = [text]
    m = _IF.match(text)
    if m:
        texts.append(m.group(2))
    refs = []
    for t in texts:
        try:
            order = parse_order(rules.board, seed_notation(t), "M")
        except OrderError:
            continue
        if isinstance(order, (SupportHold, SupportMove, Convoy)):
            towards = getattr(order, "destination", None)
            kind = order.target.kind or _guess_kind(rules, order.target.location, towards)
            refs.append(UnitRef(kind, order.target.location))
    return refs


def blind_position(rules: StabRules, pos: Position, power: str, own: list[Unit], text: str
                   ) -> Position:
    """What ``power`` may know of the board when its line is checked: its own units, a unit
    wherever it names one of another power's (of the type it says), and a fleet in every
    other sea (for convoy routes). Checking against this tells the player nothing it does not
    know; a support of a unit that is not there is void at adjudication (a mis-order, never
    revealed)."""
    mine = {u.province for u in own}
    phantoms: dict[str, Unit] = {}
    for ref in _referenced(rules, text):
        if ref.province not in mine:
            phantoms[ref.province] = Unit("?", ref.kind or "A", ref.location)
    ordered = _ordered_province(rules, seed_notation(text))
    for prov in rules.board.provinces:
        if rules.board.is_sea(prov) and prov not in mine and prov not in phantoms \
                and prov != ordered:
            phantoms[prov] = Unit("?", "F", prov)
    return Position(pos.variant, pos.phase, list(own) + list(phantoms.values()), pos.centres,
                    extra=dict(pos.extra))


def _ordered_province(rules: StabRules, text: str) -> str | None:
    """The province of the unit a line gives an order to (no other power's unit is
    imagined there, so that "no unit in North Sea" is the answer when it is not the
    power's)."""
    try:
        m = _IF_DISLODGED.match(text)
        if m:
            return rules._read_if_dislodged(m.group(1)).unit.province
        m = _IF.match(text)
        named = parse_order(rules.board, m.group(2) if m else text, "M")
        return province_of(unit_of(named).location)
    except (OrderError, AttributeError):
        return None


def placed_units(rules: StabRules, pos: Position, power: str, texts: Sequence[str]) -> list[Unit]:
    """The units ``power`` places with these lines (the last line for a space counts)."""
    at: dict[str, Unit] = {}
    for text in texts:
        try:
            order = rules.read_order(pos, power, text)
        except OrderError:
            continue
        if isinstance(order, Place):
            at[order.unit.province] = Unit(power, order.unit.kind or "A", order.unit.location)
    return list(at.values())


def read_movement_line(rules: StabRules, pos: Position, power: str, own: list[Unit],
                       text: str) -> Order:
    """One movement-phase line, checked against what ``power`` knows only."""
    if rules.placement_pending(pos):
        order = rules.read_order(pos, power, text)  # PLACE, REVEAL, IF DISLODGED: own checks
        if isinstance(order, STAB_ORDERS):
            return order
    blind = blind_position(rules, pos, power, own, text)
    # The blind board holds no placement: its units are the power's own (placed) units.
    blind.extra.pop("placement", None)
    order = rules.read_order(blind, power, text)
    if isinstance(order, IfDislodged) and rules.placement_pending(pos) and not any(
            u.province == order.unit.province for u in own):
        raise OrderError(f"you place no unit in {rules.name(order.unit.province)}")
    return order


def _conditional_retreat(rules: StabRules, pos: Position, text: str) -> str | None:
    """Why a retreat or disband written in a movement phase is refused, when the game takes
    its retreats with the movement orders (``WITH_ORDERS``: no retreat phase waits for them,
    so the parser's 'retreats are made in the retreat phase' would send the player looking
    for one), written as this game wants it; None for any other line (a block sent ahead
    for the retreat phase is read with the movement orders too, :func:`folded`)."""
    if rules.retreat_mode(pos) != WITH_ORDERS:
        return None
    try:
        order = parse_order(rules.board, seed_notation(text), "R")
    except OrderError:
        return None
    if isinstance(order, Retreat):
        wanted = f"IF DISLODGED {order.unit} R {order.destination}"
    elif isinstance(order, Disband):
        wanted = f"IF DISLODGED {order.unit} D"
    else:
        return None
    return ("in this game a retreat is sent with the movement orders, as a conditional "
            f"retreat: {wanted} (made only if the unit is dislodged)")


# --------------------------------------------------------------------- flow
class StabFlow(GameFlow):
    hidden = True
    one_report_per_adjudication = True

    # ---------------------------------------------------------------- settings
    def settings(self, variant: Any, words: list[str]) -> dict:
        out: dict[str, Any] = {"retreats": WITH_ORDERS, "gunboat": False}
        i = 0
        while i < len(words):
            w = words[i].upper()
            if w == "GUNBOAT":
                out["gunboat"] = True
                i += 1
            elif w == "RETREATS" and i + 1 < len(words) and words[i + 1].upper() in _MODE_WORDS:
                out["retreats"] = _MODE_WORDS[words[i + 1].upper()]
                i += 2
            else:
                raise GameError(f"CREATE does not understand {words[i]!r}; a Stab! game takes "
                                "RETREATS WITH_ORDERS or RETREATS NEXT_SEASON, and GUNBOAT")
        assert out["retreats"] in RETREAT_MODES
        return out

    def describe(self, settings: dict) -> str:
        text = _MODE_TEXT[mode(settings)]
        if settings.get("gunboat"):
            text += "; Gunboat: every power is known by a pseudonym"
        return text

    def initial_position(self, variant: Any, settings: dict) -> Position:
        return _rules(variant).initial_position(retreats=mode(settings))

    def on_start(self, settings: dict, powers: list[str], rng: random.Random) -> dict:
        if not settings.get("gunboat") or settings.get("pseudonyms"):
            return settings
        names = rng.sample(PSEUDONYMS, len(powers))
        return {**settings, "pseudonyms": dict(zip(powers, names, strict=True))}

    @staticmethod
    def report_settings(game: dict, settings: dict) -> StabSettings:
        return StabSettings(game=game["name"], pseudonyms=settings.get("pseudonyms"))

    def label(self, settings: dict, power: str, reader: str | None = None) -> str:
        names = settings.get("pseudonyms")
        if not names:
            return power.title()
        if reader == power:  # a player knows its own power
            return f"{power.title()} ({names[power]})"
        return str(names[power])

    def summary(self, info: dict, reader: str | None) -> dict:
        """Other powers: name and centre count (public: rule 3 gives the counts every
        Winter, and centres change hands only then); units, and whether orders are in, only
        for the reader's own power. Sorted by the name shown, so pseudonyms give nothing away.
        In Gunboat another power's row is its pseudonym alone: the counts are public by power
        (SUMMARY, the Winter report), so a count beside a pseudonym would name its power
        (Russia alone starts with 4)."""
        for entry in info["powers"]:
            if entry["power"] != reader:
                hidden = ["units", "to_order", "orders"]
                if entry["label"] != entry["power"].title():  # a pseudonym
                    hidden.append("centres")
                for key in hidden:
                    entry.pop(key, None)
        info["powers"].sort(key=lambda e: e["label"])
        return info

    # ----------------------------------------------------------------- orders
    def read_lines(self, variant: Any, pos: Position, power: str, texts: list[str]
                   ) -> list[dict]:
        rules = _rules(variant)
        texts = [part for t in texts if t.strip() for part in split_line(t.strip())]
        if combined(rules, pos):
            return [self._read_combined(rules, pos, power, t) for t in texts]
        if pos.phase.kind != "M":
            # Adjustments are checked against the power's own units only ("REMOVE A MUN" must
            # not answer "it is GERMANY's"); nothing else matters to them, since a home
            # centre the power still owns in Winter holds no other power's unit.
            own_position = Position(pos.variant, pos.phase, pos.units_of(power), pos.centres,
                                    [d for d in pos.dislodged if d.unit.power == power],
                                    extra=dict(pos.extra))
            out = []
            for ol in variant.read_orders(own_position, power, texts):
                out.append(order_entry(variant, ol.text, ol.order, _unit_key(ol.order))
                           if ol.order is not None else _refused(ol.text, ol.error or ""))
            return _replace_earlier(out)
        own = placed_units(rules, pos, power, texts) if rules.placement_pending(pos) else \
            pos.units_of(power)
        out = []
        places: list[tuple[dict, Place]] = []
        for text in texts:
            try:
                order = read_movement_line(rules, pos, power, own, text)
            except OrderError as exc:
                out.append(_refused(text, _conditional_retreat(rules, pos, text) or str(exc)))
                continue
            out.append(order_entry(variant, text, order, _unit_key(order)))
            if isinstance(order, Place):
                places.append((out[-1], order))
        if rules.placement_pending(pos):
            # A missing placement is listed under "Still to do" (``missing``); two units in
            # one space is an error of the lines themselves.
            wrong = [e for e in rules.placement_errors(power, [p for _, p in places])
                     if e.startswith("two ")]
            if wrong:
                for x, _ in places:
                    refuse(x, "; ".join(wrong))
        return _replace_earlier(out)

    def _read_combined(self, rules: StabRules, pos: Position, power: str, text: str) -> dict:
        """A line of the next season's orders sent during a pending retreat or adjustment
        phase: a retreat of one's own dislodged unit, a build or removal, or a movement order
        (checked when the earlier phases are done, since a retreat decides what exists)."""
        if pos.phase.kind == "R":
            try:
                order = rules.read_order(pos, power, text)
                if not isinstance(order, STAB_ORDERS):
                    return _kept_as_text(text, str(order))
            except OrderError:
                pass
        error = self._check_next_movement(rules, pos, power, text)
        if error:
            return _refused(text, error)
        for kind in ("A", "M"):
            try:
                order = parse_order(rules.board, seed_notation(text), kind)
            except OrderError:
                continue
            return _kept_as_text(text)
        if _IF.match(text) or re.match(r"^\s*(place|reveal)\b", text, re.I):
            return _kept_as_text(text)
        try:
            parse_order(rules.board, seed_notation(text), "M")
        except OrderSyntaxError as exc:
            return _refused(text, str(exc))
        except OrderError as exc:  # pragma: no cover - parse_order raises syntax errors only
            return _refused(text, str(exc))
        return _kept_as_text(text)

    @staticmethod
    def _check_next_movement(rules: StabRules, pos: Position, power: str, text: str
                             ) -> str | None:
        """Why a movement line for one of the power's units that is not waiting to retreat
        cannot be given next season (None: it can, or it is for a unit whose place the
        retreats and builds will decide, checked when they are done). Checked against the
        power's own units only, like every acknowledgement."""
        where = _ordered_province(rules, seed_notation(text))
        own = pos.units_of(power)
        if where is None or where not in {u.province for u in own}:
            return None
        y = pos.phase.year
        season = Phase("F", y, "M") if pos.phase.season == "S" else Phase("S", y + 1, "M")
        nxt = Position(pos.variant, season, pos.units, pos.centres, extra=dict(pos.extra))
        try:
            read_movement_line(rules, nxt, power, own, text)
        except OrderError as exc:
            return str(exc)
        return None

    def needs(self, variant: Any, pos: Position, power: str) -> tuple[list[str], int] | None:
        rules = _rules(variant)
        if pos.phase.kind == "M" and rules.placement_pending(pos):
            return [f"PLACE {c}" for c in sorted(rules.board.home_centres.get(power, ()))], 0
        if pos.phase.kind == "R" and rules.retreats_are_automatic(pos):
            return [], 0  # the conditional retreats came with the movement orders
        if combined(rules, pos):
            units = [str(u) for u in pos.units_of(power)]
            units += [str(d.unit) for d in pos.dislodged if d.unit.power == power]
            count = rules.adjustment_count(pos, power) if pos.phase.kind == "A" else 0
            return (units or ([f"{abs(count)} adjustment(s)"] if count else [])), 0
        return None

    def missing(self, variant: Any, pos: Position, power: str, lines: list[dict],
                submitted: bool) -> list[str] | None:
        rules = _rules(variant)
        if combined(rules, pos):
            return [] if submitted else ["the next season's orders (retreats, adjustments "
                                         "and movement together)"]
        if not (pos.phase.kind == "M" and rules.placement_pending(pos)):
            return None
        placed: dict[str, str] = {}
        ordered: set[str] = set()
        for line in lines:
            order = line.get("order") or ""
            if order.startswith("PLACE "):
                unit = order.removeprefix("PLACE ")
                placed[province_of(unit.split()[-1])] = unit
            elif line.get("unit"):
                ordered.add(line["unit"])
        homes = sorted(rules.board.home_centres.get(power, ()))
        todo = [f"PLACE a unit in {c}" for c in homes if c not in placed]
        todo += [placed[c] for c in homes if c in placed and c not in ordered]
        return todo

    def deadline_kind(self, variant: Any, pos: Position) -> str:
        # Retreats and adjustments sent with the next season's orders: a movement deadline.
        return "M" if combined(_rules(variant), pos) else pos.phase.kind

    def adjudicate(self, variant: Any, pos: Position, lines: list[tuple[str, Order | str]]
                   ) -> list[tuple[Outcome, list | None]]:
        rules = _rules(variant)
        if combined(rules, pos):
            # the next season's lines, kept as text: read as each of their phases comes
            steps, _unreadable = rules.adjudicate_season(
                pos, [(p, x if isinstance(x, str) else str(x)) for p, x in lines])
            return [(outcome, list(orders)) for outcome, orders in steps]
        orders: list[tuple[str, Order]] = []
        by_power: dict[str, list[str]] = {}
        for power, line in lines:
            by_power.setdefault(power, []).append(line if isinstance(line, str) else str(line))
        placing = pos.phase.kind == "M" and rules.placement_pending(pos)
        placed: dict[str, set[str]] = {power: set() for power in by_power}
        for power, line in lines:
            if isinstance(line, Place):
                placed[power].add(line.unit.province)
        for power, line in lines:
            if not isinstance(line, str):
                # As read and checked when it was sent. In the placement, against the units
                # the power placed: none stand when its placement was refused.
                if placing and not isinstance(line, STAB_ORDERS) and \
                        province_of(unit_of(line).location) not in placed[power]:
                    continue
                orders.append((power, line))
                continue
            try:  # a line stored as text by an earlier version: read it, as then
                if pos.phase.kind == "M":
                    # Read as the player was told it was read: against its own units, so
                    # that an order accepted then is the order adjudicated (a support of a
                    # unit that is not there is void, a mis-order the reports never show).
                    own = placed_units(rules, pos, power, by_power[power]) \
                        if rules.placement_pending(pos) else pos.units_of(power)
                    orders.append((power, read_movement_line(rules, pos, power, own, line)))
                else:
                    orders.append((power, rules.read_order(pos, power, line)))
            except OrderError:
                continue  # refused when it was sent; the player was told why
        return [(variant.adjudicate(pos, orders), orders)]

    # ---------------------------------------------------------------- master
    def sent_with(self, game: dict, phase: Phase) -> list[str]:
        """The phases adjudicated with ``phase`` from the orders sent in it (:func:`folded`):
        a block sent ahead for one of them is taken when the game begins to wait in
        ``phase`` for those orders. With WITH_ORDERS that is the movement's own retreat
        phase, whose retreats are IF DISLODGED lines of the movement orders: of its block
        :meth:`taken_with` keeps those, and tells how this game takes retreats for the rest
        (a plain 'A BUR - GAS' read with them would be a move)."""
        return folded(phase, mode(game_settings(game)))

    def taken_with(self, game: dict, pos: Position, target: str, lines: list[str]
                   ) -> tuple[list[str], list[tuple[str, str]]]:
        """With WITH_ORDERS a retreat phase's orders are the conditional retreats sent with
        the movement orders: of a block sent ahead for it, those are kept; any other line
        would be read as a movement order (A BUR - GAS, the retreat meant, a move), so it is
        left out saying how this game takes retreats."""
        if mode(game_settings(game)) != WITH_ORDERS or Phase.parse(target).kind != "R":
            return lines, []
        rules = _rules(get_variant(game["variant"]))
        kept: list[str] = []
        dropped: list[tuple[str, str]] = []
        for line in lines:
            if _IF_DISLODGED.match(seed_notation(line)):
                kept.append(line)
                continue
            dropped.append((line, _conditional_retreat(rules, pos, line) or (
                "in this game the retreat phase takes no orders of its own: retreats are "
                "sent with the movement orders, as conditional retreats (IF DISLODGED A BUR "
                "R GAS)")))
        return kept, dropped

    def master_command(self, ctx: FlowContext, ses: Any, game: dict, cmd: Any
                       ) -> tuple[str, str, Any] | None:
        """Some phases are adjudicated with the phase before them, from the orders sent in
        it, and the game never waits in them (:func:`folded`): with NEXT_SEASON a season's
        retreats, adjustments and movement are ordered in one mail while the game waits in
        the retreat phase or the Winter; with WITH_ORDERS a movement phase's retreats come
        with its orders. None of them has orders of its own, so ROLLBACK to one of them goes
        back to the phase its orders were sent in, with those orders as they were: its
        position, orders and report can be had again only there. PROCESS naming one of
        them, while the game waits in the phase that takes its orders, processes that phase
        (the named one has not been processed yet)."""
        if not cmd.args or cmd.name not in ("ROLLBACK", "PROCESS"):
            return None
        retreats = mode(game_settings(game))
        target = str(cmd.args[0]).upper()
        if cmd.name == "ROLLBACK":
            phases = [r["phase"] for r in ctx.s.all(
                "SELECT phase FROM positions WHERE game_id = ? ORDER BY id", (game["id"],))]
            start = sent_in(phases, target, retreats)
            if start == target:
                return None
            text, kind, data = gmtools.rollback(ctx, ses, replace(cmd, args=[start]))
            return (f"The orders of {target} were sent in {start}, {_SENT_WITH[retreats]}: "
                    f"the game goes back to {start}, where they were sent. " + text, kind, data)
        phase = game["phase"]
        if not phase or target == phase or game["status"] not in ("active", "paused"):
            return None
        try:
            waiting = Phase.parse(phase)
        except ValueError:
            return None
        if target not in folded(waiting, retreats):
            return None
        return gmtools.process(ctx, ses, replace(cmd, args=[phase]))

    # ---------------------------------------------------------------- reports
    def turn_events(self, variant: Any, steps: list[tuple[Outcome, list]]) -> list[Event]:
        return _rules(variant).turn_events(steps)

    def report(self, variant: Any, game: dict, steps: list[tuple[Outcome, list]],
               seen: list[Event], reader: str | None) -> tuple[str, str, dict]:
        settings = game_settings(game)
        rs = self.report_settings(game, settings)
        first = next((o.previous.phase for o, _ in steps if o.previous.phase.kind == "M"),
                     steps[0][0].previous.phase)
        new = steps[-1][0].position
        title = ("Winter" if first.kind == "A" else SEASON_NAMES[first.season]) + \
            f" {first.year}"
        context = {
            "game": game["name"], "variant": variant.title, "title": title,
            "public": render_public(seen, rs),
            "private": render_private(seen, reader, rs) if reader else "",
            "you": self.label(settings, reader, reader) if reader else None,
            "power": reader,  # the word the player signs on with (its own, never another's)
            "next_phase": str(new.phase), "next_phase_name": _season_name(new.phase),
            "deadline": None if new.winner else game["deadline"],
            "winner": self.label(settings, new.winner, reader) if new.winner else None,
            "next_kind": new.phase.kind, "mode": mode(settings),
        }
        return f"{game['name']}: {title} report", "stab/report_mail.txt.j2", context

    def start_notice(self, variant: Any, game: dict, pos: Position, reader: str | None
                     ) -> tuple[str, dict]:
        settings = game_settings(game)
        homes = sorted(variant.board.home_centres.get(reader, ())) if reader else []
        # the example placement must be one the judge accepts from this power: a fleet on a
        # coast (Austria's first home, Budapest, is inland), else an army
        coastal = [h for h in homes if variant.board.can_stand("F", h)]
        example = f"PLACE F {coastal[0]}" if coastal else (f"PLACE A {homes[0]}" if homes
                                                           else "")
        return "stab/started_mail.txt.j2", {
            "example": example,
            "game": game["name"], "variant": variant.title, "deadline": game["deadline"],
            "phase": str(pos.phase), "phase_name": _season_name(pos.phase),
            "you": self.label(settings, reader, reader) if reader else None,
            "power": reader,  # the word the player signs on with (its own, never another's)
            "gunboat": bool(settings.get("gunboat")), "homes": homes,
            "settings": self.describe(settings), "mode": mode(settings),
        }


def _season_name(phase: Phase) -> str:
    """The seed says Autumn; the phase code stays as the judges write it."""
    return phase.long_name.replace("Fall", "Autumn")


def _refused(text: str, error: str) -> dict:
    return {"text": text, "order": None, "data": None, "unit": None, "error": error}


def _kept_as_text(text: str, order: str | None = None) -> dict:
    """A line of the next season's orders, read again when its phase comes (the retreats
    and adjustments decide what stands, and what a line means): stored as text (``order``,
    or the line in the judge's notation), with no data."""
    return {"text": text, "order": order or seed_notation(text), "data": None, "unit": None,
            "error": None}


def _unit_key(order: Order | None) -> str | None:
    """The unit an order is for, when a later order to it replaces this one. PLACE, REVEAL
    and conditional orders stand beside the unit's own order, so they have none."""
    if order is None or isinstance(order, STAB_ORDERS):
        return None
    unit = getattr(order, "unit", None)
    return province_of(unit.location) if unit is not None else None


def _replace_earlier(lines: list[dict]) -> list[dict]:
    """A later order to the same unit replaces the earlier one (as in every game)."""
    next_order: dict[str, str] = {}  # unit -> the next order to it (read from the end)
    for line in reversed(lines):
        if not line["order"] or not line["unit"]:
            continue
        later = next_order.get(line["unit"])
        next_order[line["unit"]] = line["order"]
        if later is not None:
            set_aside(line, later)
    return lines


FLOW = StabFlow()
