"""A flood of MAP mails does not hold a game's reports back (found by the review of issue 23).
Under ``judge serve`` the painter drew every picture waiting, the MAP replies' first, before
it rendered the games' mail; MAP mails from forged addresses (30 replies an hour each,
pictures drawn for each) kept pictures waiting, and a report processed 3 s into a 40 s
flood of 2,298 such mails went out 244 s after its PROCESS (the PROCESS reply after 0.8 s).
Now the painter renders the games' mail between batches of pictures. In-process, with the
service's painter and its pool of processes, as tests/test_pictures_deferred.py."""

from __future__ import annotations

from mailkit import InProcessJudge, compose
from test_render_mail import GM, start_game

import judge.service as service
from judge.service import _Painter, pool_size


def test_a_map_flood_does_not_hold_the_reports_back(tmp_path, monkeypatch):
    j = InProcessJudge(tmp_path)
    j.actor.outbox.defer_pictures = j.actor.outbox.defer_render = True  # as judge serve
    start_game(j, "fl")
    flood = 3 * 4 * pool_size()  # three of the painter's batches
    for n in range(flood):
        who = f"x{n}@forged{n}.test"
        j.deliver(compose(who, j.cfg.address, "MAP fl S1901M", f"map {n}"))
    j.send(GM, "MASTER fl master-fl\nPROCESS", "go")
    assert j.store.one("SELECT count(*) AS n FROM outbox_jobs")["n"] > 0  # the reports wait

    events: list[str] = []
    attach, finish = service.attach_picture, service.finish_jobs

    def attached(store, picture_id, png):
        events.append("picture")
        return attach(store, picture_id, png)

    def finished(store, rendered, drawn=None):
        events.append("reports")
        return finish(store, rendered, drawn)

    monkeypatch.setattr(service, "attach_picture", attached)
    monkeypatch.setattr(service, "finish_jobs", finished)
    painter = _Painter(j.store, lambda: None)
    try:
        painter.step()
    finally:
        painter.close()
    assert events.count("picture") == flood and "reports" in events
    # the reports went out while MAP pictures were still waiting, not after all of them
    assert events.index("reports") < len(events) - events[::-1].index("picture") - 1, events
    reports = [m for m in j.run() if "results" in m.subject]
    assert reports
