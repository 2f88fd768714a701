-- The comments, NAGs and variations of an imported game, as read from its
-- file and checked under its rules: JSON, the comment before the first move
-- and the notes of each annotated mainline move by ply. Read only to write
-- the game's PGN and its annotations, never on the move path.
CREATE TABLE game_notes (
    game_id TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    notes TEXT NOT NULL
);

-- Players' annotations of their finished games: a comment and NAGs on a ply
-- (ply 0: on the game as a whole), each player's their own.
CREATE TABLE annotations (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    author_id TEXT NOT NULL REFERENCES accounts (id),
    comment TEXT,
    -- NAG numbers, space-separated, ascending.
    nags TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply, author_id)
);
