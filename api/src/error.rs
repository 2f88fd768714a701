//! The one error type of the API, answered as RFC 9457
//! `application/problem+json` with a stable `type` and `code` per cause.
//! Internal causes are logged, never sent.

use actix_web::{
    HttpRequest, HttpResponse, ResponseError,
    error::{JsonPayloadError, PathError, QueryPayloadError},
    http::{StatusCode, header},
};
use serde::Serialize;
use utoipa::ToSchema;

use crate::stored::text_enum;

text_enum! {
    /// The kind of problem as a snake_case word, for programs: one per
    /// cause, stable.
    #[derive(ToSchema)]
    pub enum Code ("problem code") {
        MalformedRequest = "malformed_request",
        PayloadTooLarge = "payload_too_large",
        InvalidMoveSyntax = "invalid_move_syntax",
        IllegalMove = "illegal_move",
        // 422: a request well formed but not acceptable.
        InvalidBody = "invalid_body",
        InvalidQuery = "invalid_query",
        InvalidConditionals = "invalid_conditionals",
        InvalidCursor = "invalid_cursor",
        InvalidDaysPerMove = "invalid_days_per_move",
        InvalidClock = "invalid_clock",
        InvalidFen = "invalid_fen",
        InvalidIdempotencyKey = "invalid_idempotency_key",
        InvalidLifetime = "invalid_lifetime",
        InvalidPassword = "invalid_password",
        /// A password given to confirm a change is not the account's.
        WrongPassword = "wrong_password",
        InvalidScopes = "invalid_scopes",
        InvalidStart = "invalid_start",
        InvalidTokenName = "invalid_token_name",
        InvalidUsername = "invalid_username",
        InvalidWebhook = "invalid_webhook",
        InvalidCollectionName = "invalid_collection_name",
        InvalidAnnotation = "invalid_annotation",
        InvalidMessage = "invalid_message",
        InvalidEmail = "invalid_email",
        /// An hour or a time zone the notification settings cannot take.
        InvalidNotificationSettings = "invalid_notification_settings",
        /// A link's token that is used, expired or unknown.
        InvalidToken = "invalid_token",
        /// The server sends no e-mail.
        EmailOff = "email_off",
        /// A push subscription the server cannot use.
        InvalidSubscription = "invalid_subscription",
        /// The server sends no Web Push.
        PushOff = "push_off",
        UnknownRules = "unknown_rules",
        SelfChallenge = "self_challenge",
        UnratedStart = "unrated_start",
        InvalidRatingRange = "invalid_rating_range",
        InvalidTournament = "invalid_tournament",
        InvalidTeam = "invalid_team",
        TooManyWebhooks = "too_many_webhooks",
        TooManySubscriptions = "too_many_subscriptions",
        TooManyCollections = "too_many_collections",
        TooManyTokens = "too_many_tokens",
        TooManyChallenges = "too_many_challenges",
        TooManyTournaments = "too_many_tournaments",
        TooManyTeams = "too_many_teams",
        AlreadyOnVacation = "already_on_vacation",
        NoVacationLeft = "no_vacation_left",
        Unauthorized = "unauthorized",
        InvalidCredentials = "invalid_credentials",
        RefreshTokenReused = "refresh_token_reused",
        InsufficientScope = "insufficient_scope",
        Forbidden = "forbidden",
        NotYourTurn = "not_your_turn",
        NotAPlayer = "not_a_player",
        NotFound = "not_found",
        UsernameTaken = "username_taken",
        StalePly = "stale_ply",
        GameFinished = "game_finished",
        ChallengeClosed = "challenge_closed",
        // 409: refused in the state the game or the request is in.
        AbortRefused = "abort_refused",
        ClaimRefused = "claim_refused",
        NoDrawOffer = "no_draw_offer",
        NotOpponentsTurn = "not_opponents_turn",
        OutsideRatingRange = "outside_rating_range",
        TournamentClosed = "tournament_closed",
        TournamentFull = "tournament_full",
        AlreadyJoined = "already_joined",
        NotJoined = "not_joined",
        /// A report asked of a round robin, or of a Swiss before its first round.
        NotASwiss = "not_a_swiss",
        CollectionNameTaken = "collection_name_taken",
        TeamNameTaken = "team_name_taken",
        TeamFull = "team_full",
        /// A team that is not open, joined without a captain's invitation.
        NotInvited = "not_invited",
        /// Not a member of the team (or of either team of a match).
        NotATeamMember = "not_a_team_member",
        GameUnderWay = "game_under_way",
        /// Only an account that has never played may become a BOT.
        HasPlayed = "has_played",
        /// A BOT on the Board API, or an account not a BOT on the Bot API.
        WrongAccountKind = "wrong_account_kind",
        /// A rated game with a BOT: games with BOTs are casual.
        RatedWithBot = "rated_with_bot",
        IdempotencyKeyInUse = "idempotency_key_in_use",
        IdempotencyKeyReused = "idempotency_key_reused",
        RateLimited = "rate_limited",
        ServiceBusy = "service_busy",
        InternalError = "internal_error",
    }
}

