"""``judge check [--config F]``: load the config, then try what ``judge serve`` will need, one
line per step: the database folder, the intake (IMAP: connect, log in, open the folder; SMTP
receiver: the listen address can be bound) and the outbound side (SMTP: connect, EHLO, STARTTLS,
log in; Maildir: a file can be written), and the web archive's folder and listen address
when it is on. Exit 0 only when every step works; 2 for a config that
cannot be loaded; 1 for a step that fails. Every connection error names the host and port."""

from __future__ import annotations

import contextlib
import os
import smtplib
import socket
import ssl
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from judge.config import Config, ConfigError, load_config
from judge.storage import MIGRATIONS, UnusableDatabase, hold_database, inspect_database

TIMEOUT = 20.0


def connection_error(exc: BaseException) -> str:
    """What went wrong with a connection, in words (the caller names the host and port)."""
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host name ({exc.strerror or exc})"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (nothing listens there)"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "no answer (timed out)"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS certificate not trusted ({exc.verify_message}; set ca_file?)"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason or exc}; check ssl/starttls and the port)"
    if isinstance(exc, smtplib.SMTPNotSupportedError) and "STARTTLS" in str(exc):
        return ("the server does not offer STARTTLS (on a relay without TLS set starttls = "
                "false; ssl = true for a TLS port)")
    if isinstance(exc, smtplib.SMTPNotSupportedError) and "AUTH" in str(exc):
        return ("the server offers no login (AUTH): leave user empty for a relay that takes "
                "mail without one, or use the port that asks for it (587)")
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return f"login refused ({exc.smtp_code} {exc.smtp_error.decode(errors='replace')})"
    if type(exc).__name__ == "LoginError":  # imapclient's
        return f"login refused ({exc})"
    return f"{type(exc).__name__}: {exc}"


def os_error_words(exc: OSError) -> str:
    """A file system error as a host reads it: the path and what is wrong, no "[Errno N]"
    (``judge check``'s steps, ``judge serve``'s start)."""
    if isinstance(exc, FileExistsError | NotADirectoryError) and exc.filename:
        for parent in (Path(exc.filename), *Path(exc.filename).parents):
            if parent.is_file():
                return f"{parent} is a file, not a folder"
    if exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return exc.strerror or str(exc)


def _tls(ssl_on: bool, starttls: bool) -> str:
    return " (TLS)" if ssl_on else " (STARTTLS)" if starttls else " (plain)"


def _context(ca_file: str) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=ca_file or None)


def check_database(cfg: Config) -> str:
    folder = cfg.database_path.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        version = inspect_database(cfg.database_path)
    except UnusableDatabase as exc:
        raise RuntimeError(str(exc)) from None
    target = cfg.database_path if version is not None else folder
    if not os.access(target, os.W_OK):
        raise PermissionError(f"{target} is not writable by this user")
    try:  # taken and let go at once: only a judge serving it now holds it
        hold_database(cfg.database_path).close()
    except UnusableDatabase as exc:
        raise RuntimeError(str(exc)) from None
    older = ""
    if version is not None and version < len(MIGRATIONS):
        older = (f"; written by an older judge: `judge serve` will update its tables from "
                 f"schema {version} to {len(MIGRATIONS)}: back it up first, to go back to "
                 f"the older judge")
    return f"{cfg.database_path} ({'exists' if target != folder else 'will be created'}, "\
           f"writable{older})"


def check_imap(cfg: Config) -> str:
    from imapclient import IMAPClient

    c = cfg.intake
    ctx = _context(c.ca_file) if (c.ssl or c.starttls) else None
    where = f"IMAP {c.host}:{c.port}{_tls(c.ssl, c.starttls)}"
    try:
        client = IMAPClient(c.host, port=c.port, ssl=c.ssl, ssl_context=ctx, timeout=TIMEOUT)
    except Exception as exc:
        raise RuntimeError(f"{where}: {connection_error(exc)}") from exc
    try:
        if c.starttls and not c.ssl:
            client.starttls(ctx)
        client.login(c.user, c.password)
        info = client.select_folder(c.folder, readonly=True)
        count = info.get(b"EXISTS", 0)
    except Exception as exc:
        raise RuntimeError(f"{where}: {connection_error(exc)}") from exc
    finally:
        with contextlib.suppress(Exception):
            client.logout()
    return f"{where}: logged in as {c.user}, folder {c.folder} holds {count} message(s)"


