//! Perft: counting the leaves of the game tree, under three pass conventions
//! (see `shared/data/perft/perft_start_position.tsv`).
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
//! use annex::perft::{perft, Convention};
//! use annex::position::Position;
//! use annex::rules::RuleSet;
//! let r = RuleSet::default();
//! assert_eq!(perft(&Position::start(&r).board, &r, 6, Convention::Oeis, 1), 8200);
//! ```

use crate::board::{legal_moves, Board};
use crate::moves::{play_unchecked, Move, MoveList};
use crate::rules::RuleSet;
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

impl FromStr for Convention {
    type Err = String;
    fn from_str(s: &str) -> Result<Convention, String> {
        match s.to_ascii_lowercase().as_str() {
            "oeis" => Ok(Convention::Oeis),
            "carry" => Ok(Convention::Carry),
            "nopass" => Ok(Convention::NoPass),
            _ => Err(format!(
                "invalid convention '{s}' (expected oeis, carry or nopass)"
            )),
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
/// Each entry is four atomics written one after the other: player,
/// opponent, count and a check word mixing all three with the depth. A
/// reader accepts an entry only when the check word matches what it reads,
/// so a torn entry (two writers racing) is rejected rather than trusted;
/// races only lose entries, never corrupt counts (up to a 2^-64 chance).
struct CountTable {
    entries: Vec<[AtomicU64; 4]>,
    mask: usize,
}

impl CountTable {
    fn new(mb: usize) -> CountTable {
        let n = ((mb.max(1) << 20) / 32).next_power_of_two() / 2;
        let n = n.max(1024);
        let entries = (0..n)
            .map(|_| {
                [
                    AtomicU64::new(0),
                    AtomicU64::new(0),
                    AtomicU64::new(0),
                    AtomicU64::new(u64::MAX),
                ]
            })
            .collect();
        CountTable {
            entries,
            mask: n - 1,
        }
    }

    #[inline]
    fn check(b: &Board, depth: u32, count: u64) -> u64 {
        let h = b.hash() ^ (depth as u64).wrapping_mul(0xff51_afd7_ed55_8ccd);
        (h ^ count.wrapping_mul(0x9e37_79b9_7f4a_7c15)).rotate_left(17)
    }

    #[inline]
    fn index(&self, b: &Board, depth: u32) -> usize {
        (b.hash().wrapping_add(depth as u64 * 0x2545_f491_4f6c_dd1d) >> 20) as usize & self.mask
    }

    fn get(&self, b: &Board, depth: u32) -> Option<u64> {
        let e = &self.entries[self.index(b, depth)];
        let p = e[0].load(Ordering::Relaxed);
        let o = e[1].load(Ordering::Relaxed);
        let c = e[2].load(Ordering::Relaxed);
        let k = e[3].load(Ordering::Relaxed);
        (p == b.player && o == b.opponent && k == CountTable::check(b, depth, c)).then_some(c)
    }

    fn put(&self, b: &Board, depth: u32, count: u64) {
        let e = &self.entries[self.index(b, depth)];
        e[0].store(b.player, Ordering::Relaxed);
        e[1].store(b.opponent, Ordering::Relaxed);
        e[2].store(count, Ordering::Relaxed);
        e[3].store(CountTable::check(b, depth, count), Ordering::Relaxed);
    }
}

/// Depth at and above which subtrees go through the table.
const HASH_DEPTH: u32 = 3;

struct Fast<'a> {
    conv: Convention,
    table: &'a CountTable,
}

impl Fast<'_> {
    /// Leaves below a position with no move for the side to move, at depth
    /// `depth >= 1`.
    #[inline]
    fn no_move(&self, p: u64, o: u64, depth: u32) -> u64 {
        let om = legal_moves(o, p);
        if om == 0 {
            return self.conv.game_over();
        }
        match self.conv {
            Convention::NoPass => self.count(o, p, om, depth),
            _ if depth == 1 => 1,
            _ => self.count(o, p, om, depth - 1),
        }
    }

    /// Leaves at `depth >= 1` of a position whose move mask `moves` is
    /// non-zero.
    fn count(&self, p: u64, o: u64, moves: u64, depth: u32) -> u64 {
        debug_assert!(moves != 0);
        if depth == 1 {
            return moves.count_ones() as u64;
        }
        let board = Board::new(p, o);
        if depth >= HASH_DEPTH {
            let (key, _) = board.unique();
            if let Some(c) = self.table.get(&key, depth) {
                return c;
            }
            let n = self.children(&board, moves, depth);
            self.table.put(&key, depth, n);
            return n;
        }
        self.children(&board, moves, depth)
    }

    #[inline]
    fn children(&self, board: &Board, moves: u64, depth: u32) -> u64 {
        let mut n = 0;
        let mut m = moves;
        while m != 0 {
            let sq = m.trailing_zeros() as usize;
            m &= m - 1;
            let c = board.play_square(sq);
            let cm = legal_moves(c.player, c.opponent);
            n += if cm == 0 {
                self.no_move(c.player, c.opponent, depth - 1)
            } else {
                self.count(c.player, c.opponent, cm, depth - 1)
            };
        }
        n
    }

    fn root(&self, board: &Board, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let m = board.legal_moves();
        if m == 0 {
            self.no_move(board.player, board.opponent, depth)
        } else {
            self.count(board.player, board.opponent, m, depth)
        }
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
    let fast = rules.flips == crate::rules::Flips::All && !board.is_placement(rules);
    let table = fast.then(|| CountTable::new(opt.hash_mb));
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
    // Expand each root child into tasks two plies deeper when deep enough.
    let mut tasks: Vec<(usize, Board, u32)> = Vec::new();
    let mut direct: Vec<usize> = Vec::new();
    for (i, (_, b, d)) in children.iter().enumerate() {
        if *d >= 4 && table.is_some() {
            expand(b, rules, *d, 2, i, &mut tasks);
        } else {
            direct.push(i);
        }
    }
    let mut totals = vec![0u64; children.len()];
    pool.install(|| {
        let part: Vec<(usize, u64)> = tasks
            .par_iter()
            .map(|(i, b, d)| {
                let n = match table {
                    Some(t) => Fast { conv, table: t }.root(b, *d),
                    None => perft_general(b, rules, *d, conv),
                };
                (*i, n)
            })
            .collect();
        for (i, n) in part {
            totals[i] += n;
        }
        let d: Vec<(usize, u64)> = direct
            .par_iter()
            .map(|&i| (i, work(&children[i]).1))
            .collect();
        for (i, n) in d {
            totals[i] += n;
        }
    });
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
