"""Dipnomicy in the mail loop: the game flow (:class:`judge.games.flow.GameFlow`) of its cycle.

The cycle of a turn (``variants/dipnomicy/description.md``): moves and at most one proposal
per player are due together; at the moves deadline the judge adjudicates and sends the move
report, with the proposals "presented in a random order" (from the game's seed), to every
player and the Secretary General (SG: the game's master), and opens voting; at the vote
deadline voting closes, and the result and the new ruleset are published. As in the seed's
game, the next turn's moves (and its proposal) are taken from the move report on, in the same
mails as the votes: they are read under the rules in force when they arrive, and read again
under the new rules when voting closes (a player whose move or proposal a passed rule made
illegal is told then). A turn is adjudicated only once its vote has closed. A removal (P1) or
Upkeep (P2) phase runs meanwhile.

Deadlines. The vote deadline is the ruleset's ``vote_days`` after the move report. The moves
deadline: under the deadline rule (P5) ``days`` after the last move report was sent, and
moves after it are refused (``check_orders``; not while the game is paused, when no deadline
runs); otherwise the ruleset's ``default_move_days`` after voting closes (or after START, or
after a move report with nothing to vote on). RESUME renews a deadline that passed during the
pause by the same rules (under P5 its days from the resumption). A removal phase (P1) lasts the support rule's
``retreat_days``, an Upkeep phase (P2) the ``upkeep_days`` setting. All of them are the rules'
(the SG changes a setting with SETTING), not the mail loop's DEADLINES. A player's absence
(SET ABSENCE) holds every one of them, the vote's too: a vote's deadline is set past the
absences (at the game's time of day, as a phase's), and one declared later pushes the vote's
(:meth:`DipnomicyFlow.stages`, :meth:`DipnomicyFlow.move_deadline` with ``absence``).
Every time comes from the actor's clock, so tests drive the whole cycle without sleeping.

The deadline engine (``judge/games/deadlines.py``) runs all of it as any game's: the phases'
deadlines come from :meth:`DipnomicyFlow.phase_deadline`, and while a vote is open it is the
stage the engine drives (:meth:`DipnomicyFlow.stage`) before the turn's moves, or before a
removal or Upkeep phase whose deadline is later: reminders to the players who have not voted
on every proposal, early closing once all have, PROCESS closing it, the SG's DEADLINE moving
its deadline (:meth:`DipnomicyFlow.move_deadline`).

State kept per game (the flow's tables, ``storage.py``): ``dipnomicy_games`` (seed, turn, voting, vote deadline,
when the last move report was sent, the proposals as presented, the SG's vetoes and numbers),
``dipnomicy_proposals`` (this turn's, one per country) and ``dipnomicy_votes`` (all, late
ones marked, to be reported). The rules in force travel in the positions, so ROLLBACK (an
earlier turn's stored position) restores them too; it makes the orders sent ahead that the
undone turns used pending again (``judge/games/ahead.py``), the turn's own used again.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from judge.commands.spec import CommandSpec, Handler
from judge.engine.position import Phase, Position
from judge.games import ahead as AH
from judge.games import game as G
from judge.games.auth import hash_password
from judge.games.errors import GameError
from judge.games.flow import FlowContext, GameFlow, Stage
from judge.games.phaseclock import begin_phase, deadline_moved, fit_deadline
from judge.games.reporting import queue_publication
from judge.storage import Store, iso, parse_iso
from judge.text import deadline_text
from judge.variants.dipnomicy import commands, storage
from judge.variants.dipnomicy.proposals import (
    Proposal,
    ProposalError,
    Veto,
    Vote,
    attach_module,
    close_vote,
    parse_proposal,
    presentation_order,
    renumber,
    with_ruleset,
)
from judge.variants.dipnomicy.report import move_report, phase_report, ruleset_text, vote_report
from judge.variants.dipnomicy.rules import (
    RULES,
    assign_countries,
    move_deadline_days,
    phase_days,
    phase_title,
    turn_number,
    turn_phase,
)
from judge.variants.dipnomicy.ruleset import (
    DEFAULT_SETTINGS,
    Ruleset,
    RulesetError,
    initial_ruleset,
    parse_ruleset,
)

if TYPE_CHECKING:
    from judge.commands.spec import Command

MIN_PLAYERS, MAX_PLAYERS = 5, 7
DAY = timedelta(days=1)
_SEAT = "SEAT"  # the players table's power before the countries are drawn: SEAT1, SEAT2...


# --------------------------------------------------------------------------- state
def state(s: Store, game: dict) -> dict:
    row = s.one("SELECT * FROM dipnomicy_games WHERE game_id = ?", (game["id"],))
    if row is None:
        raise GameError(f"game {game['name']} has not started yet")
    return row


def _update(s: Store, gid: int, **fields: Any) -> None:
    cols = ", ".join(f"{k} = ?" for k in fields)
    s.execute(f"UPDATE dipnomicy_games SET {cols} WHERE game_id = ?", (*fields.values(), gid))


def _when(text: str | datetime | None, now: datetime) -> str:
    """A deadline as players read it: the UTC time, and how long is left while any is."""
    if not text:
        return "none set"
    when = parse_iso(text) if isinstance(text, str) else text
    full = deadline_text(when, now)
    return full if when > now else full.split(" (")[0]  # passed: the time alone


def _ruleset_number(pos: Position, module: str) -> str:
    """'rule 29' for the rule that brings ``module`` in (for refusals that cite it)."""
    for rule in RULES.ruleset(pos).rules:
        if rule.module == module:
            return f"rule {rule.number}"
    return "the deadline rule"


def _players(s: Store, game: dict) -> list[str]:
    return sorted(p["power"] for p in s.players(game["id"]))


def _voters(s: Store, game: dict) -> list[str]:
    """The countries that vote: those with a player. One the judge declared abandoned
    (offered for TAKEOVER) has none until it is taken over, so it has no vote (rule 5: the
    players vote): it is neither waited for nor counted, and a vote it needed still closes."""
    return sorted(p["power"] for p in s.players(game["id"]) if p["state"] != "abandoned")


def _publish(actor: FlowContext, game: dict, subject: str, text: str, footer: str = "",
             template: str = "dipnomicy/mail.txt.j2", **extra: Any) -> None:
    """Send one public text (every Dipnomicy report is public) to every player, the SG, the
    game's observers and its mailing list, with the list headers."""
    queue_publication(actor.outbox, actor.s, game, subject, template,
                      {"text": text.rstrip("\n"), "footer": footer,
                       "judge_name": actor.cfg.name, **extra})


def _moves_deadline(game: dict, st: dict, pos: Position, now: datetime) -> datetime:
    """When the moves of the turn at ``pos`` are due (see the module's docstring)."""
    days = move_deadline_days(pos)
    if days is not None and st["report_sent"]:
        return parse_iso(st["report_sent"]) + days * DAY
    start = parse_iso(st["vote_deadline"]) if st["voting"] and st["vote_deadline"] else now
    return start + int(RULES.ruleset(pos).setting("default_move_days")) * DAY


def _phase_deadline(game: dict, st: dict, pos: Position, now: datetime) -> datetime | None:
    """When the phase starting at ``pos`` now is due by the rules (None: they set none)."""
    if pos.phase.kind == "M":
        return _moves_deadline(game, st, pos, now)
    days = phase_days(pos)
    return now + days * DAY if days else None


