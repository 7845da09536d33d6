"""One test (at least) per clause of the Stab! rules 1-6 and Gunboat Stab!, public and
private side. Positions are small and written out; orders use the seed's notation."""

from __future__ import annotations

import pytest
from mailkit import Got
from stabkit import PLUGIN as STAB_FLOW
from stabkit import check_report, sections
from test_stab_leak import check_public

from judge.engine.errors import OrderError
from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
from judge.variants import get_variant
from judge.variants.stab.report import StabSettings, render, stab_turn_events
from judge.variants.stab.rules import NEXT_SEASON, WITH_ORDERS, split_line

VARIANT = get_variant("stab")
RULES = VARIANT.rules


def position(units: dict[str, list[str]], season: str = "S", centres=None,
             mode: str = WITH_ORDERS) -> Position:
    if centres is None:
        centres = {p: set(VARIANT.board.home_centres[p]) for p in units}
    return Position("stab", Phase(season, 1903, "M"),
                    [Unit.parse(p, u) for p, us in units.items() for u in us],
                    {p: set(cs) for p, cs in centres.items()}, extra={"retreats": mode})


def play(pos: Position, lines: dict[str, list[str]], settings: StabSettings | None = None):
    """Adjudicate a movement phase (and the automatic retreats); the rendered reports, the
    public one checked by the leak test's oracle of rule 2 as well."""
    orders = [(p, VARIANT.read_order(pos, p, one))
              for p, ls in lines.items() for line in ls for one in split_line(line)]
    out = VARIANT.adjudicate(pos, orders)
    steps = [(out, orders)]
    if RULES.retreats_are_automatic(out.position):
        steps.append((VARIANT.adjudicate(out.position, []), []))
    events = stab_turn_events(RULES, steps)
    public, private = render(events, settings or StabSettings())
    if settings is None and pos.phase.kind == "M":
        check_public(out, orders, steps[1][0] if len(steps) > 1 else None, public, set())
    return public, private, steps


