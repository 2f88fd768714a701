//! `standard`: the FIDE laws with Chess960 castling; every hook at its default.

use super::RuleSet;

#[derive(Debug)]
pub(crate) struct Standard;

impl RuleSet for Standard {
    const KEY: &'static str = "standard";
    const PGN_NAME: &'static str = "Standard";
    const PGN_NAME_960: &'static str = "Chess960";
    const PGN_ALIASES: &'static [&'static str] = &["chess", "normal", "from position", "fromposition"];
    const PGN_ALIASES_960: &'static [&'static str] = &["chess 960", "960", "fischerandom", "fischer random", "fischer random chess"];
    const ONLY_COMMON_MOVES: bool = true;
}
