"""The deploy files run as written (issue 18, items 3 and 5): the systemd unit passes
`systemd-analyze verify` and gives the judge the folders its example config uses; the
Containerfile installs Cairo, a font and the wheel, runs as a user with the database on a
volume. (`.ci/run` runs the Containerfile's RUN commands themselves in a clean venv.)"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from judge.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
UNIT = (REPO / "deploy" / "judge.service").read_text()
CONTAINERFILE = (REPO / "deploy" / "Containerfile").read_text()
EXAMPLE = tomllib.loads((REPO / "deploy" / "judge.toml.example").read_text())
JUDGE = shutil.which("judge", path=str(Path(sys.executable).parent))


def unit_value(key: str) -> str:
    [value] = re.findall(rf"^{key}=(.*)$", UNIT, re.M)
    return value.strip()


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path):
    # verify checks that ExecStart's program exists: point it at this test's installed judge
    unit = tmp_path / "judge.service"
    unit.write_text(UNIT.replace(shlex.split(unit_value("ExecStart"))[0], JUDGE or "/bin/true"))
    out = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and out.stdout + out.stderr == "", out.stdout + out.stderr


def test_unit_creates_the_folders_the_example_config_uses():
    state = PurePosixPath("/var/lib") / unit_value("StateDirectory")
    config_dir = PurePosixPath("/etc") / unit_value("ConfigurationDirectory")
    args = build_parser().parse_args(shlex.split(unit_value("ExecStart"))[1:])
    assert args.command == "serve" and PurePosixPath(args.config).parent == config_dir
    # the database is in the StateDirectory, writable under ProtectSystem=strict
    assert PurePosixPath(EXAMPLE["judge"]["database"]).parent == state
    assert unit_value("ProtectSystem") == "strict" and unit_value("User") != "root"
    assert "/opt/judge/judge" not in UNIT and "-e /opt" not in UNIT  # no checkout assumed


def stages() -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", CONTAINERFILE)  # continued lines as one
    return re.split(r"^FROM ", joined, flags=re.M)[1:]


def test_container_installs_cairo_a_font_and_the_wheel():
    run = stages()[-1]
    assert re.search(r"apt-get install[^\n]*\blibcairo2\b", run)
    assert re.search(r"apt-get install[^\n]*\bfonts-dejavu-core\b", run)
    [pip] = re.findall(r"pip install[^\n]*", run)
    assert ".whl" in pip and " -e " not in pip
    # the build stage copies what the wheel needs, and nothing the repository lacks
    for src in re.findall(r"^COPY (?!--from)(.+) \S+$", CONTAINERFILE, re.M):
        for name in src.split():
            assert (REPO / name).exists(), name


def test_container_runs_as_a_user_with_the_database_on_a_volume():
    run = stages()[-1]
    [user] = re.findall(r"^USER (\S+)", run, re.M)
    assert user not in ("root", "0")
    [volume] = re.findall(r'^VOLUME \["(.+)"\]', run, re.M)
    assert PurePosixPath(EXAMPLE["judge"]["database"]).parent == PurePosixPath(volume)
    assert re.search(rf"useradd[^\n]*--home-dir {volume}\b[^\n]*\b{user}\b", run)
    cmd = re.findall(r'^CMD \[(.+)\]', run, re.M)[-1]
    argv = [a.strip().strip('"') for a in cmd.split(",")]
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve" and args.config == "/etc/judge/judge.toml"
