"""Type-check the judge with mypy, ``variants/`` included, as it is installed.

setuptools installs the repository's ``variants/`` as ``judge.variants`` (``package-dir`` in
pyproject.toml), a mapping mypy cannot follow: from the repository, ``variants/`` is a
top-level package of its own and ``judge.variants`` does not exist, so every
``from judge.variants.standard.rules import ...`` is unresolved. This stages the installed
layout in a temporary directory (``judge/`` whose entries are symlinks to the repository's,
plus ``judge/variants`` -> ``variants/``) and runs mypy there, with the settings of
``[tool.mypy]`` in pyproject.toml. mypy's messages name the staged paths; they are written
back as the repository's (``variants/stab/flow.py:12: error: ...``).

    .venv/bin/python tools/typecheck.py                  # judge/engine, judge/render, variants/
    .venv/bin/python tools/typecheck.py judge/games      # any paths of the repository
    .venv/bin/python tools/typecheck.py --warn-unused-ignores   # options go to mypy

Exit status: mypy's (0 when clean, 1 on type errors, 2 on a crash or bad arguments).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = ["judge/engine", "judge/render", "variants"]
# the repository's top-level folders and where they are installed (pyproject.toml)
INSTALLED_AS = {"judge": "judge", "variants": "judge/variants"}


def stage(into: Path) -> None:
    """The installed layout of ``judge`` under ``into``, by symlinks into the repository."""
    package = into / "judge"
    package.mkdir()
    for entry in (ROOT / "judge").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "variants").symlink_to(ROOT / "variants")


def staged_path(path: str) -> str:
    """A repository path (``variants/stab``) as it is staged (``judge/variants/stab``)."""
    parts = Path(path).parts
    if not parts or parts[0] not in INSTALLED_AS:
        raise SystemExit(f"typecheck: {path!r} is not under {' or '.join(INSTALLED_AS)}/")
    return str(Path(INSTALLED_AS[parts[0]], *parts[1:]))


def repository_path(line: str) -> str:
    """A mypy message about a staged file, naming the repository's file instead."""
    prefix = INSTALLED_AS["variants"] + "/"
    return "variants/" + line[len(prefix):] if line.startswith(prefix) else line


def run(paths: list[str], options: Sequence[str] = ()) -> tuple[int, str]:
    """mypy's exit status and its report (repository paths) over ``paths``."""
    with tempfile.TemporaryDirectory(prefix="judge-typecheck-") as tmp:
        staged = Path(tmp)
        stage(staged)
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                   *options, *(staged_path(p) for p in paths)]
        # the staged tree is what mypy must find `judge` in, not the editable install
        env = {**os.environ, "MYPYPATH": str(staged)}
        done = subprocess.run(command, cwd=staged, env=env, capture_output=True, text=True)
    report = "".join(repository_path(line) + "\n" for line in
                     (done.stdout + done.stderr).splitlines())
    return done.returncode, report


def main(argv: list[str]) -> int:
    options = [a for a in argv if a.startswith("-")]
    paths = [a for a in argv if not a.startswith("-")]
    status, report = run(paths or DEFAULT_PATHS, options)
    sys.stdout.write(report)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