/// A problem report (RFC 9457).
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the kind of problem; stable, one per `code`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A short summary of the kind of problem.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// What went wrong in this request.
    pub detail: String,
    pub code: Code,
    /// For `stale_ply`: the ply the game is at now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_ply: Option<i32>,
}

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    MalformedRequest(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{detail}")]
    Invalid { code: Code, detail: String },
    #[error("{0}")]
    InvalidMoveSyntax(String),
    #[error("{0}")]
    IllegalMove(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("wrong username or password")]
    InvalidCredentials,
    #[error("this refresh token was already used; every token of its sign-in is now revoked")]
    RefreshTokenReused,
    #[error("this token lacks the `{0}` scope")]
    InsufficientScope(&'static str),
    #[error("{0}")]
    Forbidden(String),
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("you do not play in this game")]
    NotAPlayer,
    #[error("not found: {0}")]
    NotFound(String),
    #[error("the username `{0}` is taken")]
    UsernameTaken(String),
    #[error("the move was computed for ply {sent}, but the game is at ply {current}")]
    StalePly { sent: i32, current: i32 },
    #[error("the game is over")]
    GameFinished,
    #[error("the challenge is no longer open")]
    ChallengeClosed,
    /// A request the game's state does not allow, with its own code.
    #[error("{detail}")]
    Refused { code: Code, detail: String },
    #[error("{detail}")]
    RateLimited { retry_after: u64, detail: String },
    /// The database is busy or out of connections: a passing state, never
    /// the client's fault; retry after the seconds given.
    #[error("the service is busy: {cause}")]
    Unavailable { retry_after: u64, cause: String },
    /// The connection to the database was lost mid-request (a restart, a
    /// failover): a change sent may or may not have been made, since the
    /// commit may have been the statement that lost it. Retry after a
    /// second, reading first; a move's `ply` keeps a retry from playing
    /// twice.
    #[error("the database connection was lost: {0}")]
    ConnectionLost(String),
    /// The database cannot write: its disk is full, or it is read-only.
    /// Nothing was changed; it passes when the operator acts, so clients
    /// are told to wait longer than for a busy database.
    #[error("the database cannot write: {0}")]
    Unwritable(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    pub fn invalid(code: Code, detail: impl Into<String>) -> ApiError {
        ApiError::Invalid {
            code,
            detail: detail.into(),
        }
    }

    /// The stable machine-readable name of the cause.
    pub fn code(&self) -> Code {
        match self {
            ApiError::MalformedRequest(_) => Code::MalformedRequest,
            ApiError::PayloadTooLarge(_) => Code::PayloadTooLarge,
            ApiError::Invalid { code, .. } => *code,
            ApiError::InvalidMoveSyntax(_) => Code::InvalidMoveSyntax,
            ApiError::IllegalMove(_) => Code::IllegalMove,
            ApiError::Unauthorized(_) => Code::Unauthorized,
            ApiError::InvalidCredentials => Code::InvalidCredentials,
            ApiError::RefreshTokenReused => Code::RefreshTokenReused,
            ApiError::InsufficientScope(_) => Code::InsufficientScope,
            ApiError::Forbidden(_) => Code::Forbidden,
            ApiError::NotYourTurn => Code::NotYourTurn,
            ApiError::NotAPlayer => Code::NotAPlayer,
            ApiError::NotFound(_) => Code::NotFound,
            ApiError::UsernameTaken(_) => Code::UsernameTaken,
            ApiError::StalePly { .. } => Code::StalePly,
            ApiError::GameFinished => Code::GameFinished,
            ApiError::ChallengeClosed => Code::ChallengeClosed,
            ApiError::Refused { code, .. } => *code,
            ApiError::RateLimited { .. } => Code::RateLimited,
            ApiError::Unavailable { .. }
            | ApiError::ConnectionLost(_)
            | ApiError::Unwritable(_) => Code::ServiceBusy,
            ApiError::Internal(_) => Code::InternalError,
        }
    }

    fn title(&self) -> &'static str {
        match self {
            ApiError::MalformedRequest(_) => "The request could not be read",
            ApiError::PayloadTooLarge(_) => "The request body is too large",
            ApiError::Invalid { .. } => "The request is invalid",
            ApiError::InvalidMoveSyntax(_) => "The move is not in UCI or SAN",
            ApiError::IllegalMove(_) => "The move is illegal",
            ApiError::Unauthorized(_)
            | ApiError::InvalidCredentials
            | ApiError::RefreshTokenReused => "Authentication failed",
            ApiError::InsufficientScope(_) | ApiError::Forbidden(_) => "Not allowed",
            ApiError::NotYourTurn => "Not your turn",
            ApiError::NotAPlayer => "Not a player of this game",
            ApiError::NotFound(_) => "Not found",
            ApiError::UsernameTaken(_) => "Username taken",
            ApiError::StalePly { .. } => "The game has moved on",
            ApiError::GameFinished => "The game is over",
            ApiError::ChallengeClosed => "The challenge is closed",
            ApiError::Refused { .. } => "Not possible in this state of the game",
            ApiError::RateLimited { .. } => "Too many requests",
            ApiError::Unavailable { .. }
            | ApiError::ConnectionLost(_)
            | ApiError::Unwritable(_) => "The service is busy",
            ApiError::Internal(_) => "Internal error",
        }
    }

    pub fn to_problem(&self) -> Problem {
        let status = self.status_code();
        let detail = match self {
            // Never send internal causes.
            ApiError::Internal(_) => "the server failed; the failure is logged".to_owned(),
            ApiError::Unavailable { retry_after, .. } => {
                format!("the service is busy; nothing was changed: try again in {retry_after} s")
            }
            ApiError::ConnectionLost(_) => format!(
                "the connection to the database was lost: a change sent may or may not have \
                 been made; read before sending it again (a move's ply keeps it from being \
                 played twice), in {CONNECTION_LOST_RETRY_AFTER} s"
            ),
            ApiError::Unwritable(_) => format!(
                "the service cannot store changes now; nothing was changed: try again in \
                 {UNWRITABLE_RETRY_AFTER} s"
            ),
            other => other.to_string(),
        };
        Problem {
            kind: format!(
                "urn:kingpost:problem:{}",
                self.code().key().replace('_', "-")
            ),
            title: self.title().to_owned(),
            status: status.as_u16(),
            detail,
            code: self.code(),
            current_ply: match self {
                ApiError::StalePly { current, .. } => Some(*current),
                _ => None,
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::MalformedRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Invalid { .. }
            | ApiError::InvalidMoveSyntax(_)
            | ApiError::IllegalMove(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unauthorized(_)
            | ApiError::InvalidCredentials
            | ApiError::RefreshTokenReused => StatusCode::UNAUTHORIZED,
            ApiError::InsufficientScope(_)
            | ApiError::Forbidden(_)
            | ApiError::NotYourTurn
            | ApiError::NotAPlayer => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::UsernameTaken(_)
            | ApiError::StalePly { .. }
            | ApiError::GameFinished
            | ApiError::ChallengeClosed
            | ApiError::Refused { .. } => StatusCode::CONFLICT,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable { .. }
            | ApiError::ConnectionLost(_)
            | ApiError::Unwritable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(cause) => tracing::error!(%cause, "internal error"),
            ApiError::Unavailable { cause, .. } => tracing::warn!(%cause, "busy"),
            ApiError::ConnectionLost(cause) => tracing::warn!(%cause, "database connection lost"),
            ApiError::Unwritable(cause) => tracing::error!(
                %cause,
                "the database cannot write: its disk is full or it is read-only"
            ),
            _ => {}
        }
        let mut response = HttpResponse::build(self.status_code());
        response.content_type("application/problem+json");
        if self.status_code() == StatusCode::UNAUTHORIZED {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"kingpost\""));
        }
        if let ApiError::RateLimited { retry_after, .. }
        | ApiError::Unavailable { retry_after, .. } = self
        {
            response.insert_header((header::RETRY_AFTER, retry_after.to_string()));
        }
        if let ApiError::Unwritable(_) = self {
            response.insert_header((header::RETRY_AFTER, UNWRITABLE_RETRY_AFTER.to_string()));
        }
        if let ApiError::ConnectionLost(_) = self {
            response.insert_header((header::RETRY_AFTER, CONNECTION_LOST_RETRY_AFTER.to_string()));
        }
        response.json(self.to_problem())
    }
}

