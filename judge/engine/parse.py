"""Reading one order line, as a player writes it, into an order value.

:func:`parse_order` reads syntax and names only. It does not look at the position: whether a
unit stands there, whether it can reach, whether it is yours, is for the variant's rules
(``Rules.read_order``, e.g. :meth:`judge.variants.standard.rules.StandardRules.check`). A line it cannot read raises
:class:`~judge.engine.errors.OrderSyntaxError` whose message names the word at fault
(``unknown place 'Paaris'``, ``no destination after '-'``).

Everything is case-insensitive. Places are written as the map's abbreviation (``STP``), full name (``St Petersburg``, ``Saint Petersburg``, ``St. Petersburg``)
or one of its other spellings (``Leningrad``, ``mid-atlantic``, ``Gulf of Lyons``). The words of
a name are matched greedily: the longest run of words the map knows wins.

Units
    ``A PAR``, ``Army Paris``, ``F NTH``, ``Fleet North Sea``; the type may be left out
    (``PAR - BUR``), and the order then names the unit by place only.

Coasts, after any place (the unit, a destination, a supported unit, a build)
    ``STP/NC``, ``STP/N``, ``STP(nc)``, ``STP (n)``, ``STP nc``, ``STP north coast``,
    ``STP (north coast)``, ``STP north``, ``STP N``, ``St Petersburg (north coast)``, and alike
    for ``sc``/``ec``/``wc``, south, east and west. A bare ``S`` after a split-coast province is
    the south coast only when what follows cannot be read as a supported unit. A coast the
    province does not have is an error, and so is a coast on a province without coasts. A
    coast is kept even on an army (``A GAS - SPA/NC``); the validator ignores it (DATC 4.B.6).

Movement phase (``M``)
    * hold: ``A PAR``, ``A PAR H``, ``A PAR hold``, ``holds``, ``stand``, ``stands``
    * move: ``A PAR - BUR``, ``->``, ``=>``, ``>``, ``to``, ``m``, ``move``, ``moves``,
      ``move to``, ``moves to``, ``moving to``, ``into``, ``attacks``; the operator may be
      left out: ``A PAR BUR``
    * convoyed move: ``A LON - BEL via``, ``via convoy``, ``by convoy``, ``(via convoy)``,
      ``convoy``, ``convoyed``; with the route: ``A LON - NTH - BEL``, ``A LON - ENG - NTH - BEL``
      or ``A LON - BEL via NTH``
    * support to hold: ``A TYR S A VEN``, ``A TYR S VEN``, ``A TYR S A VEN H``,
      ``A TYR supports A VEN holds``, ``A TYR S A VEN to hold``
    * support to move: ``A TYR S A VEN - TRI``, ``A TYR supports VEN to TRI``
      (any move operator; a trailing ``via convoy`` is allowed and ignored)
    * convoy: ``F NTH C A LON - BEL``, ``F NTH convoys A LON to BEL``, ``F NTH C LON BEL``

Retreat phase (``R``)
    * retreat: ``F TRI R ALB``, ``F TRI retreat(s) (to) ALB``, or any move form: ``F TRI - ALB``
    * disband: ``F TRI D``, ``F TRI disband(s)``, ``disband F TRI``, ``D F TRI``,
      ``remove F TRI``
    * hold, support and convoy lines read as in the movement phase (the validator refuses them)

Adjustment phase (``A``)
    * build: ``BUILD A PAR``, ``build army paris``, ``B F STP/NC``, ``A PAR B``,
      ``A PAR build(s)``, ``F STP(nc) B``; the unit type is required
    * remove: ``REMOVE A PAR``, ``A PAR remove(s)``, ``disband A PAR``, ``D A PAR``,
      ``A PAR D``, ``A PAR disband(s)``
    * waive: ``WAIVE``, ``W``, ``waive build``, ``build waive``, ``waive 1``

Support, convoy, move and hold lines read in every phase; builds, removals, disbands, waives
and retreats only in their own phase (``A PAR B`` in spring is an error: ``builds are made in
the adjustment (Winter) phase``).

Noise that is ignored: extra spaces, a trailing ``.``, and ``,`` ``;`` ``!`` anywhere, a
leading bullet (``-``, ``*``, ``>``) or number (``1.``, ``2)``), and a power prefix naming one of
the board's powers: ``England: A LON H``, ``ENG: A LON H`` (with a colon any unique prefix of
three letters or more), ``ENGLAND A LON H`` (without one, the full name).
"""

