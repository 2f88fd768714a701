//! The wire types: every body a client sends and every answer it reads, in
//! one home, so that the OpenAPI document has one source. What builds them
//! from stored rows lives with the domain that reads the rows.

/// Names a text body in the spec, so that every body has a named schema.
macro_rules! text_schema {
    ($name:ident, $description:literal) => {
        #[doc = $description]
        #[derive(Debug)]
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some($description))
                    .into()
            }
        }

        impl utoipa::ToSchema for $name {}
    };
}

mod account;
mod annotation;
mod challenge;
mod clock;
mod collection;
mod event;
mod explorer;
mod game;
pub mod lichess;
mod message;
mod moment;
mod notification;
mod pgn;
mod rating;
mod search;
mod start;
mod team;
mod tournament;
mod variant;

pub use account::*;
pub use annotation::*;
pub use challenge::*;
pub use clock::*;
pub use collection::*;
pub use event::*;
pub use explorer::*;
pub use game::*;
pub use message::*;
pub use moment::*;
pub use notification::*;
pub use pgn::*;
pub use rating::*;
pub use search::*;
pub use start::*;
pub use team::*;
pub use tournament::*;
pub use variant::*;
