-- Each side's finished games, most recently finished first. A page of an
-- account's finished games reads a page of keys along each, merges them
-- and reads that page's rows by id, where it read and sorted every game of
-- the account (two hundred on average at a million games, scattered
-- through the file). Partial on games over, with the status written as
-- `models::game::list` writes it: a planner uses a partial index only when
-- the query's own condition implies it. The status is a column too, so
-- that SQLite reads the keys from the index alone.
CREATE INDEX games_finished_white ON games (white_id, updated_at DESC, id, status)
    WHERE status <> 'started';
CREATE INDEX games_finished_black ON games (black_id, updated_at DESC, id, status)
    WHERE status <> 'started';
