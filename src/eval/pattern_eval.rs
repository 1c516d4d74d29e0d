//! The trained pattern evaluation: weight tables expanded from a
//! [`Weights`] file, looked up by the features of [`super::pattern`].

use super::EvalError;
use super::MAX_EVAL;
use super::coefs::{ALL_LANES, BASE_LANES, Coefs, LANE_OFFSETS, SPAN_ALL, SPAN_BASE};
use super::pattern::{
    EMPTIES_OFFSET, EMPTIES_SIZE, FeatureSet, MOBILITY_OFFSET, MOBILITY_SIZE, POTENTIAL_OFFSET,
    POTENTIAL_SIZE, canon, for_each_feature, potential_mobility, stage_of_n,
};
use super::weights::{Weights, WeightsError};
use crate::board::Board;
use crate::board::legal_moves;
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
    /// Per-square coefficients of the pattern indices.
    coefs: Coefs,
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
        // The look-ups read a stage through a window of `span` weights (see
        // `SPAN_BASE`); the last stage's ends in this padding.
        let span = if w.set.extra() { SPAN_ALL } else { SPAN_BASE };
        table.resize(table.len() + span.saturating_sub(raw_size), 0);
        let stage_base =
            std::array::from_fn(|e| (stage_of_n(e as u32, w.stages) * raw_size) as u32);
        PatternEval {
            set: w.set,
            raw_size,
            stage_base,
            table,
            coefs: Coefs::new(w.set),
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
        let (p, o) = (board.player, board.opponent);
        let mut s = if self.set.extra() {
            self.pattern_sum::<4, ALL_LANES, SPAN_ALL>(base, p, o)
        } else {
            self.pattern_sum::<3, BASE_LANES, SPAN_BASE>(base, p, o)
        };
        // The scalar groups as in `for_each_feature` (sharing that code
        // through a closure measured 2-3% slower searches).
        let empties = (!(p | o)).count_ones().min(EMPTIES_SIZE as u32 - 1);
        s += w[(EMPTIES_OFFSET + empties) as usize] as i32;
        if self.set.mobility() {
            let m = MOBILITY_SIZE as u32 - 1;
            let mp = legal_moves(p, o).count_ones().min(m);
            let mo = legal_moves(o, p).count_ones().min(m);
            s += w[(MOBILITY_OFFSET + mp) as usize] as i32;
            s += w[(MOBILITY_OFFSET + MOBILITY_SIZE as u32 + mo) as usize] as i32;
        }
        if self.set.potential() {
            s += w[(POTENTIAL_OFFSET + potential_mobility(p, o)) as usize] as i32;
            s += w[(POTENTIAL_OFFSET + POTENTIAL_SIZE as u32 + potential_mobility(o, p)) as usize]
                as i32;
        }
        s.clamp(-MAX_EVAL + 1, MAX_EVAL - 1)
    }

    /// The weights of the `L` pattern instances (`V` coefficient vectors)
    /// of the stage at `base`, read through a window of `N` weights.
    #[inline(always)]
    fn pattern_sum<const V: usize, const L: usize, const N: usize>(
        &self,
        base: usize,
        p: u64,
        o: u64,
    ) -> i32 {
        let w: &[i16; N] = self.table[base..base + N].try_into().expect("padded table");
        let idx = self.coefs.indices::<V>(p, o);
        let mut s = 0i32;
        const { assert!(window_holds_every_index(L, N)) };
        for l in 0..L {
            let i = LANE_OFFSETS[l] as usize + idx[l / 16][l % 16] as usize;
            // Safety: `i` is at most `LANE_OFFSETS[l] + u16::MAX`, which is
            // below `N` for every lane below `L` (the assertion above, at
            // compile time), and `w` has `N` weights. The bounds checks cost
            // 10% of an evaluation (`cargo bench --bench eval`).
            s += unsafe { *w.get_unchecked(i) } as i32;
        }
        s
    }

    /// The same score as [`Self::evaluate`] the slower way, one table
    /// look-up per instance and side (the reference of the tests and the
    /// baseline of `cargo bench --bench eval`).
    pub fn evaluate_scalar(&self, board: &Board) -> i32 {
        let base = self.stage_base[board.empties() as usize] as usize;
        let w = &self.table[base..base + self.raw_size];
        let mut s = 0i32;
        for_each_feature(board.player, board.opponent, self.set, |i| {
            s += w[i as usize] as i32
        });
        s.clamp(-MAX_EVAL + 1, MAX_EVAL - 1)
    }
}

/// Whether a window of `n` weights holds `LANE_OFFSETS[l] + u16::MAX` for
/// every lane `l` below `lanes`.
const fn window_holds_every_index(lanes: usize, n: usize) -> bool {
    let mut l = 0;
    while l < lanes {
        if LANE_OFFSETS[l] as usize + u16::MAX as usize >= n {
            return false;
        }
        l += 1;
    }
    true
}
