-- Each side's finished games, most recently finished first: a page of an
-- account's finished games reads a page along each and merges them, where
-- it read and sorted every game of the account (two hundred on average
-- at a million games, scattered through the file). Partial on games over,
-- with the status written as `models::game::list` writes it: a planner
-- uses a partial index only when the query's own condition implies it.
CREATE INDEX games_finished_white ON games (white_id, updated_at DESC, id)
    WHERE status <> 'started';
CREATE INDEX games_finished_black ON games (black_id, updated_at DESC, id)
    WHERE status <> 'started';
