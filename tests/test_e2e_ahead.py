"""Orders sent ahead over the real mail servers (postfix, dovecot, the judge's IMAP intake
and SMTP sending), with the judge's clock: Germany sends its orders for three phases ahead,
with conditions, and never writes again; the game runs through them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gmkit import FakeClock, LiveJudge, addr, new_game, orders, to
from mailkit import FALL, POWERS, SPRING
from test_ahead_mail import GERMANY_AHEAD


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def others(judge: LiveJudge, g: str, by_power: dict[str, list[str]]) -> None:
    for p in POWERS:
        if p != "GERMANY":
            orders(judge, g, p, by_power[p])


def test_a_player_three_phases_ahead_by_mail(judge):
    g = "ah1"
    new_game(judge, g)
    germany = addr(g, "GERMANY")
    judge.send(germany, GERMANY_AHEAD.replace(" g1 ", f" {g} "))
    reply = to(judge.pump(), germany)[0]
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert f"Pending orders for Germany in game {g}" in reply.body
    for code in ("(F1901M):", "(W1901A):", "(S1902M):"):
        assert code in reply.body

    others(judge, g, SPRING)
    out = judge.pump()
    notice = to(out, germany, lambda m: "sent ahead for F1901M" in m.subject)
    assert len(notice) == 1
    assert "A KIE - BER" in notice[0].body and "no unit in Kiel" in notice[0].body
    assert judge.game(g)["phase"] == "F1901M"

    others(judge, g, FALL)
    out = judge.pump()
    fall = [m for m in to(out, germany) if m.subject == f"{g} - F1901M results"]
    assert fall and "A RUH - HOL" in fall[0].body
    assert judge.game(g)["phase"] == "W1901A"

    # nobody writes again: the deadlines pass, Germany's builds and Spring moves stand
    got = judge.advance(judge.clock() + timedelta(hours=25), step=timedelta(hours=1))
    winter = [m for _, m in got if m.rcpt == germany and m.subject == f"{g} - W1901A results"]
    assert winter and "BUILD A BER" in winter[0].body and "BUILD F KIE" in winter[0].body
    got = judge.advance(judge.clock() + timedelta(hours=49), step=timedelta(hours=1))
    spring = [m for _, m in got if m.rcpt == germany and m.subject == f"{g} - S1902M results"]
    assert spring, [m.subject for _, m in got if m.rcpt == germany]
    for order in ("A BER - SIL", "F KIE - BAL", "A HOL H"):
        assert order in spring[0].body
    assert judge.store.all("SELECT * FROM pending_orders WHERE used_in IS NULL") == []
