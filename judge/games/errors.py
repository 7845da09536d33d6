"""The error every game command raises when it cannot be carried out (its own module, so that
the games layer's lowest parts, :mod:`judge.games.flow` among them, can raise it)."""

import re


class GameError(Exception):
    """A command that cannot be carried out; ``str()`` is the reason shown to the sender."""


QUOTED_CHARS = 40  # a user's word quoted back in an error is cut to this many characters
# a Python repr of a string, as the errors write a user's word: '...' or "..." (escapes
# too), its quotes not inside a word (an apostrophe, "player's ... player's", is no quote)
_QUOTED = re.compile(r"""(?<!\w)(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?!\w)""")


def cut_quoted(text: str) -> str:
    """``text`` (an error's reason) with every quoted word longer than QUOTED_CHARS cut to
    that many characters and an ellipsis. The errors quote the word they could not use
    (``there is no game called {name!r}``) whatever its length: ``LIST <900 KB name>`` had
    the judge mail the name back whole, up to reply_max_bytes of an attacker's text to
    whoever the From named (the line itself is quoted cut to 200 characters). Cut here,
    where every reason becomes a reply's line (MailSession.say), not in each message."""
    def cut(m: re.Match[str]) -> str:
        word = m.group()
        if len(word) <= QUOTED_CHARS + 2:
            return word
        return word[: QUOTED_CHARS + 1] + "…" + word[0]

    return _QUOTED.sub(cut, text)
