//! The life of a game: its position rebuilt from the row; every change a
//! player asks for applied in one transaction after the clock is checked,
//! and stored only if nobody changed the game meanwhile; deadlines,
//! timeouts, draws and conditional moves; the view clients read.

use kingpost_core::{Color, Move, MoveError, Outcome, Position, Rules, Start, repetition_outcome};

use serde_json::json;

use crate::{
    clock::{DAY, Millis, rfc3339},
    db::{DbConnection, write_transaction},
    domain::{
        challenge::DAYS_PER_MOVE,
        conditionals,
        events::{self, EventKind},
        vacation,
    },
    error::ApiError,
    models::{
        account::{self, Account},
        game::{self, GameResult, GameRow, GameStatus, MoveRow, StartKind, Termination},
    },
    notify::{Outbox, game_signal},
    views::{
        GamePlayerView, GameState, GameView, LegalMoveView, MoveAnswer, MoveView, Side, StartSpec,
    },
};

/// The start a game row records.
pub fn start_of(row: &GameRow) -> StartSpec {
    spec_from_parts(row.start_kind, row.start_number, &row.initial_fen)
}

/// A start spec from its stored parts (the FEN is that of a `fen` start).
pub fn spec_from_parts(kind: StartKind, number: Option<i32>, fen: &str) -> StartSpec {
    let id = number.and_then(|n| u16::try_from(n).ok());
    match kind {
        StartKind::Standard => StartSpec::Standard {},
        StartKind::Chess960 => StartSpec::Chess960 { id },
        StartKind::Shuffle => StartSpec::Shuffle { id },
        StartKind::Prechess => StartSpec::Prechess {},
        StartKind::Fen => StartSpec::Fen {
            fen: fen.to_owned(),
        },
    }
}

/// The core's start for a resolved spec (numbers drawn already).
pub fn core_start(spec: &StartSpec) -> Start {
    match spec {
        StartSpec::Standard {} => Start::Standard,
        StartSpec::Chess960 { id } => Start::Chess960(id.unwrap_or(kingpost_core::USUAL_ARRAY)),
        StartSpec::Shuffle { id } => Start::Shuffle(id.unwrap_or(kingpost_core::USUAL_ARRAY)),
        StartSpec::Prechess {} => Start::Prechess,
        StartSpec::Fen { fen } => Start::Fen(fen.clone()),
    }
}

/// The parts a start is stored as: kind, number, FEN of a `fen` start.
pub fn stored_start(start: &StartSpec) -> (StartKind, Option<i32>, Option<String>) {
    match start {
        StartSpec::Standard {} => (StartKind::Standard, None, None),
        StartSpec::Chess960 { id } => (StartKind::Chess960, id.map(i32::from), None),
        StartSpec::Shuffle { id } => (StartKind::Shuffle, id.map(i32::from), None),
        StartSpec::Prechess {} => (StartKind::Prechess, None, None),
        StartSpec::Fen { fen } => (StartKind::Fen, None, Some(fen.clone())),
    }
}

/// The PGN `Variant` name of a rule set played from `start`.
pub fn variant_name(rules: Rules, start: &StartSpec) -> &'static str {
    rules.pgn_name(matches!(start, StartSpec::Chess960 { .. }))
}

/// The error for a stored game the code cannot read.
pub(crate) fn corrupt(row: &GameRow, what: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(format!("game {}: {what}", row.id))
}

/// The current position of a stored game, with the castling notation its
/// start decides.
pub fn position_of(row: &GameRow) -> Result<Position, ApiError> {
    let rules: Rules = row.rules.parse().map_err(|e| corrupt(row, e))?;
    let initial =
        Position::from_start(rules, &core_start(&start_of(row))).map_err(|e| corrupt(row, e))?;
    Position::from_fen(rules, &row.current_fen)
        .map(|pos| pos.with_castling_notation(initial.castling_notation()))
        .map_err(|e| corrupt(row, e))
}

/// The two sides of a new game: account ids and names.
#[derive(Debug, Clone)]
pub struct Players {
    pub white_id: String,
    pub white_name: String,
    pub black_id: String,
    pub black_name: String,
}

