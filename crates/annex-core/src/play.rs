//! Games played to their end: [`play_out`], the one game loop, and
//! [`EnginePlayer`], the engine as a player.
//!
//! The loop asks the side to move for its move, checks it under the game's
//! rules and plays it; it plays forced passes itself, without asking. What
//! a player is stays with its caller: the engine at fixed limits
//! (self-play data, the evaluation matches), an engine process under a
//! referee with its clocks and protocol errors (`annex match`), a GTP
//! program. A player may hold both sides (one engine playing itself), or
//! two players make the two sides: `[&mut black, &mut white]` is a player.
//!
//! ```
//! use annex_core::play::{EnginePlayer, play_out};
//! use annex_core::record::game::Game;
//! use annex_core::rules::RuleSet;
//! use annex_core::search::{Limits, SolveMode};
//!
//! let (tx, _) = crossbeam_channel::unbounded();
//! let mut engine = annex_core::engine::Engine::new(tx);
//! let mut game = Game::new(RuleSet::default());
//! // Depth 1 until 10 empties, exact from there.
//! let limits = |p: &annex_core::position::Position| match p.board.empties() {
//!     0..=10 => Limits { solve: Some(SolveMode::Exact), ..Limits::default() },
//!     _ => Limits { depth: Some(1), ..Limits::default() },
//! };
//! let mut player = EnginePlayer::new(&mut engine, limits);
//! play_out(&mut game, &mut player).unwrap();
//! assert!(game.is_over());
//! assert!(player.searches.len() >= 30);
//! ```

use crate::board::Color;
use crate::engine::Engine;
use crate::moves::{Move, MoveError};
use crate::position::Position;
use crate::record::game::Game;
use crate::search::{BestMove, Limits};
use std::convert::Infallible;

/// Who chooses the moves of one side of a game, or of both.
pub trait Player {
    /// Why it could not choose (a crash, a protocol error, a resignation).
    type Error;

    /// The move of the side to move in `game.current()`, which has a legal
    /// move (the game is not over, no forced pass).
    ///
    /// # Errors
    /// The player cannot move; the game stops there.
    fn choose(&mut self, game: &Game) -> Result<Move, Self::Error>;
}

/// A player per side, Black's first: each is asked on its side's turns.
impl<P: Player + ?Sized> Player for [&mut P; 2] {
    type Error = P::Error;

    fn choose(&mut self, game: &Game) -> Result<Move, P::Error> {
        let side = match game.current().side {
            Color::Black => 0,
            Color::White => 1,
        };
        self[side].choose(game)
    }
}

/// Why a game stopped before its end.
#[derive(Debug)]
pub enum Stop<E> {
    /// The player of `side` could not choose.
    Failed {
        /// The side to move.
        side: Color,
        /// The player's error.
        error: E,
    },
    /// The player of `side` chose a move that is not legal.
    Illegal {
        /// The side to move.
        side: Color,
        /// The move chosen.
        chosen: Move,
        /// Why it is not legal.
        error: MoveError,
    },
}

/// Plays `game` on to its end under its rules: forced passes by itself,
/// every other move as `players` chooses it, checked before it is played.
///
/// # Errors
/// A player could not choose, or chose an illegal move: the game stops
/// there, and `game` holds the moves played before.
pub fn play_out<P: Player + ?Sized>(
    game: &mut Game,
    players: &mut P,
) -> Result<(), Stop<P::Error>> {
    let rules = game.rules();
    loop {
        let pos = game.current();
        if pos.is_game_over(&rules) {
            return Ok(());
        }
        let side = pos.side;
        let chosen = if pos.must_pass(&rules) {
            Move::PASS
        } else {
            players
                .choose(game)
                .map_err(|error| Stop::Failed { side, error })?
        };
        game.play(chosen).map_err(|error| Stop::Illegal {
            side,
            chosen,
            error,
        })?;
    }
}

/// The engine as a player: it searches each position it is asked about
/// under the limits that `limits` gives for that position, and plays the
/// best move found. Its searches are kept, by ply.
pub struct EnginePlayer<'a, F> {
    engine: &'a mut Engine,
    limits: F,
    /// Each search made: the ply it was made at (an index into the game's
    /// moves, and into its positions for the position searched) and its
    /// result.
    pub searches: Vec<(usize, BestMove)>,
}

impl<'a, F: FnMut(&Position) -> Limits> EnginePlayer<'a, F> {
    /// `engine`, searching under `limits`.
    pub fn new(engine: &'a mut Engine, limits: F) -> EnginePlayer<'a, F> {
        EnginePlayer {
            engine,
            limits,
            searches: Vec::new(),
        }
    }
}

impl<F: FnMut(&Position) -> Limits> Player for EnginePlayer<'_, F> {
    type Error = Infallible;

    fn choose(&mut self, game: &Game) -> Result<Move, Infallible> {
        let pos = game.current();
        let limits = (self.limits)(&pos);
        let bm = self.engine.search_sync(pos, limits);
        let m = bm.best;
        self.searches.push((game.moves().len(), bm));
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    /// Plays the first legal move; counts its turns; fails on turn `fail`.
    struct First {
        turns: usize,
        fail: usize,
    }

    impl Player for First {
        type Error = &'static str;
        fn choose(&mut self, game: &Game) -> Result<Move, &'static str> {
            self.turns += 1;
            if self.turns == self.fail {
                return Err("gave up");
            }
            let rules = game.rules();
            Ok(game.current().legal_moves(&rules).iter().next().unwrap())
        }
    }

    /// Always answers a1 (never legal from the start).
    struct Corner;

    impl Player for Corner {
        type Error = ();
        fn choose(&mut self, _: &Game) -> Result<Move, ()> {
            Ok("a1".parse().unwrap())
        }
    }

    #[test]
    fn plays_to_the_end_asking_each_side_on_its_turns() {
        let mut game = Game::new(RuleSet::default());
        let (mut black, mut white) = (First { turns: 0, fail: 0 }, First { turns: 0, fail: 0 });
        play_out(&mut game, &mut [&mut black, &mut white]).unwrap();
        assert!(game.is_over());
        let passes = game.moves().iter().filter(|m| m.is_pass()).count();
        assert_eq!(black.turns + white.turns + passes, game.moves().len());
        // Each was asked on its side's turns only.
        let black_turns = game.positions()[..game.moves().len()]
            .iter()
            .zip(game.moves())
            .filter(|(p, m)| p.side == Color::Black && !m.is_pass())
            .count();
        assert_eq!(black.turns, black_turns);
    }

    #[test]
    fn stops_at_a_failure_or_an_illegal_move() {
        let mut game = Game::new(RuleSet::default());
        let mut p = First { turns: 0, fail: 5 };
        match play_out(&mut game, &mut p) {
            Err(Stop::Failed { side, error }) => {
                assert_eq!((side, error), (Color::Black, "gave up"));
            }
            x => panic!("{x:?}"),
        }
        assert_eq!(game.moves().len(), 4);
        let mut game = Game::new(RuleSet::default());
        match play_out(&mut game, &mut Corner) {
            Err(Stop::Illegal { side, chosen, .. }) => {
                assert_eq!((side, chosen.to_string().as_str()), (Color::Black, "a1"));
            }
            x => panic!("{x:?}"),
        }
        assert!(game.moves().is_empty());
    }
}
