//! The ranges of the tools' numeric arguments, written once: clap value
//! parsers that reject a value out of range with exit code 2 and a message
//! naming the range. The engine's own limits live with the engine: the
//! flags of its options (`Threads`, `Hash`, `MultiPV`) take the range of
//! the option's one definition ([`crate::engine::options`]).

use crate::engine::options::{self, OptionSpec};
use clap::builder::{RangedU64ValueParser, TypedValueParser, ValueParser};

pub use crate::engine::MAX_DEPTH;

/// Deepest `annex perft`: the leaf counts are `u64`. The start position's
/// count at depth 20 (OEIS A124004) is 3.5e17, fifty times below `u64::MAX`;
/// depth 21 (4.2e18) leaves no margin for the other conventions and starts,
/// and depth 22 overflows. (The protocol's `perft` stops at 16 because it
/// blocks the command loop.)
pub const MAX_PERFT_DEPTH: u32 = 20;

/// Longest time in milliseconds (the protocol reads times as `i64`).
pub const MAX_MILLIS: u64 = i64::MAX as u64;

/// The range of the engine's spin option `spec`.
fn option_range(spec: &OptionSpec) -> RangedU64ValueParser<usize> {
    let (min, max) = spec.range().unwrap_or((1, 1));
    RangedU64ValueParser::new().range(min.max(0) as u64..=max.max(0) as u64)
}

/// Search and worker threads: the range of the engine's `Threads`.
pub fn threads() -> RangedU64ValueParser<usize> {
    option_range(&options::THREADS)
}

/// Table size in MiB: the range of the engine's `Hash`.
pub fn hash_mb() -> RangedU64ValueParser<usize> {
    option_range(&options::HASH)
}

/// A search depth, 1 to [`MAX_DEPTH`].
pub fn depth() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(1..=u64::from(MAX_DEPTH))
}

/// A depth or empties count where 0 means "off", 0 to [`MAX_DEPTH`].
pub fn depth_or_off() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(0..=u64::from(MAX_DEPTH))
}

/// The depth of `annex perft`, 0 to [`MAX_PERFT_DEPTH`].
pub fn perft_depth() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(0..=u64::from(MAX_PERFT_DEPTH))
}

/// A time in milliseconds, 1 to [`MAX_MILLIS`].
pub fn millis() -> RangedU64ValueParser<u64> {
    RangedU64ValueParser::new().range(1..=MAX_MILLIS)
}

/// A time in milliseconds where 0 means "off".
pub fn millis_or_off() -> RangedU64ValueParser<u64> {
    RangedU64ValueParser::new().range(0..=MAX_MILLIS)
}

/// A count that must be at least 1 (games, nodes, rollouts, …).
pub fn positive_u64() -> RangedU64ValueParser<u64> {
    RangedU64ValueParser::new().range(1..)
}

/// As [`positive_u64`], for a `u32`.
pub fn positive_u32() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(1..=u64::from(u32::MAX))
}

/// As [`positive_u64`], for a `usize`.
pub fn positive_usize() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=usize::MAX as u64)
}

/// Lines of a multi-PV search: the range of the engine's `MultiPV`.
pub fn multipv() -> RangedU64ValueParser<usize> {
    option_range(&options::MULTIPV)
}

/// A percentage of held-out games, 0 to 99 (100 would leave nothing to
/// train on).
pub fn holdout_percent() -> RangedU64ValueParser<u64> {
    RangedU64ValueParser::new().range(0..=99)
}

/// A finite real number in `lo..=hi`.
pub fn real(lo: f64, hi: f64) -> ValueParser {
    ValueParser::new(clap::builder::StringValueParser::new().try_map(move |s| {
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
            Ok(_) => Err(format!("{s} is not in {lo}..={hi}")),
            Err(_) => Err(format!("'{s}' is not a number")),
        }
    }))
}

/// As [`real`], for an `f32` argument.
pub fn real32(lo: f32, hi: f32) -> ValueParser {
    ValueParser::new(clap::builder::StringValueParser::new().try_map(move |s| {
        match s.trim().parse::<f32>() {
            Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
            Ok(_) => Err(format!("{s} is not in {lo}..={hi}")),
            Err(_) => Err(format!("'{s}' is not a number")),
        }
    }))
}

/// Plies of each game taken into a book, 1 to 60.
pub fn book_plies() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=u64::from(MAX_DEPTH))
}

/// Most empties of a solved held-out position in `annex eval-measure`, 8 to
/// 60 (positions from 8 empties up are picked).
pub fn solve_max_empties() -> RangedU64ValueParser<u32> {
    RangedU64ValueParser::new().range(8..=u64::from(MAX_DEPTH))
}
