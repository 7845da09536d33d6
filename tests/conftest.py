"""Fixtures for the mail tests: real dovecot + postfix on loopback (../shared/mailtest), started
once per session, and an aiosmtpd sink on the relay port that captures what postfix relays."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAILTEST = REPO.parent / "shared" / "mailtest"


@pytest.fixture(scope="session")
def mail_servers():
    """Real dovecot + postfix on loopback; yields the MAILTEST_* settings as a dict."""
    if os.environ.get("MAILTEST_IMAP_PORT"):  # already started, e.g. by .ci/run
        yield {k: v for k, v in os.environ.items() if k.startswith("MAILTEST_")}
        return
    d = tempfile.mkdtemp(prefix="mailtest-", dir="/tmp")  # not tmp_path: /tmp/pytest-of-root is 0700
    out = subprocess.run([MAILTEST / "start-mail-servers.sh", d], check=True,
                         capture_output=True, text=True, timeout=300).stdout
    cfg = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    try:
        yield cfg
    finally:
        subprocess.run([MAILTEST / "stop-mail-servers.sh", d, "--purge"], check=False,
                       timeout=60)


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
