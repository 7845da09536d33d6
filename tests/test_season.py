"""A small season (issue 25): one game of every variant, two years, played to its end by
simulated players and master through the real judge on a virtual clock; every invariant of
tests/invariants.py and tests/hiddenwatch.py holds (the nightly size is in the README:
bench/season.py). Every defect the season found has its own regression test; none is excused
here."""

from __future__ import annotations

from seasonkit import KINDS, Season


def test_a_small_season_keeps_every_invariant(tmp_path):
    out = Season(tmp_path / "season", games_per_variant=1, years=2, seed=1).run()
    assert out["games"] == len(KINDS)
    assert out["finished"] == out["games"]
    assert out["internal_errors"] == 0
    assert out["mails_in"] > 100 and out["mails_out"] > out["mails_in"]
    assert out["hidden_checked"]["reports"] > 50
    problems = "\n".join(f"{v['game']} ({v['variant']}) {v['phase']}: {v['what'][:600]}"
                         for v in out["violations"])
    assert not problems, problems


def test_the_same_seed_plays_the_same_season(tmp_path):
    """Same seed, same run (issue 25): a season played twice from one seed sends the same
    mails and ends the same. What the judge draws by chance (a Dipnomicy game's countries and
    the order its proposals are presented in, a Gunboat game's pseudonyms) comes from the
    source the season seeds; a game's next mail waits until the judge has done what the
    previous one set off (a phase processed early, a vote's reminder), so what the players
    read and do does not depend on how fast the judge's threads ran."""
    kinds = ["dipnomicy", "gunboat"]
    seasons = [Season(tmp_path / f"run{k}", games_per_variant=1, years=1, seed=77, kinds=kinds)
               for k in (1, 2)]
    first, second = (s.run() for s in seasons)
    figures = ("games", "finished", "phases", "mails_in", "mails_out", "violations",
               "internal_errors", "rounds", "virtual_days", "outcomes")
    assert {k: second[k] for k in figures} == {k: first[k] for k in figures}
    assert first["games"] == 2 and first["mails_in"] > 50
    ends = [s.outcomes() for s in seasons]
    assert ends[1] == ends[0]
    # what the judge drew is in them: who plays which country, the pseudonyms
    assert ends[0]["dipnomicy0"]["players"] and ends[0]["gunboat0"]["settings"]["pseudonyms"]
