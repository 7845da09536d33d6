"""A Chess Dip game through the judge's real acting code (in process, Maildir out): orders by
mail in the seed's syntax, the results report with the chess diagram."""

from __future__ import annotations

from mailkit import InProcessJudge

POWERS = ("ENGLAND", "ITALY", "FRANCE", "SCANDINAVIA")


def _addr(p: str) -> str:
    return f"{p.lower()}@players.test"


def test_chessdip_game_by_mail(tmp_path) -> None:
    judge = InProcessJudge(tmp_path)
    judge.send("gm@players.test", "CREATE cd1 masterpw VARIANT chessdip\nOPEN")
    for p in POWERS:
        judge.send(_addr(p), f"SIGNON {p} cd1 pw-{p.lower()}")
    sent = judge.send("gm@players.test", "MASTER cd1 masterpw\nSTART")
    started = {m.rcpt: m for m in sent if "has started" in m.subject}
    assert "You play Italy" in started[_addr("ITALY")].body

    reply = judge.send(_addr("ITALY"), "SIGNON ITALY cd1 pw-italy\nB f1 - c4\ne2 - e4\n"
                                       "K e1 S e2 C f1 - c4")
    body = reply[0].body
    assert not reply[0].subject.startswith("[ERROR]"), body
    reply = judge.send(_addr("FRANCE"), "SIGNON FRANCE cd1 pw-france\nN g8 - f6\ne7 - e5\n"
                                        "K e8 - e9")
    assert reply[0].subject.startswith("[ERROR]") and "e9" in reply[0].body
    judge.send(_addr("FRANCE"), "SIGNON FRANCE cd1 pw-france\nN g8 - f6\ne7 - e5")
    sent = judge.send("gm@players.test", "MASTER cd1 masterpw\nPROCESS")
    reports = {m.rcpt: m for m in sent if "results" in m.subject}
    assert set(reports) == {_addr(p) for p in POWERS} | {"gm@players.test"}
    text = reports[_addr("ENGLAND")].body
    # e2 leaves for e4 (its path e3 is free), so the bishop passes e2 and d3.
    assert "B f1 - c4" in text and "succeeds" in text
    assert "The board" in text
    rank4 = next(line for line in text.splitlines() if line.startswith("4 "))
    assert rank4.split() == ["4", ".", ".", "IB", ".", "IP", ".", ".", ".", "4"]
    assert "Next phase: Fall 1901 Movement (F1901M)" in text
