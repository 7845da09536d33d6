"""The seed's worked example (Stab! rules, Autumn 1902), public report and private notices.

The example lists some orders and leaves others implicit. The position and the orders below
are the smallest ones consistent with everything the text says:

* England: F(NTH) C A(Edi)-Hol needs an English A(Edi) ordered to Hol; "F(Pic) S F(ENG)-Bre"
  needs F(ENG)-Bre. France "lost Brest" and F(Pic) "retreated to ENG", so ENG was vacated:
  F(ENG)-Bre succeeded. Germany is "informed that he had lost" Holland: A(Edi)-Hol succeeded.
* France: "A(Par) S F(Bre)-Pic" is revealed, and F(Pic) was dislodged by the French attack
  (France is told where it retreated), so F(Bre)-Pic was ordered and succeeded, which also
  emptied Brest. "A(Mar) S A(Gas)-Bur" is revealed as a support of a failed move, so a French
  A(Gas)-Bur was ordered and failed.
* Germany: "A(Bur) S A(Bel)-Pic" is revealed, so there was an A(Bel) ordered to Pic; it is
  German (Germany supports it, and F(Pic) could not retreat to Bel, its first choice). The
  German support is cut by the French attack from Gas (otherwise Bel-Pic would have had the
  same strength as Bre-Pic and F(Pic) would not have been dislodged). One support of A(Bur)
  suffices against the attack of strength 2: A(Mun) is revealed (alphabetically before Ruh).
* Centres: England, France and Germany own what their units need; Germany owns Holland
  ("assuming that Germany owned Holland").

The example's report lists only the orders the example lists. The judge's report also
names the three implicit orders rule 2 reveals: F(Bre)-Pic (it dislodged a unit), A(Gas)-Bur
and A(Bel)-Pic (failed moves). The test checks each power's line entry by entry: the
entries for the example's orders are exactly the example's, in its order, and the only other
entries are those three.
"""

from __future__ import annotations

import pytest

from judge.engine.orders import Unit
from judge.engine.position import Phase, Position
from judge.variants import get_variant
from judge.variants.stab.report import StabSettings, stab_reports

VARIANT = get_variant("stab")

# The example's orders, as written (the seed's notation; "A(Mun) & A(Ruh) S A(Bur)" is one
# line for two units), then the implicit ones.
EXAMPLE_ORDERS = {
    "ENGLAND": ["F(NTH) C A(Edi)-Hol", "F(Pic) S F(ENG)-Bre",
                "If necessary F(Pic) retreats to Bel, ENG"],
    "FRANCE": ["A(Par) S F(Bre)-Pic", "A(Mar) S A(Gas)-Bur", "F(MAO)-NAO"],
    "GERMANY": ["A(Mun) & A(Ruh) S A(Bur)", "A(Bur) S A(Bel)-Pic", "A(Kie)-Den", "F(Swe)-Den"],
}
IMPLICIT_ORDERS = {
    "ENGLAND": ["F(ENG)-Bre", "A(Edi)-Hol"],
    "FRANCE": ["F(Bre)-Pic", "A(Gas)-Bur"],
    "GERMANY": ["A(Bel)-Pic"],
}
# The example's report, verbatim.
EXAMPLE_REPORT = """\
ENGLAND: F(Pic)*S [Dislodged]

FRANCE: A(Par) S F(Bre)-Pic; A(Mar) S A(Gas)-Bur;

GERMANY: A(Mun) S A(Bur); A(Bur) S A(Bel)-Pic;
"""
# What rule 2 reveals of the implicit orders (see the module docstring).
IMPLICIT_REVEALED = {"ENGLAND": [], "FRANCE": ["F(Bre)-Pic", "A(Gas)-Bur"],
                     "GERMANY": ["A(Bel)-Pic"]}


def example_position() -> Position:
    units = {"ENGLAND": ["F NTH", "F PIC", "A EDI", "F ENG"],
             "FRANCE": ["A PAR", "A MAR", "F MAO", "F BRE", "A GAS"],
             "GERMANY": ["A MUN", "A RUH", "A BUR", "A KIE", "F SWE", "A BEL"]}
    centres = {"ENGLAND": {"LON", "EDI", "LVP", "NWY"},
               "FRANCE": {"PAR", "MAR", "BRE", "SPA", "POR"},
               "GERMANY": {"BER", "KIE", "MUN", "HOL", "DEN", "SWE", "BEL"}}
    return Position("stab", Phase("F", 1902, "M"),
                    [Unit.parse(p, u) for p, us in units.items() for u in us], centres,
                    extra={"retreats": "with_orders"})


