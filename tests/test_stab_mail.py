"""A Stab! game by mail, in process (the judge's real storage, reading, acting and sender):
each player receives its private notice and only its own, and nothing it receives reveals
what the rules hide from it (tests/stabkit.py checks every mail against the full
adjudication)."""

from __future__ import annotations

from mailkit import InProcessBackend, InProcessJudge
from stabkit import play_stab_game


def test_stab_game_by_mail(tmp_path):
    judge = InProcessJudge(tmp_path)
    reports = play_stab_game(InProcessBackend(judge), "stab1", lambda p: f"{p.lower()}@p.test",
                             "gm@p.test", tmp_path / "judge.db")
    assert len(reports["FRANCE"]) == 3 and len(reports["GM"]) == 3


def test_gunboat_stab_names_every_other_power_by_its_pseudonym(tmp_path):
    judge = InProcessJudge(tmp_path)
    reports = play_stab_game(InProcessBackend(judge), "gun1", lambda p: f"{p.lower()}@p.test",
                             "gm@p.test", tmp_path / "judge.db", gunboat=True)
    powers = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
    for reader, got in reports.items():
        for mail in got:
            text = mail.body.upper()
            for p in powers:
                if reader == "GM" or p.upper() != reader:
                    # Another power's real name never appears (its home spaces may: they
                    # are in the report's unit entries, in the seed's notation).
                    assert p.upper() not in text, (reader, p, mail.body)
