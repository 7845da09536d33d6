"""A mail of many MAP lines (issue 23, item 5): each distinct picture is drawn once, none past
what the reply can carry (the reply says so), and the reply stays within reply_max_bytes.
Through the real mail servers."""

from __future__ import annotations

import email
from email import policy

import pytest
from gmkit import FakeClock, LiveJudge, addr, new_game, to

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
    assert "not drawn: this reply carries" in reply.flat
    assert "ask for it in another mail" in reply.flat
