"""A Stab! game by mail, in process (the judge's real storage, reading, acting and sender):
each player receives its private notice and only its own, and nothing it receives reveals
what the rules hide from it (tests/stabkit.py checks every mail against the full
adjudication)."""

from __future__ import annotations

import pytest
from mailkit import InProcessBackend, InProcessJudge, ReversedRelayBackend
from stabkit import play_stab_game


def test_stab_game_by_mail(tmp_path):
    judge = InProcessJudge(tmp_path)
    reports = play_stab_game(InProcessBackend(judge), "stab1", lambda p: f"{p.lower()}@p.test",
                             "gm@p.test", tmp_path / "judge.db")
    assert len(reports["FRANCE"]) == 3 and len(reports["GM"]) == 3


@pytest.mark.parametrize("next_season", [False, True])
def test_stab_game_whatever_order_the_relay_hands_the_mail_over(tmp_path, next_season):
    """The game over the real servers (test_e2e_stab) sends each phase's mails together:
    handed to the judge last-sent first, France's Winter mail was read after Germany's,
    which completed the phase with the build France's draft had left: France's was read in
    Spring (an ERROR reply). One order of many: StabMailGame.play also refuses to send a
    batch in which a power's orders are already complete (the Autumn's CI failure)."""
    judge = InProcessJudge(tmp_path)
    play_stab_game(ReversedRelayBackend(judge), "rev1", lambda p: f"{p.lower()}@p.test",
                   "gm@p.test", tmp_path / "judge.db", next_season=next_season)


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


def test_stab_retreats_and_builds_with_the_next_seasons_orders(tmp_path):
    judge = InProcessJudge(tmp_path)
    reports = play_stab_game(InProcessBackend(judge), "ns1", lambda p: f"{p.lower()}@p.test",
                             "gm@p.test", tmp_path / "judge.db", next_season=True)
    assert [m.subject for m in reports["ITALY"]] == [
        "ns1: Spring 1901 report", "ns1: Autumn 1901 report", "ns1: Spring 1902 report"]


def test_the_checks_catch_a_private_event_told_to_every_player(tmp_path, monkeypatch):
    """If the events of the turn gave every retreat and lost centre to every power, the mail
    checks would catch the notices that say too much."""
    import dataclasses

    import pytest
    from mailkit import POWERS

    from judge.variants.stab.flow import StabFlow as StabPlugin

    real = StabPlugin.turn_events

    def told_to_all(self, variant, steps):
        return [dataclasses.replace(e, audience=frozenset(POWERS))
                if e.kind in ("retreat", "centre_lost") else e
                for e in real(self, variant, steps)]

    monkeypatch.setattr(StabPlugin, "turn_events", told_to_all)
    judge = InProcessJudge(tmp_path)
    with pytest.raises(AssertionError, match="retreated"):
        play_stab_game(InProcessBackend(judge), "leaky", lambda p: f"{p.lower()}@p.test",
                       "gm@p.test", tmp_path / "judge.db")


def test_the_checks_catch_a_reply_naming_another_powers_unit(tmp_path, monkeypatch):
    """If acknowledgements were checked against the whole board, the reply check would
    catch the standard reader's "the unit in Munich is not yours (it is GERMANY's)"."""
    import pytest

    from judge.variants.stab import flow as stab

    real = stab.blind_position

    def whole_board(rules, pos, power, own, text):
        # (the placement is read against the power's own placed units either way)
        return real(rules, pos, power, own, text) if rules.placement_pending(pos) else pos

    monkeypatch.setattr(stab, "blind_position", whole_board)
    judge = InProcessJudge(tmp_path)
    with pytest.raises(AssertionError, match="depends on other powers' units"):
        play_stab_game(InProcessBackend(judge), "leaky", lambda p: f"{p.lower()}@p.test",
                       "gm@p.test", tmp_path / "judge.db")


def test_a_removal_of_another_powers_unit_is_answered_as_if_it_were_not_there():
    """Winter: Germany, with a removal due, orders the removal of France's A(Par). The
    standard answer ("it is FRANCE's") would reveal the French unit."""
    from stabkit import VARIANT

    from judge.engine.orders import Unit
    from judge.engine.position import Phase, Position
    from judge.games.game import read_order_lines

    units = [Unit("GERMANY", "A", "MUN"), Unit("GERMANY", "A", "BER"),
             Unit("FRANCE", "A", "PAR")]
    centres = {"GERMANY": {"MUN"}, "FRANCE": {"PAR", "BRE", "MAR"}}
    pos = Position("stab", Phase("W", 1901, "A"), units, centres,
                   extra={"retreats": "with_orders"})
    alone = Position("stab", pos.phase, units[:2], centres, extra=dict(pos.extra))
    said = read_order_lines(VARIANT, pos, "GERMANY", ["REMOVE A PAR"])
    assert said == read_order_lines(VARIANT, alone, "GERMANY", ["REMOVE A PAR"])
    assert said[0]["error"] and "FRANCE" not in said[0]["error"].upper(), said
    assert read_order_lines(VARIANT, pos, "GERMANY", ["REMOVE A BER"])[0]["order"] == \
        "REMOVE A BER"


def test_orders_in_the_seeds_notation_and_conditional_retreats_are_read():
    """The seed's notation and its "If necessary ... retreats to" are read; a conditional
    retreat for a unit that is not the power's says only that it has none there."""
    from stabkit import RULES, VARIANT

    from judge.variants.stab.flow import FLOW as PLUGIN

    pos, _ = RULES.place(RULES.initial_position(), [])
    lines = PLUGIN.read_lines(VARIANT, pos, "FRANCE", [
        "A(Mar) & A(Par) S A(Bur)", "If necessary F(Bre) retreats to ENG, Pic",
        "F(Bre) S F(ENG)-Pic", "IF DISLODGED F NTH R EDI"])
    assert [(x["order"], x["error"]) for x in lines] == [
        ("A MAR S A BUR", None),
        ("A PAR S A BUR", None),
        ("IF DISLODGED F BRE R ENG, PIC", None),  # beside F(Bre)'s own order, not replacing it
        ("F BRE S F ENG - PIC", None),
        (None, "no unit in North Sea"),
    ]


def test_next_seasons_orders_are_checked_where_the_power_knows_its_units():
    """Retreats taken with the next season's orders: during the pending Winter, a movement
    line for one of the power's units is checked (against its own units only); a line for a
    place its retreats or builds will decide is taken as written and checked when they are
    done; a conditional retreat is refused, with the reason."""
    from stabkit import RULES, VARIANT

    from judge.engine.position import Phase
    from judge.variants.stab.flow import FLOW as PLUGIN

    pos, _ = RULES.place(RULES.initial_position(retreats="next_season"), [])
    pos.phase = Phase("W", 1901, "A")
    said = {x["text"]: x["error"] for x in PLUGIN.read_lines(VARIANT, pos, "FRANCE", [
        "BUILD A MAR", "A PAR - KIE", "IF A BUR R GAS: A PAR - BUR", "A GAS - SPA",
        "IF DISLODGED F BRE R ENG"])}
    assert said == {
        "BUILD A MAR": None,
        "A PAR - KIE": "Paris is not adjacent to Kiel, and no convoy could carry an army there",
        "IF A BUR R GAS: A PAR - BUR": None,
        "A GAS - SPA": None,
        "IF DISLODGED F BRE R ENG": "in this game retreats are ordered with the next "
                                    "season's orders",
    }