/// A new game row from a resolved start, with the first deadline set.
pub fn new_game(
    id: String,
    rules: Rules,
    start: &StartSpec,
    players: Players,
    days_per_move: i32,
    now: Millis,
) -> Result<GameRow, ApiError> {
    let pos = Position::from_start(rules, &core_start(start))
        .map_err(|e| ApiError::invalid("invalid_start", e.to_string()))?;
    let (kind, number, fen) = stored_start(start);
    let mut row = GameRow {
        id,
        rules: rules.key().to_owned(),
        start_kind: kind,
        start_number: number,
        initial_fen: fen.unwrap_or_else(|| pos.fen()),
        initial_key: pos.repetition_key() as i64,
        current_fen: pos.fen(),
        ply: 0,
        status: GameStatus::Started.to_owned(),
        result: None,
        termination: None,
        white_id: Some(players.white_id),
        black_id: Some(players.black_id),
        white_name: players.white_name,
        black_name: players.black_name,
        to_move_id: None,
        days_per_move,
        deadline_at: Some(now + i64::from(days_per_move) * DAY),
        created_at: now,
        updated_at: now,
        imported_by: None,
        import_key: None,
        source_tags: None,
        turn_started_at: now,
        draw_offer_by: None,
        warned_ply: None,
    };
    row.to_move_id = row.player(pos.turn()).map(str::to_owned);
    if let Some(outcome) = pos.outcome() {
        end_in(&mut row, outcome);
    }
    Ok(row)
}

fn end(
    row: &mut GameRow,
    status: GameStatus,
    result: Option<GameResult>,
    termination: Termination,
) {
    row.status = status;
    row.result = result;
    row.termination = Some(termination);
    row.to_move_id = None;
    row.deadline_at = None;
    row.draw_offer_by = None;
}

fn end_in(row: &mut GameRow, outcome: Outcome) {
    let result = GameResult::of(outcome.winner());
    end(row, GameStatus::Finished, Some(result), outcome.into());
}

fn draw(row: &mut GameRow, termination: Termination) {
    end(
        row,
        GameStatus::Finished,
        Some(GameResult::of(None)),
        termination,
    );
}

fn win(row: &mut GameRow, winner: Color, termination: Termination) {
    end(
        row,
        GameStatus::Finished,
        Some(GameResult::of(Some(winner))),
        termination,
    );
}

/// When the side to move loses on time, its vacation counted.
pub fn effective_deadline(row: &GameRow, mover: Option<&Account>, now: Millis) -> Option<Millis> {
    let extension = mover.map_or(0, |account| {
        vacation::extension(account, row.turn_started_at, now)
    });
    row.deadline_at.map(|deadline| deadline + extension)
}

/// A game read for a change, with what the change adds.
#[derive(Debug)]
pub struct Loaded {
    pub(crate) row: GameRow,
    pub(crate) pos: Position,
    /// The ply and change time read: the guard of the write.
    read_ply: i32,
    read_updated_at: Millis,
    read_status: GameStatus,
    /// Moves played by this change, stored once the game row is.
    pub(crate) new_moves: Vec<MoveRow>,
    /// Events of this change, for accounts, recorded once the row is stored.
    events: Vec<(String, EventKind, serde_json::Value)>,
    /// The occurrences of the position counted at a ply, kept for the
    /// answer (the count is the same once the change is stored).
    counted: Option<(i32, usize)>,
}

impl Loaded {
    /// The game, locked for the change about to be made.
    fn read_for_update(conn: &mut DbConnection, game_id: &str) -> Result<Loaded, ApiError> {
        Loaded::from_row(find_game_for_update(conn, game_id)?)
    }

    fn from_row(row: GameRow) -> Result<Loaded, ApiError> {
        Ok(Loaded {
            pos: position_of(&row)?,
            read_ply: row.ply,
            read_updated_at: row.updated_at,
            read_status: row.status,
            row,
            new_moves: Vec::new(),
            events: Vec::new(),
            counted: None,
        })
    }

    /// An event for the player of `color`, if the game has accounts.
    fn tell(&mut self, color: Color, kind: EventKind, data: serde_json::Value) {
        if let Some(account) = self.row.player(color) {
            self.events.push((account.to_owned(), kind, data));
        }
    }

