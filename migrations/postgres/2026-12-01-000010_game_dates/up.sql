-- The day a game was played, in PGN's form (`2026.12.01`, `1992.??.??`):
-- the day a played game began, an imported game's `Date` tag. Searched by
-- range as text in byte order ("C", whatever the database's collation), which
-- orders these forms by day (a missing month or day sorts at the end of the
-- year or month it is in). Players are searched by name, in any case.
ALTER TABLE games ADD COLUMN played_on TEXT;
UPDATE games SET played_on = to_char(to_timestamp(created_at / 1000) AT TIME ZONE 'UTC', 'YYYY.MM.DD')
    WHERE status <> 'imported';
CREATE INDEX games_by_day ON games (played_on COLLATE "C");
CREATE INDEX games_by_white_name ON games (lower(white_name));
CREATE INDEX games_by_black_name ON games (lower(black_name));
