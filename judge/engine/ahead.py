"""Orders for later phases: PHASE blocks and their IF/ELSE/ENDIF conditions (pure).

The njudge form, which experienced players type::

    PHASE Fall 1905 Movement
    IF NOT French Army Ruhr AND (Russian Prussia OR Russian Silesia)
      Kiel -> Berlin
      Munich support Kiel -> Berlin
    ELSE
      Kiel -> Ruhr
    ENDIF

A block runs from its ``PHASE`` line to the next ``PHASE`` line or the end of the mail. Only
the first letters of the season and phase words count (``PHASE F 1905 M``); the judge's own
phase codes are read too (``PHASE F1901R``, ``PHASE W1901A``). ``IF <condition> [THEN]``,
``ELSE IF <condition>`` (or ``ELSEIF``), ``ELSE`` and ``ENDIF`` nest; the end of the block
closes any IF still open, as njudge does.

A condition is one or more tests joined by ``AND`` and ``OR``, read strictly left to right as
njudge reads them (``A OR B AND C`` is ``(A OR B) AND C``); parentheses group, ``NOT`` negates
the test or group after it, and the end of the line closes any parenthesis left open. A test
names a province and, in any order, optionally a power and a unit type: true when such a unit
stands there at the start of the phase. Two words go beyond njudge: ``DISLODGED`` (the unit is
dislodged and waits to retreat: retreat phases only) and ``OWNS`` (``OWN``, ``OWNED``): the
power (you, unless one is named) owns that supply centre.

Everything here is pure: :func:`parse_block` reads a block against the variant's board and
the current phase; :func:`evaluate` picks the orders that stand against the position at the
start of the target phase. What a player may not see (hidden movement) and which phases take
orders ahead are the caller's to say (``visible``, ``kinds``): this module names no variant.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from judge.engine.board import ARMY, FLEET, Board, normalise_name, province_of
from judge.engine.errors import OrderSyntaxError
from judge.engine.parse import is_coast, place_words
from judge.engine.position import Phase, Position

MAX_YEARS_AHEAD = 5  # njudge's limit: "up to five years into the future"
MAX_BLOCKS = 30  # PHASE blocks in one mail
MAX_BLOCK_LINES = 300  # lines in one block
MAX_DEPTH = 8  # IFs open inside each other
MAX_TESTS = 24  # tests (and groups) in one condition
MAX_LINE = 300  # characters in one line of a block

SEASON_WORDS = {"SPRING": "S", "FALL": "F", "AUTUMN": "F", "WINTER": "W", "SUMMER": "U"}
KIND_WORDS = {"MOVEMENT": "M", "MOVES": "M", "RETREATS": "R", "ADJUSTMENTS": "A",
              "BUILDS": "A"}
_SEASON_ORDER = {"S": 0, "F": 1, "W": 2}
_KIND_ORDER = {"M": 0, "R": 1, "A": 2}
KIND_NAMES = {"M": "movement", "R": "retreat", "A": "adjustment"}
_HEADER_RE = re.compile(r"^([A-Z]+?)(\d{1,4})(BC)?([A-Z]*)$")
_TOKEN_RE = re.compile(r"\(|\)|[^\s()]+")
_CONNECTIVES = {"AND": "AND", "OR": "OR", "&": "AND", "&&": "AND", "|": "OR", "||": "OR"}
_OWN_WORDS = {"OWN", "OWNS", "OWNED", "CONTROLS"}
_DISLODGED_WORDS = {"DISLODGED"}
_TYPE_WORDS = {"A": ARMY, "ARMY": ARMY, "F": FLEET, "FLEET": FLEET}
_ADJECTIVE_ENDINGS = ("ISH", "IAN", "AN", "CH", "ESE", "IC")


class AheadError(ValueError):
    """A line of a PHASE block that cannot be read; ``str()`` is the reason for the player."""


# ------------------------------------------------------------------- phases
def phase_key(phase: Phase) -> tuple[int, int, int]:
    """Calendar order of phases: year, then Spring < Fall < Winter, then M < R < A."""
    return (phase.year, _SEASON_ORDER.get(phase.season, 3), _KIND_ORDER.get(phase.kind, 3))


def phase_id(phase: Phase) -> str:
    """The key a pending block is stored under (``F1905M``; BC years negative)."""
    return f"{phase.season}{phase.year}{phase.kind}"


def is_header(line: str) -> bool:
    """Whether ``line`` starts a PHASE block."""
    words = line.split(None, 1)
    return bool(words) and words[0].upper().rstrip(":") == "PHASE"


def _word_for(word: str, table: dict[str, str], what: str) -> str:
    if not word:
        raise AheadError(f"no {what}")
    hits = {code for name, code in table.items() if name.startswith(word)}
    if len(hits) > 1 and len(word) == 1:  # only the first letter counts (njudge)
        hits = {code for name, code in table.items() if name[0] == word and code != "U"}
    if len(hits) != 1:
        names = ", ".join(sorted({n.title() for n in table}))
        raise AheadError(f"{word.title()!r} is not a {what} ({names})")
    return hits.pop()


def read_phase(text: str, current: Phase) -> Phase:
    """The phase a PHASE line names, in the calendar of ``current`` (a BC game's years are
    BC); raises AheadError with the reason. Checks only the shape, not the distance."""
    spaced = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
    compact = re.sub(r"[\s,.]", "", spaced.upper())
    m = _HEADER_RE.match(compact)
    if not m:
        raise AheadError("write PHASE <season> <year> <phase>, e.g. PHASE Fall 1905 Movement "
                         "or PHASE F1905M")
    season_word, year_text, bc, kind_word = m.groups()
    season = _word_for(season_word, SEASON_WORDS, "season")
    if season == "U":
        raise AheadError("this game has no Summer: its seasons are Spring, Fall and Winter")
    year = int(year_text)
    if bc or current.year < 0:
        year = -year
    kind = _word_for(kind_word, KIND_WORDS, "phase") if kind_word else (
        "A" if season == "W" else "M")
    if season == "F" and kind == "A" and "BUILDS".startswith(kind_word):
        season = "W"  # F1901B: the classic layout's code for the winter adjustments
    if season == "W" and kind != "A":
        raise AheadError("Winter has only the adjustment phase (PHASE Winter <year> Adjustment)")
    if season == "F" and kind_word.startswith("B"):  # njudge's F1901B, 'Fall 1901 Build':
        season = "W"  # the adjustments after that Fall, which are played in Winter here
    if season != "W" and kind == "A":
        raise AheadError("adjustments are played in Winter (PHASE Winter <year> Adjustment)")
    return type(current)(season, year, kind)


def check_target(target: Phase, current: Phase, kinds: str = "MRA") -> None:
    """A block may name the current phase or one up to five years ahead, of a kind the game
    takes orders ahead for; AheadError with the reason otherwise."""
    if phase_key(target) < phase_key(current):
        raise AheadError(f"{target.long_name} is already past (the game is in "
                         f"{current.long_name})")
    if target.year - current.year > MAX_YEARS_AHEAD:
        raise AheadError(f"{target.long_name} is more than {MAX_YEARS_AHEAD} years ahead of "
                         f"{current.long_name}")
    if target.kind not in kinds:
        allowed = " and ".join(KIND_NAMES[k] for k in kinds) or "no"
        raise AheadError(f"this game takes orders ahead for {allowed} phases only, not for "
                         f"{target.long_name}")


# --------------------------------------------------------------- conditions
@dataclass(frozen=True, slots=True)
class Test:
    """One test: ``what`` is ``unit`` (a unit stands there), ``dislodged`` (one is dislodged
    there) or ``owns`` (``power`` owns the centre). ``power``/``kind`` None: any."""

    what: str
    location: str  # a province, or a coast when one was written
    power: str | None = None
    kind: str | None = None

    def __str__(self) -> str:
        words = [self.power.title() if self.power else "", self.kind or ""]
        if self.what == "owns":
            return " ".join(w for w in (*words, "OWNS", self.location) if w)
        tail = " DISLODGED" if self.what == "dislodged" else ""
        return " ".join(w for w in (*words, self.location) if w) + tail

    def holds(self, position: Position) -> bool:
        if self.what == "owns":
            return self.location in position.centres.get(self.power or "", set())
        units = [d.unit for d in position.dislodged] if self.what == "dislodged" \
            else position.units
        coast = "/" in self.location
        for u in units:
            if (u.location == self.location if coast else u.province == self.location) and \
                    (self.power is None or u.power == self.power) and \
                    (self.kind is None or u.kind == self.kind):
                return True
        return False


@dataclass(frozen=True, slots=True)
class Not:
    inner: Condition

    def __str__(self) -> str:
        return f"NOT {self.inner}"

    def holds(self, position: Position) -> bool:
        return not self.inner.holds(position)


@dataclass(frozen=True, slots=True)
class Chain:
    """``first op1 c1 op2 c2 ...`` evaluated strictly left to right (njudge's rule)."""

    first: Condition
    rest: tuple[tuple[str, Condition], ...]

    def __str__(self) -> str:
        return "(" + " ".join([str(self.first), *(f"{op} {c}" for op, c in self.rest)]) + ")"

    def holds(self, position: Position) -> bool:
        value = self.first.holds(position)
        for op, cond in self.rest:
            value = (value and cond.holds(position)) if op == "AND" else (
                value or cond.holds(position))
        return value


Condition = Test | Not | Chain
# (test, power ordering) -> None when the player may use it, else the reason it is refused
Visibility = Callable[[Test, str], str | None]


def own_only(test: Test, power: str) -> str | None:
    """The visibility rule of a game with hidden movement: a player sees its own units and
    centres only, so a condition may test nothing else."""
    if test.power == power:
        return None
    if test.power is None and test.what != "owns":
        return (f"'{test}' asks about any power's unit, and in this game you see only your "
                f"own: write {power.title()} {test}")
    return f"'{test}' asks about another power's {'centre' if test.what == 'owns' else 'unit'}" \
           ", which you cannot see in this game"


def _power_of(board: Board, word: str) -> str | None:
    """A power from its name, its first letters (two or more) or its adjective."""
    key = normalise_name(word).upper()
    if len(key) < 2 or not key.isalpha():
        return None
    names = {p: normalise_name(p).upper() for p in board.powers}
    exact = [p for p, n in names.items() if n == key]
    if exact:
        return exact[0]
    hits = [p for p, n in names.items() if n.startswith(key) or key.startswith(n)]
    if not hits and key.endswith(_ADJECTIVE_ENDINGS):  # French, Turkish, Italian, English
        hits = [p for p, n in names.items() if n[:2] == key[:2]]
    return hits[0] if len(hits) == 1 else None


def _read_test(board: Board, power: str, text: str, kind: str) -> Test:
    """One test from its words (province, power and type in any order, DISLODGED, OWNS); the
    place, and a coast after it, read as orders read them (:func:`place_words`)."""
    what = "unit"
    places: list[tuple[str, str]] = []  # (location, as written)
    powers: list[str] = []
    kinds: list[str] = []
    either: list[tuple[str, str, str]] = []  # a word that is a power and a place (ENG)
    try:
        items = place_words(board, text)
    except OrderSyntaxError as exc:
        raise AheadError(str(exc)) from None
    for written, loc in items:
        w = written.upper()
        if loc is None and w in _OWN_WORDS:
            what = "owns" if what == "unit" else what
            continue
        if loc is None and w in _DISLODGED_WORDS:
            what = "dislodged" if what == "unit" else what
            continue
        if loc is None and w in _TYPE_WORDS:
            kinds.append(_TYPE_WORDS[w])
            continue
        who = _power_of(board, written) if " " not in written else None
        if loc is not None and who is not None:
            either.append((loc, written, who))
        elif loc is not None:
            places.append((loc, written))
        elif who is not None:
            powers.append(who)
        else:
            raise AheadError(f"'{written}' is not a province, power or unit type "
                             "(a test reads like [NOT] [power] [A|F] <province>)")
    for loc, written, who in either:  # the place unless another word names the place
        if places:
            powers.append(who)
        else:
            places.append((loc, written))
    words = text.split()
    if not places:
        raise AheadError(f"'{' '.join(words)}' names no province")
    if len(places) > 1:
        raise AheadError(f"'{' '.join(words)}' names more than one province "
                         f"({', '.join(w for _, w in places)}); join tests with AND or OR")
    if len(set(powers)) > 1:
        raise AheadError(f"'{' '.join(words)}' names more than one power")
    if len(set(kinds)) > 1:
        raise AheadError(f"'{' '.join(words)}' names more than one unit type")
    location = places[0][0]
    who = powers[0] if powers else None
    if what == "owns":
        if kinds:
            raise AheadError(f"'{' '.join(words)}': OWNS is about a centre, not a unit type")
        province = province_of(location)
        if province not in board.supply_centres:
            raise AheadError(f"{board.provinces[province].name} is not a supply centre, so no "
                             "one owns it")
        return Test("owns", province, who or power)
    if what == "dislodged" and kind != "R":
        raise AheadError("DISLODGED tests the units waiting to retreat, so it is for retreat "
                         "phases only (PHASE Fall 1901 Retreat)")
    return Test(what, location, who, kinds[0] if kinds else None)


class _ConditionReader:
    def __init__(self, board: Board, power: str, text: str, kind: str) -> None:
        self.board, self.power, self.kind = board, power, kind
        self.text = text
        self.spans = [(m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]
        self.toks = [text[a:b] for a, b in self.spans]
        self.i = 0
        self.tests = 0

    def peek(self) -> str | None:
        return self.toks[self.i].upper() if self.i < len(self.toks) else None

    def read(self) -> Condition:
        if self.peek() is None:
            raise AheadError("IF needs a condition, e.g. IF A MUN or IF NOT Russian Prussia")
        cond = self.chain(0)
        if self.peek() == ")":
            raise AheadError("a ')' with no '(' before it")
        return cond

    def chain(self, depth: int) -> Condition:
        first = self.term(depth)
        rest: list[tuple[str, Condition]] = []
        while (tok := self.peek()) is not None and tok != ")":
            op = _CONNECTIVES.get(tok)
            if op is None:
                raise AheadError(f"expected AND, OR or the end of the condition, not "
                                 f"'{self.toks[self.i]}'")
            self.i += 1
            if self.peek() in (None, ")"):
                raise AheadError(f"{op} with nothing after it")
            rest.append((op, self.term(depth)))
        return Chain(first, tuple(rest)) if rest else first

    def term(self, depth: int) -> Condition:
        self.tests += 1
        if self.tests > MAX_TESTS:
            raise AheadError(f"a condition may hold at most {MAX_TESTS} tests")
        negate = False
        while self.peek() == "NOT":
            negate = not negate
            self.i += 1
        tok = self.peek()
        if tok is None:
            raise AheadError("NOT with nothing after it")
        if tok == "(":
            if depth >= MAX_DEPTH:
                raise AheadError(f"parentheses nest at most {MAX_DEPTH} deep")
            self.i += 1
            if self.peek() in (None, ")"):
                raise AheadError("'()' holds no test")
            cond = self.chain(depth + 1)
            if self.peek() == ")":
                self.i += 1
            # the end of the line closes a parenthesis left open (njudge)
        else:
            first = self.i
            while (t := self.peek()) is not None and t not in (")", "NOT") and \
                    t not in _CONNECTIVES:
                if t == "(":
                    if self.i == first or (after := self.coast_bracket()) is None:
                        break
                    self.i = after  # a coast in brackets after the place: no group
                    continue
                self.i += 1
            if self.i == first:
                raise AheadError(f"expected a test, not '{self.toks[self.i]}'")
            text = self.text[self.spans[first][0]:self.spans[self.i - 1][1]]
            cond = _read_test(self.board, self.power, text, self.kind)
        return Not(cond) if negate else cond


    def coast_bracket(self) -> int | None:
        """Where a ``(`` at the reader, holding a coast as orders write one (``(sc)``,
        ``(south coast)``), ends, past its ``)``; None when it opens a group."""
        end = self.i + 1
        while end < len(self.toks) and self.toks[end] not in ("(", ")"):
            end += 1
        inside = " ".join(self.toks[self.i + 1:end])
        if end >= len(self.toks) or self.toks[end] != ")" or not is_coast(inside):
            return None
        return end + 1


def read_condition(board: Board, power: str, text: str, kind: str = "M",
                   visible: Visibility | None = None) -> Condition:
    """The condition of an IF line (without IF/THEN), for ``power`` in a phase of ``kind``;
    AheadError with the reason when it cannot be read or tests what the player cannot see."""
    cond = _ConditionReader(board, power, text, kind).read()
    if visible is not None:
        for test in tests_of(cond):
            if (why := visible(test, power)) is not None:
                raise AheadError(why)
    return cond


def tests_of(cond: Condition) -> Iterable[Test]:
    if isinstance(cond, Test):
        yield cond
    elif isinstance(cond, Not):
        yield from tests_of(cond.inner)
    else:
        yield from tests_of(cond.first)
        for _, c in cond.rest:
            yield from tests_of(c)


# ------------------------------------------------------------------- blocks
@dataclass(slots=True)
class Line:
    """An order line of a block (checked against the variant when the phase starts);
    ``note``: what a reply says of it beside the line (a later block's order replaces it)."""

    text: str
    note: str | None = None


@dataclass(slots=True)
class Bad:
    """A line of a block that cannot be used, and why."""

    text: str  # as written, whole: it is stored so, and read back the same
    reason: str

    @property
    def shown(self) -> str:
        """The line as replies and notices show it (a line too long, cut)."""
        return self.text if len(self.text) <= MAX_LINE else self.text[:60] + "..."


@dataclass(slots=True)
class Branch:
    head: str  # the IF / ELSE IF / ELSE line as written
    condition: Condition | None  # None: ELSE
    items: list[Item] = field(default_factory=list)


@dataclass(slots=True)
class If:
    branches: list[Branch]
    error: str | None = None  # a branch's condition could not be read: no branch is used
    closed: bool = False  # ENDIF seen (else the end of the block closed it)


Item = Line | Bad | If


@dataclass(slots=True)
class Block:
    """A PHASE block read: its target phase (None when the PHASE line cannot be read) and its
    items; ``error`` refuses the whole block."""

    header: str
    target: Phase | None
    items: list[Item] = field(default_factory=list)
    error: str | None = None

    @property
    def key(self) -> str | None:
        return phase_id(self.target) if self.target else None

    def lines(self) -> list[str]:
        """The block as written, header first (what is stored until the phase starts)."""
        return [self.header, *_written(self.items)]

    def problems(self) -> list[tuple[str, str]]:
        """(line, reason) for each line that cannot be used, the header's first."""
        out = [(self.header, self.error)] if self.error else []
        return out + _problems(self.items)

    def echo(self, position: Position | None = None) -> list[dict[str, Any]]:
        """The block line by line for a reply: ``{"text", "depth", "error", "note"}``; with
        the ``position`` its phase starts from, each IF (ELSE IF) line reached has ``taken``
        (whether its lines stand), each other line ``taken`` None."""
        out: list[dict[str, Any]] = [{"text": self.header, "depth": 0, "error": self.error,
                                      "note": None, "taken": None}]
        return out + _echo(self.items, 0, None if self.error else position)

    def order_lines(self) -> list[tuple[Line, bool]]:
        """Each order line of the block, in the order written, and whether an IF guards it."""
        out: list[tuple[Line, bool]] = []

        def walk(items: list[Item], guarded: bool) -> None:
            for item in items:
                if isinstance(item, Line):
                    out.append((item, guarded))
                elif isinstance(item, If):
                    for b in item.branches:
                        walk(b.items, True)

        walk(self.items, False)
        return out


def _written(items: list[Item]) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, If):
            for b in item.branches:
                out.append(b.head)
                out.extend(_written(b.items))
            if item.closed:
                out.append("ENDIF")
        else:
            out.append(item.text)
    return out


def _problems(items: list[Item]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, Bad):
            out.append((item.shown, item.reason))
        elif isinstance(item, If):
            for b in item.branches:
                if item.error and b is item.branches[0]:
                    out.append((b.head, item.error))
                out.extend(_problems(b.items))
    return out


def _echo(items: list[Item], depth: int, position: Position | None) -> list[dict[str, Any]]:
    """``position`` None: no IF here is reached (or none is decided: a reply's listing)."""
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, If):
            chosen = False  # a branch before this one was taken
            for k, b in enumerate(item.branches):
                taken: bool | None = None
                if position is not None and not item.error and not chosen:
                    is_else = b.condition is None and k > 0
                    went = is_else or (b.condition is not None and b.condition.holds(position))
                    taken, chosen = (None if is_else else went), went
                    inner = position if went else None
                else:
                    inner = None
                out.append({"text": b.head, "depth": depth, "taken": taken, "note": None,
                            "error": item.error if k == 0 else None})
                out.extend(_echo(b.items, depth + 1, inner))
            if item.closed:
                out.append({"text": "ENDIF", "depth": depth, "error": None, "note": None,
                            "taken": None})
        elif isinstance(item, Bad):
            out.append({"text": item.shown, "depth": depth, "error": item.reason,
                        "note": None, "taken": None})
        else:
            out.append({"text": item.text, "depth": depth, "error": None, "note": item.note,
                        "taken": None})
    return out


