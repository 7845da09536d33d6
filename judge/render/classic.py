"""The classic layout of a phase report: what the njudge and DPjudge judges wrote, so that the
mapping and tracking tools that read their mail (the Mapper and its successors) read ours.

The layout is documented in ``docs/commands.md`` (section "The classic layout"); this
module turns the events of one adjudicated phase (the ones a reader may see) into its lines:

* the ``::`` header naming the phase whose results follow (the classic judges wrote it before
  the phase advanced), coded as the Mapper reads it: DPjudge's ``F1901B`` for the winter
  adjustments (``W1901A``), the other phases as they are (``F1901M``, ``F1901R``);
* the heading, ``Movement results for Spring of 1901. (game.001)`` (``Retreat results for
  Fall of 1901.  (game.003)``, ``Adjustment results for Winter of 1901.  (game.004)``: two
  spaces there, as njudge prints them), with the game's turn number (the phases adjudicated
  so far, this one included) after its name;
* the orders that stood, power by power, in the classic words (``Austria: Army Vienna ->
  Trieste.``; a convoyed army with its route, ``Army Yorkshire -> North Sea -> Norway.``, as
  the player wrote it or as the convoy orders give it) with the classic result marks (``(*bounce*)``, ``(*cut*)``, ``(*void*)``,
  ``(*no convoy*)``, ``(*dislodged*)``; ``(*bounce, destroyed*)`` for a failed retreat);
* after a movement phase, the units dislodged and where each may retreat;
* when the year's centres are counted (after the last phase of the fall), the ownership of
  supply centres and, for each power, centres, units and the builds or removals due;
* the next phase.

Everything here is pure: the caller gives the variant, the position before the phase (to name
the owner and type of a unit an order mentions) and the events; nothing is read or written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.engine.board import province_of
from judge.engine.events import Event
from judge.engine.position import SEASONS, Phase, Position

# The width the classic judges padded a power's name to (njudge's LPOWER, the length of the
# longest power name of its standard variants): retreat and adjustment lines and the
# ownership block line up behind it.
NAME_WIDTH = 9
WRAP = 78  # the ownership block is wrapped after a comma to stay within this many columns
_KIND_WORD = {"A": "Army", "F": "Fleet"}
_NEXT_WORD = {"M": "Movement", "R": "Retreats", "A": "Adjustments"}
_HEADING = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}
_UNIT = re.compile(r"(\d*)([AF])")
_SOME = re.compile(r"(\d+) of (\d+) succeeded; the others: (.*)")


def classic_phase(phase: Phase) -> str:
    """The phase as the ``:: Deadline:`` header codes it: ``F1901B`` for the winter
    adjustments (DPjudge's renaming, since the Mapper knows no ``W`` season), the others as
    they are."""
    if phase.season == "W" and phase.kind == "A":
        return f"F{phase.year}B"
    return str(phase)


@dataclass(frozen=True, slots=True)
class ClassicNames:
    """What the classic layout needs of a variant beyond its board (``classic.json`` in the
    variant's folder): the variant's name in the ``::`` header and each power's adjective,
    used where a line names another power's unit (``The Austrian Army in Vienna``)."""

    variant: str
    adjectives: dict[str, str]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClassicNames:
        return cls(str(data["variant"]), {str(k): str(v) for k, v in data["adjectives"].items()})

    def adjective(self, power: str) -> str:
        return self.adjectives.get(power, power.title())


@dataclass(frozen=True, slots=True)
class _Ref:
    """A unit as an order's canonical text names it: ``2A BUR`` (two units of a stack, in a
    variant that stacks units), ``F STP/SC``, or ``VIE`` (type not written)."""

    count: int
    kind: str | None
    location: str


def _read_unit(tokens: list[str], i: int) -> tuple[_Ref, int]:
    m = _UNIT.fullmatch(tokens[i])
    if m and i + 1 < len(tokens):
        return _Ref(int(m.group(1) or 1), m.group(2), tokens[i + 1]), i + 2
    return _Ref(1, None, tokens[i]), i + 1


def read_order_text(text: str) -> tuple[str, _Ref | None, dict[str, Any]] | None:
    """The canonical text of an order (``str(order)``, with a count before a unit in a
    variant that stacks units) as (action, unit, details), or None when it is not one of the
    standard orders."""
    tokens = text.split()
    if not tokens:
        return None
    head = tokens[0].upper()
    try:
        if head in ("BUILD", "REMOVE") and len(tokens) > 1:
            unit, _ = _read_unit(tokens, 1)
            return head.lower(), unit, {}
        if head == "WAIVE":
            return "waive", None, {}
        unit, i = _read_unit(tokens, 0)
        action = tokens[i].upper()
        rest = tokens[i + 1:]
        if action == "H" and not rest:
            return "hold", unit, {}
        if action == "D" and not rest:
            return "disband", unit, {}
        if action == "R" and len(rest) == 1:
            return "retreat", unit, {"to": rest[0]}
        if action == "-":
            places = [t for t in rest if t not in ("-", "VIA", "CONVOY")]
            return "move", unit, {"path": places}
        if action in ("S", "C"):
            target, j = _read_unit(rest, 0)
            dest = rest[j + 1] if len(rest) > j + 1 and rest[j] == "-" else None
            return ("support" if action == "S" else "convoy"), unit, {"target": target,
                                                                     "to": dest}
    except IndexError:
        return None
    return None


class _Writer:
    """The classic words for units and places of one variant's board."""

    def __init__(self, variant: Any, names: ClassicNames, before: Position) -> None:
        self.board = variant.board
        self.names = names
        self.at: dict[str, Any] = {}
        for u in before.units:
            self.at.setdefault(u.province, u)
        for d in before.dislodged:
            self.at.setdefault(d.unit.province, d.unit)

    def place(self, location: str) -> str:
        return self.board.full_name(location)

    def sea(self, location: str) -> bool:
        return self.board.is_sea(province_of(location))

    def kind_of(self, ref: _Ref) -> str:
        if ref.kind:
            return ref.kind
        unit = self.at.get(province_of(ref.location))
        return unit.kind if unit is not None else "A"

    def owner_of(self, ref: _Ref) -> str | None:
        unit = self.at.get(province_of(ref.location))
        return unit.power if unit is not None else None

    def unit(self, ref: _Ref) -> str:
        """``Army Vienna``, ``Fleet St Petersburg (south coast)``."""
        return f"{_KIND_WORD[self.kind_of(ref)]} {self.place(ref.location)}"

    def other_unit(self, ref: _Ref, power: str) -> str:
        """A unit an order names: with its owner's adjective when it is another power's."""
        owner = self.owner_of(ref)
        prefix = f"{self.names.adjective(owner)} " if owner and owner != power else ""
        return prefix + self.unit(ref)

    def in_place(self, location: str) -> str:
        """``in Vienna``, ``in the North Sea``."""
        return f"in {'the ' if self.sea(location) else ''}{self.place(location)}"


def _marks(reason: str, failed: bool, dislodged: bool) -> list[str]:
    """The classic result marks of a movement order from the judge's reason."""
    words: list[str] = []
    if reason.startswith("no order"):  # "no order: holds; dislodged": what befell the unit
        reason = reason.partition("; ")[2]
    if failed or reason:
        low = reason.lower()
        if low.startswith("void"):
            words.append("void")
        elif "convoy" in low:
            words.append("no convoy")
        elif low.startswith("bounce"):
            words.append("bounce")
        elif low.startswith("cut"):
            words.append("cut")
        elif low.startswith("dislodged"):
            words.append("dislodged")
        elif failed:
            words.append("failed")
    if dislodged and "dislodged" not in words:
        words.append("dislodged")
    return words


def _convoy_route(w: _Writer, ref: _Ref, goal: str, convoys: dict[tuple[str, str], list[str]]
                  ) -> list[str]:
    """The seas a convoyed army goes through, as the convoy orders for it give them: the
    shortest chain of those fleets' seas from the army to ``goal`` (empty when they make none,
    or when no fleet convoyed it)."""
    origin, goal = province_of(ref.location), province_of(goal)
    seas = set(convoys.get((origin, goal), ()))
    if not seas:
        return []
    needed = w.board.convoy_routes(origin, goal, seas)
    paths: list[list[str]] = [[s] for s in sorted(needed) if origin in w.board.fleet_reach[s]]
    while paths:
        path = paths.pop(0)
        if goal in w.board.fleet_reach[path[-1]]:
            return path
        paths.extend([*path, s] for s in sorted(needed)
                     if s not in path and s in w.board.fleet_reach[path[-1]])
    return []


def _convoys(seen: list[Event]) -> dict[tuple[str, str], list[str]]:
    """(army's province, destination) -> the seas whose fleets were ordered to convoy it."""
    out: dict[tuple[str, str], list[str]] = {}
    for e in seen:
        if e.kind != "order" or not e.fields.get("stands", True):
            continue
        read = read_order_text(e.fields["order"])
        if read and read[0] == "convoy" and read[1] and read[2]["to"]:
            key = (province_of(read[2]["target"].location), province_of(read[2]["to"]))
            out.setdefault(key, []).append(province_of(read[1].location))
    return out


def _movement_line(w: _Writer, power: str, f: Mapping[str, Any], dislodged: set[str],
                   convoys: dict[tuple[str, str], list[str]] | None = None) -> list[str]:
    read = read_order_text(f["order"])
    if read is None:
        return []
    action, ref, d = read
    if ref is None:  # an order naming no unit (a waived build) has no line here
        return []
    text = w.unit(ref)
    if not f.get("given", True):
        text += ", No Order Processed"
    elif action == "hold":
        text += " HOLD"
    elif action == "move":
        path = d["path"]
        if len(path) == 1 and w.kind_of(ref) == "A" and convoys:
            # the route the judge found, when the player named none (the classic judges
            # print the seas it goes through either way)
            path = [*_convoy_route(w, ref, path[0], convoys), path[0]]
        text += "".join(f" -> {w.place(p)}" for p in path)
    elif action in ("support", "convoy"):
        word = " SUPPORT " if action == "support" else " CONVOY "
        text += word + w.other_unit(d["target"], power)
        if d["to"] and province_of(d["to"]) != province_of(d["target"].location):
            text += f" -> {w.place(d['to'])}"
    else:
        return []
    here = province_of(ref.location) in dislodged
    reason = f.get("reason", "")
    # A line ordering several units of a stack that only some of them carried out: those
    # first, then the others with the reason they failed.
    some = _SOME.match(reason)
    if some and ref.count > 1:
        ok = int(some.group(1))
        return ([_line(power, text, _marks("", False, here))] * ok
                + [_line(power, text, _marks(some.group(3), True, here))] * (ref.count - ok))
    return [_line(power, text, _marks(reason, f["result"] != "succeeds", here))] * ref.count


def _line(power: str, text: str, marks: list[str]) -> str:
    return f"{power.title()}: {text}." + (f" (*{', '.join(marks)}*)" if marks else "")


def _padded(power: str, width: int = NAME_WIDTH) -> str:
    """``Austria:   ``: the name and colon, padded as the classic judges did."""
    return f"{power.title()}: ".ljust(width + 2)


def _retreat_line(w: _Writer, power: str, f: Mapping[str, Any]) -> list[str]:
    read = read_order_text(f["order"])
    if read is None:
        return []
    action, ref, d = read
    if ref is None:  # an order naming no unit (a waived build) has no line here
        return []
    text = f"{_KIND_WORD[w.kind_of(ref)]:<5} {w.place(ref.location)}"
    if not f.get("given", True):
        text += ", No Order Processed (DISBAND)"
    elif action == "retreat":
        text += f" -> {w.place(d['to'])}"
        if f["result"] != "succeeds":
            text += " (*bounce, destroyed*)"
    elif action == "disband":
        text += " DISBAND"
    else:
        return []
    return [_padded(power) + text + "."] * ref.count


def _adjustment_line(w: _Writer, power: str, f: Mapping[str, Any]) -> list[str]:
    read = read_order_text(f["order"])
    if read is None or f["result"] != "succeeds":
        return []
    action, ref, _ = read
    if action == "waive":
        return [_padded(power) + "Build waived."]
    if ref is None:
        return []
    kind = w.kind_of(ref)
    if action == "build":
        article = "an army" if kind == "A" else "a fleet"
        return [_padded(power) + f"Builds {article} {w.in_place(ref.location)}."] * ref.count
    if action == "remove":
        what = _KIND_WORD[kind].lower()
        if not f.get("given", True):
            return [_padded(power) + f"Defaults, removing the {what} "
                    f"{w.in_place(ref.location)}."] * ref.count
        return [_padded(power) + f"Removes the {what} {w.in_place(ref.location)}."] * ref.count
    return []


def _wrapped(first: str, items: list[str], indent: int) -> list[str]:
    """``first`` (a padded name) then the items joined by ", " and ended with ".", wrapped
    after a comma onto lines indented by ``indent``."""
    lines: list[str] = []
    line, placed = first, 0
    for k, item in enumerate(items):
        piece = item + ("." if k == len(items) - 1 else ",")
        joined = line + ("" if placed == 0 else " ") + piece
        if placed and len(joined) > WRAP:
            lines.append(line)
            line, placed = " " * indent + piece, 1
        else:
            line, placed = joined, placed + 1
    lines.append(line.rstrip())
    return lines


def _unit_count(written: str) -> int:
    """``2A BUR`` (a stack of two) -> 2; ``A VIE`` -> 1."""
    m = re.match(r"(\d+)[AF]\b", written)
    return int(m.group(1)) if m else 1


def year_counted(previous: Phase, new: Phase) -> bool:
    """Whether the phase just adjudicated is the one after which the classic judges counted
    the year's centres: the last phase of the fall (its movement when no unit retreats, else
    its retreats)."""
    return previous.season == "F" and new.kind != "R"


def classic_context(variant: Any, names: ClassicNames, game: str, before: Position,
                    after: Position, seen: list[Event], turn: int | None = None
                    ) -> dict[str, Any]:
    """The classic layout of one phase, as lines for ``templates/_classic.txt.j2``;
    ``turn`` is the game's turn number (the phases adjudicated so far, this one included)."""
    w = _Writer(variant, names, before)
    phase, nxt = before.phase, after.phase
    season = SEASONS[phase.season]
    number = f"{game}.{turn:03d}" if turn else game
    # njudge prints one space before the number after a movement heading and two after the
    # others (its st_movement.c, st_retreat.c and st_build.c; its mail_format.html: "a dot, a
    # space" for movement)
    gap = " " if phase.kind == "M" else "  "
    heading = f"{_HEADING[phase.kind]} results for {season} of {phase.year}.{gap}({number})"
    dislodged_at = {province_of(e.fields["unit"].split()[-1])
                    for e in seen if e.kind == "dislodged"}
    per_power: dict[str, list[str]] = {}
    convoys = _convoys(seen) if phase.kind == "M" else {}
    for e in seen:
        if e.kind != "order" or not e.fields.get("stands", True):
            continue
        f = e.fields
        try:
            if phase.kind == "M":
                lines = _movement_line(w, f["power"], f, dislodged_at, convoys)
            elif phase.kind == "R":
                lines = _retreat_line(w, f["power"], f)
            else:
                lines = _adjustment_line(w, f["power"], f)
        except KeyError:  # names a place not on the board: no standard order, not listed
            lines = []
        per_power.setdefault(f["power"], []).extend(lines)
    if phase.kind == "A":
        _waived_builds(variant, w, before, seen, per_power)
    orders = [per_power[p] for p in variant.board.powers if per_power.get(p)]
    if phase.kind != "M" and orders:  # one block: no blank line between powers
        orders = [[line for lines in orders for line in lines]]

    dislodged = []
    for e in seen:
        if e.kind != "dislodged":
            continue
        f = e.fields
        ref, _ = _read_unit(f["unit"].split(), 0)
        text = (f"The {names.adjective(f['power'])} {_KIND_WORD[w.kind_of(ref)]} "
                f"{w.in_place(ref.location)}")
        retreats = [w.place(x) for x in f.get("retreats") or ()]
        text += (f" can retreat to {' or '.join(retreats)}." if retreats
                 else " with no valid retreats was destroyed.")
        dislodged.extend(_wrap_words(text))

    ownership: list[str] = []
    counts: list[str] = []
    if year_counted(phase, nxt) or after.winner:
        ownership, counts = _ownership(variant, w, seen, after.winner)
    next_line = "" if after.winner else (
        f"The next phase of '{game}' will be {_NEXT_WORD[nxt.kind]} for "
        f"{SEASONS[nxt.season]} of {nxt.year}.")
    return {"variant": names.variant, "phase": classic_phase(phase),
            "next_phase": str(nxt), "heading": heading,
            "orders": orders, "dislodged": dislodged, "ownership": ownership,
            "counts": counts, "next_line": next_line}


def _wrap_words(text: str) -> list[str]:
    """A long sentence wrapped between words (the dislodged units' lines)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > WRAP:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line]


def _waived_builds(variant: Any, w: _Writer, before: Position, seen: list[Event],
                   per_power: dict[str, list[str]]) -> None:
    """Builds due but not made are lost: one ``N builds waived.`` line per power, after the
    power's orders (the classic judges' words for builds given up)."""
    used: dict[str, int] = {}
    for e in seen:
        if e.kind == "order" and e.fields["result"] == "succeeds":
            read = read_order_text(e.fields["order"])
            if read and read[0] in ("build", "waive"):
                count = read[1].count if read[1] else 1
                used[e.fields["power"]] = used.get(e.fields["power"], 0) + count
    for power in variant.board.powers:
        due = variant.adjustment_count(before, power) if power in before.powers() else 0
        left = due - used.get(power, 0)
        if left > 0:
            per_power.setdefault(power, []).append(
                _padded(power) + f"{left} build{'' if left == 1 else 's'} waived.")


def _ownership(variant: Any, w: _Writer, seen: list[Event], winner: str | None
               ) -> tuple[list[str], list[str]]:
    """The ``Ownership of supply centers:`` block and the centre and unit counts."""
    centres: dict[str, list[str]] = {}
    units: dict[str, int] = {}
    for e in seen:
        if e.kind == "centres":
            centres[e.fields["power"]] = list(e.fields["centres"])
        elif e.kind == "units":
            units[e.fields["power"]] = sum(_unit_count(u) for u in e.fields["units"])
    owned = {c for cs in centres.values() for c in cs}
    block: list[str] = []
    for power in variant.board.powers:
        if centres.get(power):
            names = sorted(w.place(c) for c in centres[power])
            block.extend(_wrapped(_padded(power), names, NAME_WIDTH + 2))
    unowned = sorted(w.place(c) for c in variant.board.supply_centres - owned)
    if unowned:
        block.extend(_wrapped("Unowned: ".ljust(NAME_WIDTH + 2), unowned, NAME_WIDTH + 2))
    counts = []
    for power in variant.board.powers:
        n_c, n_u = len(centres.get(power, ())), units.get(power, 0)
        if not n_c and not n_u:
            continue
        change = abs(n_c - n_u)
        line = (f"{power.title()}:".ljust(NAME_WIDTH + 1)
                + f"{n_c:2d} Supply center{', ' if n_c == 1 else 's,'} "
                + f"{n_u:2d} Unit{': ' if n_u == 1 else 's:'}  "
                + f"{'Builds ' if n_c >= n_u else 'Removes'} {change:2d} "
                + f"unit{'' if change == 1 else 's'}.")
        if power == winner:
            line += f"{' ' if change == 1 else ''}  (* VICTORY!! *)"
        counts.append(line)
    return block, counts