def _can_listen(host: str, port: int) -> str | None:
    """None when this user may listen on ``host:port`` now (bound and let go at once), else
    the OS's words for why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            return str(exc.strerror or exc)
    return None


def check_listen(cfg: Config) -> str:
    host, port = cfg.intake.listen_host, cfg.intake.listen_port
    why = _can_listen(host, port)
    if why is not None:
        raise RuntimeError(f"SMTP receiver {host}:{port}: cannot listen there "
                           f"({why}; is a judge already running?)")
    return f"SMTP receiver {host}:{port}: the address is free to listen on"


def check_smtp(cfg: Config) -> str:
    o = cfg.outbound
    where = f"SMTP {o.host}:{o.port}{_tls(o.ssl, o.starttls)}"
    ctx = _context(o.ca_file)
    try:
        smtp = smtplib.SMTP_SSL(o.host, o.port, timeout=min(o.timeout, TIMEOUT), context=ctx) \
            if o.ssl else smtplib.SMTP(o.host, o.port, timeout=min(o.timeout, TIMEOUT))
    except Exception as exc:
        raise RuntimeError(f"{where}: {connection_error(exc)}") from exc
    try:
        code, banner = smtp.ehlo()
        if code != 250:
            raise RuntimeError(f"{where}: EHLO answered {code}")
        if o.starttls and not o.ssl:
            smtp.starttls(context=ctx)
            smtp.ehlo()
        said = f"EHLO answered by {banner.decode(errors='replace').splitlines()[0]}"
        if o.user:
            smtp.login(o.user, o.password)
            said += f", logged in as {o.user}"
    except RuntimeError:
        raise
    except Exception as exc:
        raise RuntimeError(f"{where}: {connection_error(exc)}") from exc
    finally:
        with contextlib.suppress(Exception):
            smtp.quit()
    return f"{where}: {said}"


def check_maildir(cfg: Config) -> str:
    root = cfg.maildir_path
    for sub in ("tmp", "new", "cur"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    probe = root / "tmp" / f"judge-check-{uuid.uuid4().hex}"
    probe.write_bytes(b"")
    probe.unlink()
    return f"Maildir {root}: writable"


def check_archive(cfg: Config) -> str:
    folder = cfg.archive_path
    folder.mkdir(parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK):
        raise PermissionError(f"{folder} is not writable by this user")
    said = f"{folder} (writable)"
    listen = cfg.archive.listen
    if listen:
        host, _, port = listen.rpartition(":")
        why = _can_listen(host.strip("[]"), int(port))
        if why is not None:
            raise RuntimeError(f"served on {listen}: cannot listen there ({why}): set "
                               "[archive] listen to a free port")
        said += f", served on {listen} (free to listen on)"
    return said


def run_check(config_path: str | None, out: TextIO = sys.stdout) -> int:
    def say(ok: bool, step: str, text: str) -> None:
        print(f"{'ok  ' if ok else 'FAIL'}  {step}: {text}", file=out, flush=True)

    try:
        cfg = load_config(config_path)
    except ConfigError as exc:
        say(False, "config", str(exc))
        return 2
    say(True, "config", f"{config_path or 'embedded default'} ({cfg.address}; intake "
                        f"{cfg.intake.mode}, outbound {cfg.outbound.mode})")
    for warning in cfg.warnings:
        print(f"warn  config: {warning}", file=out, flush=True)
    steps: list[tuple[str, Callable[[Config], str]]] = [("database", check_database)]
    if cfg.intake.mode == "imap":
        steps.append(("intake", check_imap))
    elif cfg.intake.mode == "smtp":
        steps.append(("intake", check_listen))
    steps.append(("outbound", check_smtp if cfg.outbound.mode == "smtp" else check_maildir))
    if cfg.archive.on:
        steps.append(("archive", check_archive))
    failed = False
    for step, run in steps:
        try:
            say(True, step, run(cfg))
        except (RuntimeError, OSError) as exc:
            failed = True
            say(False, step, str(exc) if isinstance(exc, RuntimeError) or not exc.strerror
                else os_error_words(exc))
    if cfg.intake.mode == "none":
        say(True, "intake", "none (this judge reads no mail)")
    return 1 if failed else 0
