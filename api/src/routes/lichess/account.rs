//! Accounts and games as lichess's clients read them: the caller's profile
//! and the games it plays now, what a token stands for, a user's public
//! profile, a game's PGN.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde_json::{Map, Value, json};

use super::{Answer, base_url, caller, game_info, push_line};
use crate::{
    auth::{self, Auth, MaybeAuth},
    domain::{lichess, pgn},
    error::{ApiError, Code},
    models::account,
    openapi::PGN,
    presence,
    state::AppState,
    stored::GameId,
    views::lichess::{NowPlaying, OnlineQuery, PlayingQuery, StatusQuery, UserStatus},
};

/// The caller's `UserExtended`: any token may read it, as on lichess.
#[get("/api/account")]
pub async fn get_account(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    req: HttpRequest,
) -> Answer {
    let auth = caller(auth, &[])?;
    let (now, base) = (state.clock.now(), base_url(&req));
    let account = state
        .read_own(move |conn| lichess::account(conn, &auth.username, &base, now))
        .await?;
    Ok(HttpResponse::Ok().json(account))
}

/// The most tokens one request may test, as lichess.
const MOST_TOKENS: usize = 1000;

/// `POST /api/token/test`: for each token of the body (separated by
/// commas), the account it stands for, its scopes and when it expires, or
/// null if it is not a live kingpost token.
#[post("/api/token/test")]
pub async fn test_tokens(state: web::Data<AppState>, body: String) -> Answer {
    let tokens: Vec<&str> = body
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() > MOST_TOKENS {
        return Err(ApiError::invalid(
            Code::InvalidBody,
            format!("at most {MOST_TOKENS} tokens at once"),
        )
        .into());
    }
    let mut tested = Map::new();
    for token in tokens {
        let info =
            match auth::authenticate(&state, token.to_owned(), auth::TokenRecord::Primary).await {
                Ok(auth) => {
                    let scopes: Vec<&str> = auth.scopes.iter().map(|s| s.key()).collect();
                    json!({
                        "userId": lichess::user_id(&auth.username),
                        "scopes": scopes.join(","),
                        "expires": auth.expires_at,
                    })
                }
                // Not a token, expired or revoked: null. A busy database is
                // no answer about the token.
                Err(ApiError::Unauthorized(_)) => Value::Null,
                Err(other) => return Err(other.into()),
            };
        tested.insert(token.to_owned(), info);
    }
    Ok(HttpResponse::Ok().json(tested))
}

/// The games the caller plays now that lichess clients can play, those
/// awaiting its move first (`nb`, 9 when left out, at most 50).
#[get("/api/account/playing")]
pub async fn playing(
    state: web::Data<AppState>,
    auth: Result<Auth, ApiError>,
    query: Result<web::Query<PlayingQuery>, actix_web::Error>,
) -> Answer {
    let auth = caller(auth, &[])?;
    let query = query.map_err(|e| ApiError::invalid(Code::InvalidQuery, e.to_string()))?;
    let most = query.nb.unwrap_or(9).clamp(1, 50);
    let account = auth.account_id.clone();
    let mut games = state
        .read_own(move |conn| lichess::under_way(conn, &account))
        .await?;
    // Stable: each group stays soonest deadline first. A game is read
    // whole only if it is shown.
    games.sort_by_key(|game| !game.my_turn);
    let nb_my_turn = games.iter().filter(|game| game.my_turn).count();
    games.truncate(most);
    let mut now_playing = Vec::with_capacity(games.len());
    for game in games {
        now_playing.extend(game_info(&state, game.id.into(), auth.username.clone()).await?);
    }
    let now_playing = now_playing
        .into_iter()
        .map(|game| {
            let status = game.status.name;
            let mut value = json!(game);
            value["status"] = json!(status);
            value
        })
        .collect();
    Ok(HttpResponse::Ok().json(NowPlaying {
        now_playing,
        nb_my_turn,
    }))
}

/// A user's public `User`, as `GET /api/account` gives one's own.
#[get("/api/user/{username}")]
pub async fn user(
    state: web::Data<AppState>,
    username: web::Path<String>,
    req: HttpRequest,
) -> Answer {
    let (now, base) = (state.clock.now(), base_url(&req));
    let username = username.into_inner();
    let account = state
        .read_lagging(move |conn| lichess::account(conn, &username, &base, now))
        .await?;
    Ok(HttpResponse::Ok().json(account))
}

/// A played game's PGN, as kingpost's `/api/v1/games/{id}/pgn` writes it:
/// lichess clients save their games with it.
#[get("/game/export/{id}")]
pub async fn export_game(
    state: web::Data<AppState>,
    auth: MaybeAuth,
    id: web::Path<GameId>,
) -> Answer {
    let id = id.into_inner();
    let text = state
        .read_lagging(move |conn| pgn::game_pgn(conn, auth.reader(), &id))
        .await?;
    Ok(HttpResponse::Ok().content_type(PGN).body(text))
}

/// The most users one status request may name, as lichess.
const MOST_STATUSES: usize = 100;

/// `GET /api/users/status?ids=a,b`: each user named that exists, online
/// while one of its streams is open (the game and event streams of both
/// APIs and kingpost's own).
#[get("/api/users/status")]
pub async fn users_status(
    state: web::Data<AppState>,
    query: Result<web::Query<StatusQuery>, actix_web::Error>,
) -> Answer {
    let query = query.map_err(|e| ApiError::invalid(Code::InvalidQuery, e.to_string()))?;
    let names: Vec<String> = query
        .ids
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect();
    if names.len() > MOST_STATUSES {
        return Err(ApiError::invalid(
            Code::InvalidQuery,
            format!("at most {MOST_STATUSES} ids at once"),
        )
        .into());
    }
    let now = state.clock.now();
    let asked = names.clone();
    let found = state
        .read_lagging(move |conn| {
            let names: Vec<&str> = asked.iter().map(String::as_str).collect();
            Ok(account::find_by_usernames(conn, &names)?)
        })
        .await?;
    // In the order asked, each once.
    let mut statuses = Vec::new();
    for name in &names {
        let key = account::username_key(name);
        if let Some(found) = found
            .iter()
            .find(|a| a.username_key == key && a.deleted_at.is_none())
        {
            if statuses
                .iter()
                .any(|s: &UserStatus| s.id == lichess::user_id(&found.username))
            {
                continue;
            }
            statuses.push(UserStatus {
                id: lichess::user_id(&found.username),
                name: found.username.clone(),
                title: found.bot.then_some("BOT"),
                online: presence::is_online(found, now),
            });
        }
    }
    Ok(HttpResponse::Ok().json(statuses))
}

/// `GET /api/bot/online`: the BOTs online now, as NDJSON of users (`nb`,
/// 50 when left out, at most 300).
#[get("/api/bot/online")]
pub async fn bots_online(
    state: web::Data<AppState>,
    query: Result<web::Query<OnlineQuery>, actix_web::Error>,
    req: HttpRequest,
) -> Answer {
    let query = query.map_err(|e| ApiError::invalid(Code::InvalidQuery, e.to_string()))?;
    let most = query.nb.unwrap_or(50).clamp(1, 300);
    let (now, base) = (state.clock.now(), base_url(&req));
    let users = state
        .read_lagging(move |conn| {
            account::bots_online(conn, now, most)?
                .iter()
                .map(|bot| lichess::account(conn, &bot.username, &base, now))
                .collect::<Result<Vec<_>, ApiError>>()
        })
        .await?;
    let mut out = String::new();
    for online in &users {
        push_line(&mut out, online);
    }
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .body(out))
}
