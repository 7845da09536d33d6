"""What an outside attack on the judge found (session 30), each through the real mail
servers: a player's or a stranger's mail, and what the judge mailed back."""

from __future__ import annotations

import pytest
from gmkit import FakeClock, LiveJudge, addr, new_game, to

VICTIM = "victim@elsewhere.test"


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock(), confirm_senders=False)
    yield j
    j.close()


def test_help_with_words_after_it_is_answered_once_too(judge):
    """HELP answers the same whatever follows it, so 'HELP 1' ... 'HELP 100' in a victim's
    name (800 bytes) got the help text 100 times: a 196 KB reply, where 'HELP' x100 gets one
    help text and a line per repeat."""
    judge.send(VICTIM, "HELP")
    [once] = to(judge.pump(), VICTIM)
    judge.send(VICTIM, "".join(f"HELP {k}\n" for k in range(100)))
    [reply] = to(judge.pump(), VICTIM)
    assert len(reply.raw) < len(once.raw) + 12_000, len(reply.raw)
    assert reply.flat.count("answered above") == 99, reply.flat[-600:]


def test_absences_end_to_end_are_one_absence_for_the_longest(judge):
    """SET ABSENCE is at most the game's ABSENCE (14 days) long, but each line was measured
    alone: six of them end to end in one mail moved the deadline 84 days (any number, as
    long as the player likes), and told nobody else. Absences of one power less than the
    longest apart count as one: the second is refused, the deadline stays."""
    g = "ab1"
    new_game(judge, g, ["REMINDER OFF"])
    judge.pump()
    judge.send(addr(g, "FRANCE"), f"SIGNON FRANCE {g} pw-france\n"
               "SET ABSENCE 2026-11-25 TO 2026-12-08\n"
               "SET ABSENCE 2026-12-09 TO 2026-12-22\n"
               "SET ABSENCE 2026-12-23 TO 2027-01-05\n"
               "SET ABSENCE 2027-01-15 TO 2027-01-20")
    [r] = to(judge.pump(), addr(g, "FRANCE"))
    assert "The current deadline moves to Wed 09 Dec 2026" in r.flat, r.body
    assert "ERROR: with the absence of France from Wed 25 Nov 2026 00:00 UTC to Wed 23 Dec" \
        in r.flat, r.body
    assert "absences less than 14 days apart count as one" in r.flat, r.body
    # 14 days after the first ends is another absence; 9 days after that one ends is not
    assert "Absence of France recorded: Wed 23 Dec 2026" in r.flat, r.body
    assert "ERROR: with the absence of France from Wed 23 Dec 2026 00:00 UTC to Thu 21 Jan" \
        in r.flat, r.body
    assert "Deadline: Wed 09 Dec 2026" in r.flat, r.body
    assert judge.store.one("SELECT count(*) AS n FROM absences")["n"] == 2
