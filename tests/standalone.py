"""The repository stands alone (issue 26): while the suite runs, an audit hook fails any test
that opens, lists or runs a file beside the checkout (a sibling folder such as ``../shared``),
where a user's clone has nothing. Installed by ``tests/conftest.py`` for the whole session.

Allowed: the checkout itself (its .venv included), Python's own folders, the temporary folder
and everything that is not beside the checkout (``/usr``, ``/etc``, the home's caches). When
the checkout's parent is the temporary folder or an ancestor of it (a clone in ``/tmp``),
only ``../shared`` is checked: its other siblings are other programs' temporary files."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARENT = REPO.parent


class OutsideRepository(PermissionError):
    """A test or the judge reached for a file beside the checkout."""


# every (event, path) refused so far; a test's teardown fails if it added any
VIOLATIONS: list[tuple[str, str]] = []

_REPO = str(REPO) + os.sep
_PARENT = str(PARENT).rstrip(os.sep) + os.sep
_SHARED = str(PARENT / "shared")
_TMP = Path(tempfile.gettempdir()).resolve()
_SIBLINGS_CHECKED = PARENT != _TMP and PARENT not in _TMP.parents
_PYTHON = tuple({str(Path(p).resolve()) + os.sep
                 for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
_HOME_IS_PARENT = Path.home().resolve() == PARENT


def outside(path: str) -> bool:
    """Whether ``path`` (absolute or relative to the current folder) is beside the checkout."""
    p = os.path.abspath(path)
    if not (p + os.sep).startswith(_PARENT):
        return False  # the cheap test first: most opens are far from the checkout
    p = os.path.realpath(p)
    if (p + os.sep).startswith(_REPO) or (p + os.sep).startswith(_PYTHON):
        return False
    if p == _SHARED or p.startswith(_SHARED + os.sep):
        return True
    if not _SIBLINGS_CHECKED or not (p + os.sep).startswith(_PARENT):
        return False
    # a checkout in the home folder: its dot folders (.cache, .config) are the user's
    return not (_HOME_IS_PARENT and p[len(_PARENT):].startswith("."))


def _paths(event: str, args: tuple) -> list[str]:
    if event in ("open", "os.listdir", "os.scandir"):
        found = [args[0]] if args else []
    elif event == "subprocess.Popen":
        executable, argv, cwd, _env = args
        base = os.fsdecode(cwd) if cwd is not None else os.getcwd()
        argv = [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv or [])
        found = [cwd] if cwd is not None else []
        for a in [executable, *argv]:
            if isinstance(a, (str, bytes, os.PathLike)) and os.sep in os.fsdecode(a):
                found.append(os.path.join(base, os.fsdecode(a)))
    else:
        return []
    return [os.fsdecode(p) for p in found if isinstance(p, (str, bytes, os.PathLike))]


def _hook(event: str, args: tuple) -> None:
    if event not in ("open", "os.listdir", "os.scandir", "subprocess.Popen"):
        return
    for path in _paths(event, args):
        if outside(path):
            VIOLATIONS.append((event, path))
            raise OutsideRepository(
                f"{event} {path}: beside the checkout, where a clone has nothing; "
                "everything the tests and the judge need is in the repository (issue 26)")


_installed = False


def install() -> None:
    """Install the hook once per process (audit hooks cannot be removed)."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
