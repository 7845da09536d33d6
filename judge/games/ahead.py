"""Orders sent ahead in a game: PHASE blocks kept until their phase, listed in replies under
"Pending orders", and made the power's orders when the phase starts.

Reading blocks and deciding their conditions is :mod:`judge.engine.ahead`'s (pure); here they
meet the store and the game's flow: a flow with hidden movement lets a condition test only the
player's own units and centres, and a flow's ``ahead_kinds`` says which phases take orders
ahead. :mod:`judge.games.game` calls :func:`take_due` when a phase begins and submits what
stands through ``submit_orders``, so the phase's orders are stored however that stores them.

A block taken when its phase begins is kept, marked with that phase, rather than deleted:
ROLLBACK to an earlier phase makes it pending again (:func:`restore`), as the player sent
it, to be decided again when its phase starts again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge.engine import ahead as A
from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.position import Phase, Position
from judge.games.flow import GameFlow, flow_of
from judge.games.settings import zone
from judge.games.turn import Activation
from judge.storage import Store
from judge.variants import get_variant

if TYPE_CHECKING:
    from judge.mail.outbox import Outbox

PENDING_TEMPLATE = "_pending.txt.j2"
NOTICE_TEMPLATE = "notices/ahead.txt.j2"


def _reading(game: dict) -> tuple[str, A.Visibility | None]:
    """(phase kinds taking orders ahead, visibility rule) of the game's flow."""
    flow = flow_of(game["variant"])
    return getattr(flow, "ahead_kinds", "MRA"), (A.own_only if flow.hidden else None)


def _blocks(s: Store, game: dict, power: str | None = None) -> tuple[list[dict], list[dict]]:
    """(the stored blocks of the powers' present players, the blocks of players since
    replaced): a block is its sender's, never a later player's (a takeover starts clean)."""
    present = _present(s, game)
    rows = s.pending_blocks(game["id"], power)
    mine = [r for r in rows if present(r)]
    return mine, [r for r in rows if r not in mine]


def _present(s: Store, game: dict) -> Callable[[dict], bool]:
    """Whether a stored block was sent by its power's present player."""
    joined = {p["power"]: p["joined"] for p in s.players(game["id"])}
    return lambda r: r["power"] in joined and r["updated"] >= joined[r["power"]]


def _read(game: dict, pos: Position, power: str, lines: list[str]) -> A.Block:
    """A stored or sent block read for ``power`` in the phase of ``pos``; an order line that
    cannot be read as an order at all (a typo, an unknown place) is marked now, not when its
    phase comes."""
    kinds, visible = _reading(game)
    variant = get_variant(game["variant"])
    block = A.parse_block(lines, variant.board, power, pos.phase, kinds=kinds, visible=visible)
    target = block.target
    # a flow that reads orders its own way (Stab!'s IF DISLODGED) is left to read them then
    if target is None or block.error or type(flow_of(game["variant"])).read_lines is not \
            GameFlow.read_lines:
        return block
    there = pos.following(list(pos.units), phase=type(pos.phase)(target.season, target.year,
                                                                  target.kind),
                          dislodged=list(pos.dislodged), standoffs=pos.standoffs)

    def unreadable(text: str) -> str | None:
        try:
            variant.read_order(there, power, text)
        except OrderSyntaxError as exc:
            return str(exc)
        except OrderError:  # readable, but not possible in today's position: wait and see
            return None
        return None

    A.mark_unreadable(block, unreadable)
    return block


# ------------------------------------------------------------------ receiving
@dataclass(slots=True)
class Received:
    """A mail's order lines for one power, PHASE blocks taken out: ``now`` the lines for the
    current phase (None when the mail gave none, so the stored orders stay), ``blocks`` the
    mail's blocks as read."""

    now: list[str] | None
    blocks: list[A.Block] = field(default_factory=list)