    /// Stores the change, its moves and its events, and signals the game;
    /// whether nobody changed the game since it was read.
    fn save(
        &mut self,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: Millis,
    ) -> Result<bool, ApiError> {
        if !game::advance(conn, &self.row, self.read_ply, self.read_updated_at)? {
            return Ok(false);
        }
        game::insert_moves(conn, &self.new_moves)?;
        if self.read_status == GameStatus::Started && self.row.status != GameStatus::Started {
            let data = json!({"result": self.row.result, "termination": self.row.termination});
            for color in Color::ALL {
                self.tell(color, EventKind::GameFinished, data.clone());
            }
        }
        for (account, kind, data) in std::mem::take(&mut self.events) {
            events::record(conn, outbox, now, &account, kind, Some(&self.row.id), data)?;
        }
        outbox.push(conn, game_signal(&self.row.id))?;
        Ok(true)
    }

    /// How often the current position has stood in the game, this time
    /// included: among the start and the positions after each ply, stored
    /// or played by this change, those since the last capture or pawn move.
    pub(crate) fn occurrences(&mut self, conn: &mut DbConnection) -> Result<usize, ApiError> {
        if let Some((ply, count)) = self.counted
            && ply == self.row.ply
        {
            return Ok(count);
        }
        let key = self.pos.repetition_key() as i64;
        let halfmoves = i32::try_from(self.pos.halfmoves()).unwrap_or(i32::MAX);
        let first_ply = self.row.ply.saturating_sub(halfmoves);
        let stored = game::count_positions_since(conn, &self.row.id, key, first_ply.max(1))?;
        let pending = self
            .new_moves
            .iter()
            .filter(|m| m.ply >= first_ply && m.position_key == key)
            .count() as i64;
        let initial = i64::from(first_ply <= 0 && self.row.initial_key == key);
        let count = usize::try_from(stored + pending + initial).unwrap_or(usize::MAX);
        self.counted = Some((self.row.ply, count));
        Ok(count)
    }

    /// Plays `m`: the move row, the position, the turn and its deadline, a
    /// draw offer lapsing, and the end of the game if the move ends it.
    pub(crate) fn apply(
        &mut self,
        conn: &mut DbConnection,
        m: Move,
        now: Millis,
    ) -> Result<(), ApiError> {
        let legal = self.pos.legal_moves();
        let (uci, san) = (self.pos.uci(&m), self.pos.san_among(&m, &legal));
        let mover = self.row.player(self.pos.turn()).map(str::to_owned);
        self.pos.play_unchecked(m);
        let row = &mut self.row;
        row.ply += 1;
        row.current_fen = self.pos.fen();
        row.updated_at = now;
        row.turn_started_at = now;
        row.to_move_id = row.player(self.pos.turn()).map(str::to_owned);
        row.deadline_at = Some(now + i64::from(row.days_per_move) * DAY);
        // An offer lapses when the offerer's opponent moves without accepting.
        if row.draw_offer_by != mover {
            row.draw_offer_by = None;
        }
        let data = json!({
            "ply": row.ply, "uci": uci, "san": san, "fen": row.current_fen,
            "deadline": row.deadline_at.map(rfc3339),
        });
        self.new_moves.push(MoveRow {
            game_id: row.id.clone(),
            ply: row.ply,
            uci,
            san,
            position_key: self.pos.repetition_key() as i64,
            played_at: Some(now),
        });
        self.tell(self.pos.turn(), EventKind::OpponentMoved, data);
        let outcome = match self.pos.outcome() {
            Some(outcome) => Some(outcome),
            None => repetition_outcome(self.occurrences(conn)?),
        };
        if let Some(outcome) = outcome {
            end_in(&mut self.row, outcome);
        }
        Ok(())
    }

    /// Ends the game on time if its deadline has passed: the side to move
    /// loses, or draws when the opponent has no mating material.
    fn expire_if_due(
        &mut self,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: Millis,
    ) -> Result<bool, ApiError> {
        // A vacation only moves the deadline later: before the deadline
        // itself there is no account to read.
        if !is_due(&self.row, now) {
            return Ok(false);
        }
        let mover = match &self.row.to_move_id {
            Some(id) => account::find(conn, id)?,
            None => None,
        };
        if effective_deadline(&self.row, mover.as_ref(), now).is_none_or(|deadline| deadline > now)
        {
            return Ok(false);
        }
        let loser = self.pos.turn();
        if self.pos.has_insufficient_material(!loser) {
            draw(&mut self.row, Termination::Timeout);
        } else {
            win(&mut self.row, !loser, Termination::Timeout);
        }
        self.row.updated_at = now;
        self.save(conn, outbox, now)
    }
}

