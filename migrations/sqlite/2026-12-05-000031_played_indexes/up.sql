-- The indexes that find a player's games and the games by deadline hold
-- only games with players and deadlines: an imported game, which has
-- neither, was a row in each of seven indexes no query of it reads, written
-- with every game of an import. Every query of them names the player or
-- compares the deadline, which implies the condition, so each still uses
-- its index.
DROP INDEX games_by_white;
DROP INDEX games_by_black;
DROP INDEX games_archive_white;
DROP INDEX games_archive_black;
DROP INDEX games_finished_white;
DROP INDEX games_finished_black;
DROP INDEX games_by_deadline;
CREATE INDEX games_by_white ON games (white_id, status) WHERE white_id IS NOT NULL;
CREATE INDEX games_by_black ON games (black_id, status) WHERE black_id IS NOT NULL;
CREATE INDEX games_archive_white ON games (white_id, created_at, id) WHERE white_id IS NOT NULL;
CREATE INDEX games_archive_black ON games (black_id, created_at, id) WHERE black_id IS NOT NULL;
CREATE INDEX games_finished_white ON games (white_id, updated_at DESC, id, status)
    WHERE status <> 'started' AND white_id IS NOT NULL;
CREATE INDEX games_finished_black ON games (black_id, updated_at DESC, id, status)
    WHERE status <> 'started' AND black_id IS NOT NULL;
CREATE INDEX games_by_deadline ON games (deadline_at, id) WHERE deadline_at IS NOT NULL;
