-- What the two players of a game say to each other: plain text, with a
-- move or alone, read by them alone (never in the game's PGN).
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL REFERENCES games (id),
    author_id TEXT NOT NULL REFERENCES accounts (id),
    -- The game's ply when it was said (after the move it went with).
    ply INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX messages_by_game ON messages (game_id, id);
-- The rate a player may write at is counted along this one.
CREATE INDEX messages_by_author ON messages (author_id, created_at);

-- An account's muted accounts: their messages and challenges no longer
-- reach it.
CREATE TABLE mutes (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    muted_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, muted_id)
);
