//! Pattern features: the squares of each pattern, how a board is turned
//! into feature indices, and the symmetry tables that make the evaluation
//! exact under the 8 board symmetries.
//!
//! A pattern is an ordered list of squares; its *index* on a board is the
//! base-3 number whose digit `k` is the state of square `k` (0 empty,
//! 1 side to move, 2 opponent). Every pattern is read on the 8 symmetric
//! images of the board; the images that cover distinct square sets are its
//! *instances* (4, 8 or 2 of them), and all instances share one weight
//! table. A pattern whose square set is mapped onto itself by a symmetry
//! (the 3x3 corner by the diagonal mirror, an edge by the left-right
//! mirror, …) gives two indices for the same configuration; both map to one
//! *canonical* weight, so the evaluation of a board and of any of its
//! symmetric images are equal.
//!
//! The indices are computed from scratch: the board is mirrored into its 8
//! images (a few dozen bit operations), then each instance is a handful of
//! shifts and masks on one image plus a binary-to-ternary table look-up.
//!
//! Besides patterns, a feature set may have *scalar* groups: the number of
//! empty squares (a per-empties bias, which also captures parity), the
//! mobility of each side and (`PatternsPotential` only) the potential
//! mobility of each side.

use crate::bitboard::{flip_diagonal, flip_vertical, mirror_horizontal, symmetry};
use crate::board::legal_moves;
use std::sync::OnceLock;

/// A pattern: a name and its squares, digit 0 first.
#[derive(Clone, Copy, Debug)]
pub struct PatternDef {
    /// Short name, used in logs and tests.
    pub name: &'static str,
    /// Squares (bit indices) in digit order.
    pub squares: &'static [u8],
    /// The symmetries whose images hold the instances, see [`symmetry`].
    pub instances: &'static [u8],
}

/// The patterns, in feature order: the 11 base patterns of every feature
/// set, then the 3 extra patterns of [`FeatureSet::Extended`].
pub const PATTERNS: [PatternDef; 14] = [
    PatternDef {
        name: "corner3x3",
        squares: &[0, 1, 2, 8, 9, 10, 16, 17, 18],
        instances: &[0, 1, 2, 3],
    },
    PatternDef {
        name: "corner2x5",
        squares: &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
        instances: &[0, 1, 2, 3, 4, 5, 6, 7],
    },
    PatternDef {
        name: "edge2x",
        squares: &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
        instances: &[0, 1, 4, 6],
    },
    PatternDef {
        name: "row2",
        squares: &[8, 9, 10, 11, 12, 13, 14, 15],
        instances: &[0, 1, 4, 6],
    },
    PatternDef {
        name: "row3",
        squares: &[16, 17, 18, 19, 20, 21, 22, 23],
        instances: &[0, 1, 4, 6],
    },
    PatternDef {
        name: "row4",
        squares: &[24, 25, 26, 27, 28, 29, 30, 31],
        instances: &[0, 1, 4, 6],
    },
    PatternDef {
        name: "diag8",
        squares: &[0, 9, 18, 27, 36, 45, 54, 63],
        instances: &[0, 1],
    },
    PatternDef {
        name: "diag7",
        squares: &[1, 10, 19, 28, 37, 46, 55],
        instances: &[0, 1, 2, 3],
    },
    PatternDef {
        name: "diag6",
        squares: &[2, 11, 20, 29, 38, 47],
        instances: &[0, 1, 2, 3],
    },
    PatternDef {
        name: "diag5",
        squares: &[3, 12, 21, 30, 39],
        instances: &[0, 1, 2, 3],
    },
    PatternDef {
        name: "diag4",
        squares: &[4, 13, 22, 31],
        instances: &[0, 1, 2, 3],
    },
    PatternDef {
        name: "triangle",
        squares: &[0, 1, 2, 3, 8, 9, 10, 16, 17, 24],
        instances: &[0, 1, 2, 3],
    },
    PatternDef {
        name: "cornerblock",
        squares: &[0, 2, 3, 4, 5, 7, 10, 11, 12, 13],
        instances: &[0, 1, 4, 6],
    },
    PatternDef {
        name: "cross",
        squares: &[0, 9, 18, 27, 1, 10, 19, 8, 17, 26],
        instances: &[0, 1, 2, 3],
    },
];

/// Number of base patterns (used by every feature set).
pub const N_BASE_PATTERNS: usize = 11;

/// Number of base pattern features (instances of the base patterns).
pub const N_PATTERN_FEATURES: usize = 46;

/// Number of extra pattern features of [`FeatureSet::Extended`].
pub const N_EXTRA_FEATURES: usize = 12;

