"""The command language: a stored message's text becomes commands or specific errors."""
