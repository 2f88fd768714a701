-- A Swiss round's pairs not yet written as games. A round of hundreds of
-- games is written a few games a change, so that other players' moves
-- never wait for all of it; the pairs are stored first, so that a stop
-- between two steps leaves the rest for the sweep, as paired.
CREATE TABLE tournament_pairings (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    round INTEGER NOT NULL,
    board INTEGER NOT NULL,
    white_id TEXT NOT NULL REFERENCES accounts (id),
    black_id TEXT NOT NULL REFERENCES accounts (id),
    -- The round's Chess960 or Shuffle array, drawn once for all its games.
    start_number INTEGER,
    PRIMARY KEY (tournament_id, round, board)
);
CREATE INDEX tournament_pairings_by_white ON tournament_pairings (white_id);
CREATE INDEX tournament_pairings_by_black ON tournament_pairings (black_id);
