"""End to end (issue 27): a standard game played by mail through ``judge serve`` and the real
mail servers with the archive on. Every phase's page and picture is served by the judge's own
loopback web server (``[archive] listen``) once the report is mailed; each picture is the
very PNG the master's report carried; the reports carry List-Archive and their page's link;
and ``judge archive --out`` writes the same files as the judge wrote while it ran."""

from __future__ import annotations

import email
import subprocess
import sys
import time
import urllib.error
import urllib.request
from email import policy
from pathlib import Path

from mailkit import (
    JudgeProcess,
    SinkBackend,
    free_port,
    imap_config,
    play_standard_game,
    unique,
    write_config,
)

BASE = "https://dip.example.org/games"


def fetch(url: str, timeout: float = 60.0) -> bytes:
    """GET ``url`` from the judge's archive server, waiting for the page to be written."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return r.read()
        except urllib.error.HTTPError as exc:
            if exc.code != 404 or time.monotonic() > deadline:
                raise
        time.sleep(0.2)


def png_of(raw: bytes) -> bytes | None:
    msg = email.message_from_bytes(raw, policy=policy.default)
    return next((p.get_payload(decode=True) for p in msg.walk()
                 if p.get_content_type() == "image/png"), None)


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def test_game_by_mail_with_the_archive_served(judge_mailbox, smtp_sink, tmp_path):
    env = judge_mailbox
    port = free_port()
    cfg = write_config(tmp_path, imap_config(env, tmp_path) + f"""
[archive]
folder = "site"
base_url = "{BASE}/"
listen = "127.0.0.1:{port}"
""")
    judge = JudgeProcess(cfg, tmp_path).start()
    web = f"http://127.0.0.1:{port}"
    try:
        judge.wait_log("IMAP: connected")
        domain = f"{unique('arch')}.test"
        b = SinkBackend(smtp_sink, env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]),
                        f"judge@{env['MAILTEST_DOMAIN']}")
        game, gm = unique("g"), f"gm@{domain}"
        play_standard_game(b, game, lambda p: f"{p.lower()}@{domain}", gm, timeout=60)
        # the master's four reports (the game waited for the players' only: postfix may
        # relay the master's copy of a phase after the next phase's)
        reports = smtp_sink.wait(lambda m: m.rcpt == gm and " results" in m.subject, count=4,
                                 timeout=60)
        phases = [m.subject.split(" - ")[1].split()[0] for m in reports]
        assert sorted(phases) == sorted(["S1901M", "F1901M", "F1901R", "W1901A"]), phases
        for phase, report in zip(phases, reports, strict=True):
            assert report["List-Archive"] == f"<{BASE}/game/{game}/>"
            assert f"This phase on the web: {BASE}/game/{game}/{phase}.html" in report.body
            page = fetch(f"{web}/game/{game}/{phase}.html").decode()
            assert f'<img src="{phase}.png"' in page and "alt=\"Map of game" in page
            assert report.body.split("\n")[0] in page  # the report's first line
            assert fetch(f"{web}/game/{game}/{phase}.png") == png_of(report.raw)
        index = fetch(f"{web}/").decode()
        assert f'<a href="game/{game}/index.html">{game}</a>' in index
        history = fetch(f"{web}/game/{game}/").decode()
        assert all(f'href="{phase}.html"' in history for phase in phases)
        assert b"<feed" in fetch(f"{web}/game/{game}/feed.atom")
        with urllib.request.urlopen(f"{web}/feed.atom", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("application/atom+xml")
        for bad in ("/../judge.db", "/game/", "/nothing.html"):
            try:
                urllib.request.urlopen(web + bad, timeout=10)
                raise AssertionError(f"{bad} was served")
            except urllib.error.HTTPError as exc:
                assert exc.code == 404, bad
        post = urllib.request.Request(f"{web}/style.css", data=b"x", method="POST")
        try:
            urllib.request.urlopen(post, timeout=10)
            raise AssertionError("a POST was answered")
        except urllib.error.HTTPError as exc:
            assert exc.code in (404, 405), exc.code
    finally:
        assert judge.stop() == 0, judge.log.read_text()
    out = tmp_path / "rebuilt"
    done = subprocess.run([sys.executable, "-m", "judge.cli", "archive", "--out", str(out),
                           "--config", str(cfg)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert files(out) == files(tmp_path / "site")
