//! An `UPDATE` that a connection prepares once and keeps.
//!
//! Diesel keeps no `UPDATE` prepared: in general the `SET` list of a
//! changeset that skips absent fields can take many forms, so every use is
//! parsed and planned again by Postgres (about a fifth of a one-statement
//! transaction's time here) and compiled again by SQLite. [`kept_update`]
//! writes the same statement from the same parts, which the connection's
//! cache then keeps by its text: for statements run on every move, whose
//! changesets take one form.

use diesel::{
    QueryResult, QuerySource, RunQueryDsl, Table,
    backend::Backend,
    expression::{AppearsOnTable, Expression},
    query_builder::{AsChangeset, AstPass, QueryFragment, QueryId},
    sql_types::BoolOrNullableBool,
};

/// `UPDATE table SET values WHERE filter`, kept prepared by the
/// connection. Only for changesets of one form or a few (and of at least
/// one column): each form stays prepared as long as the connection.
pub fn kept_update<T, W, V>(table: T, filter: W, values: V) -> KeptUpdate<T, W, V::Changeset>
where
    T: Table,
    W: Expression + AppearsOnTable<T>,
    W::SqlType: BoolOrNullableBool,
    V: AsChangeset<Target = T>,
{
    KeptUpdate {
        from: table.from_clause(),
        filter,
        set: values.as_changeset(),
    }
}

/// An update kept prepared: see [`kept_update`].
#[derive(Debug, Clone)]
pub struct KeptUpdate<T: QuerySource, W, S> {
    from: T::FromClause,
    filter: W,
    set: S,
}

impl<T: QuerySource, W, S> QueryId for KeptUpdate<T, W, S> {
    type QueryId = ();
    // Kept by its text: the type does not fix it.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<T, W, S, DB> QueryFragment<DB> for KeptUpdate<T, W, S>
where
    DB: Backend,
    T: QuerySource,
    T::FromClause: QueryFragment<DB>,
    W: QueryFragment<DB>,
    S: QueryFragment<DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("UPDATE ");
        self.from.walk_ast(out.reborrow())?;
        out.push_sql(" SET ");
        self.set.walk_ast(out.reborrow())?;
        out.push_sql(" WHERE ");
        self.filter.walk_ast(out.reborrow())
    }
}

impl<T: QuerySource, W, S, Conn> RunQueryDsl<Conn> for KeptUpdate<T, W, S> {}

#[cfg(test)]
mod tests {
    use diesel::{
        Connection, SqliteConnection,
        connection::{Instrumentation, InstrumentationEvent},
        prelude::*,
    };

    use super::*;

    diesel::table! {
        boards (id) {
            id -> Integer,
            fen -> Text,
        }
    }

    /// Counts the statements a connection put in its cache.
    #[derive(Default)]
    struct Kept(Vec<String>);

    impl Instrumentation for Kept {
        fn on_connection_event(&mut self, event: InstrumentationEvent<'_>) {
            if let InstrumentationEvent::CacheQuery { sql, .. } = event {
                self.0.push(sql.to_owned());
            }
        }
    }

    fn kept(conn: &mut SqliteConnection) -> Vec<String> {
        let recorded = conn.instrumentation().as_any().downcast_ref::<Kept>();
        recorded.map(|kept| kept.0.clone()).unwrap_or_default()
    }

    #[test]
    fn an_update_is_prepared_once_and_does_what_diesels_does() {
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        diesel::sql_query("CREATE TABLE boards (id INTEGER PRIMARY KEY, fen TEXT NOT NULL)")
            .execute(&mut conn)
            .unwrap();
        diesel::sql_query("INSERT INTO boards VALUES (1, 'a'), (2, 'b')")
            .execute(&mut conn)
            .unwrap();
        conn.set_instrumentation(Kept::default());
        for fen in ["c", "d", "e"] {
            let changed = kept_update(boards::table, boards::id.eq(1), boards::fen.eq(fen))
                .execute(&mut conn)
                .unwrap();
            assert_eq!(changed, 1);
        }
        // Diesel's own update, for comparison, is never kept.
        diesel::update(boards::table.filter(boards::id.eq(2)))
            .set(boards::fen.eq("f"))
            .execute(&mut conn)
            .unwrap();
        assert_eq!(
            kept(&mut conn),
            ["UPDATE `boards` SET `fen` = ? WHERE (`boards`.`id` = ?)"]
        );
        let fens: Vec<(i32, String)> = boards::table.order(boards::id).load(&mut conn).unwrap();
        assert_eq!(fens, [(1, "e".to_owned()), (2, "f".to_owned())]);
    }
}
