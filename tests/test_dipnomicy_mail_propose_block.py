"""Where a PROPOSE block ends, by email: at its line END; a line with a password (SIGNON,
MASTER, JOIN: the next game of a mail for several games) always ends it and is read as a
command, and a block that has no END (that line, or the end of the mail, came first) is
refused, the reply saying what was read for it, never taken with the lines after it (orders,
a password) as the rule's text. The SG's RULESET block ends the same way."""

from __future__ import annotations

from dipkit import GM, DipGame
from mailkit import new_game


def _seat(g: DipGame, country: str) -> str:
    address = g.countries[country]
    return f"SIGNON {country} dip seat-{g.addresses.index(address)}"


def _game_with_a_standard_one(tmp_path) -> DipGame:
    g = DipGame(tmp_path)
    g.start()
    new_game(g.judge, "std")  # France's player there signs on with pw-france
    return g


def _proposals(g: DipGame) -> list:
    gid = g.game()["id"]
    return g.judge.store.all("SELECT * FROM dipnomicy_proposals WHERE game_id = ?", (gid,))


def test_a_later_games_signon_ends_a_proposal_without_end(tmp_path):
    g = _game_with_a_standard_one(tmp_path)
    r = g.reply(g.countries["FRANCE"], "\n".join([
        _seat(g, "FRANCE"),
        "A Par -- Bur",
        "PROPOSE Support actions",
        "Enact the following mutable rule:",
        "A support action causes a unit to stay in the territory it holds.",
        "SIGNON FRANCE std pw-france",
        "A Par - Pic",
    ]), "two games")
    assert r.subject.startswith("[ERROR]"), r.body
    assert ("ERROR: PROPOSE not taken: no line END came before the line 'SIGNON FRANCE "
            "std ****', which has a password: a line with a password ends the block and is "
            "read as a command. The 2 lines read for it ('Enact the following mutable rule:' to 'A "
            "support action causes a unit to stay i…') changed "
            "nothing; send it again ending with a line holding only END.") in r.flat, r.body
    # the later game's lines were read as that game's
    assert "Signed on as France in game std." in r.flat, r.body
    assert "Orders for France in game std, Spring 1901 Movement (S1901M):\n  A PAR - PIC" \
        in r.body, r.body
    assert "Orders for France in game dip, Spring 1901 Movement (S1901M):\n  A PAR - BUR" \
        in r.body, r.body
    assert "pw-france" not in r.body
    assert _proposals(g) == []  # nothing stored, the password least of all
    status = g.reply("visitor@players.test", "STATUS dip", "status")
    assert "Turn 1: proposals received from nobody yet." in status.flat, status.body


def test_a_proposal_without_end_at_the_end_of_the_mail_is_refused(tmp_path):
    g = DipGame(tmp_path)
    g.start()
    r = g.reply(g.countries["ITALY"], "\n".join([
        _seat(g, "ITALY"),
        "PROPOSE Speed up the game",
        "Enact a mutable rule:",
        "The deadline is three days after the last move report.",
        "F Nap -- ION",
        "Cheers, Gus",
    ]), "moves")
    assert r.subject.startswith("[ERROR]"), r.body
    assert ("ERROR: PROPOSE not taken: no line END came before the end of the mail: the 4 "
            "lines read for it ('Enact a mutable rule:' to 'Cheers, Gus') changed "
            "nothing (none was read as an order or a command); send it again ending with a "
            "line holding only END.") in r.flat, r.body
    # F Nap -- ION was in the block: not an order
    assert "Orders for Italy in game dip, Spring 1901 Movement (S1901M):\n  (none)" in r.body
    assert _proposals(g) == []


def test_a_proposal_ends_at_its_end_and_the_next_games_lines_are_read(tmp_path):
    """The block the docs describe: up to END, then a later game's SIGNON and orders."""
    g = _game_with_a_standard_one(tmp_path)
    r = g.reply(g.countries["FRANCE"], "\n".join([
        _seat(g, "FRANCE"),
        "PROPOSE Support actions",
        "Enact the following mutable rule:",
        "MODULE support",
        "A support action causes a unit to stay in the territory it holds.",
        "END",
        "SIGNON FRANCE std pw-france",
        "A Par - Pic",
    ]), "two games")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert 'Proposal of France for turn 1 received: "Support actions"' in r.flat, r.body
    assert "Orders for France in game std, Spring 1901 Movement (S1901M):\n  A PAR - PIC" \
        in r.body, r.body
    assert [p["power"] for p in _proposals(g)] == ["FRANCE"]


def test_a_ruleset_without_end_stops_at_the_next_master_line(tmp_path):
    g = DipGame(tmp_path)
    g.reply(GM, "CREATE dip sgpass VARIANT dipnomicy\nCREATE dip2 sgpass2 VARIANT dipnomicy",
            "new")
    r = g.reply(GM, "\n".join([
        "MASTER dip sgpass",
        "RULESET",
        "[settings]",
        'threshold = "two-thirds"',
        "MASTER dip2 sgpass2",
        "SETTING vote_days 3",
    ]), "rules")
    assert ("ERROR: RULESET not taken: no line END came before the line 'MASTER dip2 ****', "
            "which has a password: a line with a password ends the block and is read as a "
            "command.") \
        in r.flat, r.body
    assert "Signed on as master of game dip2." in r.flat, r.body
    assert "Setting vote_days will be 3 when the game starts" in r.flat, r.body
    assert "sgpass2" not in r.body