/// What a player asks of a game.
enum Request<'a> {
    Move {
        text: &'a str,
        ply: i32,
        offer_draw: bool,
    },
    Resign,
    Abort,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    WithdrawDraw,
    ClaimDraw,
}

/// Carries out `request` for `account_id` in one transaction: the game is
/// first ended on time if its deadline has passed (and that is kept, while
/// the request is refused). The game as stored, with the moves played.
fn carry_out(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &str,
    account_id: &str,
    request: Request<'_>,
) -> Result<Loaded, ApiError> {
    write_transaction(conn, |conn| {
        let mut game = Loaded::read_for_update(conn, game_id)?;
        let color = game.row.color_of(account_id).ok_or(ApiError::NotAPlayer)?;
        if game.row.status != GameStatus::Started {
            return Ok(Err(ApiError::GameFinished));
        }
        if game.expire_if_due(conn, outbox, now)? {
            return Ok(Err(ApiError::GameFinished));
        }
        let offer = game.row.draw_offer_by.clone();
        let by_opponent = offer.is_some() && offer.as_deref() == game.row.player(!color);
        match request {
            Request::Move {
                text,
                ply,
                offer_draw,
            } => {
                if ply != game.row.ply {
                    return Err(ApiError::StalePly {
                        sent: ply,
                        current: game.row.ply,
                    });
                }
                if game.pos.turn() != color {
                    return Err(ApiError::NotYourTurn);
                }
                let m = game.pos.parse_move(text).map_err(|e| match e {
                    MoveError::Syntax { .. } => ApiError::InvalidMoveSyntax(e.to_string()),
                    MoveError::Illegal { .. } | MoveError::Ambiguous { .. } => {
                        ApiError::IllegalMove(e.to_string())
                    }
                })?;
                game.apply(conn, m, now)?;
                if offer_draw && game.row.status == GameStatus::Started {
                    game.row.draw_offer_by = Some(account_id.to_owned());
                    game.tell(
                        !color,
                        EventKind::DrawOffered,
                        json!({"by": Side::from(color)}),
                    );
                }
                conditionals::answer(conn, &mut game, now)?;
            }
            Request::Resign => win(&mut game.row, !color, Termination::Resignation),
            Request::Abort => {
                if game.row.ply >= 2 {
                    return Err(ApiError::Refused {
                        code: "abort_refused",
                        detail: "both sides have moved: the game can no longer be aborted"
                            .to_owned(),
                    });
                }
                end(
                    &mut game.row,
                    GameStatus::Aborted,
                    None,
                    Termination::Aborted,
                );
            }
            Request::OfferDraw if by_opponent => draw(&mut game.row, Termination::Agreement),
            Request::OfferDraw => {
                game.row.draw_offer_by = Some(account_id.to_owned());
                game.tell(
                    !color,
                    EventKind::DrawOffered,
                    json!({"by": Side::from(color)}),
                );
            }
            Request::AcceptDraw | Request::DeclineDraw if !by_opponent => {
                return Err(no_offer("your opponent has"));
            }
            Request::AcceptDraw => draw(&mut game.row, Termination::Agreement),
            Request::DeclineDraw => game.row.draw_offer_by = None,
            Request::WithdrawDraw if offer.as_deref() != Some(account_id) => {
                return Err(no_offer("you have"));
            }
            Request::WithdrawDraw => game.row.draw_offer_by = None,
            Request::ClaimDraw => claim_draw(conn, &mut game, color)?,
        }
        game.row.updated_at = now;
        if !game.save(conn, outbox, now)? {
            // Changed since read, which the row lock leaves to SQLite
            // connections outside the writers' turn: say where it is now.
            return Err(ApiError::StalePly {
                sent: game.read_ply,
                current: find_game(conn, game_id)?.ply,
            });
        }
        Ok(Ok(game))
    })?
}

