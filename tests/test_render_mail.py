"""Map pictures by mail: reports carry the PNG, ``MAP game [phase]`` answers with a PNG (an
SVG when asked), a Stab! game's map goes only to those who may see it, and a picture that
cannot be drawn never holds back a report (through the real acting code)."""

from __future__ import annotations

import email
import logging
import struct
import xml.etree.ElementTree as ET
from email import policy

import pytest
from mailkit import POWERS, InProcessJudge

NS = "{http://www.w3.org/2000/svg}"
GM = "gm@players.test"


def addr(power: str) -> str:
    return f"{power.lower()}@players.test"


def attachments(got) -> list[tuple[str, str, bytes]]:
    msg = email.message_from_bytes(got.raw, policy=policy.default)
    return [(p.get_filename(), p.get_content_type(), p.get_payload(decode=True))
            for p in msg.walk() if p.get_content_disposition() == "attachment"]


def start_game(j: InProcessJudge, game: str, variant: str = "standard") -> None:
    j.send(GM, f"CREATE {game} master-{game} VARIANT {variant}\nOPEN", "new")
    for p in POWERS:
        j.send(addr(p), f"SIGNON {p.title()} {game} pw-{p}", "join")
    j.send(GM, f"MASTER {game} master-{game}\nSTART", "start")


