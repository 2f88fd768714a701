//! A game read for a change: its position rebuilt from the row, the change
//! applied (moves, ends), and stored only if nobody changed the game
//! meanwhile; the game's row found, or why not.

use kingpost_core::{Color, Move, Outcome, Position, packed, repetition_outcome};

use serde_json::json;

use crate::{
    clock::{DAY, Millis, rfc3339},
    db::DbConnection,
    domain::{
        events::{self, Recipient},
        openings, ratings, tournament, vacation,
    },
    error::ApiError,
    models::{
        account::{self, Account},
        collection, event, explorer_counts,
        game::{self, GameResult, GameRow, GameStatus, IndexChange, Termination},
        move_times,
        position_index::{NO_MOVE, PositionRow},
    },
    notify::{Outbox, game_signal},
    stored::{AccountId, GameId},
    views::EventKind,
};

use super::{
    clock,
    moves::{PlayedMove, all_index_rows, count_in_explorer, packed_keys, recent_keys},
    position_of,
    sweep::is_due,
};

pub(super) fn end(
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

pub(super) fn end_in(row: &mut GameRow, outcome: Outcome) {
    let result = GameResult::of(outcome.winner());
    end(row, GameStatus::Finished, Some(result), outcome.into());
}

pub(super) fn draw(row: &mut GameRow, termination: Termination) {
    end(
        row,
        GameStatus::Finished,
        Some(GameResult::of(None)),
        termination,
    );
}

pub(super) fn win(row: &mut GameRow, winner: Color, termination: Termination) {
    end(
        row,
        GameStatus::Finished,
        Some(GameResult::of(Some(winner))),
        termination,
    );
}

/// The plies since the last capture or pawn move.
fn reversible_plies(pos: &Position) -> usize {
    usize::try_from(pos.halfmoves()).unwrap_or(usize::MAX)
}

/// When the side to move loses on time, its vacation counted where the
/// game allows it.
pub fn effective_deadline(row: &GameRow, mover: Option<&Account>, now: Millis) -> Option<Millis> {
    let extension = mover.filter(|_| row.vacation_allowed).map_or(0, |account| {
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
    pub(super) read_ply: i32,
    pub(super) read_updated_at: Millis,
    pub(super) read_status: GameStatus,
    /// Moves played by this change, in the game row once it is stored.
    pub(crate) new_moves: Vec<PlayedMove>,
    /// The position index rows of the positions those moves were played
    /// from, stored with the row.
    pub(super) left_rows: Vec<PositionRow>,
    /// Events of this change, for accounts, recorded once the row is stored.
    pub(super) events: Vec<(AccountId, EventKind, serde_json::Value)>,
    /// The occurrences of the position counted at a ply, kept for the
    /// answer (the count is the same once the change is stored).
    pub(super) counted: Option<(i32, usize)>,
    /// The players' accounts as the change read them (with their webhooks,
    /// for its events), kept for the answer.
    pub(super) accounts: Option<Vec<Account>>,
}

/// The game's players to read together: both, or the one there is given
/// twice; none for an imported game.
pub(super) fn player_pair(row: &GameRow) -> Option<(&AccountId, &AccountId)> {
    match (row.white_id.as_ref(), row.black_id.as_ref()) {
        (Some(white), Some(black)) => Some((white, black)),
        (Some(one), None) | (None, Some(one)) => Some((one, one)),
        (None, None) => None,
    }
}

impl Loaded {
    /// The game, locked for the change about to be made.
    pub(super) fn read_for_update(
        conn: &mut DbConnection,
        game_id: &GameId,
    ) -> Result<Loaded, ApiError> {
        Loaded::from_row(find_game_for_update(conn, game_id)?)
    }

    pub(super) fn from_row(row: GameRow) -> Result<Loaded, ApiError> {
        Ok(Loaded {
            pos: position_of(&row)?,
            read_ply: row.ply,
            read_updated_at: row.updated_at,
            read_status: row.status,
            row,
            new_moves: Vec::new(),
            left_rows: Vec::new(),
            events: Vec::new(),
            counted: None,
            accounts: None,
        })
    }

    /// An event for the player of `color`, if the game has accounts.
    pub(super) fn tell(&mut self, color: Color, kind: EventKind, data: serde_json::Value) {
        if let Some(account) = self.row.player(color) {
            self.events.push((account.clone(), kind, data));
        }
    }

    /// Stores the change, its moves and its events, and signals the game;
    /// whether nobody changed the game since it was read.
    pub(super) fn save(
        &mut self,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: Millis,
    ) -> Result<bool, ApiError> {
        let (ply, updated_at) = (self.read_ply, self.read_updated_at);
        let moved = self.index_change();
        if !game::advance_playing(conn, &self.row, ply, updated_at, moved.as_ref())? {
            return Ok(false);
        }
        if self.read_status == GameStatus::Started && self.row.status != GameStatus::Started {
            let data = json!({"result": self.row.result, "termination": self.row.termination});
            for color in Color::ALL {
                self.tell(color, EventKind::GameFinished, data.clone());
            }
            if self.row.rated {
                if ratings::counts(&self.row) {
                    self.events.extend(ratings::settle(conn, &self.row, now)?);
                } else {
                    ratings::unrate(conn, &mut self.row)?;
                }
            }
            tournament::lifecycle::game_finished(conn, outbox, now, &self.row.id)?;
            // The explorer counts finished games, with their results.
            if self.row.status == GameStatus::Finished {
                let rows = all_index_rows(&self.row)?;
                count_in_explorer(conn, &self.row, &rows, explorer_counts::PLAYED)?;
            }
        }
        self.record_events(conn, outbox, now)?;
        outbox.push(game_signal(&self.row.id));
        Ok(true)
    }

    /// Records the change's events, the players' accounts and webhooks
    /// read for them at once, and kept for the answer.
    fn record_events(
        &mut self,
        conn: &mut DbConnection,
        outbox: &mut Outbox,
        now: Millis,
    ) -> Result<(), ApiError> {
        let pending = std::mem::take(&mut self.events);
        let read = match player_pair(&self.row) {
            Some((first, second)) if !pending.is_empty() => event::recipients(conn, first, second)?,
            _ => Vec::new(),
        };
        let game_id = Some(&self.row.id);
        for (account_id, kind, data) in pending {
            match read.iter().find(|row| row.account.id == account_id) {
                Some(row) => {
                    let to = Recipient::of(row);
                    events::record_for(conn, outbox, now, to, kind, game_id, data)?;
                }
                None => events::record(conn, outbox, now, &account_id, kind, game_id, data)?,
            }
        }
        if !read.is_empty() {
            self.accounts = Some(read.into_iter().map(|row| row.account).collect());
        }
        Ok(())
    }

    /// What the moves of this change write to the position index: the
    /// position the game stood in when read left, the positions moves were
    /// played from, and the one reached.
    fn index_change(&self) -> Option<IndexChange> {
        let left = self.left_rows.first()?.position_key;
        let mut rows = self.left_rows.clone();
        rows.push(PositionRow {
            position_key: self.pos.repetition_key() as i64,
            game_id: self.row.id.clone(),
            next: NO_MOVE,
            ply: self.row.ply,
        });
        Some(IndexChange { left, rows })
    }

    /// How often the current position has stood in the game, this time
    /// included: among its start and the positions after each ply, those
    /// since the last capture or pawn move.
    pub(crate) fn occurrences(&mut self) -> Result<usize, ApiError> {
        if let Some((ply, count)) = self.counted
            && ply == self.row.ply
        {
            return Ok(count);
        }
        let key = self.pos.repetition_key() as i64;
        let count = recent_keys(&self.row, reversible_plies(&self.pos))?
            .into_iter()
            .filter(|&k| k == key)
            .count();
        self.counted = Some((self.row.ply, count));
        Ok(count)
    }

    /// Plays `m`: the packed move, the position, the turn and its deadline, a
    /// draw offer lapsing, and the end of the game if the move ends it.
    pub(crate) fn apply(
        &mut self,
        conn: &mut DbConnection,
        m: Move,
        now: Millis,
    ) -> Result<(), ApiError> {
        let legal = self.pos.legal_moves();
        let (uci, san) = (self.pos.uci(&m), self.pos.san_among(&m, &legal));
        let mover = self.row.player(self.pos.turn()).cloned();
        // Under a clock, the time the mover had to spare carries over.
        let carried = match clock::of_row(&self.row)? {
            Some(spec) => {
                let account = match &mover {
                    Some(id) => account::find(conn, id)?,
                    None => None,
                };
                let deadline = effective_deadline(&self.row, account.as_ref(), now);
                Some((spec, deadline.map_or(0, |d| d - now)))
            }
            None => None,
        };
        let mut recent = recent_keys(&self.row, reversible_plies(&self.pos))?;
        let number = packed::push(&mut self.row.moves, &legal, &m)
            .ok_or_else(|| ApiError::Internal(format!("{uci} is not legal to pack")))?;
        let plies = usize::try_from(self.row.ply).unwrap_or_default();
        move_times::append(&mut self.row.move_times, plies, Some(now));
        self.left_rows.push(PositionRow {
            position_key: self.pos.repetition_key() as i64,
            game_id: self.row.id.clone(),
            next: i16::try_from(number).unwrap_or(i16::MAX),
            ply: self.row.ply,
        });
        self.pos.play_unchecked(m);
        let row = &mut self.row;
        row.ply += 1;
        row.current_fen = self.pos.fen();
        row.updated_at = now;
        row.turn_started_at = now;
        row.to_move_id = row.player(self.pos.turn()).cloned();
        match &carried {
            Some((spec, left)) => clock::pass_turn(row, spec, *left, now),
            None => row.deadline_at = Some(now + i64::from(row.days_per_move) * DAY),
        }
        // An offer lapses when the offerer's opponent moves without accepting.
        if row.draw_offer_by != mover {
            row.draw_offer_by = None;
        }
        let data = json!({
            "ply": row.ply, "uci": uci, "san": san, "fen": row.current_fen,
            "deadline": row.deadline_at.map(rfc3339),
        });
        let position_key = self.pos.repetition_key() as i64;
        // What the repetition rules count: the positions since the last
        // capture or pawn move, this one included.
        recent.push(position_key);
        let since = reversible_plies(&self.pos);
        recent.drain(..recent.len().saturating_sub(since + 1));
        row.recent_keys = Some(packed_keys(&recent));
        // and what `occurrences` reads, counted while they are at hand.
        let count = recent.iter().filter(|&&k| k == position_key).count();
        self.counted = Some((row.ply, count));
        self.new_moves.push(PlayedMove {
            ply: row.ply,
            uci,
            san,
            position_key,
            played_at: Some(now),
        });
        openings::after_move(&mut self.row, self.pos.repetition_key());
        self.tell(self.pos.turn(), EventKind::OpponentMoved, data);
        let outcome = match self.pos.outcome() {
            Some(outcome) => Some(outcome),
            None => repetition_outcome(self.occurrences()?),
        };
        if let Some(outcome) = outcome {
            end_in(&mut self.row, outcome);
        }
        Ok(())
    }

    /// Ends the game on time if its deadline has passed: the side to move
    /// loses, or draws when the opponent has no mating material.
    pub(super) fn expire_if_due(
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

/// Ends a game under way as a draw by its tournament's rules (its round's
/// deadline passed with it unfinished); whether it was under way.
pub fn adjudicate_draw(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
) -> Result<bool, ApiError> {
    end_by_event(conn, outbox, now, game_id, |row| {
        draw(row, Termination::Adjudication);
        Ok(())
    })
}

/// Ends a game under way as lost by `loser` by the rules of its event (a
/// forfeit: see `tournament::team_match`); whether it was under way.
pub fn forfeit(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
    loser: &AccountId,
) -> Result<bool, ApiError> {
    end_by_event(conn, outbox, now, game_id, |row| {
        let color = row.color_of(loser).ok_or_else(|| {
            ApiError::Internal(format!(
                "game {game_id}: {loser} forfeits a game they do not play"
            ))
        })?;
        win(row, !color, Termination::Forfeit);
        Ok(())
    })
}

/// Ends a game under way by its event's rules, `end` setting its result,
/// as a change of the game; whether it was under way.
fn end_by_event(
    conn: &mut DbConnection,
    outbox: &mut Outbox,
    now: Millis,
    game_id: &GameId,
    end: impl FnOnce(&mut GameRow) -> Result<(), ApiError>,
) -> Result<bool, ApiError> {
    let mut game = Loaded::read_for_update(conn, game_id)?;
    if game.row.status != GameStatus::Started {
        return Ok(false);
    }
    end(&mut game.row)?;
    game.row.updated_at = now;
    game.save(conn, outbox, now)
}

/// The game's row, or `404` for an unknown id.
pub fn find_game(conn: &mut DbConnection, game_id: &GameId) -> Result<GameRow, ApiError> {
    found(game_id, game::find(conn, game_id))
}

/// The game `id` if `reader` may read it: a played game, or an imported
/// one seen as its collections are (by its importer, and by everyone once
/// a public collection holds it). Otherwise, as when there is none, `404`.
pub fn readable_game(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    id: &GameId,
) -> Result<GameRow, ApiError> {
    let row = find_game(conn, id)?;
    let seen = row.status != GameStatus::Imported
        || (reader.is_some() && row.imported_by.as_ref() == reader)
        || collection::seen_holding(conn, id, reader)?;
    if seen {
        Ok(row)
    } else {
        Err(ApiError::NotFound(format!("game {id}")))
    }
}

/// The game's row locked for a change until the transaction ends (see
/// [`game::find_for_update`]), or `404`: every change that reads the game
/// before writing it reads it so, so that none acts on a state another has
/// just replaced.
pub fn find_game_for_update(
    conn: &mut DbConnection,
    game_id: &GameId,
) -> Result<GameRow, ApiError> {
    found(game_id, game::find_for_update(conn, game_id))
}

/// The game read, or why not: a stored value the code does not know is an
/// error that names the game, never a guess.
fn found(
    game_id: &GameId,
    read: diesel::QueryResult<Option<GameRow>>,
) -> Result<GameRow, ApiError> {
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
