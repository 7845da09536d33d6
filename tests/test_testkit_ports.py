"""The test kit's ports and judge processes (tests/mailkit.py): free_port drew a port from
the kernel's ephemeral range, which any outgoing connection (postfix relaying, a judge's IMAP)
could take before the test's server bound it; a judge started on a taken port, or that never
said it listened, was left running behind the failed test. Through the real mail servers,
as the tests that start ``judge serve`` run it."""

from __future__ import annotations

import os
import signal
import socket

import mailkit
import pytest
from mailkit import JudgeProcess, PortTaken, imap_config, on_free_port, write_config


def test_free_port_is_never_one_the_kernel_hands_to_outgoing_connections():
    low, high = mailkit._ephemeral_ports()
    ports = [mailkit.free_port() for _ in range(50)]
    assert all(not low <= port <= high for port in ports), (low, high, ports)
    for port in ports[:5]:  # and free: a server binds it
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def _smtp_judge(env, tmp_path, port: int) -> JudgeProcess:
    text = imap_config(env, tmp_path).replace('mode = "imap"', 'mode = "smtp"')
    text = text.replace("[intake]", f'[intake]\nlisten = "127.0.0.1:{port}"')
    return JudgeProcess(write_config(tmp_path, text), tmp_path).start()


def _gone(judge: JudgeProcess) -> bool:
    """Whether the judge and every process of its group have ended."""
    assert judge.proc is not None
    if judge.proc.poll() is None:
        return False
    try:
        os.killpg(judge.proc.pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_judge_whose_port_was_taken_starts_on_another(mail_servers, tmp_path, monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", mailkit.free_port()))
    taken.listen()
    chosen = iter([taken.getsockname()[1], mailkit.free_port()])
    monkeypatch.setattr(mailkit, "free_port", lambda: next(chosen))
    started: list[JudgeProcess] = []

    def start(port: int) -> tuple[JudgeProcess, int]:
        started.append(_smtp_judge(mail_servers, tmp_path, port))
        return started[-1].listening(), port

    try:
        judge, port = on_free_port(start)
        assert port != taken.getsockname()[1] and len(started) == 2
        assert _gone(started[0])  # the first one, on the taken port, is not left running
        with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
            assert c.recv(100).startswith(b"220")
        assert judge.stop() == 0, judge.log_text()
    finally:
        taken.close()
        for judge in started:
            judge.kill()


def test_a_judge_that_never_listens_is_killed_with_its_group(mail_servers, tmp_path):
    judge = _smtp_judge(mail_servers, tmp_path, mailkit.free_port())
    with pytest.raises(AssertionError, match="never said"):
        judge.listening("a line the judge never writes", timeout=3)
    assert _gone(judge)
    # a stop that times out kills the group too
    judge = _smtp_judge(mail_servers, tmp_path, mailkit.free_port()).listening()
    with pytest.raises(Exception, match="timed out"):
        judge.stop(signal.SIGSTOP, timeout=1)  # stopped, it never exits by itself
    assert _gone(judge)


def test_a_port_taken_is_told_apart_from_other_failures(mail_servers, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", mailkit.free_port()))
        taken.listen()
        judge = _smtp_judge(mail_servers, tmp_path, taken.getsockname()[1])
        with pytest.raises(PortTaken):
            judge.listening()
        assert _gone(judge)
