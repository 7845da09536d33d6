"""Command lines -> commands, in the tradition of njudge and DPjudge.

One command per line. A line whose first word is a word of the command table it is given
(a :class:`~judge.commands.grammar.CommandTable`: the judge's commands and the variants' own,
:func:`judge.games.commands.table`) is read, once, by
that command's spec into a :class:`~judge.commands.spec.Command` that keeps the spec; any other
line is an order line for the power the mail signed on as. Parsing never raises: a malformed
command becomes a Command with ``error`` set to a specific message.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from judge.commands.grammar import PASSWORD_COMMANDS, CommandTable  # noqa: F401
from judge.commands.spec import (  # noqa: F401 (Command is read from here too)
    END_PRESS,
    ORDER,
    Command,
    CommandSpec,
    Form,
)
from judge.durations import (  # noqa: F401 (commands read them from here)
    EXAMPLES,
    parse_duration,
    read_durations,
)


def parse_line(line: str, table: CommandTable) -> Command:
    cmd = _parse_line(line, table)
    words = line.split()
    if cmd.hide or not words:
        return cmd
    head = words[0].upper().rstrip(":")
    if cmd.error and any(spec.carries_password for spec in (
            *table.by_word.get(head, ()), *([cmd.spec] if cmd.spec else []))):
        # which word is the password is unknown: hide every word after the command word
        _hide_after_command(cmd)
        cmd.error = _masked_quotes(cmd.error, cmd.passwords)  # "'<pw>' cannot be a game name"
    return cmd


def _hide_after_command(cmd: Command) -> None:
    words = cmd.line.split()
    first = 2 if len(words) > 1 and words[1].upper() in ("MASTER", "GM", "GAME") else 1
    cmd.hide = tuple(range(first, len(words)))


def _masked_quotes(reason: str, words: list[str]) -> str:
    """``reason`` with each of ``words`` it quotes ('word', as repr() or an f-string writes
    it; any case) written '****'."""
    for word in sorted(set(words), key=len, reverse=True):
        for quoted in {f"'{word}'", repr(word)}:
            reason = re.sub(re.escape(quoted), "'****'", reason, flags=re.IGNORECASE)
    return reason


def hide_unread(cmd: Command, reason: str, names: Callable[[str], bool]) -> str:
    """A command carrying a password that read but was refused for ``reason`` (not for its
    password): when the word standing where its password should is a name (``names``: a
    game's, a power's), the password is elsewhere on the line (JOIN g1 <pw> FRANCE, MASTER
    <pw> g1) and the reason may quote it ("'<pw>' is not a power"), so every word after the
    command word is hidden, as for a line that does not read, and the reason is returned with
    them masked and the usage added; otherwise ``reason`` as it is."""
    words = cmd.line.split()
    if cmd.spec is None or not cmd.spec.carries_password or len(cmd.hide) != 1 or \
            cmd.hide[0] >= len(words) or not names(words[cmd.hide[0]]):
        return reason
    _hide_after_command(cmd)
    return (f"{_masked_quotes(reason, cmd.passwords)} (the words after {words[0]} are not "
            f"shown: one may be a password in the wrong place); write: {cmd.spec.usage}")


# njudge's words for what this judge does otherwise, and no command of ours: the reason, with
# our equivalent (a veteran of the classic judges writes them out of habit)
CLASSIC_REFUSED = {
    "GET": "GET is njudge's (its files); this judge has none to send: send HELP for the "
           "commands, and see the judge's documentation for the rules of each variant",
    "SEND": "SEND (njudge's GET) is no command here: send HELP for the commands",
    "RESIGN": "RESIGN (njudge) is no command for a player here: to leave a game, ask the game "
              "master, who ejects your power (EJECT) or seats a new player (REPLACE); a game "
              "master writes RESIGN <power> or EJECT <power>",
    "WITHDRAW": "WITHDRAW (njudge's RESIGN) is no command for a player here: to leave a game, "
                "ask the game master, who ejects your power (EJECT) or seats a new player "
                "(REPLACE)",
    "BECOME MASTER": "BECOME MASTER (njudge) is no command here: a game has the master who "
                     "created it, who signs on with MASTER <game> <password>",
}


def _classic(head: str, line: str, args: list[str], table: CommandTable) -> Command | None:
    """A line in njudge's words read as the command of ours that means the same (SET
    DEADLINE, BECOME, WHOGAME, SIGNON M<game>, the master's RESIGN <power>), or refused
    with our equivalent named (:data:`CLASSIC_REFUSED`); None for any other line."""
    judge = table.judge
    first = args[0].upper() if args else ""
    if head == "SET" and first == "DEADLINE":
        return _read(judge["DEADLINE"], line, args[1:], table)
    if head == "BECOME" and first == "MASTER":
        return Command(head, args, line, error=CLASSIC_REFUSED["BECOME MASTER"])
    if head == "BECOME":  # a master playing a power: ACT
        return _read(judge["ACT"], line, args, table)
    if head == "WHOGAME":  # njudge's FULL (observers too) is what WHOIS <game> lists anyway
        return _read(judge["WHOIS"], line, [a for a in args if a.upper() != "FULL"], table)
    if head == "SIGNON" and len(args) == 2 and len(args[0]) > 1 and first[0] == "M":
        # njudge's master sign-on, SIGNON M<game> <password> (M is no power's initial there)
        return _read(judge["MASTER"], line, [args[0][1:], args[1]], table)
    if head == "RESIGN" and len(args) == 1:  # the master's RESIGN <power>: EJECT
        return _read(judge["EJECT"], line, args, table)
    if head in CLASSIC_REFUSED and head not in table.by_word and len(args) <= 2:
        # (a longer line is a sentence: 'Get well soon, ...' under the orders)
        return Command(head, args, line, error=CLASSIC_REFUSED[head])
    return None


def _parse_line(line: str, table: CommandTable) -> Command:
    """The line read by the first spec of its first word whose check passes; when none
    passes, the first one's reason (the judge's ROLLBACK <phase> before Dipnomicy's
    ROLLBACK <turn>). njudge's words are read first (:func:`_classic`)."""
    words = line.split()
    head = words[0].upper().rstrip(":") if words else ""
    if head and (classic := _classic(head, line, words[1:], table)) is not None:
        return classic
    specs = table.by_word.get(head, ())
    first: Command | None = None
    for spec in specs:
        cmd = _read(spec, line, words[1:], table)
        if not cmd.error:
            return cmd
        first = first or cmd
    return first or Command(ORDER, [], line)


