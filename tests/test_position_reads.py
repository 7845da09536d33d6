"""A game's position is read from the store and checked (Variant.read_position: its shape,
the board, the variant's rules) once per transaction, not once per question asked of it
(issue 22: 5 times per orders mail, 8 when the mail completed the phase)."""

from __future__ import annotations

from mailkit import POWERS, SPRING, InProcessJudge, addr, new_game

from judge.engine.variant import Variant


def _counting(monkeypatch) -> list[str]:
    """The phase of each position read, from now on."""
    read: list[str] = []
    real = Variant.read_position

    def counted(self, data):
        read.append(str(data.get("phase")))
        return real(self, data)

    monkeypatch.setattr(Variant, "read_position", counted)
    return read


def test_an_orders_mail_reads_the_position_once_and_one_that_ends_the_phase_twice(
        tmp_path, monkeypatch):
    judge = InProcessJudge(tmp_path)
    new_game(judge)
    read = _counting(monkeypatch)
    for power in POWERS[:-1]:
        read.clear()
        sent = judge.send(addr(power), f"SIGNON {power} g1 pw-{power.lower()}\n"
                          + "\n".join(SPRING[power]))
        assert "Re: orders" in sent[0].subject and "ERROR" not in sent[0].subject
        assert read == ["S1901M"], power
    read.clear()
    last = POWERS[-1]
    sent = judge.send(addr(last), f"SIGNON {last} g1 pw-{last.lower()}\n"
                      + "\n".join(SPRING[last]))
    assert any("S1901M results" in m.subject for m in sent)  # the phase was processed
    assert read == ["S1901M", "F1901M"]  # the old position, then the new one


def test_a_position_changed_in_the_transaction_is_read_again(tmp_path):
    """The position read is kept only while the stored one is the same: a unit the master
    adds (EDIT) after STATUS read the position can be ordered further down the same mail."""
    judge = InProcessJudge(tmp_path)
    new_game(judge)
    sent = judge.send("gm@players.test", "MASTER g1 masterpw\nSTATUS\nEDIT ADD France A Gas\n"
                      "ACT France\nA Gas - Spa")
    reply = next(m for m in sent if "Re: " in m.subject)
    assert "ERROR" not in reply.subject, reply.body
    assert "A Gas - Spa" in reply.body or "A GAS - SPA" in reply.body.upper(), reply.body
