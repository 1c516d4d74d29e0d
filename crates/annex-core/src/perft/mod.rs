//! Perft: counting the leaves of the game tree, under three pass conventions
//! (see `data/perft/perft_start_position.tsv`).
//!
//! * [`Convention::Oeis`] (default): a forced pass is one ply; a finished
//!   game is a leaf only at the ply where it ends (OEIS A124004).
//! * [`Convention::Carry`]: a forced pass is one ply; a finished game stays
//!   one leaf at every deeper depth (Aart Bik's perft).
//! * [`Convention::NoPass`]: a pass uses no depth; a finished game is one
//!   leaf at every deeper depth.
//!
//! Under the default rules a fast path counts the last two plies in bulk
//! (move-mask popcounts) and shares a transposition table between threads:
//! positions are stored in their symmetry-canonical form with the remaining
//! depth and their exact count, so each repeated position (or mirror image)
//! is counted once. Other rule sets go through the general rule-aware code.
//!
//! ```
//! use annex_core::perft::{perft, Convention};
//! use annex_core::position::Position;
//! use annex_core::rules::RuleSet;
//! let r = RuleSet::default();
//! assert_eq!(perft(&Position::start(&r).board, &r, 6, Convention::Oeis, 1), 8200);
//! ```

#[cfg(target_arch = "x86_64")]
mod avx2;

use crate::board::Board;
use crate::moves::{Move, MoveList, play_unchecked};
use crate::rules::{FastPath, RuleSet};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

/// How passes and finished games are counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Convention {
    /// Pass = ply; finished games counted only at their last ply.
    #[default]
    Oeis,
    /// Pass = ply; finished games carried to deeper depths.
    Carry,
    /// Pass uses no depth; finished games carried.
    NoPass,
}

/// A pass convention name that is none of `oeis`, `carry`, `nopass`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid convention '{0}' (expected oeis, carry or nopass)")]
pub struct ParseConventionError(pub String);

impl FromStr for Convention {
    type Err = ParseConventionError;
    fn from_str(s: &str) -> Result<Convention, ParseConventionError> {
        match s.to_ascii_lowercase().as_str() {
            "oeis" => Ok(Convention::Oeis),
            "carry" => Ok(Convention::Carry),
            "nopass" => Ok(Convention::NoPass),
            _ => Err(ParseConventionError(s.to_string())),
        }
    }
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Convention::Oeis => "oeis",
            Convention::Carry => "carry",
            Convention::NoPass => "nopass",
        })
    }
}

impl Convention {
    /// Leaves of a finished game with depth > 0 left.
    #[inline]
    const fn game_over(self) -> u64 {
        match self {
            Convention::Oeis => 0,
            Convention::Carry | Convention::NoPass => 1,
        }
    }
}

/// Counts leaves with the plain rule-aware move generator (any rules, no
/// hashing, one thread). The reference for the fast path.
pub fn perft_general(board: &Board, rules: &RuleSet, depth: u32, conv: Convention) -> u64 {
    if depth == 0 {
        return 1;
    }
    let list = MoveList::generate(board, rules);
    if list.is_empty() {
        let passed = board.pass();
        if MoveList::generate(&passed, rules).is_empty() {
            return conv.game_over();
        }
        return match conv {
            Convention::NoPass => perft_general(&passed, rules, depth, conv),
            _ => perft_general(&passed, rules, depth - 1, conv),
        };
    }
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|m| perft_general(&play_unchecked(board, rules, m), rules, depth - 1, conv))
        .sum()
}

/// A shared, lock-free table of exact subtree counts.
///
/// Buckets of two entries fill one 64-byte cache line. Each entry is four
/// atomics written one after the other: player, opponent, the depth (top
/// 8 bits) with the count (low 56 bits), and a check word mixing all three.
/// A reader accepts an entry only when the check word matches what it
/// reads, so a torn entry (two writers racing) is rejected rather than
/// trusted; races only lose entries, never corrupt counts (up to a 2^-64
/// chance). A new result replaces the entry of the same key, else the
/// shallower of the two (the deeper subtree saves more work).
struct CountTable {
    buckets: Vec<Bucket>,
    mask: usize,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket([[AtomicU64; 4]; 2]);

/// Counts at or above this do not fit beside the depth and are not stored.
const COUNT_LIMIT: u64 = 1 << 56;

impl CountTable {
    /// A table of about `bytes` bytes (a power of two, at least 64 KiB).
    fn new(bytes: usize) -> CountTable {
        let n = (bytes / 64).max(1024).next_power_of_two();
        let n = if n * 64 > bytes.max(1 << 16) {
            n / 2
        } else {
            n
        };
        let buckets = (0..n).map(|_| Bucket::default()).collect();
        CountTable {
            buckets,
            mask: n - 1,
        }
    }