def receive(s: Store, game: dict, pos: Position, power: str, lines: list[str],
            inbox_id: int | None, commanded: set[int] | None = None) -> Received:
    """Keep the mail's PHASE blocks for later phases (a later block for a phase replaces the
    earlier one; a block with no lines withdraws it, unless it held a command carried to its
    phase: its place among the blocks is in ``commanded``); a block for the current phase is
    decided now and its orders join the mail's other orders. A block whose PHASE line cannot
    be used is not kept."""
    now, raw = A.split_blocks(lines)
    if not raw:
        return Received(lines)
    current: list[str] | None = list(now) if any(x.strip() for x in now) else None
    out = Received(current)
    for k, block_lines in enumerate(raw):
        if k >= A.MAX_BLOCKS:
            out.blocks.append(A.Block(block_lines[0], None, error=f"a mail may hold at most "
                                      f"{A.MAX_BLOCKS} PHASE blocks; this one was not read"))
            continue
        block = _read(game, pos, power, block_lines)
        out.blocks.append(block)
        if block.error or block.key is None:
            continue
        if block.key == A.phase_id(pos.phase):
            chosen = A.evaluate(block, pos, power)
            out.now = (out.now or []) + chosen.lines
        elif len(block.lines()) == 1:
            if k in (commanded or ()):
                continue
            s.drop_pending(game["id"], power, block.key)
        else:
            s.save_pending_block(game["id"], power, block.key, block.lines(), inbox_id)
    return out


def clear(s: Store, game: dict, power: str, lines: list[str], current: Phase
          ) -> tuple[int, str | None]:
    """CLEAR PENDING: withdraw every block ``power`` has waiting, and take the PHASE blocks
    out of ``lines`` (the mail's lines so far, changed in place: its orders for the current
    phase stay). Returns for how many phases blocks of its present player went (a replaced
    player's are dropped too, not counted as his; a phase stored and sent again in this mail
    counts once: ``current`` is the game's phase, in whose calendar the mail's PHASE lines
    are read), and the PHASE line of the block the mail was in, if any: order lines after
    CLEAR PENDING were written under it, not for this phase."""
    now, blocks = A.split_blocks(lines)
    lines[:] = now
    mine, _ = _blocks(s, game, power)
    s.drop_all_pending(game["id"], power)
    phases = {r["phase"] for r in mine}
    for block in blocks:
        try:
            phases.add(A.phase_id(A.read_phase(block[0], current)))
        except A.AheadError:  # a PHASE line that cannot be read: a block of its own
            phases.add(block[0])
    return len(phases), blocks[-1][0] if blocks else None


def listed(back: dict[str, list[str]]) -> str:
    """``France: F1901M; Germany: F1901M, S1902M``: by power, the phases whose blocks came
    back (:func:`restore`), as ROLLBACK's replies list them."""
    return "; ".join(f"{p.title()}: {', '.join(phases)}" for p, phases in sorted(back.items()))


def has_pending(s: Store, game: dict, power: str) -> bool:
    """Whether ``power``'s present player has blocks waiting."""
    return bool(_blocks(s, game, power)[0])


def reply_item(s: Store, game: dict, pos: Position, power: str,
               received: Received | None, always: bool = False) -> dict | None:
    """The reply's "Pending orders" part for ``power`` (an item of kind ``include``), or None
    when it has none and the mail sent no block (unless ``always``: the mail withdrew them,
    and the reply shows the list empty)."""
    rows, _ = _blocks(s, game, power)
    mail_blocks = received.blocks if received else []
    if not rows and not mail_blocks and not always:
        return None
    pending = []
    for row in rows:
        block = _read(game, pos, power, row["lines"])
        pending.append((A.phase_key(block.target) if block.target else (0, 0, 0), {
            "phase": str(block.target) if block.target else row["phase"],
            "phase_name": block.target.long_name if block.target else row["phase"],
            "lines": block.echo()[1:], "withdraw": False}))
    pending.sort(key=lambda x: x[0])
    here = A.phase_id(pos.phase)
    refused = [b.echo() for b in mail_blocks if b.error]
    now = [_traced(b, pos, power) for b in mail_blocks if not b.error and b.key == here]
    # a block a later one of the mail replaced (as stored) is neither shown nor an error
    last = {b.key: k for k, b in enumerate(mail_blocks) if not b.error}
    kept = [b for k, b in enumerate(mail_blocks) if b.error or b.key == here or last[b.key] == k]
    errors = any(b.problems() for b in kept) or any(
        line["error"] for _, p in pending for line in p["lines"])
    data = {"template": PENDING_TEMPLATE, "power": power, "game": game["name"],
            "pending": [p for _, p in pending], "refused": refused, "now": now}
    return {"echo": "", "text": "", "error": errors, "kind": "include", "data": data}


