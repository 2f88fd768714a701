//! Searching the archive: the games that reached a position, in any rule
//! set, among the games a reader may see (played games, public
//! collections, the reader's own collections).

use std::collections::HashMap;

use kingpost_core::{Position, Rules, Start, packed};

use crate::{
    db::{DbConnection, write_transaction},
    domain::{
        collections, cursor,
        pgn::{archived, pgn_of_rows},
    },
    error::{ApiError, Code},
    models::{
        explorer_counts::{self, Scopes},
        game::{self, GameRow},
        search::{self, Among, GameFilter, PositionQuery},
    },
    names,
    stored::{AccountId, CollectionId, GameId},
    views::{ExplorerMove, ExplorerView, GameResult, GameSearch, PositionHit, PositionSearch},
};

/// Hits on a page unless the caller asks for another number.
pub const DEFAULT_PAGE: i64 = 20;
/// The most hits on a page.
pub const MAX_PAGE: i64 = 100;

/// The position to search for: a FEN of the rule set, or the moves played
/// from the rule set's usual start.
#[derive(Debug, Clone)]
pub enum Target {
    Fen(String),
    Moves(Vec<String>),
}

/// Which games to search among.
#[derive(Debug, Clone)]
pub enum Scope {
    /// Every game the reader may see.
    Visible,
    /// The reader's own played games and collections.
    Own,
    /// One collection the reader may see.
    Collection(CollectionId),
}

/// The position `target` names under `rules`, or why it names none.
pub fn position_of(rules: Rules, target: &Target) -> Result<Position, ApiError> {
    match target {
        Target::Fen(fen) => Position::from_fen(rules, fen)
            .map_err(|e| ApiError::invalid(Code::InvalidFen, e.to_string())),
        Target::Moves(moves) => {
            let mut pos = Position::from_start(rules, &Start::Standard)
                .map_err(|e| ApiError::invalid(Code::InvalidStart, e.to_string()))?;
            for (i, text) in moves.iter().enumerate() {
                let m = pos.parse_move(text).map_err(|e| {
                    ApiError::invalid(Code::InvalidQuery, format!("move {}: {e}", i + 1))
                })?;
                pos.play_unchecked(m);
            }
            Ok(pos)
        }
    }
}

/// The games of `scope`, checked: one's own need a reader, a collection
/// must be one the reader may see.
fn among_of(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    scope: Scope,
) -> Result<Among, ApiError> {
    Ok(match scope {
        Scope::Visible => Among::Visible,
        Scope::Own => Among::Own(reader.cloned().ok_or_else(|| {
            ApiError::Unauthorized("searching one's own games needs a token".to_owned())
        })?),
        Scope::Collection(id) => {
            collections::visible(conn, reader, &id)?;
            Among::Collection(id)
        }
    })
}

/// The position `target` names and the query for it among `scope`.
fn query_for(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    rules: Rules,
    target: &Target,
    scope: Scope,
) -> Result<(Position, PositionQuery), ApiError> {
    let pos = position_of(rules, target)?;
    let among = among_of(conn, reader, scope)?;
    let query = PositionQuery {
        key: pos.repetition_key() as i64,
        rules: rules.into(),
        reader: reader.cloned(),
        among,
    };
    Ok((pos, query))
}

/// The stored games of `ids`, by id.
fn rows_by_id(
    conn: &mut DbConnection,
    ids: &[&GameId],
) -> Result<HashMap<GameId, GameRow>, ApiError> {
    Ok(game::find_all(conn, ids)?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect())
}

/// One page of the games that reached `target` under `rules`, after the
/// game `after`.
pub fn positions(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    rules: Rules,
    target: &Target,
    scope: Scope,
    after: Option<&GameId>,
    limit: i64,
) -> Result<PositionSearch, ApiError> {
    let (pos, query) = query_for(conn, reader, rules, target, scope)?;
    let (hits, more) = search::reaching(conn, &query, after, limit)?;
    let ids: Vec<&GameId> = hits.iter().map(|(id, _)| id).collect();
    let mut rows = rows_by_id(conn, &ids)?;
    let next_cursor = hits.last().filter(|_| more).map(|(id, _)| id.to_string());
    let games = hits
        .iter()
        .filter_map(|(id, ply)| {
            let row = rows.remove(id)?;
            Some(archived(row).map(|game| PositionHit { ply: *ply, game }))
        })
        .collect::<Result<_, _>>()?;
    Ok(PositionSearch {
        fen: pos.fen(),
        games,
        next_cursor,
    })
}

