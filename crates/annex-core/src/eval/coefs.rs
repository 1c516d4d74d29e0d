//! Pattern indices by square coefficients: the fast path of the evaluation.
//!
//! A pattern index is linear in the squares: `Σ 3^k · state(square k)`,
//! with state 1 for a disc of the side to move and 2 for the opponent's.
//! So the index of every pattern instance at once is a sum over the
//! occupied squares of a per-square *coefficient vector* (for each
//! instance, `3^k` if the square is its digit `k`, else 0): the discs of
//! the side to move add their vector once, the opponent's twice. The
//! vectors are 64 lanes of `u16` (the largest index, 3^10 - 1, fits) that
//! the compiler keeps in 256-bit registers; they are summed a byte (a row)
//! of the board at a time from a table of the 256 disc patterns of each
//! row (256 KB). Against a nibble at a time (16 look-ups a side from 32 KB)
//! an evaluation took 0.87 of the time on random positions and 0.93 on hot
//! ones (`cargo bench --bench eval`), a solve of FFO #57 0.97-0.98.
//! The scalar path ([`super::pattern::for_each_feature`]) builds every
//! index from a mirrored board and two table look-ups instead; with the
//! weight look-ups through a fixed window (no bounds checks), this path
//! evaluates 1.3-1.6x as fast (`cargo bench --bench eval`).
//!
//! The coefficients are read off the scalar extraction itself (the index
//! of each instance on a board holding a single disc), so the two paths
//! agree by construction; a test (`tests/eval.rs`) checks them on many
//! positions.

use super::pattern::{
    FeatureSet, MAX_FEATURES, N_BASE_PATTERNS, N_EXTRA_FEATURES, N_PATTERN_FEATURES, OFFSETS,
    PATTERNS, raw_features,
};

/// Lanes of a coefficient vector: the base instances, then the extra ones.
pub const LANES: usize = 64;

/// Features of the raw order that are scalar (empties, two mobilities),
/// between the base and the extra pattern instances.
const N_SCALAR: usize = 3;

/// The raw offset (start of its pattern's table) of each lane, in the
/// order of [`super::pattern::for_each_feature`]: every instance of the
/// base patterns, then of the extra ones. A constant, so that the bound of
/// every look-up is checked at compile time (see [`SPAN_BASE`]).
pub const LANE_OFFSETS: [u32; LANES] = {
    let mut o = [0u32; LANES];
    let mut l = 0;
    let mut g = 0;
    while g < PATTERNS.len() {
        let mut k = 0;
        while k < PATTERNS[g].instances.len() {
            o[l] = OFFSETS[g];
            l += 1;
            k += 1;
        }
        g += 1;
    }
    o
};

/// Lanes of the base patterns.
pub const BASE_LANES: usize = N_PATTERN_FEATURES;
/// Lanes of all patterns (the extended set).
pub const ALL_LANES: usize = N_PATTERN_FEATURES + N_EXTRA_FEATURES;

/// The weights a base-pattern look-up can reach from its stage's start:
/// the last lane's offset plus any `u16` index. The stage tables are read
/// through windows of this size (the table is padded at its end), so no
/// look-up can leave the window whatever the indices.
pub const SPAN_BASE: usize = OFFSETS[N_BASE_PATTERNS - 1] as usize + 1 + u16::MAX as usize;
/// As [`SPAN_BASE`], for the extended set.
pub const SPAN_ALL: usize = OFFSETS[PATTERNS.len() - 1] as usize + 1 + u16::MAX as usize;

/// Per-square coefficient vectors.
#[derive(Clone)]
pub struct Coefs {
    /// `row → value → lanes`: the index contribution of discs of the
    /// side to move on the set bits of `value` placed at squares
    /// `8 * row .. 8 * row + 8`, for every pattern instance (256 KB).
    by_row: Box<[[[u16; LANES]; 256]; 8]>,
}

/// The lane of raw feature `f` of a set with the extra patterns, if it is
/// a pattern instance.
fn lane_of(f: usize, set: FeatureSet) -> Option<usize> {
    match f {
        f if f < N_PATTERN_FEATURES => Some(f),
        f if f < N_PATTERN_FEATURES + N_SCALAR || !set.extra() => None,
        f => Some(f - N_SCALAR),
    }
}

impl Coefs {
    /// The coefficients of feature set `set`.
    pub fn new(set: FeatureSet) -> Coefs {
        let n = set.n_features();
        let mut empty = [0u32; MAX_FEATURES];
        raw_features(0, 0, set, &mut empty);
        for (f, &e) in empty.iter().enumerate().take(n) {
            if let Some(l) = lane_of(f, set) {
                assert_eq!(LANE_OFFSETS[l], e, "lane {l}");
            }
        }
        let mut by_square = Box::new([[0u16; LANES]; 64]);
        for (sq, v) in by_square.iter_mut().enumerate() {
            let mut one = [0u32; MAX_FEATURES];
            raw_features(1u64 << sq, 0, set, &mut one);
            for (f, (&x, &e)) in one.iter().zip(&empty).enumerate().take(n) {
                if let Some(l) = lane_of(f, set) {
                    v[l] = (x - e) as u16;
                }
            }
        }
        let mut by_row = Box::new([[[0u16; LANES]; 256]; 8]);
        for (j, values) in by_row.iter_mut().enumerate() {
            for (v, lanes) in values.iter_mut().enumerate() {
                for k in 0..8 {
                    if v >> k & 1 != 0 {
                        let sq = &by_square[8 * j + k];
                        for (x, y) in lanes.iter_mut().zip(sq) {
                            *x = x.wrapping_add(*y);
                        }
                    }
                }
            }
        }
        Coefs { by_row }
    }

    /// The pattern index of every lane for `p` (side to move) against `o`.
    /// `V` is the number of 16-lane vectors to compute (3 for the base
    /// instances, 4 with the extra ones).
    #[inline(always)]
    pub fn indices<const V: usize>(&self, p: u64, o: u64) -> [[u16; 16]; V] {
        let mut a = [[0u16; 16]; V];
        let mut b = [[0u16; 16]; V];
        sum_rows::<V>(&self.by_row, p, &mut a);
        sum_rows::<V>(&self.by_row, o, &mut b);
        for v in 0..V {
            for l in 0..16 {
                a[v][l] = a[v][l].wrapping_add(b[v][l].wrapping_mul(2));
            }
        }
        a
    }
}

/// Adds the coefficient vectors of the squares of `bits` into `acc`, a
/// row at a time: 8 look-ups whatever the number of discs (a loop over
/// the discs measured slower: its length is unpredictable).
#[inline(always)]
fn sum_rows<const V: usize>(c: &[[[u16; LANES]; 256]; 8], bits: u64, acc: &mut [[u16; 16]; V]) {
    for (j, values) in c.iter().enumerate() {
        let row = &values[(bits >> (8 * j) & 255) as usize];
        for v in 0..V {
            for l in 0..16 {
                acc[v][l] = acc[v][l].wrapping_add(row[v * 16 + l]);
            }
        }
    }
}
