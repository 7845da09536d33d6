"""Package data (issue 18, item 1): every template and every variant file is found through
importlib.resources under the judge's own namespace, and nothing but `judge` is importable
at the top level outside the checkout. (The wheel itself is built, installed in a clean venv
and played by mail in `.ci/run`.)

Issue 26: the repository stands alone (nothing of the project reads beside the checkout; the
suite's audit hook is tests/standalone.py), and the wheel is one a host can trust: it builds
without warnings and carries the licence and a package description written for hosts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import jinja2
import pytest

from judge.engine.mapconvert import convert
from judge.resources import template_loader, variant_file

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = sorted(p.relative_to(REPO / "templates").as_posix()
                   for p in (REPO / "templates").rglob("*.j2"))


def test_every_template_is_found_through_the_package():
    env = jinja2.Environment(loader=template_loader())
    assert len(TEMPLATES) > 10
    for name in TEMPLATES:
        source, _, _ = template_loader().get_source(env, name)
        assert source == (REPO / "templates" / name).read_text(encoding="utf-8")
    with pytest.raises(jinja2.TemplateNotFound):
        env.get_template("no-such.txt.j2")


@pytest.mark.parametrize("name", sorted(p.parent.name for p in REPO.glob("variants/*/map.json")))
def test_variant_files_are_found_through_the_package(name):
    assert variant_file(name, "map.json").read_bytes() == \
        (REPO / "variants" / name / "map.json").read_bytes()


def test_only_judge_is_importable_at_the_top_level(tmp_path):
    """Run outside the checkout: `variants` and `templates` are not top-level packages."""
    code = ("import importlib.util as u, judge.variants, judge.templates;"
            "print(u.find_spec('variants'), u.find_spec('templates'),"
            " judge.variants.variant_names())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["None", "None"] and "'standard'" in out.stdout


# ------------------------------------------------------------- the repository stands alone
def tracked_files() -> list[Path]:
    """The project's files: what git tracks (or, in an export without git, the tree)."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, timeout=60)
    if out.returncode == 0 and out.stdout:
        return [REPO / n for n in out.stdout.decode().split("\0") if n]
    skip = {".venv", ".git", "__pycache__", "build"}
    return [p for p in REPO.rglob("*") if p.is_file() and not skip & set(p.parts)]


# (the words are split so that this file does not match itself)
BESIDE = re.compile("|".join([
    r"\.\./" + "shared" + r"/(?!seeds/)",  # ../shared/... (the variants' rule texts are cited)
    r"\.\./" + "shared" + r"\b(?!/)",      # ../shared itself
    r"[\"']" + "shared" + r"[\"']\s*/|/\s*[\"']" + "shared" + r"[\"']",  # Path(...) / "shared"
    "shared" + r"/(mailtest|datc|maps|DESIGN)",  # what issue 26 brought into the repository
]))


def test_no_file_of_the_project_reaches_beside_the_checkout():
    """A plain clone has nothing beside it: no code, script or doc may point at ../shared.
    (Reads at run time are caught by the suite's audit hook, tests/standalone.py.)"""
    found = []
    checks = {REPO / "tests" / "test_packaging.py", REPO / "tests" / "standalone.py"}
    for path in tracked_files():
        if path.suffix in (".png", ".whl") or not path.is_file() or path in checks:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if BESIDE.search(line):
                found.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert found == [], "\n".join(found)


def test_a_test_that_reads_beside_the_checkout_fails():
    import standalone

    for beside in [REPO.parent / "shared" / "datc" / "datc.json",
                   REPO.parent / "shared" / "mailtest" / "start-mail-servers.sh"]:
        with pytest.raises(standalone.OutsideRepository):
            open(beside)  # noqa: SIM115 (the hook refuses before anything is opened)
        with pytest.raises(standalone.OutsideRepository):
            subprocess.run([beside, "/tmp/x"], timeout=10)
        del standalone.VIOLATIONS[-2:]  # caused on purpose: not this test's failure
    # the checkout's own files, the temporary folder and the system are fine
    assert not standalone.outside(str(REPO / "tests" / "mailtest" / "start-mail-servers.sh"))
    assert not standalone.outside("/usr/lib") and not standalone.outside(sys.executable)