/// The most features a position has (the extended set).
pub const MAX_FEATURES: usize = N_PATTERN_FEATURES + 3 + N_EXTRA_FEATURES;

/// Size of the empties group (0..=60 empties; more are clamped).
pub const EMPTIES_SIZE: usize = 61;
/// Size of each mobility group (move counts above are clamped).
pub const MOBILITY_SIZE: usize = 36;
/// Size of each potential-mobility group (counts above are clamped).
pub const POTENTIAL_SIZE: usize = 48;

/// Number of game stages (weights per stage) of the default weights.
pub const N_STAGES: usize = 16;

/// The stage counts a weights file may have: `64 / stages` empties a stage.
pub const STAGE_COUNTS: [usize; 3] = [16, 32, 64];

/// The stage of a position with `empties` empty squares: 4 empties a stage.
#[inline]
pub const fn stage_of(empties: u32) -> usize {
    stage_of_n(empties, N_STAGES)
}

/// The stage of a position with `empties` empty squares among `stages`
/// stages of `64 / stages` empties each.
#[inline]
pub const fn stage_of_n(empties: u32, stages: usize) -> usize {
    let s = empties as usize * stages / 64;
    if s >= stages { stages - 1 } else { s }
}

/// Which features a weights file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureSet {
    /// The 11 patterns and the empties bias.
    Patterns = 1,
    /// As `Patterns`, plus the mobility of each side.
    PatternsMobility = 2,
    /// As `PatternsMobility`, plus the corner triangle, the corner + block
    /// edge and the corner cross patterns.
    Extended = 3,
    /// As `PatternsMobility`, plus the potential mobility of each side
    /// (the empty squares next to an opponent's disc).
    PatternsPotential = 4,
}

/// A feature group: a weight table shared by some features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// A pattern of [`PATTERNS`], by index.
    Pattern(usize),
    /// The number of empty squares.
    Empties,
    /// The mobility of one side (two groups: side to move, then opponent).
    Mobility,
    /// The potential mobility of one side (two groups, as `Mobility`).
    Potential,
}

impl FeatureSet {
    /// From the id stored in a weights file.
    pub fn from_id(id: u16) -> Option<FeatureSet> {
        match id {
            1 => Some(FeatureSet::Patterns),
            2 => Some(FeatureSet::PatternsMobility),
            3 => Some(FeatureSet::Extended),
            4 => Some(FeatureSet::PatternsPotential),
            _ => None,
        }
    }

    /// The id stored in a weights file.
    pub fn id(self) -> u16 {
        self as u16
    }

    /// Whether the mobility groups are used.
    #[inline(always)]
    pub const fn mobility(self) -> bool {
        !matches!(self, FeatureSet::Patterns)
    }

    /// Whether the extra patterns are used.
    #[inline(always)]
    pub const fn extra(self) -> bool {
        matches!(self, FeatureSet::Extended)
    }

    /// Whether the potential-mobility groups are used.
    #[inline(always)]
    pub const fn potential(self) -> bool {
        matches!(self, FeatureSet::PatternsPotential)
    }

    /// Features per position (pattern instances + scalar groups).
    pub fn n_features(self) -> usize {
        N_PATTERN_FEATURES
            + if self.mobility() { 3 } else { 1 }
            + if self.potential() { 2 } else { 0 }
            + if self.extra() { N_EXTRA_FEATURES } else { 0 }
    }

    /// The groups, in raw (and canonical) order: the base patterns, the
    /// empties, the two mobility groups, the two potential-mobility groups
    /// or the extra patterns.
    pub fn groups(self) -> Vec<Group> {
        let mut v: Vec<Group> = (0..N_BASE_PATTERNS).map(Group::Pattern).collect();
        v.push(Group::Empties);
        if self.mobility() {
            v.push(Group::Mobility);
            v.push(Group::Mobility);
        }
        if self.potential() {
            v.push(Group::Potential);
            v.push(Group::Potential);
        }
        if self.extra() {
            v.extend((N_BASE_PATTERNS..PATTERNS.len()).map(Group::Pattern));
        }
        v
    }

    /// Raw (uncanonicalised) size of each group, in the order of [`Self::groups`].
    pub fn raw_group_sizes(self) -> Vec<usize> {
        self.groups()
            .iter()
            .map(|g| match *g {
                Group::Pattern(i) => 3usize.pow(PATTERNS[i].squares.len() as u32),
                Group::Empties => EMPTIES_SIZE,
                Group::Mobility => MOBILITY_SIZE,
                Group::Potential => POTENTIAL_SIZE,
            })
            .collect()
    }
}

