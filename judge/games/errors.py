"""The error every game command raises when it cannot be carried out (its own module, so that
the games layer's lowest parts, :mod:`judge.games.flow` among them, can raise it)."""


class GameError(Exception):
    """A command that cannot be carried out; ``str()`` is the reason shown to the sender."""
