//! The archive's searches: games by a position they reached, by their own
//! data, and the moves played from a position, among the games a reader
//! may see.
//!
//! Written as SQL, with `$n` parameters in the order they appear (which
//! both SQLite and Postgres number so): the visibility test is a correlated
//! `EXISTS` per candidate found along an index, which the query builder
//! cannot say across these tables.

use diesel::{
    prelude::*,
    sql_types::{BigInt, Integer, Text},
};

use crate::{
    db::{DbConnection, MultiBackend},
    models::{game::StartKind, position_index::NO_MOVE},
    names,
    stored::{AccountId, CollectionId, GameId},
    views::{GameResult, GameStatus, RuleKey, Termination, Visibility},
};

/// Which games a search looks among, beyond those the reader may see.
#[derive(Debug, Clone)]
pub enum Among {
    /// Every game the reader may see: played games, games of public
    /// collections, and the reader's own collections.
    Visible,
    /// The reader's played games and collections.
    Own(AccountId),
    /// One collection (which the reader may see).
    Collection(CollectionId),
}

/// A search: a position of a rule set, among some games, for a reader.
#[derive(Debug, Clone)]
pub struct PositionQuery {
    pub key: i64,
    pub rules: RuleKey,
    pub reader: Option<AccountId>,
    pub among: Among,
}

#[derive(Debug, QueryableByName)]
struct Hit {
    #[diesel(sql_type = Text)]
    game_id: String,
    #[diesel(sql_type = Integer)]
    ply: i32,
}

/// A query being written: its text and its parameters in order.
struct Sql {
    query: diesel::query_builder::BoxedSqlQuery<
        'static,
        MultiBackend,
        diesel::query_builder::SqlQuery,
    >,
    params: usize,
}

impl Sql {
    fn new(text: &str) -> Sql {
        Sql {
            query: diesel::sql_query(text).into_boxed(),
            params: 0,
        }
    }

    fn text(mut self, text: &str) -> Sql {
        self.query = self.query.sql(text);
        self
    }

    /// The next parameter's placeholder, `$n`.
    fn placeholder(&mut self) -> String {
        self.params += 1;
        format!("${}", self.params)
    }

    fn text_param(mut self, before: &str, value: String) -> Sql {
        let at = self.placeholder();
        self.query = self
            .query
            .sql(format!("{before}{at}"))
            .bind::<Text, _>(value);
        self
    }

    fn int_param(mut self, before: &str, value: i64) -> Sql {
        let at = self.placeholder();
        self.query = self
            .query
            .sql(format!("{before}{at}"))
            .bind::<BigInt, _>(value);
        self
    }
}

/// Adds the conditions on the game `g`: its rule set, that the reader may
/// see it, and that it is among the games asked for.
fn game_conditions(sql: Sql, query: &PositionQuery) -> Sql {
    let sql = sql.text_param(" AND g.rules = ", query.rules.0.key().to_owned());
    visible_among(sql, query.reader.as_ref(), &query.among)
}

/// Adds that the reader may see the game `g` (played, or in a public
/// collection or one of the reader's), and that it is among `among`.
fn visible_among(sql: Sql, reader: Option<&AccountId>, among: &Among) -> Sql {
    let imported = GameStatus::Imported.key();
    let public = Visibility::Public.key();
    let reader = reader.map_or_else(String::new, ToString::to_string);
    let sql = sql
        .text(&format!(
            " AND (g.status <> '{imported}' OR EXISTS (SELECT 1 FROM collection_games cg \
             JOIN collections c ON c.id = cg.collection_id WHERE cg.game_id = g.id \
             AND (c.visibility = '{public}'"
        ))
        .text_param(" OR c.owner_id = ", reader)
        .text(")))");
    match among {
        Among::Visible => sql,
        Among::Own(me) => sql
            .text_param(" AND (g.white_id = ", me.to_string())
            .text_param(" OR g.black_id = ", me.to_string())
            .text(
                " OR EXISTS (SELECT 1 FROM collection_games cg JOIN collections c \
                 ON c.id = cg.collection_id WHERE cg.game_id = g.id",
            )
            .text_param(" AND c.owner_id = ", me.to_string())
            .text("))"),
        Among::Collection(id) => sql
            .text(" AND EXISTS (SELECT 1 FROM collection_games cg WHERE cg.game_id = g.id")
            .text_param(" AND cg.collection_id = ", id.to_string())
            .text(")"),
    }
}