/// Seconds a client is asked to wait after the database connection was lost.
const CONNECTION_LOST_RETRY_AFTER: u64 = 1;

/// Whether a database error is the connection lost mid-request: the
/// server went away (a restart, a failover) or ended the session.
fn is_connection_lost(e: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    match e {
        Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _) => true,
        Error::DatabaseError(_, info) => {
            let message = info.message();
            ["terminating connection", "server closed the connection"]
                .iter()
                .any(|lost| message.contains(lost))
        }
        _ => false,
    }
}

/// Whether a database error is the database being busy (locked, in a
/// conflict it asks to retry, out of connections, starting) rather than
/// a fault: the request changed nothing and may be sent again.
fn is_busy(e: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    match e {
        Error::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => true,
        Error::DatabaseError(_, info) => {
            let message = info.message();
            [
                "database is locked",
                "database table is locked",
                "deadlock detected",
                "too many clients",
                "the database system is starting up",
                "the database system is shutting down",
            ]
            .iter()
            .any(|busy| message.contains(busy))
        }
        _ => false,
    }
}

/// Seconds a client is asked to wait when the database cannot write.
const UNWRITABLE_RETRY_AFTER: u64 = 30;

/// Whether a database error says that the database cannot write: its disk
/// (or quota) is full, or it is read-only (a file opened so, a Postgres
/// standby or a read-only transaction default). Never the client's fault.
fn is_unwritable(e: &diesel::result::Error) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    match e {
        Error::DatabaseError(DatabaseErrorKind::ReadOnlyTransaction, _) => true,
        Error::DatabaseError(_, info) => {
            let message = info.message();
            [
                // SQLite: SQLITE_FULL, SQLITE_READONLY, and the I/O error a
                // write to a full disk's journal or WAL can give instead.
                "database or disk is full",
                "readonly database",
                "disk I/O error",
                // Postgres: ENOSPC and EDQUOT as it writes them, and a
                // standby's refusal.
                "No space left on device",
                "Disk quota exceeded",
                "in a read-only transaction",
                "during recovery",
            ]
            .iter()
            .any(|cause| message.contains(cause))
        }
        _ => false,
    }
}

