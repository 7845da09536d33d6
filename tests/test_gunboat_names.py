"""Gunboat (Stab! GUNBOAT): a player knows the other powers by their pseudonyms only, so what
he writes is read by those names and the replies name the powers so. The judge read
``PRESS TO <real name>`` and answered "press sent to <pseudonym>", and the reply to DRAW
listed the survivors' real names: either told who plays what (found by the season
simulator)."""

from __future__ import annotations

import json
import re

import pytest
from mailkit import POWERS, InProcessJudge

GM = "gm@players.test"


def addr(power: str) -> str:
    return f"{power.lower()}@players.test"


@pytest.fixture
def gunboat(tmp_path):
    j = InProcessJudge(tmp_path)
    j.send(GM, "CREATE gb gm-pass VARIANT stab GUNBOAT\nOPEN")
    for p in POWERS:
        j.send(addr(p), f"SIGNON {p} gb pw-{p.lower()}")
    j.send(GM, "MASTER gb gm-pass\nSTART")
    names = json.loads(j.store.game("gb")["settings"])["pseudonyms"]
    return j, names


def said(j: InProcessJudge, power: str, body: str) -> tuple[str, list]:
    """The reply to ``power``'s mail (its text on one line) and the other mail it made."""
    sent = j.send(addr(power), f"SIGNON {power} gb pw-{power.lower()}\n{body}")
    reply = next(m for m in sent if m.rcpt == addr(power) and "Re: " in m.subject)
    return " ".join(reply.body.split()), [m for m in sent if m is not reply]


def others_named(text: str, reader: str) -> list[str]:
    return [p for p in POWERS if p != reader and re.search(rf"\b{p}\b", text, re.I)]


def test_gunboat_press_to_a_real_name_is_refused_as_an_unknown_name(gunboat):
    j, names = gunboat
    refused = {}
    for name in ("England", "ENG", "Narnia"):
        text, sent = said(j, "FRANCE", f"PRESS TO {name}\nAn alliance?\nENDPRESS")
        assert "ERROR: a power named is none of game gb's" in text and not sent, text
        assert names["ENGLAND"] not in text, text
        refused[name] = text.split("> PRESS TO")[1].split(" ", 2)[2]
    assert refused["England"] == refused["ENG"] == refused["Narnia"]
    text, _ = said(j, "FRANCE", "STATUS gb")  # where the refusal sends him
    assert all(names[p] in text for p in POWERS), text

    # by the pseudonym (a unique beginning of it, any case): sent, and named so
    text, sent = said(j, "FRANCE", f"PRESS TO {names['ENGLAND'][:4].lower()}, France\n"
                                   "An alliance?\nENDPRESS")
    assert f"press sent to {names['ENGLAND']} in game gb" in text, text
    assert [m.rcpt for m in sent] == [addr("ENGLAND")], sent
    # the master knows who is who: the real name is his to use
    sent = j.send(GM, "MASTER gb gm-pass\nPRESS TO England\nA word from the master.\nENDPRESS")
    assert [m.rcpt for m in sent if "press from" in m.subject] == [addr("ENGLAND")], sent


def test_gunboat_draw_reply_names_the_powers_as_the_voter_knows_them(gunboat):
    j, names = gunboat
    text, _ = said(j, "AUSTRIA", "DRAW")
    shown = sorted([f"Austria ({names['AUSTRIA']})"]
                   + [names[p] for p in POWERS if p != "AUSTRIA"])
    assert f"Your draw vote ({', '.join(shown)}) is recorded" in text, text
    assert not others_named(text, "AUSTRIA"), text

    j.send(GM, "MASTER gb gm-pass\nSET DRAW SUBSET")
    text, _ = said(j, "AUSTRIA", f"DRAW {names['ITALY']} Austria")
    pair = sorted([f"Austria ({names['AUSTRIA']})", names["ITALY"]])
    assert f"Your draw vote ({', '.join(pair)}) is recorded" in text, text
    text, _ = said(j, "AUSTRIA", "DRAW Italy")
    assert "ERROR: a power named is none of game gb's" in text, text
    assert names["ITALY"] not in text, text


