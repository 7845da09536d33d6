"""A report that cannot be rendered still reaches its readers, and its game's master is told
(found by review of the failure containment, issue 22): ``judge serve`` renders the games'
mail after their transaction, in its pool of worker processes; a message whose rendering
raised was marked failed and only logged, so the phase was applied and nobody heard of it.

Now each reader is sent a short plain text in its place (it could not be built; the results
are in HISTORY), and the master is mailed once what failed, with the log reference of the
ERROR line that holds the worker's traceback. The other game due at the same moment is
reported as usual. Through the real mail servers, with the Service's real pool of worker
processes: the failing report's context is one its template cannot render (what a bug in a
report's making looks like), made in the judge's process, rendered in the pool."""

from __future__ import annotations

import logging
import re

from gmkit import addr, gm_addr
from mailkit import POWERS
from test_e2e_contained_failure import Running
from test_render_mail import attachments

from judge import reports
from judge.storage import parse_iso


def test_a_report_that_cannot_be_rendered_is_sent_plain_and_its_master_told(
        judge_mailbox, smtp_sink, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO)
    made = reports.phase_report

    def broken_for_bad4(variant, game, outcome, seen, reader, **kw):
        subject, template, context = made(variant, game, outcome, seen, reader, **kw)
        if game["name"] == "bad4":  # its template iterates over the powers: it raises
            context = {**context, "powers": 7}
        return subject, template, context

    monkeypatch.setattr(reports, "phase_report", broken_for_bad4)
    j = Running(judge_mailbox, smtp_sink, tmp_path)
    try:
        j.start_game("bad4")
        j.start_game("ok4")
        deadline = parse_iso(j.game("bad4")["deadline"])
        assert parse_iso(j.game("ok4")["deadline"]) == deadline
        j.clock.set(deadline)
        j.service.clock.advance()
        # the other game: reported as usual, with its map
        for m in j.sink.wait(lambda m: m.subject == "ok4 - S1901M results", count=8):
            assert "has been adjudicated" in m.flat and len(attachments(m)) == 1, m.body
        # the failing game's phase is applied; each reader gets the plain text in its place
        plain = j.sink.wait(lambda m: m.subject == "bad4 - S1901M results", count=8)
        assert {m.rcpt for m in plain} == {addr("bad4", p) for p in POWERS} | {
            gm_addr("bad4")}
        for m in plain:
            assert "could not build" in m.flat and "HISTORY bad4" in m.flat, m.body
            assert "TypeError" not in m.body and "Traceback" not in m.body
        assert j.game("bad4")["phase"] == "F1901M"
        # its master: once, what failed and the log reference of the traceback
        [master] = j.wait(gm_addr("bad4"), "bad4 - mail could not be built")
        assert "bad4 - S1901M results" in master.flat and "8" in master.flat, master.body
        assert "TypeError" in master.flat and "Traceback" not in master.body, master.body
        found = [r for r in caplog.records if r.levelno == logging.ERROR
                 and "bad4" in r.getMessage() and "log reference" in r.getMessage()]
        assert len(found) == 1, [r.getMessage() for r in caplog.records]
        ref = re.search(r"log reference (\S+)\)", found[0].getMessage())
        assert ref and ref.group(1) in master.body, (found[0].getMessage(), master.body)
        assert "Traceback" in found[0].getMessage() and "TypeError" in found[0].getMessage()
        # no reader's mail is left failed
        assert j.store.all("SELECT id FROM outbox WHERE state = 'failed'") == []
        # and the history has the results the report could not give
        j.send(addr("bad4", "FRANCE"), "HISTORY bad4", "history")
        [history] = j.wait(addr("bad4", "FRANCE"), "Re: history")
        assert "S1901M" in history.body and "A PAR" in history.body, history.body
        assert len([m for m in j.sink.messages if "could not be built" in m.subject]) == 1
    finally:
        j.stop()


def test_the_master_is_told_once_while_the_game_is_in_its_phase(tmp_path):
    """Mail of one game that fails to render in two batches of the same phase: its readers
    get the plain text each time, its master one mail; in the next phase, one more."""
    from mailkit import GM, InProcessJudge, new_game
    from mailkit import addr as player

    from judge.service import Service, _Painter

    j = InProcessJudge(tmp_path)
    new_game(j, "twice")
    j.actor.outbox.defer_render = True  # as judge serve does
    game = j.store.game("twice")

    def broken_mail(to: str) -> None:
        with j.store.transaction():  # a template that is not there: what a bug looks like
            j.actor.outbox.queue(kind="notice", to=to, subject="twice - news",
                                 template="no-such-notice.txt.j2", context={},
                                 game_id=game["id"])

    def paint() -> list:
        painter = _Painter(j.store, lambda: None,
                           failed=lambda gid, bad: Service._render_failed(j.actor, gid, bad))
        try:
            painter.step()
        finally:
            painter.close()
        return j.run()

    broken_mail(player("FRANCE"))
    first = paint()
    broken_mail(player("ITALY"))
    second = paint()
    for got, who in ((first, player("FRANCE")), (second, player("ITALY"))):
        [plain] = [m for m in got if m.subject == "twice - news"]
        assert plain.rcpt == who and "HISTORY twice" in plain.flat, plain.body
    told = [m for m in first + second if "could not be built" in m.subject]
    assert [m.rcpt for m in told] == [GM] and "TemplateNotFound" in told[0].flat, told
    assert "S1901M" in told[0].flat
    j.send(GM, "MASTER twice masterpw\nPROCESS")
    broken_mail(player("FRANCE"))
    assert [m.rcpt for m in paint() if "could not be built" in m.subject] == [GM]
