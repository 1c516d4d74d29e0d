//! The game a protocol session talks about: a start position, the moves
//! played from it (passes included) and every position on the way, so that
//! GTP `undo`, NBoard `move` and UCI `position … moves …` share one checked
//! implementation.
//!
//! ```
//! use annex_core::record::game::Game;
//! use annex_core::rules::RuleSet;
//! let mut g = Game::new(RuleSet::default());
//! g.play_str("f5").unwrap();
//! assert!(g.play_str("a1").is_err()); // illegal: nothing changes
//! assert_eq!(g.moves().len(), 1);
//! assert!(g.undo());
//! assert_eq!(g.current(), g.start());
//! ```

use crate::board::Color;
use crate::moves::{Move, MoveError};
use crate::position::Position;
use crate::rules::RuleSet;

/// Start position, moves and the positions they lead to.
#[derive(Clone, Debug)]
pub struct Game {
    rules: RuleSet,
    positions: Vec<Position>,
    moves: Vec<Move>,
}

impl Game {
    /// A game at the start position of `rules`.
    pub fn new(rules: RuleSet) -> Game {
        Game::from_position(Position::start(&rules), rules)
    }

    /// A game starting from `start`.
    pub fn from_position(start: Position, rules: RuleSet) -> Game {
        Game {
            rules,
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The rules the moves are checked under.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// The start position.
    pub fn start(&self) -> Position {
        self.positions[0]
    }

    /// The current position.
    pub fn current(&self) -> Position {
        *self.positions.last().expect("a game has a start position")
    }

    /// The moves played from the start, passes included.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Every position from the start to the current one.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Plays `m` after checking it (a pass only when the side to move has
    /// no move and the game is not over); returns it normalised.
    ///
    /// # Errors
    /// Illegal or ambiguous move; the game is unchanged.
    pub fn play(&mut self, m: Move) -> Result<Move, MoveError> {
        let (m, next) = self.current().play(&self.rules, m)?;
        self.moves.push(m);
        self.positions.push(next);
        Ok(m)
    }

    /// Parses and plays one move token.
    ///
    /// # Errors
    /// Syntax error, illegal or ambiguous move; the game is unchanged.
    pub fn play_str(&mut self, token: &str) -> Result<Move, MoveError> {
        self.play(token.parse()?)
    }

    /// Plays `m` for `color`: when `color` is not the side to move but the
    /// side to move must pass, the pass is played first (GTP `play`, NBoard
    /// games that leave passes out). A pass for a colour that is not to move
    /// is rejected.
    ///
    /// # Errors
    /// Illegal move, or not `color`'s turn; the game is unchanged.
    pub fn play_for(&mut self, color: Color, m: Move) -> Result<Move, MoveError> {
        let pos = self.current();
        if pos.side == color {
            return self.play(m);
        }
        if m.is_pass() || !pos.must_pass(&self.rules) {
            return Err(MoveError::Illegal(format!(
                "{m} (it is {}'s turn)",
                color_name(pos.side)
            )));
        }
        let saved = self.clone();
        self.play(Move::PASS)?;
        match self.play(m) {
            Ok(x) => Ok(x),
            Err(e) => {
                *self = saved;
                Err(e)
            }
        }
    }

    /// Takes back the last move (a pass counts as a move); `false` at the
    /// start.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_some() {
            self.positions.pop();
            true
        } else {
            false
        }
    }

    /// Whether neither side can move.
    pub fn is_over(&self) -> bool {
        self.current().is_game_over(&self.rules)
    }

    /// The moves as one string, `f5d6c3…` (passes as `pass`).
    pub fn transcript(&self) -> String {
        self.moves.iter().map(|m| m.to_string()).collect()
    }
}

/// `black` or `white`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_for_inserts_forced_pass() {
        let r = RuleSet::default();
        // O on a1, X on b1, X to move: X has no move, O plays c1.
        let pos = Position::parse_board(&format!("OX{}", "-".repeat(62)), Color::Black).unwrap();
        let mut g = Game::from_position(pos, r);
        assert!(g.current().must_pass(&r));
        assert!(g.play_for(Color::Black, "c1".parse().unwrap()).is_err());
        assert_eq!(g.moves().len(), 0);
        let m = g.play_for(Color::White, "c1".parse().unwrap()).unwrap();
        assert_eq!(m.to_string(), "c1");
        assert_eq!(g.moves(), &[Move::PASS, m]);
        assert!(g.is_over());
        assert!(g.play(Move::PASS).is_err());
        assert!(g.undo() && g.undo() && !g.undo());
    }
}
