-- When the side to move began its turn: vacation time is counted from it.
ALTER TABLE games ADD COLUMN turn_started_at BIGINT NOT NULL DEFAULT 0;
UPDATE games SET turn_started_at = updated_at;
-- The account whose draw offer stands, if any.
ALTER TABLE games ADD COLUMN draw_offer_by TEXT REFERENCES accounts (id);
CREATE INDEX games_by_deadline ON games (status, deadline_at);

-- Vacation: the balance, when the next month's allowance is granted, and
-- the start of the vacation under way, if any.
ALTER TABLE accounts ADD COLUMN vacation_balance BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_next_grant_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN vacation_since BIGINT;
UPDATE accounts SET vacation_next_grant_at = created_at;

-- A player's conditional moves in a game: lines of UCI moves, JSON.
CREATE TABLE conditionals (
    game_id TEXT NOT NULL REFERENCES games (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    lines TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, account_id)
);