def mark_unreadable(block: Block, check: Callable[[str], str | None]) -> None:
    """Turn each order line of ``block`` that ``check`` finds unreadable (it returns the
    reason) into a :class:`Bad` line, so that the player is told when sending it; the line
    is kept as written."""

    def walk(items: list[Item]) -> None:
        for k, item in enumerate(items):
            if isinstance(item, Line):
                if (why := check(item.text)) is not None:
                    items[k] = Bad(item.text, why)
            elif isinstance(item, If):
                for b in item.branches:
                    walk(b.items)

    walk(block.items)


def split_blocks(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """A mail's order lines -> (the lines before any PHASE line, each PHASE block's lines
    with its PHASE line first). A block runs to the next PHASE line or the end."""
    now: list[str] = []
    blocks: list[list[str]] = []
    for line in lines:
        if is_header(line):
            blocks.append([line.strip()])
        elif blocks:
            blocks[-1].append(line.strip())
        else:
            now.append(line)
    return now, blocks


def _head(line: str) -> tuple[str, str]:
    """(keyword, rest): IF, ELSEIF, ELSE, ENDIF or '' for an order line."""
    words = line.split()
    first = words[0].upper() if words else ""
    if first == "IF" and (":" in line or (len(words) > 1 and words[1].upper() == "DISLODGED")):
        # a variant's own conditional order on one line (IF DISLODGED A BUR R GAS, or
        # IF F PIC R ENG: F BRE - PIC), not a test: a condition never holds ':'
        return "", line
    if first == "IF":
        return "IF", line.split(None, 1)[1] if len(words) > 1 else ""
    if first in ("ELSEIF", "ELIF") or (first == "ELSE" and len(words) > 1
                                       and words[1].upper() == "IF"):
        rest = line.split(None, 2 if first == "ELSE" else 1)
        return "ELSEIF", rest[-1] if len(rest) > (2 if first == "ELSE" else 1) else ""
    if first == "ELSE" and len(words) == 1:
        return "ELSE", ""
    if first in ("ENDIF", "FI") and len(words) == 1:
        return "ENDIF", ""
    return "", line


def condition_word(line: str) -> str:
    """IF, ELSEIF, ELSE or ENDIF when ``line`` is one of a block's condition lines, else ''
    (an order line, or a variant's own one-line conditional order)."""
    return _head(line)[0]


def _strip_then(text: str) -> str:
    words = text.split()
    if words and words[-1].upper() == "THEN":
        words = words[:-1]
    return " ".join(words)


def parse_block(lines: list[str], board: Board, power: str, current: Phase, *,
                kinds: str = "MRA", visible: Visibility | None = None) -> Block:
    """Read one PHASE block (``lines[0]`` the PHASE line) for ``power`` while the game is in
    ``current``. Every line that cannot be used becomes a :class:`Bad` (or the IF's
    ``error``) with its reason; a PHASE line that cannot be read refuses the block."""
    header = lines[0].strip()
    block = Block(header, None)
    try:
        block.target = read_phase(header, current)
        check_target(block.target, current, kinds)
    except AheadError as exc:
        block.error = str(exc)
        block.items = [Bad(t, "not used: the PHASE line above cannot be used")
                       for t in (x.strip() for x in lines[1:]) if t]
        return block
    kind = block.target.kind
    body = [x.strip() for x in lines[1:] if x.strip()]
    if len(body) > MAX_BLOCK_LINES:
        block.error = f"a PHASE block may hold at most {MAX_BLOCK_LINES} lines; this one " \
                      f"holds {len(body)}"
        return block
    stack: list[tuple[If, list[Item]]] = []  # open IFs and where each sits
    items = block.items

    def target_list() -> list[Item]:
        return stack[-1][0].branches[-1].items if stack else items

    for text in body:
        if len(text) > MAX_LINE:
            # kept whole (shown cut): stored cut, an IF would read back as another IF
            target_list().append(Bad(text, f"longer than {MAX_LINE} characters"))
            continue
        word, rest = _head(text)
        if word == "IF":
            if len(stack) >= MAX_DEPTH:
                target_list().append(Bad(text, f"IFs nest at most {MAX_DEPTH} deep"))
                continue
            node = If([Branch(text, None)])
            try:
                node.branches[0].condition = read_condition(board, power, _strip_then(rest),
                                                            kind, visible)
            except AheadError as exc:
                node.error = str(exc)
            target_list().append(node)
            stack.append((node, target_list()))
        elif word in ("ELSEIF", "ELSE"):
            if not stack:
                target_list().append(Bad(text, f"{'ELSE IF' if word == 'ELSEIF' else 'ELSE'} "
                                               "with no IF before it"))
                continue
            node = stack[-1][0]
            if node.branches[-1].condition is None and len(node.branches) > 1:
                target_list().append(Bad(text, "this IF already had its ELSE"))
                continue
            branch = Branch(text, None)
            if word == "ELSEIF":
                try:
                    branch.condition = read_condition(board, power, _strip_then(rest), kind,
                                                      visible)
                except AheadError as exc:
                    node.error = node.error or f"{text}: {exc}"
                    branch.condition = None
            node.branches.append(branch)
        elif word == "ENDIF":
            if not stack:
                target_list().append(Bad(text, "ENDIF with no IF before it"))
                continue
            stack.pop()[0].closed = True
        else:
            target_list().append(Line(text))
    return block


# --------------------------------------------------------------- evaluating
@dataclass(slots=True)
class Chosen:
    """What a block gives when its phase starts: the order lines that stand, the lines
    dropped (``(line, reason)``), and which way each IF went (``(IF line, taken)``)."""

    lines: list[str] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    trace: list[tuple[str, bool]] = field(default_factory=list)


def _choose(items: list[Item], position: Position, out: Chosen) -> None:
    for item in items:
        if isinstance(item, Line):
            out.lines.append(item.text)
        elif isinstance(item, Bad):
            out.dropped.append((item.shown, item.reason))
        else:
            if item.error:
                out.dropped.append((item.branches[0].head, item.error))
                for b in item.branches:
                    out.dropped.extend((t, "not used: the IF above it cannot be read")
                                       for t in _written(b.items))
                continue
            for k, b in enumerate(item.branches):
                is_else = b.condition is None and k > 0
                taken = is_else or (b.condition is not None and b.condition.holds(position))
                if not is_else:
                    out.trace.append((b.head, taken))
                if taken:
                    _choose(b.items, position, out)
                    break


def evaluate(block: Block, position: Position, power: str, variant: Any = None) -> Chosen:
    """The orders of ``block`` that stand at the start of its phase (``position``). With a
    ``variant`` (:class:`~judge.engine.variant.Variant`), each chosen line is read as an
    order of ``power`` there, and a line that no longer reads is dropped with the reason."""
    out = Chosen()
    if block.error:
        out.dropped.append((block.header, block.error))
        return out
    _choose(block.items, position, out)
    if variant is not None:
        kept: list[str] = []
        for line, read in zip(out.lines, variant.read_orders(position, power, out.lines),
                              strict=True):
            if read.order is None:
                out.dropped.append((line, read.error or "cannot read this order"))
            else:
                kept.append(line)
        out.lines = kept
    return out