/// The games `query` finds after the game `after`, in order of id, each with
/// the first ply where it stood in the position (0 for its start): up to
/// `limit`, and whether more follow.
///
/// The index's rows are read in its order and grouped here, so that a
/// page reads a page of rows whatever the position's count (a `GROUP BY`
/// let Postgres aggregate every game of a common position first).
pub fn reaching(
    conn: &mut DbConnection,
    query: &PositionQuery,
    after: Option<&GameId>,
    limit: i64,
) -> QueryResult<(Vec<(GameId, i32)>, bool)> {
    let order = super::byte_order(conn);
    let after = after.map_or("", |id| id.as_str());
    // A game stands in a position once or twice, rarely left by more moves:
    // room for the page's games and one more, with their repeats.
    let rows = 2 * (limit + 1) + 16;
    let sql = Sql::new("SELECT p.game_id AS game_id, p.ply AS ply FROM game_positions p WHERE")
        .int_param(" p.position_key = ", query.key)
        .text_param(&format!(" AND p.game_id{order} > "), after.to_owned())
        .text(&format!(
            " AND EXISTS (SELECT 1 FROM games g WHERE g.id = p.game_id{}",
            super::games_collation(conn)
        ));
    let hits: Vec<Hit> = game_conditions(sql, query)
        .text(&format!(") ORDER BY p.game_id{order}, p.next"))
        .int_param(" LIMIT ", rows)
        .query
        .load(conn)?;
    let cut = hits.len() as i64 == rows;
    let mut games: Vec<(String, i32)> = Vec::new();
    for hit in hits {
        match games.last_mut() {
            Some((id, ply)) if *id == hit.game_id => *ply = (*ply).min(hit.ply),
            _ => games.push((hit.game_id, hit.ply)),
        }
    }
    // The last game of a cut read may have more rows past it: it is shown
    // on the next page, unless it is the only one.
    if cut && games.len() > 1 {
        games.pop();
    }
    let more = cut || games.len() as i64 > limit;
    let page = games
        .into_iter()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|(id, ply)| (GameId::from(id), ply))
        .collect();
    Ok((page, more))
}

/// How often one move was played from a position, and how those games
/// ended, as one query row; without a move (`next` `None`), how many games
/// played any move from it, each counted once.
#[derive(Debug, QueryableByName)]
pub struct MoveTally {
    /// The move's number among the position's legal moves
    /// (docs/spec/packed-moves.md).
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::SmallInt>)]
    pub next: Option<i16>,
    /// A stored value the code does not know fails the read, as any other
    /// column's.
    #[diesel(sql_type = Text)]
    pub result: GameResult,
    #[diesel(sql_type = BigInt)]
    pub games: i64,
}

/// The moves played from the position `key` of `rules` in the finished
/// games `player` played, by move and result, each game counted once a
/// move; and, without a move, the games that played any, each counted
/// once. Read from the player's games, each looked up in the index: a
/// player's own explorer costs what the player has played, not what the
/// archive holds.
pub fn moves_played_by(
    conn: &mut DbConnection,
    key: i64,
    rules: RuleKey,
    player: &AccountId,
) -> QueryResult<Vec<MoveTally>> {
    let finished = GameStatus::Finished.key();
    Sql::new(&format!(
        "WITH reached AS MATERIALIZED (SELECT p.game_id AS id, p.next AS next, \
         g.result AS result FROM games g JOIN game_positions p ON p.game_id = g.id{} WHERE",
        super::byte_order(conn)
    ))
    .int_param(" p.position_key = ", key)
    .text(&format!(
        " AND p.next <> {NO_MOVE} AND g.status = '{finished}'"
    ))
    .text_param(" AND g.rules = ", rules.0.key().to_owned())
    .text_param(" AND (g.white_id = ", player.to_string())
    .text_param(" OR g.black_id = ", player.to_string())
    .text(
        ")) SELECT next, result, COUNT(*) AS games FROM reached GROUP BY next, result \
         UNION ALL SELECT NULL, result, COUNT(DISTINCT id) FROM reached GROUP BY result",
    )
    .query
    .load(conn)
}

/// What a search by the games' own data asks for; each is left out when
/// none.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    pub rules: Option<RuleKey>,
    /// A player's name: every spelling of it (`names::NameKey::finds`).
    pub player: Option<String>,
    /// With `player`: the player's opponent.
    pub opponent: Option<String>,
    pub start: Option<StartKind>,
    pub result: Option<GameResult>,
    pub termination: Option<Termination>,
    /// Played on or after this day, in PGN's form or a prefix of it.
    pub since: Option<String>,
    /// Played before this day, in PGN's form or a prefix of it.
    pub until: Option<String>,
    /// An ECO code or its prefix (`B`, `B9`, `B90`): the game's own `ECO`
    /// tag when it has one, else the tables'.
    pub eco: Option<String>,
    /// Words of the opening's name, in any case and order: the game's own
    /// `Opening` tag when it has one, else the tables'.
    pub opening: Option<String>,
    /// An ECO code or its prefix, as the tables name the game's moves.
    pub computed_eco: Option<String>,
    /// Words of the opening's name, as the tables name the game's moves.
    pub computed_opening: Option<String>,
    pub min_plies: Option<i32>,
    pub max_plies: Option<i32>,
}

/// That the name of `side` (`white` or `black`) of game `g` may be the
/// player `asked`, as `names::NameKey::finds` has it: the same surname, and
/// first given names that do not differ.
fn plays(sql: Sql, side: &str, asked: &names::NameKey) -> Sql {
    let sql = sql.text_param(&format!("(g.{side}_surname = "), asked.surname.clone());
    if asked.first.is_empty() {
        return sql.text(")");
    }
    let first = format!("g.{side}_first");
    let sql = sql
        .text(&format!(" AND ({first} = ''"))
        .text_param(&format!(" OR {first} = "), asked.first.clone());
    let initial: String = asked.first.chars().take(1).collect();
    if asked.first.chars().count() == 1 {
        sql.text_param(&format!(" OR substr({first}, 1, 1) = "), initial)
            .text("))")
    } else {
        sql.text_param(&format!(" OR (length({first}) = 1 AND {first} = "), initial)
            .text(")))")
    }
}

