-- The copies stay each account's own, with their keys: a key prefixed
-- with its importer matches no key the earlier server makes, so an import
-- of the same game there makes a new one rather than revealing another's.
SELECT 1;
