"""The one command table (the grammar in judge/commands/grammar.py, bound to the handlers in
judge/games/commands.py): each line is read once, by one spec that the command keeps; a variant's flow adds a command with one spec and one handler; a handler's mail
held for after the reply goes out after it, and not at all when the command fails."""

from __future__ import annotations

import pytest
from mailkit import InProcessJudge

from judge.commands.spec import JUDGE, CommandSpec, Reply
from judge.games import commands as T
from judge.games.commands import PASSWORD_COMMANDS, parse_line, parse_lines
from judge.games.errors import GameError
from judge.games.flow import GameFlow


def test_each_line_keeps_the_spec_it_was_read_by():
    judge = T.table().judge
    assert parse_line("press to France").spec is judge["PRESS"]
    assert parse_line("LOGIN France g1 pw").spec is judge["SIGNON"]
    signon_master = parse_line("SIGNON MASTER g1 pw")  # the MASTER command, password word 3
    assert (signon_master.name, signon_master.spec, signon_master.hide) == \
        ("MASTER", judge["MASTER"], (3,))
    order = parse_line("A PAR - BUR")
    assert (order.name, order.spec, order.grammar) == ("ORDER", None, "")
    assert parse_line("Create A Bud").name == "ORDER"  # Dipnomicy's build, not CREATE


def test_a_word_of_two_grammars_is_read_by_the_first_whose_check_passes():
    ours, theirs, bad = (parse_line(x) for x in ("ROLLBACK S1901M", "ROLLBACK 2",
                                                 "ROLLBACK soon"))
    assert (ours.grammar, theirs.grammar) == (JUDGE, "dipnomicy")
    assert ours.spec is not theirs.spec and not ours.error and not theirs.error
    assert bad.grammar == JUDGE and bad.error == ("ROLLBACK needs one phase (e.g. S1901M); "
                                                  "write: ROLLBACK <phase>")


def test_every_judge_word_calls_one_judge_spec_and_blocks_follow_their_spec():
    seen: dict[str, str] = {}
    for spec in T.JUDGE_COMMANDS:
        for word in spec.words:
            assert word not in seen, (word, seen.get(word), spec.name)
            seen[word] = spec.name
            assert T.table().by_word[word][0] is spec
    assert {"SIGNON", "JOIN", "MASTER", "CREATE", "TAKEOVER", "REPLACE"} == PASSWORD_COMMANDS
    press, after = parse_lines(["PRESS TO France", "Hello", "ENDPRESS", "A PAR - BUR"])
    assert press.block == ["Hello"] and after.name == "ORDER"
    proposal, order = parse_lines(["PROPOSE Peace", "Enact: no war.", "END", "A PAR - BUR"])
    assert proposal.block == ["Enact: no war."] and order.name == "ORDER"  # END: the block's


class _TwiceFlow(GameFlow):
    def commands(self) -> list[CommandSpec]:
        return [CommandSpec("ONE", ("ONE", "SAME"), "ONE", _shout, grammar="twice"),
                CommandSpec("TWO", ("TWO", "SAME"), "TWO", _shout, grammar="twice")]


def test_a_word_given_twice_in_one_grammar_is_refused():
    with pytest.raises(ValueError, match="SAME is given twice in the twice grammar"):
        T.build((_TwiceFlow(),))


# --------------------------------------------------- a variant's command, end to end
def _shout(actor, ses, cmd) -> Reply:
    """SHOUT <words>: a notice to the sender (held until after the reply); SHOUT FAIL fails
    after queueing it."""
    actor.outbox.queue(kind="notice", to=ses.inbound.sender, subject="shouted",
                       template="reply_limit.txt.j2",
                       context={"limit": 1, "until": actor.clock()})
    if cmd.args[0].upper() == "FAIL":
        raise GameError("shouting failed")
    return f"Shouted {' '.join(cmd.args)}.", "text", None


class _ShoutFlow(GameFlow):
    def commands(self) -> list[CommandSpec]:
        return [CommandSpec(name="SHOUT", words=("SHOUT", "YELL"), usage="SHOUT <words>",
                            handler=_shout, grammar="shout", mail_after_reply=True,
                            check=lambda args: "" if args else "SHOUT needs words")]


def test_a_flow_adds_a_command_with_one_spec_and_one_handler(tmp_path, monkeypatch):
    flows = T.all_flows()
    monkeypatch.setattr(T, "all_flows", lambda: (*flows, _ShoutFlow()))
    assert parse_line("yell hello").grammar == "shout"
    judge = InProcessJudge(tmp_path)
    got = judge.send("a@p.test", "SHOUT hello")
    assert [m.subject for m in got] == ["Re: orders", "shouted"]  # the notice after the reply
    assert "Shouted hello." in got[0].body
    got = judge.send("a@p.test", "SHOUT FAIL")
    assert [m.subject for m in got] == ["[ERROR] Re: orders"]  # a failed command sends nothing
    assert "shouting failed" in got[0].body
    got = judge.send("a@p.test", "SHOUT")
    assert "SHOUT needs words; write: SHOUT <words>" in got[0].body
