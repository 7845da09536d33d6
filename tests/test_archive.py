"""The web archive (issue 27), through the judge's real acting code in process: each public
mail becomes a page with its text, its picture (the bytes the mail carried) and its orders;
the game's page has the centre counts and the history; the feeds parse; every page is HTML5
without a parse error; ``judge archive --out`` writes the same bytes as the pages written
after each report; mail links to the pages. And the archive holds exactly what an observer
receives: in a Stab! Gunboat game and a standard game with press, every archived byte is
searched for what the variant hides (the oracle of the mail tests: tests/stabkit.py's
check_report, tests/hiddenwatch.py's Gunboat names), for addresses, passwords and press."""

from __future__ import annotations

import email
import json
import logging
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from email import policy
from pathlib import Path

import html5lib
import pytest
from hiddenwatch import SEASON_REPORT, group_of, stab_groups
from mailkit import POWERS, Got, InProcessBackend, InProcessJudge
from stabkit import check_report, play_stab_game

from judge.archive.write import update
from judge.config import ArchiveConfig, ConfigError, load_config

GM = "gm@players.test"
BASE = "https://dip.example.org/archive"
ATOM = "{http://www.w3.org/2005/Atom}"


def addr(power: str) -> str:
    return f"{power.lower()}@players.test"


def judge(tmp_path: Path, **archive: str) -> InProcessJudge:
    return InProcessJudge(tmp_path, archive=ArchiveConfig(**{"folder": "site",
                                                              "base_url": BASE, **archive}))


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def pictures_mailed(got: list[Got]) -> dict[str, bytes]:
    out = {}
    for g in got:
        msg = email.message_from_bytes(g.raw, policy=policy.default)
        for part in msg.walk():
            if part.get_content_type() == "image/png":
                out[part.get_filename()] = part.get_payload(decode=True)
    return out


def assert_html5(name: str, data: bytes) -> None:
    parser = html5lib.HTMLParser(strict=True)
    try:
        parser.parse(data.decode("utf-8"))
    except html5lib.html5parser.ParseError as exc:
        raise AssertionError(f"{name}: {exc}: {parser.errors}") from None


def mail_texts(site: dict[str, bytes]) -> dict[str, str]:
    """Each mail page's text (the <pre> of the mail), unescaped, by page."""
    import html

    out = {}
    for name, data in site.items():
        if not name.endswith(".html"):
            continue
        m = re.search(r'<pre class="mail">(.*?)</pre>', data.decode(), re.S)
        if m:
            out[name] = html.unescape(m.group(1))
    return out


def start_standard(j: InProcessJudge, game: str) -> None:
    j.send(GM, f"CREATE {game} master-{game}\nOPEN", "new")
    for p in POWERS:
        j.send(addr(p), f"SIGNON {p.title()} {game} pw-{p}", "join")
    j.send(GM, f"MASTER {game} master-{game}\nSTART", "start")