fn no_offer(who: &str) -> ApiError {
    ApiError::Refused {
        code: "no_draw_offer",
        detail: format!("{who} no draw offer standing"),
    }
}

/// A claim of threefold repetition or the 50-move rule by the side to move.
fn claim_draw(conn: &mut DbConnection, game: &mut Loaded, color: Color) -> Result<(), ApiError> {
    if game.pos.turn() != color {
        return Err(ApiError::NotYourTurn);
    }
    let occurrences = game.occurrences(conn)?;
    match game.pos.claimable_draw(occurrences) {
        Some(reason) => draw(&mut game.row, reason.into()),
        None => {
            return Err(ApiError::Refused {
                code: "claim_refused",
                detail: game.pos.claim_refusal(occurrences),
            });
        }
    }
    Ok(())
}

/// Plays `text` (UCI or SAN) for `account_id` in game `game_id`, computed
/// for `ply`; with `offer_draw`, a draw offer goes with it. The write is
/// conditional on the ply read: of two racing requests one wins. The game
/// as stored, for [`move_answer`].
pub fn play_move(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &str,
    account_id: &str,
    play: &Play,
) -> Result<Loaded, ApiError> {
    let request = Request::Move {
        text: &play.text,
        ply: play.ply,
        offer_draw: play.offer_draw,
    };
    carry_out(conn, outbox, now, game_id, account_id, request)
}

/// A move as a player sends it.
#[derive(Debug, Clone)]
pub struct Play {
    /// UCI or SAN.
    pub text: String,
    /// The ply the move was computed for.
    pub ply: i32,
    /// Offer a draw with it.
    pub offer_draw: bool,
}

/// The actions on a game besides moves, by their route names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Resign,
    Abort,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    WithdrawDraw,
    ClaimDraw,
}

/// Carries out `action` for `account_id`: the game as stored, for
/// [`view_of`].
pub fn act(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &str,
    account_id: &str,
    action: Action,
) -> Result<Loaded, ApiError> {
    let request = match action {
        Action::Resign => Request::Resign,
        Action::Abort => Request::Abort,
        Action::OfferDraw => Request::OfferDraw,
        Action::AcceptDraw => Request::AcceptDraw,
        Action::DeclineDraw => Request::DeclineDraw,
        Action::WithdrawDraw => Request::WithdrawDraw,
        Action::ClaimDraw => Request::ClaimDraw,
    };
    carry_out(conn, outbox, now, game_id, account_id, request)
}

/// Ends on time every game whose deadline has passed; how many this call
/// ended. Safe to run on several instances at once: each end is a write
/// conditional on the game being unchanged since it was read.
pub fn sweep(conn: &mut DbConnection, outbox: &mut Outbox, now: Millis) -> Result<usize, ApiError> {
    let mut ended = 0;
    let past = |conn: &mut DbConnection, after: Option<&_>, limit| {
        game::past_deadline(conn, now, after, limit)
    };
    for_each_by_deadline(conn, past, |conn, candidate| {
        let expired = write_transaction(conn, |conn| {
            Loaded::read_for_update(conn, &candidate.id)?.expire_if_due(conn, outbox, now)
        })?;
        ended += usize::from(expired);
        Ok(())
    })?;
    warn_of_deadlines(conn, outbox, now)?;
    crate::models::event::prune(conn, now - events::RETENTION)?;
    crate::models::idempotency::prune(conn, now - crate::models::idempotency::KEPT_FOR)?;
    Ok(ended)
}

/// How many games the sweep reads at a time.
const SWEEP_PAGE: i64 = 500;

/// Runs `each` on every game that `page` finds (after a cursor, at most a
/// limit), a page at a time in order of deadline and id: games that stay
/// candidates (their player on vacation) never keep the sweep from those
/// after them.
fn for_each_by_deadline(
    conn: &mut DbConnection,
    page: impl Fn(&mut DbConnection, Option<&(i64, String)>, i64) -> diesel::QueryResult<Vec<GameRow>>,
    mut each: impl FnMut(&mut DbConnection, GameRow) -> Result<(), ApiError>,
) -> Result<(), ApiError> {
    let mut after = None;
    loop {
        let rows = page(conn, after.as_ref(), SWEEP_PAGE)?;
        let last_page = rows.len() < SWEEP_PAGE as usize;
        for row in rows {
            after = Some((row.deadline_at.unwrap_or_default(), row.id.clone()));
            each(conn, row)?;
        }
        if last_page {
            return Ok(());
        }
    }
}