/// `TERNARY[bits]`: `bits` read as base-3 digits (each 0 or 1).
static TERNARY: [u16; 1024] = {
    let mut t = [0u16; 1024];
    let mut i = 0;
    while i < 1024 {
        let mut v = 0u32;
        let mut p = 1u32;
        let mut k = 0;
        while k < 10 {
            if i >> k & 1 != 0 {
                v += p;
            }
            p *= 3;
            k += 1;
        }
        t[i] = v as u16;
        i += 1;
    }
    t
};

/// Raw offsets of the pattern groups in the flat raw index space: the base
/// patterns from 0, the extra patterns after the scalar groups.
const fn pattern_offsets() -> [u32; 14] {
    let mut o = [0u32; 14];
    let mut next = 0u32;
    let mut i = 0;
    while i < PATTERNS.len() {
        if i == N_BASE_PATTERNS {
            next += EMPTIES_SIZE as u32 + 2 * MOBILITY_SIZE as u32;
        }
        o[i] = next;
        next += 3u32.pow(PATTERNS[i].squares.len() as u32);
        i += 1;
    }
    o
}

/// `OFFSETS[i]`: first raw index of pattern `i`.
pub const OFFSETS: [u32; 14] = pattern_offsets();
/// First raw index of the empties group.
pub const EMPTIES_OFFSET: u32 =
    OFFSETS[N_BASE_PATTERNS - 1] + 3u32.pow(PATTERNS[N_BASE_PATTERNS - 1].squares.len() as u32);
/// First raw index of the player-mobility group.
pub const MOBILITY_OFFSET: u32 = EMPTIES_OFFSET + EMPTIES_SIZE as u32;
/// First raw index of the player potential-mobility group (sets without
/// the extra patterns, whose raw indices start at the same place).
pub const POTENTIAL_OFFSET: u32 = MOBILITY_OFFSET + 2 * MOBILITY_SIZE as u32;

/// The potential mobility of `p` against `o`: the empty squares next to a
/// disc of `o`, clamped to the group's size.
#[inline(always)]
pub fn potential_mobility(p: u64, o: u64) -> u32 {
    (crate::bitboard::around(o) & !(p | o))
        .count_ones()
        .min(POTENTIAL_SIZE as u32 - 1)
}

#[inline(always)]
fn tern(p: u64, o: u64) -> u32 {
    TERNARY[p as usize] as u32 + 2 * TERNARY[o as usize] as u32
}

#[inline(always)]
fn corner3x3(b: u64) -> u64 {
    (b & 7) | (b >> 5 & 0x38) | (b >> 10 & 0x1c0)
}

#[inline(always)]
fn corner2x5(b: u64) -> u64 {
    (b & 0x1f) | (b >> 3 & 0x3e0)
}

#[inline(always)]
fn edge2x(b: u64) -> u64 {
    (b & 0xff) | (b >> 1 & 0x100) | (b >> 5 & 0x200)
}

#[inline(always)]
fn triangle(b: u64) -> u64 {
    (b & 0xf) | (b >> 4 & 0x70) | (b >> 9 & 0x180) | (b >> 15 & 0x200)
}

#[inline(always)]
fn corner_block(b: u64) -> u64 {
    (b & 1) | (b >> 1 & 0x1e) | (b >> 2 & 0x20) | (b >> 4 & 0x3c0)
}

/// The main diagonal's first 4 squares, then the 3 squares beside it on
/// each side; each run is gathered by one multiplication as in [`diag`].
#[inline(always)]
fn cross(b: u64) -> u64 {
    const K: u64 = 0x0101_0101_0101_0101;
    let d = (b & 0x0804_0201).wrapping_mul(K) >> 56 & 0xf;
    let up = (b & 0x0008_0402).wrapping_mul(K) >> 57 & 0x7;
    let left = (b & 0x0402_0100).wrapping_mul(K) >> 56 & 0x7;
    d | up << 4 | left << 7
}

/// The bits of a diagonal going down-right from row 1, column `8 - len`,
/// gathered in column order by one multiplication (no carries: every
/// partial product lands on its own bit).
#[inline(always)]
fn diag(b: u64, mask: u64, len: u32) -> u64 {
    (b & mask).wrapping_mul(0x0101_0101_0101_0101) >> (64 - len)
}

const fn mask_of(squares: &[u8]) -> u64 {
    let mut m = 0u64;
    let mut i = 0;
    while i < squares.len() {
        m |= 1u64 << squares[i];
        i += 1;
    }
    m
}