def entries(public: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in public.splitlines()[1:]:
        head, sep, rest = line.partition(": ")
        if sep and not rest.endswith("[Disbanded]") and head not in ("NMR", "Supply centres"):
            out[head] = [e.strip() for e in rest.split(";") if e.strip()]
    return out


# ----------------------------------------------------------- rule 1: placement
def test_placement_chooses_types_and_home_spaces():
    start = RULES.initial_position()
    assert start.units == [] and start.extra["placement"] == "pending"
    lines = {"ENGLAND": ["PLACE A LON", "PLACE A EDI", "PLACE A LVP", "A(Lon)-Wal"],
             "RUSSIA": ["PLACE F STP/NC", "PLACE A MOS", "PLACE F SEV", "PLACE A WAR"]}
    orders = [(p, VARIANT.read_order(start, p, line)) for p, ls in lines.items() for line in ls]
    out = VARIANT.adjudicate(start, orders)
    placed = {str(u) for u in out.previous.units if u.power in lines}
    assert placed == {"A LON", "A EDI", "A LVP", "F STP/NC", "A MOS", "F SEV", "A WAR"}
    assert Unit("ENGLAND", "A", "WAL") in out.position.units
    assert "placement" not in out.position.extra
    # Powers that placed nothing start with the standard units.
    assert Unit("FRANCE", "F", "BRE") in out.position.units


@pytest.mark.parametrize("power, line, reason", [
    ("FRANCE", "PLACE F PAR", "inland"),
    ("FRANCE", "PLACE A BUR", "not one of FRANCE's home spaces"),
    ("RUSSIA", "PLACE F STP", "which coast"),
    ("FRANCE", "PLACE BRE", r"army \(A\) or a fleet \(F\)"),
])
def test_placement_lines_are_checked(power, line, reason):
    with pytest.raises(OrderError, match=reason):
        VARIANT.read_order(RULES.initial_position(), power, line)


def test_placement_only_with_the_first_orders():
    with pytest.raises(OrderError, match="first Spring"):
        VARIANT.read_order(position({"FRANCE": ["A PAR"]}), "FRANCE", "PLACE A MAR")


def test_placement_with_the_wrong_count_falls_back_to_standard_units():
    start = RULES.initial_position()
    orders = [("FRANCE", VARIANT.read_order(start, "FRANCE", "PLACE A PAR")),
              ("FRANCE", VARIANT.read_order(start, "FRANCE", "PLACE A MAR"))]
    out = VARIANT.adjudicate(start, orders)
    assert all(r.result == "fails" and "places 3 units, not 2" in r.reason for r in out.results[:2])
    assert sorted(str(u) for u in out.previous.units_of("FRANCE")) == ["A MAR", "A PAR", "F BRE"]


def test_placement_is_never_published():
    start = RULES.initial_position()
    lines = {"FRANCE": ["PLACE A PAR", "PLACE A MAR", "PLACE A BRE"],
             "GERMANY": ["PLACE F KIE", "PLACE A BER", "PLACE A MUN"]}
    orders = [(p, VARIANT.read_order(start, p, line)) for p, ls in lines.items() for line in ls]
    out = VARIANT.adjudicate(start, orders)
    public, private = render(stab_turn_events(RULES, [(out, orders)]))
    assert entries(public) == {}
    assert "Bre" not in public and "Kie" not in public
    assert "You placed: A(Bre), A(Mar), A(Par)." in private["FRANCE"].splitlines()
    assert "Bre" not in private["GERMANY"] and "Kie" not in private["FRANCE"]


# --------------------------------------------------------- rule 2: failed moves
def test_failed_move_its_supports_and_the_attacked_unit():
    pos = position({"FRANCE": ["A BUR", "A RUH"], "GERMANY": ["A MUN", "A KIE", "A BER"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Bur)-Mun", "A(Ruh) S A(Bur)-Mun"],
                              "GERMANY": ["A(Mun) H", "A(Kie) S A(Mun)", "A(Ber) S A(Mun)"]})
    got = entries(public)
    assert got["FRANCE"] == ["A(Bur)-Mun", "A(Ruh) S A(Bur)-Mun"]
    # Mun received an unsuccessful attack: it exists; of its two supports one was needed,
    # the first alphabetically (both are German): Ber.
    assert got["GERMANY"] == ["A(Mun)", "A(Ber) S A(Mun)"]
    assert "Kie" not in public


def test_supports_of_other_players_are_revealed_first():
    pos = position({"FRANCE": ["A BUR", "A RUH"], "GERMANY": ["A MUN", "A BER"],
                    "AUSTRIA": ["A TYR"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Bur)-Mun", "A(Ruh) S A(Bur)-Mun"],
                              "GERMANY": ["A(Ber) S A(Mun)"], "AUSTRIA": ["A(Tyr) S A(Mun)"]})
    got = entries(public)
    assert got["AUSTRIA"] == ["A(Tyr) S A(Mun)"]
    assert "Ber" not in public


def test_player_may_say_which_supports_to_reveal():
    pos = position({"FRANCE": ["A BUR", "A RUH"], "GERMANY": ["A MUN", "A BER", "A KIE"],
                    "AUSTRIA": ["A TYR"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Bur)-Mun", "A(Ruh) S A(Bur)-Mun"],
                              "GERMANY": ["A(Ber) S A(Mun)", "A(Kie) S A(Mun)", "REVEAL A(Kie)"],
                              "AUSTRIA": ["A(Tyr) S A(Mun)"]})
    got = entries(public)
    # (A(Mun) had no order, so it comes after the orders Germany wrote.)
    assert got["GERMANY"] == ["A(Kie) S A(Mun)", "A(Mun)"]
    assert "Ber" not in public and "Tyr" not in public


def test_cut_support_is_shown_without_what_it_supported():
    pos = position({"FRANCE": ["A BUR"], "GERMANY": ["A MUN", "A SIL"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Bur)-Mun"], "GERMANY": ["A(Mun) S A(Sil)"]})
    got = entries(public)
    assert got == {"FRANCE": ["A(Bur)-Mun"], "GERMANY": ["A(Mun)*S"]}
    assert "Sil" not in public


# ----------------------------------------------------- rule 2: successful moves
def test_uncontested_successful_moves_are_secret():
    pos = position({"FRANCE": ["A PAR", "F BRE"], "GERMANY": ["A MUN"]})
    public, private, _ = play(pos, {"FRANCE": ["A(Par)-Bur", "F(Bre)-MAO"],
                                    "GERMANY": ["A(Mun)-Ruh"]})
    assert entries(public) == {}
    assert "No contested movement." in public
    assert "Your units: A(Bur), F(MAO)." in private["FRANCE"].splitlines()
    assert "Bur" not in private["GERMANY"]


def test_successful_move_revealed_when_it_makes_another_powers_move_fail():
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A HOL"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                              "GERMANY": ["A(Hol)-Bel"]})
    assert entries(public) == {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                               "GERMANY": ["A(Hol)-Bel"]}


def test_successful_move_revealed_when_it_dislodges():
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                              "GERMANY": ["A(Bel) H"]})
    assert entries(public) == {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                               "GERMANY": ["A(Bel) [Dislodged]"]}


# --------------------------------------------------------------- self-standoffs
def test_self_standoff_is_secret():
    pos = position({"GERMANY": ["A KIE", "F SWE"], "FRANCE": ["A PAR"]})
    public, _, _ = play(pos, {"GERMANY": ["A(Kie)-Den", "F(Swe)-Den"], "FRANCE": ["A(Par)-Bur"]})
    assert entries(public) == {}


def test_self_standoff_revealed_when_another_players_move_fails_by_it():
    pos = position({"GERMANY": ["A KIE", "F SWE"], "RUSSIA": ["F BAL"]})
    public, _, _ = play(pos, {"GERMANY": ["A(Kie)-Den", "F(Swe)-Den"], "RUSSIA": ["F(BAL)-Den"]})
    assert entries(public) == {"GERMANY": ["A(Kie)-Den", "F(Swe)-Den"], "RUSSIA": ["F(BAL)-Den"]}


def test_self_standoff_that_stops_an_attack_on_one_of_its_units_is_revealed_whole():
    # F(NAO) stays because it bounced with F(Bre) at MAO, and that stops England's attack.
    pos = position({"FRANCE": ["F NAO", "F BRE"], "ENGLAND": ["F NWG"]})
    public, _, _ = play(pos, {"FRANCE": ["F(NAO)-MAO", "F(Bre)-MAO"], "ENGLAND": ["F(NWG)-NAO"]})
    assert entries(public) == {"FRANCE": ["F(NAO)-MAO", "F(Bre)-MAO"],
                               "ENGLAND": ["F(NWG)-NAO"]}
    # Without the attack, nothing of it.
    public, _, _ = play(pos, {"FRANCE": ["F(NAO)-MAO", "F(Bre)-MAO"], "ENGLAND": ["F(NWG) H"]})
    assert entries(public) == {}


def test_self_standoff_stays_secret_when_the_attack_on_its_unit_fails_for_another_reason():
    # England and Russia bounce each other at Kie with strength 2: A(Kie) leaving or not
    # changes nothing, so the standoff at Den did not make their moves fail.
    pos = position({"GERMANY": ["A KIE", "F SWE"], "ENGLAND": ["F HEL", "A HOL"],
                    "RUSSIA": ["F BAL", "A BER"]})
    public, _, _ = play(pos, {"GERMANY": ["A(Kie)-Den", "F(Swe)-Den"],
                              "ENGLAND": ["F(HEL)-Kie", "A(Hol) S F(HEL)-Kie"],
                              "RUSSIA": ["F(BAL)-Kie", "A(Ber) S F(BAL)-Kie"]})
    assert entries(public) == {"ENGLAND": ["F(HEL)-Kie", "A(Hol) S F(HEL)-Kie"],
                               "RUSSIA": ["F(BAL)-Kie", "A(Ber) S F(BAL)-Kie"],
                               "GERMANY": ["A(Kie)"]}  # only that it was attacked
    assert "Swe" not in public and "Den" not in public


def test_revealed_self_standoff_shows_the_own_unit_it_bounced_off():
    # Austria's F(ENG) stays because it moved into its own F(IRI); that stops England.
    pos = position({"AUSTRIA": ["F ENG", "F IRI"], "ENGLAND": ["F MAO"]})
    public, _, _ = play(pos, {"AUSTRIA": ["F(ENG)-IRI", "F(IRI) H"], "ENGLAND": ["F(MAO)-ENG"]})
    assert entries(public) == {"AUSTRIA": ["F(ENG)-IRI", "F(IRI)"], "ENGLAND": ["F(MAO)-ENG"]}


def test_failed_move_into_own_unit_dislodged_by_another_power_is_reported():
    pos = position({"ENGLAND": ["A TUS", "A ROM"], "AUSTRIA": ["A VEN", "A APU"]})
    public, _, _ = play(pos, {"ENGLAND": ["A(Tus)-Rom", "A(Rom) H"],
                              "AUSTRIA": ["A(Ven)-Rom", "A(Apu) S A(Ven)-Rom"]})
    assert entries(public) == {"ENGLAND": ["A(Tus)-Rom", "A(Rom) [Dislodged]"],
                               "AUSTRIA": ["A(Ven)-Rom", "A(Apu) S A(Ven)-Rom"]}
    # Into its own unit that stays, it is a self-standoff: secret.
    public, _, _ = play(pos, {"ENGLAND": ["A(Tus)-Rom", "A(Rom) H"],
                              "AUSTRIA": ["A(Ven) H", "A(Apu) H"]})
    assert entries(public) == {}


def test_move_into_own_unit_is_reported_when_another_power_also_moved_there():
    # Germany's attack on A(Bur) fails against its two supports; France's own A(Par)-Bur
    # took part in a space another power fought over: no self-standoff.
    pos = position({"FRANCE": ["A PAR", "A BUR", "A MAR"], "GERMANY": ["A MUN", "A RUH"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Par)-Bur", "A(Mar) S A(Bur)"],
                              "GERMANY": ["A(Mun)-Bur", "A(Ruh) S A(Mun)-Bur"]})
    assert entries(public) == {"FRANCE": ["A(Par)-Bur", "A(Mar) S A(Bur)", "A(Bur)"],
                               "GERMANY": ["A(Mun)-Bur", "A(Ruh) S A(Mun)-Bur"]}


def test_army_whose_convoy_is_broken_attacks_nobody():
    # England's army never reaches Bel: its failed move is reported, the German unit in Bel
    # (which nothing attacked) is not.
    pos = position({"ENGLAND": ["A LON", "F ENG"], "FRANCE": ["F MAO", "F BRE"],
                    "GERMANY": ["A BEL"]})
    public, _, _ = play(pos, {"ENGLAND": ["A(Lon)-Bel", "F(ENG) C A(Lon)-Bel"],
                              "FRANCE": ["F(MAO)-ENG", "F(Bre) S F(MAO)-ENG"],
                              "GERMANY": ["A(Bel) H"]})
    assert entries(public) == {"ENGLAND": ["A(Lon)-Bel", "F(ENG) [Dislodged]"],
                               "FRANCE": ["F(MAO)-ENG", "F(Bre) S F(MAO)-ENG"]}


# ------------------------------------------------- dislodgements and retreats
def test_retreat_destination_private_to_owner_and_attacker():
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"], "ENGLAND": ["F LON"]})
    public, private, _ = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                                    "GERMANY": ["IF DISLODGED A(Bel) R Hol, Ruh"]})
    assert "Hol" not in public
    assert "Your A(Bel) retreated to Hol." in private["GERMANY"].splitlines()
    assert "GERMANY A(Bel) retreated to Hol." in private["FRANCE"].splitlines()
    assert "Hol" not in private["ENGLAND"]


