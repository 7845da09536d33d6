"""What an outside attack on the judge found (session 30), each through the real mail
servers: a player's or a stranger's mail, and what the judge mailed back."""

from __future__ import annotations

import pytest
from gmkit import FakeClock, LiveJudge, to

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
