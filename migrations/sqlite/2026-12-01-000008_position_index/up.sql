-- Games found by a position they reached: each move's position by its
-- repetition key (the engine's hash of what the repetition rules compare),
-- and each game's start. The game id follows the key so that a search
-- pages along the index.
CREATE INDEX moves_by_position ON moves (position_key, game_id, ply);
CREATE INDEX games_by_start_position ON games (initial_key, id);
