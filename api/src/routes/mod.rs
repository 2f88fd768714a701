//! The HTTP handlers: each parses its request, calls one domain function
//! through the state (the sign-in also the account's lookup by name), and
//! turns the result into a response.

pub mod accounts;
pub mod annotations;
pub mod challenges;
pub mod collections;
pub mod docs;
pub mod events;
pub mod games;
pub mod lichess;
pub mod long_poll;
pub mod messages;
pub mod notifications;
pub mod pgn;
pub mod positions;
pub mod push;
pub mod query;
pub mod search;
pub mod session;
pub mod teams;
pub mod tokens;
pub mod tournaments;
pub mod users;
pub mod variants;
pub mod web_client;

use utoipa_actix_web::service_config::ServiceConfig;

pub use query::Query;

use crate::error::{ApiError, Code};

/// The page size a list asks for (`limit`), `default` when it asks none:
/// 1 to `max`, or a 422 saying so.
pub fn page_limit(asked: Option<i64>, default: i64, max: i64) -> Result<i64, ApiError> {
    let limit = asked.unwrap_or(default);
    if !(1..=max).contains(&limit) {
        return Err(ApiError::invalid(
            Code::InvalidQuery,
            format!("limit is 1 to {max}"),
        ));
    }
    Ok(limit)
}

/// Whether the request's body is JSON, by its `Content-Type`
/// (`application/json`, or a `+json` type).
pub fn json_body(req: &actix_web::HttpRequest) -> bool {
    req.headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case("application/json") || v.ends_with("+json")
        })
}

/// Every route under `/api/v1`.
pub fn configure(cfg: &mut ServiceConfig<'_>) {
    cfg.service(accounts::create_account)
        .service(accounts::get_account)
        .service(accounts::change_password)
        .service(accounts::delete_account)
        .service(accounts::get_email)
        .service(accounts::set_email)
        .service(accounts::verify_email)
        .service(accounts::forgot_password)
        .service(accounts::reset_password)
        .service(notifications::get_notification_settings)
        .service(notifications::change_notification_settings)
        .service(notifications::get_unsubscribe_page)
        .service(notifications::unsubscribe_notifications)
        .service(push::get_push_public_key)
        .service(push::create_push_subscription)
        .service(push::list_push_subscriptions)
        .service(push::delete_push_subscription)
        .service(accounts::get_vacation)
        .service(accounts::start_vacation)
        .service(accounts::end_vacation)
        .service(messages::list_mutes)
        .service(messages::add_mute)
        .service(messages::delete_mute)
        .service(session::create_session_token)
        .service(session::refresh_session_token)
        .service(tokens::create_personal_token)
        .service(tokens::list_personal_tokens)
        .service(tokens::revoke_token)
        .service(variants::list_variants)
        .service(users::get_user)
        .service(users::get_rating_history)
        .service(users::get_leaderboard)
        .service(challenges::create_challenge)
        .service(challenges::list_challenges)
        .service(challenges::list_seeks)
        .service(challenges::list_incoming_challenges)
        .service(tournaments::create_tournament)
        .service(tournaments::list_tournaments)
        .service(tournaments::get_tournament)
        .service(tournaments::join_tournament)
        .service(tournaments::leave_tournament)
        .service(tournaments::export_tournament_pgn)
        .service(tournaments::export_tournament_trf)
        .service(tournaments::accept_team_match)
        .service(tournaments::set_board_order)
        .service(teams::create_team)
        .service(teams::list_teams)
        .service(teams::get_team)
        .service(teams::join_team)
        .service(teams::leave_team)
        .service(teams::invite_to_team)
        .service(teams::add_team_captain)
        .service(challenges::get_challenge)
        .service(challenges::accept_challenge)
        .service(challenges::decline_challenge)
        .service(challenges::cancel_challenge)
        .service(games::list_games)
        .service(games::get_game)
        .service(games::get_positions)
        .service(games::play_move)
        .service(games::resign_game)
        .service(games::abort_game)
        .service(games::offer_draw)
        .service(games::accept_draw)
        .service(games::decline_draw)
        .service(games::withdraw_draw)
        .service(games::claim_draw)
        .service(games::get_conditionals)
        .service(games::replace_conditionals)
        .service(games::delete_conditionals)
        .service(messages::list_messages)
        .service(messages::create_message)
        .service(annotations::get_annotations)
        .service(annotations::annotate_ply)
        .service(annotations::delete_annotation)
        .service(positions::analyze_position)
        .service(pgn::export_game_pgn)
        .service(pgn::export_user_games)
        .service(pgn::export_monthly_archive)
        .service(pgn::create_import)
        .service(collections::create_collection)
        .service(collections::list_own_collections)
        .service(collections::list_user_collections)
        .service(collections::get_collection)
        .service(collections::update_collection)
        .service(collections::delete_collection)
        .service(collections::list_collection_games)
        .service(collections::export_collection_pgn)
        .service(search::search_positions)
        .service(search::export_position_search)
        .service(search::explore_position)
        .service(search::search_games)
        .service(search::export_game_search)
        .service(events::stream_events)
        .service(events::create_webhook)
        .service(events::list_webhooks)
        .service(events::delete_webhook)
        .service(events::list_webhook_deliveries);
}
