//! `/api/v1/variants`: the rule sets, how their moves are written, and the
//! times games may be played at: what a client needs to offer a player
//! only what the server accepts.

use actix_web::{get, web};
use kingpost_core::Rules;

use crate::{
    domain::{
        game::clock::{
            BANK_INCREMENT_DAYS, BANK_INITIAL_DAYS, BANK_MAX_DAYS, CONTROL_DAYS, CONTROL_MOVES,
        },
        ratings::rated_start,
    },
    models::game::StartKind,
    views::{Bounds, DAYS_PER_MOVE, TimeChoices, VariantList, VariantView},
};

/// List the rule sets, their starts, PGN names and notation, and the times
/// a challenge or tournament may ask for.
#[utoipa::path(
    tag = "variants",
    responses((status = 200, description = "Every rule set, and the times on offer", body = VariantList))
)]
#[get("/variants")]
pub async fn list_variants() -> web::Json<VariantList> {
    let variants = Rules::ALL
        .into_iter()
        .map(|rules| {
            let name = rules.pgn_name(false);
            let name_960 = rules.pgn_name(true);
            let starts = rules.starts();
            let key = |kind: &kingpost_core::StartKind| kind.key().to_owned();
            VariantView {
                key: rules.key().to_owned(),
                title: title(rules).to_owned(),
                name: name.to_owned(),
                name_960: (name_960 != name).then(|| name_960.to_owned()),
                starts: starts.iter().map(key).collect(),
                rated_starts: starts
                    .iter()
                    .filter(|kind| rateable(kind))
                    .map(key)
                    .collect(),
                notation: rules.notation().to_owned(),
            }
        })
        .collect();
    let bounds = |range: std::ops::RangeInclusive<i32>| Bounds {
        min: *range.start(),
        max: *range.end(),
    };
    web::Json(VariantList {
        variants,
        time: TimeChoices {
            days_per_move: DAYS_PER_MOVE.to_vec(),
            control_moves: bounds(CONTROL_MOVES),
            control_days: bounds(CONTROL_DAYS),
            bank_initial_days: bounds(BANK_INITIAL_DAYS),
            bank_increment_days: bounds(BANK_INCREMENT_DAYS),
            bank_max_days: BANK_MAX_DAYS,
        },
    })
}

/// Whether a game from a start of this kind may be rated.
fn rateable(kind: &kingpost_core::StartKind) -> bool {
    StartKind::ALL
        .iter()
        .any(|stored| stored.key() == kind.key() && rated_start(*stored).is_some())
}

/// The name players read: plain chess is "Chess" (its PGN name is
/// "Standard"); the variants go by their PGN names.
fn title(rules: Rules) -> &'static str {
    match rules {
        Rules::Standard => "Chess",
        other => other.pgn_name(false),
    }
}