def test_disband_for_lack_of_a_retreat_order_is_reported():
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"]})
    public, private, _ = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                                    "GERMANY": ["A(Bel) H"]})
    assert "GERMANY: A(Bel) [Disbanded]" in public.splitlines()
    assert "Your units: none." in private["GERMANY"].splitlines()


def test_disband_by_choice_is_reported():
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                              "GERMANY": ["IF DISLODGED A(Bel) disband"]})
    assert "GERMANY: A(Bel) [Disbanded]" in public.splitlines()


def test_failed_retreat_is_not_explained():
    # Two units dislodged, both retreating to Ruhr: both are disbanded, and nobody is told
    # why; the public sees two disbands like any other.
    pos = position({"FRANCE": ["A PIC", "A BUR", "A MUN", "A BER"],
                    "GERMANY": ["A BEL", "A KIE"]}, mode=WITH_ORDERS)
    public, private, _ = play(pos, {
        "FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel", "A(Mun)-Kie", "A(Ber) S A(Mun)-Kie"],
        "GERMANY": ["IF DISLODGED A(Bel) R Ruh", "IF DISLODGED A(Kie) R Ruh"]})
    assert {"GERMANY: A(Bel) [Disbanded]", "GERMANY: A(Kie) [Disbanded]"} <= set(public.splitlines())
    assert "Ruh" not in public and "Ruh" not in private["GERMANY"]


