"""The judge's configuration: the embedded default and ``judge.toml`` (DESIGN.md, contract).

``judge serve`` without a config runs the embedded default in the current directory: database
``judge.db``, the built-in SMTP receiver on ``127.0.0.1:2525`` for ``judge@localhost``, and
outgoing mail written to the Maildir ``outgoing/``. A config file sets the keys of
``deploy/judge.toml.example``; the keys of DESIGN.md are fixed, the others are this judge's own.

The file is checked whole when it is loaded (msgspec does the types; :func:`_check` the rest):
an unknown section or key, a value of the wrong type, a port out of range, an unknown mode, a
duration the judge cannot read or a secret still set to the example's ``...`` is refused with
the file, line, section and key. A section is a class below and one field of :class:`Config`.

Relative paths: ``database`` is relative to the config file's folder (the current directory
without a config); ``outbound.maildir`` is relative to the database's folder ("beside the
database").
"""

from __future__ import annotations

import difflib
import re
import tomllib
import typing
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, field

from judge.durations import EXAMPLES, LONGEST, TOO_LONG, parse_duration


class ConfigError(ValueError):
    """A config file that cannot be used; the message says where and why."""


# Field types with what the load checks beyond the type (see _check).
Port = Annotated[int, Meta(ge=1, le=65535)]
Seconds = Annotated[float, Meta(gt=0)]
Duration = Annotated[str, Meta(extra={"duration": "positive"})]  # 48h, 2 days, ...
Delay = Annotated[str, Meta(extra={"duration": "zero allowed"})]  # 0s allowed
Secret = Annotated[str, Meta(extra={"secret": True})]  # "..." (the example's) refused
LogLevel = Literal["debug", "info", "warning", "error"]


class Section(msgspec.Struct, forbid_unknown_fields=True):
    """A ``[section]`` of judge.toml: unknown keys are refused."""


class IntakeConfig(Section):
    mode: Literal["smtp", "imap", "none"] = "smtp"
    # imap
    host: str = "localhost"
    port: Port = 993
    ssl: bool = True
    starttls: bool = False
    user: str = ""
    password: Secret = ""
    folder: str = "INBOX"
    processed_folder: str = "Processed"  # where handled mail is moved ("" keeps it in place)
    poll_seconds: Seconds = 30.0  # polling interval when the server has no IDLE
    idle: bool = True  # use IDLE where the server offers it (false: always poll)
    idle_seconds: Seconds = 300.0  # re-issue IDLE this often
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


class OutboundConfig(Section):
    mode: Literal["maildir", "smtp"] = "maildir"
    host: str = "localhost"
    port: Port = 587
    ssl: bool = False
    starttls: bool = True
    user: str = ""
    password: Secret = ""
    maildir: str = "outgoing"
    ca_file: str = ""
    timeout: Seconds = 30.0
    retry_seconds: Seconds = 5.0  # first retry after this; doubles up to 15 minutes
    # temporary failures (no connection, 4xx) are retried this long, then the message stays
    # in the outbox marked failed (permanent ones, 5xx, at once)
    give_up_hours: Annotated[float, Meta(gt=0)] = 48.0
    max_attempts: Annotated[int, Meta(ge=0)] = 0  # give up after this many as well (0: no limit)


AtLeastOne = Annotated[int, Meta(ge=1)]
# the smallest reply_max_bytes: a reply's headers (a Subject, a To, an In-Reply-To, the
# judge's mark) take up to about 3 KB whatever the sender wrote
REPLY_MIN_BYTES = 4000


class LimitsConfig(Section):
    """What one sender may ask of the judge (docs/operating.md, "Security")."""

    commands_per_mail: AtLeastOne = 1000  # command and order lines acted on; the rest not read
    games_per_day: AtLeastOne = 3  # games one address may CREATE in 24 hours
    press_bytes: AtLeastOne = 20_000  # the text of one PRESS/BROADCAST (or other block command)
    passwords_per_mail: AtLeastOne = 20  # commands carrying a password (each costs a hash)
    # seat and list confirmation requests (REPLACE, SET LIST) one sender's mails may make
    # the judge send in 24 hours; a mail makes at most one whatever this says
    confirm_requests_per_day: AtLeastOne = 10
    # a master's commands that change a game (PROCESS, ROLLBACK, PAUSE, RESUME, EDIT, EJECT,
    # REPLACE, ENDGAME) done per mail: each may mail every player
    master_actions_per_mail: AtLeastOne = 10
    password_attempts: AtLeastOne = 5  # wrong passwords for one power (or one game's master) ...
    password_window_seconds: AtLeastOne = 3600  # ... within this time lock it ...
    password_lock_seconds: AtLeastOne = 1800  # ... for this long
    # a reply (or digest) to an address that has never confirmed it reads the judge's mail
    # is cut at this size as sent (reply_max_bytes when that is smaller): forged mail in a
    # victim's name made replies of up to reply_max_bytes, replies_per_hour of them an hour
    unconfirmed_reply_bytes: Annotated[int, Meta(ge=REPLY_MIN_BYTES)] = 20_000