def test_gunboat_takeover_names_the_power_by_its_pseudonym(gunboat):
    """attack31: TAKEOVER took a real name, and its refusal of a power with a player came
    before the check of the password: after 'Kipper's player was ejected' anyone could send
    TAKEOVER <real name> gb abc for each power and read which answer differed (the password
    too short) to learn whose pseudonym Kipper is, without taking the seat. A newcomer names
    the power as everyone knows it, and a real name is refused as an unknown name is."""
    j, names = gunboat
    sent = j.send(GM, "MASTER gb gm-pass\nEJECT France")
    reply = next(m for m in sent if m.rcpt == GM and "Re: " in m.subject)
    assert f"TAKEOVER {names['FRANCE']} gb" in reply.flat, reply.body
    [told] = [m for m in sent if m.rcpt == addr("ITALY")]  # how, by the name Italy knows
    assert f"TAKEOVER {names['FRANCE']} gb" in told.flat and "France" not in told.body, told.body
    spy = "spy@players.test"
    answers = {}
    for p in POWERS:
        sent = j.send(spy, f"TAKEOVER {p.title()} gb abc")
        [answer] = [m for m in sent if m.rcpt == spy]
        answers[p] = answer.body.split("> TAKEOVER")[1].split("\n", 2)[2]
        assert names["FRANCE"] not in answer.body
    assert len(set(answers.values())) == 1, answers  # France's answer is everyone's
    # by its pseudonym, the newcomer takes it over and is told its power
    newcomer = "new@players.test"
    sent = j.send(newcomer, f"TAKEOVER {names['FRANCE']} gb newpass")
    reply = next(m for m in sent if m.rcpt == newcomer and "Re: " in m.subject)
    assert "You now play France in game gb" in reply.flat, reply.body
    assert j.store.player(j.store.game("gb")["id"], "FRANCE")["address"] == newcomer
    others = [m for m in sent if m.rcpt == addr("ITALY")]
    assert others and all("France" not in m.body for m in others), others


def test_gunboat_takeover_waiting_for_confirmation_names_no_power(gunboat):
    """attack31: a TAKEOVER from an address that has not confirmed waits, and the reply said
    'your TAKEOVER of France in game gb waits': declined with NO, it cost the asker nothing
    to learn whose pseudonym the free seat is."""
    j, names = gunboat
    j.send(GM, "MASTER gb gm-pass\nEJECT France")
    j.confirm_senders = False
    fresh = "fresh@elsewhere.test"
    sent = j.send(fresh, f"TAKEOVER {names['FRANCE']} gb newpass")
    [reply] = [m for m in sent if m.rcpt == fresh]
    assert "CONFIRM" in reply.flat, reply.body
    assert "France" not in reply.body.replace(f"TAKEOVER {names['FRANCE']}", ""), reply.body
    assert f"TAKEOVER of {names['FRANCE']} in game gb" in reply.flat, reply.body
    # confirmed, the seat is taken and the newcomer told its power
    code = re.search(r"CONFIRM (\w+)", reply.flat).group(1)
    j.send(fresh, f"CONFIRM {code}")
    assert j.store.player(j.store.game("gb")["id"], "FRANCE")["address"] == fresh


def test_gunboat_signon_to_the_free_seat_is_answered_as_to_any_other(gunboat):
    """attack31: after an EJECT, SIGNON <real name> gb <anything> answered 'France in game gb
    has no player' for the free seat and 'wrong password' for the others: a stranger learnt
    whose pseudonym the ejected power is. Now every power gets the wrong-password answer,
    counted towards the lock alike."""
    j, names = gunboat
    j.send(GM, "MASTER gb gm-pass\nEJECT France")
    spy = "spy@players.test"

    def answer(body: str) -> str:
        [m] = [m for m in j.send(spy, body) if m.rcpt == spy]
        text = m.body.split("\n\n", 1)[1]
        for p in POWERS:
            text = text.replace(p.title(), "X")
        return text

    for k in range(5):  # the fifth locks each: said alike too
        said = {p: answer(f"SIGNON {p.title()} gb guess{k}") for p in ("AUSTRIA", "FRANCE")}
        assert said["AUSTRIA"] == said["FRANCE"], said
        assert "wrong password for X in game gb" in said["FRANCE"], said
    assert "LIMIT: 5 wrong passwords" in said["FRANCE"], said


