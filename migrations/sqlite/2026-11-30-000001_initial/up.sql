-- Times are milliseconds since the Unix epoch (UTC), the same in both dialects.
CREATE TABLE settings (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);

CREATE TABLE accounts (
    id TEXT PRIMARY KEY NOT NULL,
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- Every issued JWT, by its jti: revocation and expiry are checked here.
CREATE TABLE tokens (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind TEXT NOT NULL,
    name TEXT,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX tokens_by_account ON tokens (account_id, kind);

-- Refresh tokens by the SHA-256 of their value; one family per sign-in.
CREATE TABLE refresh_tokens (
    id TEXT PRIMARY KEY NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    family TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family);

CREATE TABLE games (
    id TEXT PRIMARY KEY NOT NULL,
    rules TEXT NOT NULL,
    start_kind TEXT NOT NULL,
    start_number INTEGER,
    initial_fen TEXT NOT NULL,
    initial_key BIGINT NOT NULL,
    current_fen TEXT NOT NULL,
    ply INTEGER NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    termination TEXT,
    -- The players' accounts; none for a game imported from PGN.
    white_id TEXT REFERENCES accounts (id),
    black_id TEXT REFERENCES accounts (id),
    -- The players' names: usernames, or the PGN tags of an imported game.
    white_name TEXT NOT NULL,
    black_name TEXT NOT NULL,
    to_move_id TEXT REFERENCES accounts (id),
    days_per_move INTEGER NOT NULL,
    deadline_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- For games imported from PGN: who imported it, a key that recognises
    -- the same game imported again, and the tags of the file (JSON).
    imported_by TEXT REFERENCES accounts (id),
    import_key TEXT UNIQUE,
    source_tags TEXT
);
CREATE INDEX games_by_white ON games (white_id, status, deadline_at);
CREATE INDEX games_by_black ON games (black_id, status, deadline_at);
CREATE INDEX games_by_mover ON games (to_move_id, deadline_at);
-- Archives: each side's games in order of creation.
CREATE INDEX games_archive_white ON games (white_id, created_at, id);
CREATE INDEX games_archive_black ON games (black_id, created_at, id);

CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    san TEXT NOT NULL,
    position_key BIGINT NOT NULL,
    -- Unknown for some moves of imported games.
    played_at BIGINT,
    PRIMARY KEY (game_id, ply)
);

CREATE TABLE challenges (
    id TEXT PRIMARY KEY NOT NULL,
    challenger_id TEXT NOT NULL REFERENCES accounts (id),
    opponent_id TEXT REFERENCES accounts (id),
    rules TEXT NOT NULL,
    start_kind TEXT NOT NULL,
    start_number INTEGER,
    start_fen TEXT,
    days_per_move INTEGER NOT NULL,
    color TEXT NOT NULL,
    status TEXT NOT NULL,
    game_id TEXT REFERENCES games (id),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX challenges_by_challenger ON challenges (challenger_id, status);
CREATE INDEX challenges_by_opponent ON challenges (opponent_id, status);
