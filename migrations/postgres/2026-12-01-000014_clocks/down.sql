ALTER TABLE games DROP COLUMN waiting_bank;
ALTER TABLE games DROP COLUMN clock;
ALTER TABLE challenges DROP COLUMN clock;
