"""A new host's first hour (session 31, newhost33): what `judge check` and `judge serve` say
about the database and the servers a host gets wrong first. Each test runs the installed
`judge` command as a host does, in a folder of its own."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from mailkit import JudgeProcess, Sink, free_port, write_config

JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGE, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def by_step(stdout: str) -> dict[str, str]:
    return {line.split()[1].rstrip(":"): line for line in stdout.splitlines()}


def config_for(folder: Path, database: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write_config(folder, f'[judge]\ndatabase = "{database}"\n[intake]\n'
                                f'listen = "127.0.0.1:{free_port()}"\n{extra}')


def test_a_second_judge_on_the_same_database_is_refused(tmp_path):
    """Two `judge serve` on one database both sent the outbox: 6 of 10 replies went twice.
    The second is refused, naming the first; `judge check` says so; a judge killed with
    SIGKILL leaves no lock behind."""
    db = tmp_path / "judge.db"
    first = JudgeProcess(config_for(tmp_path / "one", str(db)), tmp_path / "one").start()
    try:
        first.listening()
        second_config = config_for(tmp_path / "two", str(db))
        out = run("check", "--config", str(second_config), cwd=tmp_path / "two")
        assert out.returncode == 1
        assert by_step(out.stdout)["database"] == (
            f"FAIL  database: {db}: a judge is serving it now (process {first.proc.pid}): "
            "two judges on one database send their mail twice; stop it first, or give this "
            "one a database of its own")
        second = run("serve", "--config", str(second_config), cwd=tmp_path / "two")
        assert second.returncode == 1
        assert second.stderr.strip().splitlines()[-1] == (
            f"judge: cannot start: {db}: a judge is serving it now (process "
            f"{first.proc.pid}): two judges on one database send their mail twice; stop it "
            "first, or give this one a database of its own")
        assert first.proc.poll() is None, "the first judge goes on"
    finally:
        first.stop(signal.SIGKILL)
    again = JudgeProcess(second_config, tmp_path / "two").start()
    try:
        again.listening()
    finally:
        assert again.stop() == 0
    out = run("check", "--config", str(second_config), cwd=tmp_path / "two")
    assert by_step(out.stdout)["database"].startswith("ok    database:"), out.stdout


def test_check_fails_a_database_that_is_a_folder_or_not_sqlite(tmp_path):
    """`judge check` said "ok database: ... (exists, writable)" for both, and `judge serve`
    then died with sqlite3's traceback."""
    folder = tmp_path / "dbfolder"
    folder.mkdir()
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    for path, why in ((folder, "is a folder, not a database file"),
                      (text, "is not a SQLite database (file is not a database)")):
        config = config_for(tmp_path / path.name.replace(".", "-"), str(path))
        out = run("check", "--config", str(config), cwd=config.parent)
        assert out.returncode == 1
        assert by_step(out.stdout)["database"] == f"FAIL  database: {path}: {why}"
        served = run("serve", "--config", str(config), cwd=config.parent)
        assert served.returncode == 1
        assert "Traceback" not in served.stderr, served.stderr
        assert served.stderr.strip().splitlines()[-1] == f"judge: cannot start: {path}: {why}"


def test_a_database_from_a_newer_judge_is_refused_and_an_older_one_is_named(tmp_path):
    """A host who goes back to an older wheel after an upgrade: the older judge ran on the
    newer tables without a word (schema 20 under a judge of schema 1, tried by hand). Now a
    judge refuses a database newer than itself; `judge check` also says when the judge will
    migrate one (back it up first)."""
    from judge.storage import MIGRATIONS, Store

    db = tmp_path / "judge.db"
    Store(db).close()
    config = config_for(tmp_path, str(db))
    out = run("check", "--config", str(config), cwd=tmp_path)
    assert by_step(out.stdout)["database"] == f"ok    database: {db} (exists, writable)"
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version={len(MIGRATIONS) - 3}")
    out = run("check", "--config", str(config), cwd=tmp_path)
    assert by_step(out.stdout)["database"] == (
        f"ok    database: {db} (exists, writable; written by an older judge: `judge serve` "
        f"will update its tables from schema {len(MIGRATIONS) - 3} to {len(MIGRATIONS)}: "
        "back it up first, to go back to the older judge)")
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
    why = (f"{db}: written by a newer judge (schema {len(MIGRATIONS) + 1}; this one knows "
           f"{len(MIGRATIONS)}): run that judge again, or restore the backup taken before "
           "the upgrade")
    out = run("check", "--config", str(config), cwd=tmp_path)
    assert out.returncode == 1
    assert by_step(out.stdout)["database"] == f"FAIL  database: {why}"
    served = run("serve", "--config", str(config), cwd=tmp_path)
    assert served.returncode == 1 and "Traceback" not in served.stderr, served.stderr
    assert served.stderr.strip().splitlines()[-1] == f"judge: cannot start: {why}"


