//! The rule sets, as clients list them.

use serde::Serialize;
use utoipa::ToSchema;

/// A rule set of the specification (docs/spec/rules.md §1.1).
#[derive(Debug, Serialize, ToSchema)]
pub struct VariantView {
    /// The key used in challenges and games.
    pub key: String,
    /// The PGN `Variant` name from the usual array.
    pub name: String,
    /// The PGN `Variant` name from a Chess960 start, if it has one.
    pub name_960: Option<String>,
    /// The kinds of start it is played from.
    pub starts: Vec<String>,
    /// How its own moves are written.
    pub notation: String,
}

/// The rule sets.
#[derive(Debug, Serialize, ToSchema)]
pub struct VariantList {
    pub variants: Vec<VariantView>,
}
