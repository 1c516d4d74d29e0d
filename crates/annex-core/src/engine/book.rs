//! The book move: when the opening book answers a `go` instead of a search.

use super::Engine;
use crate::moves::Move;
use crate::position::Position;
use crate::search::{BestMove, Info, Limits};
use std::time::Duration;

impl Engine {
    /// The book move for `pos` under `limits`, if the book applies: the
    /// `OwnBook` option is on, the rules are the default ones, and the
    /// search is a move choice in a game (clock or movetime limits; not
    /// depth, nodes, infinite, ponder, solve, multi-PV or searchmoves,
    /// which ask for a search).
    pub(super) fn book_move(&self, pos: &Position, limits: &Limits) -> Option<BestMove> {
        let game_move = limits.depth.is_none()
            && limits.nodes.is_none()
            && !limits.infinite
            && !limits.ponder
            && limits.solve.is_none()
            && limits.multipv <= 1
            && limits.searchmoves.is_empty();
        if !self.own_book || !self.rules().is_default() || !game_move {
            return None;
        }
        let book = self.book.as_ref()?;
        let choice = book.best_move(&pos.board)?;
        let (best, next) = pos.play(&self.rules(), choice.mv).ok()?;
        let ponder = book
            .best_move(&next.board)
            .map(|c| c.mv)
            .filter(|&m| next.play(&self.rules(), m).is_ok());
        let pv: Vec<Move> = std::iter::once(best).chain(ponder).collect();
        let info = Info {
            depth: 0,
            selectivity: None,
            score: choice.score,
            tie: None,
            bound: crate::search::Bound::Exact,
            exact: false,
            wld: false,
            nodes: 0,
            nps: 0,
            time: Duration::ZERO,
            hashfull: 0,
            multipv: 1,
            pv: pv.clone(),
        };
        Some(BestMove {
            best,
            ponder,
            score: choice.score,
            tie: None,
            exact: false,
            wld: false,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv,
            lines: vec![info],
        })
    }
}