def test_the_data_the_tests_need_is_in_the_repository():
    assert (REPO / "tests" / "mailtest" / "start-mail-servers.sh").stat().st_mode & 0o111
    assert (REPO / "tests" / "mailtest" / "stop-mail-servers.sh").stat().st_mode & 0o111
    cases = json.loads((REPO / "tests" / "data" / "datc" / "datc.json").read_text())["cases"]
    assert len(cases) == 165
    # the standard map is the conversion of its source, as Hoplite's and Chess Dip's are
    # (tests/test_hoplite.py, tests/test_chessdip_game.py)
    folder = REPO / "variants" / "standard"
    source, aliases, ours = (json.loads((folder / n).read_text(encoding="utf-8"))
                             for n in ("map-source.json", "aliases.json", "map.json"))
    assert convert(source, aliases) == ours


# ------------------------------------------------------------------ a package a host can trust
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[Path, str]:
    """The wheel as a host builds it (pip, isolated build), and the build's output."""
    out_dir = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # a host's
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                            "--wheel-dir", str(out_dir), str(REPO)], capture_output=True,
                           text=True, timeout=600, env=env)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    [whl] = out_dir.glob("*.whl")
    return whl, build.stdout + build.stderr


def test_the_wheel_builds_without_warnings(wheel):
    _, output = wheel
    warned = [line.strip() for line in output.splitlines()
              if re.search(r"warning|deprecat|would be ignored", line, re.I)
              and "Location 'file:" not in line]  # pip's notes on this machine's indexes
    assert warned == []


def test_the_wheel_carries_the_licence_and_a_description_for_hosts(wheel):
    whl, _ = wheel
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        [meta_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        raw = z.read(meta_name).decode()
        [licence] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert z.read(licence) == (REPO / "LICENSE").read_bytes()
        templates = sorted(n for n in names if n.endswith(".j2"))
    assert len(templates) == len(TEMPLATES)  # the templates' folders too
    meta = HeaderParser().parsestr(raw)
    # the licence file says what the metadata declares
    assert meta["License-Expression"] == PYPROJECT["license"] == "MIT"
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    classifiers = meta.get_all("Classifier")
    assert "Topic :: Games/Entertainment :: Board Games" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    # the description is the hosts' page, not the developers' README
    description = meta.get_payload()
    assert description.strip() == (REPO / "docs" / "PACKAGE.md").read_text().strip()
    for said in ("pip install pbem-diplomacy-judge", "judge serve", "judge check",
                 "docs/operating.md", "deploy/judge.service"):
        assert said in description, said
    assert "pytest" not in description and "../" not in description


def test_every_file_the_build_reads_is_in_the_container_build_stage():
    """deploy/Containerfile's build stage copies what pyproject.toml names (readme, licence)."""
    containerfile = (REPO / "deploy" / "Containerfile").read_text()
    build = containerfile.split("\nFROM ")[1]
    copied = " ".join(re.findall(r"^COPY (?!--from)(.+) \S+$", build, re.M)).split()
    for name in ["pyproject.toml", "setup.py", PYPROJECT["readme"], *PYPROJECT["license-files"]]:
        assert name in copied, name


def test_ci_runs_the_readme_command_with_the_repositorys_own_mail_servers():
    readme = (REPO / "README.md").read_text()
    [command] = [line for line in readme.splitlines() if line.startswith("python3 -m venv")
                 and "pytest" in line]
    ci = (REPO / ".ci" / "run").read_text()
    steps = [s.strip() for s in command.split("&&")]
    at = [ci.find(s) for s in steps]
    assert -1 not in at and at == sorted(at), dict(zip(steps, at, strict=True))
    assert "tests/mailtest/start-mail-servers.sh" in ci and "tests/mailtest/smoke.py" in ci