def _traced(block: A.Block, pos: Position, power: str) -> list[dict]:
    """A block for the phase being played, line by line for the reply, each IF (ELSE IF)
    line with ``taken``: whether its condition held now, so which lines stand."""
    taken = dict(A.evaluate(block, pos, power).trace)
    return [{**line, "taken": taken.get(line["text"])} for line in block.echo()]


# ----------------------------------------------------------------- activating
def take_due(s: Store, game: dict, pos: Position) -> list[Activation]:
    """The blocks for the phase beginning at ``pos``, decided against it, and the blocks for
    phases the game went past without playing them (a retreat that was not needed); both are
    marked used in this phase (kept for a ROLLBACK, no longer pending). Blocks for later
    phases stay pending."""
    here, key = A.phase_id(pos.phase), A.phase_key(pos.phase)
    out: list[Activation] = []
    rows, stale = _blocks(s, game)
    for row in stale:  # sent by a player since replaced: not the present player's orders
        s.drop_pending_block(row["id"])
    for row in rows:
        block = _read(game, pos, row["power"], row["lines"])
        if row["phase"] == here:
            chosen = A.evaluate(block, pos, row["power"])
            out.append(Activation(row["power"], str(pos.phase), pos.phase.long_name,
                                  chosen.lines, chosen.dropped, chosen.trace, row["inbox_id"]))
        elif block.target is not None and A.phase_key(block.target) < key:
            out.append(Activation(row["power"], str(block.target), block.target.long_name,
                                  [], [], [], row["inbox_id"], expired=True))
        else:
            continue
        s.mark_pending_used(row["id"], str(pos.phase))  # the phase's code, as ROLLBACK's
    return out


def restore(s: Store, game: dict, pos: Position, phases: list[str], replayed: bool = False
            ) -> dict[str, list[str]]:
    """ROLLBACK to the phase of ``pos``, ``phases`` (the phases after it) void: the blocks
    those phases used, for phases after ``pos``, are pending again, as their players sent
    them. A block used when ``pos``'s phase began stays used: the orders it gave are among
    that phase's orders, which stay. ``replayed``: that phase starts again from its start,
    its orders void too (a flow's roll back to the start of a turn; ``phases`` then names
    it as well): its blocks come back too, for :func:`take_due` to use again as it starts.
    Returns, by power, the phases whose blocks came back (of the powers' present players: a
    replaced player's blocks are dropped)."""
    key = A.phase_key(pos.phase)
    back: list[dict] = []
    for row in s.used_blocks(game["id"], phases):
        try:
            target = A.read_phase(row["lines"][0], pos.phase)
        except A.AheadError:  # stored readable; a header that no longer reads is not restored
            continue
        if A.phase_key(target) > key or (replayed and A.phase_key(target) == key):
            s.mark_pending_used(row["id"], None)
            back.append({**row, "key": A.phase_key(target), "name": str(target)})
    present = _present(s, game)
    out: dict[str, list[str]] = {}
    for row in sorted(back, key=lambda r: r["key"]):
        if present(row):
            out.setdefault(row["power"], []).append(row["name"])
        else:  # sent by a player since replaced (take_due would drop it too)
            s.drop_pending_block(row["id"])
    return out


def queue_mail(outbox: Outbox, s: Store, game: dict, activations: list[Activation]) -> None:
    """A short mail to each player whose block, when its phase began, had lines that no longer
    made sense (or whose phase never came): which, and why. The rest stood without a word,
    as orders sent then would have."""
    for act in activations:
        if not act.dropped and not act.expired:
            continue
        player = s.player(game["id"], act.power)
        if player is None:
            continue
        fresh = s.game_by_id(game["id"]) or game
        outbox.queue(kind="notice", to=player["address"],
                     subject=f"{game['name']}: your orders sent ahead for {act.phase}",
                     template=NOTICE_TEMPLATE,
                     context={"game": game["name"], "you": act.power, "phase": act.phase,
                              "phase_name": act.phase_name, "lines": act.lines,
                              "dropped": act.dropped, "expired": act.expired,
                              "deadline": fresh["deadline"], "tz": zone(fresh),
                              "role": "player"},
                     game_id=game["id"])

