//! `standard`: the FIDE laws with Chess960 castling; every hook at its default.

use super::RuleSet;

#[derive(Debug)]
pub(crate) struct Standard;

impl RuleSet for Standard {}
