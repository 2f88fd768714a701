-- Packed moves cannot be unpacked in SQL: reverted, a database keeps the
-- moves its server had not packed yet, and only those.
CREATE TABLE IF NOT EXISTS legacy_moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    san TEXT NOT NULL,
    position_key BIGINT NOT NULL,
    played_at BIGINT,
    PRIMARY KEY (game_id, ply)
);
ALTER TABLE legacy_moves RENAME TO moves;
CREATE INDEX moves_by_position ON moves (position_key, game_id COLLATE "C", ply);
CREATE INDEX games_by_start_position ON games (initial_key, id COLLATE "C");
DROP TABLE game_positions;
ALTER TABLE games DROP COLUMN move_times;
ALTER TABLE games DROP COLUMN moves;