def _read(spec: CommandSpec, line: str, args: list[str], table: CommandTable) -> Command:
    checked = spec.check(args)
    form = checked if isinstance(checked, Form) else Form(error=checked,
                                                          password_at=spec.password_at)
    cmd = Command(spec.name, args, line, spec=spec)
    if form.error:
        cmd.error = f"{form.error}; write: {spec.usage}"
        return cmd
    if form.name == ORDER:
        return Command(ORDER, [], line)
    if form.name:  # SIGNON MASTER <game> <password>: the MASTER command
        cmd.spec = table.judge[form.name]
        cmd.name = form.name
    if form.args is not None:
        cmd.args = list(form.args)
    if form.password_at is not None:
        cmd.hide = (form.password_at,)
    return cmd


def _password_command(line: str, table: CommandTable) -> Command | None:
    """``line`` read as a command carrying a password (SIGNON, JOIN, MASTER...), if it reads
    as one without error (prose such as "Join me in attacking Germany" does not)."""
    words = line.split()
    head = words[0].upper().rstrip(":") if words else ""
    if not any(spec.carries_password for spec in table.by_word.get(head, ())):
        return None
    cmd = parse_line(line.strip(), table)
    if cmd.error or cmd.spec is None or not cmd.spec.carries_password:
        return None
    return cmd


def is_block_end(line: str) -> bool:
    return " ".join(line.split()).upper() in END_PRESS


# Closings a player writes under the orders (compared without case and punctuation)
CLOSINGS = frozenset("""
cheers|thanks|thank you|thanks a lot|many thanks|thanks again|thx|tks|regards|best|
best regards|kind regards|warm regards|warmest regards|best wishes|all the best|yours|
yours truly|sincerely|yours sincerely|love|see you|see ya|later|greetings|good luck|
have fun|br|kr|grüße|grüsse|gruß|gruss|viele grüße|liebe grüße|beste grüße|schöne grüße|
herzliche grüße|lg|vg|mfg|mit freundlichen grüßen|danke|vielen dank|tschüss|tschüß|ciao|
salut|merci|merci beaucoup|cordialement|bien cordialement|amitiés|bien à vous|à bientôt|
a bientot|bises|bonne journée|saluti|cordiali saluti|grazie|saludos|un saludo|gracias|
abrazos|groeten|groetjes|met vriendelijke groet|hälsningar|mvh|pozdrawiam|pozdrav|
cumprimentos|obrigado|abraços""".replace("\n", "").split("|"))
# the first word of a line that is an order, never a sign-off ("A Par!", "Build!")
_ORDER_WORDS = {"A", "F", "ARMY", "FLEET", "BUILD", "REMOVE", "WAIVE", "DISBAND", "RETREAT",
                "PLACE"}
