//! The rules-engine commands: perft, moves, play.

use std::io::Write;

use anyhow::Context;
use kingpost_core::{Game, Position, perft_divide};

type Result = anyhow::Result<()>;

pub fn perft(out: &mut impl Write, pos: &Position, depth: u32, divide: bool) -> Result {
    if !divide {
        writeln!(out, "{}", kingpost_core::perft(pos, depth))?;
        return Ok(());
    }
    let mut lines: Vec<(String, u64)> = perft_divide(pos, depth)
        .into_iter()
        .map(|(m, count)| (pos.uci(&m), count))
        .collect();
    lines.sort();
    for (uci, count) in &lines {
        writeln!(out, "{uci} {count}")?;
    }
    writeln!(out)?;
    writeln!(out, "{}", lines.iter().map(|(_, count)| count).sum::<u64>())?;
    Ok(())
}

pub fn moves(out: &mut impl Write, pos: &Position) -> Result {
    let legal = pos.legal_moves();
    let mut lines: Vec<(String, String)> = legal
        .iter()
        .map(|m| (pos.uci(m), pos.san_among(m, &legal)))
        .collect();
    lines.sort();
    for (uci, san) in lines {
        writeln!(out, "{uci} {san}")?;
    }
    Ok(())
}

pub fn play(out: &mut impl Write, start: Position, moves: &[String]) -> Result {
    let mut game = Game::new(start);
    for (ply, text) in moves.iter().enumerate() {
        if let Some(outcome) = game.outcome() {
            anyhow::bail!("move {} ({text}): the game is over ({outcome})", ply + 1);
        }
        game.play_text(text)
            .with_context(|| format!("move {} ({text})", ply + 1))?;
    }
    writeln!(out, "{}", game.position().fen())?;
    if let Some(outcome) = game.outcome() {
        writeln!(out, "{outcome}")?;
    }
    Ok(())
}
