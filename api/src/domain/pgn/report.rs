//! What became of each game of an import, as the report shows it.

use kingpost_core::pgn::{Cut, ImportError};

use super::{GameReport, Imported};
use crate::views::{ImportErrorView, ImportReport, ImportedGameView, ShortenedView};

impl From<&ImportError> for ImportErrorView {
    fn from(error: &ImportError) -> ImportErrorView {
        match error {
            ImportError::IllegalMove { ply, text, reason } => ImportErrorView {
                ply: Some(*ply),
                move_text: Some(text.clone()),
                reason: reason.clone(),
            },
            other => ImportErrorView {
                ply: None,
                move_text: None,
                reason: other.to_string(),
            },
        }
    }
}

/// Counts and lists what became of each game.
pub fn report_of(games: &[GameReport]) -> ImportReport {
    let mut report = ImportReport {
        read: games.len(),
        imported: 0,
        duplicates: 0,
        shortened: 0,
        rejected: 0,
        collection_id: None,
        games: Vec::with_capacity(games.len()),
    };
    for (i, game) in games.iter().enumerate() {
        let (id, duplicate, error) = match &game.outcome {
            Ok(Imported::New(id)) => {
                report.imported += 1;
                (Some(id.clone()), false, None)
            }
            Ok(Imported::Duplicate(id)) => {
                report.duplicates += 1;
                (Some(id.clone()), true, None)
            }
            Err(error) => {
                report.rejected += 1;
                (None, false, Some(ImportErrorView::from(error)))
            }
        };
        report.shortened += usize::from(game.shortened.is_some());
        let label = game.label.clone();
        report.games.push(ImportedGameView {
            index: i + 1,
            event: label.event,
            site: label.site,
            date: label.date,
            round: label.round,
            white: label.white,
            black: label.black,
            id: id.map(String::from),
            duplicate,
            shortened: game.shortened.map(|s| ShortenedView {
                plies: s.plies,
                dropped: s.dropped,
                result: match s.cut {
                    Cut::Ended(outcome) => Some(outcome.result().to_owned()),
                    Cut::NullMove => None,
                },
                reason: s.cut.reason().to_owned(),
            }),
            warnings: game.warnings.iter().map(ToString::to_string).collect(),
            error,
        });
    }
    report
}
