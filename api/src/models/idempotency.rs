//! Idempotency keys and the first answers they keep.

use diesel::prelude::*;

use crate::{
    clock::{DAY, Millis},
    db::{DbConnection, schema::idempotency_keys},
};

/// How long a key and its first answer are kept.
pub const KEPT_FOR: Millis = DAY;

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = idempotency_keys)]
pub struct IdempotencyRow {
    pub scope: String,
    pub key: String,
    pub request_hash: String,
    pub status: Option<i32>,
    pub content_type: Option<String>,
    pub body: Option<Vec<u8>>,
    pub created_at: i64,
    /// The answer's headers but its body's framing, as JSON `[name, value]`
    /// pairs; none for keys kept before headers were.
    pub headers: Option<String>,
}

/// The first answer to a key, as kept.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    pub status: i32,
    pub content_type: &'a str,
    /// JSON `[name, value]` pairs.
    pub headers: &'a str,
    pub body: &'a [u8],
}

/// Claims `key` for a request; false when it was claimed before.
pub fn claim(
    conn: &mut DbConnection,
    scope: &str,
    key: &str,
    request_hash: &str,
    now: i64,
) -> QueryResult<bool> {
    let inserted = diesel::insert_into(idempotency_keys::table)
        .values((
            idempotency_keys::scope.eq(scope),
            idempotency_keys::key.eq(key),
            idempotency_keys::request_hash.eq(request_hash),
            idempotency_keys::created_at.eq(now),
        ))
        .execute(conn);
    match inserted {
        Ok(_) => Ok(true),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => Ok(false),
        Err(other) => Err(other),
    }
}

pub fn find(
    conn: &mut DbConnection,
    scope: &str,
    key: &str,
) -> QueryResult<Option<IdempotencyRow>> {
    idempotency_keys::table
        .find((scope, key))
        .select(IdempotencyRow::as_select())
        .first(conn)
        .optional()
}

/// Claims again a key whose request has run since before `stale_before`
/// without an answer: the instance that ran it died. False when another
/// request took it over first, or it was answered meanwhile.
pub fn take_over(
    conn: &mut DbConnection,
    row: &IdempotencyRow,
    stale_before: i64,
    now: i64,
) -> QueryResult<bool> {
    if row.status.is_some() || row.created_at >= stale_before {
        return Ok(false);
    }
    diesel::update(
        idempotency_keys::table
            .find((&row.scope, &row.key))
            .filter(idempotency_keys::status.is_null())
            .filter(idempotency_keys::created_at.eq(row.created_at)),
    )
    .set(idempotency_keys::created_at.eq(now))
    .execute(conn)
    .map(|n| n == 1)
}

/// Keeps the first answer.
pub fn complete(
    conn: &mut DbConnection,
    scope: &str,
    key: &str,
    answer: Answer<'_>,
) -> QueryResult<()> {
    diesel::update(idempotency_keys::table.find((scope, key)))
        .set((
            idempotency_keys::status.eq(answer.status),
            idempotency_keys::content_type.eq(answer.content_type),
            idempotency_keys::headers.eq(answer.headers),
            idempotency_keys::body.eq(answer.body),
        ))
        .execute(conn)
        .map(|_| ())
}

/// Forgets a key whose request failed on the server, so it can be retried.
pub fn release(conn: &mut DbConnection, scope: &str, key: &str) -> QueryResult<()> {
    diesel::delete(idempotency_keys::table.find((scope, key)))
        .execute(conn)
        .map(|_| ())
}

/// Forgets the oldest keys before `before`, up to `limit` of them (a few
/// more where several share the last one's time): how many.
pub fn prune(conn: &mut DbConnection, before: i64, limit: i64) -> QueryResult<usize> {
    let oldest: Vec<i64> = idempotency_keys::table
        .filter(idempotency_keys::created_at.lt(before))
        .select(idempotency_keys::created_at)
        .order(idempotency_keys::created_at)
        .limit(limit)
        .load(conn)?;
    let Some(&last) = oldest.last() else {
        return Ok(0);
    };
    diesel::delete(idempotency_keys::table.filter(idempotency_keys::created_at.le(last)))
        .execute(conn)
}