const D8: u64 = mask_of(PATTERNS[6].squares);
const D7: u64 = mask_of(PATTERNS[7].squares);
const D6: u64 = mask_of(PATTERNS[8].squares);
const D5: u64 = mask_of(PATTERNS[9].squares);
const D4: u64 = mask_of(PATTERNS[10].squares);

/// The 8 symmetric images of a bitboard, in the order of [`symmetry`].
#[inline(always)]
fn images(b: u64) -> [u64; 8] {
    let v = flip_vertical(b);
    let h = mirror_horizontal(b);
    let hv = flip_vertical(h);
    [
        b,
        v,
        h,
        hv,
        flip_diagonal(b),
        flip_diagonal(v),
        flip_diagonal(h),
        flip_diagonal(hv),
    ]
}

/// Calls `f` with every raw feature index of a position (`p` = side to
/// move) under feature set `set`: the 46 base pattern instances, the
/// empties group, the two mobility groups (if the set has them), the two
/// potential-mobility groups or the 12 extra pattern instances (if it has
/// them). Each index is already offset
/// into the flat raw space. Inlined into its callers, so the evaluation
/// sums weights as the indices are made; call it with a constant `set`.
#[inline(always)]
pub fn for_each_feature<F: FnMut(u32)>(p: u64, o: u64, set: FeatureSet, mut f: F) {
    let ps = images(p);
    let os = images(o);
    macro_rules! put {
        ($g:expr, $x:expr, $($s:expr),+) => {
            $( f(OFFSETS[$g] + tern($x(ps[$s]), $x(os[$s]))); )+
        };
    }
    put!(0, corner3x3, 0, 1, 2, 3);
    put!(1, corner2x5, 0, 1, 2, 3, 4, 5, 6, 7);
    put!(2, edge2x, 0, 1, 4, 6);
    put!(3, |b: u64| b >> 8 & 0xff, 0, 1, 4, 6);
    put!(4, |b: u64| b >> 16 & 0xff, 0, 1, 4, 6);
    put!(5, |b: u64| b >> 24 & 0xff, 0, 1, 4, 6);
    put!(6, |b: u64| diag(b, D8, 8), 0, 1);
    put!(7, |b: u64| diag(b, D7, 7), 0, 1, 2, 3);
    put!(8, |b: u64| diag(b, D6, 6), 0, 1, 2, 3);
    put!(9, |b: u64| diag(b, D5, 5), 0, 1, 2, 3);
    put!(10, |b: u64| diag(b, D4, 4), 0, 1, 2, 3);
    let empties = (!(p | o)).count_ones().min(EMPTIES_SIZE as u32 - 1);
    f(EMPTIES_OFFSET + empties);
    if set.mobility() {
        let m = MOBILITY_SIZE as u32 - 1;
        f(MOBILITY_OFFSET + legal_moves(p, o).count_ones().min(m));
        f(MOBILITY_OFFSET + MOBILITY_SIZE as u32 + legal_moves(o, p).count_ones().min(m));
    }
    if set.potential() {
        f(POTENTIAL_OFFSET + potential_mobility(p, o));
        f(POTENTIAL_OFFSET + POTENTIAL_SIZE as u32 + potential_mobility(o, p));
    }
    if set.extra() {
        put!(11, triangle, 0, 1, 2, 3);
        put!(12, corner_block, 0, 1, 4, 6);
        put!(13, cross, 0, 1, 2, 3);
    }
}

/// The raw feature indices of a position, in the order of
/// [`for_each_feature`]; entries past the set's feature count are left as they are.
#[inline]
pub fn raw_features(p: u64, o: u64, set: FeatureSet, out: &mut [u32; MAX_FEATURES]) {
    let mut n = 0;
    for_each_feature(p, o, set, |i| {
        out[n] = i;
        n += 1;
    });
}

/// Index of a pattern on a board the slow way, square by square: the
/// reference the fast extraction is tested against.
pub fn slow_index(squares: &[u8], p: u64, o: u64) -> u32 {
    let mut idx = 0u32;
    for &sq in squares.iter().rev() {
        idx *= 3;
        if p >> sq & 1 != 0 {
            idx += 1;
        } else if o >> sq & 1 != 0 {
            idx += 2;
        }
    }
    idx
}

/// The self-symmetries of a pattern's square set, as digit permutations:
/// `perm[k]` is the digit that square `k` moves to.
pub fn self_symmetries(squares: &[u8]) -> Vec<Vec<usize>> {
    let set = mask_of(squares);
    let mut out = Vec::new();
    for s in 1..8u8 {
        if symmetry(set, s) != set {
            continue;
        }
        let perm = squares
            .iter()
            .map(|&sq| {
                let img = symmetry(1u64 << sq, s).trailing_zeros() as u8;
                squares.iter().position(|&x| x == img).unwrap_or(0)
            })
            .collect();
        out.push(perm);
    }
    out
}