from __future__ import annotations

import difflib
import re
import weakref
from dataclasses import dataclass
from typing import NamedTuple

from judge.engine.board import Board, Province, normalise_name, province_of
from judge.engine.errors import OrderSyntaxError
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    UnitRef,
    Waive,
)

__all__ = ["parse_location", "parse_order", "parse_unit"]

PHASE_KINDS = ("M", "R", "A")

# ------------------------------------------------------------------- vocabulary
# Keys are normalised like place names: lower case, letters and digits only ("S." -> "s").
_KINDS: dict[str, str] = {"a": "A", "army": "A", "f": "F", "fleet": "F"}
_HOLD = frozenset({"h", "hold", "holds", "holding", "stand", "stands"})
_MOVE = frozenset({"to", "m", "move", "moves", "moving", "into", "attack", "attacks"})
_SUPPORT = frozenset({"s", "support", "supports"})
_CONVOY = frozenset({"c", "convoy", "convoys"})
_RETREAT = frozenset({"r", "retreat", "retreats"})
_DISBAND = frozenset({"d", "disband", "disbands"})
_REMOVE = frozenset({"remove", "removes"})
_BUILD = frozenset({"b", "build", "builds"})
_WAIVE = frozenset({"w", "waive", "waives", "waived"})
_VIA_WORDS = frozenset({"via", "by"})
_CONVOY_NOUNS = frozenset({"convoy", "c", "sea"})
_BARE_VIA = frozenset({"convoy", "convoyed"})
# Words that end a place name: a name never runs into an order word.
_STOP = frozenset(
    _KINDS.keys() | _HOLD | _MOVE | _SUPPORT | _CONVOY | _RETREAT | _DISBAND | _REMOVE | _BUILD
    | _WAIVE | _VIA_WORDS | _BARE_VIA
)
_NOT_COAST = _VIA_WORDS | _BARE_VIA  # "(via convoy)" after a place is not a coast
_MAX_NAME_WORDS = 6

_DIRECTIONS = {"n": "north", "s": "south", "e": "east", "w": "west"}
# Written coast (normalised) -> coast suffix: "n", "nc", "north", "northcoast", "northern", ...
_COASTS: dict[str, str] = {}
for _letter, _word in _DIRECTIONS.items():
    _suffix = f"{_letter.upper()}C"
    for _form in (_letter, _letter + "c", _word, _word + "ern", _letter + "coast", _word + "coast",
                  _word + "erncoast"):
        _COASTS[_form] = _suffix
_SINGLE_LETTER_COASTS = frozenset(_DIRECTIONS)
_COAST_WORDS = frozenset({"coast", "cst"})
_SUFFIX_NAMES = {f"{k.upper()}C": v for k, v in _DIRECTIONS.items()}

_LEAD_RE = re.compile(r"^\s*(?:[-*•·>]+\s*|\(?\d{1,3}[.):]\s*|\d{1,3}\s+)?")
_TOKEN_RE = re.compile(
    r"(?P<arrow>-->|->|=>|→|⇒|[-–—>])"
    r"|(?P<punct>[/()])"
    r"|(?P<colon>:)"
    r"|(?P<skip>[,;!.\"'?‘’“”])"
    r"|(?P<word>[^\W_][\w'’.]*)"
    r"|(?P<bad>\S)"
)


_NOT_KEY_RE = re.compile(r"[^a-z0-9]")


def _key(word: str) -> str:
    """``normalise_name``, with a fast path for the plain words most tokens are."""
    if word.isascii() and word.isalnum():
        return word.lower()
    return _NOT_KEY_RE.sub("", word.lower())


class _Tok(NamedTuple):
    text: str  # as written
    key: str  # normalised word, or "-", "/", "(", ")", ":" for punctuation
    word: bool
    start: int
    end: int
    tight: bool = False  # a hyphen with a word right on both sides: may join a name


