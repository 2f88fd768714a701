-- Rated play: Glicko-2 ratings, one pool per rule set and start family
-- (docs/ratings.md says why these pools, thresholds and periods).

-- Whether a game, and the game a challenge starts, is rated.
ALTER TABLE challenges ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;

-- An account's rating in one pool, as its last rated game left it.
CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    rules TEXT NOT NULL,
    start TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    -- When its last rated game finished: inactivity counts from here.
    rated_at BIGINT NOT NULL,
    -- Until when the deviation, growing with inactivity, stays below the
    -- provisional threshold; null while provisional. Leaderboards list the
    -- ratings established now.
    established_until BIGINT,
    PRIMARY KEY (account_id, rules, start)
);

CREATE INDEX ratings_leaderboard ON ratings (rules, start, rating, account_id);

-- Each side of a rated game: the rating it started with and, once the game
-- finished, the rating it left. A game is rated when it has these rows.
CREATE TABLE game_ratings (
    game_id TEXT NOT NULL REFERENCES games (id),
    color TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    rules TEXT NOT NULL,
    start TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    -- Set once, in the transaction that finished the game.
    rating_after DOUBLE PRECISION,
    deviation_after DOUBLE PRECISION,
    rating_change DOUBLE PRECISION,
    rated_at BIGINT,
    PRIMARY KEY (game_id, color)
);

CREATE INDEX game_ratings_history ON game_ratings (account_id, rules, start, rated_at);

-- When the account last acted in a game (a move, an offer, a resignation),
-- for its profile.
ALTER TABLE accounts ADD COLUMN last_active_at BIGINT;
