//! Server-wide settings kept in the database.

use diesel::prelude::*;

use crate::db::{DbConnection, schema::settings};

pub fn get(conn: &mut DbConnection, key: &str) -> QueryResult<Option<String>> {
    settings::table
        .find(key)
        .select(settings::value)
        .first(conn)
        .optional()
}

/// Stores `value` under `key` unless the key has one; returns the value
/// that stands (so two instances starting at once agree).
pub fn get_or_insert(conn: &mut DbConnection, key: &str, value: &str) -> QueryResult<String> {
    crate::db::write_transaction(conn, |conn| {
        if let Some(existing) = get(conn, key)? {
            return Ok(existing);
        }
        diesel::insert_into(settings::table)
            .values((settings::key.eq(key), settings::value.eq(value)))
            .execute(conn)?;
        Ok(value.to_owned())
    })
}
