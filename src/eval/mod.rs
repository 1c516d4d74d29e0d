//! Static evaluation: the interface the search calls, and the evaluators.
//!
//! An evaluation is a score for the side to move in units of
//! 1/[`SCALE`] disc: `+SCALE` means "one disc ahead at the end of the
//! game". Evaluations stay within `±64 * SCALE`. The search converts to
//! discs when it reports.
//!
//! [`Evaluator`] is an enum (static dispatch) so that the search stays
//! independent of which evaluation is loaded.
//!
//! ```
//! use annex::board::Board;
//! use annex::eval::Evaluator;
//! let e = Evaluator::default();
//! let s = e.evaluate(&Board::start());
//! assert!(s.abs() < 4 * annex::eval::SCALE);
//! ```

mod simple;

pub use simple::SimpleEval;

use crate::board::Board;

/// Evaluation units per disc.
pub const SCALE: i32 = 32;

/// Largest magnitude an evaluation may take.
pub const MAX_EVAL: i32 = 64 * SCALE;

/// The evaluation in use.
#[derive(Clone, Debug, Default)]
pub enum Evaluator {
    /// Hand-written: mobility, potential mobility, corners, parity.
    #[default]
    Simple,
}

impl Evaluator {
    /// Score of `board` for the side to move, in 1/[`SCALE`] disc, within
    /// `±MAX_EVAL`.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        match self {
            Evaluator::Simple => SimpleEval::evaluate(board),
        }
    }

    /// A short name for logs and `info string`.
    pub fn name(&self) -> &'static str {
        match self {
            Evaluator::Simple => "simple",
        }
    }
}
