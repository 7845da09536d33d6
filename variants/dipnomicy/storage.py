"""Dipnomicy's own tables (its flow's storage, :attr:`judge.games.flow.GameFlow.storage`).

Numbered migrations, applied in order by :meth:`judge.storage.Store.migrate_extension` (never
edit one: append). The first is the judge's former migration 3, written ``IF NOT EXISTS``: a
database that ran that migration already holds these tables and keeps them as they are.
"""

MIGRATIONS: list[str] = [
    # 1: the game's seed and the stage of its cycle, this turn's proposals, the votes (late
    # ones kept, to be reported), the SG's vetoes and numbers, and the settings chosen before
    # the start
    """
    CREATE TABLE IF NOT EXISTS dipnomicy_games (
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        seed INTEGER NOT NULL,
        turn INTEGER NOT NULL DEFAULT 1,   -- the turn whose moves are due (or being voted on)
        voting INTEGER NOT NULL DEFAULT 0, -- 1 while the proposals of `turn` are being voted on
        vote_deadline TEXT,                -- UTC ISO 8601
        report_sent TEXT,                  -- when the last move report was queued (P5)
        presented TEXT,                    -- JSON: the proposals as presented, P1 first
        vetoes TEXT NOT NULL DEFAULT '{}', -- JSON {"P3": "reason"}
        numbers TEXT NOT NULL DEFAULT '{}' -- JSON {"P2": 30}
    );
    CREATE TABLE IF NOT EXISTS dipnomicy_proposals (
        game_id INTEGER NOT NULL REFERENCES games(id),
        turn INTEGER NOT NULL,
        power TEXT NOT NULL,
        proposal TEXT NOT NULL,            -- JSON, Proposal.to_json()
        updated TEXT NOT NULL,
        PRIMARY KEY (game_id, turn, power)
    );
    CREATE TABLE IF NOT EXISTS dipnomicy_votes (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        turn INTEGER NOT NULL,
        power TEXT NOT NULL,
        label TEXT NOT NULL,
        choice TEXT NOT NULL,
        late INTEGER NOT NULL DEFAULT 0,
        at TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS dipnomicy_votes_turn ON dipnomicy_votes(game_id, turn, id);
    CREATE TABLE IF NOT EXISTS dipnomicy_settings (    -- settings the SG chose before the start
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        settings TEXT NOT NULL             -- JSON {"threshold": "two-thirds"}
    );
    """,
]
