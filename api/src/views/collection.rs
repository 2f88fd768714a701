//! Collections of imported games, for study.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ArchivedGame, PlayerView, Timestamp};
use crate::stored::text_enum;

text_enum! {
    /// Who may see a collection: its owner alone, or everyone.
    #[derive(Default, ToSchema)]
    pub enum Visibility ("visibility") {
        #[default]
        Private = "private",
        Public = "public",
    }
}

/// A collection to make.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateCollectionRequest {
    /// 1 to 100 characters, unique among the caller's collections.
    pub name: String,
    /// Private when left out.
    #[serde(default)]
    pub visibility: Visibility,
}

/// What to change of a collection; what is left out stays.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateCollectionRequest {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub visibility: Option<Visibility>,
}

/// A collection, without its games.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollectionView {
    pub id: String,
    pub name: String,
    pub owner: PlayerView,
    pub visibility: Visibility,
    /// How many games it holds.
    pub games: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Collections, by name.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollectionList {
    pub collections: Vec<CollectionView>,
}

/// One page of a collection's games, in the order they were imported.
#[derive(Debug, Serialize, ToSchema)]
pub struct CollectionGames {
    pub games: Vec<ArchivedGame>,
    /// Pass as `cursor` for the next page; null on the last.
    pub next_cursor: Option<String>,
}
