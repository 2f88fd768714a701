//! Teams: made by a player who becomes their first captain, joined by
//! anyone (an open team) or by those a captain invited, left at will. A
//! team always has a captain while it has members: when its last captain
//! leaves, the member there longest becomes one. Teams play team matches
//! (`tournament::team_match`).

use std::collections::HashMap;

use serde_json::json;

use crate::{
    clock::Millis,
    credentials::new_id,
    db::{DbConnection, write_transaction},
    domain::{cursor, events, tournament},
    error::{ApiError, Code},
    models::{
        account,
        team::{self, InviteRow, MemberRow, TeamRow},
        tournament as tournament_rows,
    },
    notify::Outbox,
    stored::{AccountId, TeamId},
    views::{
        CreateTeamRequest, EventKind, PlayerView, TeamList, TeamMemberView, TeamQuery, TeamSummary,
        TeamView, Timestamp, TournamentStatus,
    },
};

/// How long a team's name may be, in characters.
const NAME_LENGTH: std::ops::RangeInclusive<usize> = 2..=40;
/// How long its description may be.
const DESCRIPTION_LENGTH: usize = 1_000;
/// The most teams an account may make.
pub const MOST_MADE: i64 = 10;
/// The most teams an account may belong to.
pub const MOST_JOINED: usize = 50;
/// The most members a team has.
pub const MOST_MEMBERS: usize = 1_000;

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::invalid(Code::InvalidTeam, detail)
}

/// Makes a team, its maker its captain. Its id.
pub fn create(
    conn: &mut DbConnection,
    now: Millis,
    maker: &AccountId,
    request: &CreateTeamRequest,
) -> Result<TeamId, ApiError> {
    let name = request.name.trim();
    if !NAME_LENGTH.contains(&name.chars().count()) || name.chars().any(char::is_control) {
        return Err(invalid(
            "a team's name has 2 to 40 characters, none of them controls",
        ));
    }
    let description = request.description.trim();
    if description.chars().count() > DESCRIPTION_LENGTH
        || description
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(invalid(
            "a description has up to 1,000 characters, no controls but line breaks and tabs",
        ));
    }
    let row = TeamRow {
        id: new_id().into(),
        name: name.to_owned(),
        name_key: team::name_key(name),
        description: description.to_owned(),
        open: request.open,
        created_by: maker.clone(),
        created_at: now,
    };
    write_transaction(conn, |conn| {
        if team::made_by(conn, maker)? >= MOST_MADE {
            return Err(ApiError::invalid(
                Code::TooManyTeams,
                format!("an account makes at most {MOST_MADE} teams"),
            ));
        }
        check_room_to_join(conn, maker)?;
        if team::name_taken(conn, &row.name_key)? {
            return Err(ApiError::Refused {
                code: Code::TeamNameTaken,
                detail: format!("a team is called {name} already"),
            });
        }
        team::insert(conn, &row)?;
        team::add_member(
            conn,
            &MemberRow {
                team_id: row.id.clone(),
                account_id: maker.clone(),
                captain: true,
                joined_at: now,
            },
        )?;
        Ok(row.id)
    })
}

fn check_room_to_join(conn: &mut DbConnection, account: &AccountId) -> Result<(), ApiError> {
    if team::teams_of(conn, account)?.len() >= MOST_JOINED {
        return Err(ApiError::invalid(
            Code::TooManyTeams,
            format!("an account belongs to at most {MOST_JOINED} teams"),
        ));
    }
    Ok(())
}

/// The team, locked for a change of its members.
fn locked(conn: &mut DbConnection, id: &TeamId) -> Result<TeamRow, ApiError> {
    team::find_for_update(conn, id)?.ok_or_else(|| ApiError::NotFound(format!("team {id}")))
}

fn not_a_member() -> ApiError {
    ApiError::Refused {
        code: Code::NotATeamMember,
        detail: "you are not a member of this team".to_owned(),
    }
}

/// Refuses anyone but a captain of the team.
pub fn check_captain(
    conn: &mut DbConnection,
    id: &TeamId,
    account: &AccountId,
) -> Result<(), ApiError> {
    match team::member(conn, id, account)? {
        Some(member) if member.captain => Ok(()),
        _ => Err(ApiError::Forbidden(
            "only a captain of the team may do this".to_owned(),
        )),
    }
}

/// Joins the team: open, or invited to it.
pub fn join(
    conn: &mut DbConnection,
    now: Millis,
    id: &TeamId,
    account: &AccountId,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let row = locked(conn, id)?;
        let members = team::members_of(conn, id)?;
        if members.iter().any(|(m, _)| m.account_id == *account) {
            return Err(ApiError::Refused {
                code: Code::AlreadyJoined,
                detail: "you are a member already".to_owned(),
            });
        }
        if !row.open && !team::invited(conn, id, account)? {
            return Err(ApiError::Refused {
                code: Code::NotInvited,
                detail: "this team takes those its captains invite".to_owned(),
            });
        }
        if members.len() >= MOST_MEMBERS {
            return Err(ApiError::Refused {
                code: Code::TeamFull,
                detail: format!("a team has at most {MOST_MEMBERS} members"),
            });
        }
        check_room_to_join(conn, account)?;
        team::remove_invite(conn, id, account)?;
        team::add_member(
            conn,
            &MemberRow {
                team_id: id.clone(),
                account_id: account.clone(),
                // A team left without members is taken up by whoever joins.
                captain: members.is_empty(),
                joined_at: now,
            },
        )?;
        Ok(())
    })
}