def test_standard_game_pages_pictures_feeds_and_the_same_bytes_rebuilt(tmp_path) -> None:
    j = judge(tmp_path)
    start_standard(j, "Pics")
    j.send(addr("FRANCE"), "SIGNON France Pics pw-FRANCE\nA PAR - BUR\nA MAR S A PAR - BUR",
           "orders")
    spring = j.send(GM, "MASTER Pics master-Pics\nPROCESS", "go")
    j.send(addr("GERMANY"), "SIGNON Germany Pics pw-GERMANY\nA MUN - BUR", "orders")
    autumn = j.send(GM, "MASTER Pics master-Pics\nPROCESS", "go")
    assert update(j.store, j.cfg) > 0
    site = files(tmp_path / "site")
    folder = "game/pics/"
    assert {"index.html", "style.css", "feed.atom", f"{folder}index.html", f"{folder}feed.atom",
            f"{folder}start.html", f"{folder}start.png", f"{folder}S1901M.html", f"{folder}S1901M.png",
            f"{folder}F1901M.html", f"{folder}F1901M.png"} <= set(site)

    # the picture is the very PNG the reports carried
    mailed = pictures_mailed(spring)
    assert site[f"{folder}S1901M.png"] == mailed["S1901M.png"]
    assert site[f"{folder}F1901M.png"] == pictures_mailed(autumn)["F1901M.png"]

    # the phase's page: its text, its picture with a text alternative, its orders
    page = site[f"{folder}S1901M.html"].decode()
    assert '<img src="S1901M.png" width="929" height="972" alt="Map of game Pics after S1901M' \
        in page
    assert '<span class="order">A PAR - BUR</span> <span class="result succeeds">' in page
    report = next(g for g in spring if g.rcpt == GM and "results" in g.subject)
    text = mail_texts(site)[f"{folder}S1901M.html"]
    assert text.split("\n-- \n")[0] == report.body.split("\n-- \n")[0], (text, report.body)
    assert 'rel="prev" href="start.html"' in page and 'rel="next" href="F1901M.html"' in page

    # the game's page: facts, centre counts over time, the history
    game = site[f"{folder}index.html"].decode()
    assert "<dd>Standard Diplomacy</dd>" in game and "<dd>active</dd>" in game
    assert "<dd>Austria, England, France, Germany, Italy, Russia, Turkey</dd>" in game
    row = re.search(r'<tr><th scope="row"><a href="F1901M.html">F1901M</a></th>(.*?)</tr>',
                    game).group(1)
    assert re.findall(r"<td>(\d+)</td>", row) == ["3", "3", "3", "3", "3", "4", "3"], row
    history = game.split('<ol class="history">')[1]
    assert history.index('href="start.html"') < history.index('href="S1901M.html"') < \
        history.index('href="F1901M.html"')

    index = site["index.html"].decode()
    assert '<a href="game/pics/index.html">Pics</a></th><td>Standard Diplomacy</td><td>S1902M</td>' \
        '<td>active</td>' in index

    for name, data in site.items():
        if name.endswith(".html"):
            assert_html5(name, data)
        if name.endswith(".atom"):
            root = ET.fromstring(data)
            assert root.tag == f"{ATOM}feed"
    # a feed is read away from the archive (a feed reader keeps the entries, not the
    # feed's address): with base_url set, every link of a feed is absolute, rel="self" too
    game_feed = ET.fromstring(site[f"{folder}feed.atom"])
    assert [(k.get("rel"), k.get("href")) for k in game_feed.findall(f"{ATOM}link")] == [
        ("self", f"{BASE}/game/pics/feed.atom"), ("alternate", f"{BASE}/game/pics/index.html")]
    assert [e.find(f"{ATOM}link").get("href") for e in game_feed.findall(f"{ATOM}entry")] == [
        f"{BASE}/game/pics/{p}.html" for p in ("F1901M", "S1901M", "start")]
    judge_feed = ET.fromstring(site["feed.atom"])
    assert [(k.get("rel"), k.get("href")) for k in judge_feed.findall(f"{ATOM}link")] == [
        ("self", f"{BASE}/feed.atom"), ("alternate", f"{BASE}/index.html")]
    assert judge_feed.find(f"{ATOM}entry").find(f"{ATOM}link").get("href") == \
        f"{BASE}/game/pics/F1901M.html"
    # the judge feed's id is its first game's creation date, never the year it is built in
    first = j.store.one("SELECT min(created) AS at FROM games")["at"][:10]
    assert judge_feed.find(f"{ATOM}id").text == f"tag:{j.cfg.domain},{first}:archive"

    # every link of every page leads to a file of the archive
    for name, data in site.items():
        if name.endswith(".html"):
            base = name.rpartition("/")[0]
            for href in re.findall(r'(?:href|src)="([^"]+)"', data.decode()):
                if href == "data:,":  # the empty icon (no request for /favicon.ico)
                    continue
                target = (Path(base) / href).as_posix() if base else href
                target = re.sub(r"[^/]+/\.\./", "", re.sub(r"[^/]+/\.\./", "", target))
                assert target in site, (name, href)

    # mail links to it
    assert report["List-Archive"] == f"<{BASE}/game/pics/>"
    assert f"This phase on the web: {BASE}/game/pics/S1901M.html" in report.body

    # judge archive --out: the same files, the same bytes
    out = tmp_path / "rebuilt"
    config = tmp_path / "judge.toml"
    config.write_text(f'[judge]\ndatabase = "{tmp_path / "judge.db"}"\n'
                      f'[archive]\nbase_url = "{BASE}"\n')  # the feeds' links: the same
    done = subprocess.run([sys.executable, "-m", "judge.cli", "archive", "--out", str(out),
                           "--config", str(config)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert files(out) == site


def test_off_by_default_no_folder_no_header_no_link(tmp_path) -> None:
    j = InProcessJudge(tmp_path)
    start_standard(j, "plain")
    got = j.send(GM, "MASTER plain master-plain\nPROCESS", "go")
    report = next(g for g in got if "results" in g.subject)
    assert report["List-Archive"] == "" and "on the web" not in report.body
    assert update(j.store, j.cfg) == 0 and not (tmp_path / "site").exists()
    # a folder without base_url: pages, and no links in mail
    (tmp_path / "nolinks").mkdir()
    j = judge(tmp_path / "nolinks", base_url="")
    start_standard(j, "nolinks")
    got = j.send(GM, "MASTER nolinks master-nolinks\nPROCESS", "go")
    report = next(g for g in got if "results" in g.subject)
    assert report["List-Archive"] == "" and "on the web" not in report.body
    assert update(j.store, j.cfg) > 0
    assert (tmp_path / "nolinks" / "site" / "game" / "nolinks" / "S1901M.html").is_file()
    # without base_url the feeds' links are relative to the feed (the folder can be anywhere)
    feed = ET.fromstring((tmp_path / "nolinks" / "site" / "game" / "nolinks" / "feed.atom")
                         .read_bytes())
    assert feed.find(f"{ATOM}link").get("href") == "feed.atom"
    assert feed.find(f"{ATOM}entry").find(f"{ATOM}link").get("href") == "S1901M.html"


def test_config_keys_checked(tmp_path) -> None:
    cfg = tmp_path / "judge.toml"
    cfg.write_text('[archive]\nfolder = "site"\nbase_url = "https://x.example/games/"\n'
                   'listen = "127.0.0.1:8080"\n')
    loaded = load_config(cfg)
    assert loaded.archive_url == "https://x.example/games"
    assert loaded.archive_path == tmp_path / "site"
    for bad, why in (('listen = "0.0.0.0:8080"\nfolder = "s"', "loopback only"),
                     ('listen = "127.0.0.1:8080"', "set [archive] folder too"),
                     ('base_url = "ftp://x"', "http:// or https://")):
        cfg.write_text(f"[archive]\n{bad}\n")
        with pytest.raises(ConfigError, match=re.escape(why)):
            load_config(cfg)


def test_stab_gunboat_archive_holds_only_what_an_observer_receives(tmp_path) -> None:
    j = judge(tmp_path)
    reports = play_stab_game(InProcessBackend(j), "gb", addr, GM, tmp_path / "judge.db",
                             gunboat=True)
    game = j.store.game("gb")
    names = json.loads(game["settings"])["pseudonyms"]
    assert update(j.store, j.cfg) > 0
    site = files(tmp_path / "site")
    texts = mail_texts(site)
    assert {"game/gb/S1901M.html", "game/gb/F1901M.html", "game/gb/W1901A.html"} <= set(texts)
    assert not any(n.endswith(".png") for n in site)  # Stab!: no public picture

    # the oracle of the mail tests, on each archived report as an observer's
    start = j.store.one("SELECT phase FROM positions WHERE game_id = ? ORDER BY id LIMIT 1",
                        (game["id"],))["phase"]
    groups = stab_groups(tmp_path / "judge.db", game["id"], start)
    checked = 0
    for page, text in texts.items():
        subject = re.search(r"<h1>(.*?)</h1>", site[page].decode()).group(1)
        m = SEASON_REPORT.search(subject)
        if not m:
            continue
        steps = group_of(groups, m.group(1), int(m.group(2)))
        observer = Got(b"To: observer@players.test\nSubject: x\n\n" + text.encode())
        check_report(steps, None, observer, lambda p: names[p])
        checked += 1
    assert checked == 3

    # what the players were told privately, and who plays what, is nowhere in any byte
    everything = b"\n".join(site.values()).decode("utf-8")  # no picture: all text
    private = {line for p in POWERS for r in reports[p]
               for line in r.body.split("Private: for you only")[-1].splitlines()[1:]
               if line.strip() and "Private: for you only" in r.body
               and not line.startswith(("Next phase", "Deadline", "You play", "-- ",
                                        "judge@", "Send the next", "and movement",
                                        "IF F PIC", "Powers with", "This phase"))}
    assert private
    for line in private:
        assert line not in everything, line
    assert "Private" not in everything and "private notice" not in everything.lower()
    for p in POWERS:
        assert not re.search(rf"\b{p}\b", everything, re.I), p  # Gunboat: no real name
        assert addr(p) not in everything and f"pw-{p.lower()}" not in everything
        assert names[p] in everything
    assert GM not in everything and "master-gb" not in everything
    index = site["index.html"].decode()
    shown = re.search(r"<td>([^<]*)</td></tr>", index).group(1).split(", ")
    assert shown == sorted(names.values())  # by name, never in the powers' order


def test_standard_archive_has_no_press_address_or_password(tmp_path) -> None:
    j = judge(tmp_path)
    start_standard(j, "talk")
    j.send(addr("FRANCE"), "SIGNON France talk pw-FRANCE\nPRESS TO England\nSecret plan "
           "xyzzy\nENDPRESS\nBROADCAST\nOpen letter plugh\nENDPRESS\nA PAR - BUR", "press")
    j.send("observer@elsewhere.test", "OBSERVE talk", "watch")
    j.send(GM, "MASTER talk master-talk\nPROCESS", "go")
    j.send(GM, "MASTER talk master-talk\nPROCESS", "go")
    assert update(j.store, j.cfg) > 0
    everything = b"\n".join(files(tmp_path / "site").values())
    for secret in (b"xyzzy", b"plugh", b"@players.test", b"@elsewhere.test", b"pw-",
                   b"master-talk"):
        assert secret not in everything, secret


def test_an_archive_that_fails_never_stops_the_reports(tmp_path, monkeypatch, caplog) -> None:
    from judge.games import archiving

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    j = judge(tmp_path)
    start_standard(j, "sturdy")
    monkeypatch.setattr(archiving, "keep", broken)
    monkeypatch.setattr(archiving, "next_slug", broken)
    got = j.send(GM, "MASTER sturdy master-sturdy\nPROCESS", "go")
    assert len([g for g in got if "S1901M results" in g.subject]) == len(POWERS) + 1
    assert j.store.game("sturdy")["phase"] == "F1901M"
    assert "could not be kept" in caplog.text and "disk on fire" in caplog.text


def test_a_variants_own_publications_are_archived_by_their_subject(tmp_path) -> None:
    from dipkit import DipGame

    g = DipGame(tmp_path)
    g.judge.cfg.archive = ArchiveConfig(folder="site")
    g.start()
    g.to_deadline()
    assert update(g.judge.store, g.judge.cfg) > 0
    site = files(tmp_path / "site")
    assert {"game/dip/start.html", "game/dip/the-rules-in-force-at-the-start.html",
            "game/dip/move-report-turn-1.html"} <= set(site)
    assert 'href="move-report-turn-1.html">move report turn 1 →</a>' in \
        site["game/dip/start.html"].decode()
    everything = b"\n".join(site.values())
    assert b"@players.test" not in everything and b"seat-" not in everything
    assert b"sgpass" not in everything


def test_a_phase_reported_again_after_rollback_gets_a_page_of_its_own(tmp_path) -> None:
    j = judge(tmp_path)
    start_standard(j, "again")
    first = j.send(GM, "MASTER again master-again\nPROCESS", "go")
    j.send(GM, "MASTER again master-again\nROLLBACK S1901M", "back")
    j.send(addr("FRANCE"), "SIGNON France again pw-FRANCE\nA PAR - BUR", "orders")
    second = j.send(GM, "MASTER again master-again\nPROCESS", "go")
    update(j.store, j.cfg)
    site = files(tmp_path / "site")
    link = f"This phase on the web: {BASE}/game/again/"
    [one] = [g for g in first if g.rcpt == GM and "S1901M results" in g.subject]
    [two] = [g for g in second if g.rcpt == GM and "S1901M results" in g.subject]
    assert f"{link}S1901M.html" in one.body and f"{link}S1901M-2.html" in two.body
    assert "A PAR - BUR" not in mail_texts(site)["game/again/S1901M.html"]
    assert "A PAR - BUR" in mail_texts(site)["game/again/S1901M-2.html"]
    assert site["game/again/S1901M-2.png"] == pictures_mailed(second)["S1901M.png"]


def test_a_players_control_characters_leave_the_feeds_valid_xml(tmp_path) -> None:
    """A Dipnomicy proposal's title is the player's own text, published to everyone: control
    characters in it (an escape, a form feed, a bell) are not XML, and kept as they were they
    made both Atom feeds (the game's and the judge's) unreadable to every feed reader."""
    from dipkit import DipGame

    g = DipGame(tmp_path)
    g.judge.cfg.archive = ArchiveConfig(folder="site")
    g.start()
    g.player("ENGLAND", "F Lon -- NTH\nPROPOSE No <b>convoys</b> \x1b[31m\x0b bell\x07\n"
             "Enact the following mutable rule:\nNo \x0cconvoys at all.\nEND")
    g.to_deadline()
    update(g.judge.store, g.judge.cfg)
    site = files(tmp_path / "site")
    for name in ("feed.atom", "game/dip/feed.atom"):
        feed = ET.fromstring(site[name])
        texts = [e.find(f"{ATOM}content").text for e in feed.iter(f"{ATOM}entry")]
        # (the intake drops the escape and the bell, and reads VT and FF as spaces)
        flat = [" ".join(t.split()) for t in texts]
        assert any("No <b>convoys</b> [31m bell" in t and "No convoys at all." in t
                   for t in flat), name
    assert_html5("move-report-turn-1.html", site["game/dip/move-report-turn-1.html"])


def test_a_folder_holding_the_database_or_maildir_is_refused(tmp_path) -> None:
    """Everything in the archive's folder is served to the world: a folder of "." (the
    database's own folder) or one above it put judge.db (addresses, passwords, press) and the
    Maildir of outgoing mail on the web, through `judge serve` or the host's web server."""
    cfg = tmp_path / "state" / "judge.toml"
    cfg.parent.mkdir()
    for folder, what in ((".", "judge.db"), (str(tmp_path), "judge.db"),
                         ("out", "outbound maildir")):
        cfg.write_text(f'[judge]\ndatabase = "judge.db"\n[outbound]\nmaildir = "out/mail"\n'
                       f'[archive]\nfolder = "{folder}"\nlisten = "127.0.0.1:8080"\n')
        with pytest.raises(ConfigError, match=re.escape(f"[archive] folder: {what}")):
            load_config(cfg)
    cfg.write_text('[judge]\ndatabase = "judge.db"\n[archive]\nfolder = "site"\n')
    assert load_config(cfg).archive_path == tmp_path / "state" / "site"


def test_judge_archive_out_refuses_the_databases_folder(tmp_path) -> None:
    """[archive] folder refuses the database's folder (it would put judge.db on the web), but
    `judge archive --out .` beside the database wrote the pages there, for the host to serve
    the folder, database and all: the same refusal, nothing written."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "judge.toml").write_text('[judge]\ndatabase = "judge.db"\n')
    from judge.storage import Store

    Store(state / "judge.db").close()
    for out in (".", str(tmp_path)):
        done = subprocess.run([sys.executable, "-m", "judge.cli", "archive", "--out", out,
                               "--config", "judge.toml"], cwd=state, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode != 0, (out, done.stdout)
        assert "judge.db would be on the web" in done.stderr, done.stderr
    assert not (state / "index.html").exists() and not (tmp_path / "index.html").exists()
    done = subprocess.run([sys.executable, "-m", "judge.cli", "archive", "--out", "site",
                           "--config", "judge.toml"], cwd=state, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and (state / "site" / "index.html").is_file(), done.stderr


def test_every_page_is_readable_by_a_web_server_of_another_user(tmp_path) -> None:
    """The systemd unit runs the judge with UMask=0027; nginx or Caddy runs as another user.
    Files were made 0644, but the folders the judge made (game/, game/NAME/) were 0750 under
    that umask: every game's page answered 403 Forbidden."""
    import os
    import stat

    j = judge(tmp_path)
    start_standard(j, "perm")
    j.send(GM, "MASTER perm master-perm\nPROCESS", "go")
    old = os.umask(0o027)
    try:
        update(j.store, j.cfg)
        out = tmp_path / "rebuilt"
        from judge.archive.write import rebuild

        rebuild(j.store, j.cfg, out)
    finally:
        os.umask(old)
    for folder in (tmp_path / "site", out):
        for path in [folder, *folder.rglob("*")]:
            want = stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0)
            assert path.stat().st_mode & want == want, (path, oct(path.stat().st_mode))


def _served(folder: Path) -> dict[str, str]:
    """The Content-Type of each of the archive's kinds of file, from judge serve's server."""
    import urllib.request

    from mailkit import free_port

    from judge.archive.web import ArchiveServer

    server = ArchiveServer(folder, f"127.0.0.1:{free_port()}")
    server.start()
    try:
        out = {}
        for name in ("index.html", "style.css", "feed.atom", "game/types/S1901M.png"):
            with urllib.request.urlopen(f"http://{server.address}/{name}", timeout=10) as r:
                out[name] = r.headers.get_params()  # [(type, ""), (parameter, value)...]
        return out
    finally:
        server.stop()


def test_served_content_types_name_their_charset_once(tmp_path) -> None:
    """WhiteNoise adds charset="utf-8" to every text/ type, to which the judge's own types
    already said charset=utf-8: `text/html; charset=utf-8; charset="utf-8"`, a header no
    standard allows (a parameter named twice)."""
    j = judge(tmp_path)
    start_standard(j, "types")
    j.send(GM, "MASTER types master-types\nPROCESS", "go")
    update(j.store, j.cfg)
    utf8 = ("charset", "utf-8")
    assert _served(tmp_path / "site") == {
        "index.html": [("text/html", ""), utf8], "style.css": [("text/css", ""), utf8],
        "feed.atom": [("application/atom+xml", ""), utf8],
        "game/types/S1901M.png": [("image/png", "")]}


def test_the_archive_server_stops_without_a_traceback(tmp_path, monkeypatch, caplog) -> None:
    """judge serve stops its archive server at every stop (systemctl stop, a restart): the
    server's socket and wake-up pipe were closed under its loop, which then died in its
    thread with 'OSError: [Errno 9] Bad file descriptor', a traceback in the log each time."""
    import threading

    died: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args.exc_value))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<!DOCTYPE html><title>x</title>")
    (tmp_path / "site" / "style.css").write_text("")
    (tmp_path / "site" / "feed.atom").write_text("<feed/>")
    (tmp_path / "site" / "game" / "types").mkdir(parents=True)
    (tmp_path / "site" / "game" / "types" / "S1901M.png").write_bytes(b"\x89PNG")
    with caplog.at_level("DEBUG"):
        _served(tmp_path / "site")
    assert died == []
    assert "Traceback" not in caplog.text and "Bad file descriptor" not in caplog.text