@dataclass(frozen=True, slots=True)
class _BoardInfo:
    """What parsing needs from a board beyond ``lookup``, worked out once per board."""

    power_names: dict[str, str]  # normalised full name -> power
    power_prefixes: dict[str, str]  # full names and unique prefixes (3+ letters) -> power
    coast_lists: dict[str, str]  # province -> "north, south"


_INFO: weakref.WeakKeyDictionary[Board, _BoardInfo] = weakref.WeakKeyDictionary()


def _info(board: Board) -> _BoardInfo:
    info = _INFO.get(board)
    if info is None:
        names = {normalise_name(p): p for p in board.powers}
        prefixes: dict[str, str] = {}
        ambiguous: set[str] = set()
        for key, power in names.items():
            for n in range(3, len(key)):
                pre = key[:n]
                if pre in prefixes and prefixes[pre] != power:
                    ambiguous.add(pre)
                prefixes[pre] = power
        for pre in ambiguous:
            del prefixes[pre]
        prefixes.update(names)
        coast_lists = {
            abbrev: ", ".join(_coast_word(c) for c in p.coasts)
            for abbrev, p in board.provinces.items()
            if p.coasts
        }
        info = _BoardInfo(names, prefixes, coast_lists)
        _INFO[board] = info
    return info


def _coast_word(location: str) -> str:
    suffix = location[location.find("/") + 1 :]
    return _SUFFIX_NAMES.get(suffix, suffix.lower())


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _TOKEN_RE.finditer(text):
        group = m.lastgroup
        s = m.group()
        if group == "word":
            toks.append(_Tok(s, _key(s), True, m.start(), m.end()))
        elif group == "arrow":
            toks.append(_Tok(s, "-", False, m.start(), m.end()))
        elif group in ("punct", "colon"):
            toks.append(_Tok(s, s, False, m.start(), m.end()))
        elif group == "bad":
            raise OrderSyntaxError(f"unexpected character '{s}'")
    # A hyphen glued to words on both sides ("mid-atlantic", "PAR-BUR") may be part of a name.
    for j in range(1, len(toks) - 1):
        t = toks[j]
        if (t.text == "-" and toks[j - 1].word and toks[j + 1].word
                and toks[j - 1].end == t.start and t.end == toks[j + 1].start):
            toks[j] = t._replace(tight=True)
    return toks


