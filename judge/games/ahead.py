"""Orders sent ahead in a game: PHASE blocks kept until their phase, listed in replies under
"Pending orders", and made the power's orders when the phase starts.

Reading blocks and deciding their conditions is :mod:`judge.engine.ahead`'s (pure); here they
meet the store and the game's flow: a flow with hidden movement lets a condition test only the
player's own units and centres, and a flow's ``ahead_kinds`` says which phases take orders
ahead. :mod:`judge.games.game` calls :func:`take_due` when a phase begins and submits what
stands through ``submit_orders``, so the phase's orders are stored however that stores them.

Blocks for one phase add up, as njudge appends them: a power's stored row for a phase holds
every block sent for it, each with its PHASE line, in the order sent (a block with no lines
withdraws them all); when the phase begins the orders each block gives are read together,
so a later order for a unit replaces an earlier one, as in one mail.

A block taken when its phase begins is kept, marked with that phase, rather than deleted:
ROLLBACK to an earlier phase makes it pending again (:func:`restore`), as the player sent
it, to be decided again when its phase starts again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge.engine import ahead as A
from judge.engine.board import Board, province_of
from judge.engine.errors import OrderError, OrderSyntaxError
from judge.engine.parse import parse_order
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
    if target is not None and not block.error:
        # the lines the flow will leave out when the block joins the orders of the phase
        # that takes it (GameFlow.taken_with: Stab!'s retreat written as a move): told now,
        # beside each line, while there is time to send it again
        texts = [line.text for line, _ in block.order_lines()]
        _, left_out = flow_of(game["variant"]).taken_with(game, pos, str(target), texts)
        if left_out:
            why = dict(left_out)
            A.mark_unreadable(block, why.get)
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


def _read_row(game: dict, pos: Position, power: str, lines: list[str]) -> list[A.Block]:
    """A stored phase's blocks, read as :func:`_read` reads one, in the order they were sent
    (the row holds each with its PHASE line)."""
    _, raw = A.split_blocks(lines)
    return [_read(game, pos, power, b) for b in raw]


def _held(s: Store, game: dict, power: str, key: str) -> list[str]:
    """The lines ``power``'s present player has waiting for the phase ``key`` (none: [])."""
    mine, _ = _blocks(s, game, power)
    return next((r["lines"] for r in mine if r["phase"] == key), [])


def _space(board: Board, text: str, kind: str) -> str | None:
    """The space of the unit an order line is for, by its words alone (None: unreadable)."""
    try:
        unit = getattr(parse_order(board, text, kind), "unit", None)
    except OrderSyntaxError:
        return None
    return province_of(unit.location) if unit is not None else None


def _mark_replaced(game: dict, blocks: list[A.Block]) -> None:
    """Note on each order line of a phase's blocks that a later block's order for the same
    unit replaces it (the reply shows it beside the line). Only where the judge's general
    rule decides (one order a unit, the last one written: movement and retreats, a variant
    with no rule of its own); elsewhere the phase's start decides, and the player's mail
    then says which lines were replaced."""
    target = blocks[0].target if blocks else None
    if len(blocks) < 2 or target is None or target.kind not in "MR":
        return
    variant = get_variant(game["variant"])
    if getattr(variant.rules, "replaced_orders", None) is not None or \
            type(flow_of(game["variant"])).read_lines is not GameFlow.read_lines:
        return
    later: dict[str, tuple[str, bool]] = {}  # space -> the nearest later block's order
    for block in reversed(blocks):
        own: list[tuple[str, str, bool]] = []
        for line, guarded in block.order_lines():
            space = _space(variant.board, line.text, target.kind)
            if space is None:
                continue
            if space in later:
                by, conditional = later[space]
                line.note = f"replaced by the later order {by}" + (
                    " (if the IF over it holds)" if conditional else "")
            own.append((space, line.text, guarded))
        for space, text, guarded in reversed(own):  # the block's first one is the nearest
            later[space] = (text, guarded)


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
    """Keep the mail's PHASE blocks for later phases (a block for a phase that has blocks
    waiting is added after them, as njudge appends it; a block with no lines withdraws
    every block for its phase, unless it held a command carried to its phase: its place
    among the blocks is in ``commanded``); a block for the current phase is decided now and
    its orders join the mail's other orders. A block whose PHASE line cannot be used is not
    kept, nor one past the bounds of what waits for a phase (:data:`~judge.engine.ahead.
    MAX_BLOCKS` blocks, :data:`~judge.engine.ahead.MAX_BLOCK_LINES` lines in all)."""
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
            held = _held(s, game, power, block.key)
            headers = sum(A.is_header(x) for x in held)
            # bounded as one block is: every reply reads (and lists) what waits
            if headers >= A.MAX_BLOCKS or \
                    len(held) - headers + len(block.lines()) - 1 > A.MAX_BLOCK_LINES:
                block.error = (f"at most {A.MAX_BLOCKS} PHASE blocks of at most "
                               f"{A.MAX_BLOCK_LINES} lines in all may wait for one phase; "
                               "this one was not kept (an empty PHASE block for the phase "
                               "withdraws those waiting)")
                continue
            s.save_pending_block(game["id"], power, block.key, held + block.lines(), inbox_id)
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
        blocks = _read_row(game, pos, power, row["lines"])
        _mark_replaced(game, blocks)
        target = blocks[0].target if blocks else None
        # the first block's PHASE line is the heading; each later one's is shown, as sent
        lines = [line for k, b in enumerate(blocks) for line in b.echo()[0 if k else 1:]]
        pending.append((A.phase_key(target) if target else (0, 0, 0), {
            "phase": str(target) if target else row["phase"],
            "phase_name": target.long_name if target else row["phase"],
            "lines": lines, "withdraw": False}))
    pending.sort(key=lambda x: x[0])
    here = A.phase_id(pos.phase)
    refused = [b.echo() for b in mail_blocks if b.error]
    now = [b.echo(pos) for b in mail_blocks if not b.error and b.key == here]
    # a block of the mail counts unless a later empty one withdrew its phase's blocks
    withdrawn = {b.key: k for k, b in enumerate(mail_blocks)
                 if not b.error and b.key != here and len(b.lines()) == 1}
    errors = any(b.problems() for k, b in enumerate(mail_blocks)
                 if b.error or withdrawn.get(b.key, -1) < k) or any(
        line["error"] for _, p in pending for line in p["lines"])
    data = {"template": PENDING_TEMPLATE, "power": power, "game": game["name"],
            "pending": [p for _, p in pending], "refused": refused, "now": now}
    return {"echo": "", "text": "", "error": errors, "kind": "include", "data": data}