/// The part of the time for a move left when a `deadline_near` event goes
/// out: a quarter.
pub const WARNING_FRACTION: i64 = 4;

/// Tells each player whose deadline is near, once a turn.
fn warn_of_deadlines(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
) -> Result<(), ApiError> {
    let window_per_day = DAY / WARNING_FRACTION;
    let longest = DAYS_PER_MOVE
        .iter()
        .max()
        .map_or(0, |&days| i64::from(days));
    let max_window = longest * window_per_day;
    let due = |conn: &mut DbConnection, after: Option<&_>, limit| {
        game::warnings_due(conn, now, window_per_day, max_window, after, limit)
    };
    for_each_by_deadline(conn, due, |conn, candidate| {
        write_transaction(conn, |conn| {
            let mut game = Loaded::read_for_update(conn, &candidate.id)?;
            let mover = match &game.row.to_move_id {
                Some(id) => account::find(conn, id)?,
                None => return Ok(()),
            };
            let Some(deadline) = effective_deadline(&game.row, mover.as_ref(), now) else {
                return Ok(());
            };
            let window = i64::from(game.row.days_per_move) * DAY / WARNING_FRACTION;
            if game.row.warned_ply == Some(game.row.ply)
                || deadline - now > window
                || deadline <= now
            {
                return Ok(());
            }
            game.row.warned_ply = Some(game.row.ply);
            let data = json!({"deadline": rfc3339(deadline), "time_left_seconds": (deadline - now) / 1000});
            game.tell(game.pos.turn(), EventKind::DeadlineNear, data);
            game.save(conn, outbox, now)?;
            Ok::<_, ApiError>(())
        })
    })
}

/// Whether the game is lost on time but not yet marked so.
fn is_due(row: &GameRow, now: Millis) -> bool {
    row.status == GameStatus::Started && row.deadline_at.is_some_and(|deadline| deadline <= now)
}

/// The game's row, or `404` for an unknown id.
pub fn find_game(conn: &mut DbConnection, game_id: &str) -> Result<GameRow, ApiError> {
    found(game_id, game::find(conn, game_id))
}

/// The game's row locked for a change until the transaction ends (see
/// [`game::find_for_update`]), or `404`: every change that reads the game
/// before writing it reads it so, so that none acts on a state another has
/// just replaced.
pub fn find_game_for_update(conn: &mut DbConnection, game_id: &str) -> Result<GameRow, ApiError> {
    found(game_id, game::find_for_update(conn, game_id))
}

/// The game read, or why not: a stored value the code does not know is an
/// error that names the game, never a guess.
fn found(game_id: &str, read: diesel::QueryResult<Option<GameRow>>) -> Result<GameRow, ApiError> {
    match read {
        Ok(Some(row)) => Ok(row),
        Ok(None) => Err(ApiError::NotFound(format!("game {game_id}"))),
        Err(diesel::result::Error::DeserializationError(why)) => {
            let cause = std::error::Error::source(why.as_ref())
                .map(|c| format!(": {c}"))
                .unwrap_or_default();
            Err(ApiError::Internal(format!("game {game_id}: {why}{cause}")))
        }
        Err(other) => Err(other.into()),
    }
}

/// The game as clients read it, after ending it on time if it is due: any
/// read shows a lost game as lost.
pub fn view(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    game_id: &str,
    now: Millis,
) -> Result<GameView, ApiError> {
    if let Some(view) = view_unless_due(conn, game_id, now)? {
        return Ok(view);
    }
    write_transaction(conn, |conn| {
        Loaded::read_for_update(conn, game_id)?.expire_if_due(conn, outbox, now)
    })?;
    let game = Loaded::from_row(find_game(conn, game_id)?)?;
    view_of(conn, game, now)
}

/// The game as clients read it, without writing: `None` when it is due to
/// be ended on time first, which only `view` does.
pub fn view_unless_due(
    conn: &mut DbConnection,
    game_id: &str,
    now: Millis,
) -> Result<Option<GameView>, ApiError> {
    let found = find_game(conn, game_id)?;
    if is_due(&found, now) {
        return Ok(None);
    }
    view_of(conn, Loaded::from_row(found)?, now).map(Some)
}

