"""A reply to an address that has never confirmed it reads the judge's mail is cut at
``[limits] unconfirmed_reply_bytes`` (20 KB), saying how to get the rest (attack30): a forged
mail in a victim's name asking ``HISTORY g S1901M F1902M``, ``HISTORY g S1901M S1902M``...
(distinct ranges, so the dedupe of a question asked again does not fold them) got a reply up
to ``reply_max_bytes`` (200 KB), 30 such replies an hour. Through the real mail servers."""

from __future__ import annotations

import itertools

from gmkit import (
    gm,
    new_game,
    to,
    unconfirmed_judge,  # noqa: F401 - the judge fixture
)
from mailkit import confirmed

VICTIM = "victim@elsewhere.test"
READER = "reader@elsewhere.test"


def _ranges(g: str, phases: list[str]) -> str:
    """Every distinct HISTORY range of ``phases``, plain and CLASSIC: one mail's questions
    that are all different."""
    lines = [f"HISTORY {g} {a} {b}" for a, b in itertools.combinations_with_replacement(
        phases, 2)]
    return "\n".join(lines + [f"{line} CLASSIC" for line in lines])


def test_a_forged_history_flood_gets_a_short_reply_and_a_confirmed_reader_all(judge):
    g = "hi1"
    new_game(judge, g, ["REMINDER OFF"])
    for _ in range(4):  # four phases processed: S1901M, F1901M, S1902M, F1902M
        gm(judge, g, "PROCESS")
    phases = ["S1901M", "F1901M", "S1902M", "F1902M"]
    asked = _ranges(g, phases)
    judge.send(VICTIM, asked)
    [forged] = to(judge.pump(), VICTIM)
    assert len(forged.raw) <= 20_000 + 1_000, len(forged.raw)  # with the relay's headers
    assert "This reply was cut" in forged.flat, forged.flat[-800:]
    assert "has not confirmed that it reads the judge's mail" in forged.flat
    assert f"OBSERVE {g}" in forged.flat or "OBSERVE <game>" in forged.flat
    assert "CONFIRM" in forged.flat
    assert forged.body.rstrip().endswith("Send HELP for the commands.")  # signature kept
    # an address that has confirmed gets today's limit: the whole answer here
    confirmed(judge.store, READER)
    judge.send(READER, asked)
    [whole] = to(judge.pump(), READER)
    assert len(whole.raw) > 40_000, len(whole.raw)
    assert "This reply was cut" not in whole.flat


def test_a_strangers_map_draws_no_picture_its_reply_cannot_carry(judge, monkeypatch):
    """The stranger's reply is cut at 20 KB, but MAP sized what it drew by reply_max_bytes
    (200 KB): the picture was drawn (the painter's work, for a forger's mail) and then left
    out of the reply. Now a stranger's MAP draws none and says why; a reader that has
    confirmed gets its picture."""
    import email
    from email import policy

    import judge.games.mapcmd as mapcmd

    g = "mp9"
    new_game(judge, g, ["REMINDER OFF"])
    drawn: list[int] = []
    draw = mapcmd.svg_to_png
    monkeypatch.setattr(mapcmd, "svg_to_png", lambda svg: drawn.append(1) or draw(svg))
    judge.send(VICTIM, f"MAP {g}\nMAP {g} SVG\nMAP {g} S1901M")
    [forged] = to(judge.pump(), VICTIM)
    assert drawn == []
    assert not list(email.message_from_bytes(forged.raw, policy=policy.default)
                    .iter_attachments())
    assert f"The map of game {g}, S1901M, as {g}-S1901M.png, not drawn: a reply to an " \
        "address that has not confirmed that it reads the judge's mail carries at most " \
        "20000 bytes, too few for a picture (200000 once it has: send OBSERVE <game> and " \
        "reply YES to the request, then ask again)" in forged.flat, forged.body
    assert f"as {g}-S1901M.svg, not drawn" in forged.flat, forged.body
    assert "left out to keep this reply" not in forged.flat, forged.body
    confirmed(judge.store, READER)
    judge.send(READER, f"MAP {g}")
    [whole] = to(judge.pump(), READER)
    assert drawn == [1]
    files = [p.get_filename() for p in email.message_from_bytes(
        whole.raw, policy=policy.default).iter_attachments()]
    assert files == [f"{g}-S1901M.png"], whole.body


def test_a_master_who_never_confirmed_is_told_to_confirm_with_its_create(judge):
    """A master whose CREATE came from an address that never confirmed gets the stranger's
    limit too, but its cut line said only 'send OBSERVE <game> and reply YES', not the
    request its CREATE's reply carried (the code that also brings it the game's mail). Now
    it says that first, for a reader who created the game, and OBSERVE for one who did not
    (the line goes to whoever the address is: a forged CREATE's victim is not told to
    confirm it as its own)."""
    g = "hi2"
    new_game(judge, g, ["REMINDER OFF"])  # its master, gm.hi2@, never confirmed
    for _ in range(4):
        gm(judge, g, "PROCESS")
    [reply] = to(gm(judge, g, _ranges(g, ["S1901M", "F1901M", "S1902M", "F1902M"])),
                 f"gm.{g}@players.test")
    assert "This reply was cut" in reply.flat, reply.flat[-800:]
    assert f"if you created game {g}, reply YES to the judge's reply to your CREATE" \
        in reply.flat, reply.flat[-900:]
    assert "CONFIRM <code> with the code it gave" in reply.flat, reply.flat[-900:]
    assert "otherwise send OBSERVE <game>" in reply.flat, reply.flat[-900:]
    # its MAP says the same of the picture it cannot carry
    [reply] = to(gm(judge, g, f"MAP {g}"), f"gm.{g}@players.test")
    assert f"once it has: if you created game {g}, reply YES to the judge's reply to your " \
        "CREATE; otherwise send OBSERVE <game>" in reply.flat, reply.body