    #[inline(always)]
    fn check(p: u64, o: u64, word: u64) -> u64 {
        let h = Board::new(p, o).hash();
        (h ^ word.wrapping_mul(0x9e37_79b9_7f4a_7c15)).rotate_left(17) | 1
    }

    #[inline(always)]
    fn bucket(&self, b: &Board) -> &Bucket {
        &self.buckets[(b.hash() >> 32) as usize & self.mask]
    }

    /// Asks the CPU to start loading the bucket of `b` (a hint only).
    #[inline(always)]
    fn prefetch(&self, b: &Board) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr = self.bucket(b) as *const Bucket as *const i8;
            // Safety: SSE is part of every x86-64 CPU, and a prefetch of a
            // valid address (a reference into the table) has no effect but
            // on the cache.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = b;
    }

    #[inline(always)]
    fn get(&self, b: &Board, depth: u32) -> Option<u64> {
        let want = (depth as u64) << 56;
        for e in &self.bucket(b).0 {
            let p = e[0].load(Ordering::Relaxed);
            let o = e[1].load(Ordering::Relaxed);
            let w = e[2].load(Ordering::Relaxed);
            let k = e[3].load(Ordering::Relaxed);
            if p == b.player
                && o == b.opponent
                && w & !(COUNT_LIMIT - 1) == want
                && k == CountTable::check(p, o, w)
            {
                return Some(w & (COUNT_LIMIT - 1));
            }
        }
        None
    }

    #[inline(always)]
    fn put(&self, b: &Board, depth: u32, count: u64) {
        if count >= COUNT_LIMIT {
            return;
        }
        let bucket = &self.bucket(b).0;
        let depth_of = |e: &[AtomicU64; 4]| (e[2].load(Ordering::Relaxed) >> 56) as u32;
        let same = |e: &[AtomicU64; 4]| {
            e[0].load(Ordering::Relaxed) == b.player && e[1].load(Ordering::Relaxed) == b.opponent
        };
        let e = if same(&bucket[0]) {
            &bucket[0]
        } else if same(&bucket[1]) || depth_of(&bucket[0]) > depth_of(&bucket[1]) {
            &bucket[1]
        } else {
            &bucket[0]
        };
        let w = (depth as u64) << 56 | count;
        e[3].store(0, Ordering::Relaxed);
        e[0].store(b.player, Ordering::Relaxed);
        e[1].store(b.opponent, Ordering::Relaxed);
        e[2].store(w, Ordering::Relaxed);
        e[3].store(
            CountTable::check(b.player, b.opponent, w),
            Ordering::Relaxed,
        );
    }
}

/// Table size for a run: what the user allows, but no more than the
/// subtree can use (a small count should not pay for clearing 256 MiB).
fn table_bytes(hash_mb: usize, depth: u32) -> usize {
    let cap = 16usize << 10 << depth.min(24);
    (hash_mb.max(1) << 20).min(cap)
}

/// Subtrees at least this deep go through the table (depth 3 subtrees are
/// cheaper to count than to look up; measured).
const HASH_DEPTH: u32 = 4;

/// The default-rules counter: bulk counting of the last two plies, the
/// shared table above them, positions keyed by their symmetry-canonical
/// board (without it, perft(12) takes four times as long).
struct Fast<'a> {
    conv: Convention,
    table: &'a CountTable,
}

