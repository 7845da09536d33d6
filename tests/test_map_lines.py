"""A mail of many MAP lines (issue 23, item 5): each distinct picture is drawn once, none past
what the reply can carry (the reply says so), and the reply stays within reply_max_bytes.
Through the real mail servers."""

from __future__ import annotations

import email
from email import policy

import pytest
from gmkit import FakeClock, LiveJudge, addr, new_game, to
from mailkit import InProcessJudge
from test_pictures_deferred import paint
from test_render_mail import addr as player
from test_render_mail import attachments, start_game

import judge.games.mapcmd as mapcmd


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def test_a_thousand_map_lines_draw_each_picture_once_within_the_reply(judge, monkeypatch):
    g = "mp1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.send(f"gm.{g}@players.test", f"MASTER {g} gm-{g}\nPROCESS\nPROCESS")
    judge.pump()
    drawn: list[int] = []
    draw = mapcmd.svg_to_png

    def counting(svg: str) -> bytes:
        drawn.append(1)
        return draw(svg)

    monkeypatch.setattr(mapcmd, "svg_to_png", counting)
    asks = [f"MAP {g} S1901M", f"MAP {g} F1901M", "MAP", f"MAP {g} S1901M", f"MAP {g}",
            f"MAP {g} S1901M SVG", f"MAP {g} F1901M"]
    lines = [asks[i % len(asks)] for i in range(999)]
    france = addr(g, "FRANCE")
    judge.send(france, f"SIGNON FRANCE {g} pw-france\n" + "\n".join(lines), subject="maps")
    (reply,) = to(judge.pump(), france)
    msg = email.message_from_bytes(reply.raw, policy=policy.default)
    files = [p.get_filename() for p in msg.iter_attachments()]
    assert len(reply.raw) <= judge.cfg.reply_max_bytes + 4000  # its headers
    assert files and len(set(files)) == len(files)  # each picture at most once
    assert len(drawn) <= len(files)  # none drawn that the reply could not carry
    assert "is attached once, as" in reply.flat
    assert ", not drawn: this reply carries" in reply.flat
    assert "ask for it in another mail" in reply.flat


def test_map_pictures_are_drawn_by_the_pool_and_the_reply_waits_for_them(tmp_path,
                                                                          monkeypatch):
    """judge serve: the worker that answers everyone draws no MAP picture; the reply waits in
    the outbox until the painter's pool has drawn them, then goes with each, once."""
    j = InProcessJudge(tmp_path)
    start_game(j, "pool")
    j.actor.outbox.defer_pictures = True  # as judge serve does
    j.actor.outbox.defer_render = True
    drawn: list[int] = []
    draw = mapcmd.svg_to_png
    monkeypatch.setattr(mapcmd, "svg_to_png", lambda svg: drawn.append(1) or draw(svg))
    lines = ["MAP", "MAP pool S1901M", "MAP pool SVG", "MAP pool S1901M"] * 200
    got = j.send(player("FRANCE"), "SIGNON France pool pw-FRANCE\n" + "\n".join(lines), "maps")
    assert got == [] and drawn == []  # nothing drawn in the worker; the reply waits
    paint(j)
    (reply,) = j.run()
    files = [(name, ctype) for name, ctype, _ in attachments(reply)]
    assert files == [("pool-S1901M.png", "image/png")]
    # the SVG (larger than the room the PNG left) is not attached, and the reply says why
    assert "as pool-S1901M.svg, not drawn: this reply carries 1 picture(s)" in reply.flat
    assert all(data for _, _, data in attachments(reply))
    assert "is attached once, as pool-S1901M.png" in reply.flat
    assert j.store.all("SELECT * FROM reply_waits") == []
    assert j.store.all("SELECT id FROM pictures") == []