def test_conditional_retreat_takes_the_first_possible_destination():
    # Hol is occupied, so the second choice is taken; the player is not told why.
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"], "ENGLAND": ["A HOL"]})
    _, private, steps = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                                   "GERMANY": ["If necessary A(Bel) retreats to Hol, Ruh"]})
    assert Unit("GERMANY", "A", "RUH") in steps[-1][0].position.units
    assert "Your A(Bel) retreated to Ruh." in private["GERMANY"].splitlines()


def test_conditional_retreats_keep_no_trace_of_the_line_order():
    """The nightly season (invariant 6) found the position after a movement phase differ when
    a power's IF DISLODGED lines for two units came in the other order: they were kept in line
    order. Kept by unit now, the last one given for a unit counting as before."""
    pos = position({"FRANCE": ["A PIC", "A BUR", "A MUN", "A BER"],
                    "GERMANY": ["A BEL", "A KIE"]}, mode=WITH_ORDERS)
    france = ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel", "A(Mun)-Kie", "A(Ber) S A(Mun)-Kie"]
    lines = ["IF DISLODGED A(Bel) R Hol", "IF DISLODGED A(Kie) R Den",
             "IF DISLODGED A(Bel) R Ruh"]
    after = []
    for german in (lines, [lines[1], lines[0], lines[2]], [lines[0], lines[2], lines[1]]):
        *_, steps = play(pos, {"FRANCE": france, "GERMANY": german})
        after.append((steps[0][0].position.extra, sorted(map(str, steps[-1][0].position.units))))
    assert after[0] == after[1] == after[2], after
    assert {"A RUH", "A DEN"} <= set(after[0][1])  # the last one given for Bel counts