/// Checks a position search without running it: the position, and the
/// scope the reader may search.
pub fn check_position(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    rules: Rules,
    target: &Target,
    scope: Scope,
) -> Result<(), ApiError> {
    query_for(conn, reader, rules, target, scope).map(|_| ())
}

/// Checks that the reader may search `scope`.
pub fn check_scope(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    scope: Scope,
) -> Result<(), ApiError> {
    among_of(conn, reader, scope).map(|_| ())
}

/// One page of the games that reached `target` under `rules`, after the
/// game `after`, as PGN, and the game to go on after.
pub fn positions_pgn(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    rules: Rules,
    target: &Target,
    scope: Scope,
    after: Option<&GameId>,
    limit: i64,
) -> Result<(String, Option<GameId>), ApiError> {
    let (_, query) = query_for(conn, reader, rules, target, scope)?;
    let (hits, more) = search::reaching(conn, &query, after, limit)?;
    let ids: Vec<&GameId> = hits.iter().map(|(id, _)| id).collect();
    let rows = in_order(rows_by_id(conn, &ids)?, &ids);
    let next = hits.last().filter(|_| more).map(|(id, _)| id.clone());
    Ok((pgn_of_rows(conn, &rows)?, next))
}

/// `rows` in the order of `ids`; a game gone since it was found is left out.
fn in_order(mut rows: HashMap<GameId, GameRow>, ids: &[&GameId]) -> Vec<GameRow> {
    ids.iter().filter_map(|id| rows.remove(*id)).collect()
}

/// The moves played from `target` under `rules` in the finished games of
/// `scope`, most played first, with how their games ended: from the
/// explorer's counts, and a reader's own played games from the index.
pub fn explore(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    rules: Rules,
    target: &Target,
    scope: Scope,
) -> Result<ExplorerView, ApiError> {
    let (pos, query) = query_for(conn, reader, rules, target, scope)?;
    let scopes = match &query.among {
        Among::Visible => Scopes::Visible(query.reader.as_ref()),
        Among::Own(me) => Scopes::OwnedBy(me),
        Among::Collection(id) => Scopes::Collection(id),
    };
    let mut tally = Explored::default();
    for count in explorer_counts::moves_from(conn, query.key, query.rules, scopes)? {
        let counts = [count.games, count.white, count.draws, count.black];
        match count.next {
            explorer_counts::CORRECTION => tally.add(None, counts.map(|n| -n)),
            next => {
                tally.add(Some(next), counts);
                tally.add(None, counts);
            }
        }
    }
    if let Among::Own(me) = &query.among {
        for found in search::moves_played_by(conn, query.key, query.rules, me)? {
            tally.add(found.next, Explored::of_result(found.result, found.games));
        }
    }
    let legal = pos.legal_moves();
    let mut moves: Vec<ExplorerMove> = tally
        .by_move
        .into_iter()
        // A number no move of this position has: another position with
        // the same key, which a 64-bit key makes all but never.
        .filter_map(|(next, counts)| {
            let m = packed::move_numbered(&pos, usize::try_from(next).ok()?)?;
            Some(explorer_move(
                pos.uci(&m),
                pos.san_among(&m, &legal),
                counts,
            ))
        })
        .collect();
    moves.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.san.cmp(&b.san)));
    let [games, white, draws, black] = tally.total;
    Ok(ExplorerView {
        fen: pos.fen(),
        games,
        white,
        draws,
        black,
        moves,
    })
}

/// The explorer's counts being summed: games, White's wins, draws and
/// Black's wins, by move and for the position (each game once).
#[derive(Debug, Default)]
struct Explored {
    by_move: HashMap<i16, [i64; 4]>,
    total: [i64; 4],
}

impl Explored {
    /// Adds `counts` to the move numbered `next`, or to the total.
    fn add(&mut self, next: Option<i16>, counts: [i64; 4]) {
        let sums = match next {
            Some(next) => self.by_move.entry(next).or_default(),
            None => &mut self.total,
        };
        for (sum, n) in sums.iter_mut().zip(counts) {
            *sum += n;
        }
    }

