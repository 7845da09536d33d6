"""Map pictures by mail: reports carry the PNG, ``MAP game [phase]`` answers with the SVG,
and a Stab! game's map goes only to those who may see it (through the real acting code)."""

from __future__ import annotations

import email
import xml.etree.ElementTree as ET
from email import policy

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


def test_reports_carry_the_map_and_map_answers_with_the_svg(tmp_path) -> None:
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
    assert (name, ctype) == ("pics-S1901M.svg", "image/svg+xml")
    assert ("FRANCE", "A PAR") in svg_units(data) and len(svg_units(data)) == 22
    arrows = {(g.get("data-from"), g.get("data-to"), g.get("data-result"))
              for g in ET.fromstring(data).iter(f"{NS}g") if g.get("class") == "order"}
    assert arrows == {("PAR", "BUR", "succeeds"), ("MAR", "BUR", "succeeds")}
    [now] = j.send("observer@players.test", "MAP pics", "map now")
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
    [mine] = j.send(addr("FRANCE"), "SIGNON France hid pw-FRANCE\nMAP", "my map")
    [(_, ctype, data)] = attachments(mine)
    assert ctype == "image/svg+xml"
    text = data.decode()
    assert "FRANCE" in text
    assert not any(p in text for p in POWERS if p != "FRANCE")
    [gm] = j.send(GM, "MASTER hid master-hid\nMAP", "gm map")
    [(_, _, whole)] = attachments(gm)
    assert all(p in whole.decode() for p in POWERS)
