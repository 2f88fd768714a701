-- Round-robin tournaments: their settings, players (seated by lot at the
-- start, the Berger number) and games (every round's, created at once).
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY NOT NULL,
    organiser_id TEXT NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    rules TEXT NOT NULL,
    start_kind TEXT NOT NULL,
    start_number INTEGER,
    start_fen TEXT,
    -- A Chess960 or Shuffle number drawn for each round rather than one
    -- for all.
    start_per_round BOOLEAN NOT NULL,
    days_per_move INTEGER NOT NULL,
    clock TEXT,
    rated BOOLEAN NOT NULL,
    double_round BOOLEAN NOT NULL,
    capacity INTEGER NOT NULL,
    rating_min INTEGER,
    rating_max INTEGER,
    signup_deadline BIGINT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT
);

CREATE INDEX tournaments_by_status ON tournaments (status, signup_deadline, id);

CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    joined_at BIGINT NOT NULL,
    -- The Berger number, drawn when the tournament starts.
    seat INTEGER,
    withdrawn_at BIGINT,
    -- The games the player had finished on withdrawing: fewer than half
    -- of theirs, and their results are annulled.
    finished_when_withdrawn INTEGER,
    PRIMARY KEY (tournament_id, account_id)
);

CREATE TABLE tournament_games (
    game_id TEXT PRIMARY KEY NOT NULL REFERENCES games (id),
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL
);

CREATE INDEX tournament_games_in_order ON tournament_games (tournament_id, round, board);
