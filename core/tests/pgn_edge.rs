//! Every PGN edge-case file of `tests/data/pgn-edge` (shapes met in real
//! files: tournament bulletins, database exports, other servers' exports):
//! the games read, accepted, shortened and refused, and where each accepted
//! game ends. The final positions are python-chess's after the same plies
//! (`scripts/check_pgn_edge.py` checks that in CI); the games kingpost keeps
//! apart where python-chess merges them (file 19) are the start position.

use std::path::Path;

use kingpost_core::{
    DrawReason, Outcome, Rules, Start,
    pgn::{GameTexts, ImportError, ImportWarning, RawGame, ReplayedGame, replay},
};

/// What should become of one game of a file.
#[derive(Debug)]
enum Expect {
    /// Replayed whole: the plies and the final FEN.
    Accepted(usize, &'static str),
    /// Kept up to `plies`, where the position ended it (nothing legal
    /// after it) or a null move follows, `dropped` moves after it dropped,
    /// with the game's result.
    Shortened {
        plies: usize,
        dropped: usize,
        fen: &'static str,
        result: &'static str,
    },
    /// Refused, the error saying this.
    Refused(&'static str),
}
use Expect::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const E4_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
const E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
const D4: &str = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
const EXF6: &str = "rnbqkbnr/ppp1p1pp/5P2/3p4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";
const E4_E5_NF3: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";

const FILES: &[(&str, &[Expect])] = &[
    ("01-bom.pgn", &[Accepted(2, E4_E5)]),
    (
        "02-uci-movetext.pgn",
        &[Accepted(
            3,
            "rnbqkb1r/pppppppp/5n2/8/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 0 2",
        )],
    ),
    // docs/spec/rules.md §2.5: an imported game is history. K+N v K would be
    // drawn at once today; the capture written after it is kept.
    (
        "03-move-after-dead-position.pgn",
        &[Accepted(1, "8/8/8/8/8/3k4/6K1/8 b - - 0 55")],
    ),
    (
        "04-standalone-ellipsis.pgn",
        &[Accepted(
            4,
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        )],
    ),
    ("05-ep-suffix.pgn", &[Accepted(5, EXF6), Accepted(5, EXF6)]),
    (
        "06-unicode-result.pgn",
        &[Accepted(2, E4_E5), Accepted(2, E4_E5)],
    ),
    (
        "07-promotion-without-equals.pgn",
        &[Accepted(1, "Q7/7k/8/8/8/8/8/K7 b - - 0 1")],
    ),
    ("08-escape-line-before-tags.pgn", &[Accepted(2, E4_E5)]),
    ("09-stray-bracket-line.pgn", &[Accepted(2, E4_E5)]),
    // No rule set lets a side pass: the game is kept up to its null move.
    (
        "10-null-move.pgn",
        &[Shortened {
            plies: 1,
            dropped: 2,
            fen: E4,
            result: "*",
        }],
    ),
    // A castling right without its rook is refused, the field named: the
    // game it came from is not known, so no right is dropped on a guess.
    (
        "11-fen-castling-without-rook.pgn",
        &[Refused("field 3 (castling)")],
    ),
    ("12-latin1.pgn", &[Accepted(2, E4_E5), Accepted(1, D4)]),
    (
        "13-brace-in-tag.pgn",
        &[
            Accepted(1, E4),
            Accepted(1, D4),
            Accepted(
                1,
                "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1",
            ),
        ],
    ),
    (
        "14-open-brace-in-semicolon-comment.pgn",
        &[Accepted(2, E4_E5), Accepted(1, D4)],
    ),
    ("15-bad-result-tag.pgn", &[Accepted(2, E4_E5)]),
    ("16-escaped-quotes.pgn", &[Accepted(1, E4)]),
    ("17-crlf.pgn", &[Accepted(3, E4_E5_NF3), Accepted(1, D4)]),
    (
        "18-no-tags-two-games.pgn",
        &[
            Accepted(3, E4_E5_NF3),
            Accepted(
                2,
                "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
            ),
        ],
    ),
    (
        "19-tag-only-games.pgn",
        &[Accepted(0, START), Accepted(0, START)],
    ),
    (
        "20-stray-open-brace-in-comment.pgn",
        &[
            Accepted(
                7,
                "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
            ),
            Accepted(
                4,
                "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            ),
            Accepted(1, D4),
        ],
    ),
    (
        "21-unbalanced-brace-in-tag.pgn",
        &[Accepted(1, E4), Accepted(1, D4)],
    ),
    ("22-duplicate-tags.pgn", &[Accepted(1, E4)]),
    // docs/spec/rules.md §2.5: fivefold repetition would draw at once today;
    // the move played after it is kept.
    (
        "24-move-after-fivefold.pgn",
        &[Accepted(
            17,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 9",
        )],
    ),
    // docs/spec/rules.md §2.5: so would the 75-move rule.
    (
        "25-move-after-75-move-rule.pgn",
        &[Accepted(3, "8/8/8/8/3k4/R7/8/4K3 b - - 152 101")],
    ),
    (
        "26-captive-kings-standard-export-has-no-FEN.pgn",
        &[Accepted(
            120,
            "4K3/R5P1/3b4/B2P4/2PPp3/8/2k5/8 w - - 3 61 -",
        )],
    ),
    (
        "27-chess960-exported-as-standard.pgn",
        &[Accepted(
            2,
            "bbqnnrkr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/BBQNNRKR w KQkq - 0 2",
        )],
    ),
    (
        "28-long-algebraic-and-zero-castling.pgn",
        &[Accepted(
            10,
            "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w - - 1 6",
        )],
    ),
    // A stray `{` never closed: its game ends at the brace, and the game
    // after it is not swallowed (python-chess loses it).
    (
        "29-unclosed-comment.pgn",
        &[Accepted(2, E4_E5), Accepted(1, D4)],
    ),
    // docs/spec/rules.md §2.5: nothing is legal after checkmate, so the move
    // written after it is dropped, and the board's result stands.
    (
        "30-move-after-checkmate.pgn",
        &[Shortened {
            plies: 4,
            dropped: 1,
            fen: "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            result: "0-1",
        }],
    ),
];

fn read(file: &str) -> Vec<(RawGame, Result<ReplayedGame, ImportError>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pgn-edge")
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    GameTexts::new(bytes.as_slice())
        .map(|text| {
            let raw = text.unwrap().read();
            let replayed = replay(&raw);
            (raw, replayed)
        })
        .collect()
}

#[test]
fn every_edge_case_file_reads_as_expected() {
    let on_disk =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn-edge"))
            .unwrap()
            .filter(|entry| {
                entry
                    .as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|e| e == "pgn")
            })
            .count();
    assert_eq!(
        on_disk,
        FILES.len(),
        "every file of the directory has expectations"
    );
    for (file, expected) in FILES {
        let games = read(file);
        assert_eq!(games.len(), expected.len(), "{file}: games read");
        for (i, ((_, replayed), expect)) in games.iter().zip(expected.iter()).enumerate() {
            let at = format!("{file}, game {}", i + 1);
            match (replayed, expect) {
                (Ok(game), Accepted(plies, fen)) => {
                    assert_eq!(game.shortened, None, "{at}");
                    assert_eq!(
                        (game.moves.len(), game.position.fen().as_str()),
                        (*plies, *fen),
                        "{at}"
                    );
                }
                (
                    Ok(game),
                    Shortened {
                        plies,
                        dropped,
                        fen,
                        result,
                    },
                ) => {
                    let shortened = game
                        .shortened
                        .unwrap_or_else(|| panic!("{at}: not shortened"));
                    assert_eq!(
                        (shortened.plies, shortened.dropped),
                        (*plies, *dropped),
                        "{at}"
                    );
                    assert_eq!(
                        (game.moves.len(), game.position.fen().as_str()),
                        (*plies, *fen),
                        "{at}"
                    );
                    assert_eq!(game.result, *result, "{at}: the game's result");
                }
                (Err(error), Refused(words)) => {
                    assert!(error.to_string().contains(words), "{at}: {error}");
                }
                (other, expect) => panic!("{at}: expected {expect:?}, got {other:?}"),
            }
        }
    }
}

#[test]
fn what_was_read_otherwise_than_written_is_said() {
    let latin1 = read("12-latin1.pgn");
    assert_eq!(latin1[0].0.tag("White"), Some("Réti, Richard"));
    assert_eq!(
        latin1[0].1.as_ref().unwrap().warnings,
        [ImportWarning::Windows1252]
    );
    assert!(
        latin1[1].1.as_ref().unwrap().warnings.is_empty(),
        "decoded game by game"
    );

    let bad_result = read("15-bad-result-tag.pgn");
    let game = bad_result[0].1.as_ref().unwrap();
    assert_eq!(game.result, "*", "the movetext's marker, not `White wins`");
    assert_eq!(
        game.warnings,
        [ImportWarning::NotAResult("White wins".into())]
    );

    // docs/spec/rules.md §2.5: the recorded result of a game played on past
    // today's automatic draws stands, and where they would have ended it is
    // said.
    let fivefold = read("24-move-after-fivefold.pgn");
    let fivefold = fivefold[0].1.as_ref().unwrap();
    assert_eq!(fivefold.result, "1-0");
    assert_eq!(
        fivefold.warnings,
        [ImportWarning::RulesWouldHaveEnded {
            ply: 16,
            outcome: Outcome::Draw(DrawReason::FivefoldRepetition)
        }]
    );
    let dead = read("03-move-after-dead-position.pgn");
    assert_eq!(
        dead[0].1.as_ref().unwrap().rules_would_have_ended,
        Some((0, Outcome::Draw(DrawReason::InsufficientMaterial)))
    );
    let seventy_five = read("25-move-after-75-move-rule.pgn");
    assert_eq!(
        seventy_five[0].1.as_ref().unwrap().rules_would_have_ended,
        Some((1, Outcome::Draw(DrawReason::SeventyFiveMoves)))
    );
    // A result the board contradicts gives way to the board's.
    let mated = read("30-move-after-checkmate.pgn");
    assert!(matches!(
        &mated[0].1.as_ref().unwrap().warnings[..],
        [ImportWarning::ResultOverruled { stated, .. }] if stated == "1-0"
    ));
}

#[test]
fn tags_are_read_as_written() {
    assert_eq!(
        read("22-duplicate-tags.pgn")[0].0.tag("Event"),
        Some("First event")
    );
    assert_eq!(read("22-duplicate-tags.pgn")[0].0.tag("White"), Some("a"));
    let quoted = read("16-escaped-quotes.pgn");
    assert_eq!(quoted[0].0.tag("Event"), Some("The \"Quoted\" Open"));
    assert_eq!(quoted[0].0.tag("White"), Some("O\\Brien"));
    assert_eq!(
        read("21-unbalanced-brace-in-tag.pgn")[0].0.tag("Event"),
        Some("Blitz :-{")
    );
    assert_eq!(read("01-bom.pgn")[0].0.tag("Event"), Some("Bom game"));
}

#[test]
fn a_chess960_array_given_as_fen_is_known_by_its_number() {
    let games = read("27-chess960-exported-as-standard.pgn");
    let game = games[0].1.as_ref().unwrap();
    assert_eq!((game.rules, game.chess960), (Rules::Standard, true));
    let Start::Chess960(n) = game.start else {
        panic!("{:?}", game.start)
    };
    let named = kingpost_core::Position::from_start(Rules::Standard, &Start::Chess960(n)).unwrap();
    assert_eq!(named.fen(), game.initial.fen());
}

/// docs/spec/rules.md §2.5: a null move in a variation keeps the variation
/// up to it, and says so; the game goes on.
#[test]
fn a_null_move_in_a_variation_keeps_the_variation_up_to_it() {
    let text = b"[Event \"null in a variation\"]\n\n1. e4 e5 (1... c5 2. -- Nc6) 2. Nf3 *\n";
    let raw = GameTexts::new(&text[..]).next().unwrap().unwrap().read();
    let game = replay(&raw).unwrap();
    assert_eq!(game.moves.len(), 3);
    let variations = &game.moves[1].notes.variations;
    let kept: Vec<&str> = variations[0].iter().map(|m| m.san.as_str()).collect();
    assert_eq!(kept, ["c5"]);
    assert!(matches!(
        &game.warnings[..],
        [ImportWarning::VariationCut { ply: 3, text, .. }] if text == "--"
    ));
}

/// docs/spec/rules.md §2.5: a null move written after a mate is a move after
/// the end, as any other: the mate ends the game, with its result.
#[test]
fn a_null_move_after_a_mate_is_dropped_as_any_move_after_it() {
    let text = b"[Event \"mate then pass\"]\n\n1. f3 e5 2. g4 Qh4# 3. -- *\n";
    let raw = GameTexts::new(&text[..]).next().unwrap().unwrap().read();
    let game = replay(&raw).unwrap();
    assert_eq!(game.moves.len(), 4);
    assert_eq!(game.result, "0-1");
    assert!(matches!(
        game.shortened.map(|s| s.cut),
        Some(kingpost_core::pgn::Cut::Ended(_))
    ));
}