_WORD = re.compile(r"[^\W\d_]+(?:['’.-]+[^\W\d_]+)*\.?")
_TAIL = 4  # at most this many lines at the end: a sentence, a closing, a name or two
_PROSE_WORDS = 6  # a line of at least this many words, ending like a sentence, is prose
_UNDER = 6  # at most this many lines under a lone closing word (an address, a phone number)
_INITIAL = re.compile(r"[^\W\d_]\.")  # a signature's initial: "A."


def _words(line: str) -> list[str] | None:
    """The words of a line made of letters only (a closing's trailing , ! . allowed)."""
    words = line.strip().lstrip("-–—").rstrip(",!.").strip().split()
    if not words or not all(_WORD.fullmatch(w) for w in words):
        return None
    return words


def is_closing(line: str) -> bool:
    """A known closing (``Cheers``, ``Grüße``, ``Best regards``), one or two words ending
    with ``,`` or ``!`` (``Bis bald!``, ``Yours,``) or a short exclamation (``Good luck
    all!``, ``See you in Munich!``); never a line led by an order word (the reader keeps any
    that reads as an order)."""
    words = _words(line)
    if words is None or words[0].upper() in _ORDER_WORDS:
        return False
    if " ".join(w.lower().rstrip(".") for w in words) in CLOSINGS:
        return True
    end = line.strip()[-1]
    return (len(words) <= 2 and end in ",!") or (len(words) < _PROSE_WORDS and end == "!")


def is_closing_and_name(line: str) -> bool:
    """A known closing and a name after a comma on one line (``Cheers, Anna``)."""
    head, comma, tail = line.partition(",")
    return bool(comma) and is_closing(head + ",") and " ".join(
        w.lower() for w in head.split()) in CLOSINGS and is_name(tail)


def is_prose(line: str) -> bool:
    """A sentence rather than an order: many words, ending like a sentence (``Thanks, and
    good luck to everyone this season.``); never led by an order word."""
    words = line.split()
    if len(words) < _PROSE_WORDS or words[0].upper().strip("*-:") in _ORDER_WORDS:
        return False
    letters = sum(1 for w in words if any(c.isalpha() for c in w))
    return letters >= _PROSE_WORDS and line.rstrip().endswith((".", "!", "?", ")", "…"))


def is_name(line: str) -> bool:
    """A signature's name under a closing: one to three words of letters (``Anna``,
    ``Hans Müller``, ``J.-P. Martin``), or an initial (``A.``: never an order, since an
    order names a place after its unit's type)."""
    if _INITIAL.fullmatch(line.strip()):
        return True
    words = _words(line)
    return words is not None and len(words) <= 3 and words[0].upper() not in _ORDER_WORDS \
        and not line.strip().endswith((",", "!"))


def is_closing_word(line: str) -> bool:
    """A known closing of one word alone on its line (``Best``, ``Cheers``, ``Thanks!``)."""
    words = _words(line)
    return words is not None and len(words) == 1 and words[0].lower().rstrip(".") in CLOSINGS


def mark_signoff(cmds: list[Command]) -> None:
    """Mark the sign-off at the end of a mail's commands: the last lines (at most
    :data:`_TAIL`), all of them lines that are not commands, when they are closings
    (``Cheers, Anna`` too), names under a closing, or sentences of prose; a lone name at the
    very end and prose are marked ``loose`` (the reader keeps any that reads as an order, and
    a loose one that starts with a place or a unit)."""
    tail = 0
    while tail < min(_TAIL, len(cmds)) and cmds[-1 - tail].name == "ORDER" and (
            is_closing(cmds[-1 - tail].line) or is_name(cmds[-1 - tail].line)
            or is_closing_and_name(cmds[-1 - tail].line) or is_prose(cmds[-1 - tail].line)):
        tail += 1
    block = cmds[len(cmds) - tail:]

    def leads(cmd: Command) -> bool:
        return is_closing(cmd.line) or is_closing_and_name(cmd.line) or is_prose(cmd.line)

    while len(block) > 1 and not leads(block[0]):  # a name is one only under a closing ...
        block.pop(0)
    for cmd in block:
        cmd.signoff = True
        # ... or alone at the very end; prose is one by its looks only
        cmd.loose = is_prose(cmd.line) or not leads(block[0])
    # a closing word alone on its line above such a tail, or above lines no sign-off is
    # made of ("Best" / "Anna (Germany)"): a sign-off when no line under it is a command
    # (the reader also wants none of them to read as an order)
    above = len(cmds) - len(block)
    for k in range(above - 1, max(-1, above - 2 - _UNDER), -1):
        if cmds[k].name != "ORDER":
            break
        if is_closing_word(cmds[k].line):
            cmds[k].signoff = True
            cmds[k].under = tuple(c.line for c in cmds[k + 1:above])
            break


