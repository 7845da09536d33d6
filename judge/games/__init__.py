"""Acting on commands: games, players, orders, adjudication (all inside DB transactions)."""
