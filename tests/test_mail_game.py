"""A whole standard game through the judge's real acting code (in-process, Maildir out)."""

from __future__ import annotations

from mailkit import InProcessBackend, InProcessJudge, ReversedRelayBackend, play_standard_game


def test_standard_game_to_winter_adjustments(tmp_path):
    judge = InProcessJudge(tmp_path)
    b = InProcessBackend(judge)
    reports = play_standard_game(b, "ip1", lambda p: f"{p.lower()}@players.test",
                                 "gm@players.test")
    print(reports["FRANCE"].body)


def test_standard_game_whatever_order_the_relay_hands_the_mail_over(tmp_path):
    """The game over the real servers (test_e2e_serve) sends mails together: the same game
    with each batch handed to the judge last-sent first plays the same."""
    play_standard_game(ReversedRelayBackend(InProcessJudge(tmp_path)), "rev1",
                       lambda p: f"{p.lower()}@players.test", "gm@players.test")


def test_reports_show_each_reader_only_the_events_it_may_see(tmp_path, monkeypatch):
    """One pipeline: an event whose audience is France reaches France's report only."""
    from mailkit import POWERS

    from judge import reports
    from judge.engine.events import Event, only

    real = reports.phase_events

    def with_secret(variant, turn):
        return [*real(variant, turn),
                Event("order", {"power": "FRANCE", "order": "A PAR - SECRET",
                                "result": "succeeds", "reason": "only France knows"},
                      audience=only("FRANCE"))]

    monkeypatch.setattr(reports, "phase_events", with_secret)
    judge = InProcessJudge(tmp_path)
    judge.send("gm@players.test", "CREATE sec masterpw\nOPEN")
    for p in POWERS:
        judge.send(f"{p.lower()}@players.test", f"SIGNON {p} sec pw-{p.lower()}")
    judge.send("gm@players.test", "MASTER sec masterpw\nSTART")
    sent = judge.send("gm@players.test", "MASTER sec masterpw\nPROCESS")
    got = {m.rcpt: m for m in sent if "results" in m.subject}
    assert len(got) == 8
    assert "A PAR - SECRET" in got["france@players.test"].body
    for rcpt, m in got.items():
        if rcpt != "france@players.test":
            assert "SECRET" not in m.body and "A PAR H" in m.body
