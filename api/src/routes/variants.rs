//! `/api/v1/variants`: the rule sets and how their moves are written.

use actix_web::{get, web};
use kingpost_core::Rules;
use serde::Serialize;
use utoipa::ToSchema;

/// A rule set of RULES.md.
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

/// List the rule sets, their starts, PGN names and notation.
#[utoipa::path(
    tag = "variants",
    responses((status = 200, description = "Every rule set", body = VariantList))
)]
#[get("/variants")]
pub async fn list_variants() -> web::Json<VariantList> {
    let variants = Rules::ALL
        .into_iter()
        .map(|rules| {
            let name = rules.pgn_name(false);
            let name_960 = rules.pgn_name(true);
            VariantView {
                key: rules.key().to_owned(),
                name: name.to_owned(),
                name_960: (name_960 != name).then(|| name_960.to_owned()),
                starts: rules
                    .starts()
                    .iter()
                    .map(|kind| kind.key().to_owned())
                    .collect(),
                notation: rules.notation().to_owned(),
            }
        })
        .collect();
    web::Json(VariantList { variants })
}
