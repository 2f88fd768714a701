//! Where a game begins, as challenges ask for it and games show it.

use kingpost_core::{Rules, UnknownRules};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::stored::text_column;

/// Where a game begins (docs/spec/rules.md §1.2, starts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StartSpec {
    // Empty struct variants, not unit ones: they refuse unknown fields, so
    // that `{"kind": "standard", "id": 3}` is an error.
    /// The usual array.
    Standard {},
    /// A Chess960 array by Scharnagl number 0..959, random when left out.
    Chess960 {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u16>,
    },
    /// A shuffle array by id 0..2879 (King to Bunker Leap), random when left out.
    Shuffle {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u16>,
    },
    /// Empty back ranks and a placement phase (King to Bunker Leap).
    Prechess {},
    /// Any legal position of the rule set, as extended FEN.
    Fen { fen: String },
}

/// A rule set as the API and the database name it: its key from
/// `GET /api/v1/variants`, in TEXT columns as in JSON. Read strictly: a
/// key the engine does not know is an error, never a guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, diesel::AsExpression, diesel::FromSqlRow)]
#[diesel(sql_type = diesel::sql_types::Text)]
pub struct RuleKey(pub Rules);

impl From<Rules> for RuleKey {
    fn from(rules: Rules) -> RuleKey {
        RuleKey(rules)
    }
}

impl std::str::FromStr for RuleKey {
    type Err = String;

    fn from_str(text: &str) -> Result<RuleKey, String> {
        text.parse()
            .map(RuleKey)
            .map_err(|e: UnknownRules| e.to_string())
    }
}

impl Serialize for RuleKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.key())
    }
}

impl<'de> Deserialize<'de> for RuleKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RuleKey, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for RuleKey {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("A rule set's key, from `GET /api/v1/variants`."))
            .enum_values(Some(Rules::ALL.map(Rules::key)))
            .into()
    }
}

impl ToSchema for RuleKey {}

text_column!(RuleKey, |rules| rules.0.key());