def test_check_says_what_to_change_when_the_relay_offers_no_starttls(tmp_path):
    """A local relay without TLS (the example's starttls = true left as it is): check said
    "SMTPNotSupportedError: STARTTLS extension not supported by server."."""
    port = free_port()
    sink = Sink(port)
    sink.start()
    try:
        config = config_for(tmp_path, "judge.db", f'[outbound]\nmode = "smtp"\nhost = '
                                                  f'"127.0.0.1"\nport = {port}\n')
        out = run("check", "--config", str(config), cwd=tmp_path)
    finally:
        sink.stop()
    assert out.returncode == 1
    assert by_step(out.stdout)["outbound"] == (
        f"FAIL  outbound: SMTP 127.0.0.1:{port} (STARTTLS): the server does not offer "
        "STARTTLS (on a relay without TLS set starttls = false; ssl = true for a TLS port)")


def test_serve_says_which_key_chooses_the_receivers_port(tmp_path):
    """Port taken (2525 by another judge or a test): the host was told the OS error only,
    and the README's embedded default has no option for the port."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        config = write_config(tmp_path, f'[intake]\nlisten = "127.0.0.1:{port}"\n')
        served = run("serve", "--config", str(config), cwd=tmp_path)
    assert served.returncode == 1
    last = served.stderr.strip().splitlines()[-1]
    assert "address already in use" in last
    assert last.endswith("(is a judge already running? to listen elsewhere, set [intake] "
                         "listen = \"127.0.0.1:PORT\" in the config)"), last
    assert os.path.exists(tmp_path / "judge.db")


def test_check_tries_the_archive_and_serve_names_its_port(tmp_path):
    """[archive] listen on a taken port: `judge check` said ok for every step, and `judge
    serve` then said only "cannot start: [Errno 98] Address already in use"."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        config = config_for(tmp_path, "judge.db", f'[archive]\nfolder = "archive"\n'
                                                  f'listen = "127.0.0.1:{port}"\n')
        out = run("check", "--config", str(config), cwd=tmp_path)
        served = run("serve", "--config", str(config), cwd=tmp_path)
    assert out.returncode == 1
    assert by_step(out.stdout)["archive"] == (
        f"FAIL  archive: served on 127.0.0.1:{port}: cannot listen there (Address already "
        "in use): set [archive] listen to a free port")
    assert served.returncode == 1
    assert served.stderr.strip().splitlines()[-1] == (
        f"judge: cannot start: the web archive cannot listen on 127.0.0.1:{port} (Address "
        "already in use): set [archive] listen to a free port")
    out = run("check", "--config", str(config_for(tmp_path / "free", "judge.db",
                                                  '[archive]\nfolder = "archive"\n')),
              cwd=tmp_path / "free")
    assert by_step(out.stdout)["archive"] == \
        f"ok    archive: {tmp_path / 'free' / 'archive'} (writable)"


def test_a_database_folder_that_is_a_file_is_said_in_words(tmp_path):
    """database = "state/judge.db" where state is a file: check said "FileExistsError:
    [Errno 17] File exists: '.../state'", serve "[Errno 17] File exists: '.../state'"."""
    state = tmp_path / "state"
    state.write_text("a file\n")
    config = config_for(tmp_path / "host", str(state / "judge.db"))
    out = run("check", "--config", str(config), cwd=config.parent)
    assert out.returncode == 1
    assert by_step(out.stdout)["database"] == f"FAIL  database: {state} is a file, not a folder"
    served = run("serve", "--config", str(config), cwd=config.parent)
    assert served.returncode == 1
    assert served.stderr.strip().splitlines()[-1] == \
        f"judge: cannot start: {state} is a file, not a folder"


def test_a_mistyped_key_names_the_nearest_and_an_unquoted_text_says_quotes(tmp_path):
    """`adress = ...` was "[judge] adress: unknown key" and `address = judge@x.org` (no
    quotes) "Invalid value (at line 2, column 11)": a host new to TOML had to guess both."""
    typo = write_config(tmp_path, '[judge]\nadress = "judge@club.example"\n[outbound]\n'
                                  'mode = "smtp"\nhots = "127.0.0.1"\n')
    out = run("check", "--config", str(typo), cwd=tmp_path)
    assert out.returncode == 2
    assert out.stdout == (f"FAIL  config: {typo} line 2: [judge] adress: unknown key (did you "
                          "mean address?)\n")
    bare = write_config(tmp_path, '[judge]\naddress = judge@club.example\n')
    out = run("check", "--config", str(bare), cwd=tmp_path)
    assert out.stdout == (f"FAIL  config: {bare}: Invalid value (at line 2, column 11): a "
                          "text is written in quotes, as in address = \"judge@example.org\"\n")


def test_judge_archive_says_why_it_cannot_read_the_database(tmp_path):
    """`judge archive --out` on a file that is not the judge's database ended in sqlite3's
    traceback."""
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    config = write_config(tmp_path, f'[judge]\ndatabase = "{text}"\n')
    out = run("archive", "--config", str(config), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr == f"judge: {text}: is not a SQLite database (file is not a database)\n"