/// Leaves the team, and the team's matches not yet started that the
/// member signed up for. A last captain's place goes to the member there
/// longest.
pub fn leave(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &TeamId,
    account: &AccountId,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        locked(conn, id)?;
        if !team::remove_member(conn, id, account)? {
            return Err(not_a_member());
        }
        let members = team::members_of(conn, id)?;
        if !members.iter().any(|(m, _)| m.captain)
            && let Some((longest, _)) = members.iter().min_by_key(|(m, _)| m.joined_at)
        {
            team::set_captain(conn, id, &longest.account_id, true)?;
        }
        for match_id in tournament_rows::entered_for_team(conn, account, id)? {
            if let Some(row) = tournament_rows::find(conn, &match_id)?
                && row.status == TournamentStatus::Open
            {
                tournament::lifecycle::leave(conn, outbox, now, &match_id, account)?;
            }
        }
        Ok(())
    })
}

/// A captain invites a player to the team (an open team too: the player
/// is told). Told by the event `team_invited`.
pub fn invite(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    id: &TeamId,
    captain: &AccountId,
    username: &str,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        let row = locked(conn, id)?;
        check_captain(conn, id, captain)?;
        let invitee = account::find_by_username(conn, username)?
            .filter(|a| a.deleted_at.is_none())
            .ok_or_else(|| ApiError::NotFound(format!("user {username}")))?;
        if team::member(conn, id, &invitee.id)?.is_some() {
            return Err(ApiError::Refused {
                code: Code::AlreadyJoined,
                detail: format!("{} is a member already", invitee.username),
            });
        }
        if team::invited(conn, id, &invitee.id)? {
            return Ok(());
        }
        team::add_invite(
            conn,
            &InviteRow {
                team_id: id.clone(),
                account_id: invitee.id.clone(),
                invited_by: captain.clone(),
                created_at: now,
            },
        )?;
        let data = json!({"team_id": id, "team": row.name});
        events::record(
            conn,
            outbox,
            now,
            &invitee.id,
            EventKind::TeamInvited,
            None,
            data,
        )?;
        Ok(())
    })
}

/// A captain makes a member a captain too.
pub fn make_captain(
    conn: &mut DbConnection,
    id: &TeamId,
    captain: &AccountId,
    username: &str,
) -> Result<(), ApiError> {
    write_transaction(conn, |conn| {
        locked(conn, id)?;
        check_captain(conn, id, captain)?;
        let member = account::find_by_username(conn, username)?
            .ok_or_else(|| ApiError::NotFound(format!("user {username}")))?;
        if !team::set_captain(conn, id, &member.id, true)? {
            return Err(ApiError::Refused {
                code: Code::NotATeamMember,
                detail: format!("{} is not a member of this team", member.username),
            });
        }
        Ok(())
    })
}

/// Takes a deleted account off its teams (as leaving them) and its
/// invitations.
pub fn forget(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    account: &AccountId,
) -> Result<(), ApiError> {
    for id in team::teams_of(conn, account)? {
        leave(conn, outbox, now, &id, account)?;
    }
    team::remove_invites_of(conn, account)?;
    Ok(())
}

fn summary(row: &TeamRow, member_count: i64) -> TeamSummary {
    TeamSummary {
        id: row.id.to_string(),
        name: row.name.clone(),
        description: row.description.clone(),
        open: row.open,
        member_count,
        created_at: Timestamp(row.created_at),
    }
}

/// A team with its members and matches.
pub fn view(conn: &mut DbConnection, id: &TeamId) -> Result<TeamView, ApiError> {
    let row = team::find(conn, id)?.ok_or_else(|| ApiError::NotFound(format!("team {id}")))?;
    let members = team::members_of(conn, id)?;
    let accounts: Vec<&AccountId> = members.iter().map(|(m, _)| &m.account_id).collect();
    let bots = account::bots_among(conn, &accounts)?;
    let matches = tournament::view::matches_of_team(conn, id)?;
    Ok(TeamView {
        summary: summary(&row, members.len() as i64),
        members: members
            .iter()
            .map(|(m, username)| TeamMemberView {
                player: PlayerView {
                    username: username.clone(),
                    bot: bots.contains(&m.account_id),
                },
                captain: m.captain,
                joined_at: Timestamp(m.joined_at),
            })
            .collect(),
        matches,
    })
}

/// A page of teams, newest first.
pub fn list(conn: &mut DbConnection, query: &TeamQuery, limit: i64) -> Result<TeamList, ApiError> {
    let after = query.cursor.as_deref().map(cursor::decode).transpose()?;
    let member = match &query.member {
        Some(username) => match account::find_by_username(conn, username)? {
            Some(found) => Some(found.id),
            // Nobody by that name belongs to any team.
            None => {
                return Ok(TeamList {
                    teams: Vec::new(),
                    next_cursor: None,
                });
            }
        },
        None => None,
    };
    let mut rows = team::list(conn, member.as_ref(), after, limit + 1)?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let ids: Vec<&TeamId> = rows.iter().map(|r| &r.id).collect();
    let counts: HashMap<TeamId, i64> = team::member_counts(conn, &ids)?.into_iter().collect();
    let next_cursor = rows
        .last()
        .filter(|_| more)
        .map(|last| cursor::encode(last.created_at, last.id.as_str()));
    Ok(TeamList {
        teams: rows
            .iter()
            .map(|r| summary(r, counts.get(&r.id).copied().unwrap_or_default()))
            .collect(),
        next_cursor,
    })
}
