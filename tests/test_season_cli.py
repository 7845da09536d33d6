"""bench/season.py's command line as a new host meets it (review of issue 25): an option
it cannot honour is refused with what is wrong, before anything runs, and --keep never
empties a folder that is not a previous season's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SEASON = Path(__file__).resolve().parents[1] / "bench" / "season.py"


def season(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SEASON), *args], capture_output=True,
                          text=True, timeout=300)


def test_a_kind_it_does_not_know_is_refused_with_the_kinds_it_knows():
    """`--only stabnext` (the kind is stab-next) played no game at all and said nothing:
    0 games, no violation, exit status 0, as if the season had passed."""
    run = season("--only", "stab,stabnext")
    assert run.returncode == 2, run.stdout[-500:]
    assert "--only: no kind stabnext" in run.stderr and "stab-next" in run.stderr
    assert run.stdout == ""


def test_sizes_that_play_nothing_are_refused():
    """`--games-per-variant 0` played nothing and passed; `--years 0` "finished" every game
    with no phase played; `--kill -1` was taken as no kill."""
    for option, value in (("--games-per-variant", "0"), ("--years", "0"), ("--kill", "-1"),
                          ("--years", "two")):
        run = season(option, value, "--only", "standard")
        assert run.returncode == 2, (option, value, run.stdout[-500:])
        assert f"argument {option}" in run.stderr, run.stderr
        assert run.stdout == ""


def test_keep_refuses_a_folder_that_is_not_a_previous_runs(tmp_path):
    """`--keep DIR` deleted DIR whatever it held (rmtree) before running: `--keep ~/games`
    or a typo emptied a folder of someone's files."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes")
    run = season("--keep", str(folder), "--only", "standard", "--years", "1")
    assert run.returncode == 2, run.stdout[-500:]
    assert "notes.txt" in run.stderr and "not a previous run's files" in run.stderr
    assert (folder / "notes.txt").read_text() == "my notes"
