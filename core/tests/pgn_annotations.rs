//! Annotated PGN: comments, NAGs and variations read, checked under the
//! rules and written back. python-chess checks the same round trip on
//! thousands of games of its own writing (scripts/pgn-differential.py).

use kingpost_core::pgn::{
    ImportWarning, LineMove, PgnMove, ReplayedGame, read_game, replay, write_game,
};

fn replayed(pgn: &str) -> ReplayedGame {
    replay(&read_game(pgn)).expect("the mainline is legal")
}

fn sans(line: &[LineMove]) -> Vec<&str> {
    line.iter().map(|m| m.san.as_str()).collect()
}

/// The game's movetext as kingpost writes it.
fn written(game: &ReplayedGame) -> String {
    let moves: Vec<PgnMove<'_>> = game
        .moves
        .iter()
        .map(|m| PgnMove {
            san: &m.san,
            timestamp: None,
            notes: Some(&m.notes),
        })
        .collect();
    let mut out = String::new();
    let tags: [(&str, String); 0] = [];
    write_game(
        &mut out,
        &tags,
        &game.initial,
        game.comment.as_deref(),
        &moves,
        &game.result,
    );
    out.trim().to_owned()
}

// docs/spec/rules.md §7, notation: a variation's moves are read as the mainline's are,
// in canonical SAN, from the position before the move they replace.
#[test]
fn variations_are_played_from_the_position_they_replace() {
    let game = replayed("1. e4 e5 (1... c5 2. Nf3 (2. Nc3 Nc6) d6) 2. Nf3 *");
    let variations = &game.moves[1].notes.variations;
    assert_eq!(sans(&variations[0]), ["c5", "Nf3", "d6"]);
    assert_eq!(variations[0][0].uci, "c7c5");
    assert_eq!(sans(&variations[0][1].notes.variations[0]), ["Nc3", "Nc6"]);
    assert!(game.warnings.is_empty(), "{:?}", game.warnings);
}

// docs/spec/rules.md §3, Teleporting Kings and notation: a teleport in a variation is
// read as `Kc5` is in the mainline.
#[test]
fn variant_moves_stand_in_variations() {
    let game = replayed(
        "[Variant \"Teleporting Kings\"]\n\n1. e4 (1. Kc5 $2 {bold}) 1... e5 (1... Kd4) *",
    );
    let first = &game.moves[0].notes.variations[0][0];
    assert_eq!((first.san.as_str(), first.uci.as_str()), ("Kc5", "e1c5"));
    assert_eq!(first.notes.nags, [2]);
    assert_eq!(first.notes.comment.as_deref(), Some("bold"));
    assert_eq!(sans(&game.moves[1].notes.variations[0]), ["Kd4"]);
}

// The rule: an illegal move inside a variation is reported and the
// variation cut there; the game is kept.
#[test]
fn an_illegal_move_cuts_its_variation_and_keeps_the_game() {
    let game = replayed("1. e4 e5 (1... c5 2. Ke3 Nc6 (2... d6)) (1... Nf6 {x}) 2. Nf3 *");
    assert_eq!(game.moves.len(), 3, "the mainline stays whole");
    let variations = &game.moves[1].notes.variations;
    assert_eq!(variations.len(), 2);
    assert_eq!(sans(&variations[0]), ["c5"], "cut at the illegal Ke3");
    assert_eq!(sans(&variations[1]), ["Nf6"]);
    assert_eq!(
        game.warnings,
        [ImportWarning::VariationCut {
            ply: 3,
            text: "Ke3".into(),
            reason: game_reason("Ke3", &game),
        }]
    );
    // A variation cut at its first move is left out.
    let game = replayed("1. e4 (1. Ke2) e5 *");
    assert!(game.moves[0].notes.variations.is_empty());
    assert_eq!(game.warnings.len(), 1);
}

/// The reason the warning gives, whatever its wording.
fn game_reason(text: &str, game: &ReplayedGame) -> String {
    game.warnings
        .iter()
        .find_map(|w| match w {
            ImportWarning::VariationCut {
                text: t, reason, ..
            } if t == text => Some(reason.clone()),
            _ => None,
        })
        .expect("a cut for the move")
}

// docs/spec/rules.md §2.3, ends of a game: a line ends where the rules end it, in a
// variation as in the mainline.
#[test]
fn a_variation_ends_at_mate() {
    let game =
        replayed("1. f3 e5 2. g4 (2. Kf2 Qh4+ 3. g3) (2. e3 Qh4+ 3. g3 Qxg3+) 2... Qh4# 0-1");
    let [after_f3_mate, _] = &game.moves[2].notes.variations[..] else {
        panic!("{:?}", game.moves[2].notes.variations)
    };
    assert_eq!(sans(after_f3_mate), ["Kf2", "Qh4+", "g3"]);
    assert_eq!(game.result, "0-1");

    let game = replayed("1. f3 e5 2. g4 Qh4# (2... Qh4# 3. Nc3) 0-1");
    let line = &game.moves[3].notes.variations[0];
    assert_eq!(sans(line), ["Qh4#"]);
    assert!(matches!(
        &game.warnings[..],
        [ImportWarning::VariationCut { ply: 5, text, .. }] if text == "Nc3"
    ));
}

#[test]
fn annotations_are_written_where_python_chess_writes_them() {
    let game = replayed(
        "{Intro} 1. e4! {best} (1. d4 d5 {solid} (1... Nf6 2. c4) 2. c4) 1... e5 $14 2. Nf3 ( {or} 2. Nc3) *",
    );
    assert_eq!(
        written(&game),
        "{ Intro } 1. e4 $1 { best } (1. d4 d5 { solid } (1... Nf6 2. c4) 2. c4) 1... e5\n\
         $14 2. Nf3 ({ or } 2. Nc3) *"
    );
    // Written and read again, the game is the same game.
    let again = replayed(&written(&game));
    assert_eq!(again.comment, game.comment);
    assert_eq!(again.moves, game.moves);
}

#[test]
fn clock_and_evaluation_commands_stay_in_their_comments() {
    let game = replayed("1. e4 { [%clk 0:10:00] [%eval 0.25] } e5 {[%clk 0:09:58]} *");
    assert_eq!(
        game.moves[0].notes.comment.as_deref(),
        Some("[%clk 0:10:00] [%eval 0.25]")
    );
    assert_eq!(
        game.moves[1].notes.comment.as_deref(),
        Some("[%clk 0:09:58]")
    );
    assert!(
        written(&game).contains("1. e4 { [%clk 0:10:00] [%eval 0.25] } 1... e5 { [%clk 0:09:58] }")
    );
}