def read(position: Position, lines: dict[str, list[str]]) -> list:
    from judge.variants.stab.rules import split_line

    return [(p, VARIANT.read_order(position, p, one))
            for p, ls in lines.items() for line in ls for one in split_line(line)]


@pytest.fixture(scope="module")
def turn():
    position = example_position()
    orders = read(position, {p: EXAMPLE_ORDERS[p] + IMPLICIT_ORDERS[p] for p in EXAMPLE_ORDERS})
    movement = VARIANT.adjudicate(position, orders)
    assert VARIANT.rules.retreats_are_automatic(movement.position)
    retreat = VARIANT.adjudicate(movement.position, [])
    public, private = stab_reports(movement, orders, StabSettings(), retreat=retreat)
    return movement, retreat, public, private


def entries(report: str) -> dict[str, list[str]]:
    """``POWER: e1; e2;`` lines -> {POWER: [e1, e2]}."""
    out: dict[str, list[str]] = {}
    for line in report.splitlines():
        head, sep, rest = line.partition(": ")
        if sep and head.isupper() and head.isalpha():
            out[head] = [e.strip() for e in rest.split(";") if e.strip()]
    return out


def test_adjudication_is_what_the_text_implies(turn):
    movement, retreat, _, _ = turn
    results = {r.order: r.result for r in movement.results}
    assert results["F BRE - PIC"] == "succeeds"
    assert results["F ENG - BRE"] == "succeeds"
    assert results["A EDI - HOL"] == "succeeds"
    assert results["A GAS - BUR"] == "fails"
    assert results["A BEL - PIC"] == "fails"
    assert results["A KIE - DEN"] == results["F SWE - DEN"] == "fails"
    assert [str(d.unit) for d in movement.dislodged] == ["F PIC"]
    assert Unit("ENGLAND", "F", "ENG") in retreat.position.units


def test_public_report_line_by_line(turn):
    _, _, public, _ = turn
    got = entries(public)
    expected = entries(EXAMPLE_REPORT)
    assert set(got) == set(expected)
    for power, example_entries in expected.items():
        # The entries for the example's own orders, in the example's order...
        listed = [e for e in got[power] if e not in IMPLICIT_REVEALED[power]]
        assert listed == example_entries, power
        # ...and nothing else but what rule 2 reveals of the implicit orders.
        assert [e for e in got[power] if e in IMPLICIT_REVEALED[power]] == IMPLICIT_REVEALED[power]


def test_public_report_keeps_the_secrets_the_example_names(turn):
    _, _, public, _ = turn
    # "The existence of the support from the German A(Ruh) is not revealed"
    assert "Ruh" not in public
    # "German F(Swe) and A(Kie) are not revealed as they conducted a self-standoff"
    assert "Swe" not in public and "Kie" not in public and "Den" not in public
    # "Exactly what English F(Pic) was supporting is not revealed"
    assert "F(Pic) S" not in public and "ENG" not in public.replace("ENGLAND", "")
    # "The French move into the NAO is kept secret"
    assert "NAO" not in public and "MAO" not in public
    # Retreat destinations are not public either.
    assert "retreat" not in public.lower()


def test_private_notices_line_by_line(turn):
    _, _, _, private = turn
    # "The GM would inform France privately that it had lost Brest and that the English
    # F(Pic) had retreated to ENG."
    france = private["FRANCE"].splitlines()
    assert "You lost Bre, taken by ENGLAND with F(Bre)." in france
    assert "ENGLAND F(Pic) retreated to ENG." in france
    # "England would be informed that F(Pic) had retreated to ENG."
    england = private["ENGLAND"].splitlines()
    assert "Your F(Pic) retreated to ENG." in england
    # "Assuming that Germany owned Holland, he would be informed privately that he had lost it."
    germany = private["GERMANY"].splitlines()
    assert "You lost Hol, taken by ENGLAND with A(Hol)." in germany
    # Rule 5: each learns where its own units are; rule 5: in Winter, its centres.
    assert "Your units: F(Bre), F(ENG), A(Hol), F(NTH)." in england
    assert "Your units: A(Gas), A(Mar), F(NAO), A(Par), F(Pic)." in france
    assert "Your supply centres: Mar, Par, Por, Spa." in france
    # Nothing else: the retreat is told to England and France only.
    assert not any("retreated" in line for line in germany)
    assert not any("lost" in line for line in england)


def test_winter_counts_only(turn):
    _, _, public, _ = turn
    assert "Supply centres: ENGLAND 6, FRANCE 4, GERMANY 6" in public.splitlines()