# ---------------------------------------------------- misorders, illegal orders
def test_misorders_are_not_revealed():
    # A(Mun) supports a move A(Ber) does not make: void. It is attacked, so it exists, but
    # its (void) support is neither shown nor shown as cut.
    pos = position({"FRANCE": ["A BUR"], "GERMANY": ["A MUN", "A BER"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Bur)-Mun"],
                              "GERMANY": ["A(Mun) S A(Ber)-Sil", "A(Ber) H"]})
    assert entries(public) == {"FRANCE": ["A(Bur)-Mun"], "GERMANY": ["A(Mun)"]}


def test_illegal_orders_are_not_revealed():
    pos = position({"FRANCE": ["A BUR"], "GERMANY": ["A MUN"]})
    orders = [("FRANCE", VARIANT.read_order(pos, "FRANCE", "A BUR - MUN"))]
    from judge.engine.orders import Move, UnitRef
    orders.append(("GERMANY", Move(UnitRef("A", "MUN"), "LON")))  # cannot be given
    out = VARIANT.adjudicate(pos, orders)
    public, _ = render(stab_turn_events(RULES, [(out, orders)]))
    assert entries(public) == {"FRANCE": ["A(Bur)-Mun"], "GERMANY": ["A(Mun)"]}
    assert "Lon" not in public


# -------------------------------------------------------- rule 3: Winter counts
def test_winter_report_gives_counts_only_and_each_player_its_centres():
    pos = position({"FRANCE": ["A BUR"], "GERMANY": ["A MUN"]}, season="F",
                   centres={"FRANCE": {"PAR", "MAR", "BRE"}, "GERMANY": {"MUN", "KIE", "BER"}})
    public, private, _ = play(pos, {"FRANCE": ["A(Bur)-Bel"], "GERMANY": ["A(Mun) H"]})
    assert "Supply centres: FRANCE 4, GERMANY 3" in public.splitlines()
    assert "Bel" not in public
    assert "Your supply centres: Bel, Bre, Mar, Par." in private["FRANCE"].splitlines()
    assert "Bel" not in private["GERMANY"]


def test_no_counts_in_spring():
    pos = position({"FRANCE": ["A BUR"]})
    public, private, _ = play(pos, {"FRANCE": ["A(Bur)-Bel"]})
    assert "Supply centres" not in public and "supply centres" not in private["FRANCE"]


