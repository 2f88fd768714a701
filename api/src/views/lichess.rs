//! The wire types of the lichess-compatible surface (`/api/...` without a
//! version), named and shaped as lichess's published API description
//! (github.com/lichess-org/api, `doc/specs`) has them, so that clients
//! written for lichess's Board API read them unchanged. They are no part of
//! kingpost's own OpenAPI document: lichess's describes them.

use serde::{Deserialize, Serialize};

/// `Variant`: lichess's name of a rule set and start.
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    /// `standard`, `chess960` or `fromPosition`: the keys kingpost's games
    /// share with lichess.
    pub key: &'static str,
    pub name: &'static str,
    pub short: &'static str,
}

/// `Perf` (of `Perfs`): a rating as lichess shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Perf {
    pub games: i32,
    pub rating: i32,
    pub rd: i32,
    /// The progress over the last games: kingpost keeps none, 0.
    pub prog: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prov: bool,
}

/// `Perfs`: the account's correspondence ratings, standard and Chess960.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Perfs {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<Perf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chess960: Option<Perf>,
}

/// `UserExtended`: the answer of `GET /api/account`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// The username in lower case (kingpost's usernames are unique
    /// regardless of case).
    pub id: String,
    pub username: String,
    /// `BOT` for a BOT account; kingpost has no other titles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    pub perfs: Perfs,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen_at: Option<i64>,
    pub url: String,
}

/// `ChallengeUser`.
#[derive(Debug, Clone, Serialize)]
pub struct ChallengeUser {
    pub id: String,
    pub name: String,
    /// `BOT` for a BOT account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    pub rating: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
}

/// `TimeControl`, of a correspondence game.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename = "correspondence", rename_all = "camelCase")]
pub struct TimeControl {
    pub days_per_turn: i32,
}

/// `perf` of a challenge.
#[derive(Debug, Clone, Serialize)]
pub struct ChallengePerf {
    pub icon: &'static str,
    pub name: &'static str,
}

/// `ChallengeJson`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Challenge {
    pub id: String,
    pub url: String,
    /// `created` while open, then `accepted`, `declined` or `canceled`.
    pub status: &'static str,
    pub challenger: ChallengeUser,
    pub dest_user: Option<ChallengeUser>,
    pub variant: Variant,
    pub rated: bool,
    /// Always `correspondence`.
    pub speed: &'static str,
    pub time_control: TimeControl,
    /// The challenger's colour: `white`, `black` or `random`.
    pub color: &'static str,
    pub perf: ChallengePerf,
    /// `out` for the caller's own challenge, `in` for one to the caller.
    pub direction: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_fen: Option<String>,
}

/// `ChallengeDeclinedJson`: a challenge and why it was declined.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclinedChallenge {
    #[serde(flatten)]
    pub challenge: Challenge,
    pub decline_reason: String,
    pub decline_reason_key: String,
}

/// `GameStatus`: lichess's number and name of where a game stands.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GameStatus {
    pub id: i32,
    pub name: &'static str,
}

/// `GameEventOpponent`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Opponent {
    pub id: String,
    pub username: String,
    pub rating: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i32>,
}

/// `GameCompat`: which of lichess's APIs may play the game.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Compat {
    pub bot: bool,
    pub board: bool,
}

/// `GameEventInfo`: a game as the event stream tells of it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfo {
    /// lichess adds a player's secret to the id; kingpost's tokens are the
    /// secret, so it is the game's id.
    pub full_id: String,
    pub game_id: String,
    pub fen: String,
    pub color: &'static str,
    pub last_move: String,
    /// `friend`, or `tournament` for a game of a kingpost tournament.
    pub source: &'static str,
    pub status: GameStatus,
    pub variant: Variant,
    pub speed: &'static str,
    pub perf: &'static str,
    pub rated: bool,
    pub has_moved: bool,
    pub opponent: Opponent,
    pub is_my_turn: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_left: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i32>,
    pub compat: Compat,
    pub id: String,
}

/// A line of `GET /api/stream/event`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    GameStart { game: GameInfo },
    GameFinish { game: GameInfo },
    Challenge { challenge: Challenge },
    ChallengeCanceled { challenge: Challenge },
    ChallengeDeclined { challenge: DeclinedChallenge },
}

