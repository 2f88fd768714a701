CREATE TABLE moves_with_rowid (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    uci TEXT NOT NULL,
    san TEXT NOT NULL,
    position_key BIGINT NOT NULL,
    played_at BIGINT,
    PRIMARY KEY (game_id, ply)
);
INSERT INTO moves_with_rowid (game_id, ply, uci, san, position_key, played_at)
    SELECT game_id, ply, uci, san, position_key, played_at FROM moves ORDER BY game_id, ply;
DROP TABLE moves;
ALTER TABLE moves_with_rowid RENAME TO moves;
CREATE INDEX moves_by_position ON moves (position_key, game_id, ply);