    /// The counts of `games` games that ended with `result`.
    fn of_result(result: GameResult, games: i64) -> [i64; 4] {
        match result {
            GameResult::WhiteWon => [games, games, 0, 0],
            GameResult::Draw => [games, 0, games, 0],
            GameResult::BlackWon => [games, 0, 0, games],
            GameResult::Unknown => [games, 0, 0, 0],
        }
    }
}

fn explorer_move(uci: String, san: String, [games, white, draws, black]: [i64; 4]) -> ExplorerMove {
    ExplorerMove {
        uci,
        san,
        games,
        white,
        draws,
        black,
    }
}

/// One page of the games `filter` finds in `scope`, newest first, after
/// the cursor `after` (from [`cursor::decode`]).
pub fn games(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    filter: &GameFilter,
    scope: Scope,
    after: Option<(i64, String)>,
    limit: i64,
) -> Result<GameSearch, ApiError> {
    let (rows, more) = games_found(conn, reader, filter, scope, after, limit)?;
    let spellings = spellings_of(&rows, filter);
    let next_cursor = rows
        .last()
        .filter(|_| more)
        .map(|row| cursor::encode(row.created_at, &row.id));
    let games = rows.into_iter().map(archived).collect::<Result<_, _>>()?;
    Ok(GameSearch {
        games,
        next_cursor,
        spellings,
    })
}

/// How `rows` spell the player `filter` asks for (and the opponent), each
/// spelling once, in order.
fn spellings_of(rows: &[GameRow], filter: &GameFilter) -> Vec<String> {
    let asked: Vec<names::NameKey> = [&filter.player, &filter.opponent]
        .into_iter()
        .flatten()
        .map(|name| names::key(name))
        .collect();
    let mut spellings: Vec<String> = rows
        .iter()
        .flat_map(|row| [&row.white_name, &row.black_name])
        .filter(|name| {
            let written = names::key(name);
            asked.iter().any(|key| key.finds(&written))
        })
        .cloned()
        .collect();
    spellings.sort();
    spellings.dedup();
    spellings
}

/// One page of the games `filter` finds in `scope`, as [`games`] finds
/// them, as PGN, and the cursor to go on from.
pub fn games_pgn(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    filter: &GameFilter,
    scope: Scope,
    after: Option<(i64, String)>,
    limit: i64,
) -> Result<(String, Option<(i64, String)>), ApiError> {
    let (rows, more) = games_found(conn, reader, filter, scope, after, limit)?;
    let next = rows
        .last()
        .filter(|_| more)
        .map(|row| (row.created_at, row.id.to_string()));
    Ok((pgn_of_rows(conn, &rows)?, next))
}

/// The rows of one page of the games `filter` finds, newest first, and
/// whether more follow.
fn games_found(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    filter: &GameFilter,
    scope: Scope,
    after: Option<(i64, String)>,
    limit: i64,
) -> Result<(Vec<GameRow>, bool), ApiError> {
    let among = among_of(conn, reader, scope)?;
    let after = after.map(|(created, id)| (created, GameId::from(id)));
    let ids = search::games_matching(conn, reader, &among, filter, after.as_ref(), limit + 1)?;
    let more = ids.len() as i64 > limit;
    let ids: Vec<&GameId> = ids.iter().take(limit as usize).collect();
    Ok((in_order(rows_by_id(conn, &ids)?, &ids), more))
}

/// Games whose names a transaction of [`fold_stored_names`] folds.
const FOLDED_AT_ONCE: i64 = 1000;

/// Folds for search the names of the games stored before the server
/// folded them (migration 29), a thousand a transaction: how many.
pub fn fold_stored_names(conn: &mut DbConnection) -> Result<usize, ApiError> {
    let mut folded = 0;
    loop {
        // Read first: a database with nothing to fold is not written.
        let rows = game::unfolded_names(conn, FOLDED_AT_ONCE)?;
        if rows.is_empty() {
            return Ok(folded);
        }
        write_transaction(conn, |conn| {
            rows.iter().try_for_each(|(id, white, black)| {
                game::set_name_keys(conn, id, &names::key(white), &names::key(black))
            })
        })?;
        let batch = rows.len();
        folded += batch;
        if folded > 0 && folded % 100_000 < batch {
            tracing::info!(folded, "players' names folded for search");
        }
        if (batch as i64) < FOLDED_AT_ONCE {
            return Ok(folded);
        }
    }
}