def _days(n: int) -> str:
    return f"{n} day{'' if n == 1 else 's'}"


def deadlines_text(ruleset: Any) -> str:
    """The deadlines a ruleset sets, in words (CREATE's reply, STATUS)."""
    active = ruleset.active()
    if active.on("deadline"):
        moves = (f"moves {_days(int(active.param('deadline', 'days')))} after the last move "
                 f"report (the deadline rule)")
    else:
        moves = (f"moves {_days(int(ruleset.setting('default_move_days')))} after voting "
                 f"closes, or after the start or a move report with nothing to vote on "
                 f"(default_move_days)")
    removal = (f"a removal phase {_days(int(active.param('support', 'retreat_days')))} (the "
               f"support rule's retreat_days)" if active.on("support") else
               "no removal phase (no support rule)")
    return (f"Deadlines, set by the rules (DEADLINES does not apply): {moves}; votes "
            f"{_days(int(ruleset.setting('vote_days')))} after the move report (vote_days), "
            f"the next turn's moves being taken meanwhile; {removal}; an Upkeep phase "
            f"{_days(int(ruleset.setting('upkeep_days')))} (upkeep_days). The Secretary "
            f"General changes the settings with SETTING.")


def _moves_follow_vote(s: Store, game: dict, pos: Position, now: datetime) -> dict:
    """The vote's deadline moved (the SG's DEADLINE, RESUME) while the next turn's moves
    wait for it: without the deadline rule they are due ``default_move_days`` after it (as
    :func:`_moves_deadline` says; counted again from the close when voting closes), so
    their deadline moves with it; under P5 it stays the rule's. Returns the game."""
    if pos.phase.kind != "M" or move_deadline_days(pos) is not None:
        return game
    due = fit_deadline(s, game, _moves_deadline(game, state(s, game), pos, now))
    s.execute("UPDATE games SET deadline = ? WHERE id = ?", (iso(due), game["id"]))
    deadline_moved(s, game)  # a reminder of the moves is due again by the new deadline
    return G.refresh(s, game)


def _restart_clock(s: Store, game: dict, pos: Position, now: datetime) -> dict:
    """The phase at ``pos`` runs from now to its deadline by the rules (the flow's state
    changed: a move report, the vote closed, a roll back); returns the game."""
    G.begin_phase_of(s, G.refresh(s, game), pos, now)
    return G.refresh(s, game)


def _ahead_back(turn: int, again: dict[str, list[str]], ahead: dict[str, list[str]]) -> str:
    """ROLLBACK's reply on the orders sent ahead that came back (by power, their phases): in
    the generic ROLLBACK's words, and those of the turn played again, its orders again."""
    out = []
    if again:
        out.append(f"The orders sent ahead for turn {turn} are its orders again "
                   f"({AH.listed(again)}).")
    if ahead:
        out.append(f"The orders sent ahead that the phases after it used are pending again "
                   f"({AH.listed(ahead)}).")
    elif not again:
        out.append("Orders sent ahead for later phases stay pending.")
    return "".join(" " + x for x in out)


