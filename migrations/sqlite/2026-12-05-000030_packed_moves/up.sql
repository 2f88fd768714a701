-- A game's moves packed in its row (docs/spec/packed-moves.md), where a
-- row a move held each move's UCI, SAN and position again: the moves are
-- read with the game, and everything else about them is its replay.
ALTER TABLE games ADD COLUMN moves BLOB NOT NULL DEFAULT x'01';
-- When each move was played (packed-moves.md, "Move times"); NULL when no
-- move's time is known.
ALTER TABLE games ADD COLUMN move_times BLOB;

-- The position index: each position a game stood in (its start included),
-- with the number of the move it played from there (-1: none yet, or the
-- game ended there) and the first ply it stood there. A search pages along
-- the key by game id; the explorer counts the moves of one key. No foreign
-- key: a game's rows are found by its positions, and checking one on every
-- deleted game would want a second index as large as this one.
CREATE TABLE game_positions (
    position_key BIGINT NOT NULL,
    game_id TEXT NOT NULL,
    next SMALLINT NOT NULL,
    ply INTEGER NOT NULL,
    PRIMARY KEY (position_key, game_id, next)
) WITHOUT ROWID;
-- Every game's start; the server's first start after this migration writes
-- the positions of the games that have moves, from the rows it packs.
INSERT INTO game_positions (position_key, game_id, next, ply)
    SELECT initial_key, id, -1, 0 FROM games;
DROP INDEX games_by_start_position;
DROP INDEX moves_by_position;
ALTER TABLE moves RENAME TO legacy_moves;