def test_gunboat_list_and_summary_name_the_players_as_everyone_knows_them(gunboat):
    """attack31: LIST gb listed the powers that have a player by their real names (every one
    but France after France's player was ejected, beside 'Walrus OPEN') and SUMMARY's player
    changes said 'S1901M France ejected': either tied the free pseudonym to France, for any
    stranger. They name the powers by their pseudonyms (the reader's own by its name too),
    in the order of the names shown; the master still sees both."""
    j, names = gunboat
    j.send(GM, "MASTER gb gm-pass\nEJECT France")
    for sender, body in (("stranger@x.test", "LIST gb\nSUMMARY gb"),
                         (addr("ITALY"), "SIGNON ITALY gb pw-italy\nLIST gb\nSUMMARY gb")):
        [m] = [m for m in j.send(sender, body) if m.rcpt == sender]
        players = m.body.split("\nPlayers:\n")[1].split("\nObservers")[0]
        changes = m.body.split("Player changes:\n")[1].split("\n\n")[0]
        for p in POWERS:
            if not (p == "ITALY" and sender == addr(p)):
                assert p.title() not in players and p.title() not in changes, m.body
        assert f"{names['FRANCE']} ejected" in changes, m.body
        shown = [line.split()[0] for line in players.splitlines() if line.strip()]
        assert names["FRANCE"] not in shown and shown == sorted(shown), players
    [m] = [m for m in j.send(GM, "MASTER gb gm-pass\nSUMMARY gb") if m.rcpt == GM]
    assert "France" in m.body.split("Player changes:\n")[1], m.body



def to_fall(j: InProcessJudge) -> None:
    """Game gb placed and played through its Spring: F1901M."""
    from stabkit import PLACEMENT
    from stabkit import SPRING as STAB_SPRING

    for p in POWERS:
        j.send(addr(p), f"SIGNON {p} gb pw-{p.lower()}\n"
               + "\n".join(PLACEMENT[p] + STAB_SPRING[p]))
    assert j.store.game("gb")["phase"] == "F1901M"


def test_a_vote_tells_nothing_of_the_hidden_units_of_a_power_without_centres(gunboat):
    """attack leftover: the survivors a vote counted were the powers with a centre or a unit,
    so a DRAW or CONCEDE naming a power with no centre left (the counts are public, rule 3)
    was accepted while it still had units and refused as 'eliminated' once it had none: the
    reply told whether its units, which nobody sees, were still on the board, and a draw all
    the others voted for waited for its vote. In a game that hides the board the survivors
    are the powers with a centre (after a Winter no other power has a unit). Italy keeps its
    units but loses its centres, Turkey loses both (by the master's EDIT, for the test)."""
    j, names = gunboat
    to_fall(j)
    j.send(GM, "MASTER gb gm-pass\nSET DRAW SUBSET\n" + "\n".join(
        [f"EDIT OWNER {c} NONE" for c in ("VEN", "ROM", "NAP", "ANK", "CON", "SMY")]
        + [f"EDIT REMOVE {u}" for u in ("F ANK", "A CON", "A SMY")]))
    replies = {}
    for p in ("ITALY", "TURKEY"):
        draw, _ = said(j, "AUSTRIA", f"DRAW {names[p]} Austria")
        concede, _ = said(j, "AUSTRIA", f"CONCEDE {names[p]}")
        replies[p] = (draw.split("> DRAW")[1].split(" ", 3)[3].split(" Orders for")[0],
                      concede.split("> CONCEDE")[1].split(" ", 2)[2].split(" Orders for")[0])
    assert replies["ITALY"][0].replace(names["ITALY"], names["TURKEY"]) == replies["TURKEY"][0]
    assert replies["ITALY"][1].replace(names["ITALY"], names["TURKEY"]) == replies["TURKEY"][1]
    # a pseudonym is never refused for its centres (review34: the counts are public by power)
    assert "is recorded" in replies["ITALY"][0], replies["ITALY"]
    text, _ = said(j, "ITALY", "DRAW")  # its player knows its units; the rule is the same
    assert "Italy has no supply centre left and does not vote" in text, text
    # the powers with centres all vote for a draw: it is agreed, Italy's units waited for by
    # nobody (its vote, which it may still send, is not needed)
    for p in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA"):
        text, _ = said(j, p, "DRAW")
    assert "Every survivor has voted for the same draw" in text, text
    assert j.store.game("gb")["status"] == "finished"