# ----------------------------------------------------------------------- reader
class _Reader:
    __slots__ = ("board", "n", "phase", "src", "toks")

    def __init__(self, board: Board, src: str, toks: list[_Tok], phase: str) -> None:
        self.board = board
        self.src = src
        self.toks = toks
        self.n = len(toks)
        self.phase = phase

    # ------------------------------------------------------------ helpers
    def key(self, i: int) -> str | None:
        """The normalised word at ``i``, or None (end of line or punctuation)."""
        if i < self.n and self.toks[i].word:
            return self.toks[i].key
        return None

    def span(self, i: int, j: int) -> str:
        """The text as written from token ``i`` to token ``j - 1``."""
        return self.src[self.toks[i].start : self.toks[j - 1].end]

    def is_move(self, i: int) -> bool:
        if i >= self.n:
            return False
        t = self.toks[i]
        return t.key == "-" or (t.word and t.key in _MOVE)

    def skip_move(self, i: int) -> int:
        """Past a move operator and an optional ``to`` after it (``moves to``, ``-> to``)."""
        first = self.toks[i].key
        i += 1
        if first != "to" and self.key(i) == "to":
            i += 1
        return i

    def end(self, i: int) -> None:
        if i < self.n:
            raise self.leftover(i)

    def leftover(self, i: int) -> OrderSyntaxError:
        rest = self.src[self.toks[i].start : self.toks[-1].end]
        return OrderSyntaxError(f"unexpected '{rest}' at the end of the order")

    def name_run(self, i: int) -> list[int]:
        """The token ends of every run of words from ``i`` that could be one name, shortest first."""
        toks, n = self.toks, self.n
        ends = [i + 1]
        j = i + 1
        while j < n and len(ends) < _MAX_NAME_WORDS:
            t = toks[j]
            if t.word and t.key not in _STOP:
                j += 1
            elif t.tight and toks[j + 1].key not in _STOP:
                j += 2
            else:
                break
            ends.append(j)
        return ends

    def unknown_end(self, i: int) -> int:
        """Where the unknown name at ``i`` ends: before an order word or a known place."""
        end = i + 1
        for nxt in self.name_run(i)[1:]:
            word = end + 1 if self.toks[end].key == "-" else end  # "Paaris-Burgundy"
            if self.place_at(word) is not None:
                break
            end = nxt
        return end

    def place_at(self, i: int) -> tuple[str, int] | None:
        """The longest place name starting at token ``i``: (location, index after it)."""
        if i >= self.n or not self.toks[i].word:
            return None
        toks = self.toks
        # Keys are normalised already, so the alias table answers as board.lookup() would.
        aliases = self.board.aliases
        for end in reversed(self.name_run(i)):
            loc = aliases.get("".join(t.key for t in toks[i:end] if t.word))
            if loc is not None:
                return loc, end
        return None

    # ------------------------------------------------------------ places
    def location(self, i: int, after: str | None, what: str) -> tuple[str, int]:
        """A place and its coast at ``i``; ``after`` is the text before, for messages."""
        if i >= self.n or not self.toks[i].word:
            if after is None:
                raise OrderSyntaxError(f"no {what}" if i >= self.n else
                                       f"expected a {what}, not '{self.toks[i].text}'")
            if i >= self.n:
                raise OrderSyntaxError(f"no {what} after '{after}'")
            raise OrderSyntaxError(
                f"expected a {what} after '{after}', not '{self.toks[i].text}'")
        found = self.place_at(i)
        if found is None:
            t = self.toks[i]
            if t.key in _STOP:
                where = f" after '{after}'" if after else ""
                raise OrderSyntaxError(f"expected a {what}{where}, not '{t.text}'")
            written = self.span(i, self.unknown_end(i))
            near = near_place(self.board, written)
            hint = f" (did you mean {near}?)" if near else ""
            raise OrderSyntaxError(f"unknown place '{written}'{hint}")
        loc, i = found
        if "/" in loc:
            return loc, i
        return self.coast(i, loc)

    def coast(self, i: int, prov: str) -> tuple[str, int]:
        """A coast written after province ``prov`` at ``i``, if there is one."""
        if i >= self.n:
            return prov, i
        toks = self.toks
        p = self.board.provinces[prov]
        t = toks[i]
        if t.key == "/":
            j = i + 1
            if self.key(j) is None:
                raise OrderSyntaxError("no coast after '/'")
            end = j + 1
            if self.key(end) in _COAST_WORDS:
                end += 1
            return self.coast_of(p, j, end), end
        if t.key == "(":
            j = i + 1
            while j < self.n and toks[j].word and j - i <= 3:
                j += 1
            if j == i + 1 or toks[i + 1].key in _NOT_COAST:
                return prov, i  # "(via convoy)" and the like: not a coast
            if not p.coasts and "".join(t.key for t in toks[i + 1 : j]) not in _COASTS:
                return prov, i  # "(attack!)": a remark, not a coast
            loc = self.coast_of(p, i + 1, j)
            if j < self.n and toks[j].key == ")":
                j += 1
            return loc, j
        if not t.word:
            return prov, i
        k = t.key
        if k in _SINGLE_LETTER_COASTS:
            if not p.coasts:
                return prov, i
            if k == "s" and not self.south_coast_s(i):
                return prov, i
        elif k not in _COASTS:
            return prov, i
        if (run := self.place_at(i)) is not None and run[1] > i + 1:
            return prov, i  # "North Sea", "West Med": a place, not a coast
        end = i + 1
        if self.key(end) in _COAST_WORDS:
            end += 1
        return self.coast_of(p, i, end), end

    def south_coast_s(self, i: int) -> bool:
        """Whether a bare ``S`` at ``i`` after a split-coast province is the south coast."""
        j = i + 1
        if j >= self.n or not self.toks[j].word:
            return True
        k = self.toks[j].key
        if k in _KINDS:
            return False
        if k in _STOP or k in _COAST_WORDS:
            return True
        return self.place_at(j) is None

    def coast_of(self, p: Province, i: int, j: int) -> str:
        """The coast of ``p`` that tokens ``i:j`` name, or an error naming the coasts it has."""
        written = self.span(i, j)
        if not p.coasts:
            raise OrderSyntaxError(f"{p.name} has no coasts")
        key = "".join(t.key for t in self.toks[i:j] if t.word)
        suffix = _COASTS.get(key, key.upper())
        loc = f"{p.abbrev}/{suffix}"
        if loc in p.coasts:
            return loc
        coasts = _info(self.board).coast_lists[p.abbrev]
        raise OrderSyntaxError(f"coast '{written}' does not exist in {p.name} (coasts: {coasts})")

    def unit(self, i: int, after: str | None, what: str = "unit") -> tuple[UnitRef, int]:
        kind = None
        k = self.key(i)
        if k in _KINDS:
            kind = _KINDS[k]
            after = self.toks[i].text
            what = "place"
            i += 1
        loc, i = self.location(i, after, what)
        return UnitRef(kind, loc), i

    # ------------------------------------------------------------ orders
    def order(self) -> Order:
        k = self.key(0)
        if self.is_waive():
            return self.waive()
        if k in _BUILD:
            self.require_build()
            unit, i = self.unit(1, self.toks[0].text)
            self.end(i)
            return self.build(unit)
        if k in _DISBAND or k in _REMOVE:
            self.require_disband()
            unit, i = self.unit(1, self.toks[0].text)
            self.end(i)
            return self.disband(unit)
        unit, i = self.unit(0, None)
        return self.action(unit, i)

    def action(self, unit: UnitRef, i: int) -> Order:
        if i >= self.n:
            if self.phase == "M":
                return Hold(unit)
            expected = "retreat or disband" if self.phase == "R" else "build or remove"
            raise OrderSyntaxError(f"no order for {unit}: expected {expected}")
        t = self.toks[i]
        k = t.key if t.word else None
        if k in _HOLD:
            self.end(i + 1)
            return Hold(unit)
        if self.is_move(i):
            return self.move(unit, i)
        if k in _SUPPORT:
            return self.support(unit, i)
        if k in _CONVOY:
            return self.convoy(unit, i)
        if k in _RETREAT:
            if self.phase != "R":
                raise OrderSyntaxError("retreats are made in the retreat phase")
            j = i + 1
            if self.key(j) == "to":
                j += 1
            dest, j = self.location(j, self.span(i, j), "destination")
            self.end(j)
            return Retreat(unit, dest)
        if k in _DISBAND or k in _REMOVE:
            self.require_disband()
            self.end(i + 1)
            return self.disband(unit)
        if k in _BUILD:
            self.require_build()
            self.end(i + 1)
            return self.build(unit)
        if k is not None and k not in _STOP and self.place_at(i) is not None:
            return self.move(unit, i)  # "A PAR BUR": the operator left out
        if self.phase == "M":
            expected = "hold, move, support or convoy"
        elif self.phase == "R":
            expected = "retreat or disband"
        else:
            expected = "build or remove"
        raise OrderSyntaxError(f"'{t.text}' is not an order: expected {expected}")

    def destination(self, i: int) -> tuple[str, int]:
        """A move operator (which may be left out) and the place after it."""
        if self.is_move(i):
            j = self.skip_move(i)
            return self.location(j, self.span(i, j), "destination")
        return self.location(i, None, "destination")

    def move(self, unit: UnitRef, i: int) -> Order:
        dest, i = self.destination(i)
        route: list[str] = []
        while self.is_move(i):
            route.append(province_of(dest))
            dest, i = self.destination(i)
        via, extra, i = self.via(i)
        self.end(i)
        if self.phase == "R":
            if via or route:
                raise OrderSyntaxError("a retreat cannot go by convoy")
            return Retreat(unit, dest)
        route.extend(extra)
        return Move(unit, dest, via_convoy=via or bool(route), route=tuple(route))

    def via(self, i: int) -> tuple[bool, list[str], int]:
        """An optional ``via convoy`` (or ``via NTH ENG``, a route) at ``i``."""
        start = i
        paren = i < self.n and self.toks[i].key == "("
        if paren:
            i += 1
        k = self.key(i)
        route: list[str] = []
        if k in _BARE_VIA:
            i += 1
        elif k in _VIA_WORDS:
            word = self.toks[i].text
            i += 1
            nk = self.key(i)
            if nk in _CONVOY_NOUNS:
                i += 1
            elif k == "by":
                raise OrderSyntaxError(f"expected 'convoy' after '{word}'")
            elif nk is not None:
                while i < self.n and self.toks[i].key != ")":
                    if self.toks[i].key == "-" or self.key(i) == "and":
                        i += 1
                        continue
                    loc, i = self.location(i, word, "place")
                    route.append(province_of(loc))
        else:
            return False, route, start
        if paren and i < self.n and self.toks[i].key == ")":
            i += 1
        return True, route, i

    def nationality(self, i: int) -> tuple[int, str | None]:
        """Past a power's name or adjective written before a supported or convoyed unit
        (``S French A PAR - BUR``, ``C England: A LON - NWY``), as standard rules write
        another power's unit; returns where the unit starts and the power named, which the
        variant's rules check against the unit there as far as the player may know it (a
        hidden game does not answer whose unit stands there). A place that starts with
        such a word (``English Channel``) stays the place. A word that is neither, before a
        unit's type, is refused saying how a power is written (the same for every such
        word: a Gunboat pseudonym confirms no one)."""
        k = self.key(i)
        if k is None or i + 1 >= self.n:
            return i, None
        power = _power_word(self.board, k)
        if power is not None:
            if self.key(i + 1) in _KINDS or (
                    self.place_at(i) is None and self.place_at(i + 1) is not None):
                return i + 1, power
            return i, None
        if self.key(i + 1) in _KINDS and k not in _STOP and self.place_at(i) is None:
            example = self.board.powers[0].title() if self.board.powers else "its name"
            raise OrderSyntaxError(
                f"unknown place '{self.toks[i].text}' (a unit's power is written as its name "
                f"or adjective, such as {example}, or left out)")
        return i, None

    def named_unit(self, i: int, after: str) -> tuple[UnitRef, int]:
        """A supported or convoyed unit at ``i``, with the power written before it if any."""
        i, power = self.nationality(i)
        target, i = self.unit(i, after)
        return (UnitRef(target.kind, target.location, power=power) if power else target), i

    def support(self, unit: UnitRef, i: int) -> Order:
        word = self.toks[i].text
        if i + 1 >= self.n:
            raise OrderSyntaxError(f"no unit to support after '{word}'")
        target, i = self.named_unit(i + 1, word)
        if i >= self.n:
            return SupportHold(unit, target)
        k = self.key(i)
        if k in _HOLD:
            self.end(i + 1)
            return SupportHold(unit, target)
        if k == "to" and self.key(i + 1) in _HOLD:
            self.end(i + 2)
            return SupportHold(unit, target)
        if self.is_move(i) or (k is not None and k not in _STOP and self.place_at(i)):
            dest, i = self.destination(i)
            _, _, i = self.via(i)
            self.end(i)
            return SupportMove(unit, target, dest)
        raise self.leftover(i)

    def convoy(self, unit: UnitRef, i: int) -> Order:
        word = self.toks[i].text
        if i + 1 >= self.n:
            raise OrderSyntaxError(f"no army to convoy after '{word}'")
        target, i = self.named_unit(i + 1, word)
        k = self.key(i)
        if self.is_move(i) or (k is not None and k not in _STOP and self.place_at(i)):
            dest, i = self.destination(i)
            _, _, i = self.via(i)
            self.end(i)
            return Convoy(unit, target, dest)
        if i >= self.n:
            raise OrderSyntaxError(f"no destination for the convoy of {target}: "
                                   f"write '{word} {target} - <place>'")
        raise self.leftover(i)

    # ------------------------------------------------------- adjustments
    def require_build(self) -> None:
        if self.phase != "A":
            raise OrderSyntaxError("builds are made in the adjustment (Winter) phase")

    def require_disband(self) -> None:
        if self.phase == "M":
            raise OrderSyntaxError(
                "disbands are made in the retreat or adjustment (Winter) phase")

    def build(self, unit: UnitRef) -> Order:
        if unit.kind is None:
            name = self.board.full_name(unit.location)
            raise OrderSyntaxError(f"say what to build in {name}: A (army) or F (fleet)")
        return Build(unit)

    def disband(self, unit: UnitRef) -> Order:
        return Disband(unit) if self.phase == "R" else Remove(unit)

    def is_waive(self) -> bool:
        """Whether the whole line is a waive: ``W``, ``WAIVE``, ``waive build``, ``waive 1``."""
        seen = False
        for t in self.toks:
            if not t.word:
                return False
            if t.key in _WAIVE:
                seen = True
            elif t.key not in _BUILD and not t.key.isdigit() and t.key != "one":
                return False
        return seen

    def waive(self) -> Order:
        if self.phase != "A":
            raise OrderSyntaxError("waives are made in the adjustment (Winter) phase")
        for t in self.toks:
            if t.key.isdigit() and int(t.key) != 1:
                raise OrderSyntaxError(
                    f"one waive per line: write WAIVE on {t.key} lines, not 'WAIVE {t.text}'")
        return Waive()