# ----------------------------------------------------------------- activating
def take_due(s: Store, game: dict, pos: Position) -> list[Activation]:
    """The blocks for the phase beginning at ``pos``, decided against it, and the blocks for
    phases the game went past without playing them (a retreat that was not needed); both are
    marked used in this phase (kept for a ROLLBACK, no longer pending). Blocks for later
    phases stay pending."""
    here, key = A.phase_id(pos.phase), A.phase_key(pos.phase)
    # the phases whose orders are sent in this one (Stab!'s next season): their blocks are
    # taken now, after this phase's own, as one mail's orders
    flow = flow_of(game["variant"])
    joined = flow.sent_with(game, pos.phase)
    out: list[Activation] = []
    acts: dict[str, Activation] = {}
    rows, stale = _blocks(s, game)
    for row in stale:  # sent by a player since replaced: not the present player's orders
        s.drop_pending_block(row["id"])
    order = [here, *joined]
    rows.sort(key=lambda r: (r["power"], order.index(r["phase"]) if r["phase"] in order
                             else len(order), r["id"]))
    for row in rows:
        blocks = _read_row(game, pos, row["power"], row["lines"])
        target = blocks[0].target if blocks else None
        if row["phase"] in order:  # each block decided, their orders read as one mail's
            act = acts.get(row["power"])
            if act is None:
                act = acts[row["power"]] = Activation(
                    row["power"], str(pos.phase), pos.phase.long_name, [], [], [],
                    row["inbox_id"])
                out.append(act)
            named = (str(target), target.long_name) if target else (here, pos.phase.long_name)
            if named not in act.sent_for:
                act.sent_for.append(named)
            for block in blocks:
                chosen = A.evaluate(block, pos, row["power"])
                kept, dropped = chosen.lines, chosen.dropped
                if row["phase"] != here:  # a phase sent in this one: its lines may differ
                    kept, left_out = flow.taken_with(game, pos, row["phase"], kept)
                    dropped = dropped + left_out
                act.lines += kept
                act.dropped += dropped
                act.trace += chosen.trace
                act.shown += block.echo(pos)
        elif target is not None and A.phase_key(target) < key:
            out.append(Activation(row["power"], str(target), target.long_name,
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
    """One mail to each player whose orders sent ahead a phase's start used (njudge's
    "Pending Orders"): the blocks as sent, which way each IF went, the orders that now
    stand and the lines left out with the reason; and the blocks whose phase the game went
    past. Only the player's own blocks and orders: nothing the player could not see (in a
    game with hidden movement a condition tests only the player's own units and centres)."""
    by_power: dict[str, list[Activation]] = {}
    for act in activations:
        by_power.setdefault(act.power, []).append(act)
    fresh = s.game_by_id(game["id"]) or game
    for power, acts in by_power.items():
        player = s.player(game["id"], power)
        if player is None:
            continue
        used = next((a for a in acts if not a.expired), None)
        expired = [{"phase": a.phase, "phase_name": a.phase_name} for a in acts if a.expired]
        # the phases the player's PHASE lines named (a block for a phase taken in another,
        # Stab!'s next season in its retreat phase, is named as sent)
        phases = ", ".join(code for a in acts
                           for code in ([a.phase] if a.expired or not a.sent_for
                                        else [c for c, _ in a.sent_for]))
        outbox.queue(kind="notice", to=player["address"],
                     subject=f"{game['name']}: your orders sent ahead for {phases}",
                     template=NOTICE_TEMPLATE,
                     context={"game": game["name"], "you": power,
                              "used": None if used is None else {
                                  "phase": used.phase, "phase_name": used.phase_name,
                                  "shown": used.shown, "lines": used.lines,
                                  "dropped": used.dropped, "sent_for": used.sent_for},
                              "expired": expired, "deadline": fresh["deadline"],
                              "tz": zone(fresh), "role": "player"},
                     game_id=game["id"])
