-- Swiss tournaments beside round robins: the format, the number of rounds
-- (fixed at creation, or at the start from the entries), the round paired
-- last (a round is paired when the one before it ends, so that the next
-- pairing reads its results), and the tie-breaks in the order chosen.
ALTER TABLE tournaments ADD COLUMN format TEXT NOT NULL DEFAULT 'round_robin';
ALTER TABLE tournaments ADD COLUMN rounds INTEGER;
ALTER TABLE tournaments ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN tiebreaks TEXT;
-- A Swiss's round deadline: the days a round lasts from its pairing, when
-- the round paired last ends, and what happens to its games still under
-- way then (`draw`: adjudicated draws; `wait`: the round waits for them).
ALTER TABLE tournaments ADD COLUMN round_days INTEGER;
ALTER TABLE tournaments ADD COLUMN adjudication TEXT;
ALTER TABLE tournaments ADD COLUMN round_deadline_at BIGINT;
CREATE INDEX tournaments_by_round_deadline ON tournaments (round_deadline_at);

-- A round a player of a Swiss did not play: the pairing-allocated bye (a
-- point), or absent (no point: withdrawn, or entered after the round).
CREATE TABLE tournament_byes (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    round INTEGER NOT NULL,
    kind TEXT NOT NULL,
    PRIMARY KEY (tournament_id, account_id, round)
);
