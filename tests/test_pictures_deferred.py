"""Pictures drawn after the game's transaction (``judge serve``): the reports wait in the
outbox until their picture is drawn by the pool of worker processes, never leave without it
while it is being drawn, and leave without it (logged) when it cannot be drawn. Both ways the
service can run: only the pictures deferred, or the whole mail rendered after the transaction
(``defer_render``: the pool renders the text too, from the stored jobs)."""

from __future__ import annotations

import logging

import pytest
from mailkit import POWERS, InProcessJudge
from test_render_mail import GM, addr, attachments, start_game

from judge.service import _Painter

# render False: only the pictures wait; True: the whole message is rendered by the pool
MODES = [pytest.param(False, id="pictures"), pytest.param(True, id="rendered")]


def deferred_judge(tmp_path, game: str, render: bool) -> InProcessJudge:
    j = InProcessJudge(tmp_path)
    j.actor.outbox.defer_pictures = True  # as judge serve does
    j.actor.outbox.defer_render = render
    start_game(j, game)
    return j


def paint(j: InProcessJudge) -> None:
    painter = _Painter(j.store, lambda: None)
    try:
        painter.step()
    finally:
        painter.close()


@pytest.mark.parametrize("render", MODES)
def test_reports_wait_for_their_picture_then_go_with_it(tmp_path, render: bool) -> None:
    j = deferred_judge(tmp_path, "later", render)
    got = j.send(GM, "MASTER later master-later\nPROCESS", "go")
    assert [g for g in got if "results" in g.subject] == [], "sent before its picture"
    if render:
        assert j.store.one("SELECT count(*) AS n FROM outbox_jobs")["n"] >= len(POWERS) + 1
    assert j.run() == []
    paint(j)
    reports = [g for g in j.run() if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    pngs = set()
    for g in reports:
        [(name, ctype, data)] = attachments(g)
        assert (name, ctype) == ("S1901M.png", "image/png") and data[:4] == b"\x89PNG"
        assert "S1901M" in g.body
        pngs.add(data)
    assert len(pngs) == 1, "the public picture is drawn once for every reader"
    assert j.store.all("SELECT id FROM pictures") == []
    assert j.store.all("SELECT outbox_id FROM outbox_jobs") == []


@pytest.mark.parametrize("render", MODES)
def test_a_picture_that_cannot_be_drawn_in_the_pool_lets_the_report_go(tmp_path, caplog,
                                                                        render: bool) -> None:
    j = deferred_judge(tmp_path, "broken", render)
    j.send(GM, "MASTER broken master-broken\nPROCESS", "go")
    j.store.execute("UPDATE pictures SET svg = '<svg this is not'")
    with caplog.at_level(logging.ERROR, logger="judge"):
        paint(j)
    reports = [g for g in j.run() if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    for g in reports:
        assert attachments(g) == [] and "S1901M" in g.body
    assert [r for r in caplog.records if "could not be drawn" in r.getMessage()]