fn permute(idx: u32, len: usize, perm: &[usize]) -> u32 {
    let mut digits = [0u32; 16];
    let mut x = idx;
    for k in 0..len {
        digits[perm[k]] = x % 3;
        x /= 3;
    }
    let mut r = 0;
    for k in (0..len).rev() {
        r = r * 3 + digits[k];
    }
    r
}

/// The map from raw indices to canonical (compact) weight indices of one
/// feature set.
#[derive(Debug)]
pub struct Canon {
    /// `map[raw]` = canonical index.
    pub map: Vec<u32>,
    /// Canonical size of each group.
    pub group_sizes: Vec<usize>,
    /// Total canonical size (weights per stage).
    pub size: usize,
}

fn build_canon(set: FeatureSet) -> Canon {
    let raw = set.raw_group_sizes();
    let mut map = Vec::with_capacity(raw.iter().sum());
    let mut group_sizes = Vec::new();
    let mut next = 0u32;
    for (group, &rs) in set.groups().iter().zip(&raw) {
        let start = next;
        if let Group::Pattern(g) = *group {
            let sq = PATTERNS[g].squares;
            let perms = self_symmetries(sq);
            let mut local = vec![u32::MAX; rs];
            for i in 0..rs as u32 {
                let c = perms
                    .iter()
                    .map(|p| permute(i, sq.len(), p))
                    .fold(i, u32::min);
                if c == i {
                    local[i as usize] = next;
                    next += 1;
                }
            }
            for i in 0..rs as u32 {
                let c = perms
                    .iter()
                    .map(|p| permute(i, sq.len(), p))
                    .fold(i, u32::min);
                map.push(local[c as usize]);
            }
        } else {
            for _ in 0..rs {
                map.push(next);
                next += 1;
            }
        }
        group_sizes.push((next - start) as usize);
    }
    Canon {
        map,
        group_sizes,
        size: next as usize,
    }
}

/// The canonical map of a feature set (built once).
pub fn canon(set: FeatureSet) -> &'static Canon {
    static C1: OnceLock<Canon> = OnceLock::new();
    static C2: OnceLock<Canon> = OnceLock::new();
    static C3: OnceLock<Canon> = OnceLock::new();
    static C4: OnceLock<Canon> = OnceLock::new();
    match set {
        FeatureSet::Patterns => C1.get_or_init(|| build_canon(set)),
        FeatureSet::PatternsMobility => C2.get_or_init(|| build_canon(set)),
        FeatureSet::Extended => C3.get_or_init(|| build_canon(set)),
        FeatureSet::PatternsPotential => C4.get_or_init(|| build_canon(set)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_counts() {
        let n: usize = PATTERNS[..N_BASE_PATTERNS]
            .iter()
            .map(|p| p.instances.len())
            .sum();
        assert_eq!(n, N_PATTERN_FEATURES);
        let n: usize = PATTERNS[N_BASE_PATTERNS..]
            .iter()
            .map(|p| p.instances.len())
            .sum();
        assert_eq!(n, N_EXTRA_FEATURES);
        let raw: usize = FeatureSet::Extended.raw_group_sizes().iter().sum();
        assert_eq!(raw as u32, OFFSETS[13] + 59049);
        assert_eq!(OFFSETS[1], 19683);
        let c = canon(FeatureSet::Patterns);
        // 3x3 corner: (3^9 + 3^6) / 2 canonical configurations.
        assert_eq!(c.group_sizes[0], (19683 + 729) / 2);
        assert_eq!(c.group_sizes[1], 59049);
        assert_eq!(c.group_sizes[2], (59049 + 243) / 2);
    }

    #[test]
    fn instances_cover_all_images() {
        for p in PATTERNS {
            let set = mask_of(p.squares);
            let mut seen: Vec<u64> = Vec::new();
            for s in 0..8u8 {
                // Reading the pattern on image s reads these squares.
                let inst = (0..64)
                    .filter(|&q| symmetry(1u64 << q, s) & set != 0)
                    .fold(0u64, |m, q| m | 1 << q);
                if !seen.contains(&inst) {
                    seen.push(inst);
                    assert!(p.instances.contains(&s), "{} misses {s}", p.name);
                } else {
                    assert!(!p.instances.contains(&s), "{} repeats {s}", p.name);
                }
            }
        }
    }
}