/// The counting kernel, compiled twice: portable, and with the x86-64 bit
/// instructions (hardware popcount, lzcnt, BMI; about 15% faster at
/// perft(12)) for CPUs that have them, chosen at run time.
macro_rules! kernel {
    ($name:ident, $flips:path, $moves:path $(, $feat:literal)?) => {
        mod $name {
            use super::{Board, Convention, Fast};
            use $flips as flips;
            use $moves as legal_moves;

            /// Leaves at depth 1 of a position whose side to move has no move.
            $(#[target_feature(enable = $feat)])?
            #[inline]
            fn pass_leaf(f: &Fast<'_>, p: u64, o: u64) -> u64 {
                let om = legal_moves(o, p);
                if om == 0 {
                    f.conv.game_over()
                } else if f.conv == Convention::NoPass {
                    om.count_ones() as u64
                } else {
                    1
                }
            }

            /// Leaves at depth 2 of a position with moves `moves` (non-zero):
            /// the mobility of each child, without making it a node.
            $(#[target_feature(enable = $feat)])?
            #[inline]
            fn count2(f: &Fast<'_>, p: u64, o: u64, moves: u64) -> u64 {
                let mut n = 0;
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let fl = flips(p, o, sq);
                    let (cp, co) = (o ^ fl, p ^ fl ^ (1u64 << sq));
                    let cm = legal_moves(cp, co);
                    n += if cm != 0 {
                        cm.count_ones() as u64
                    } else {
                        pass_leaf(f, cp, co)
                    };
                }
                n
            }

            /// Leaves below a position with no move for the side to move,
            /// at depth `depth >= 1`.
            $(#[target_feature(enable = $feat)])?
            fn no_move(f: &Fast<'_>, p: u64, o: u64, depth: u32) -> u64 {
                if depth == 1 {
                    return pass_leaf(f, p, o);
                }
                let om = legal_moves(o, p);
                if om == 0 {
                    return f.conv.game_over();
                }
                match f.conv {
                    Convention::NoPass => count(f, o, p, om, depth),
                    _ if depth == 2 => om.count_ones() as u64,
                    _ => count(f, o, p, om, depth - 1),
                }
            }

            /// Leaves at `depth >= 2` of a position whose move mask `moves`
            /// is non-zero.
            $(#[target_feature(enable = $feat)])?
            fn count(f: &Fast<'_>, p: u64, o: u64, moves: u64, depth: u32) -> u64 {
                debug_assert!(moves != 0 && depth >= 2);
                if depth == 2 {
                    return count2(f, p, o, moves);
                }
                if depth < super::HASH_DEPTH {
                    return children(f, p, o, moves, depth);
                }
                keyed(f, p, o, moves, depth, Board::new(p, o).unique().0)
            }

            /// [`count`] at `depth >= HASH_DEPTH` with the table key known.
            $(#[target_feature(enable = $feat)])?
            #[inline]
            fn keyed(f: &Fast<'_>, p: u64, o: u64, moves: u64, depth: u32, key: Board) -> u64 {
                if let Some(c) = f.table.get(&key, depth) {
                    return c;
                }
                let n = if depth > super::HASH_DEPTH {
                    children_prefetched(f, p, o, moves, depth)
                } else {
                    children(f, p, o, moves, depth)
                };
                f.table.put(&key, depth, n);
                n
            }

            /// [`children`] when the children go through the table: their
            /// keys are computed and their buckets prefetched first, so the
            /// memory loads overlap.
            $(#[target_feature(enable = $feat)])?
            fn children_prefetched(
                f: &Fast<'_>,
                p: u64,
                o: u64,
                moves: u64,
                depth: u32,
            ) -> u64 {
                let mut kids = [(0u64, 0u64, 0u64, Board::new(0, 0)); 64];
                let mut k = 0;
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let fl = flips(p, o, sq);
                    let (cp, co) = (o ^ fl, p ^ fl ^ (1u64 << sq));
                    let cm = legal_moves(cp, co);
                    let key = if cm != 0 {
                        let key = Board::new(cp, co).unique().0;
                        f.table.prefetch(&key);
                        key
                    } else {
                        Board::new(0, 0)
                    };
                    kids[k] = (cp, co, cm, key);
                    k += 1;
                }
                let mut n = 0;
                for &(cp, co, cm, key) in &kids[..k] {
                    n += if cm == 0 {
                        no_move(f, cp, co, depth - 1)
                    } else {
                        keyed(f, cp, co, cm, depth - 1, key)
                    };
                }
                n
            }

            /// Sum over the children of a position at `depth >= 3`.
            $(#[target_feature(enable = $feat)])?
            #[inline]
            fn children(f: &Fast<'_>, p: u64, o: u64, moves: u64, depth: u32) -> u64 {
                let mut n = 0;
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let fl = flips(p, o, sq);
                    let (cp, co) = (o ^ fl, p ^ fl ^ (1u64 << sq));
                    let cm = legal_moves(cp, co);
                    n += if cm == 0 {
                        no_move(f, cp, co, depth - 1)
                    } else {
                        count(f, cp, co, cm, depth - 1)
                    };
                }
                n
            }

            /// Leaves at `depth` below `board`.
            $(#[target_feature(enable = $feat)])?
            pub(super) fn root(f: &Fast<'_>, board: &Board, depth: u32) -> u64 {
                if depth == 0 {
                    return 1;
                }
                let m = legal_moves(board.player, board.opponent);
                if m == 0 {
                    no_move(f, board.player, board.opponent, depth)
                } else if depth == 1 {
                    m.count_ones() as u64
                } else {
                    count(f, board.player, board.opponent, m, depth)
                }
            }
        }
    };
}

/// Whether the CPU has what the AVX2 kernel needs.
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
}

kernel!(portable, crate::board::flips, crate::board::legal_moves);
#[cfg(target_arch = "x86_64")]
kernel!(
    x86_bits,
    crate::board::flips,
    crate::board::legal_moves,
    "popcnt,lzcnt,bmi1,bmi2"
);
#[cfg(target_arch = "x86_64")]
kernel!(
    x86_avx2,
    crate::perft::avx2::flips,
    crate::perft::avx2::legal_moves,
    "avx2,popcnt,lzcnt,bmi1,bmi2"
);

impl Fast<'_> {
    fn root(&self, board: &Board, depth: u32) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // Safety: the kernel needs AVX2, popcnt, lzcnt, BMI1 and BMI2,
            // and the CPU has just been seen to have them.
            return unsafe { x86_avx2::root(self, board, depth) };
        }
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
        {
            // Safety: the kernel only needs these four CPU features, and
            // the CPU has just been seen to have them.
            return unsafe { x86_bits::root(self, board, depth) };
        }
        portable::root(self, board, depth)
    }
}

/// Options of a perft run.
#[derive(Clone, Copy, Debug)]
pub struct PerftOptions {
    /// Pass convention.
    pub convention: Convention,
    /// Worker threads (1 = the calling thread only).
    pub threads: usize,
    /// Size of the shared count table in MiB (default rules only).
    pub hash_mb: usize,
}

impl Default for PerftOptions {
    fn default() -> Self {
        PerftOptions {
            convention: Convention::Oeis,
            threads: 1,
            hash_mb: 64,
        }
    }
}

/// The leaf count of each legal move (or of the pass) at `depth >= 1`,
/// in move order.
pub fn divide(board: &Board, rules: &RuleSet, depth: u32, opt: PerftOptions) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    let list = MoveList::generate(board, rules);
    let conv = opt.convention;
    let children: Vec<(Move, Board, u32)> = if list.is_empty() {
        if MoveList::generate(&board.pass(), rules).is_empty() {
            return Vec::new();
        }
        let d = if conv == Convention::NoPass {
            depth
        } else {
            depth - 1
        };
        vec![(Move::PASS, board.pass(), d)]
    } else {
        list.iter()
            .map(|m| (m, play_unchecked(board, rules, m), depth - 1))
            .collect()
    };
    // A board past the placement plies never returns to them, so the fast
    // path (flips all, plain moves) covers it under any other option.
    let fast = crate::moves::fast_path(board, rules) == FastPath::Bitboard;
    let table = fast.then(|| CountTable::new(table_bytes(opt.hash_mb, depth)));
    let work = |(m, b, d): &(Move, Board, u32)| -> (Move, u64) {
        let n = match &table {
            Some(t) => Fast { conv, table: t }.root(b, *d),
            None => perft_general(b, rules, *d, conv),
        };
        (*m, n)
    };
    if opt.threads <= 1 || children.len() == 1 && depth <= 1 {
        return children.iter().map(work).collect();
    }
    // Parallel: split the tree a few plies down so that both threads stay
    // busy to the end, then sum per root move.
    run_parallel(&children, opt.threads, &work, rules, conv, table.as_ref())
}

