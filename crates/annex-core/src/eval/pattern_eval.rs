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

/// The weights built into the binary (trained by `annex train`, see `docs/evaluation.md`).
pub static EMBEDDED: &[u8] = include_bytes!("../../../../weights/annex.eval");

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
        // One more weight: the gathers of `gather_sum` read two at a time.
        let span = if w.set.extra() { SPAN_ALL } else { SPAN_BASE };
        table.resize(table.len() + span.saturating_sub(raw_size) + 1, 0);
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
        static E: OnceLock<Result<Arc<PatternEval>, Arc<WeightsError>>> = OnceLock::new();
        E.get_or_init(|| {
            Weights::from_bytes(EMBEDDED)
                .map(|w| Arc::new(PatternEval::new(&w)))
                .map_err(Arc::new)
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
        self.evaluate_with_moves(board, legal_moves(board.player, board.opponent))
    }

    /// [`Self::evaluate`] where the caller knows the legal moves `moves`
    /// of the side to move (it saves their computation).
    #[inline]
    pub fn evaluate_with_moves(&self, board: &Board, moves: u64) -> i32 {
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
            let mp = moves.count_ones().min(m);
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
        let idx = self.coefs.indices::<V>(p, o);
        const { assert!(window_holds_every_index(L, N)) };
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        {
            // Safety: AVX2 is enabled at compile time (the cfg), and the
            // table holds a weight past the window (the padding of `new`).
            unsafe { gather_sum::<V, L>(self.table[base..base + N + 1].as_ptr(), &idx) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
        {
            let w: &[i16; N] = self.table[base..base + N].try_into().expect("padded table");
            let mut s = 0i32;
            for l in 0..L {
                let i = LANE_OFFSETS[l] as usize + idx[l / 16][l % 16] as usize;
                // Safety: `i` is at most `LANE_OFFSETS[l] + u16::MAX`, which
                // is below `N` for every lane below `L` (the assertion
                // above, at compile time), and `w` has `N` weights. The
                // bounds checks cost 10% of an evaluation (`cargo bench
                // --bench eval`).
                s += unsafe { *w.get_unchecked(i) } as i32;
            }
            s
        }
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

/// The lane offsets as `i32`, for the vector loads of [`gather_sum`].
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
static LANE_OFFSETS_I32: [i32; 64] = {
    let mut o = [0i32; 64];
    let mut l = 0;
    while l < 64 {
        o[l] = LANE_OFFSETS[l] as i32;
        l += 1;
    }
    o
};

/// The sum of the weights `w[LANE_OFFSETS[l] + idx[l]]` over the lanes `l`
/// below `L`, eight lanes to an AVX2 gather: each reads the 32 bits at the
/// weight (it and the next weight) and keeps the low half, sign-extended.
/// Against one load and one insert per lane, the evaluation is 1.06x as
/// fast on random positions and 1.18x on hot ones (`cargo bench --bench
/// eval`), a solve about 1.03x (`docs/endgame.md`).
///
/// # Safety
/// AVX2 must be available, and `w` must point at `N + 1` readable weights
/// where every `LANE_OFFSETS[l] + u16::MAX` (`l < L`) is below `N`.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
#[inline(always)]
unsafe fn gather_sum<const V: usize, const L: usize>(w: *const i16, idx: &[[u16; 16]; V]) -> i32 {
    use std::arch::x86_64::*;
    // Safety (all the intrinsics): AVX2, as the caller guarantees; the
    // loads read `idx` and `LANE_OFFSETS_I32` within their bounds (`V` is
    // at most 4, 64 lanes); the gathers read 4 bytes at `w + 2 i` for the
    // lanes' `i`, at most `N - 1`, so within the `N + 1` weights.
    unsafe {
        let mut acc = _mm256_setzero_si256();
        for (v, lanes) in idx.iter().enumerate() {
            let x = _mm256_loadu_si256(lanes.as_ptr().cast());
            for half in 0..2 {
                let lane = v * 16 + half * 8;
                if lane >= L {
                    break;
                }
                let part = if half == 0 {
                    _mm256_castsi256_si128(x)
                } else {
                    _mm256_extracti128_si256::<1>(x)
                };
                let off = _mm256_loadu_si256(LANE_OFFSETS_I32[lane..].as_ptr().cast());
                let i = _mm256_add_epi32(_mm256_cvtepu16_epi32(part), off);
                let g = _mm256_i32gather_epi32::<2>(w.cast(), i);
                let mut vals = _mm256_srai_epi32::<16>(_mm256_slli_epi32::<16>(g));
                if lane + 8 > L {
                    // Lanes past the last instance: their weight is not one.
                    let keep = _mm256_cmpgt_epi32(
                        _mm256_set1_epi32((L - lane) as i32),
                        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                    );
                    vals = _mm256_and_si256(vals, keep);
                }
                acc = _mm256_add_epi32(acc, vals);
            }
        }
        let s = _mm_add_epi32(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256::<1>(acc),
        );
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
        _mm_cvtsi128_si32(s)
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
