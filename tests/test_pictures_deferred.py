"""Pictures drawn after the game's transaction (``judge serve``): the reports wait in the
outbox until their picture is drawn by the pool of worker processes, never leave without it
while it is being drawn, and leave without it (logged) when it cannot be drawn."""

from __future__ import annotations

import logging

from mailkit import POWERS, InProcessJudge
from test_render_mail import GM, addr, attachments, start_game

from judge.service import _Painter


def deferred_judge(tmp_path, game: str) -> InProcessJudge:
    j = InProcessJudge(tmp_path)
    j.actor.outbox.defer_pictures = True  # as judge serve does
    start_game(j, game)
    return j


def test_reports_wait_for_their_picture_then_go_with_it(tmp_path) -> None:
    j = deferred_judge(tmp_path, "later")
    got = j.send(GM, "MASTER later master-later\nPROCESS", "go")
    assert [g for g in got if "results" in g.subject] == [], "sent before its picture"
    assert j.run() == []
    painter = _Painter(j.store, lambda: None)
    try:
        painter.step()
    finally:
        painter.close()
    reports = [g for g in j.run() if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    pngs = set()
    for g in reports:
        [(name, ctype, data)] = attachments(g)
        assert (name, ctype) == ("S1901M.png", "image/png") and data[:4] == b"\x89PNG"
        assert "S1901M" in g.body
        pngs.add(data)
    assert len(pngs) == 1, "the public picture is the same for every reader"
    assert j.store.all("SELECT id FROM pictures") == []


def test_a_picture_that_cannot_be_drawn_in_the_pool_lets_the_report_go(tmp_path,
                                                                        caplog) -> None:
    j = deferred_judge(tmp_path, "broken")
    j.send(GM, "MASTER broken master-broken\nPROCESS", "go")
    j.store.execute("UPDATE pictures SET svg = '<svg this is not'")
    painter = _Painter(j.store, lambda: None)
    try:
        with caplog.at_level(logging.ERROR, logger="judge"):
            painter.step()
    finally:
        painter.close()
    reports = [g for g in j.run() if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    for g in reports:
        assert attachments(g) == [] and "S1901M" in g.body
    assert [r for r in caplog.records if "could not be drawn" in r.getMessage()]


def rendered_judge(tmp_path, game: str) -> InProcessJudge:
    j = InProcessJudge(tmp_path)
    j.actor.outbox.defer_pictures = j.actor.outbox.defer_render = True  # as judge serve does
    start_game(j, game)
    return j


def test_rendered_after_the_transaction_reports_go_with_the_picture(tmp_path) -> None:
    j = rendered_judge(tmp_path, "jobs")
    got = j.send(GM, "MASTER jobs master-jobs\nPROCESS", "go")
    assert [g for g in got if "results" in g.subject] == [], "sent before it was rendered"
    assert j.store.one("SELECT count(*) AS n FROM outbox_jobs")["n"] >= len(POWERS) + 1
    painter = _Painter(j.store, lambda: None)
    try:
        painter.step()
    finally:
        painter.close()
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


def test_rendered_after_the_transaction_a_broken_picture_lets_the_report_go(tmp_path,
                                                                             caplog) -> None:
    j = rendered_judge(tmp_path, "jobsbroken")
    j.send(GM, "MASTER jobsbroken master-jobsbroken\nPROCESS", "go")
    j.store.execute("UPDATE pictures SET svg = '<svg this is not'")
    painter = _Painter(j.store, lambda: None)
    try:
        with caplog.at_level(logging.ERROR, logger="judge"):
            painter.step()
    finally:
        painter.close()
    reports = [g for g in j.run() if "results" in g.subject]
    assert {g.rcpt for g in reports} == {addr(p) for p in POWERS} | {GM}
    for g in reports:
        assert attachments(g) == [] and "S1901M" in g.body
    assert [r for r in caplog.records if "could not be drawn" in r.getMessage()]