_COUNTED = re.compile(r"\d{1,2}(?:a|f|army|armies|fleet|fleets)")
_ADJECTIVE_ENDINGS = ("ish", "ian", "ean", "an", "ch", "ese", "ic")


def _power_word(board: Board, key: str) -> str | None:
    """The power a normalised word names: its full name, a unique prefix of three letters
    or more (``Fra``), or its adjective (``French``, ``Turkish``, ``Scandinavian``: an
    adjective's ending on the first two letters of exactly one power's name)."""
    info = _info(board)
    if key in info.power_prefixes:
        return info.power_prefixes[key]
    if len(key) < 4 or not key.isalpha() or not key.endswith(_ADJECTIVE_ENDINGS):
        return None
    hits = [p for name, p in info.power_names.items() if name[:2] == key[:2]]
    return hits[0] if len(hits) == 1 else None


# --------------------------------------------------------------------- entry points
def near_place(board: Board, written: str) -> str | None:
    """The place a mistyped name most likely meant, as the player would write it: an
    abbreviation for a short word (``BLE`` -> ``BEL``: the same letters first), the full
    name for a longer one (``Tryol`` -> ``Tyrolia``); None when nothing is close."""
    key = _key(written)
    if len(key) < 3 or len(key) > 40:
        return None
    if len(key) <= 3:
        abbrevs = {normalise_name(a): a for a in board.provinces}
        same = sorted(a for k, a in abbrevs.items() if sorted(k) == sorted(key))
        if len(same) == 1:
            return same[0]
        close = difflib.get_close_matches(key, list(abbrevs), n=2, cutoff=0.6)
        return abbrevs[close[0]] if len(close) == 1 else None
    close = difflib.get_close_matches(key, list(board.aliases), n=1, cutoff=0.75)
    if not close:
        return None
    return board.provinces[province_of(board.aliases[close[0]])].name


