"""`judge check` against the real dovecot/postfix (issue 18, item 4): one line per step, exit 0
only when every step works, and a failing connection names its host and port."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from mailkit import JudgeProcess, free_port, imap_config, write_config

JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def check(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGE, "check", "--config", str(config)], capture_output=True,
                          text=True, timeout=120, cwd=config.parent)


def test_check_passes_against_the_real_servers(mail_servers, tmp_path):
    env = mail_servers
    out = check(write_config(tmp_path, imap_config(env, tmp_path)))
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout + out.stderr
    assert [line.split()[:2] for line in lines] == [
        ["ok", "config:"], ["ok", "database:"], ["ok", "intake:"], ["ok", "outbound:"]]
    host = env["MAILTEST_HOST"]
    assert f"IMAP {host}:{env['MAILTEST_IMAP_PORT']} (STARTTLS): logged in as judge" in lines[2]
    assert f"SMTP {host}:{env['MAILTEST_SMTP_PORT']} (STARTTLS): EHLO answered" in lines[3]
    assert "logged in as judge" in lines[3]


def test_check_names_what_fails_and_exits_non_zero(own_mail_servers, tmp_path):
    env = own_mail_servers
    text = imap_config(env, tmp_path).replace('password = "secret"', 'password = "wrong"', 1)
    text = text.replace(f"port = {env['MAILTEST_SMTP_PORT']}", "port = 1")  # nobody listens
    out = check(write_config(tmp_path, text))
    assert out.returncode == 1
    by_step = {line.split()[1]: line for line in out.stdout.splitlines()}
    host = env["MAILTEST_HOST"]
    assert by_step["intake:"].startswith(
        f"FAIL  intake: IMAP {host}:{env['MAILTEST_IMAP_PORT']} (STARTTLS): login refused")
    assert by_step["outbound:"] == (f"FAIL  outbound: SMTP {host}:1 (STARTTLS): connection "
                                    "refused (nothing listens there)")
    assert by_step["database:"].startswith("ok  ")


def test_check_names_an_unknown_host(tmp_path):
    p = write_config(tmp_path, '[intake]\nmode = "imap"\nhost = "imap.no-such-host.invalid"\n'
                               'port = 993\nuser = "j"\npassword = "pw"\n')
    out = check(p)
    assert out.returncode == 1
    assert "FAIL  intake: IMAP imap.no-such-host.invalid:993 (TLS): cannot resolve the host " \
           "name" in out.stdout
    assert "ok    outbound: Maildir" in out.stdout


def test_check_refuses_a_bad_config_and_tries_nothing(tmp_path):
    p = write_config(tmp_path, '[outbund]\nmode = "smtp"\n')
    out = check(p)
    assert out.returncode == 2
    assert out.stdout.startswith(f"FAIL  config: {p} line 1: [outbund]: unknown section (this "
                                 "judge reads [judge], [intake], [outbound], ")
    assert out.stdout.count("\n") == 1  # nothing else was tried


def test_an_empty_config_file_is_named_as_running_on_the_defaults(tmp_path):
    """A host who points the judge at a file with nothing in it (only comments, or the wrong
    file) is told it runs on the built-in defaults, not left to guess (issue 26)."""
    empty = tmp_path / "judge.toml"
    empty.write_text("# the judge's settings, to be written\n", encoding="utf-8")
    out = check(empty)
    assert f"warn  config: {empty} is empty: the judge runs on its built-in defaults" \
        in out.stdout
    from judge.config import load_config

    assert load_config(empty).warnings and not load_config(
        write_config(tmp_path, '[judge]\naddress = "j@example.org"\n')).warnings


def test_check_says_when_the_receiver_port_is_taken(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = check(write_config(tmp_path, f'[intake]\nlisten = "127.0.0.1:{port}"\n'))
    assert out.returncode == 1
    assert f"FAIL  intake: SMTP receiver 127.0.0.1:{port}: cannot listen there" in out.stdout


def test_serve_names_the_imap_server_it_cannot_reach_and_logs_json(tmp_path):
    port = free_port()  # nothing listens there
    p = write_config(tmp_path, f'[judge]\ndatabase = "j.db"\n[intake]\nmode = "imap"\n'
                               f'host = "127.0.0.1"\nport = {port}\nssl = false\n'
                               f'user = "j"\npassword = "pw"\n[log]\nformat = "json"\n')
    judge = JudgeProcess(p, tmp_path).start()
    try:
        judge.wait_log(f"IMAP 127.0.0.1:{port}: connection refused")
    finally:
        assert judge.stop() == 0
    records = [json.loads(line) for line in judge.log.read_text().splitlines()]  # all JSON
    assert any(r["message"].startswith("judge: serving judge@localhost") for r in records)
    assert any(r["level"] == "warning" and r["logger"] == "judge.intake" and
               r["message"].startswith(f"IMAP 127.0.0.1:{port}: connection refused")
               for r in records)


def test_log_level_option_wins_over_the_config(tmp_path):
    p = write_config(tmp_path, '[judge]\ndatabase = "j.db"\n[intake]\nlisten = '
                               f'"127.0.0.1:{free_port()}"\n[log]\nlevel = "debug"\n')
    logs = {}
    for name, extra in (("config", []), ("option", ["--log-level", "WARNING"])):
        judge = JudgeProcess(p, tmp_path)
        judge.log = tmp_path / f"{name}.log"
        judge.start = lambda extra=extra, judge=judge: _start(judge, extra)  # type: ignore
        judge.start()
        judge.wait_log("judge: serving")
        assert judge.stop() == 0
        logs[name] = judge.log.read_text()
    assert " DEBUG " in logs["config"] and " INFO judge: judge judge@localhost running" \
        in logs["config"]
    assert " INFO " not in logs["option"] and " DEBUG " not in logs["option"]


def _start(judge: JudgeProcess, extra: list[str]) -> JudgeProcess:
    import os

    judge.proc = subprocess.Popen([JUDGE, "serve", "--config", str(judge.config), *extra],
                                  cwd=judge.cwd, stdout=subprocess.DEVNULL,
                                  stderr=open(judge.log, "ab"),  # noqa: SIM115
                                  env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return judge


def test_version():
    out = subprocess.run([JUDGE, "--version"], capture_output=True, text=True, timeout=60)
    from judge import __version__
    assert out.returncode == 0 and out.stdout == f"judge {__version__}\n"