/// Counts one root child.
type Work<'a> = dyn Fn(&(Move, Board, u32)) -> (Move, u64) + Sync + 'a;

fn run_parallel(
    children: &[(Move, Board, u32)],
    threads: usize,
    work: &Work<'_>,
    rules: &RuleSet,
    conv: Convention,
    table: Option<&CountTable>,
) -> Vec<(Move, u64)> {
    use rayon::prelude::*;
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            log::warn!("perft: no thread pool ({e}), counting on one thread");
            return children.iter().map(work).collect();
        }
    };
    // Expand each root child into tasks two plies deeper when deep enough,
    // then count each task only once up to symmetry: under every rule set
    // mirror-image positions have equal counts, and two threads must not
    // count the same subtree side by side (from the start position the
    // four first moves are mirror images of each other).
    let mut tasks: Vec<(usize, Board, u32)> = Vec::new();
    for (i, (_, b, d)) in children.iter().enumerate() {
        if *d >= 4 {
            expand(b, rules, *d, 2, i, &mut tasks);
        } else {
            tasks.push((i, *b, *d));
        }
    }
    let mut jobs: Vec<(Board, u32)> = Vec::new();
    let mut seen: std::collections::HashMap<(Board, u32), usize> = Default::default();
    let job_of: Vec<usize> = tasks
        .iter()
        .map(|&(_, b, d)| {
            *seen.entry((b.unique().0, d)).or_insert_with(|| {
                jobs.push((b, d));
                jobs.len() - 1
            })
        })
        .collect();
    let counts: Vec<u64> = pool.install(|| {
        jobs.par_iter()
            .with_max_len(1)
            .map(|(b, d)| match table {
                Some(t) => Fast { conv, table: t }.root(b, *d),
                None => perft_general(b, rules, *d, conv),
            })
            .collect()
    });
    let mut totals = vec![0u64; children.len()];
    for (&(i, _, _), &j) in tasks.iter().zip(&job_of) {
        totals[i] += counts[j];
    }
    children
        .iter()
        .zip(totals)
        .map(|((m, _, _), n)| (*m, n))
        .collect()
}