/// A move text refused by the rules: bad notation, or no (single) legal move.
impl From<kingpost_core::MoveError> for ApiError {
    fn from(e: kingpost_core::MoveError) -> ApiError {
        match e {
            kingpost_core::MoveError::Syntax { .. } => ApiError::InvalidMoveSyntax(e.to_string()),
            kingpost_core::MoveError::Illegal { .. }
            | kingpost_core::MoveError::Ambiguous { .. } => ApiError::IllegalMove(e.to_string()),
        }
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(e: diesel::result::Error) -> ApiError {
        if is_unwritable(&e) {
            ApiError::Unwritable(format!("database: {e}"))
        } else if is_connection_lost(&e) {
            ApiError::ConnectionLost(format!("database: {e}"))
        } else if is_busy(&e) {
            ApiError::Unavailable {
                retry_after: 1,
                cause: format!("database: {e}"),
            }
        } else {
            ApiError::Internal(format!("database: {e}"))
        }
    }
}

/// No connection could be had from the pool in time: every one is in use,
/// or the database does not answer.
impl From<diesel::r2d2::PoolError> for ApiError {
    fn from(e: diesel::r2d2::PoolError) -> ApiError {
        ApiError::Unavailable {
            retry_after: 1,
            cause: format!("database pool: {e}"),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(e: actix_web::error::BlockingError) -> ApiError {
        ApiError::Internal(format!("blocking task: {e}"))
    }
}

/// Turns a JSON body that cannot be read into a problem: 413 when too large,
/// 400 when not JSON, 422 when JSON of the wrong shape.
pub fn json_error(err: JsonPayloadError, _req: &HttpRequest) -> actix_web::Error {
    match err {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => {
            ApiError::PayloadTooLarge(format!("the body is larger than {limit} bytes"))
        }
        JsonPayloadError::ContentType => ApiError::MalformedRequest(
            "the body must be JSON (Content-Type: application/json)".to_owned(),
        ),
        JsonPayloadError::Deserialize(e) if e.is_data() => {
            ApiError::invalid(Code::InvalidBody, e.to_string())
        }
        other => ApiError::MalformedRequest(other.to_string()),
    }
    .into()
}

/// A query string that cannot be read.
pub fn query_error(err: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::invalid(Code::InvalidQuery, err.to_string()).into()
}

/// A path parameter that cannot be read.
pub fn path_error(err: PathError, _req: &HttpRequest) -> actix_web::Error {
    ApiError::NotFound(format!("path: {err}")).into()
}