def svg_units(svg: bytes) -> set[tuple[str, str]]:
    root = ET.fromstring(svg)
    return {(g.get("data-power"), g.get("data-unit")) for g in root.iter(f"{NS}g")
            if g.get("class") == "unit"}


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_reports_carry_the_map_and_map_answers_with_png_or_svg(tmp_path) -> None:
    j = InProcessJudge(tmp_path)
    start_game(j, "pics")
    j.send(addr("FRANCE"), "SIGNON France pics pw-FRANCE\nA PAR - BUR\nA MAR S A PAR - BUR",
           "orders")
    got = j.send(GM, "MASTER pics master-pics\nPROCESS", "go")
    reports = [g for g in got if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    for g in reports:
        [(name, ctype, data)] = attachments(g)
        assert (name, ctype) == ("S1901M.png", "image/png") and data[:4] == b"\x89PNG"
        assert "A PAR - BUR" in g.body  # the text report is still there, first
    [reply] = j.send("observer@players.test", "MAP pics S1901M", "map please")
    [(name, ctype, data)] = attachments(reply)
    assert (name, ctype) == ("pics-S1901M.png", "image/png") and min(png_size(data)) > 400
    assert "attached as pics-S1901M.png" in reply.body
    [reply] = j.send("observer@players.test", "MAP pics S1901M SVG", "map please")
    [(name, ctype, data)] = attachments(reply)
    assert (name, ctype) == ("pics-S1901M.svg", "image/svg+xml")
    assert ("FRANCE", "A PAR") in svg_units(data) and len(svg_units(data)) == 22
    arrows = {(g.get("data-from"), g.get("data-to"), g.get("data-result"))
              for g in ET.fromstring(data).iter(f"{NS}g") if g.get("class") == "order"}
    assert arrows == {("PAR", "BUR", "succeeds"), ("MAR", "BUR", "succeeds")}
    [now] = j.send("observer@players.test", "MAP pics svg", "map now")
    [(name, _, data)] = attachments(now)
    assert name == "pics-F1901M.svg" and ("FRANCE", "A BUR") in svg_units(data)
    [bad] = j.send("observer@players.test", "MAP pics S1999M", "map bad")
    assert bad.subject.startswith("[ERROR]") and "no position for S1999M" in bad.flat
    assert attachments(bad) == []


def test_stab_maps_only_to_those_who_may_see_them(tmp_path) -> None:
    j = InProcessJudge(tmp_path)
    start_game(j, "hid", "stab")
    [stranger] = j.send("observer@players.test", "MAP hid", "peek")
    assert stranger.subject.startswith("[ERROR]") and attachments(stranger) == []
    [png] = j.send(addr("FRANCE"), "SIGNON France hid pw-FRANCE\nMAP", "my map")
    [(_, ctype, _)] = attachments(png)
    assert ctype == "image/png"
    [mine] = j.send(addr("FRANCE"), "SIGNON France hid pw-FRANCE\nMAP SVG", "my map")
    [(_, ctype, data)] = attachments(mine)
    assert ctype == "image/svg+xml"
    text = data.decode()
    assert "FRANCE" in text
    assert not any(p in text for p in POWERS if p != "FRANCE")
    [gm] = j.send(GM, "MASTER hid master-hid\nMAP SVG", "gm map")
    [(_, _, whole)] = attachments(gm)
    assert all(p in whole.decode() for p in POWERS)


def test_stab_reports_carry_each_player_a_private_map_and_the_master_none(tmp_path) -> None:
    j = InProcessJudge(tmp_path)
    start_game(j, "sb1", "stab")
    sent = j.send(GM, "MASTER sb1 master-sb1\nPROCESS")
    reports = {m.rcpt: m for m in sent if "sb1" in m.subject and m.rcpt != GM}
    assert set(reports) == {addr(p) for p in POWERS}
    pictures = set()
    for power in POWERS:
        [(name, ctype, data)] = attachments(reports[addr(power)])
        assert ctype == "image/png" and data[:4] == b"\x89PNG"
        pictures.add(data)
    assert len(pictures) == len(POWERS)  # each shows only its own units
    [gm] = [m for m in sent if m.rcpt == GM and "sb1" in m.subject]
    assert attachments(gm) == []


def test_a_picture_that_cannot_be_drawn_never_holds_back_the_report(tmp_path, monkeypatch,
                                                                      caplog) -> None:
    import judge.render

    j = InProcessJudge(tmp_path)
    start_game(j, "nopic")
    drawn: list[str] = []

    def broken(svg: str, *args, **kwargs) -> bytes:
        drawn.append(svg)
        raise RuntimeError("no Cairo today")

    monkeypatch.setattr(judge.render, "svg_to_png", broken)
    with caplog.at_level(logging.ERROR, logger="judge.reports"):
        got = j.send(GM, "MASTER nopic master-nopic\nPROCESS", "go")
    reports = [g for g in got if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    for g in reports:
        assert attachments(g) == [] and "S1901M" in g.body
    assert len(drawn) == 1, "the public picture is drawn once for every reader"
    assert [r for r in caplog.records if "could not be drawn" in r.getMessage()]
    [status] = j.send(addr("FRANCE"), "SIGNON France nopic pw-FRANCE\nSTATUS", "still there")
    assert "F1901M" in status.body


@pytest.mark.parametrize("variant", ["standard", "stab"])
def test_each_distinct_picture_is_drawn_once(tmp_path, monkeypatch, variant) -> None:
    import judge.render

    j = InProcessJudge(tmp_path)
    start_game(j, "once", variant)
    real, drawn = judge.render.svg_to_png, []
    monkeypatch.setattr(judge.render, "svg_to_png", lambda svg: drawn.append(svg) or real(svg))
    got = j.send(GM, "MASTER once master-once\nPROCESS", "go")
    pictures = [a for g in got if g.rcpt != GM or variant == "standard"
                for a in attachments(g) if a[1] == "image/png"]
    # open game: one public picture for the players and the master; Stab!: one per player
    assert len(drawn) == (1 if variant == "standard" else len(POWERS))
    assert len({data for _, _, data in pictures}) == len(drawn)


@pytest.mark.parametrize("variant", ["standard", "stab"])
def test_the_start_notice_carries_the_starting_map(tmp_path, variant) -> None:
    """The start notice carries the first picture, as each report does (issue 24 item 14):
    an open game's one picture for everyone; in Stab! each player their own (they start
    with no units: the picture names their own power only), the public and master none."""
    j = InProcessJudge(tmp_path)
    game = f"go{variant}"
    j.send(GM, f"CREATE {game} master-{game} VARIANT {variant}\nOPEN", "new")
    for p in POWERS:
        j.send(addr(p), f"SIGNON {p.title()} {game} pw-{p}", "join")
    got = j.send(GM, f"MASTER {game} master-{game}\nSTART", "start")
    notices = {g.rcpt: g for g in got if "the game has started" in g.subject}
    assert set(notices) == {addr(p) for p in POWERS} | {GM}
    pictures = {}
    for rcpt, g in notices.items():
        found = attachments(g)
        if variant == "stab" and rcpt == GM:
            assert found == []
            continue
        [(name, ctype, data)] = found
        assert ctype == "image/png" and name.endswith(".png") and data[:4] == b"\x89PNG"
        pictures[rcpt] = data
    distinct = len(set(pictures.values()))
    assert distinct == (1 if variant == "standard" else len(POWERS))
