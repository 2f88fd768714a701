ALTER TABLE games DROP COLUMN holds_conditionals;