def parse_lines(lines: list[str], table: CommandTable) -> list[Command]:
    """Commands from a mail's lines, read by ``table``; stops at SIGNOFF/END; blank lines are
    skipped; a press block ends at ENDPRESS, at a line with a password (read as a command,
    and said so in the press command's ``note``) or at the end of the mail; an END block
    (PROPOSE, RULESET) at its line END, and one that a line with a password (read as a
    command) or the end of the mail ends first is refused (:func:`_no_end`); a sign-off at
    the end is marked (:func:`mark_signoff`)."""
    out: list[Command] = []
    block: Command | None = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if block is not None:  # inside PROPOSE ... END: prose, blank lines kept
            if line.upper() == "END":
                block = None
            elif (cut := _password_command(line, table)) is not None:
                # END was forgotten: a line with a password is a command (the next game's
                # SIGNON), never a rule's text to be published; the block is refused
                _no_end(block, cut, table)
                block = None
                i -= 1  # read again, as a command
            else:
                block.block.append(raw.rstrip())
            continue
        if not line:
            continue
        cmd = parse_line(line, table)
        if cmd.name == "END":
            break
        block_end = cmd.spec.block if cmd.spec is not None else ""
        if block_end == "ENDPRESS":  # press runs to ENDPRESS (or the end of the mail) ...
            while i < len(lines) and not is_block_end(lines[i]):
                if (cut := _password_command(lines[i], table)) is not None:
                    # ... or to a line with a password: a player who forgot ENDPRESS meant
                    # it as a command, and it must never reach the press's readers
                    cmd.note = (f"This press had no ENDPRESS before the line "
                                f"'{cut.masked}': a line with a password ends the press, "
                                "so it was read as a command and not sent as press.")
                    break
                cmd.block.append(lines[i].rstrip())
                i += 1
            else:
                i += 1  # past the ENDPRESS
            while cmd.block and not cmd.block[-1].strip():
                cmd.block.pop()
            first = next((k for k, x in enumerate(cmd.block) if x.strip()), len(cmd.block))
            del cmd.block[:first]
        out.append(cmd)
        if not cmd.error and block_end == "END":
            block = cmd
    if block is not None:
        _no_end(block, None, table)
    mark_signoff(out)
    return out


def _no_end(cmd: Command, cut: Command | None, table: CommandTable) -> None:
    """Refuse the END block ``cmd`` that has no line END (``cut``: the password line that
    ended it; None: the end of the mail), saying what was read for it: lines taken to the
    end of the mail or to a password line may be orders and a sign-off, not the text the
    sender meant, so none of them is used."""
    lines = [x.strip() for x in cmd.block if x.strip()]
    read = "no line was read for it"
    if lines:
        span = _clip(lines[0], table) + (f" to {_clip(lines[-1], table)}" if len(lines) > 1
                                         else "")
        read = (f"the {len(lines)} line{'s' if len(lines) != 1 else ''} read for it ({span}) "
                "changed nothing")
    if cut is None:
        where = f"before the end of the mail: {read}" + (
            " (none was read as an order or a command)" if lines else "")
    else:
        where = (f"before the line '{cut.masked}', which has a password: a line with a "
                 f"password ends the block and is read as a command. {read[0].upper()}"
                 f"{read[1:]}")
    cmd.error = (f"{cmd.name} not taken: no line END came {where}; send it again ending with "
                 "a line holding only END.")
    cmd.block.clear()


def _clip(line: str, table: CommandTable, most: int = 70) -> str:
    """``line`` quoted, cut to ``most`` characters; a malformed password command (one that
    did not end the block) as its command word alone, as the judge echoes one."""
    word = line.split()[0]
    if any(spec.carries_password for spec in table.by_word.get(word.upper().rstrip(":"), ())):
        line = f"{word} ****"
    return f"'{line if len(line) <= most else line[:most - 3] + '...'}'"
