"""The ceiling on everything the judge sends one address (docs/operating.md, "Security"):
at most ``mail_per_hour`` mails in any hour, whatever they are (replies, reports, notices,
press); the mail past it is held and folded into one digest, ``digest_minutes`` after the first
one held, never dropped. A seated player's replies are bounded by that
ceiling, not by the stranger's ``replies_per_hour``. Through the real mail servers, on the
judge's clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gmkit import FakeClock, LiveJudge, addr, gm_addr, new_game, to
from mailkit import POWERS

from judge.storage import parse_iso


@pytest.fixture
def clock():
    return FakeClock()


def judge_with(request, judge_mailbox, smtp_sink, tmp_path, clock, **settings):
    j = LiveJudge(judge_mailbox, smtp_sink, tmp_path, clock, **settings)
    request.addfinalizer(j.close)
    return j


def digests(mail):
    return [m for m in mail if m.subject.startswith("[DIGEST]")]


@pytest.mark.parametrize("flood", [
    ["PROCESS"] * 70,
    ["PAUSE", "RESUME"] * 35,
    ["EDIT REMOVE A VIE", "EDIT ADD AUSTRIA A VIE"] * 35,
])
def test_a_master_flood_to_seated_addresses_stops_at_the_ceiling_then_one_digest(
        request, judge_mailbox, smtp_sink, tmp_path, clock, flood):
    j = judge_with(request, judge_mailbox, smtp_sink, tmp_path, clock)
    ceiling = 60  # the defaults: 60 mails an hour ([judge] mail_per_hour), digests after 10 min
    g = "fl1"
    got = new_game(j, g, ["REMINDER OFF"])
    for i in range(0, len(flood), 10):  # ten a mail ([limits] master_actions_per_mail)
        j.send(gm_addr(g), f"MASTER {g} gm-{g}\n" + "\n".join(flood[i:i + 10]))
        got += j.pump()
    everyone = [addr(g, p) for p in POWERS] + [gm_addr(g)]
    # the start, the sign-on replies and the flood: each address had at most the ceiling
    def sent_to(a: str) -> int:  # the sign-on replies too, which new_game does not return
        return j.store.one("SELECT count(*) AS n FROM outbox WHERE rcpt = ? AND state = "
                           "'sent'", (a,))["n"]

    for a in everyone:
        assert len(to(got, a)) <= sent_to(a) <= ceiling, (a, [m.subject for m in to(got, a)])
    england = addr(g, "ENGLAND")
    assert sent_to(england) == ceiling  # the flood reached it: the rest is held
    assert not digests(got)

    # nothing held is lost: ten minutes after the first one held, one digest each
    later = [m for _, m in j.advance(clock() + timedelta(minutes=11))]
    for a in everyone:
        mine = to(later, a)
        assert len(mine) <= 1 and len(digests(mine)) == len(mine), (a, mine)
    digest = to(later, england)[0]
    held = j.store.one("SELECT count(*) AS n FROM outbox WHERE rcpt = ? AND state = 'folded'",
                       (england,))["n"]
    assert held > 0 and digest.subject.startswith(f"[DIGEST] {held} mail(s) held back")
    assert f"at most {ceiling} mails in an hour" in digest.flat
    # the last mail the flood made is in it, after all the others
    last = j.store.one("SELECT subject FROM outbox WHERE rcpt = ? AND state = 'folded' "
                       "ORDER BY id DESC LIMIT 1", (england,))["subject"]
    assert last in digest.body
    # and no more than that within the hour
    assert not [m for _, m in j.advance(clock() + timedelta(minutes=45))
                if m.rcpt in everyone]


def test_a_player_in_a_hurry_has_every_orders_mail_confirmed(
        request, judge_mailbox, smtp_sink, tmp_path, clock):
    """40 orders mails in an hour before the deadline: 40 confirmations (the stranger's
    ceiling of 30 replies an hour does not apply to a seated player's signed-on mail)."""
    j = judge_with(request, judge_mailbox, smtp_sink, tmp_path, clock)
    g = "hu1"
    new_game(j, g, ["REMINDER OFF"], deadlines="2h 24h 24h")
    france = addr(g, "FRANCE")
    for i in range(40):
        clock.set(clock() + timedelta(seconds=80))
        order = "A PAR - BUR" if i % 2 else "A PAR - PIC"
        j.send(france, f"SIGNON FRANCE {g} pw-france\n{order}\nF BRE H\nA MAR H",
               subject=f"try {i}")
        reply = to(j.pump(), france)
        assert len(reply) == 1, (i, [m.subject for m in reply])
        assert reply[0].subject == f"Re: try {i}" and order in reply[0].body


def test_confirmations_past_the_ceiling_come_in_one_digest_before_the_deadline(
        request, judge_mailbox, smtp_sink, tmp_path, clock):
    j = judge_with(request, judge_mailbox, smtp_sink, tmp_path, clock,
                   mail_per_hour=10, digest_minutes=10)
    g = "hu2"
    new_game(j, g, ["REMINDER OFF"], deadlines="1h 24h 24h")
    deadline = j.game(g)["deadline"]
    france = addr(g, "FRANCE")
    got = []
    for i in range(20):
        clock.set(clock() + timedelta(minutes=1))
        j.send(france, f"SIGNON FRANCE {g} pw-france\nA PAR - BUR\nF BRE - MAO\n"
               f"A MAR S A PAR - BUR\n", subject=f"try {i}")
        got += to(j.pump(), france)
    got += [m for t, m in j.advance(clock() + timedelta(minutes=12)) if m.rcpt == france]
    assert clock() < parse_iso(deadline)  # the digest came before the deadline
    replies = [m for m in got if m.subject.startswith("Re: try")]
    folded = digests(got)
    assert len(replies) == 8  # the sign-on reply and the start of the game made ten
    # every confirmation past the ceiling is in a digest, within ten minutes
    assert sum(int(d.subject.split()[1]) for d in folded) == 12
    assert "Re: try 19" in folded[-1].body and "A MAR S A PAR - BUR" in folded[-1].body


@pytest.mark.parametrize("painted", [True, False], ids=["rendered", "not yet rendered"])
def test_held_mail_rendered_by_the_pool_is_in_the_digest(tmp_path, painted):
    """judge serve renders game mail in the pool: mail held past the ceiling is rendered
    there too and stays held (never sent), and the digest has its text, rendered by then or
    not."""
    from mailkit import InProcessJudge
    from test_pictures_deferred import paint
    from test_render_mail import GM, start_game
    from test_render_mail import addr as player

    j = InProcessJudge(tmp_path, mail_per_hour=4)
    start_game(j, "dg")
    j.actor.outbox.defer_pictures = j.actor.outbox.defer_render = True
    j.send(GM, "MASTER dg master-dg\n" + "PROCESS\n" * 6)
    if painted:
        paint(j)
    sent = j.run()
    england = player("ENGLAND")
    assert len([m for m in sent if m.rcpt == england]) <= 4
    held = j.store.all("SELECT subject FROM outbox WHERE rcpt = ? AND state = 'held' "
                       "ORDER BY id", (england,))
    assert held
    now = j.actor.outbox.clock()
    j.actor.outbox.clock = lambda: now + timedelta(minutes=11)
    j.run()  # the digest is queued, rendered by the pool like the rest of the game's mail
    paint(j)
    (digest,) = digests(m for m in j.run() if m.rcpt == england)
    assert digest.subject.startswith(f"[DIGEST] {len(held)} mail(s)")
    assert held[-1]["subject"] in digest.body and "Austria:" in digest.body
