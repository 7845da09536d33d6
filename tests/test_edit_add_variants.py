"""EDIT ADD in the variants whose units are not written ``A PAR`` / ``F BRE``: the type was
checked against A and F alone, so a master could add neither a Stack 'em stack (``2A BUR``)
nor a Chess Dip piece (``K e1``) nor a Multiplicity or Hoplite unit (``A/F``, ``G``). The
variant now reads the unit as it reads a position; a wrong type is refused naming how this
variant writes its units, an occupied province is refused unless the variant lets the unit
share it (a Stack 'em power's own stack grows), and a fleet on a split coast needs its coast."""

from __future__ import annotations

from mailkit import POWERS
from test_edit_remove_variants import CHESS_POWERS, _game, _master, _units

from judge.variants import get_variant


def test_a_stack_em_stack_is_added_and_a_power_s_own_stack_grows(tmp_path):
    j = _game(tmp_path, "stackem", POWERS)
    text = _master(j, "EDIT ADD FRANCE 2A BUR")
    assert "edited: added France 2A BUR" in text, text
    assert "2A BUR" in _units(j)["FRANCE"]
    # one power's units share a space (Stack 'em's rule 1): the stack grows
    text = _master(j, "EDIT ADD FRANCE A BUR")
    assert "edited: added France A BUR (BUR now holds France 3A BUR)" in text, text
    assert "3A BUR" in _units(j)["FRANCE"]
    # another power's may not
    text = _master(j, "EDIT ADD GERMANY A BUR")
    assert "BUR is occupied (France 3A BUR stands there): remove that unit first" in text, text
    text = _master(j, "EDIT ADD FRANCE K PIC")
    assert "cannot add France K PIC" in text and "2A BUR" in text, text
    assert "K PIC" not in " ".join(_units(j)["FRANCE"])


def test_a_chess_dip_piece_is_added(tmp_path):
    j = _game(tmp_path, "chessdip", CHESS_POWERS)
    text = _master(j, "EDIT ADD ITALY N E4")
    assert "edited: added Italy N e4" in text, text
    assert "N e4" in _units(j)["ITALY"]
    text = _master(j, "EDIT ADD ITALY A E5")
    assert "cannot add Italy A E5" in text and "K, N, B, R, P" in text, text
    text = _master(j, "EDIT ADD FRANCE B E4")
    assert "e4 is occupied (Italy N e4 stands there): remove that unit first" in text, text


def test_a_multiplicity_multiple_unit_is_added(tmp_path):
    j = _game(tmp_path, "multiplicity", POWERS)
    text = _master(j, "EDIT ADD FRANCE A/F SPA/NC")
    assert "edited: added France A/F SPA/NC" in text, text
    assert "A/F SPA/NC" in _units(j)["FRANCE"]
    # one unit of a power to a province: the master writes the whole unit instead
    text = _master(j, "EDIT ADD FRANCE A SPA")
    assert "SPA is occupied (France A/F SPA/NC stands there)" in text, text
    text = _master(j, "EDIT ADD FRANCE G PAR")
    assert "cannot add France G PAR" in text and "G is no unit of this variant" in text, text


def test_a_hoplite_garrison_is_added(tmp_path):
    j = _game(tmp_path, "hoplite", get_variant("hoplite").board.powers)
    text = _master(j, "EDIT ADD ATHENS G ATH")
    assert "edited: added Athens G ATH" in text, text
    assert "G ATH" in _units(j)["ATHENS"]
    text = _master(j, "EDIT ADD ATHENS K MAR")
    assert "cannot add Athens K MAR" in text and "'G ATH'" in text, text


def test_a_fleet_on_a_split_coast_needs_its_coast(tmp_path):
    j = _game(tmp_path, "standard", POWERS)
    text = _master(j, "EDIT ADD FRANCE F SPA")
    assert "a fleet in SPA stands on one of its coasts: write F SPA/NC or F SPA/SC" in text, text
    assert "F SPA" not in " ".join(_units(j)["FRANCE"])
    text = _master(j, "EDIT ADD FRANCE F SPA/SC")
    assert "edited: added France F SPA/SC" in text, text
    text = _master(j, "EDIT ADD FRANCE K PIC")
    assert "cannot add France K PIC" in text and "'A PAR' or 'F STP/SC'" in text, text
