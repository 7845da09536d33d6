"""A confirmation is answered by replying to the request, so the request's Message-ID is a
secret as good as its code: it used to come from ``email.utils.make_msgid``, whose 64
"random" bits are the ``random`` module's Mersenne Twister. Anyone who collects about 312 of
the judge's Message-IDs (the replies to their own HELPs) recovers the generator's state and
predicts the next ones; a forged reply "from" the victim with the predicted In-Reply-To then
confirmed an OBSERVE (a list, a seat, a sign-on) the victim never asked for. Through the real
mail servers (gmkit.LiveJudge, the judge in this process: the state is set here by seeding
it, as a recovered state would be)."""

from __future__ import annotations

import os
import random
import re

import pytest
from gmkit import FakeClock, LiveJudge, new_game


@pytest.fixture
def judge(judge_mailbox, smtp_sink, tmp_path):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, FakeClock())
    yield j
    j.close()


def test_a_predicted_message_id_does_not_confirm_for_the_victim(judge):
    g = "cf1"
    new_game(judge, g, ["REMINDER OFF"])
    victim = "victim@elsewhere.test"
    judge.send(victim, f"OBSERVE {g}")  # forged: the victim never wrote
    random.seed(2026)  # the attacker's copy of the generator's state
    predicted = random.getrandbits(64)
    random.seed(2026)  # the judge's, the same
    [request] = judge.pump()
    assert request.rcpt == victim and "CONFIRM" in request.flat
    stamp = request["Message-ID"].strip("<>").split(".")[0]  # a hundredth of a second: guessable
    guess = f"<{stamp}.{os.getpid()}.{predicted}@{judge.cfg.domain}>"
    judge.send(victim, "yes", subject="Re: confirm", In_Reply_To=guess, References=guess)
    out = judge.pump()
    assert not any("now observes" in m.flat for m in out), [m.flat for m in out]
    assert judge.store.one("SELECT count(*) AS n FROM observers")["n"] == 0
    # the victim's own reply to the request still confirms
    judge.send(victim, "yes", subject="Re: confirm", In_Reply_To=request["Message-ID"],
               References=request["Message-ID"])
    assert any(re.search(r"now observes game cf1", m.flat) for m in judge.pump())