def test_gunboat_result_names_the_winner_as_everyone_knows_it(gunboat):
    """review33: the game-over notice said '<pseudonym> wins', and STATUS ('Won by France'),
    LIST ('Result: conceded: France') and SUMMARY ('(conceded: France)') said whose pseudonym
    it was, to anyone; the master's ROLLBACK reopens such a game (d8ff048: in the phase it
    ended in, too), with a pseudonym tied to its power. They name it as the reader knows it;
    the master still sees the real name."""
    j, names = gunboat
    for p in POWERS:
        if p != "FRANCE":
            j.send(addr(p), f"SIGNON {p} gb pw-{p.lower()}\nCONCEDE {names['FRANCE']}")
    assert j.store.game("gb")["status"] == "finished"
    for sender, body in (("stranger@x.test", "STATUS gb\nLIST gb\nSUMMARY gb"),
                         (addr("ITALY"), "SIGNON ITALY gb pw-italy\nSTATUS gb\nLIST gb\n"
                                         "SUMMARY gb")):
        [m] = [m for m in j.send(sender, body) if m.rcpt == sender]
        assert not re.search(r"\bFrance\b", m.body, re.I), m.body
        assert names["FRANCE"] in m.body.split("Result:")[1].splitlines()[0], m.body
    [m] = [m for m in j.send(GM, "MASTER gb gm-pass\nLIST gb\nSUMMARY gb") if m.rcpt == GM]
    assert "conceded: France" in m.body, m.body


def test_a_vote_naming_a_pseudonym_does_not_tell_whether_its_power_has_centres(gunboat):
    """review34 of f7ab6a3: the centre counts are public by power (SUMMARY, the Winter
    report), not by pseudonym, so 'DRAW Walrus Austria' refused '<Walrus> cannot share a
    draw: eliminated' (and CONCEDE '<Walrus> has been eliminated') told that Walrus is one of
    the powers without centres: with one such power, whose it is. A vote naming a pseudonym
    is answered alike whether or not its power has a centre; a draw is shared among the
    powers named that still have one, and a concession to one without can never be agreed."""
    j, names = gunboat
    to_fall(j)
    j.send(GM, "MASTER gb gm-pass\nSET DRAW SUBSET\n" + "\n".join(
        f"EDIT OWNER {c} NONE" for c in ("VEN", "ROM", "NAP")))
    replies = {}
    for p in ("ITALY", "ENGLAND"):
        draw, _ = said(j, "AUSTRIA", f"DRAW {names[p]} Austria")
        concede, _ = said(j, "AUSTRIA", f"CONCEDE {names[p]}")
        replies[p] = (draw.split("> DRAW")[1].split(" ", 3)[3].split(" Orders for")[0],
                      concede.split("> CONCEDE")[1].split(" ", 2)[2].split(" Orders for")[0])
    assert "ERROR" not in replies["ITALY"][0] + replies["ITALY"][1], replies["ITALY"]
    for i in (0, 1):  # the same words, the names aside (the order of the names shown too)
        strip = [r[i].replace(names["ITALY"], "<name>").replace(names["ENGLAND"], "<name>")
                 for r in (replies["ITALY"], replies["ENGLAND"])]
        assert strip[0] == strip[1], replies
    # every survivor concedes to Italy's pseudonym: no centre, so no winner
    for p in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA", "TURKEY"):
        said(j, p, f"CONCEDE {names['ITALY']}")
    assert j.store.game("gb")["status"] == "active"
    # every survivor votes to draw with Italy's pseudonym and Austria: Austria's draw
    for p in ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA", "TURKEY"):
        text, _ = said(j, p, f"DRAW {names['ITALY']} {names['AUSTRIA']}")
    assert "Every survivor has voted for the same draw" in text, text
    game = j.store.game("gb")
    assert game["status"] == "finished" and game["result"] == "drawn: Austria", game["result"]
