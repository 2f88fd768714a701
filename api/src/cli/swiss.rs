//! The Swiss command: a tournament's next round from its TRF-2016 report,
//! made by kingpost or any other pairing program, paired by the Dutch
//! system, written as bbpPairings and JaVaFo write pairings.

use std::io::Write;

use anyhow::Context;
use kingpost_pairing::{swiss::dutch::pair_next_round, trf::Report};

/// Writes the number of pairs, then a pair a line, White's pairing number
/// first (`0` as the opponent of the pairing-allocated bye).
pub fn pair(out: &mut impl Write, file: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
    let report =
        Report::parse(&text).with_context(|| format!("{file} is not a TRF-2016 report"))?;
    // The format keeps lines it does not know: a file without a player
    // line is another kind of file.
    anyhow::ensure!(
        !report.players.is_empty(),
        "{file} is not a TRF-2016 report: it has no player (001) lines"
    );
    let pairs = pair_next_round(&report).map_err(|_| {
        anyhow::anyhow!(
            "the next round cannot be paired under the Dutch system's absolute criteria"
        )
    })?;
    writeln!(out, "{}", pairs.len())?;
    for (white, black) in pairs {
        writeln!(out, "{white} {}", black.unwrap_or(0))?;
    }
    Ok(())
}