# ---------------------------------------------- rule 4: retreats next season
def test_retreats_with_next_seasons_orders_and_conditional_orders():
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"]}, season="S",
                   mode=NEXT_SEASON)
    lines = {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"], "GERMANY": ["A(Bel) H"]}
    with pytest.raises(OrderError, match="next season"):
        VARIANT.read_order(pos, "GERMANY", "IF DISLODGED A(Bel) R Hol")
    orders = [(p, VARIANT.read_order(pos, p, line)) for p, ls in lines.items() for line in ls]
    out = VARIANT.adjudicate(pos, orders)
    assert out.position.phase == Phase("S", 1903, "R")
    assert not RULES.retreats_are_automatic(out.position)
    # The next season: Germany retreats to Hol; France's order depends on where it went.
    season = [("GERMANY", "A BEL R HOL"),
              ("FRANCE", "IF A BEL R HOL: A BEL - HOL"),
              ("FRANCE", "IF A BEL R RUH: A BEL - RUH")]
    steps, errors = RULES.adjudicate_season(out.position, season)
    assert errors == []
    assert [str(o.previous.phase) for o, _ in steps] == ["S1903R", "F1903M"]
    movement = steps[-1][0]
    results = {r.order: (r.result, r.reason) for r in movement.results}
    assert results["IF A BEL R RUH: A BEL - RUH"] == ("fails", "condition not met")
    # The conditional order that held was played: France attacked Holland and bounced.
    assert results["A BEL - HOL"][0] == "fails"
    public, private = render(stab_turn_events(RULES, steps))
    # The retreat is not public; the attack on the retreated unit is (it failed).
    assert entries(public) == {"FRANCE": ["A(Bel)-Hol"], "GERMANY": ["A(Hol)"]}
    assert "GERMANY A(Bel) retreated to Hol." in private["FRANCE"].splitlines()
    # Germany sent only its retreat this season and France only movement orders: no NMR.
    assert "NMR" not in public


def test_orders_on_retreats_only_where_retreats_come_next_season():
    pos = position({"FRANCE": ["A PIC"]}, mode=WITH_ORDERS)
    with pytest.raises(OrderError, match="sent with the movement orders"):
        VARIANT.read_order(pos, "FRANCE", "IF A BEL R HOL: A PIC - BEL")


# ------------------------------------------------------ rule 5: private notices
def test_every_season_each_player_learns_its_units_only():
    pos = position({"FRANCE": ["A PAR", "F BRE"], "ITALY": ["A VEN"]})
    _, private, _ = play(pos, {"FRANCE": ["A(Par)-Pic"], "ITALY": ["A(Ven)-Pie"]})
    assert "Your units: F(Bre), A(Pic)." in private["FRANCE"].splitlines()
    assert "Your units: A(Pie)." in private["ITALY"].splitlines()
    assert "Pie" not in private["FRANCE"] and "Pic" not in private["ITALY"]


def test_lost_centre_told_with_taker_and_unit():
    pos = position({"FRANCE": ["A BUR"], "GERMANY": ["A KIE"]}, season="F",
                   centres={"FRANCE": {"PAR"}, "GERMANY": {"MUN", "KIE"}})
    _, private, _ = play(pos, {"FRANCE": ["A(Bur)-Mun"]})
    assert "You lost Mun, taken by FRANCE with A(Mun)." in private["GERMANY"].splitlines()
    assert "lost" not in private["FRANCE"]


# ----------------------------------------------------------------- rule 6: NMR
def test_nmr_reported_but_units_only_by_the_general_rules():
    pos = position({"FRANCE": ["A BUR"], "GERMANY": ["A MUN", "A KIE"]})
    public, _, _ = play(pos, {"FRANCE": ["A(Bur)-Mun"]})
    assert "NMR: GERMANY" in public.splitlines()
    assert entries(public) == {"FRANCE": ["A(Bur)-Mun"], "GERMANY": ["A(Mun)"]}
    assert "Kie" not in public


# ------------------------------------------------------------------ Gunboat Stab!
def test_gunboat_pseudonyms_everywhere():
    names = {"AUSTRIA": "Walrus", "ENGLAND": "Teapot", "FRANCE": "Oyster",
             "GERMANY": "Pickle", "ITALY": "Gondola", "RUSSIA": "Samovar", "TURKEY": "Fez"}
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL", "A KIE"]}, season="F",
                   centres={"FRANCE": {"PAR"}, "GERMANY": {"BEL", "KIE"}})
    public, private, _ = play(pos, {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"],
                                    "GERMANY": ["IF DISLODGED A(Bel) R Hol"]},
                              StabSettings(game="gb1", pseudonyms=names))
    texts = [public, *private.values()]
    for text in texts:
        for power in names:
            assert power not in text.upper().replace(names[power].upper(), "")
    assert "Pickle: A(Bel) [Dislodged];" in public.splitlines()
    assert "Pickle A(Bel) retreated to Hol." in private["FRANCE"].splitlines()
    assert "You lost Bel, taken by Oyster with A(Bel)." in private["GERMANY"].splitlines()
    assert private["FRANCE"].splitlines()[0].endswith("private notice for Oyster")


