-- Teams: a name (unique whatever its case), and who may join: anyone, or
-- those a captain invited.
CREATE TABLE teams (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    open BOOLEAN NOT NULL,
    created_by TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL
);
CREATE INDEX teams_by_creator ON teams (created_by);

-- A team's members, its captains among them.
CREATE TABLE team_members (
    team_id TEXT NOT NULL REFERENCES teams (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    captain BOOLEAN NOT NULL,
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (team_id, account_id)
);
CREATE INDEX team_members_by_account ON team_members (account_id);

-- Who a captain invited to a team that is not open, until they join.
CREATE TABLE team_invites (
    team_id TEXT NOT NULL REFERENCES teams (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    invited_by TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (team_id, account_id)
);
CREATE INDEX team_invites_by_account ON team_invites (account_id);

-- A team match is a tournament between two teams: the home team's captain
-- organises it, the away team's accepts it; each player signs up for the
-- team they play for. Its capacity is its boards (players a side).
ALTER TABLE tournaments ADD COLUMN home_team_id TEXT REFERENCES teams (id);
ALTER TABLE tournaments ADD COLUMN away_team_id TEXT REFERENCES teams (id);
ALTER TABLE tournaments ADD COLUMN accepted_at BIGINT;
CREATE INDEX tournaments_by_home_team ON tournaments (home_team_id);
CREATE INDEX tournaments_by_away_team ON tournaments (away_team_id);
ALTER TABLE tournament_players ADD COLUMN team_id TEXT REFERENCES teams (id);
