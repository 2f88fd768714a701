-- Seeks: a challenge open to anyone may ask for opponents whose rating in
-- its pool lies in a range (both bounds inclusive).
ALTER TABLE challenges ADD COLUMN rating_min INTEGER;
ALTER TABLE challenges ADD COLUMN rating_max INTEGER;

-- The list of open seeks, newest first.
CREATE INDEX challenges_open_by_time ON challenges (status, created_at, id);
