-- Games found by a position they reached: each move's position by its
-- repetition key (the engine's hash of what the repetition rules compare),
-- and each game's start. The game id follows the key so that a search
-- pages along the index; byte order ("C"), which the search merges its two
-- lists in, whatever the database's own collation.
CREATE INDEX moves_by_position ON moves (position_key, game_id COLLATE "C", ply);
CREATE INDEX games_by_start_position ON games (initial_key, id COLLATE "C");
