-- Every move changes its game's deadline and side to move, so each index
-- holding them is an entry a move moves: only the sweep's index keeps the
-- deadline. A player's games are found by player and status (their lists
-- join the games as White and as Black and are sorted after); the side to
-- move is filtered among them.
--
-- The sweep's index leads with the deadline (only games under way have
-- one), then the id it pages by. With the status first, SQLite's planner
-- (without statistics) took it for `status = ?` and read every game under
-- way to list one player's.
DROP INDEX games_by_white;
DROP INDEX games_by_black;
DROP INDEX games_by_mover;
DROP INDEX games_by_deadline;
CREATE INDEX games_by_white ON games (white_id, status);
CREATE INDEX games_by_black ON games (black_id, status);
CREATE INDEX games_by_deadline ON games (deadline_at, id);
