"""Fixtures for the mail tests: real dovecot + postfix on loopback (tests/mailtest), started
once per session, and an aiosmtpd sink on the relay port that captures what postfix relays."""

from __future__ import annotations

import fcntl
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import standalone

REPO = Path(__file__).resolve().parents[1]
MAILTEST = REPO / "tests" / "mailtest"
standalone.install()  # a test that reads beside the checkout fails (issue 26)


@pytest.fixture(autouse=True)
def stays_in_repository() -> Iterator[None]:
    """Fails the test if it reached beside the checkout, even where the error was caught."""
    before = len(standalone.VIOLATIONS)
    yield
    assert standalone.VIOLATIONS[before:] == [], "read beside the checkout (tests/standalone.py)"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "password_cost: scrypt at the judge's real cost in "
                            "this test (not the low cost the other tests hash at)")
    if _preset() is not None and not hasattr(config, "workerinput"):
        # servers started beforehand are one set (one relay port, one mailbox) that two xdist
        # workers would share: the tests run in this process instead (xdist_group cannot keep
        # them on one worker: xdist 3.8 marks a group in item._nodeid, which pytest 9.2 no
        # longer reads)
        config.option.dist, config.option.tx = "no", []


@pytest.fixture(scope="session", autouse=True)
def cheap_passwords() -> Iterator[int]:
    """scrypt at a low cost in this process: the in-process tests sign on thousands of times
    and at the real cost (~50 ms a hash) that was a third of the suite's CPU. Each hash
    records its own cost, so verifying is unaffected; tests marked ``password_cost`` and every
    ``judge serve`` subprocess hash at the real cost. Session-wide, so that module fixtures
    (a game of every variant) hash cheaply too. Yields the real cost."""
    from judge.games import auth

    with pytest.MonkeyPatch.context() as mp:
        real = auth.N
        mp.setattr(auth, "N", 2**4)
        yield real


@pytest.fixture(autouse=True)
def password_cost(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                  cheap_passwords: int) -> None:
    if request.node.get_closest_marker("password_cost") is not None:
        from judge.games import auth

        monkeypatch.setattr(auth, "N", cheap_passwords)


def _preset() -> dict[str, str] | None:
    """The MAILTEST_* settings of servers started before the tests, if any (e.g. by hand)."""
    if not os.environ.get("MAILTEST_IMAP_PORT"):
        return None
    return {k: v for k, v in os.environ.items() if k.startswith("MAILTEST_")}


def _start_mail_servers() -> tuple[str, dict[str, str]]:
    d = tempfile.mkdtemp(prefix="mailtest-", dir="/tmp")  # not tmp_path: /tmp/pytest-of-root is 0700
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAILTEST_")}  # new ports
    # one start at a time across the xdist workers: on a fresh machine the first start
    # installs dovecot and postfix with apt (debconf's database, the policy-rc.d guard that
    # keeps their system-wide daemons from starting), which two at once would trip over
    with open("/tmp/judge-mailtest-start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        out = subprocess.run([MAILTEST / "start-mail-servers.sh", d], check=True, env=env,
                             capture_output=True, text=True, timeout=600).stdout
    return d, dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def _stop_mail_servers(d: str) -> None:
    subprocess.run([MAILTEST / "stop-mail-servers.sh", d, "--purge"], check=False, timeout=60)


@pytest.fixture(scope="session")
def mail_servers():
    """Real dovecot + postfix on loopback; yields the MAILTEST_* settings as a dict. Each
    xdist worker starts its own (its own ports, mailboxes and relay sink), so mail tests run
    side by side."""
    if (preset := _preset()) is not None:
        yield preset
        return
    d, cfg = _start_mail_servers()
    try:
        yield cfg
    finally:
        _stop_mail_servers(d)


_stopping: list[subprocess.Popen] = []  # servers of single tests, stopping in the background


@pytest.fixture
def own_mail_servers():
    """Servers of this test alone, for a test that fails a login on purpose: dovecot then
    delays every later login from the same address by seconds (its auth penalty), which on
    the shared servers the tests after it paid. They stop while the next tests run."""
    d, cfg = _start_mail_servers()
    try:
        yield cfg
    finally:
        _stopping.append(subprocess.Popen([MAILTEST / "stop-mail-servers.sh", d, "--purge"],
                                          stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))


def pytest_sessionfinish(session: pytest.Session) -> None:
    for p in _stopping:
        p.wait(60)


@pytest.fixture
def smtp_sink(mail_servers):
    """aiosmtpd on MAILTEST_RELAY_PORT: receives what postfix relays to non-local domains."""
    from mailkit import Sink

    sink = Sink(int(mail_servers["MAILTEST_RELAY_PORT"]))
    sink.start()
    yield sink
    sink.stop()


@pytest.fixture
def judge_mailbox(mail_servers):
    """The judge's IMAP mailbox, emptied (INBOX and Processed) before the test."""
    from mailkit import empty_mailbox

    empty_mailbox(mail_servers)
    return mail_servers