class LogConfig(Section):
    level: LogLevel = "info"  # `judge serve --log-level` overrides it
    format: Literal["text", "json"] = "text"  # json: one JSON object a line, for log shippers


class ArchiveConfig(Section):
    """The web archive of the games' public mail (judge/archive/, docs/operating.md)."""

    folder: str = ""  # where the judge writes it ("": no archive); relative to the database
    base_url: str = ""  # where the folder is served, for the links in mail ("": no links)
    listen: str = ""  # HOST:PORT on loopback where `judge serve` serves the folder ("": not)

    @property
    def on(self) -> bool:
        return bool(self.folder.strip())


class Config(Section):
    """``[judge]`` keys, then one field per other section."""

    address: str = "judge@localhost"
    database: str = "judge.db"
    name: str = "Diplomacy judge"  # display name in From
    max_message_bytes: Annotated[int, Meta(ge=1)] = 1_000_000  # larger inbound mail: refused
    default_movement: Duration = "48h"
    default_retreat: Duration = "24h"
    default_adjustment: Duration = "24h"
    # early processing waits this long after the last orders (a game may SET SETTLE)
    default_settle: Delay = "5m"
    # an HTTPS endpoint of the deployment that handles RFC 8058 one-click unsubscribes
    unsubscribe_url: str = ""
    # the reply policy (docs/operating.md, "Security"): a reply quotes at most this many
    # lines of the mail it answers, is cut at this size, and one address gets at most this
    # many replies an hour (then one notice, then silence until the hour has passed)
    reply_quote_lines: AtLeastOne = 20
    # the bytes sent, not the text: quoted-printable and base64 counted (judge/mail/compose.py)
    reply_max_bytes: Annotated[int, Meta(ge=REPLY_MIN_BYTES)] = 200_000
    replies_per_hour: AtLeastOne = 30
    # the ceiling on everything sent to one address (replies, reports, notices, press) in any
    # hour of the judge's clock; past it, mail is held and folded into one digest, sent
    # digest_minutes after the first one held (so at most mail_per_hour + 60/digest_minutes
    # mails an hour; docs/operating.md)
    mail_per_hour: AtLeastOne = 60
    digest_minutes: AtLeastOne = 10
    # reply addresses that sign a player on without a password (docs/operating.md, "Reply
    # addresses"): "address" puts judge+<game>.<power>.<token>@host in Reply-To (the host must
    # deliver sub-addressed mail to the judge), "subject" puts [<game>.<power>.<token>] in the
    # Subject instead (a host that cannot sub-address), "off" sends neither and reads neither
    reply_tokens: Literal["address", "subject", "off"] = "address"
    reply_delimiter: Literal["+", "-"] = "+"  # between the judge's local part and the token
    # the key the tokens are signed with; empty: one is generated once and kept in the
    # database (then a copy of the database is enough to make tokens: see docs/operating.md)
    reply_token_key: Secret = ""
    intake: IntakeConfig = field(default_factory=IntakeConfig)
    outbound: OutboundConfig = field(default_factory=OutboundConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    log: LogConfig = field(default_factory=LogConfig)
    archive: ArchiveConfig = field(default_factory=ArchiveConfig)
    base_dir: Path = field(default_factory=Path.cwd)  # not a key: the config file's folder
    # not a key: what the host should know about the file read (``judge serve`` logs them,
    # ``judge check`` prints them)
    warnings: list[str] = field(default_factory=list)

    @property
    def database_path(self) -> Path:
        p = Path(self.database).expanduser()
        return p if p.is_absolute() else self.base_dir / p

    @property
    def maildir_path(self) -> Path:
        p = Path(self.outbound.maildir).expanduser()
        return p if p.is_absolute() else self.database_path.parent / p

    @property
    def archive_path(self) -> Path:
        p = Path(self.archive.folder).expanduser()
        return p if p.is_absolute() else self.database_path.parent / p

    @property
    def archive_url(self) -> str:
        """The archive's address for links in mail ("" when it has none or is off)."""
        return self.archive.base_url.rstrip("/") if self.archive.on else ""

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"


NOT_KEYS = ("base_dir", "warnings")


@cache
def sections() -> dict[str, type[Section]]:
    """``{"intake": IntakeConfig, ...}``: every field of Config that is a section."""
    return {f.name: f.type for f in msgspec.structs.fields(Config)
            if isinstance(f.type, type) and issubclass(f.type, Section)}


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _extra(cls: type, name: str) -> dict[str, Any]:
    hint = _hints(cls).get(name)
    out: dict[str, Any] = {}
    for meta in getattr(hint, "__metadata__", ()):
        if isinstance(meta, Meta) and meta.extra:
            out.update(meta.extra)
    return out


def _where(section: str, key: str) -> str:
    return f"[{section}] {key}"


def _check(cfg: Config) -> None:
    """What the types alone do not say; raises ConfigError naming the section and key."""
    parts: list[tuple[str, Section]] = [("judge", cfg)]
    parts += [(name, getattr(cfg, name)) for name in sections()]
    for name, part in parts:
        for key in part.__struct_fields__:
            extra = _extra(type(part), key)
            value = getattr(part, key)
            if "duration" in extra:
                seconds = parse_duration(value)
                if seconds is None:
                    raise ConfigError(f"{_where(name, key)}: {value!r} is not a duration "
                                      f"({EXAMPLES})")
                if seconds == 0 and extra["duration"] == "positive":
                    raise ConfigError(f"{_where(name, key)}: must be longer than zero")
                if seconds > LONGEST:
                    raise ConfigError(f"{_where(name, key)}: {value!r} is too long: {TOO_LONG}")
            if extra.get("secret") and value.strip() and set(value.strip()) <= {".", "…"}:
                raise ConfigError(f"{_where(name, key)}: still the example's placeholder "
                                  f"{value!r}: write the real secret (or remove the line)")
    listen = cfg.intake.listen
    host, colon, port = listen.rpartition(":")
    if not colon or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError(f"[intake] listen: expected HOST:PORT with a port from 1 to 65535, "
                          f"got {listen!r}")
    _check_archive(cfg.archive)
    if cfg.archive.on:
        check_archive_folder(cfg, cfg.archive_path, "[archive] folder")
    if "@" not in cfg.address:
        raise ConfigError(f"[judge] address: not an email address: {cfg.address!r}")


def check_archive_folder(cfg: Config, folder: Path, what_folder: str) -> None:
    """Everything in the archive's folder is served to the world (by `judge serve` or the
    host's web server): never the one holding the database or the outbound Maildir."""
    folder = folder.resolve()
    private = [(cfg.database_path.name, cfg.database_path)]
    if cfg.outbound.mode == "maildir":
        private.append(("outbound maildir", cfg.maildir_path))
    for what, path in private:
        if path.resolve().is_relative_to(folder):
            raise ConfigError(f"{what_folder}: {what} would be on the web ({path} is "
                              f"inside {folder}): give the archive a folder of its own, "
                              f"e.g. \"archive\"")


def _check_archive(archive: ArchiveConfig) -> None:
    url = archive.base_url.strip()
    if url and not re.match(r"https?://[^\s/]+(/\S*)?$", url):
        raise ConfigError(f"[archive] base_url: expected an http:// or https:// address, got "
                          f"{url!r}")
    if archive.listen:
        host, colon, port = archive.listen.rpartition(":")
        if not colon or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ConfigError(f"[archive] listen: expected HOST:PORT with a port from 1 to "
                              f"65535, got {archive.listen!r}")
        if host.strip("[]") not in ("127.0.0.1", "::1", "localhost"):
            raise ConfigError(f"[archive] listen: the judge serves the archive on loopback "
                              f"only (127.0.0.1, ::1 or localhost); put a web server in front "
                              f"for anything else, got {archive.listen!r}")
        if not archive.on:
            raise ConfigError("[archive] listen: set [archive] folder too (there is nothing "
                              "to serve without it)")


_TYPE_WORDS = {"int": "a whole number", "float": "a number", "bool": "true or false",
               "str": "a string", "object": "a [section]", "array": "a list"}


def _msgspec_message(exc: msgspec.ValidationError, raw: dict[str, Any]) -> str:
    """msgspec's ``Expected `int` <= 65535 - at `$.intake.port``` as ``[intake] port: ...``."""
    text, _, at = str(exc).partition(" - at `")
    path = at.rstrip("`").split(".")[1:] if at else []
    unknown = re.match(r"Object contains unknown field `(.+)`", text)
    if unknown:
        path = [*path, unknown.group(1)]
        text = "unknown key" + _nearest_key(path)
    else:
        text = re.sub(r"`(\w+)`", lambda m: _TYPE_WORDS.get(m.group(1), m.group(1)), text)
        text = re.sub(r"(\d)\.0\b", r"\1", text[0].lower() + text[1:])  # > 0, not > 0.0
        if text.startswith("invalid enum value"):
            cls = sections().get(path[0]) if len(path) > 1 else Config
            options = typing.get_args(_hints(cls).get(path[-1])) if cls else ()
            text = f"expected one of {', '.join(map(repr, options))}"
        value: Any = raw
        for p in path:
            value = value.get(p) if isinstance(value, dict) else None
        if value is not None and not isinstance(value, dict):
            text = text.partition(", got ")[0] + f", got {value!r}"
    if len(path) == 1:
        return f"{_where('judge', path[0])}: {text}"
    if len(path) >= 2:
        return f"{_where(path[0], path[1])}: {text}"
    return text


def _nearest_key(path: list[str]) -> str:
    """`` (did you mean address?)`` for a mistyped key at ``path`` (section, key), or ''."""
    cls: type = sections()[path[0]] if len(path) > 1 and path[0] in sections() else Config
    keys = [k for k in cls.__struct_fields__ if k not in sections() and k not in NOT_KEYS]
    near = difflib.get_close_matches(path[-1], keys, n=1, cutoff=0.75)
    return f" (did you mean {near[0]}?)" if near else ""


def _line_of(text: str, message: str) -> int | None:
    """The line of ``[section] key`` (or ``[section]``) the message is about, if it is found."""
    m = re.match(r"\[(\w+)\](?: (\w+))?", message)
    if not m:
        return None
    section, key, current = m.group(1), m.group(2), "judge"
    for number, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        head = re.match(r"\[\s*([^\]]+?)\s*\]", s)
        if head:
            current = head.group(1)
            if key is None and current == section:
                return number
        elif key and current == section and re.match(rf"{re.escape(key)}\s*=", s):
            return number
    return None


def load_config(path: str | Path | None) -> Config:
    """The embedded default (``path`` None) or the config file at ``path``, checked whole."""
    if path is None:
        return Config()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"cannot read {p}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        # the mistake of a host new to TOML: a text without its quotes
        quotes = (': a text is written in quotes, as in address = "judge@example.org"'
                  if str(exc).startswith("Invalid value") else "")
        raise ConfigError(f"{p}: {exc}{quotes}") from exc
    try:
        cfg = _load(data, p.resolve().parent)
    except ConfigError as exc:
        line = _line_of(text, str(exc))
        raise ConfigError(f"{p}{f' line {line}' if line else ''}: {exc}") from None
    if not data:  # a host who meant to configure the judge and wrote nothing, or the wrong file
        cfg.warnings.append(f"{p} is empty: the judge runs on its built-in defaults "
                            f"({cfg.address}, database {cfg.database}, intake "
                            f"{cfg.intake.mode}, outbound {cfg.outbound.mode})")
    return cfg


def _load(data: dict[str, Any], base_dir: Path) -> Config:
    known = ["judge", *sections()]
    for name, value in data.items():
        if not isinstance(value, dict):
            raise ConfigError(f"{name}: a key outside any section: put it under [judge] (or "
                              f"the section it belongs to)")
        if name not in known:
            raise ConfigError(f"[{name}]: unknown section (this judge reads "
                              f"{', '.join(f'[{k}]' for k in known)})")
    judge = dict(data.get("judge", {}))
    log = data.get("log", {})
    if isinstance(log.get("level"), str):  # INFO or info
        log["level"] = log["level"].lower()
    for key in judge:
        if key in sections() or key in NOT_KEYS:
            raise ConfigError(f"{_where('judge', key)}: unknown key")
    raw = {**judge, **{name: data[name] for name in sections() if name in data}}
    try:
        cfg = msgspec.convert(raw, Config)
    except msgspec.ValidationError as exc:
        raise ConfigError(_msgspec_message(exc, raw)) from None
    cfg.base_dir = base_dir
    _check(cfg)
    return cfg