def _strip_power(board: Board, src: str, toks: list[_Tok]) -> tuple[list[_Tok], str | None]:
    """Drop a leading power prefix (``England:``, ``ENG:``, ``ENGLAND``); return what it was."""
    info = _info(board)
    prefix = None
    for j in range(1, min(len(toks), 5)):
        if toks[j].key == ":":
            if all(t.word for t in toks[:j]):
                key = "".join(t.key for t in toks[:j])
                if key in info.power_prefixes:
                    prefix = src[toks[0].start : toks[j].end]
                    toks = toks[j + 1 :]
            break
    else:
        for j in range(1, min(len(toks), 4)):
            if not toks[j - 1].word:
                break
            key = "".join(t.key for t in toks[:j])
            if key in info.power_names and board.lookup(key) is None:
                prefix = src[toks[0].start : toks[j - 1].end]
                toks = toks[j:]
                break
    return [t for t in toks if t.key != ":"], prefix


def parse_order(board: Board, text: str, phase_kind: str = "M") -> Order:
    """Read one order line in player syntax; see the module docstring for the forms.

    ``phase_kind`` is ``"M"`` (movement), ``"R"`` (retreats) or ``"A"`` (adjustments). Raises
    :class:`OrderSyntaxError` with a specific message when the line cannot be read.
    """
    if phase_kind not in PHASE_KINDS:
        raise ValueError(f"phase_kind must be one of {PHASE_KINDS}, not {phase_kind!r}")
    src = _LEAD_RE.sub("", text, count=1)
    toks = _tokenize(src)
    toks, prefix = _strip_power(board, src, toks)
    if not toks:
        raise OrderSyntaxError(f"no order after '{prefix}'" if prefix else "empty order")
    return _Reader(board, src, toks, phase_kind).order()


