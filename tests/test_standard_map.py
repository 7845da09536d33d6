"""The standard map, as converted into the project's format, has the right shape."""

from __future__ import annotations

from judge.variants import get_variant

BOARD = get_variant("standard").board


def test_counts() -> None:
    assert len(BOARD.provinces) == 75
    assert len(BOARD.supply_centres) == 34
    assert sum(len(units) for units in BOARD.starting_units.values()) == 22
    kinds = [p.kind for p in BOARD.provinces.values()]
    assert (kinds.count("land"), kinds.count("sea"), kinds.count("coast")) == (14, 19, 42)
    assert BOARD.victory_centres == 18


def test_split_coasts() -> None:
    split = {a: p.coasts for a, p in BOARD.provinces.items() if p.coasts}
    assert split == {
        "BUL": ("BUL/EC", "BUL/SC"),
        "SPA": ("SPA/NC", "SPA/SC"),
        "STP": ("STP/NC", "STP/SC"),
    }
    assert "STP" not in BOARD.fleet_adj and "STP/NC" in BOARD.fleet_adj


def test_every_adjacency_is_symmetric() -> None:
    for table in (BOARD.army_adj, BOARD.fleet_adj):
        for here, theirs in table.items():
            for there in theirs:
                assert here in table[there], f"{here} -> {there} but not back"


def test_units_only_where_they_can_stand() -> None:
    for here in BOARD.army_adj:
        assert BOARD.provinces[here].kind != "sea"
    for here in BOARD.fleet_adj:
        assert BOARD.provinces[here.split("/")[0]].kind != "land"


def test_home_centres_and_start() -> None:
    assert sum(len(c) for c in BOARD.home_centres.values()) == 22
    assert BOARD.starting_units["RUSSIA"] == ("A WAR", "A MOS", "F SEV", "F STP/SC")
    for power, centres in BOARD.home_centres.items():
        for c in centres:
            assert BOARD.provinces[c].home == power and c in BOARD.supply_centres


def test_names_are_found_in_any_spelling() -> None:
    for spelling in ("StP", "stp", "St Petersburg", "St. Petersburg", "saint petersburg"):
        assert BOARD.lookup(spelling) == "STP"
    assert BOARD.lookup("Spain (north coast)") == "SPA/NC"
    assert BOARD.lookup("mid-atlantic") == "MAO"
    assert BOARD.lookup("Gulf of Lyons") == "LYO"
    assert BOARD.lookup("Atlantis") is None