/// The view of a game as read, or as a change stored it.
pub fn view_of(conn: &mut DbConnection, game: Loaded, now: Millis) -> Result<GameView, ApiError> {
    let moves = game::moves_of(conn, &game.row.id)?;
    Ok(GameView {
        state: state_of(conn, game, now)?,
        moves: moves.into_iter().map(move_view).collect(),
    })
}

/// The answer to a move, from the game as the move stored it: no move
/// list to read, only the moves the request played.
pub fn move_answer(
    conn: &mut DbConnection,
    mut game: Loaded,
    now: Millis,
) -> Result<MoveAnswer, ApiError> {
    let played = std::mem::take(&mut game.new_moves);
    Ok(MoveAnswer {
        state: state_of(conn, game, now)?,
        played: played.into_iter().map(move_view).collect(),
    })
}

fn move_view(m: MoveRow) -> MoveView {
    MoveView {
        ply: m.ply,
        uci: m.uci,
        san: m.san,
        played_at: m.played_at.map(rfc3339),
    }
}

fn state_of(conn: &mut DbConnection, mut game: Loaded, now: Millis) -> Result<GameState, ApiError> {
    // The players' accounts, for vacations; an imported game has none.
    let ids: Vec<&str> = Color::ALL
        .iter()
        .filter_map(|&c| game.row.player(c))
        .collect();
    let accounts = if ids.is_empty() {
        Vec::new()
    } else {
        account::find_all(conn, &ids)?
    };
    let account_of = |color| {
        let id = game.row.player(color)?;
        accounts.iter().find(|a| a.id == id).cloned()
    };
    let (white, black) = (account_of(Color::White), account_of(Color::Black));
    let player = |name: &str, account: &Option<Account>| GamePlayerView {
        username: name.to_owned(),
        on_vacation: account
            .as_ref()
            .is_some_and(|a| vacation::is_on_vacation(a, now)),
    };
    let started = game.row.status == GameStatus::Started;
    let claimable_draw = if started {
        let occurrences = game.occurrences(conn)?;
        game.pos
            .claimable_draw(occurrences)
            .map(|reason| reason.key().to_owned())
    } else {
        None
    };
    let pos = &game.pos;
    let legal_moves = if started {
        LegalMoveView::all(pos)
    } else {
        Vec::new()
    };
    let mover = match pos.turn() {
        Color::White => white.as_ref(),
        Color::Black => black.as_ref(),
    };
    let deadline = effective_deadline(&game.row, mover, now).filter(|_| started);
    let row = &game.row;
    let rules: Rules = row.rules.parse().map_err(|e| corrupt(row, e))?;
    let start = start_of(row);
    Ok(GameState {
        id: row.id.clone(),
        rules: row.rules.clone(),
        variant: variant_name(rules, &start).to_owned(),
        start,
        white: player(&row.white_name, &white),
        black: player(&row.black_name, &black),
        initial_fen: row.initial_fen.clone(),
        fen: row.current_fen.clone(),
        ply: row.ply,
        turn: Side::from(pos.turn()),
        status: row.status,
        result: row.result,
        termination: row.termination,
        check: pos.is_check(),
        days_per_move: row.days_per_move,
        deadline: deadline.map(rfc3339),
        time_left_seconds: deadline.map(|d| (d - now).max(0) / 1000),
        draw_offer: row
            .draw_offer_by
            .as_deref()
            .and_then(|id| row.color_of(id))
            .map(Side::from),
        claimable_draw,
        legal_moves,
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
    })
}

/// The entity tag of a game's state: it changes with every ply, every
/// change of status or offer, and when a player's vacation starts or ends
/// (which moves the deadline without changing the game's row).
pub fn etag(state: &GameState) -> String {
    let stamp: String = state
        .updated_at
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let vacations = u8::from(state.white.on_vacation) | u8::from(state.black.on_vacation) << 1;
    if vacations == 0 {
        format!("\"{}-{stamp}\"", state.ply)
    } else {
        format!("\"{}-{stamp}-v{vacations}\"", state.ply)
    }
}
