"""The command language: a stored message's text becomes commands or specific errors.

``spec`` says what a command is (CommandSpec, Command), ``grammar`` the judge's own commands
and the table a mail is read by (the judge's commands and the variants' flows' own: bound to
their handlers by :mod:`judge.games.commands`), ``parse`` reads a mail's lines by it. Nothing
here imports the games layer (issue 22).
"""