# -------------------------------------------------------------- the GM's tool
def test_cli_prints_the_full_adjudication(tmp_path):
    import json
    import subprocess
    import sys

    pos = position({"GERMANY": ["A KIE", "F SWE"]})
    (tmp_path / "p.json").write_text(json.dumps(VARIANT.write_position(pos)))
    (tmp_path / "o.txt").write_text("GERMANY:\nA(Kie)-Den\nF(Swe)-Den\n")
    run = subprocess.run([sys.executable, "-m", "judge.cli", "adjudicate", "--variant", "stab",
                          "--position", str(tmp_path / "p.json"), "--orders",
                          str(tmp_path / "o.txt"), "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    # The self-standoff the public never sees is in the GM's full adjudication.
    assert [(r["order"], r["result"]) for r in data["results"]] == [
        ("A KIE - DEN", "fails"), ("F SWE - DEN", "fails")]


def test_blocked_retreat_is_accepted_and_fails_without_a_reason():
    # Next-season retreats: Germany retreats A(Bel) to Hol, where an English army stands.
    # The standard check would answer "it may retreat to Ruh": that tells what stands around
    # it. Stab! takes the order and the unit is disbanded at adjudication.
    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"], "ENGLAND": ["A HOL"]},
                   mode=NEXT_SEASON)
    lines = {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"], "ENGLAND": ["A(Hol) H"]}
    orders = [(p, VARIANT.read_order(pos, p, line)) for p, ls in lines.items() for line in ls]
    out = VARIANT.adjudicate(pos, orders)
    order = VARIANT.read_order(out.position, "GERMANY", "A BEL R HOL")
    assert str(order) == "A BEL R HOL"
    retreat = VARIANT.adjudicate(out.position, [("GERMANY", order)])
    assert [str(u) for u in retreat.disbanded] == ["A BEL"]
    public, private = render(stab_turn_events(RULES, [(retreat, [("GERMANY", order)])]))
    assert "GERMANY: A(Bel) [Disbanded]" in public.splitlines()
    assert "Hol" not in public and "Hol" not in private["GERMANY"]
    # Not one of its units: refused as usual.
    with pytest.raises(OrderError):
        VARIANT.read_order(out.position, "ENGLAND", "A BEL R RUH")


def test_winter_adjustments_are_private():
    pos = Position("stab", Phase("W", 1903, "A"),
                   [Unit.parse("FRANCE", "A BUR"), Unit.parse("GERMANY", "A MUN"),
                    Unit.parse("GERMANY", "A KIE")],
                   {"FRANCE": {"PAR", "BRE"}, "GERMANY": {"MUN"}}, extra={"retreats": WITH_ORDERS})
    orders = [("FRANCE", VARIANT.read_order(pos, "FRANCE", "BUILD F BRE"))]
    out = VARIANT.adjudicate(pos, orders)
    public, private = render(stab_turn_events(RULES, [(out, orders)]))
    # Germany owed a removal and sent nothing: NMR, and civil disorder removes a unit.
    assert public.splitlines() == ["Stab!: Winter 1903", "", "NMR: GERMANY"]
    assert "You built F(Bre)." in private["FRANCE"].splitlines()
    removed = [line for line in private["GERMANY"].splitlines() if line.startswith("You removed")]
    assert len(removed) == 1 and "Bre" not in private["GERMANY"]


@pytest.mark.parametrize("line, expected", [
    ("England: PLACE F LON", "PLACE F LON"),
    ("PLACE Fleet London", "PLACE F LON"),
    ("ENG: If necessary F(Lon) retreats to Wal, ENG", None),
    ("REVEAL A(Ruh), A(Kie)", "REVEAL RUH, KIE"),
])
def test_reading_stab_lines(line, expected):
    if expected is None:
        pos = position({"ENGLAND": ["F LON"]})
        assert str(VARIANT.read_order(pos, "ENGLAND", line)) == "IF DISLODGED F LON R WAL, ENG"
    else:
        assert str(VARIANT.read_order(RULES.initial_position(), "ENGLAND", line)) == expected


def test_oracle_reads_rule_6_over_the_turn_sent_in_one_mail():
    """The season's oracle (tests/stabkit.py check_report) counts an NMR as the judge does:
    with NEXT_SEASON a power that sent only its retreat sent orders for the turn, its units
    hold without an NMR (bench/season.py, seed 31, stabnext1 Spring 1904: Germany sent only
    A KIE R HOL and the oracle, reading the movement's orders alone, wanted 'NMR: GERMANY'
    from every report); a power that had something to order and sent nothing is one."""
    from types import SimpleNamespace

    from stabkit import check_report

    pos = position({"FRANCE": ["A PIC", "A BUR"], "GERMANY": ["A BEL"], "ITALY": ["A VEN"]},
                   season="S", mode=NEXT_SEASON)
    lines = {"FRANCE": ["A(Pic)-Bel", "A(Bur) S A(Pic)-Bel"], "GERMANY": ["A(Bel) H"],
             "ITALY": ["A(Ven) H"]}
    orders = [(p, VARIANT.read_order(pos, p, line)) for p, ls in lines.items() for line in ls]
    out = VARIANT.adjudicate(pos, orders)
    # Germany retreats and orders nothing else; Italy sends nothing at all.
    steps, errors = RULES.adjudicate_season(out.position, [("GERMANY", "A BEL R HOL"),
                                                           ("FRANCE", "A BEL H")])
    assert errors == []
    public, private = render(stab_turn_events(RULES, steps))
    assert "NMR: ITALY" in public.splitlines()  # the judge: Germany is no NMR, Italy is

    def mail(public: str, reader: str | None = None) -> SimpleNamespace:
        """The report mail as the judge words it (its title names the game)."""
        notice = f"\n\nPrivate: for you only\n{private[reader]}" if reader in private else ""
        text = (public + notice).replace("Stab!: ", "Stab! g: ")
        return SimpleNamespace(body=f"Stab! game g has been adjudicated.\n\n{text}"
                                    "\n\nNext phase: Fall 1903 Retreat (F1903R)\n")

    for reader in ["FRANCE", "GERMANY", "ITALY", None]:
        check_report(steps, reader, mail(public, reader), str)
    # and the oracle still sees an NMR left out, or one told of a power that sent orders
    for wrong in (public.replace("NMR: ITALY", ""),
                  public.replace("NMR: ITALY", "NMR: GERMANY, ITALY")):
        with pytest.raises(AssertionError):
            check_report(steps, None, mail(wrong), str)


# ------------------------------------------- the oracle: a power that loses its last unit
def test_oracle_reads_a_winter_that_leaves_a_power_no_unit():
    """bench/season.py seed 30303, gunboat7 Winter 1903: Italy, with A(Tus) and no centre,
    has it removed; the notice says "Your units: none." and the season's oracle (stabkit's
    check_report) read "none" as a unit and flagged the correct report as a leak."""
    units = {"AUSTRIA": ["A BUD", "A PIE", "F ROM", "A VEN"], "ITALY": ["A TUS"],
             "FRANCE": ["A BRE", "F MAR", "A PAR"]}
    centres = {"AUSTRIA": ["BUD", "NAP", "ROM", "TRI", "VEN", "VIE"],
               "FRANCE": ["BRE", "MAR", "PAR", "SPA"]}
    start = position(units, "W", centres)
    start = Position("stab", Phase("W", 1903, "A"), start.units, start.centres,
                     extra=start.extra)
    steps = STAB_FLOW.adjudicate(VARIANT, start, [])
    _, private = render(stab_turn_events(RULES, steps))
    assert private["ITALY"].splitlines()[-2:] == ["You removed A(Tus).", "Your units: none."]
    body = ("Stab! game g: Winter 1903 has been adjudicated.\n\nStab! g: Winter 1903\n\n"
            f"Private: for you only\n{private['ITALY']}\n\nNext phase: Spring 1904 Movement\n")
    got = Got(f"To: italy@p.test\nSubject: g: Winter 1903 report\n\n{body}".encode())
    assert sections(got.body)[1].endswith("Your units: none.")
    check_report(steps, "ITALY", got, lambda p: p)