def test_the_pages_follow_a_game_status_and_phase_with_no_new_report(tmp_path) -> None:
    """PAUSE, RESUME, ROLLBACK (and ENDGAME) change a game's status or phase with no new turn
    report: the index and the game's page were written only for new mail, so they went on
    saying "active" and the old phase for as long as no report came, for ever in an ended
    game."""
    j = judge(tmp_path)
    start_standard(j, "facts")
    j.send(GM, "MASTER facts master-facts\nPROCESS", "go")
    update(j.store, j.cfg)

    def shown() -> tuple[list[str], list[str]]:
        site = files(tmp_path / "site")
        game = re.findall(r"<dd>([^<]*)</dd>", site["game/facts/index.html"].decode())
        [row] = re.findall(r"<td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>",
                           site["index.html"].decode())
        return game[1:3], list(row)

    assert shown() == (["F1901M", "active"], ["F1901M", "active"])
    j.send(GM, "MASTER facts master-facts\nPAUSE", "pause")
    update(j.store, j.cfg)
    assert shown() == (["F1901M", "paused"], ["F1901M", "paused"])
    j.send(GM, "MASTER facts master-facts\nRESUME\nROLLBACK S1901M", "back")
    update(j.store, j.cfg)
    assert shown() == (["S1901M", "active"], ["S1901M", "active"])


