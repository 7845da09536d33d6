"""An abandoned country in a Dipnomicy game, by email with the judge's clock moved by the
test. A country the judge declared abandoned (it missed the game's ABANDON turns in a row
and is offered for TAKEOVER) has no player until someone takes it over, so it has no vote
(rule 5: the players vote): its VOTE is refused, STATUS and the reminders do not wait for
it, the vote closes early once every player has voted, and it counts neither as a
non-voter nor in the number of players a majority-of-players threshold needs. A player who
votes but sends no moves (its units hold, rule 14) has not left the game."""

from __future__ import annotations

from datetime import timedelta

from dipkit import GM, DipGame, labels, proposal

# every unit of each country holds: its moves are complete (a country with a unit left
# without a move misses the turn, as any game's power with orders missing does)
HOLD = {"AUSTRIA": "A Vie H\nA Bud H\nF Tri H", "ENGLAND": "F Edi H\nF Lon H\nA Lvp H",
        "FRANCE": "F Bre H\nA Par H\nA Mar H", "GERMANY": "F Kie H\nA Ber H\nA Mun H",
        "ITALY": "F Nap H\nA Rom H\nA Ven H", "RUSSIA": "F StP H\nA Mos H\nF Sev H\nA War H",
        "TURKEY": "F Ank H\nA Con H\nA Smy H"}


def abandoned_at_turn_1(g: DipGame, threshold: str) -> tuple[str, list[str], str]:
    """A game of ``g``'s players under ``threshold`` with ABANDON 1: at turn 1 every country
    but the first drawn sends moves, the second a proposal; at the deadline the first is
    abandoned and the move report opens the vote. (The country abandoned, the others,
    P1's label.)"""
    g.reply(GM, f"CREATE {g.name} sgpass VARIANT dipnomicy\nSETTING threshold {threshold}",
            "new")
    g.start()
    r = g.sg("SET ABANDON 1")
    assert not r.subject.startswith("[ERROR]"), r.body
    gone, *others = sorted(g.countries)
    for country in others:
        body = HOLD[country]
        if country == others[0]:
            body += "\n" + proposal("Support actions", "support")
        r = g.player(country, body, "turn 1")
        assert not r.subject.startswith("[ERROR]"), r.body
    got = g.to_deadline()
    report = g.to_all(got, "move report, turn 1")
    assert g.judge.store.player(g.game()["id"], gone)["state"] == "abandoned"
    assert [m for m in got if f"{gone.title()} abandoned" in m.subject], got
    return gone, others, labels(report)["Support actions"]


def test_an_abandoned_country_has_no_vote_and_the_vote_does_not_wait_for_it(tmp_path):
    g = DipGame(tmp_path, players=6)
    gone, others, label = abandoned_at_turn_1(g, "majority-of-players")

    # the abandoned country's vote is refused, and the reply says how to get the vote back
    r = g.player(gone, f"VOTE {label} AGAINST", "abandoned vote")
    assert r.subject.startswith("[ERROR]"), r.body
    assert (f"{gone.title()} is abandoned (offered for takeover): it has no vote until a "
            f"player takes it over (TAKEOVER {gone.title()} {g.name} <password>); this vote "
            "is not counted") in r.flat, r.body

    # three of the five players for, two against: a majority of the five players
    for k, country in enumerate(others):
        r = g.player(country, f"VOTE {label} {'FOR' if k < 3 else 'AGAINST'}", "votes")
        assert not r.subject.startswith("[ERROR]"), r.body
    r = g.reply("watcher@players.test", f"STATUS {g.name}", "status")
    assert "Yet to vote on every proposal: nobody." in r.flat, r.body

    # every player has voted: the vote closes after the settling delay, not at its deadline
    g.clock.advance(hours=1, minutes=1)
    assert g.clock.now < g.vote_deadline() - timedelta(hours=12)
    result = g.to_all(g.tick(), "votes on the proposals of turn 1")
    section = result.body.split(f"{label}: Support actions")[1].split("\n\n")[0]
    assert "For 3" in section and "against 2" in section, section
    assert "PASSED: enacted as rule" in section, section  # 3 of 6 would not be a majority
    assert "Did not vote" not in section and gone.title() not in section, section
    assert g.state()["voting"] == 0

    # turn 2 passes with no moves at all: those who voted took part, and keep their vote
    g.to_deadline()
    seats = {p["power"]: p["state"] for p in g.judge.store.players(g.game()["id"])}
    assert seats == {gone: "abandoned", **{c: "active" for c in others}}, seats


def test_the_reminder_of_the_vote_goes_to_the_players_only(tmp_path):
    g = DipGame(tmp_path, players=5)
    gone, others, label = abandoned_at_turn_1(g, "more-for-than-against")
    g.sg("SET REMINDER 24h")
    g.clock.to(g.vote_deadline() - timedelta(hours=23))
    reminders = [m for m in g.tick() if "reminder" in m.subject]
    assert {m.rcpt for m in reminders} == {g.countries[c] for c in others}, reminders
    # nobody voted: the vote closes at its deadline, the abandoned country not named
    result = g.to_all(g.to_vote_deadline(), "votes on the proposals of turn 1")
    section = result.body.split(f"{label}: Support actions")[1].split("\n\n")[0]
    assert "Did not vote" in section and gone.title() not in section, section
