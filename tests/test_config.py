"""judge.toml is checked whole at load (issue 18, item 4): every mistake a host makes is refused
with the file, line, section and key, before the judge starts; `judge serve` says it and stops."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.config import ConfigError, load_config
from judge.durations import parse_duration

REPO = Path(__file__).resolve().parents[1]
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent)) or "judge"


def refused(tmp_path: Path, text: str) -> str:
    p = tmp_path / "judge.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(p)
    return str(info.value)


@pytest.mark.parametrize("text, line, message", [
    ('[judge]\naddress = "j@x.org"\n\n[outbund]\nmode = "smtp"\n', 4,
     "[outbund]: unknown section"),
    ('[intake]\nmode = "smtp"\nlistne = "127.0.0.1:25"\n', 3, "[intake] listne: unknown key"),
    ('[judge]\ndefault_settle = "five minutes"\n', 2,
     "[judge] default_settle: 'five minutes' is not a duration"),
    ('[judge]\ndefault_movement = "0h"\n', 2, "[judge] default_movement: must be longer than zero"),
    ('[intake]\nmode = "imap"\nport = 99999\n', 3,
     "[intake] port: expected a whole number <= 65535, got 99999"),
    ('[outbound]\nport = 0\n', 2, "[outbound] port: expected a whole number >= 1, got 0"),
    ('[intake]\nlisten = "0.0.0.0:99999"\n', 2, "[intake] listen: expected HOST:PORT"),
    ('[intake]\nmode = "pop3"\n', 2, "[intake] mode: expected one of 'smtp', 'imap', 'none'"),
    ('[outbound]\nmode = "sendmail"\n', 2, "[outbound] mode: expected one of 'maildir', 'smtp'"),
    ('[intake]\nmode = "imap"\nuser = "judge"\npassword = "..."\n', 4,
     "[intake] password: still the example's placeholder '...'"),
    ('[outbound]\nmode = "smtp"\npassword = "..."\n', 3, "[outbound] password: still the example"),
    ('[intake]\npoll_seconds = -5\n', 2, "[intake] poll_seconds: expected a number > 0, got -5"),
    ('[log]\nlevel = "loud"\n', 2, "[log] level: expected one of 'debug', 'info'"),
    ('[log]\nformat = "xml"\n', 2, "[log] format: expected one of 'text', 'json'"),
])
def test_each_config_mistake_is_refused_with_its_place(tmp_path, text, line, message):
    said = refused(tmp_path, text)
    assert said.startswith(f"{tmp_path / 'judge.toml'} line {line}: {message}")


def test_a_key_outside_any_section_is_refused(tmp_path):
    said = refused(tmp_path, 'address = "j@x.org"\n[judge]\n')
    assert "address: a key outside any section" in said


def test_durations_in_words_are_read_at_load(tmp_path):
    p = tmp_path / "judge.toml"
    p.write_text('[judge]\ndefault_movement = "2 days"\ndefault_retreat = "1 day 12 hours"\n'
                 'default_adjustment = "90m"\ndefault_settle = "0s"\n[log]\nlevel = "DEBUG"\n')
    cfg = load_config(p)
    assert [parse_duration(x) for x in (cfg.default_movement, cfg.default_retreat,
                                        cfg.default_adjustment, cfg.default_settle)] \
        == [2 * 86400, 36 * 3600, 90 * 60, 0]
    assert cfg.log.level == "debug"


@pytest.mark.parametrize("text, seconds", [
    ("48h", 48 * 3600), ("2d", 2 * 86400), ("90m", 5400), ("48 hours", 48 * 3600),
    ("2 days", 2 * 86400), ("1 day 12 hours", 36 * 3600), ("1d12h", 36 * 3600),
    ("1 day, 6 hours and 30 minutes", 30 * 3600 + 1800), ("36", 36 * 3600), ("0s", 0),
    ("five minutes", None), ("2d 2d", None), ("48 hours later", None), ("", None),
])
def test_one_duration_parser(text, seconds):
    assert parse_duration(text) == seconds


def test_the_example_config_only_lacks_its_secrets(tmp_path):
    """deploy/judge.toml.example is valid except for its placeholder passwords."""
    example = (REPO / "deploy" / "judge.toml.example").read_text()
    assert "password: still the example's placeholder" in refused(tmp_path, example)
    cfg_text = example.replace('password = "..."', 'password = "real"')
    (tmp_path / "judge.toml").write_text(cfg_text)
    cfg = load_config(tmp_path / "judge.toml")
    assert cfg.intake.mode == "imap" and cfg.outbound.mode == "smtp"


def test_serve_refuses_a_bad_config_before_starting(tmp_path):
    p = tmp_path / "judge.toml"
    p.write_text('[judge]\ndatabase = "j.db"\n[intake]\nport = 99999\n')
    out = subprocess.run([JUDGE, "serve", "--config", str(p)], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert out.returncode == 2
    assert f"judge: {p} line 4: [intake] port: expected a whole number <= 65535" in out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "j.db").exists()


def test_durations_in_words_from_the_config_make_games(tmp_path):
    """`default_movement = "2 days"` (once accepted and later read as zero) creates a game."""
    from mailkit import InProcessJudge

    p = tmp_path / "judge.toml"
    p.write_text(f'[judge]\ndatabase = "{tmp_path / "judge.db"}"\n'
                 'default_movement = "2 days"\ndefault_retreat = "1 day 12 hours"\n'
                 'default_adjustment = "90 minutes"\n')
    cfg = load_config(p)
    judge = InProcessJudge(tmp_path, **{k: getattr(cfg, k) for k in (
        "default_movement", "default_retreat", "default_adjustment")})
    [reply] = judge.send("gm@example.net", "CREATE words s3cret VARIANT standard")
    assert "Phase lengths: movement 2 days, retreat 1 day 12 hours, adjustment 1 hour " \
           "30 minutes" in reply.flat
