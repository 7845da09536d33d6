"""The command language: a stored message's text becomes commands or specific errors.

``spec`` says what a command is (CommandSpec, Command), ``table`` is the one command table
(the judge's commands and the variants' flows' own), ``parse`` reads a mail's lines by it.
"""
