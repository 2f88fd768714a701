-- The positions of the games a bulk import (`kingpost pgn import`) stores,
-- appended as they come, until the import ends and adds them to the
-- position index at once, in its order: each page of the index is then
-- written once, where a batch at a time wrote nearly a page a row once the
-- index outgrew the page cache. A server starting adds any an import left.
CREATE TABLE staged_positions (
    position_key BIGINT NOT NULL,
    game_id TEXT NOT NULL,
    next SMALLINT NOT NULL,
    ply INTEGER NOT NULL
);