/// `GameEventPlayer`.
#[derive(Debug, Clone, Serialize)]
pub struct GamePlayer {
    pub id: String,
    pub name: String,
    /// `BOT` for a BOT account, null otherwise: kingpost has no other titles.
    pub title: Option<&'static str>,
    pub rating: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
}

/// `perf` of a full game.
#[derive(Debug, Clone, Serialize)]
pub struct GamePerf {
    pub name: &'static str,
}

/// `GameStateEvent`: what changes as a game is played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameState {
    /// Always `gameState`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Every move in UCI, separated by spaces.
    pub moves: String,
    /// Milliseconds each side has: the time to its deadline for the side to
    /// move, a whole move's time for the other.
    pub wtime: i64,
    pub btime: i64,
    pub winc: i64,
    pub binc: i64,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wdraw: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bdraw: bool,
}

/// `GameFullEvent`: the first line of a game's stream.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GameFull {
    /// Always `gameFull`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    /// (No `clock`: a correspondence game has none running; lichess leaves
    /// it out for such games.)
    pub variant: Variant,
    pub speed: &'static str,
    pub perf: GamePerf,
    pub rated: bool,
    pub created_at: i64,
    pub white: GamePlayer,
    pub black: GamePlayer,
    /// `startpos` for the usual array, else the start's FEN.
    pub initial_fen: String,
    pub state: GameState,
    pub days_per_turn: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<String>,
}

/// `Ok`: the answer of an action.
#[derive(Debug, Serialize)]
pub struct Done {
    pub ok: bool,
}

/// A user's real-time status, in `GET /api/users/status`.
#[derive(Debug, Serialize)]
pub struct UserStatus {
    pub id: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// While one of the account's streams is open.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub online: bool,
}

/// Which users `GET /api/users/status` tells of.
#[derive(Debug, Deserialize)]
pub struct StatusQuery {
    pub ids: String,
}

/// How many BOTs `GET /api/bot/online` lists.
#[derive(Debug, Deserialize)]
pub struct OnlineQuery {
    pub nb: Option<i64>,
}

/// `GET /api/account/playing`'s answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NowPlaying {
    /// Each a `GameEventInfo` whose `status` is its name alone, as
    /// lichess's answer gives it.
    pub now_playing: Vec<serde_json::Value>,
    /// How many of all the games under way await the caller's move.
    pub nb_my_turn: usize,
}

/// How many games `GET /api/account/playing` lists.
#[derive(Debug, Deserialize)]
pub struct PlayingQuery {
    pub nb: Option<usize>,
}

/// `ChatLineEvent`: a message of a game, in its stream.
#[derive(Debug, Clone, Serialize)]
pub struct ChatLine {
    /// Always `chatLine`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Always `player`: the players' own messages.
    pub room: &'static str,
    pub username: String,
    pub text: String,
}

/// An item of `PlayerGameChat`.
#[derive(Debug, Clone, Serialize)]
pub struct ChatMessage {
    pub text: String,
    pub user: String,
}

/// A message to a game's chat, as lichess's form sends it.
#[derive(Debug, Deserialize)]
pub struct ChatForm {
    pub room: String,
    pub text: String,
}

/// `Error`: lichess's error body.
#[derive(Debug, Serialize)]
pub struct Failure {
    pub error: String,
}

/// The body of `POST /api/challenge/{username}`, as a form or as JSON
/// (lichess takes either). Real-time clocks are read to be refused.
#[derive(Debug, Default, Deserialize)]
pub struct ChallengeRequest {
    #[serde(default)]
    pub rated: Option<bool>,
    pub days: Option<i32>,
    #[serde(rename = "clock.limit")]
    pub clock_limit: Option<i64>,
    #[serde(rename = "clock.increment")]
    pub clock_increment: Option<i64>,
    /// The challenger's colour.
    pub color: Option<String>,
    pub variant: Option<String>,
    pub fen: Option<String>,
}

/// The body of `POST /api/challenge/{id}/decline`.
#[derive(Debug, Default, Deserialize)]
pub struct DeclineRequest {
    pub reason: Option<String>,
}

/// The query of `POST /api/board/game/{id}/move/{move}`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveQuery {
    #[serde(default)]
    pub offering_draw: Option<bool>,
}
