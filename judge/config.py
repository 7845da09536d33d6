"""The judge's configuration: the embedded default and ``judge.toml`` (DESIGN.md, contract).

``judge serve`` without a config runs the embedded default in the current directory: database
``judge.db``, the built-in SMTP receiver on ``127.0.0.1:2525`` for ``judge@localhost``, and
outgoing mail written to the Maildir ``outgoing/``. A config file sets the keys of
``deploy/judge.toml.example``; the keys of DESIGN.md are fixed, the others are this judge's own.

Relative paths: ``database`` is relative to the config file's folder (the current directory
without a config); ``outbound.maildir`` is relative to the database's folder ("beside the
database").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A config file that cannot be used; the message says which key and why."""


@dataclass(slots=True)
class IntakeConfig:
    mode: str = "smtp"  # smtp | imap | none
    # imap
    host: str = "localhost"
    port: int = 993
    ssl: bool = True
    starttls: bool = False
    user: str = ""
    password: str = ""
    folder: str = "INBOX"
    processed_folder: str = "Processed"  # where handled mail is moved ("" keeps it in place)
    poll_seconds: float = 30.0  # polling interval when the server has no IDLE
    idle: bool = True  # use IDLE where the server offers it (false: always poll)
    idle_seconds: float = 300.0  # re-issue IDLE this often
    ca_file: str = ""  # CA bundle to verify the server's certificate
    # smtp
    listen: str = "127.0.0.1:2525"

    @property
    def listen_host(self) -> str:
        host, _, _ = self.listen.rpartition(":")
        return host.strip("[]") or "127.0.0.1"

    @property
    def listen_port(self) -> int:
        return int(self.listen.rpartition(":")[2])


@dataclass(slots=True)
class OutboundConfig:
    mode: str = "maildir"  # maildir | smtp
    host: str = "localhost"
    port: int = 587
    ssl: bool = False
    starttls: bool = True
    user: str = ""
    password: str = ""
    maildir: str = "outgoing"
    ca_file: str = ""
    timeout: float = 30.0
    max_attempts: int = 50  # then the message stays in the outbox marked failed
    retry_seconds: float = 5.0  # first retry after this; doubles up to 15 minutes


@dataclass(slots=True)
class Config:
    address: str = "judge@localhost"
    database: str = "judge.db"
    name: str = "Diplomacy judge"  # display name in From
    max_message_bytes: int = 1_000_000  # larger inbound mail is refused with a reply
    default_movement: str = "48h"
    default_retreat: str = "24h"
    default_adjustment: str = "24h"
    # early processing waits this long after the last orders (a game may SET SETTLE)
    default_settle: str = "5m"
    # an HTTPS endpoint of the deployment that handles RFC 8058 one-click unsubscribes
    unsubscribe_url: str = ""
    # the reply policy (docs/operating.md, "Security"): a reply quotes at most this many
    # lines of the mail it answers, is cut at this size, and one address gets at most this
    # many replies an hour (then one notice, then silence until the hour has passed)
    reply_quote_lines: int = 20
    reply_max_bytes: int = 200_000
    replies_per_hour: int = 30
    intake: IntakeConfig = field(default_factory=IntakeConfig)
    outbound: OutboundConfig = field(default_factory=OutboundConfig)
    base_dir: Path = field(default_factory=Path.cwd)

    @property
    def database_path(self) -> Path:
        p = Path(self.database).expanduser()
        return p if p.is_absolute() else self.base_dir / p

    @property
    def maildir_path(self) -> Path:
        p = Path(self.outbound.maildir).expanduser()
        return p if p.is_absolute() else self.database_path.parent / p

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"


def _apply(target: Any, section: dict[str, Any], where: str) -> None:
    for key, value in section.items():
        if not hasattr(target, key) or key.startswith("_") or isinstance(
                getattr(target, key), IntakeConfig | OutboundConfig | Path):
            raise ConfigError(f"[{where}] {key}: unknown key")
        current = getattr(target, key)
        if isinstance(current, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"[{where}] {key}: expected true or false, got {value!r}")
        elif isinstance(current, int | float):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"[{where}] {key}: expected a number, got {value!r}")
            value = type(current)(value)
        elif isinstance(current, str) and not isinstance(value, str):
            raise ConfigError(f"[{where}] {key}: expected a string, got {value!r}")
        setattr(target, key, value)


def load_config(path: str | Path | None) -> Config:
    """The embedded default (``path`` None) or the config file at ``path``."""
    if path is None:
        return Config()
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {p}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: {exc}") from exc
    cfg = Config(base_dir=p.resolve().parent)
    for section, value in data.items():
        if not isinstance(value, dict):
            raise ConfigError(f"{section}: expected a [section]")
        if section == "judge":
            _apply(cfg, value, "judge")
        elif section == "intake":
            _apply(cfg.intake, value, "intake")
        elif section == "outbound":
            _apply(cfg.outbound, value, "outbound")
        # other sections belong to a deployment (DESIGN.md: "a deployment may add more")
    if cfg.intake.mode not in ("smtp", "imap", "none"):
        raise ConfigError(f"[intake] mode: expected \"imap\" or \"smtp\", got {cfg.intake.mode!r}")
    if cfg.outbound.mode not in ("smtp", "maildir"):
        raise ConfigError(
            f"[outbound] mode: expected \"smtp\" or \"maildir\", got {cfg.outbound.mode!r}")
    if cfg.intake.mode == "smtp":
        try:
            cfg.intake.listen_port  # noqa: B018
        except ValueError as exc:
            raise ConfigError(f"[intake] listen: expected HOST:PORT, got {cfg.intake.listen!r}"
                              ) from exc
    if "@" not in cfg.address:
        raise ConfigError(f"[judge] address: not an email address: {cfg.address!r}")
    return cfg
