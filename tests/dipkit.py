"""Helpers for Dipnomicy games played by email: a judge with a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from mailkit import Got, InProcessJudge

from judge.storage import parse_iso

GM = "sg@players.test"


class FakeClock:
    """The judge's clock, moved by the test (nothing ever sleeps)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> datetime:
        self.now += timedelta(**kw)
        return self.now

    def to(self, when: datetime) -> datetime:
        self.now = when
        return when


class DipGame:
    """A Dipnomicy game through the judge's real reading, acting, storage and sender."""

    def __init__(self, tmp_path: Path, name: str = "dip", players: int = 7,
                 address: str = "judge@localhost") -> None:
        self.clock = FakeClock()
        self.judge = InProcessJudge(tmp_path, address)
        self.judge.actor.clock = self.clock
        self.name = name
        self.addresses = [f"player{k}@players.test" for k in range(1, players + 1)]
        self.countries: dict[str, str] = {}  # country -> address
        self.mail: list[Got] = []

    # --------------------------------------------------------------- mail
    def send(self, frm: str, body: str, subject: str = "mail") -> list[Got]:
        got = self.judge.send(frm, body, subject)
        self.mail += got
        return got

    def reply(self, frm: str, body: str, subject: str = "mail") -> Got:
        """Send; the judge's reply to the sender."""
        got = self.send(frm, body, subject)
        mine = [m for m in got if m.rcpt == frm and "Re: " in m.subject]
        assert len(mine) == 1, got
        return mine[0]

    def tick(self) -> list[Got]:
        """Let the judge act on whatever is due at the clock's time."""
        got = self.judge.run()
        self.mail += got
        return got

    def sg(self, body: str) -> Got:
        return self.reply(GM, f"MASTER {self.name} sgpass\n{body}", "sg")

    def player(self, country: str, body: str, subject: str = "mail") -> Got:
        c = country.upper()
        address = self.countries[c]
        password = f"seat-{self.addresses.index(address)}"
        return self.reply(address, f"SIGNON {c} {self.name} {password}\n{body}", subject)

    # --------------------------------------------------------------- the game
    def start(self) -> list[Got]:
        if self.judge.store.game(self.name) is None:
            self.reply(GM, f"CREATE {self.name} sgpass VARIANT dipnomicy", "new")
        # a settling delay of an hour, as a real game has one (the tests' judge has none):
        # a phase or a vote everyone is done with is then processed when the test moves the
        # clock (to the deadline, usually), not at the last mail
        self.reply(GM, f"MASTER {self.name} sgpass\nSET SETTLE 1h\nOPEN", "open")
        for k, a in enumerate(self.addresses):
            r = self.reply(a, f"JOIN {self.name} seat-{k}", "join")
            assert "Your country is drawn at random" in r.flat, r.body
        got = self.send(GM, f"MASTER {self.name} sgpass\nSTART", "start")
        store = self.judge.store
        gid = store.game(self.name)["id"]
        for row in store.players(gid):
            self.countries[row["power"]] = row["address"]
        return got

    def state(self) -> dict:
        s = self.judge.store
        return s.one("SELECT * FROM dipnomicy_games WHERE game_id = ?",
                     (s.game(self.name)["id"],))

    def game(self) -> dict:
        return self.judge.store.game(self.name)

    def deadline(self) -> datetime:
        return parse_iso(self.game()["deadline"])

    def vote_deadline(self) -> datetime:
        return parse_iso(self.state()["vote_deadline"])

    def to_deadline(self) -> list[Got]:
        """The moves deadline passes: the move report goes out."""
        self.clock.to(self.deadline() + timedelta(seconds=1))
        return self.tick()

    def to_vote_deadline(self) -> list[Got]:
        self.clock.to(self.vote_deadline() + timedelta(seconds=1))
        return self.tick()

    def published(self, got: list[Got], what: str) -> dict[str, Got]:
        """What each recipient received whose subject holds ``what``."""
        return {m.rcpt: m for m in got if what in m.subject}

    def to_all(self, got: list[Got], what: str) -> Got:
        """The mail every player and the SG got (one text): checks all got it."""
        found = self.published(got, what)
        assert set(found) == {*self.countries.values(), GM}, (what, got)
        bodies = {m.body for m in found.values()}
        assert len(bodies) == 1
        return found[GM]


def proposal(title: str, module: str = "", text: str = "", lead: str = "Enact the following "
             "mutable rule:") -> str:
    """A PROPOSE block as a player writes it."""
    return "\n".join(["PROPOSE " + title, lead, *([f"MODULE {module}"] if module else []),
                      text or f"The rule called {title}.", "END"])


def labels(report: Got) -> dict[str, str]:
    """{title: "P1"} from a move report (the order is drawn from the seed)."""
    import re

    return {m.group(2): m.group(1) for m in re.finditer(r"^(P\d+): (.+)$", report.body, re.M)}

# proposals the mail tests put to the vote: the seed's deadline rule (P5) and a plain one
P5_TITLE = "Speed up the game (and clarify the deadline)"
P5 = proposal(P5_TITLE, "deadline days=3",
              "The deadline for move submissions for a given turn is three days after\n"
              "the last move report.  Late submissions are not counted.",
              lead="Enact a mutable rule:")
SUPPORT = proposal("Support actions", "support")


def clock_text(when) -> str:
    """A deadline as the replies write it, without the time left: "Tue 24 Nov 2026 12:00 UTC"."""
    from judge.text import time_text

    return time_text(when)


def open_vote(g: DipGame) -> str:
    """Turn 1 with France's proposal; the move report opens the vote. Returns P1's label."""
    g.start()
    g.player("FRANCE", SUPPORT)
    report = g.to_all(g.to_deadline(), "move report, turn 1")
    assert g.state()["voting"] == 1
    return labels(report)["Support actions"]


def play_turn_with_votes(g: DipGame, proposals: dict[str, str], moves: dict[str, str] | None,
                         votes: dict[str, str]) -> tuple[Got, Got]:
    """One whole turn: moves and proposals, the move report, everyone votes (``votes``:
    {title: FOR|AGAINST|ABSTAIN}), the vote closes. (move report, vote report)."""
    for country in sorted(set(proposals) | set(moves or {})):
        r = g.player(country, "\n".join(filter(None, [(moves or {}).get(country, ""),
                                                      proposals.get(country, "")])), "turn")
        assert not r.subject.startswith("[ERROR]"), r.body
    report = g.to_all(g.to_deadline(), "move report")
    label = labels(report)
    for country in g.countries:
        lines = [f"VOTE {label[t]} {choice}" for t, choice in votes.items()]
        r = g.player(country, "\n".join(lines), "votes")
        assert not r.subject.startswith("[ERROR]"), r.body
    result = g.to_all(g.to_vote_deadline(), "votes on")
    return report, result