def test_the_game_over_notice_has_its_page(tmp_path) -> None:
    """ENDGAME's notice goes to every player, observer and the game's list, carrying the
    List-Archive header, and is how a game's story ends: the archive had no page for it."""
    j = judge(tmp_path)
    start_standard(j, "fin")
    j.send(GM, "MASTER fin master-fin\nPROCESS", "go")
    got = j.send(GM, "MASTER fin master-fin\nENDGAME DRAW FRANCE ENGLAND", "end")
    [over] = [g for g in got if g.rcpt == addr("ITALY") and "game over" in g.subject]
    assert over["List-Archive"] == f"<{BASE}/game/fin/>"
    update(j.store, j.cfg)
    site = files(tmp_path / "site")
    text = mail_texts(site)["game/fin/game-over.html"]
    assert "Game fin is over." in text and "draw shared by" in text
    assert "England" in text and "France" in text
    assert 'href="game-over.html">fin - game over</a>' in site["game/fin/index.html"].decode()
    assert b"<dd>finished</dd>" in site["game/fin/index.html"]


def test_the_archive_server_serves_only_the_archives_own_files(tmp_path) -> None:
    """judge serve's server answered for any file in the folder: a dotfile, the temporary file
    an update writes beside a page before renaming it, any other file put there, and the
    target of a symlink leading out of the folder (a host's secrets)."""
    import urllib.error
    import urllib.request

    from mailkit import free_port

    from judge.archive.web import ArchiveServer

    site = tmp_path / "site"
    (site / "game" / "g").mkdir(parents=True)
    (site / "index.html").write_text("<!DOCTYPE html><title>x</title>")
    (site / "game" / "g" / "S1901M.png").write_bytes(b"\x89PNG")
    (site / ".htpasswd").write_text("admin:secret")
    (site / "game" / "g" / ".S1901M.html.ab12cd.tmp").write_text("half a page")
    (site / "game" / "g" / "notes.txt").write_text("not the archive's")
    (site / ".git").mkdir()
    (site / ".git" / "index.html").write_text("hidden folder")
    outside = tmp_path / "private.html"
    outside.write_text("the host's own page")
    (site / "leak.html").symlink_to(outside)
    (site / "elsewhere").symlink_to(tmp_path, target_is_directory=True)
    server = ArchiveServer(site, f"127.0.0.1:{free_port()}")
    server.start()

    def status(name: str) -> int:
        try:
            with urllib.request.urlopen(f"http://{server.address}/{name}", timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    try:
        assert status("index.html") == 200 and status("game/g/S1901M.png") == 200
        for name in (".htpasswd", "game/g/.S1901M.html.ab12cd.tmp", "game/g/notes.txt",
                     ".git/index.html", ".git/", "leak.html", "elsewhere/private.html",
                     "elsewhere/site/index.html"):
            assert status(name) == 404, name
    finally:
        server.stop()


def test_a_pictures_text_alternative_is_in_the_variants_words(tmp_path) -> None:
    """The map's text alternative said "every unit and supply centre" on every board: a Chess
    Dip picture is a chess board of pieces on squares. The words are the variant's."""
    j = judge(tmp_path)
    j.send(GM, "CREATE cd1 master-cd1 VARIANT chessdip\nOPEN", "new")
    for p in ("ENGLAND", "ITALY", "FRANCE", "SCANDINAVIA"):
        j.send(addr(p), f"SIGNON {p} cd1 pw-{p}", "join")
    j.send(GM, "MASTER cd1 master-cd1\nSTART", "start")
    j.send(addr("ITALY"), "SIGNON ITALY cd1 pw-ITALY\ne2 - e4", "orders")
    j.send(GM, "MASTER cd1 master-cd1\nPROCESS", "go")
    update(j.store, j.cfg)
    site = files(tmp_path / "site")
    alt = re.search(r'<img src="S1901M.png"[^>]* alt="([^"]*)"',
                    site["game/cd1/S1901M.html"].decode()).group(1)
    assert "supply centre" not in alt and "unit" not in alt, alt
    assert alt.startswith("Board of game cd1 after S1901M: every piece on its square"), alt
    standard = (tmp_path / "std")
    standard.mkdir()
    j = judge(standard)
    start_standard(j, "std")
    j.send(GM, "MASTER std master-std\nPROCESS", "go")
    update(j.store, j.cfg)
    assert 'alt="Map of game std after S1901M: every unit and supply centre, ' in \
        (standard / "site" / "game" / "std" / "S1901M.html").read_text()


@pytest.mark.parametrize("render", [False, True], ids=["pictures", "rendered"])
def test_every_report_page_has_its_picture_when_its_mail_is_held(tmp_path, render) -> None:
    """judge serve draws the pictures after the transaction, and the archive took a report's
    picture from a mail that carried it: a mail held past mail_per_hour is folded into a
    digest as text, so when every reader's report was held no mail carried the picture and
    the page had none (the painter drew it and threw it away). The page has the painter's
    picture whatever the mail did: the very bytes a mail carried when one did."""
    from datetime import timedelta

    from test_pictures_deferred import paint

    j = InProcessJudge(tmp_path, mail_per_hour=4,
                       archive=ArchiveConfig(folder="site", base_url=BASE))
    start_standard(j, "held")
    j.actor.outbox.defer_pictures = True  # as judge serve does
    j.actor.outbox.defer_render = render
    j.send(GM, "MASTER held master-held\n" + "PROCESS\n" * 5, "go")
    paint(j)
    mailed = pictures_mailed(j.run())
    held = j.store.one("SELECT count(*) AS n FROM outbox WHERE state = 'held'")["n"]
    assert held >= len(POWERS) + 1, "every reader's later reports held"
    now = j.actor.outbox.clock()
    j.actor.outbox.clock = lambda: now + timedelta(minutes=11)
    j.run()  # folded into digests, their pictures never built into any mail
    paint(j)
    j.run()
    update(j.store, j.cfg)
    site = files(tmp_path / "site")
    reports = sorted(n for n in site if re.fullmatch(r"game/held/[SFW]190\d[MRA]\.html", n))
    assert len(reports) == 5, reports
    for page in reports:
        png = site.get(page.replace(".html", ".png"))
        assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n", page
        assert f'<img src="{page.rpartition("/")[2][:-5]}.png"' in site[page].decode()
        name = page.rpartition("/")[2].replace(".html", ".png")
        if name in mailed:
            assert png == mailed[name], page
    assert j.store.one("SELECT count(*) AS n FROM pictures")["n"] == 0, "none left behind"



def test_a_rolled_back_page_says_so_and_the_history_is_every_observers_mail(tmp_path) -> None:
    """After a ROLLBACK the undone phase's page (S1901M.html) stayed as it was, with no sign
    that it was void (the phase played again got S1901M-2.html); and the rollback notice,
    PAUSE's and RESUME's, a moved deadline's, which every observer is mailed, were not in the
    archive, which holds exactly what an observer receives: here the game's history is the
    observer's mail, subject for subject and text for text."""
    import html

    watcher = "observer@elsewhere.test"
    j = judge(tmp_path)
    j.send(GM, "CREATE void master-void\nOPEN", "new")
    for p in POWERS:
        j.send(addr(p), f"SIGNON {p.title()} void pw-{p}", "join")
    [asked] = j.send(watcher, "OBSERVE void", "watch")
    code = re.search(r"CONFIRM\s+(\w+)", asked.body).group(1)
    j.send(watcher, f"CONFIRM {code}", "yes")

    def send(frm: str, text: str, subject: str) -> list[Got]:
        sent = j.send(frm, text, subject)
        update(j.store, j.cfg)  # the pages written after each mail, as judge serve does
        return sent

    got = send(GM, "MASTER void master-void\nSTART", "start")
    got += send(GM, "MASTER void master-void\nPROCESS", "go")
    got += send(GM, "MASTER void master-void\nPROCESS", "go")
    got += send(GM, "MASTER void master-void\nPAUSE", "pause")
    got += send(GM, "MASTER void master-void\nRESUME\nDEADLINE 36h", "resume")
    got += send(GM, "MASTER void master-void\nROLLBACK S1901M", "back")
    got += send(addr("FRANCE"), "SIGNON France void pw-FRANCE\nA PAR - BUR", "orders")
    got += send(GM, "MASTER void master-void\nPROCESS", "go")
    got += send(GM, "MASTER void master-void\nENDGAME DRAW FRANCE ENGLAND", "end")
    update(j.store, j.cfg)
    site = files(tmp_path / "site")
    folder = "game/void/"

    observed = [g for g in got if g.rcpt == watcher and g["List-Id"]]
    game = site[f"{folder}index.html"].decode()
    history = re.findall(r'<li( class="void")?><a href="([^"]+)">([^<]*)</a>',
                         game.split('<ol class="history">')[1])
    assert [html.unescape(s) for _, _, s in history] == [g.subject for g in observed]
    texts = mail_texts(site)
    for (_, page, _), mail in zip(history, observed, strict=True):
        assert texts[folder + page].split("\n-- \n")[0] == mail.body.split("\n-- \n")[0], page
    subjects = [g.subject for g in observed]
    for words in ("paused", "resumed", "deadline moved", "rolled back to S1901M", "game over"):
        assert any(words in s for s in subjects), words

    # the undone pages say so, and lead to what replaced them
    void = {page for mark, page, _ in history if mark}
    assert void == {"S1901M.html", "F1901M.html"}, void
    [notice] = [page for _, page, s in history if "rolled back to S1901M" in s]
    first = site[f"{folder}S1901M.html"].decode()
    banner = re.search(r'<p class="void">(.*?)</p>', first, re.S).group(1)
    assert "Rolled back" in banner and f'href="{notice}"' in banner, banner
    assert 'href="S1901M-2.html"' in banner, banner
    autumn = re.search(r'<p class="void">(.*?)</p>', site[f"{folder}F1901M.html"].decode(),
                       re.S).group(1)
    assert "Rolled back" in autumn and "not played again" in autumn.lower(), autumn
    assert 'class="void"' not in site[f"{folder}S1901M-2.html"].decode()
    # the centre counts over time and the latest map leave the void phases out
    assert 'href="F1901M.html">F1901M</a></th>' not in game

    # and the feeds: the entry is marked, and links to its replacement
    for name in (f"{folder}feed.atom", "feed.atom"):
        entries = {e.find(f"{ATOM}link").get("href").rpartition("/")[2]: e for e in
                   ET.fromstring(site[name]).findall(f"{ATOM}entry")}
        if "S1901M.html" not in entries:
            continue
        entry = entries["S1901M.html"]
        assert entry.find(f"{ATOM}title").text.startswith("[Rolled back] ")
        assert f"{BASE}/game/void/S1901M-2.html" in entry.find(f"{ATOM}content").text
    for name, data in site.items():
        if name.endswith(".html"):
            assert_html5(name, data)
    from judge.archive.write import rebuild

    rebuild(j.store, j.cfg, tmp_path / "rebuilt")  # judge archive --out: the same bytes
    assert files(tmp_path / "rebuilt") == site


def test_broadcast_press_is_archived_only_when_observers_are_sent_it(tmp_path) -> None:
    """A game that sends broadcast press to its observers (SET OBSERVERPRESS ON) mails them
    each broadcast: the archive, which holds every mail an observer receives, had none. Press
    to a power, and broadcasts in a game that keeps them from observers, stay out."""
    watcher = "observer@elsewhere.test"
    j = judge(tmp_path)
    start_standard(j, "loud")
    j.send(GM, "MASTER loud master-loud\nSET OBSERVERPRESS ON", "set")
    [asked] = j.send(watcher, "OBSERVE loud", "watch")
    j.send(watcher, "CONFIRM " + re.search(r"CONFIRM\s+(\w+)", asked.body).group(1), "yes")
    got = j.send(addr("FRANCE"), "SIGNON France loud pw-FRANCE\nPRESS TO England\nSecret plan "
                 "xyzzy\nENDPRESS\nBROADCAST\nOpen letter plugh\nENDPRESS", "press")
    [seen] = [g for g in got if g.rcpt == watcher]
    update(j.store, j.cfg)
    site = files(tmp_path / "site")
    [(page, text)] = [(n, t) for n, t in mail_texts(site).items() if "plugh" in t]
    assert text.split("\n-- \n")[0] == seen.body.split("\n-- \n")[0]
    assert f'>{seen.subject}</a>' in site["game/loud/index.html"].decode(), page
    everything = b"\n".join(site.values())
    assert b"xyzzy" not in everything and b"@players.test" not in everything
    # a game that keeps broadcasts from its observers keeps them from the archive too
    j.send(GM, "MASTER loud master-loud\nSET OBSERVERPRESS OFF", "set")
    j.send(addr("FRANCE"), "SIGNON France loud pw-FRANCE\nBROADCAST\nQuiet word frobozz\n"
           "ENDPRESS", "press")
    update(j.store, j.cfg)
    assert b"frobozz" not in b"\n".join(files(tmp_path / "site").values())


def test_pictures_kept_for_the_archive_are_let_go_when_it_is_switched_off(tmp_path) -> None:
    """The painter keeps each report's public picture for the archive until the archive
    takes it. A judge restarted with the archive off never takes them: they are let go at
    the start (the archive's folder untouched), and reports after it keep none; a judge
    started with the archive on keeps them for it."""
    import msgspec
    from test_pictures_deferred import paint

    from judge.service import Service

    def kept() -> list[tuple[int, int]]:
        return [(r["id"], len(r["png"] or b"")) for r in j.store.all(
            "SELECT id, png FROM pictures ORDER BY id")]

    def restart(archive: ArchiveConfig) -> None:
        cfg = msgspec.structs.replace(j.cfg, archive=archive)
        cfg.intake = msgspec.structs.replace(cfg.intake, mode="none")
        service = Service(cfg)  # judge serve's start: nothing is run yet
        service.painter.stopping.set()

    j = judge(tmp_path)
    j.actor.outbox.defer_pictures = True  # as judge serve does
    start_standard(j, "off")
    paint(j)
    j.run()
    update(j.store, j.cfg)  # the archive's folder as it was written
    site = files(tmp_path / "site")
    assert "game/off/start.png" in site
    j.send(GM, "MASTER off master-off\nPROCESS", "go")
    paint(j)
    mailed = pictures_mailed(j.run())
    assert mailed["S1901M.png"][:8] == b"\x89PNG\r\n\x1a\n"
    waiting = kept()
    assert len(waiting) == 1 and waiting[0][1] == len(mailed["S1901M.png"]), waiting

    restart(j.cfg.archive)  # the archive still on: kept for it
    assert kept() == waiting

    restart(ArchiveConfig())  # switched off: let go, the folder as it was
    assert kept() == []
    assert files(tmp_path / "site") == site
    j.cfg.archive = ArchiveConfig()
    j.send(GM, "MASTER off master-off\nPROCESS", "go")
    paint(j)
    assert pictures_mailed(j.run())["F1901M.png"][:8] == b"\x89PNG\r\n\x1a\n"
    assert kept() == [], "a report with the archive off keeps no picture"
    assert files(tmp_path / "site") == site


def test_a_master_who_plays_a_power_leaves_the_archive_the_observers_view(tmp_path) -> None:
    """The archive keeps each public mail as an observer gets it. When the master's address
    is also a player's, the judge mails that address one copy, the player's, with its
    private notice, and the public view has no reader in the game at all: the archive still
    holds the observer's view, never the player's. A Stab! game (each player told privately
    where its units are) whose master plays France, painted as judge serve paints: no byte of
    the archive holds what France was told privately."""
    from stabkit import AUTUMN, PLACEMENT, SPRING, WINTER
    from test_pictures_deferred import paint

    j = judge(tmp_path)
    j.actor.outbox.defer_pictures = True  # as judge serve does
    j.actor.outbox.defer_render = True
    master = addr("FRANCE")
    mail: list[Got] = []

    def send(frm: str, body: str, subject: str) -> None:
        mail.extend(j.send(frm, body, subject))
        paint(j)
        mail.extend(j.run())

    send(master, "CREATE mp master-mp VARIANT stab\nOPEN", "new")
    for p in POWERS:
        send(addr(p), f"SIGNON {p.title()} mp pw-{p}", "join")
    send(master, "MASTER mp master-mp\nSTART", "start")
    for season in ({p: PLACEMENT[p] + SPRING[p] for p in POWERS}, AUTUMN, WINTER):
        for p, lines in season.items():
            send(addr(p), f"SIGNON {p} mp pw-{p}\n" + "\n".join(lines), "orders")
        if j.store.game("mp")["phase"] != "S1902M" and season is WINTER:
            send(master, "MASTER mp master-mp\nPROCESS", "go")
    assert j.store.game("mp")["phase"] == "S1902M"

    reports = [m for m in mail if m.rcpt == master and " report" in m.subject]
    assert len(reports) == 3, [m.subject for m in mail if m.rcpt == master]
    private = {line.strip() for r in reports
               for line in r.body.split("Private: for you only")[1].split("\nNext phase")[0]
               .splitlines()[2:] if line.strip()}
    assert any(line.startswith("Your units:") for line in private), private
    assert update(j.store, j.cfg) > 0
    site = files(tmp_path / "site")
    texts = mail_texts(site)
    assert {"game/mp/start.html", "game/mp/S1901M.html", "game/mp/F1901M.html",
            "game/mp/W1901A.html"} <= set(texts), sorted(texts)
    everything = b"\n".join(site.values()).decode("utf-8")  # Stab!: no picture, all text
    for line in private:
        assert line not in everything, line
    assert "Private" not in everything and "private notice" not in everything.lower()
    assert "You play" not in everything and "pw-" not in everything
    assert master not in everything and "master-mp" not in everything


def test_a_nul_in_the_path_is_not_found_not_a_server_error(tmp_path, caplog) -> None:
    """GET /index.html%00 (WhiteNoise decodes it to a NUL, os.path.realpath raises on it)
    was a 500 and a 30-line traceback in the judge's log, for anyone who asks, as often as
    they ask: it is a page the archive does not have."""
    import http.client

    from mailkit import free_port

    from judge.archive.web import ArchiveServer

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!DOCTYPE html><title>x</title>")
    server = ArchiveServer(site, f"127.0.0.1:{free_port()}")
    server.start()
    try:
        for path in ("/index.html%00", "/%00", "/game/%00/index.html"):
            host, port = server.address.rsplit(":", 1)
            conn = http.client.HTTPConnection(host, int(port), timeout=10)
            conn.request("GET", path)
            assert conn.getresponse().status == 404, path
            conn.close()
    finally:
        server.stop()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
