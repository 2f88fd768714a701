-- A standard game's opening (ECO code and name), from the lichess tables:
-- kept with the game as its moves reach named positions, so that games are
-- listed and searched by it.
ALTER TABLE games ADD COLUMN eco TEXT;
ALTER TABLE games ADD COLUMN opening TEXT;
CREATE INDEX games_by_eco ON games (eco);
