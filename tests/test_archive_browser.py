"""The archive in a real browser (issue 27): headless Chromium (Debian's ``chromium``, driven by
playwright; .ci/run installs it) opens the index, a game's page, a phase's page and the
feeds of a standard and a Stab! game, served by the judge's own archive server, at a phone's
width and a desktop's, with JavaScript on and off. Each page shows its picture (loaded, and
within the width: the screenshots are kept in the test's folder), no request fails, every
link leads to a page that is there, the console has no error, and nothing is wider than the
screen.

Skipped, saying why, only when Chromium is absent on a developer's machine; in CI (the
environment's ``CI`` set, as .ci/run's runner sets it) its absence fails the test."""

from __future__ import annotations

import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin

import pytest
from mailkit import POWERS, InProcessBackend, InProcessJudge, free_port
from stabkit import play_stab_game

from judge.archive.web import ArchiveServer
from judge.archive.write import update
from judge.config import ArchiveConfig

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium"
                                        if Path("/usr/bin/chromium").exists() else None)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
GM = "gm@players.test"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def addr(power: str) -> str:
    return f"{power.lower()}@players.test"


@pytest.fixture(scope="module")
def chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail("chromium is not installed, and CI must run the browser test "
                        "(.ci/run installs Debian's chromium package)")
        pytest.skip("chromium is not installed here (apt-get install chromium): the "
                    "archive's browser test needs it")
    pytest.importorskip("playwright.sync_api", reason="playwright (the test extras)")
    return CHROMIUM


@pytest.fixture
def served(tmp_path):
    """An archive with a standard game (two phases, pictures) and a Stab! game, served."""
    j = InProcessJudge(tmp_path, archive=ArchiveConfig(folder="site"))
    j.send(GM, "CREATE Plain master-plain\nOPEN", "new")
    for p in POWERS:
        j.send(addr(p), f"SIGNON {p.title()} Plain pw-{p}", "join")
    j.send(GM, "MASTER Plain master-plain\nSTART", "start")
    j.send(addr("FRANCE"), "SIGNON France Plain pw-FRANCE\nA PAR - BUR", "orders")
    j.send(GM, "MASTER Plain master-plain\nPROCESS", "go")
    j.send(GM, "MASTER Plain master-plain\nPROCESS", "go")
    play_stab_game(InProcessBackend(j), "Hidden", addr, GM, tmp_path / "judge.db")
    update(j.store, j.cfg)
    server = ArchiveServer(tmp_path / "site", f"127.0.0.1:{free_port()}")
    server.start()
    try:
        yield f"http://{server.address}/"
    finally:
        server.stop()


PAGES = ["index.html", "game/plain/index.html", "game/plain/S1901M.html",
         "game/plain/F1901M.html", "game/hidden/index.html", "game/hidden/F1901M.html",
         "game/hidden/start.html"]
FEEDS = ["feed.atom", "game/plain/feed.atom", "game/hidden/feed.atom"]


def test_archive_pages_in_chromium(chromium, served, tmp_path) -> None:
    from playwright.sync_api import sync_playwright

    shots = tmp_path / "screenshots"
    shots.mkdir()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            for script in (True, False):
                for size in (PHONE, DESKTOP):
                    context = browser.new_context(viewport=size, java_script_enabled=script)
                    page = context.new_page()
                    problems: list[str] = []
                    page.on("console", lambda m, p=problems: m.type == "error" and p.append(
                        f"console: {m.text}"))
                    page.on("pageerror", lambda e, p=problems: p.append(f"page error: {e}"))
                    page.on("requestfailed", lambda r, p=problems: p.append(
                        f"failed: {r.url}"))
                    page.on("response", lambda r, p=problems: r.status >= 400 and p.append(
                        f"{r.status}: {r.url}"))
                    for name in PAGES:
                        url = served + name
                        response = page.goto(url, wait_until="load")
                        assert response is not None and response.ok, (name, response)
                        assert page.title(), name
                        images = page.eval_on_selector_all(
                            "img", "els => els.map(i => [i.complete, i.naturalWidth, "
                            "i.getBoundingClientRect().width, i.alt])") if script else []
                        for complete, natural, shown, alt in images:
                            assert complete and natural > 0, (name, "a broken image")
                            assert 0 < shown <= size["width"], (name, shown)
                            assert alt, (name, "an image without a text alternative")
                        if name in ("game/plain/S1901M.html", "game/plain/index.html"):
                            assert page.locator("img").count() == 1
                            assert page.locator("img").first.is_visible()
                        if script:
                            wide = page.evaluate("document.documentElement.scrollWidth")
                            assert wide <= size["width"], (name, wide, size)
                        page.screenshot(path=str(shots / f"{name.replace('/', '-')}-"
                                                 f"{size['width']}-{int(script)}.png"),
                                        full_page=True)
                        for href in page.eval_on_selector_all(
                                "a[href]", "els => els.map(a => a.getAttribute('href'))"):
                            target = urljoin(url, href)
                            got = context.request.get(target)
                            assert got.ok, (name, href, got.status)
                    for name in FEEDS:
                        got = context.request.get(served + name)
                        assert got.ok and got.headers["content-type"].startswith(
                            "application/atom+xml"), name
                        root = ET.fromstring(got.body())
                        for link in root.iter("{http://www.w3.org/2005/Atom}link"):
                            assert context.request.get(urljoin(served + name,
                                                               link.get("href"))).ok
                    assert problems == [], problems
                    context.close()
        finally:
            browser.close()
    assert len(list(shots.iterdir())) == 4 * len(PAGES)
