//! The trained pattern evaluation: weight tables expanded from a
//! [`Weights`] file, looked up by the features of [`super::pattern`].

use super::EvalError;
use super::MAX_EVAL;
use super::pattern::{FeatureSet, canon, for_each_feature, stage_of_n};
use super::weights::{Weights, WeightsError};
use crate::board::Board;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The weights built into the binary (trained by `annex train`, see README).
pub static EMBEDDED: &[u8] = include_bytes!("../../weights/annex.eval");

/// A pattern evaluation ready to use: one raw-indexed table per stage, so an
/// evaluation is feature extraction plus one look-up per feature.
#[derive(Clone)]
pub struct PatternEval {
    set: FeatureSet,
    raw_size: usize,
    /// Offset into `table` of the stage of each number of empties (0..=64).
    stage_base: [u32; 65],
    /// `stages × raw_size` weights in 1/SCALE disc.
    table: Vec<i16>,
}

impl fmt::Debug for PatternEval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PatternEval")
            .field("set", &self.set)
            .field("raw_size", &self.raw_size)
            .finish()
    }
}

impl PatternEval {
    /// Expands canonical weights into look-up tables.
    pub fn new(w: &Weights) -> PatternEval {
        let c = canon(w.set);
        let raw_size = c.map.len();
        let mut table = Vec::with_capacity(w.stages * raw_size);
        for s in 0..w.stages {
            let stage = &w.data[s * c.size..(s + 1) * c.size];
            table.extend(c.map.iter().map(|&i| stage[i as usize]));
        }
        let stage_base =
            std::array::from_fn(|e| (stage_of_n(e as u32, w.stages) * raw_size) as u32);
        PatternEval {
            set: w.set,
            raw_size,
            stage_base,
            table,
        }
    }

    /// Loads a weights file.
    ///
    /// # Errors
    /// The file cannot be read, or is not valid weights.
    pub fn from_file(path: &Path) -> Result<PatternEval, WeightsError> {
        Ok(PatternEval::new(&Weights::load(path)?))
    }

    /// The embedded evaluation (parsed once, shared).
    ///
    /// # Errors
    /// The embedded weights are unreadable (a test rules that out).
    pub fn embedded() -> Result<Arc<PatternEval>, EvalError> {
        static E: OnceLock<Result<Arc<PatternEval>, String>> = OnceLock::new();
        E.get_or_init(|| {
            Weights::from_bytes(EMBEDDED)
                .map(|w| Arc::new(PatternEval::new(&w)))
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(EvalError::Embedded)
    }

    /// The feature set of the loaded weights.
    pub fn feature_set(&self) -> FeatureSet {
        self.set
    }

    /// Score of `board` for the side to move, in 1/SCALE disc, within ±MAX_EVAL.
    #[inline]
    pub fn evaluate(&self, board: &Board) -> i32 {
        let base = self.stage_base[board.empties() as usize] as usize;
        let w = &self.table[base..base + self.raw_size];
        let mut s = 0i32;
        let (p, o) = (board.player, board.opponent);
        match self.set {
            FeatureSet::Patterns => {
                for_each_feature(p, o, FeatureSet::Patterns, |i| s += w[i as usize] as i32)
            }
            FeatureSet::PatternsMobility => {
                for_each_feature(p, o, FeatureSet::PatternsMobility, |i| {
                    s += w[i as usize] as i32
                })
            }
            FeatureSet::Extended => {
                for_each_feature(p, o, FeatureSet::Extended, |i| s += w[i as usize] as i32)
            }
        }
        s.clamp(-MAX_EVAL + 1, MAX_EVAL - 1)
    }
}
