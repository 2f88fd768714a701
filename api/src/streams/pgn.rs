//! Archives streamed as PGN a page at a time, so that no answer is held
//! whole (an account's games, a search's, a collection's).

use actix_web::{
    HttpResponse,
    http::header::CONTENT_DISPOSITION,
    web::{self, Bytes},
};
use futures_util::{StreamExt, stream};

use crate::{
    db::DbConnection, error::ApiError, middleware::limits::ExpensiveTurn, openapi::PGN,
    state::AppState,
};

/// A PGN file streamed a page at a time, so that no answer is held whole:
/// `page` reads the page after a cursor (none: from the start) and gives
/// the cursor after it (none: the page was the last); the first page is
/// read after `first`.
pub fn streamed_pgn<C, F>(
    state: web::Data<AppState>,
    turn: ExpensiveTurn,
    file_name: &str,
    first: Option<C>,
    page: F,
) -> HttpResponse
where
    C: Clone + Send + 'static,
    F: Fn(&mut DbConnection, Option<C>) -> Result<(String, Option<C>), ApiError>
        + Clone
        + Send
        + 'static,
{
    // State: the cursor to read after; none once the last page is sent.
    let pages = stream::unfold(Some(first), move |after| {
        let (app, page) = (state.clone(), page.clone());
        async move {
            let after = after?;
            match app
                .read_lagging(move |conn| page(conn, after.clone()))
                .await
            {
                Ok((text, _)) if text.is_empty() => None,
                Ok((text, next)) => Some((Ok::<_, ApiError>(Bytes::from(text)), next.map(Some))),
                Err(error) => Some((Err(error), None)),
            }
        }
    });
    HttpResponse::Ok()
        .content_type(PGN)
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{file_name}.pgn\""),
        ))
        .streaming(pages.map(move |page| {
            // The turn is held until the last page is sent.
            let _held = &turn;
            page.map_err(actix_web::Error::from)
        }))
}