/// Splits the subtree of `b` (depth `d`) into tasks `plies` deeper.
/// Positions without a move stay whole tasks: the counter handles passes
/// and game ends by the convention.
fn expand(
    b: &Board,
    rules: &RuleSet,
    d: u32,
    plies: u32,
    root: usize,
    tasks: &mut Vec<(usize, Board, u32)>,
) {
    let list = MoveList::generate(b, rules);
    if plies == 0 || d <= 2 || list.is_empty() {
        tasks.push((root, *b, d));
        return;
    }
    for m in list.iter() {
        let c = play_unchecked(b, rules, m);
        expand(&c, rules, d - 1, plies - 1, root, tasks);
    }
}

/// The leaf count at `depth` under `rules` and `conv`, on `threads` threads.
pub fn perft(board: &Board, rules: &RuleSet, depth: u32, conv: Convention, threads: usize) -> u64 {
    perft_with(
        board,
        rules,
        depth,
        PerftOptions {
            convention: conv,
            threads,
            ..PerftOptions::default()
        },
    )
}

/// The leaf count with full options.
pub fn perft_with(board: &Board, rules: &RuleSet, depth: u32, opt: PerftOptions) -> u64 {
    if depth == 0 {
        return 1;
    }
    let list = MoveList::generate(board, rules);
    if list.is_empty() && MoveList::generate(&board.pass(), rules).is_empty() {
        return opt.convention.game_over();
    }
    divide(board, rules, depth, opt).iter().map(|x| x.1).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleSet;

    /// Both builds of the kernel count the same, under every convention,
    /// with passes and game ends (positions near the end of random games).
    #[test]
    fn kernels_agree() {
        let r = RuleSet::default();
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        for game in 0..40 {
            let mut b = Board::start();
            while b.empties() > 9 + game % 5 {
                let list = MoveList::generate(&b, &r);
                if list.is_empty() {
                    if b.is_game_over() {
                        break;
                    }
                    b = b.pass();
                    continue;
                }
                let m = list.as_slice()[rng.index(list.len())];
                b = play_unchecked(&b, &r, m);
            }
            for conv in [Convention::Oeis, Convention::Carry, Convention::NoPass] {
                let table = CountTable::new(1 << 20);
                let f = Fast {
                    conv,
                    table: &table,
                };
                let want = perft_general(&b, &r, 7, conv);
                assert_eq!(portable::root(&f, &b, 7), want, "{conv}");
                #[cfg(target_arch = "x86_64")]
                if std::is_x86_feature_detected!("popcnt")
                    && std::is_x86_feature_detected!("lzcnt")
                    && std::is_x86_feature_detected!("bmi1")
                    && std::is_x86_feature_detected!("bmi2")
                {
                    let table = CountTable::new(1 << 20);
                    let f = Fast {
                        conv,
                        table: &table,
                    };
                    // Safety: the features were just detected.
                    assert_eq!(unsafe { x86_bits::root(&f, &b, 7) }, want, "{conv}");
                }
                #[cfg(target_arch = "x86_64")]
                if has_avx2() {
                    let table = CountTable::new(1 << 20);
                    let f = Fast {
                        conv,
                        table: &table,
                    };
                    // Safety: the features were just detected.
                    assert_eq!(unsafe { x86_avx2::root(&f, &b, 7) }, want, "{conv}");
                }
            }
        }
    }

    #[test]
    fn fast_matches_general() {
        let r = RuleSet::default();
        let b = Board::start();
        for conv in [Convention::Oeis, Convention::Carry, Convention::NoPass] {
            for d in 0..=7 {
                let g = perft_general(&b, &r, d, conv);
                let f = perft(&b, &r, d, conv, 1);
                assert_eq!(g, f, "{conv} depth {d}");
                assert_eq!(perft(&b, &r, d, conv, 2), g);
            }
        }
    }
}