/// That the ECO code `column` begins with `eco`.
fn eco_condition(sql: Sql, column: &str, eco: &str) -> Sql {
    sql.text_param(
        &format!(" AND {column} LIKE "),
        format!("{}%", like_escaped(eco)),
    )
    .text(" ESCAPE '\\'")
}

/// That each of `words` is somewhere in the opening name `column`, in any
/// order: "indian king's" finds the King's Indian Defense.
fn name_condition(mut sql: Sql, column: &str, words: &str) -> Sql {
    for word in words.to_lowercase().split_whitespace() {
        sql = sql
            .text_param(
                &format!(" AND lower({column}) LIKE "),
                format!("%{}%", like_escaped(word)),
            )
            .text(" ESCAPE '\\'");
    }
    sql
}

/// `text` for a `LIKE` pattern, its wildcards escaped with `\`.
fn like_escaped(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// The ids of the games `filter` finds among those `reader` may see in
/// `among`, newest first, after the cursor `(created_at, id)`.
pub fn games_matching(
    conn: &mut DbConnection,
    reader: Option<&AccountId>,
    among: &Among,
    filter: &GameFilter,
    after: Option<&(i64, GameId)>,
    limit: i64,
) -> QueryResult<Vec<GameId>> {
    let mut sql = Sql::new("SELECT g.id AS game_id, 0 AS ply FROM games g WHERE 1 = 1");
    if let Some(rules) = filter.rules {
        sql = sql.text_param(" AND g.rules = ", rules.0.key().to_owned());
    }
    match (&filter.player, &filter.opponent) {
        (Some(player), Some(opponent)) => {
            let (player, opponent) = (names::key(player), names::key(opponent));
            sql = sql.text(" AND ((");
            sql = plays(sql, "white", &player).text(" AND ");
            sql = plays(sql, "black", &opponent).text(") OR (");
            sql = plays(sql, "black", &player).text(" AND ");
            sql = plays(sql, "white", &opponent).text("))");
        }
        (Some(player), None) => {
            let player = names::key(player);
            sql = sql.text(" AND (");
            sql = plays(sql, "white", &player).text(" OR ");
            sql = plays(sql, "black", &player).text(")");
        }
        (None, _) => {}
    }
    if let Some(start) = filter.start {
        sql = sql.text_param(" AND g.start_kind = ", start.key().to_owned());
    }
    if let Some(result) = filter.result {
        sql = sql.text_param(" AND g.result = ", result.key().to_owned());
    }
    if let Some(termination) = filter.termination {
        sql = sql.text_param(" AND g.termination = ", termination.key().to_owned());
    }
    // Days compare by their bytes. A partial date (`1935.??.??`) is every
    // day it may be: its `?`, after the digits, make it its period's last
    // day against `since`, and read as `0` its first against `until`.
    let order = super::byte_order(conn);
    if let Some(since) = &filter.since {
        sql = sql.text_param(&format!(" AND g.played_on{order} >= "), since.clone());
    }
    if let Some(until) = &filter.until {
        sql = sql.text_param(
            &format!(" AND replace(g.played_on, '?', '0'){order} < "),
            until.clone(),
        );
    }
    // A game's own tags first, as written; the tables' names otherwise.
    let (written_eco, written_name) = (
        "COALESCE(g.tagged_eco, g.eco)",
        "COALESCE(g.tagged_opening, g.opening)",
    );
    if let Some(eco) = &filter.eco {
        sql = eco_condition(sql, written_eco, eco);
    }
    if let Some(words) = &filter.opening {
        sql = name_condition(sql, written_name, words);
    }
    if let Some(eco) = &filter.computed_eco {
        sql = eco_condition(sql, "g.eco", eco);
    }
    if let Some(words) = &filter.computed_opening {
        sql = name_condition(sql, "g.opening", words);
    }
    if let Some(min) = filter.min_plies {
        sql = sql.int_param(" AND g.ply >= ", i64::from(min));
    }
    if let Some(max) = filter.max_plies {
        sql = sql.int_param(" AND g.ply <= ", i64::from(max));
    }
    if let Some((created, id)) = after {
        sql = sql
            .int_param(" AND (g.created_at < ", *created)
            .int_param(" OR (g.created_at = ", *created)
            .text_param(" AND g.id < ", id.to_string())
            .text("))");
    }
    let hits: Vec<Hit> = visible_among(sql, reader, among)
        .int_param(" ORDER BY g.created_at DESC, g.id DESC LIMIT ", limit)
        .query
        .load(conn)?;
    Ok(hits
        .into_iter()
        .map(|hit| GameId::from(hit.game_id))
        .collect())
}
