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
//! use annex_core::board::Board;
//! use annex_core::eval::Evaluator;
//! let e = Evaluator::default();
//! let s = e.evaluate(&Board::start());
//! assert!(s.abs() < 4 * annex_core::eval::SCALE);
//! ```

mod coefs;
pub mod pattern;
mod pattern_eval;
mod simple;
pub mod weights;

pub use pattern_eval::PatternEval;
pub use simple::SimpleEval;
pub use weights::{Weights, WeightsError};

use crate::board::Board;
use std::path::Path;
use std::sync::Arc;

/// Evaluation units per disc.
pub const SCALE: i32 = 32;

/// Largest magnitude an evaluation may take.
pub const MAX_EVAL: i32 = 64 * SCALE;

/// The evaluation in use.
#[derive(Clone, Debug)]
pub enum Evaluator {
    /// Hand-written: mobility, potential mobility, corners, parity.
    Simple,
    /// Trained patterns (the embedded weights or an `EvalFile`).
    Pattern(Arc<PatternEval>),
}

/// Why an evaluation could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A weights file that cannot be read or is not valid.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// The embedded weights are unreadable (a test rules that out).
    #[error("embedded weights: {0}")]
    Embedded(std::sync::Arc<WeightsError>),
}

impl Default for Evaluator {
    /// The embedded pattern evaluation (the simple one if the embedded
    /// weights were unreadable, which a test rules out).
    fn default() -> Evaluator {
        match PatternEval::embedded() {
            Ok(p) => Evaluator::Pattern(p),
            Err(e) => {
                log::error!("{e}; using the simple evaluation");
                Evaluator::Simple
            }
        }
    }
}

impl Evaluator {
    /// Score of `board` for the side to move, in 1/[`SCALE`] disc, within
    /// `±MAX_EVAL`.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        match self {
            Evaluator::Simple => SimpleEval::evaluate(board),
            Evaluator::Pattern(p) => p.evaluate(board),
        }
    }

    /// [`Self::evaluate`] where the caller knows the legal moves `moves` of
    /// the side to move.
    #[inline]
    pub fn evaluate_with_moves(&self, board: &Board, moves: u64) -> i32 {
        match self {
            Evaluator::Simple => SimpleEval::evaluate(board),
            Evaluator::Pattern(p) => p.evaluate_with_moves(board, moves),
        }
    }

    /// Loads a weights file written by `annex train`; `simple` (any case)
    /// selects the hand-written evaluation and `embedded` the built-in one.
    ///
    /// # Errors
    /// The file cannot be read or is not valid weights.
    pub fn from_file(path: &str) -> Result<Evaluator, EvalError> {
        if path.eq_ignore_ascii_case("simple") {
            return Ok(Evaluator::Simple);
        }
        if path.eq_ignore_ascii_case("embedded") || path.is_empty() {
            return PatternEval::embedded().map(Evaluator::Pattern);
        }
        Ok(Evaluator::Pattern(Arc::new(PatternEval::from_file(
            Path::new(path),
        )?)))
    }

    /// A short name for logs and `info string`.
    pub fn name(&self) -> &'static str {
        match self {
            Evaluator::Simple => "simple",
            Evaluator::Pattern(_) => "pattern",
        }
    }
}
