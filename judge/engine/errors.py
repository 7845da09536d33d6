"""The one exception an order line can raise: a specific, player-facing reason."""


class OrderError(ValueError):
    """An order that cannot be read or cannot be given; ``str()`` is the reason shown to the player.

    Messages are short, specific and in plain words, for example
    ``unknown province 'Paaris'``, ``no unit in Burgundy``, ``Kiel is not adjacent to Munich for
    a fleet``, ``Spain has two coasts: say which (SPA/NC or SPA/SC)``.
    """


class OrderSyntaxError(OrderError):
    """A line that cannot be read as an order at all (unknown word or place, bad shape).

    ``judge adjudicate`` reports these as ``invalid``; an order that reads but cannot be carried
    out (not adjacent, not your unit, ...) is an :class:`OrderError` and ``fails``.
    """
