//! A game: a start position and the moves played from it, with the
//! history that the repetition rules need.

use crate::{
    Move, MoveError, MoveList, Outcome, Position,
    outcome::{DrawReason, repetition_outcome},
    zobrist::LineKeys,
};

/// A game under way: its start, its moves and where they led.
#[derive(Clone, Debug)]
pub struct Game {
    initial: Position,
    position: Position,
    moves: Vec<Move>,
    /// The repetition key of every position of the game, the start first.
    keys: Vec<u64>,
    line_keys: LineKeys,
}

impl Game {
    pub fn new(initial: Position) -> Game {
        let (line_keys, start_key) = LineKeys::new(&initial);
        Game {
            keys: vec![start_key],
            line_keys,
            position: initial.clone(),
            initial,
            moves: Vec::new(),
        }
    }

    pub fn initial(&self) -> &Position {
        &self.initial
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The PGN result the rules give the game: `*` while it is under way.
    pub fn result(&self) -> &'static str {
        self.outcome().map_or("*", |o| o.result())
    }

    /// The SAN of each move, in order.
    pub fn sans(&self) -> Vec<String> {
        let mut pos = self.initial.clone();
        self.moves
            .iter()
            .map(|m| {
                let san = pos.san(m);
                pos.play_unchecked(*m);
                san
            })
            .collect()
    }

    /// The repetition key of the current position, as kept for the
    /// repetition rules.
    pub fn repetition_key(&self) -> u64 {
        *self.keys.last().expect("the start's key is always kept")
    }

    /// Plays a move given in UCI or SAN, if the game is not over and the
    /// move is legal.
    pub fn play_text(&mut self, text: &str) -> Result<Move, MoveError> {
        let m = self.position.parse_move(text)?;
        self.play_unchecked(m);
        Ok(m)
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        let before = self.position.board.clone();
        self.position.play_unchecked(m);
        self.moves.push(m);
        self.keys.push(self.line_keys.next(&before, &self.position));
    }

    /// Plays up to `plies` moves, or until the rules end the game: each one
    /// of the legal moves, chosen by `pick` (given how many there are, it
    /// answers an index below that). `before` sees the game, its legal
    /// moves and the one chosen, before it is played. Random games for
    /// samples, tests and benchmarks, with the randomness the caller's (the
    /// engine needs none of its own).
    pub fn play_random(
        &mut self,
        plies: usize,
        mut pick: impl FnMut(usize) -> usize,
        mut before: impl FnMut(&Game, &MoveList, Move),
    ) {
        for _ in 0..plies {
            let legal = self.position.legal_moves();
            if self.outcome_among(&legal).is_some() {
                break;
            }
            let m = legal[pick(legal.len())];
            before(self, &legal, m);
            self.play_unchecked(m);
        }
    }

    /// How often the current position has stood in this game, this time
    /// included. Only positions since the last capture or pawn move can
    /// repeat it.
    pub fn repetitions(&self) -> usize {
        let current = self.keys.last().copied();
        let window = self.position.halfmoves() as usize + 1;
        self.keys
            .iter()
            .rev()
            .take(window)
            .step_by(2)
            .filter(|&&key| Some(key) == current)
            .count()
    }

    /// The outcome that the rules impose: the position's own (checkmate,
    /// stalemate, insufficient material, 75 moves) or fivefold repetition.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome_among(&self.position.legal_moves())
    }

    /// The outcome, given the legal moves `legal` of the current position:
    /// for callers that have them already.
    pub fn outcome_among(&self, legal: &MoveList) -> Option<Outcome> {
        self.position
            .outcome_among(legal)
            .or_else(|| self.repetition_outcome())
    }

    /// Whether the game may have ended by a rule that needs no legal moves
    /// generated to be seen (see [`Position::may_have_outcome_beside_mate`]),
    /// fivefold repetition among them.
    pub fn may_have_outcome_beside_mate(&self) -> bool {
        self.position.may_have_outcome_beside_mate() || self.repetition_outcome().is_some()
    }

    /// Fivefold repetition, if the current position has stood five times.
    fn repetition_outcome(&self) -> Option<Outcome> {
        // Five occurrences, two plies apart at the least, need eight
        // reversible plies: fewer, and there is nothing to count.
        if self.position.halfmoves() < 8 {
            return None;
        }
        repetition_outcome(self.repetitions())
    }

    /// The draw that the player to move may claim now, if any.
    pub fn claimable_draw(&self) -> Option<DrawReason> {
        self.position.claimable_draw(self.repetitions())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    #[test]
    fn a_random_walk_plays_what_it_picks_and_stops_where_the_game_ends() {
        // Always the last legal move, for a counted number of plies.
        let mut game = Game::new(Position::new(Rules::Standard));
        let mut seen = Vec::new();
        game.play_random(
            7,
            |n| n - 1,
            |_, legal, m| {
                assert_eq!(Some(&m), legal.last());
                seen.push(m);
            },
        );
        assert_eq!(game.moves(), seen.as_slice());
        assert_eq!(seen.len(), 7);

        // Fool's mate: no move is picked once the rules end the game.
        let mut game = Game::new(Position::new(Rules::Standard));
        for text in ["f3", "e5", "g4", "Qh4"] {
            game.play_text(text).unwrap();
        }
        let mut picked = false;
        game.play_random(5, |_| unreachable!(), |_, _, _| picked = true);
        assert!(!picked && game.moves().len() == 4);
    }
}