def leading_unit(board: Board, text: str, phase_kind: str = "M") -> str | None:
    """The location of the unit an order line starts with (after a bullet, a power prefix
    and a ``BUILD``/``REMOVE``/``DISBAND`` word), read as far as it reads: ``MUN`` for
    ``A MUN - Tryol``, ``WAR`` for ``2A WAR - Ukrx`` (a count before the unit's type, as a
    variant that stacks units writes it); None when the line starts with no place."""
    src = _LEAD_RE.sub("", text, count=1)
    # as far as it reads: a character no order has (a minus sign U+2212 for the hyphen, a
    # thumbs-up) ends it
    bad = next((m.start() for m in _TOKEN_RE.finditer(src) if m.lastgroup == "bad"), None)
    src = src if bad is None else src[:bad]
    try:
        toks, _ = _strip_power(board, src, _tokenize(src))
        if not toks:
            return None
        reader = _Reader(board, src, toks, phase_kind)
        first = reader.key(0)
        skip = 1 if first in _BUILD or first in _DISBAND or first in _REMOVE else 0
        if _COUNTED.fullmatch(reader.key(skip) or ""):  # "2A WAR": a count, then the type
            skip += 1
        unit, _ = reader.unit(skip, None)
    except OrderSyntaxError:
        return None
    return unit.location


