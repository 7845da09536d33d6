"""Dipnomicy's command words (players: PROPOSE, VOTE; the Secretary General: VETO, NUMBER,
COMMENT, ATTACH, ROLLBACK, SETTING, RULESET; anyone: RULES): their words, usages and argument
checks, from which the game flow (:mod:`judge.variants.dipnomicy.flow`) makes its command specs
(``DipnomicyFlow.commands``), one per command, with the flow's handler.

Only the words and their argument checks live here; what the commands do is the flow.
"""

from __future__ import annotations

import re

# canonical name -> (usage, the words that call it)
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "PROPOSE": ("PROPOSE <title>, then Enact/Repeal/Amend/Transmute..., an optional MODULE "
                "line, the rule's text, and END", ("PROPOSE", "PROPOSAL")),
    "VOTE": ("VOTE P1 FOR | AGAINST | ABSTAIN", ("VOTE",)),
    "VETO": ("VETO P1 <reason>", ("VETO",)),
    "NUMBER": ("NUMBER P1 <rule number> | NUMBER <rule> <new number>", ("NUMBER",)),
    "COMMENT": ("COMMENT <country> <the Secretary General's comment>", ("COMMENT",)),
    "ATTACH": ("ATTACH <rule> <module> [key=value ...] | ATTACH <rule> NONE", ("ATTACH",)),
    "ROLLBACK": ("ROLLBACK <turn>", ("ROLLBACK",)),
    "RULES": ("RULES [game]", ("RULES",)),
    "SETTING": ("SETTING <threshold | vote_days | upkeep_days | default_move_days> <value>",
                ("SETTING",)),
    "RULESET": ("RULESET, then the game's starting ruleset file (TOML), and END", ("RULESET",)),
}
# A block command takes the following lines up to a line holding only END (which then ends
# the block, not the mail): a proposal's text is free prose.
BLOCKS = {"PROPOSE", "RULESET"}

_LABEL = re.compile(r"^P?\d+$", re.IGNORECASE)


def check(name: str, args: list[str]) -> str:
    """'' when the arguments of command ``name`` can be used, else the reason (the parser adds
    the usage)."""
    if name == "VOTE":
        if len(args) != 2 or not _LABEL.match(args[0]):
            return "VOTE needs a proposal and FOR, AGAINST or ABSTAIN"
        if args[1].upper() not in ("FOR", "AGAINST", "ABSTAIN", "YES", "NO"):
            return f"{args[1]!r} is not FOR, AGAINST or ABSTAIN"
    elif name == "VETO":
        if len(args) < 2 or not _LABEL.match(args[0]):
            return "VETO needs a proposal (P1) and the reason"
    elif name == "NUMBER":
        if len(args) != 2 or not _LABEL.match(args[0]) or not args[1].isdigit():
            return "NUMBER needs a proposal (P1) or a rule, and a number"
    elif name == "COMMENT":
        if len(args) < 2:
            return "COMMENT needs a country and the comment"
    elif name == "ATTACH":
        if len(args) < 2 or not args[0].isdigit():
            return "ATTACH needs a rule number and a module (or NONE)"
    elif name == "ROLLBACK":
        if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
            return "ROLLBACK needs the turn to go back to (1, 2, ...)"
    elif name == "SETTING" and len(args) != 2:
        return "SETTING needs a name and a value"
    elif name == "RULES" and len(args) > 1:
        return "RULES takes at most one game name"
    return ""
