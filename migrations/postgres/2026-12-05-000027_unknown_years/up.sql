-- A date without its year (`????.??.??`) is no day: it sorted after every
-- year and matched every date filter. Imports now store none for it.
UPDATE games SET played_on = NULL WHERE played_on LIKE '????%';
