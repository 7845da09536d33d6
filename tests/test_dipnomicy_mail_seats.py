"""Who may take a Dipnomicy country after the start, by email (variants/dipnomicy/commands.md,
"New players"). Rule 12: the countries are assigned to the players when the game starts, and
the units of a country no player was assigned hold. So in a game of five or six players the
countries nobody was assigned stay without a player: TAKEOVER and REPLACE are both refused,
citing rule 12 (a taker would also get a vote, changing who decides the rules). A country
that was assigned and lost its player (EJECT, or abandoned) takes a new one either way, and
EJECT's reply suggests only what the judge will then do."""

from __future__ import annotations

from dipkit import GM, DipGame, play_turn_with_votes

from judge.variants.dipnomicy.catalogue import POWERS

STRANGER = "newcomer@players.test"


def unassigned(g: DipGame) -> list[str]:
    return [c for c in POWERS if c not in g.countries]


def seated(g: DipGame) -> dict[str, str]:
    s = g.judge.store
    return {p["power"]: p["address"] for p in s.players(s.game(g.name)["id"])}


def _code(mail) -> str:
    return mail.flat.split("CONFIRM ")[1].split()[0]


def test_takeover_of_a_country_nobody_was_assigned_is_refused_by_rule_12(tmp_path):
    g = DipGame(tmp_path, players=5)
    g.start()
    free = unassigned(g)
    assert len(free) == 2
    for country in free:
        r = g.reply(STRANGER, f"TAKEOVER {country} {g.name} newpw1", "takeover")
        assert r.subject.startswith("[ERROR]"), r.body
        assert (f"{country.title()} was assigned to no player when game {g.name} started: "
                "its units hold (rule 12), and nobody can take it over") in r.flat, r.body
        assert "REPLACE" not in r.flat  # nothing suggested that would be refused too
    assert seated(g) == {c: a for c, a in g.countries.items()}
    assert not [m for m in g.mail if "taken over" in m.subject]
    r = g.reply(STRANGER, f"WHOIS {g.name}", "whois")
    for country in free:
        assert f"{country.title()}: no player" in r.flat, r.body

    # turns later it is the same: the countries assigned are kept in every position
    g.to_deadline()  # no proposal: no vote, turn 2 starts
    assert g.game()["phase"] == "F1901M"
    r = g.reply(STRANGER, f"TAKEOVER {free[0]} {g.name} newpw1", "takeover")
    assert "its units hold (rule 12)" in r.flat, r.body


def test_replace_of_a_country_nobody_was_assigned_is_refused_by_rule_12(tmp_path):
    g = DipGame(tmp_path, players=5)
    g.start()
    country = unassigned(g)[0]
    r = g.sg(f"REPLACE {country} {STRANGER} newpw1")
    assert r.subject.startswith("[ERROR]"), r.body
    assert (f"{country.title()} was assigned to no player when game {g.name} started: its "
            "units hold (rule 12), and it cannot be given a player") in r.flat, r.body
    assert not [m for m in g.mail if m.rcpt == STRANGER]  # no confirmation request


def test_an_ejected_country_takes_a_new_player_by_replace(tmp_path):
    g = DipGame(tmp_path, players=5)
    g.start()
    country = sorted(g.countries)[0]
    r = g.sg(f"EJECT {country}")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert (f"A new player can TAKEOVER {country.title()} {g.name} <password>, or you can "
            f"REPLACE them; until then {country.title()} sends no moves (its units hold, "
            "rule 14) and has no vote") in r.flat, r.body

    r = g.sg(f"REPLACE {country} {STRANGER} newpw1")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert f"A confirmation request has been sent to {STRANGER}" in r.flat
    [request] = [m for m in g.mail if m.rcpt == STRANGER]
    r = g.reply(STRANGER, f"CONFIRM {_code(request)}", "confirm")
    assert f"{STRANGER} now plays {country.title()} in game {g.name}" in r.flat, r.body
    assert seated(g)[country] == STRANGER


def test_an_ejected_country_takes_a_new_player_by_takeover(tmp_path):
    g = DipGame(tmp_path, players=5)
    g.start()
    country = sorted(g.countries)[-1]
    g.sg(f"EJECT {country}")
    r = g.reply(STRANGER, f"TAKEOVER {country} {g.name} newpw1", "takeover")
    assert not r.subject.startswith("[ERROR]"), r.body
    assert f"You now play {country.title()} in game {g.name}" in r.flat
    assert seated(g)[country] == STRANGER
    assert not [m for m in g.mail if m.rcpt == GM and m.subject.startswith("[ERROR]")]


def test_replace_before_start_is_refused_the_countries_are_drawn_at_start(tmp_path):
    g = DipGame(tmp_path, players=5)
    g.reply(GM, f"CREATE {g.name} sgpass VARIANT dipnomicy", "new")
    g.sg("OPEN")
    r = g.sg(f"REPLACE Austria {STRANGER} newpw1")
    assert r.subject.startswith("[ERROR]"), r.body
    assert ("in Dipnomicy the countries are drawn when the game starts, not before (rule "
            f"12): REPLACE has no country to give yet. A player joins with JOIN {g.name} "
            "<password>") in r.flat, r.body
    assert not [m for m in g.mail if m.rcpt == STRANGER]


def test_once_rule_12_is_amended_the_sg_decides_who_plays_a_country_nobody_was_assigned(
        tmp_path):
    """Rule 12 is mutable text (no rule module): the players may amend it. The judge refused
    a player for a country nobody was assigned whatever rule 12 had come to say. Once it no
    longer reads as it did at the start, the SG, who enforces the rules without a module,
    decides: REPLACE gives the country a player; nobody takes it over by themselves."""
    g = DipGame(tmp_path, players=5)
    g.start()
    country = unassigned(g)[0]
    amend = "\n".join([
        "PROPOSE Open countries", "Amend rule 12 to read:",
        "The countries are Austria, England, France, Germany, Italy, Russia and Turkey, each",
        "assigned at random to one player when the game starts. The Secretary General may",
        "give a country no player has been assigned to a new player.", "END"])
    play_turn_with_votes(g, {sorted(g.countries)[0]: amend}, None, {"Open countries": "FOR"})
    r = g.reply(STRANGER, f"RULES {g.name}", "rules")
    assert "The Secretary General may" in r.flat, r.body

    r = g.reply(STRANGER, f"TAKEOVER {country} {g.name} newpw1", "takeover")
    assert r.subject.startswith("[ERROR]"), r.body
    assert (f"{country.title()} was assigned to no player when game {g.name} started, and "
            "rule 12 has been amended since: the Secretary General decides whether it gets a "
            "player (REPLACE), nobody takes it over by themselves") in r.flat, r.body
    r = g.sg(f"REPLACE {country} {STRANGER} newpw1")
    assert not r.subject.startswith("[ERROR]"), r.body
    [request] = [m for m in g.mail if m.rcpt == STRANGER and "CONFIRM" in m.flat]
    r = g.reply(STRANGER, f"CONFIRM {_code(request)}", "confirm")
    assert f"{STRANGER} now plays {country.title()} in game {g.name}" in r.flat, r.body
    assert seated(g)[country] == STRANGER