# ----------------------------------------------------------------------------- flow
class DipnomicyFlow(GameFlow):
    # orders sent ahead (PHASE blocks) only for moves: removals and upkeep follow votes and
    # rules enacted in between, which a block written earlier cannot foresee
    ahead_kinds = "M"
    storage = storage.MIGRATIONS

    def grace(self, s: Store, game: dict) -> int:
        """None under the deadline rule (P5: late moves are not counted), else SET GRACE."""
        if move_deadline_days(G.current_position(s, game)) is not None:
            return 0
        return super().grace(s, game)

    # ------------------------------------------------------------------ notices
    def notice_template(self, kind: str) -> str:
        if kind in ("reminder", "late"):  # its words: turns, moves and proposals
            return f"dipnomicy/{kind}.txt.j2"
        return super().notice_template(kind)

    def notice_words(self, position: Position | None) -> dict:
        if position is None:
            return {}
        turn = turn_number(position.phase)
        # a vote is on the proposals of the last turn adjudicated: the one before a turn's
        # moves, the one a removal or Upkeep phase follows
        return {"turn": turn, "phase_title": phase_title(position.phase),
                "vote_turn": turn - 1 if position.phase.kind == "M" else turn}

    # ------------------------------------------------------------------ commands
    def commands(self) -> list[CommandSpec]:
        """Its commands (words, usages and checks in commands.py), each with its handler."""
        handlers: dict[str, Handler] = {
            "PROPOSE": self.propose, "VOTE": self.vote, "VETO": self.veto,
            "NUMBER": self.number, "COMMENT": self.comment, "ATTACH": self.attach,
            "ROLLBACK": self.rollback, "SETTING": self.setting, "RULES": self.rules,
            "RULESET": self.starting_ruleset}
        return [CommandSpec(name=name, words=words, usage=usage, handler=handlers[name],
                            check=partial(commands.check, name), grammar="dipnomicy",
                            block="END" if name in commands.BLOCKS else "")
                for name, (usage, words) in commands.COMMANDS.items()]

    def master_command(self, actor: FlowContext, ses: Any, game: dict, cmd: Command
                       ) -> tuple[str, str, Any] | None:
        """The judge's ROLLBACK <phase> is this flow's roll back to the turn that phase
        starts (its proposals, votes and deadlines undone with it), and refused for a phase
        that starts no turn. The rest (REPLACE: :meth:`check_new_player`) the judge does
        its way, asking the other hooks."""
        if cmd.name == "ROLLBACK" and game["phase"]:
            target = cmd.args[0].upper()
            try:
                turn = turn_number(Phase.parse(target))
                starts = turn >= 1 and str(turn_phase(turn)) == target
            except ValueError:
                starts = False
            if not starts:
                raise GameError(f"{target} starts no turn of Dipnomicy game {game['name']}: "
                                "write ROLLBACK <turn> (1, 2, ...) to go back to the start "
                                "of a turn")
            return self.rollback(actor, ses, replace(cmd, args=[str(turn)]))
        return None

    def check_new_player(self, s: Store, game: dict, power: str, command: str) -> None:
        """Rule 12: the countries are assigned when the game starts, and the units of a
        country no player was assigned hold. So before START there is no country to give
        (players JOIN without one), and after it a country nobody was assigned never gets
        a player (who would also get a vote); one that was assigned and lost its player
        (EJECT, abandoned) takes a new one by TAKEOVER or REPLACE alike. Rule 12 is mutable
        text: once voted into something else (amended or repealed), the SG decides (REPLACE
        gives such a country a player; TAKEOVER still does not)."""
        name = game["name"]
        if not game["phase"]:
            raise GameError(f"in Dipnomicy the countries are drawn when the game starts, not "
                            f"before (rule 12): {command} has no country to give yet. A "
                            f"player joins with JOIN {name} <password>")
        pos = G.current_position(s, game)
        assigned = pos.extra.get("players")
        if assigned is None or power.upper() in assigned:
            return  # a game stored before the key: every country may have had a player
        start = s.one("SELECT position FROM positions WHERE game_id = ? ORDER BY id LIMIT 1",
                      (game["id"],))
        then = Ruleset.from_position_keys(json.loads(start["position"])).rule(12) \
            if start else None
        now = RULES.ruleset(pos).rule(12)
        if then is not None and (now is None or now.text != then.text):
            # rule 12 is text (no module), which the SG enforces: voted into something else,
            # it no longer says what the judge would enforce, so the SG decides
            if command != "TAKEOVER":
                return
            raise GameError(f"{power.title()} was assigned to no player when game {name} "
                            f"started, and rule 12 has been "
                            f"{'repealed' if now is None else 'amended'} since: the Secretary "
                            f"General decides whether it gets a player (REPLACE), nobody takes "
                            f"it over by themselves")
        rule = "rule 12" if now is not None else "the countries were assigned at the start"
        what = "nobody can take it over" if command == "TAKEOVER" \
            else "it cannot be given a player"
        raise GameError(f"{power.title()} was assigned to no player when game {name} "
                        f"started: its units hold ({rule}), and {what}")

    def vacant_seat(self, game: dict, power: str) -> str:
        """As the judge's, and what the country does meanwhile: its units hold (rule 14:
        no moves are sent for them) and it has no vote (only the players vote, rule 5)."""
        country = power.title()
        return (f"A new player can TAKEOVER {country} {game['name']} <password>, or you can "
                f"REPLACE them; until then {country} sends no moves (its units hold, rule 14) "
                "and has no vote.")

    # ------------------------------------------------------------ joining, starting
    def check_join(self, game: dict) -> None:
        if game["status"] in ("forming", "open"):
            raise GameError(f"in Dipnomicy the countries are assigned at random when the game "
                            f"starts: join with JOIN {game['name']} <password>, and sign on "
                            f"with your country once the game has started")

    def join_hint(self, game: dict) -> str:
        return (f"JOIN {game['name']} <password> (their countries are drawn when the game "
                f"starts; {MIN_PLAYERS} to {MAX_PLAYERS} players)")

    def join(self, actor: FlowContext, game: dict, password: str, address: str) -> str:
        s = actor.s
        if game["status"] != "open":
            why = "is not open for sign-on yet (its master sends OPEN)" \
                if game["status"] == "forming" else f"is {game['status']}: no new players"
            raise GameError(f"game {game['name']} {why}")
        seats = s.players(game["id"])
        if len(seats) >= MAX_PLAYERS:
            raise GameError(f"game {game['name']} already has {MAX_PLAYERS} players")
        if any(p["address"].lower() == address.lower() for p in seats):
            raise GameError(f"{address} has already joined game {game['name']}")
        if len(password) < 4:
            raise GameError("a password must be at least 4 characters long")
        seat = f"{_SEAT}{len(seats) + 1}"
        s.execute("INSERT INTO players (game_id, power, address, password_hash, joined) "
                  "VALUES (?, ?, ?, ?, ?)",
                  (game["id"], seat, address, hash_password(password), iso(actor.clock())))
        return (f"You have joined game {game['name']} (player {len(seats) + 1} of "
                f"{MIN_PLAYERS} to {MAX_PLAYERS}). Your country is drawn at random when the "
                f"game starts; then sign on with SIGNON <country> {game['name']} <password>.")

    def start(self, actor: FlowContext, ses: Any, game: dict, now: datetime) -> dict:
        s = actor.s
        if game["status"] in ("active", "paused", "finished"):
            raise GameError(f"game {game['name']} has already started")
        seats = s.all("SELECT * FROM players WHERE game_id = ? ORDER BY id", (game["id"],))
        if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
            raise GameError(f"game {game['name']} cannot start with {len(seats)} player(s): "
                            f"Dipnomicy needs {MIN_PLAYERS} to {MAX_PLAYERS}")
        # the game's seed: countries, proposals' order
        seed = actor.chance(f"seed:{game['name']}").randrange(2**31)
        countries = assign_countries([p["power"] for p in seats], seed)
        for p in seats:
            s.execute("UPDATE players SET power = ? WHERE id = ?", (countries[p["power"]],
                                                                    p["id"]))
        base = self._base_ruleset(s, game)  # the SG's RULESET, or initial_ruleset.toml
        ruleset = replace(base, settings={**base.settings, **self._chosen_settings(s, game)})
        pos = RULES.initial_position(seed, ruleset, powers=countries.values())
        phase = str(pos.phase)
        s.save_position(game["id"], phase, RULES.write_position(pos))
        s.execute("INSERT INTO dipnomicy_games (game_id, seed) VALUES (?, ?)",
                  (game["id"], seed))
        s.execute("UPDATE games SET status = 'active', phase = ? WHERE id = ?",
                  (phase, game["id"]))
        game = _restart_clock(s, game, pos, now)  # default_move_days from now
        ses.games_touched.add(game["id"])

        # with the start notice (which the mail loop sends): the rules in force
        ses.later.append(lambda g=game: _publish(
            actor, g, "the rules in force at the start",
            ruleset_text(RULES.ruleset(pos), "The rules in force at the start"),
            f"Moves and proposals for turn 1 are due by {_when(g['deadline'], now)}."))
        return game

    # ------------------------------------------------------------------ moves
    def check_orders(self, actor: FlowContext, game: dict, power: str) -> None:
        """Refuse late moves under the deadline rule (P5). Moves are taken while voting is
        open too (read again when it closes); while the game is paused no deadline runs, so
        nothing is refused as late (the mail loop answers that the game is paused)."""
        s, now = actor.s, actor.clock()
        if game["status"] != "active":
            return
        pos = G.current_position(s, game)
        if pos.phase.kind != "M":
            return
        self._check_late(game, state(s, game), pos, now, "moves")

    def _check_late(self, game: dict, st: dict, pos: Position, now: datetime, what: str
                    ) -> None:
        days = move_deadline_days(pos)
        if days is None or not game["deadline"] or game["status"] != "active":
            return
        deadline = parse_iso(game["deadline"])
        if now <= deadline:
            return
        rule = _ruleset_number(pos, "deadline")
        by_rule = bool(st["report_sent"]) and parse_iso(st["report_sent"]) + days * DAY \
            == deadline
        why = (f"{days} days after the last move report ({rule}). Late submissions are not "
               f"counted." if by_rule else f"the deadline set for this turn. Late submissions "
               f"are not counted ({rule}).")
        raise GameError(f"too late: {what} for turn {turn_number(pos.phase)} were due by "
                        f"{_when(deadline, now)}, {why}")

    # ------------------------------------------------------------------ players
    def _player(self, actor: FlowContext, ses: Any, what: str) -> tuple[dict, str]:
        ctx = ses.current
        if ctx is None:
            raise GameError(f"{what} needs a SIGNON before it")
        game = G.refresh(actor.s, ctx.game)
        if game["variant"] != "dipnomicy":
            raise GameError(f"game {game['name']} is not a Dipnomicy game: it has no proposals "
                            "or votes")
        G.check_running(game)
        return game, ctx.power

    def propose(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        s, now = actor.s, actor.clock()
        game, power = self._player(actor, ses, "PROPOSE")
        st = state(s, game)
        pos = G.current_position(s, game)
        if pos.phase.kind != "M":
            raise GameError(f"proposals are due with the moves of a turn; this is the phase "
                            f"{phase_title(pos.phase)} (due by {_when(game['deadline'], now)}), "
                            f"after which the next turn's moves and proposals are taken")
        self._check_late(game, st, pos, now, "proposals")
        turn = turn_number(pos.phase)
        try:
            proposal = parse_proposal(power, [cmd.line, *cmd.block])
            proposal.check(RULES.ruleset(pos))
        except ProposalError as exc:
            raise GameError(f"proposal not taken: {exc}") from None
        old = s.one("SELECT proposal FROM dipnomicy_proposals WHERE game_id = ? AND turn = ? "
                    "AND power = ?", (game["id"], turn, power))
        s.execute("INSERT OR REPLACE INTO dipnomicy_proposals (game_id, turn, power, proposal, "
                  "updated) VALUES (?, ?, ?, ?, ?)",
                  (game["id"], turn, power, json.dumps(proposal.to_json()), iso(now)))
        what = proposal.heading.rstrip(":. ")
        if proposal.module:
            params = " ".join(f"{k}={json.dumps(v)}" for k, v in (proposal.params or {}).items())
            what += f"; rule module {proposal.module}{' ' + params if params else ''}"
        replaced = ""
        if old:
            replaced = (f" It replaces your earlier proposal "
                        f"\"{json.loads(old['proposal'])['title']}\" (one per turn).")
        again = (f" Voting on the proposals of turn {st['turn']} is open until "
                 f"{_when(st['vote_deadline'], now)}: if a proposal passed then makes this one "
                 f"impossible, you are told." if st["voting"] else "")
        return (f"Proposal of {power.title()} for turn {turn} received: \"{proposal.title}\" "
                f"({what}).{replaced} It will be presented with the move report after the "
                f"moves deadline, {_when(game['deadline'], now)}.{again}", "text", None)

    def vote(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        s, now = actor.s, actor.clock()
        game, power = self._player(actor, ses, "VOTE")
        st = state(s, game)
        label = "P" + cmd.args[0].upper().lstrip("P")
        choice = {"YES": "FOR", "NO": "AGAINST"}.get(cmd.args[1].upper(), cmd.args[1].upper())
        if not st["voting"]:
            raise GameError(f"no vote is open in game {game['name']}: votes are taken after a "
                            f"move report, until the vote deadline; this vote is not counted")
        presented = json.loads(st["presented"])
        if not 1 <= int(label[1:]) <= len(presented):
            raise GameError(f"there is no {label}: the move report of turn {st['turn']} "
                            f"presented P1 to P{len(presented)}")
        title = presented[int(label[1:]) - 1]["title"]
        if power not in _voters(s, game):
            raise GameError(f"{power.title()} is abandoned (offered for takeover): it has no "
                            f"vote until a player takes it over (TAKEOVER {power.title()} "
                            f"{game['name']} <password>); this vote is not counted")
        late = now > parse_iso(st["vote_deadline"])
        s.execute("INSERT INTO dipnomicy_votes (game_id, turn, power, label, choice, late, at) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (game["id"], st["turn"], power, label, choice, int(late), iso(now)))
        if late:
            return (f"too late: voting on the proposals of turn {st['turn']} closed at "
                    f"{_when(st['vote_deadline'], now)}; your vote {label} {choice} is not "
                    f"counted (it is reported as late).", "error", None)
        mine = self._votes_of(s, game, st, power, len(presented))
        ses.games_touched.add(game["id"])  # every vote in: the vote may close early
        return (f"Vote of {power.title()} recorded: {label} {choice} (\"{title}\"). Your votes "
                f"on turn {st['turn']}: {mine}. Votes are due by "
                f"{_when(st['vote_deadline'], now)}; moves for turn {st['turn'] + 1} by "
                f"{_when(game['deadline'], now)}.", "text", None)

    @staticmethod
    def _votes_of(s: Store, game: dict, st: dict, power: str, count: int) -> str:
        cast: dict[str, str] = {}
        for row in s.all("SELECT label, choice FROM dipnomicy_votes WHERE game_id = ? AND "
                         "turn = ? AND power = ? AND late = 0 ORDER BY id",
                         (game["id"], st["turn"], power)):
            cast[row["label"]] = row["choice"]
        return ", ".join(f"P{k} {cast.get(f'P{k}', 'not yet')}" for k in range(1, count + 1))

    # ------------------------------------------------------------------- anyone
    def rules(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        s = actor.s
        if cmd.args:
            game = G.find_game(s, cmd.args[0])
        elif ses.current is not None:
            game = G.refresh(s, ses.current.game)
        elif ses.master is not None:
            game = G.refresh(s, ses.master)
        else:
            raise GameError("RULES needs a game name (RULES <game>), or a SIGNON before it")
        if game["variant"] != "dipnomicy":
            raise GameError(f"game {game['name']} is not a Dipnomicy game: its rules do not "
                            "change")
        if game["phase"]:
            pos = G.current_position(s, game)
            ruleset = RULES.ruleset(pos)
        else:
            base = self._base_ruleset(s, game)
            ruleset = replace(base, settings={**base.settings, **self._chosen_settings(s, game)})
        text = ruleset_text(ruleset, f"The rules in force in game {game['name']}").rstrip()
        if ses.master is not None and ses.master["id"] == game["id"] and game["phase"]:
            # the SG's RULES publishes the ruleset to every player as well
            st, now = state(s, game), actor.clock()
            footer = self._deadline_footer(game, st, pos, now)
            ses.later.append(lambda: _publish(actor, game, "the rules in force", text, footer))
            text = "Sent to every player:\n\n" + text
        return text, "pre", None

    # -------------------------------------------------------------------- the SG
    def _sg(self, actor: FlowContext, ses: Any, started: bool = True) -> dict:
        game = actor.master_game(ses)
        if game["variant"] != "dipnomicy":
            raise GameError(f"game {game['name']} is not a Dipnomicy game")
        if started and not game["phase"]:
            raise GameError(f"game {game['name']} has not started yet")
        return game

    def _voting(self, actor: FlowContext, game: dict, label: str) -> tuple[dict, str, list[dict]]:
        st = state(actor.s, game)
        if not st["voting"]:
            raise GameError("no vote is open: this is for a proposal being voted on")
        presented = json.loads(st["presented"])
        label = "P" + label.upper().lstrip("P")
        if not 1 <= int(label[1:]) <= len(presented):
            raise GameError(f"there is no {label}: the move report presented P1 to "
                            f"P{len(presented)}")
        return st, label, presented

    def veto(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        game = self._sg(actor, ses)
        st, label, presented = self._voting(actor, game, cmd.args[0])
        reason = cmd.line.split(None, 2)[2].strip()
        vetoes = {**json.loads(st["vetoes"]), label: reason}
        _update(actor.s, game["id"], vetoes=json.dumps(vetoes))
        return (f"{label} (\"{presented[int(label[1:]) - 1]['title']}\") is vetoed: {reason}. "
                f"The veto is published with the result of the vote.", "text", None)

    def number(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        game = self._sg(actor, ses)
        target, new = cmd.args[0].upper(), int(cmd.args[1])
        if target.startswith("P"):
            st, label, presented = self._voting(actor, game, target)
            pos = G.current_position(actor.s, game)
            if RULES.ruleset(pos).rule(new) is not None or new <= 0:
                raise GameError(f"rule number {new} is in use")
            numbers = {**json.loads(st["numbers"]), label: new}
            if list(numbers.values()).count(new) > 1:
                raise GameError(f"rule number {new} is already given to another proposal")
            _update(actor.s, game["id"], numbers=json.dumps(numbers))
            return (f"If {label} (\"{presented[int(label[1:]) - 1]['title']}\") passes, it "
                    f"becomes rule {new}.", "text", None)
        try:
            self._change_rules(actor, game, lambda r: renumber(r, int(target), new),
                               f"rule {target} is now rule {new}")
        except ProposalError as exc:
            raise GameError(str(exc)) from None
        return (f"Rule {target} is now rule {new}; the ruleset has been sent to every player.",
                "text", None)

    def comment(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        game = self._sg(actor, ses)
        power = G.power_name(G.get_variant("dipnomicy"), cmd.args[0])
        text = cmd.line.split(None, 2)[2].strip()
        pos = G.current_position(actor.s, game)
        turn = turn_number(pos.phase)
        row = actor.s.one("SELECT proposal FROM dipnomicy_proposals WHERE game_id = ? AND "
                          "turn = ? AND power = ?", (game["id"], turn, power))
        st = state(actor.s, game)
        if row is None or (st["voting"] and turn == st["turn"]):  # presented already
            raise GameError(f"{power.title()} has no proposal waiting for the move report of "
                            f"turn {turn}")
        proposal = replace(Proposal.from_json(json.loads(row["proposal"])), comment=text)
        actor.s.execute("UPDATE dipnomicy_proposals SET proposal = ? WHERE game_id = ? AND "
                        "turn = ? AND power = ?",
                        (json.dumps(proposal.to_json()), game["id"], turn, power))
        return (f"Your comment on {power.title()}'s proposal \"{proposal.title}\" will be "
                f"shown with it in the move report: [{text}]", "text", None)

    _PARAM = re.compile(r"(\w+)\s*=\s*(\{.*\}|\[.*\]|\S+)")

    def attach(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        game = self._sg(actor, ses)
        number, module = int(cmd.args[0]), cmd.args[1].lower()
        params: dict[str, Any] = {}
        for key, raw in self._PARAM.findall(" ".join(cmd.args[2:])):
            try:
                params[key] = json.loads(raw)
            except ValueError:
                params[key] = raw
        chosen = None if module == "none" else module
        try:
            self._change_rules(actor, game, lambda r: attach_module(r, number, chosen, params),
                               f"rule {number}: module {module}")
        except ProposalError as exc:
            raise GameError(str(exc)) from None
        done = f"Rule {number} is now applied by the judge through module {module}" \
            if chosen else f"Rule {number} has no module now (the SG applies it)"
        return (f"{done}, from the next adjudication; the ruleset has been sent to every "
                f"player.", "text", None)

    def setting(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        """The SG sets one of the game's settings (they travel with the ruleset)."""

        game = self._sg(actor, ses, started=False)
        name, raw = cmd.args[0].lower(), cmd.args[1]
        if name not in DEFAULT_SETTINGS:
            raise GameError(f"there is no setting {name!r}; the settings are "
                            f"{', '.join(sorted(DEFAULT_SETTINGS))}")
        value: Any = raw.lower()
        if isinstance(DEFAULT_SETTINGS[name], int):
            if not raw.isdigit() or int(raw) < 1:
                raise GameError(f"{name} is a number of days (1 or more)")
            value = int(raw)
        if not game["phase"]:  # before the start: written into the game's initial ruleset
            chosen = {**self._chosen_settings(actor.s, game), name: value}
            try:
                replace(initial_ruleset(), settings=chosen)  # checks the threshold's name
            except RulesetError as exc:
                raise GameError(str(exc)) from None
            self._store(actor.s, game, **{name: value})
            return f"Setting {name} will be {value} when the game starts.", "text", None
        try:
            self._change_rules(actor, game, lambda r: replace(
                r, settings={**r.settings, name: value}), f"{name} = {value}")
        except RulesetError as exc:
            raise GameError(str(exc)) from None
        return (f"Setting {name} is now {value}; the ruleset has been sent to every player.",
                "text", None)

    @staticmethod
    def _stored(s: Store, game: dict) -> dict[str, Any]:
        """What the SG chose before the start: settings, and the ruleset text under
        ``_ruleset`` (kept in the same row: both become the starting ruleset)."""
        row = s.one("SELECT settings FROM dipnomicy_settings WHERE game_id = ?", (game["id"],))
        return json.loads(row["settings"]) if row else {}

    def _store(self, s: Store, game: dict, **changes: Any) -> None:
        chosen = {**self._stored(s, game), **changes}
        s.execute("INSERT OR REPLACE INTO dipnomicy_settings (game_id, settings) VALUES (?, ?)",
                  (game["id"], json.dumps(chosen)))

    @classmethod
    def _chosen_settings(cls, s: Store, game: dict) -> dict[str, Any]:
        return {k: v for k, v in cls._stored(s, game).items() if k != "_ruleset"}

    @classmethod
    def _base_ruleset(cls, s: Store, game: dict) -> Any:

        text = cls._stored(s, game).get("_ruleset")
        return parse_ruleset(text) if text else initial_ruleset()

    def starting_ruleset(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        """The SG mails the game's starting ruleset (the text of a ruleset file, as
        ``variants/dipnomicy/initial_ruleset.toml``) before the start; SETTING lines still
        apply on top of it."""

        game = self._sg(actor, ses, started=False)
        if game["phase"]:
            raise GameError(f"game {game['name']} has started: its rules now change by "
                            "proposal and vote")
        text = "\n".join(cmd.block).strip()
        if not text:
            raise GameError("RULESET needs the ruleset file's text on the lines after it, "
                            "and END")
        try:
            ruleset = parse_ruleset(text)
        except RulesetError as exc:
            raise GameError(f"this ruleset cannot be used: {exc}") from None
        self._store(actor.s, game, _ruleset=text)
        shown = replace(ruleset, settings={**ruleset.settings,
                                           **self._chosen_settings(actor.s, game)})
        return ("Game " + game["name"] + " will start with this ruleset:\n\n"
                + ruleset_text(shown, "The starting rules").rstrip()), "pre", None

    def _change_rules(self, actor: FlowContext, game: dict, change: Any, what: str) -> None:
        """The SG changes the ruleset in force: the current position carries the new one
        (so it applies from the next adjudication), and everyone is sent the ruleset."""

        s = actor.s
        pos = G.current_position(s, game)
        ruleset = change(RULES.ruleset(pos))
        new = with_ruleset(pos, ruleset)
        s.save_position(game["id"], game["phase"], RULES.write_position(new))
        st = state(s, game)
        _publish(actor, game, f"the ruleset has changed ({what})",
                 ruleset_text(ruleset, "The rules in force"),
                 self._deadline_footer(game, st, pos, actor.clock()))
        # the orders (and proposals) in are checked against the rules now in force
        self._read_again(actor, game, st["turn"] + 1 if st["voting"] else st["turn"], new,
                         actor.clock(), f"The Secretary General has changed the rules in "
                         f"force in game {game['name']} ({what})")

    def rollback(self, actor: FlowContext, ses: Any, cmd: Command) -> tuple[str, str, Any]:
        s, now = actor.s, actor.clock()
        game = self._sg(actor, ses)
        turn = int(cmd.args[0])
        phase = str(turn_phase(turn))
        row = s.position(game["id"], phase)
        if row is None:
            raise GameError(f"game {game['name']} has no stored position of turn {turn}")
        # nothing to undo but its orders, and its clock restarted; but a game that ended in
        # the turn (ENDGAME, a draw) is reopened there, the only way back in its first turn
        if phase == game["phase"] and game["status"] != "finished":
            raise GameError(f"game {game['name']} is already in {phase} (turn {turn}): "
                            "ROLLBACK goes back to the start of an earlier turn")
        if phase == game["phase"] and RULES.read_position(json.loads(row["position"])).winner:
            raise GameError(f"game {game['name']} was won in the turn before turn {turn}: "
                            "ROLLBACK to that turn")
        gid = game["id"]
        # a game that ended in the turn while the vote on the last turn's proposals was
        # open: the vote is open again (its proposals, votes, vetoes kept), else they would
        # never be voted on; with a fresh vote_days, as when the move report opened it
        st = state(s, game)
        vote = bool(phase == game["phase"] and st["voting"] and st["turn"] == turn - 1)
        # everything after that turn's start is undone: later positions, orders, proposals
        # and votes (the rules in force come back with the position)
        later = [r["phase"] for r in s.all("SELECT phase FROM positions WHERE game_id = ? AND "
                                           "id > ?", (gid, row["id"]))]
        s.execute("DELETE FROM positions WHERE game_id = ? AND id > ?", (gid, row["id"]))
        for p in [*later, phase]:
            s.execute("DELETE FROM orders WHERE game_id = ? AND phase = ?", (gid, p))
            s.execute("DELETE FROM votes WHERE game_id = ? AND phase = ?", (gid, p))  # DRAW
            # the deadline engine's notices of the phases played again are due again
            s.execute("DELETE FROM notices WHERE game_id = ? AND key LIKE ?", (gid, p + ":%"))
        s.execute("UPDATE positions SET results = NULL, adjudicated = NULL WHERE id = ?",
                  (row["id"],))
        # orders sent ahead that the undone phases used are pending again, as sent; those the
        # turn itself used too, since its orders are undone: used again as it starts again
        back = AH.restore(s, game, RULES.read_position(json.loads(row["position"])),
                          [*later, phase], replayed=True)
        s.execute("DELETE FROM dipnomicy_proposals WHERE game_id = ? AND turn >= ?", (gid, turn))
        s.execute("DELETE FROM dipnomicy_votes WHERE game_id = ? AND turn >= ?", (gid, turn))
        pos = RULES.read_position(json.loads(row["position"]))
        if vote:
            vote_deadline = fit_deadline(s, game, now + RULES.ruleset(pos).setting(
                "vote_days") * DAY)
            _update(s, gid, vote_deadline=iso(vote_deadline), report_sent=iso(now))
        else:
            _update(s, gid, turn=turn, voting=0, vote_deadline=None, presented=None,
                    vetoes="{}", numbers="{}", report_sent=iso(now))
        # a paused game stays paused; a finished one runs again, its result undone (as the
        # judge's own ROLLBACK does)
        status = "paused" if game["status"] == "paused" else "active"
        s.execute("UPDATE games SET phase = ?, status = ?, winner = NULL, result = NULL "
                  "WHERE id = ?", (phase, status, gid))
        # a fresh moves period from now (under P5: its days from this notice)
        game = _restart_clock(s, game, pos, now)
        used = G.activate_pending(s, game)  # the turn's own blocks, as when it began
        AH.queue_mail(actor.outbox, s, game, used)  # lines that no longer make sense
        again = {p: v for p, phases in back.items() if (v := [x for x in phases if x == phase])}
        ahead = {p: v for p, phases in back.items() if (v := [x for x in phases if x != phase])}
        ses.games_touched.add(gid)
        # the turn's own orders are undone too, where the judge's ROLLBACK restores them:
        # said to the SG and to every player, who would expect them kept
        text = (f"The Secretary General has rolled game {game['name']} back to the start of "
                f"turn {turn}. Everything after it is undone, and the moves and proposals "
                f"sent for turn {turn} too: send them again. The rules in force are those "
                f"of that turn, below.")
        deadline = f"Moves for turn {turn} are due by {_when(game['deadline'], now)}."
        opened = ""
        if vote:  # the game ended during it: it is open again, said before the deadlines
            listed = "; ".join(f"P{k}: {p['title']}"
                               for k, p in enumerate(json.loads(st["presented"]), start=1))
            opened = (f"The vote on the proposals of turn {turn - 1} is open again "
                      f"({listed}): votes already cast stand, and turn {turn} is "
                      f"adjudicated after it closes. ")
            text = text.replace(" The rules in force", " " + opened + "The rules in force")
            deadline = f"Votes are due by {_when(iso(vote_deadline), now)}.\n" + deadline
        undone = (f" The moves and proposals sent for turn {turn} are undone, not restored as "
                  "the judge's ROLLBACK restores a phase's orders in other variants: the "
                  "players send them again.")
        ses.later.append(lambda g=game: _publish(
            actor, g, f"rolled back to turn {turn}",
            text + "\n\n" + ruleset_text(RULES.ruleset(pos), "The rules in force"), deadline,
            "dipnomicy/rolled_back.txt.j2", again=again, ahead=ahead))
        return (f"Game {game['name']} is back at the start of turn {turn}. "
                f"{opened}{deadline}{undone}"
                f"{_ahead_back(turn, again, ahead)} Every player has been told.", "text", None)

    # ---------------------------------------------------------------- status
    def status_notes(self, s: Store, game: dict, now: datetime) -> list[str]:
        """For STATUS: the turn, the vote and who has yet to vote or propose."""
        row = s.one("SELECT * FROM dipnomicy_games WHERE game_id = ?", (game["id"],))
        if row is None:
            seats = len(s.players(game["id"]))
            return [f"Dipnomicy: {seats} player(s) joined ({MIN_PLAYERS} to {MAX_PLAYERS}); "
                    "the countries are drawn when the game starts."]
        players = _players(s, game)
        if row["voting"]:
            count = len(json.loads(row["presented"]))
            done: dict[str, set[str]] = {}
            for v in s.all("SELECT power, label FROM dipnomicy_votes WHERE game_id = ? AND "
                           "turn = ? AND late = 0", (game["id"], row["turn"])):
                done.setdefault(v["power"], set()).add(v["label"])
            waiting = [p.title() for p in _voters(s, game) if len(done.get(p, ())) < count]
            notes = [f"Voting on the {count} proposal(s) of turn {row['turn']} is open until "
                     f"{_when(row['vote_deadline'], now)}. Yet to vote on every proposal: "
                     f"{', '.join(waiting) or 'nobody'}."]
            turn = row["turn"] + 1
            if G.current_position(s, game).phase.kind == "M":
                notes.append(f"Moves and proposals for turn {turn} are taken now, with the "
                             f"votes; they are read again under the rules in force when "
                             f"voting closes, and the turn is adjudicated at its deadline, "
                             f"not before the vote has closed.")
        else:
            notes, turn = [], row["turn"]
        proposed = {r["power"] for r in s.all(
            "SELECT power FROM dipnomicy_proposals WHERE game_id = ? AND turn = ?",
            (game["id"], turn))}
        return [*notes, f"Turn {turn}: proposals received from "
                f"{', '.join(p.title() for p in players if p in proposed) or 'nobody yet'}."]

    def lengths(self, s: Store, game: dict) -> str:
        """For CREATE's reply and STATUS: the deadlines as the rules in force set them (the
        game's DEADLINES phase lengths do not apply)."""
        if game["phase"]:
            ruleset = RULES.ruleset(G.current_position(s, game))
        else:
            base = self._base_ruleset(s, game)
            ruleset = replace(base, settings={**base.settings, **self._chosen_settings(s, game)})
        return deadlines_text(ruleset)

    # ------------------------------------------------------------------ time
    def phase_deadline(self, s: Store, game: dict, pos: Position, now: datetime
                       ) -> datetime | None:
        """By the rules in force (the module's docstring): moves as :func:`_moves_deadline`,
        a removal phase the support rule's ``retreat_days``, Upkeep ``upkeep_days``."""
        st = s.one("SELECT * FROM dipnomicy_games WHERE game_id = ?", (game["id"],))
        return None if st is None else _phase_deadline(game, st, pos, now)

    def stage(self, s: Store, game: dict) -> Stage:
        """The vote, while it is open, before the phase: always before a turn's moves (a
        turn is adjudicated only once its vote has closed), before a removal or Upkeep
        phase when its deadline comes first."""
        phase = super().stage(s, game)
        vote = self._vote(s, game)
        if vote is None:
            return phase
        assert vote.deadline is not None
        if game["phase"].endswith("M") or phase.deadline is None or \
                vote.deadline <= phase.deadline:
            return vote
        return phase

    def stages(self, s: Store, game: dict) -> list[Stage]:
        """The vote while it is open and the phase (the one :meth:`stage` drives first)."""
        phase, vote = GameFlow.stage(self, s, game), self._vote(s, game)
        if vote is None:
            return [phase]
        return [vote, phase] if self.stage(s, game).key == vote.key else [phase, vote]

    @staticmethod
    def _vote(s: Store, game: dict) -> Stage | None:
        """The vote as a stage, while one is open."""
        st = s.one("SELECT * FROM dipnomicy_games WHERE game_id = ?", (game["id"],))
        if st is None or not st["voting"] or not st["vote_deadline"]:
            return None
        return Stage(key=f"votes:{st['turn']}:{st['report_sent']}",
                     deadline=parse_iso(st["vote_deadline"]),
                     started=parse_iso(st["report_sent"]) if st["report_sent"] else None,
                     title=f"the vote on the proposals of turn {st['turn']}",
                     orders=False, words="votes")

    def waiting_for(self, s: Store, game: dict, stage: Stage) -> dict[str, list[str]] | None:
        """In the vote: each player and the proposals it has not voted on yet."""
        if stage.orders:
            return None
        st = state(s, game)
        presented = json.loads(st["presented"])
        voted: dict[str, set[str]] = {}
        for v in s.all("SELECT power, label FROM dipnomicy_votes WHERE game_id = ? AND "
                       "turn = ? AND late = 0", (game["id"], st["turn"])):
            voted.setdefault(v["power"], set()).add(v["label"])
        out: dict[str, list[str]] = {}
        for power in _voters(s, game):
            left = [f"P{k}: {p['title']}" for k, p in enumerate(presented, start=1)
                    if f"P{k}" not in voted.get(power, set())]
            if left:
                out[power] = left
        return out

    def took_part(self, s: Store, game: dict) -> set[str]:
        """The countries whose players sent a proposal or a vote in the turn being processed
        (a vote on the last turn's proposals is cast during this turn's moves; a removal or
        Upkeep phase runs beside the vote on its turn's proposals and the next turn's
        proposals): a player who votes and proposes but lets its units hold (rule 14) has
        not left the game, and is not declared abandoned."""
        turn = turn_number(G.current_position(s, game).phase)
        proposed = s.all("SELECT power FROM dipnomicy_proposals WHERE game_id = ? AND turn "
                         "IN (?, ?)", (game["id"], turn, turn + 1))
        voted = s.all("SELECT power FROM dipnomicy_votes WHERE game_id = ? AND turn IN (?, ?)",
                      (game["id"], turn - 1, turn))
        return {r["power"] for r in [*proposed, *voted]}

    def move_deadline(self, s: Store, game: dict, stage: Stage, when: datetime,
                      now: datetime, absence: bool = False) -> list[str] | None:
        """The SG's DEADLINE while a vote runs moves the vote's deadline (the one running;
        the moves deadline before it would be set afresh when voting closes anyway). The
        next turn's moves follow it by the rules (:func:`_moves_follow_vote`); under the
        deadline rule (P5) they stay due its days after the last move report, and a vote
        closing at or after that is refused, since a turn is adjudicated only once its vote
        has closed. Outside a vote: the standard (the phase's deadline).

        A player's absence (``absence``) pushes the vote's deadline to its end even so: under
        P5 the moves deadline, if the absence holds it too, is pushed to the same time, and
        the vote, the stage driven first, still closes before the turn is adjudicated."""
        if stage.orders:
            return None
        st = state(s, game)
        pos = G.current_position(s, game)
        vote = f"the vote on the proposals of turn {st['turn']}"
        days = move_deadline_days(pos) if pos.phase.kind == "M" else None
        rule = f"{_ruleset_number(pos, 'deadline')} (the deadline rule)"
        moves = f"Moves for turn {turn_number(pos.phase)}"
        if days is not None and game["deadline"] and when >= parse_iso(game["deadline"]) \
                and not absence:
            raise GameError(
                f"{vote} cannot close at {_when(when, now)}: under {rule} moves for turn "
                f"{turn_number(pos.phase)} are due by {_when(game['deadline'], now)}, "
                f"{_days(days)} after the last move report, which DEADLINE does not move, "
                f"and a turn is adjudicated only once its vote has closed: "
                + ("give the vote a deadline before then" if parse_iso(game["deadline"]) > now
                   else "that time has passed while the game is paused; RESUME first (it "
                        "renews the deadlines), then set the vote's"))
        _update(s, game["id"], vote_deadline=iso(when))
        game = _moves_follow_vote(s, game, pos, now)
        if pos.phase.kind != "M":  # a removal or Upkeep phase runs beside the vote
            first = ", before the vote closes: it is processed first" \
                if game["deadline"] and parse_iso(game["deadline"]) < when else ""
            return [f"{phase_title(pos.phase)} ({game['phase']}) stays due by "
                    f"{_when(game['deadline'], now)}{first}."]
        if days is not None:
            return [f"{moves} stay due by {_when(game['deadline'], now)}: {rule} sets that "
                    f"deadline, {_days(days)} after the last move report, and DEADLINE does "
                    f"not move it."]
        n = int(RULES.ruleset(pos).setting("default_move_days"))
        return [f"{moves} are now due by {_when(game['deadline'], now)}, {_days(n)} after "
                f"voting closes (default_move_days; from the close, should the vote close "
                f"early)."]

    def resume(self, s: Store, game: dict, now: datetime) -> bool:
        """RESUME: a deadline that passed during the pause is renewed by the rules from now
        (a vote's ``vote_days``; moves under the deadline rule its days, else as
        :func:`_moves_deadline`; a removal or Upkeep phase its days)."""
        st = state(s, game)
        pos = G.current_position(s, game)
        if st["voting"] and st["vote_deadline"] and parse_iso(st["vote_deadline"]) < now:
            days = int(RULES.ruleset(pos).setting("vote_days"))
            _update(s, game["id"], vote_deadline=iso(fit_deadline(s, game, now + days * DAY)))
            st = state(s, game)
            game = _moves_follow_vote(s, game, pos, now)  # moves still wait for the vote
        if game["deadline"] and parse_iso(game["deadline"]) >= now:
            return True
        move_days = move_deadline_days(pos) if pos.phase.kind == "M" else None
        when = now + move_days * DAY if move_days is not None else _phase_deadline(game, st, pos, now)
        kind = self.deadline_kind(G.get_variant(game["variant"]), pos)
        begin_phase(s, game, now, kind, when)
        return True

    def process(self, actor: FlowContext, game: dict, now: datetime) -> list[G.Turn]:
        """The stage due (its deadline, early, or the SG's PROCESS): close the vote, or
        adjudicate the phase; either way the reports are this flow's own."""
        if not self.stage(actor.s, game).orders:
            self._close_vote(actor, game, now)
            return []
        return self._adjudicate(actor, game, now)

    def _adjudicate(self, actor: FlowContext, game: dict, now: datetime) -> list[G.Turn]:
        s = actor.s
        turns = G.adjudicate(s, game, now)  # the next phase's clock runs by phase_deadline
        for t in turns:
            game = G.refresh(s, game)
            if t.previous.phase.kind == "M":
                self._after_moves(actor, game, t, now)
            else:
                st = state(s, game)
                new = t.outcome.position
                footer = self._deadline_footer(game, st, new, now)
                _publish(actor, game, f"{phase_title(t.previous.phase)} ({t.previous.phase})",
                         phase_report(t.outcome), footer)
        for t in turns:  # after the reports: each player's orders sent ahead, as they stand
            AH.queue_mail(actor.outbox, s, t.game, t.ahead)
        return turns

    def _deadline_footer(self, game: dict, st: dict, pos: Position, now: datetime) -> str:
        if pos.phase.kind == "M":
            what = f"Moves for turn {turn_number(pos.phase)}"
        else:
            what = "Orders for the next phase"
        out = f"{what} are due by {_when(game['deadline'], now)}."
        if st["voting"]:
            out = f"Votes are due by {_when(st['vote_deadline'], now)}.\n" + out
        return out

    def _after_moves(self, actor: FlowContext, game: dict, t: G.Turn, now: datetime) -> None:
        """The move report, with this turn's proposals presented; voting opens."""
        s = actor.s
        st = state(s, game)
        turn = turn_number(t.previous.phase)
        proposals = [Proposal.from_json(json.loads(r["proposal"])) for r in s.all(
            "SELECT proposal FROM dipnomicy_proposals WHERE game_id = ? AND turn = ?",
            (game["id"], turn))]
        presented = presentation_order(proposals, int(st["seed"]), turn)
        # past any player's absence, at the game's time of day, as a phase's deadline
        vote_deadline = fit_deadline(s, game, now + RULES.ruleset(t.previous).setting(
            "vote_days") * DAY) if presented else None
        _update(s, game["id"], turn=turn if presented else turn + 1,
                voting=int(bool(presented)), report_sent=iso(now),
                vote_deadline=iso(vote_deadline) if vote_deadline else None,
                presented=json.dumps([p.to_json() for p in presented]), vetoes="{}",
                numbers="{}")
        st = state(s, game)
        new = t.outcome.position
        game = _restart_clock(s, game, new, now)  # voting may have opened: the moves wait
        moves = _when(game["deadline"], now) if new.phase.kind == "M" else None
        text = move_report(t.outcome, presented, players=new.extra.get("players"),
                           moved=set(t.orders),
                           vote_deadline=_when(st["vote_deadline"], now) if presented else None,
                           moves_deadline=moves)
        footer = "" if new.phase.kind == "M" else self._deadline_footer(game, st, new, now)
        _publish(actor, game, f"move report, turn {turn}", text, footer)

    def _close_vote(self, actor: FlowContext, game: dict, now: datetime) -> None:
        s = actor.s
        st = state(s, game)
        presented = [Proposal.from_json(p) for p in json.loads(st["presented"])]
        votes = [Vote(r["power"], r["label"], r["choice"], bool(r["late"])) for r in s.all(
            "SELECT * FROM dipnomicy_votes WHERE game_id = ? AND turn = ? ORDER BY id",
            (game["id"], st["turn"]))]
        vetoes = [Veto(k, v) for k, v in json.loads(st["vetoes"]).items()]
        pos = G.current_position(s, game)
        result, nxt = close_vote(pos, presented, votes, vetoes, json.loads(st["numbers"]),
                                 voters=_voters(s, game))
        s.save_position(game["id"], game["phase"], RULES.write_position(nxt))
        _update(s, game["id"], voting=0, turn=st["turn"] + 1)
        st = state(s, game)
        if nxt.phase.kind == "M":  # the next turn starts now (P5 may just have changed)
            game = _restart_clock(s, game, nxt, now)
        else:  # the removal or Upkeep phase runs on; an early close was the vote's
            s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
        game = G.refresh(s, game)
        _publish(actor, game, f"votes on the proposals of turn {st['turn'] - 1}",
                 vote_report(result, st["turn"] - 1),
                 self._deadline_footer(game, st, nxt, now))
        self._read_again(actor, game, st["turn"], nxt, now, f"Voting has closed in game "
                         f"{game['name']}, and the rules in force have changed")

    def _read_again(self, actor: FlowContext, game: dict, turn: int, pos: Position, now: datetime,
                    why: str) -> None:
        """The rules changed (voting closed, or the SG changed them): the orders of the
        current phase and the proposals of ``turn`` are read again under the rules now in
        force (``pos``); each player whose orders read differently, or whose proposal no
        longer fits the rules, is told (and the proposal is dropped)."""
        s = actor.s
        variant = G.get_variant(game["variant"])
        told: dict[str, dict[str, Any]] = {}
        for row in s.all("SELECT power, lines, inbox_id FROM orders WHERE game_id = ? AND "
                         "phase = ?", (game["id"], game["phase"])):
            power, old = row["power"], json.loads(row["lines"])
            new = G.read_order_lines(variant, pos, power, [x["text"] for x in old])
            key = [(x.get("order"), x.get("error")) for x in old]
            if key == [(x.get("order"), x.get("error")) for x in new]:
                continue
            s.save_order_set(game["id"], game["phase"], power, new, row["inbox_id"])
            changes = [{"text": b["text"], "was": a.get("order"), "now": b.get("order"),
                        "error": b.get("error")}
                       for a, b in zip(old, new, strict=True)
                       if (a.get("order"), a.get("error")) != (b.get("order"), b.get("error"))]
            told.setdefault(power, {})["orders"] = changes
            told[power]["status"] = G.order_status(s, game, power, pos)
        if pos.phase.kind == "M":
            for row in s.all("SELECT power, proposal FROM dipnomicy_proposals WHERE "
                             "game_id = ? AND turn = ?", (game["id"], turn)):
                proposal = Proposal.from_json(json.loads(row["proposal"]))
                try:
                    proposal.check(RULES.ruleset(pos))
                except ProposalError as exc:
                    s.execute("DELETE FROM dipnomicy_proposals WHERE game_id = ? AND turn = ? "
                              "AND power = ?", (game["id"], turn, row["power"]))
                    told.setdefault(row["power"], {})["proposal"] = {
                        "title": proposal.title, "why": str(exc)}
        deadline = _when(game["deadline"], now)
        for power, what in sorted(told.items()):
            player = s.player(game["id"], power)
            if player is None:
                continue
            actor.outbox.queue(
                kind="notice", to=player["address"],
                subject=f"{game['name']}: your orders under the new rules, {game['phase']}",
                template="dipnomicy/read_again.txt.j2",
                context={"orders": [], "proposal": None, "status": None, **what,
                         "game": game["name"], "power": power.title(),
                         "turn": turn, "deadline": deadline, "why": why,
                         "judge_name": actor.cfg.name}, game_id=game["id"])


FLOW = DipnomicyFlow()