def parse_unit(board: Board, text: str) -> UnitRef:
    """Read a unit: ``A PAR``, ``Fleet St Petersburg (south coast)``, ``F STP/SC``, ``Paris``."""
    src = text.strip()
    toks = [t for t in _tokenize(src) if t.key != ":"]
    reader = _Reader(board, src, toks, "M")
    unit, i = reader.unit(0, None)
    reader.end(i)
    return unit


def is_coast(text: str) -> bool:
    """Whether ``text`` is a coast as orders write it after a place (``sc``, ``south``,
    ``south coast``, ``S``): what a bracket after a place may hold."""
    key = _key(text)
    for word in _COAST_WORDS:
        if key.endswith(word) and key != word:
            key = key[: -len(word)]
            break
    return key in _COASTS


def place_words(board: Board, text: str) -> list[tuple[str, str | None]]:
    """``text`` read word by word as orders read places: each run of words naming a place,
    with a coast written after it (``St Petersburg (south coast)``, ``StP/sc``, ``STP sc``),
    is one item ``(as written, location)``; any other word is ``(word, None)``. Raises
    :class:`OrderSyntaxError` for a coast the place does not have, as an order would."""
    src = text.strip()
    toks = [t for t in _tokenize(src) if t.key != ":"]
    reader = _Reader(board, src, toks, "M")
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < reader.n:
        found = reader.place_at(i)
        if found is None:
            out.append((toks[i].text, None))
            i += 1
            continue
        loc, j = found
        if "/" not in loc:
            loc, j = reader.coast(j, loc)
        out.append((reader.span(i, j), loc))
        i = j
    return out


def parse_location(board: Board, text: str) -> str:
    """Read a place with an optional coast: ``St Petersburg (nc)`` -> ``STP/NC``."""
    src = text.strip()
    toks = [t for t in _tokenize(src) if t.key != ":"]
    reader = _Reader(board, src, toks, "M")
    loc, i = reader.location(0, None, "place")
    reader.end(i)
    return loc
