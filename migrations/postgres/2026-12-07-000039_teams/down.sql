ALTER TABLE tournament_players DROP COLUMN team_id;
DROP INDEX tournaments_by_away_team;
DROP INDEX tournaments_by_home_team;
ALTER TABLE tournaments DROP COLUMN accepted_at;
ALTER TABLE tournaments DROP COLUMN away_team_id;
ALTER TABLE tournaments DROP COLUMN home_team_id;
DROP TABLE team_invites;
DROP TABLE team_members;
DROP TABLE teams;
