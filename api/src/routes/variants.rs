//! `/api/v1/variants`: the rule sets and how their moves are written.

use actix_web::{get, web};
use kingpost_core::Rules;

use crate::views::{VariantList, VariantView};

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
