//! The search tunables ([`Config`]), each declared once in the
//! `tunables!` table below: its name, type, default and meaning. The
//! macro writes the struct, its `Default`, the by-name setter and the
//! `(name, value)` listing from that one table, so a tunable cannot be
//! added to one and forgotten in another.
//!
//! A tunable is a number (a depth, a count of empties, a weight) or a
//! `bool` that turns one technique on or off. Ideas that lost their
//! measurement are not tunables: their figures stay in `docs/*.md`.

use super::DISC;

/// How the text of a setting becomes a tunable's value.
trait Tunable: Sized {
    /// What the type takes, for the error message.
    const EXPECTED: &'static str;
    /// The value of `text` (trimmed), `None` when it is not one.
    fn parse(text: &str) -> Option<Self>;
}

impl Tunable for u32 {
    const EXPECTED: &'static str = "0-1000";
    fn parse(text: &str) -> Option<u32> {
        text.parse().ok().filter(|v| *v <= MAX_VALUE)
    }
}

impl Tunable for i32 {
    const EXPECTED: &'static str = "0-1000";
    fn parse(text: &str) -> Option<i32> {
        u32::parse(text).map(|v| v as i32)
    }
}

impl Tunable for bool {
    const EXPECTED: &'static str = "true, false, 1 or 0";
    fn parse(text: &str) -> Option<bool> {
        match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        }
    }
}

/// Generates [`Config`] from one declaration per tunable: doc comment,
/// `name: type = default`. Every type is a [`Tunable`]: an integer that
/// a value in `0..=1000` converts into, or a `bool`.
macro_rules! tunables {
    ($( $(#[$doc:meta])* $name:ident : $ty:ty = $default:expr, )+) => {
        /// Search tunables, in one place. Set by name with [`Config::set`]
        /// or [`Config::apply`] (the `ANNEX_CONFIG` syntax), listed by
        /// [`Config::names`].
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Config {
            $( $(#[$doc])* pub $name: $ty, )+
        }

        impl Default for Config {
            fn default() -> Config {
                Config { $( $name: $default, )+ }
            }
        }

        impl Config {
            /// The names of all tunables, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$( stringify!($name) ),+];

            /// The tunables as `(name, value)`, for `set` and logs.
            pub fn names(&self) -> Vec<(&'static str, i64)> {
                vec![$( (stringify!($name), i64::from(self.$name)) ),+]
            }

            /// Stores the value of `text` into tunable `name`.
            fn store(&mut self, name: &str, text: &str) -> Result<(), ConfigError> {
                match name {
                    $( stringify!($name) => {
                        self.$name = <$ty as Tunable>::parse(text.trim()).ok_or_else(|| {
                            ConfigError::InvalidValue {
                                name: name.to_string(),
                                value: text.to_string(),
                                expected: <$ty as Tunable>::EXPECTED,
                            }
                        })?;
                    } )+
                    _ => return Err(ConfigError::UnknownName(name.to_string())),
                }
                Ok(())
            }
        }
    };
}

tunables! {
    /// Without a depth limit, solve exactly once `depth + solve_margin >= empties`.
    solve_margin: u32 = 8,
    /// Deepest midgame iteration run before a requested solve.
    presolve_depth: u32 = 10,
    /// Midgame: shallow-search move ordering from this depth (below it,
    /// children are ordered by their static value, which measured faster).
    shallow_sort_depth: i32 = 20,
    /// Midgame: a null-window frontier node stops at the first child that
    /// reaches beta from this many empties (below, it values every child,
    /// whose exact values and best moves the endgame solver's ordering uses).
    frontier_cut_min_empties: u32 = 30,
    /// Endgame: transposition table from this many empties (probed and
    /// stored without a move from one fewer, `shallow_tt`), where the
    /// search's root has fewer than `tt_deep_root_empties`.
    tt_min_empties: u32 = 8,
    /// From this many empties at the search's root, the table starts at
    /// `tt_deep_min_empties` instead of `tt_min_empties`: a large solve
    /// pays more for the table's misses at 8-9 empties than their entries
    /// save it, a small one (its entries stay in the caches) less.
    tt_deep_root_empties: u32 = 20,
    /// See `tt_deep_root_empties`. 10 against 8 (`docs/table.md`): 1 thread, FFO #40-#48 +14% nodes and 0.93-0.95 the
    /// time, #49-#52 +13% and about 0.92. 11 against 10 (1-thread
    /// pairs): #53-#54 +1.7% nodes and 0.976 the time, #55
    /// +1.7% and 0.982, #56-#58 +1.9% and 0.977, #49-#52 +1.7% and 0.978,
    /// #40-#48 +2.5% and 0.983, #20-#38 +2.9% and 0.982; 2 threads #56-#58
    /// 0.984, #49-#52 0.974. 12 from 28 empties: #56-#58 +3.8%, 1.008;
    /// 12 at every deep root was slower than 10.
    tt_deep_min_empties: u32 = 11,
    /// Positions of at most this many empties (0: none) keep their table
    /// entries in the table's first `tt_near_mb` MiB, whose lines stay in
    /// the caches and the address translation's reach, instead of across
    /// the whole table: most probes and stores of an exact solve are there
    /// (FFO #49-#52 at 1 thread, `docs/table.md`). 12 against 11 with the
    /// table from 11 (1-thread pairs): #49-#52 +0.5% nodes and 0.988 the time, #56-#58
    /// 0.984, #40-#48 0.987, #20-#38 level; 2 threads #49-#52 0.995,
    /// #53-#54 0.992. 13: #49-#52 +1.0% and 0.985; 10: 1.007.
    tt_near_empties: u32 = 12,
    /// See `tt_near_empties` (a table no larger has no separate region).
    /// 16 against 4 on two threads: #49-#52 1.5% fewer nodes and level in
    /// time, #53 6% fewer nodes and 7% slower a pair while the machine
    /// slowed down run by run (4 was faster on one thread).
    tt_near_mb: u32 = 16,
    /// Positions above `tt_near_empties` and up to this many empties (0:
    /// none) keep their entries in a middle region of `tt_mid_mb` MiB right
    /// after the near one. Here a random line of a 128 MiB region costs
    /// about 180 ns and one of a 1 GiB table 300 ns (a pointer chase,
    /// `docs/table.md`). 17 at 128 MiB against none,
    /// 1-thread pairs: #49-#52 0.980 / 0.979 with +0.1% nodes, #53 0.980;
    /// 14 / 16 / 18 about 0.98 / 0.98 / 0.99; 16 at 64 / 512 MiB 0.98 / 0.99.
    tt_mid_empties: u32 = 17,
    /// See `tt_mid_empties` (a table smaller than twice this has none).
    tt_mid_mb: u32 = 128,
    /// Endgame: fastest-first ordering from this many empties.
    sort_min_empties: u32 = 8,
    /// Endgame order: weight of a square's history (its cut rate at these
    /// empties in this search, `history`; 0: off). 1 thread, FFO #40-#52:
    /// nodes 1.320e9 -> 1.236e9 at 192 (`docs/endgame.md`). With the corner
    /// term (`end_corner_weight`), 128 against 192, nodes at 1 thread: FFO
    /// #40-#48 -2.9%, #49-#52 +1.1%, #53 -2.9%, #54 -1.3%, #59 -3.1%,
    /// #20-#38 -1.9% (`docs/endgame.md`).
    end_history_weight: i32 = 128,
    /// Endgame: stability cutoffs from this many empties (4 is the lowest
    /// place they are tried: the 1-3 empties solvers have none). 1 thread,
    /// FFO #40-#52: from 7 1.731e9 nodes, from 6 1.599e9, from
    /// 5 1.515e9 (-12.5%, the time the same: 78.9 s against 78.0 s, four
    /// alternated pairs), from 4 1.320e9 (-12.9% more, time -2.8%: 74.0 /
    /// 74.1 s against 76.3 / 76.1 s on a quiet machine).
    stability_min_empties: u32 = 4,
    /// Parallel endgame: split points from this many empties (with more
    /// than `split_few_threads` threads).
    split_min_empties: u32 = 12,
    /// Parallel endgame: with at most this many threads, split points from
    /// `split_few_min_empties` instead: two threads need fewer split points
    /// to keep busy, and each one risks searching moves that a cut makes
    /// useless.
    split_few_threads: u32 = 2,
    /// Parallel endgame: the split points' empties with few threads. 2
    /// threads, from 16 against 12: FFO #49-#52 -3.5% time, #53 -4% nodes
    /// (`docs/parallel.md`).
    split_few_min_empties: u32 = 16,
    /// Parallel midgame: split points from this depth.
    split_min_depth: i32 = 4,
    /// Initial aspiration half-window (search units).
    aspiration: i32 = 2 * DISC,
    /// Exact solve: initial half-window around the last midgame score,
    /// in discs (0: full window).
    solve_aspiration: u32 = 3,
    /// Endgame ordering: weight of the opponent's mobility (corners twice),
    /// in evaluation units (32 a disc) since the child's value is added to
    /// the key from `end_shallow_min_empties`. With the fourth-generation
    /// weights and `end_sort_d2_empties` 17, 112 against 128 (1 thread):
    /// FFO #40-#48 -3.2% nodes, #49-#52 -1.0%, #20-#38 -2.0%.
    end_mobility_weight: i32 = 112,
    /// Endgame ordering: the weight of the opponent's mobility instead of
    /// `end_mobility_weight` where the child's value is a depth-2 (or deeper) search
    /// (from `end_sort_d2_empties`), whose value already sees the replies.
    /// 80 against 112 (1 thread, nodes): FFO #40-#48 -6.5%, #49-#52 -1.2%,
    /// #20-#38 -1.7% (`docs/endgame.md`).
    end_d2_mobility_weight: i32 = 80,
    /// Endgame ordering: weight of the opponent's potential mobility.
    end_potential_weight: i32 = 16,
    /// Endgame ordering: bonus of a move into an odd quadrant.
    end_parity_weight: i32 = 32,
    /// Endgame ordering: a further bonus of a move into a quadrant where it
    /// is the only empty (no reply there). Below the table (6-7 empties)
    /// any weight under `end_mobility_weight - end_parity_weight` orders
    /// the same. 16 against 0 (1 thread, nodes, with the parity order at
    /// 4-5 empties): FFO #40-#48 -0.33%, #49-#52 -0.38%, #20-#38 -0.05%;
    /// 48: -0.23% / +0.2% on #40-#48 / #20-#38 (`docs/endgame.md`).
    end_single_weight: i32 = 16,
    /// Endgame ordering: bonus per disc of the mover's after the move on a
    /// corner or on an edge square next to a corner it holds (Edax's
    /// corner stability). 16 against 0 (1 thread, nodes): FFO #40-#48
    /// -3.6%, #49-#52 -3.2%, #20-#38 0.0%; 32: -5.8%, +0.1%, +0.3%; 64:
    /// -2.2% on #40-#48 (`docs/endgame.md`).
    end_corner_weight: i32 = 16,
    /// Endgame ordering adds the child's static value from this many
    /// empties (64: never). Measured on FFO #40-#48 (nodes,
    /// 1 thread): the static value (depth 0) with the weights above from
    /// 18 empties saves 20%; with the weights 16/2/4 (the value 8 times
    /// heavier) it cost 60%, and depth-1 searches from 24 cost more still.
    /// From 12 instead of 18: -17% on #40-#48, -14% on #49-#52, -20% on
    /// #20-#38 (from 15: -10% on #40-#48; from 9: -11%). A midgame search
    /// for the value instead, a ply deeper every 4 empties, measured +38%
    /// on #49-#52 (`docs/endgame.md`); `end_sort_d2_empties` and deeper
    /// take over from 17.
    end_shallow_min_empties: u32 = 12,
    /// Endgame: enhanced transposition cutoffs (children probed in the
    /// table before any is searched) from this many empties (9: 1.4-1.7%
    /// fewer nodes than 10 on FFO #20-#52 at about 1% more time per
    /// node, `docs/endgame.md`).
    etc_min_empties: u32 = 9,
    /// Endgame: the table-free search keeps a small per-thread cache of
    /// its bounds (`shallow_cache`) at `shallow_cache_min_empties` to
    /// `shallow_cache_max_empties` empties, `shallow_cache_kb` KiB a
    /// thread (a power of two of 24-byte entries, at most that).
    shallow_cache_kb: u32 = 256,
    /// See `shallow_cache_kb`.
    shallow_cache_min_empties: u32 = 5,
    /// See `shallow_cache_kb`; no cache when this is below
    /// `shallow_cache_min_empties`. 9 measured level with 8 (with the table probed there too; and with the table
    /// from 11: -0.4% to -0.5% nodes, level in time).
    shallow_cache_max_empties: u32 = 8,
    /// Endgame: the sorted nodes of the table-free search probe their
    /// children's cache slots before searching any (enhanced
    /// transposition cutoffs; off: they only prefetch the slots). 3.4-3.7%
    /// fewer nodes on FFO #20-#52 at 1 thread, `docs/endgame.md`.
    shallow_cache_etc: bool = true,
    /// Exact solves from this many empties start with selective passes.
    sel_min_empties: u32 = 18,
    /// ProbCut widths of the selective passes, in hundredths of a sigma
    /// (0: no such pass).
    sel_t1: u32 = 100,
    /// Second selective pass (wider; 0: none). Widening 1.0 -> 2.0 sigma
    /// measured 18% fewer nodes on FFO #40-#48 than 1.0 alone; 1.5: 8%.
    sel_t2: u32 = 200,
    /// Selective passes: ProbCut from this many empties.
    probcut_min_empties: u32 = 11,
    /// ProbCut search depth, in percent of the empties.
    probcut_depth_pct: u32 = 25,
    /// ProbCut sigma at 0 empties and depth 0, in hundredths of a disc:
    /// sigma = (probcut_sigma0 - probcut_sigma_slope * depth) / 100 discs,
    /// at least 2 discs. The fit of `tests/probcut_calibration.rs` (288
    /// PlayOK positions at 12-26 empties) is 9.91 - 0.10 n - 0.37 d (n the
    /// empties), but it measured more nodes on FFO #40-#48 than this
    /// hand-set 6 - 0.3 d; the term in n is gone with it.
    probcut_sigma0: u32 = 600,
    /// ProbCut sigma decrease per ply of depth, in hundredths of a disc.
    probcut_sigma_slope: u32 = 30,
    /// Midgame ProbCut width, in hundredths of a sigma (0: off).
    midcut_t: u32 = 100,
    /// Midgame ProbCut from this depth.
    midcut_min_depth: u32 = 3,
    /// Parallel endgame: from this many empties, the moves after the first
    /// of a PV node (the root's in the solve and its selective passes too)
    /// are searched in parallel at a null window, a fail high alone with
    /// the full window (64: one by one).
    split_pv_min_empties: u32 = 12,
    /// Parallel midgame: with at least this many threads, PV nodes (the
    /// root's too) split as in the endgame, from `split_pv_wide_depth`.
    /// Depth-24 searches on 16 cores: 8 threads 15.2 / 15.6 s -> 12.5 /
    /// 12.5 s, 16 threads 14.1 / 14.7 s -> 10.9 s. With fewer threads the
    /// PV nodes search their moves one by one: from depth 6 on 2 threads
    /// (depth 22) nodes +11%, time +2%; 4 threads, depth 24: 14.1 / 14.6 s
    /// against 13.7 / 16.5 s (`docs/parallel.md`).
    split_pv_wide_threads: u32 = 8,
    /// Parallel midgame: the PV nodes' split depth with many threads.
    split_pv_wide_depth: i32 = 6,
    /// Parallel endgame: at most this many more moves searched alone at a
    /// split point, while the order's guess of a move's value is above
    /// `alpha` (a probable cut; 0: off). A margin of 64, 200 or 400
    /// search units below alpha measured within the spread. 16 threads, FFO
    /// #40-#52: nodes 1.43x -> 1.12x of one thread's, time -4%; 2 threads:
    /// nodes -0.4%, time within the noise (`docs/parallel.md`).
    split_cut_max: u32 = 8,
    /// Endgame ordering: the child's value by a table-free depth-2 search
    /// (`sortsearch`) from this many empties, instead of its static value.
    /// Depth 1 instead measured worse (from 22: +4% on FFO #49-#52, nodes,
    /// 1 thread; within 1.5% at best from 15-24, `docs/endgame.md`). Nodes
    /// at 1 thread against the static value (FFO #40-#48 / #49-#52): from 16
    /// +1.5% / -19%, from 14 +10% / -5%, from 18 +4% / -13%, from 19 +6% /
    /// -10%, from 22 +7% / -5%; #20-#38 from 16: -1%. With the
    /// fourth-generation weights, 17 against 16: -2.9% / -3.9%,
    /// #20-#38 +0.8%; with mobility weight 112 both: -6.0% / -4.9% / -1.2%.
    end_sort_d2_empties: u32 = 17,
    /// Endgame ordering: the same at depth 3 from this many empties, and
    /// at depth 4 from `end_sort_d4_empties` (64: never); the replies
    /// weigh `end_d2_mobility_weight` there too. At 22 and 24 against
    /// depth 2 (1 thread): FFO #56-#58 -15.0% nodes, #53-#54 -5.5%,
    /// #49-#52 +1.4% (`docs/endgame.md`).
    end_sort_d3_empties: u32 = 22,
    /// Endgame ordering: see `end_sort_d3_empties`.
    end_sort_d4_empties: u32 = 24,
    /// Endgame ordering: the shallow search of a child is exact only down
    /// to this many search units below the node's alpha (a fail-soft
    /// bound below; Edax sorts the same way with 8 discs); 0: a full
    /// window. 256 (8 discs) against 0, 1 thread: nodes FFO #40-#48
    /// -0.6%, #49-#52 -0.7%, #20-#38 -0.5% (`docs/endgame.md`).
    end_sort_window: u32 = 256,
    /// Endgame: a child whose value by the parent's order beats the
    /// parent's alpha by more than this many search units (0: off) is
    /// taken for an all-node (its value will stay at or below its alpha):
    /// no enhanced transposition cutoffs there, and its moves ordered by
    /// their cost alone (no evaluation), since all of them are searched.
    /// The order's guesses at 12 or more discs above alpha missed about 1
    /// time in 5 (FFO #40-#48). 384 (12 discs) against off, 1 thread:
    /// nodes FFO #40-#48 -0.5%, #49-#52 -2.1%, #20-#38 -0.5%
    /// (`docs/endgame.md`).
    end_all_margin: u32 = 384,
    /// Endgame below the table: from this many empties the moves are
    /// sorted by the opponent's mobility (corners twice) and parity with
    /// the `end_*_weight`s (64: never, the static parity/square order
    /// only). 1 thread, FFO #40-#52 against 64 (`docs/endgame.md`): from 6 -21.7% nodes, -5% time; from 7 -17%, -4.6%;
    /// from 5 -28% nodes, -1.5% time; #20-#38 from 6 -20% nodes, -5% time.
    shallow_sort_min_empties: u32 = 6,
    /// Midgame: late-move reductions at null-window nodes of at least this
    /// depth (0: off): the moves from index `mid_lmr_after` on (0 is the first)
    /// are searched `mid_lmr_r` plies shallower first, then again at full
    /// depth when they reach the window. Against NTest at equal time,
    /// 1,600 paired games (`docs/strength.md`): 3 / 5 / 2
    /// +77 ± 41 points against off; 3 / 3 / 2 -6.5 ± 21 and 6 / 3 / 2
    /// -12.5 ± 21 of 400. Reducing the scouts of PV nodes too measured
    /// +7.5 ± 29 points of 800: not adopted.
    mid_lmr_min_depth: i32 = 3,
    /// Midgame: the index (0: the first move) of the first reduced move,
    /// see `mid_lmr_min_depth`.
    mid_lmr_after: u32 = 5,
    /// Midgame: the plies taken off a late move, see `mid_lmr_min_depth`
    /// (2 keeps the parity of the depth).
    mid_lmr_r: i32 = 2,
    /// Endgame: up to this many empties, a node without a hash move
    /// orders its moves between ETC's prefetches of its children's buckets
    /// and its probes of them, so that the order's work hides the misses
    /// (it is wasted where ETC cuts: 7% of its calls). The same
    /// nodes; 11 against 0 (1 thread, FFO #40-#48, both binaries at once
    /// on separate cores): 0.91-0.97 the time, four pairs; 16 against 11:
    /// +0.5% nodes, 0.98-1.02 the time (`docs/endgame.md`).
    etc_order_max_empties: u32 = 11,
}

/// Largest value a tunable can be set to.
const MAX_VALUE: u32 = 1000;

/// Why a tunable setting was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// No tunable has this name.
    #[error("unknown tunable '{0}'")]
    UnknownName(String),
    /// Not a value of the tunable's type.
    #[error("invalid value '{value}' for tunable {name} ({expected})")]
    InvalidValue {
        /// The tunable.
        name: String,
        /// The value as given.
        value: String,
        /// What the tunable takes.
        expected: &'static str,
    },
    /// An `ANNEX_CONFIG` item without `=`.
    #[error("expected name=value, got '{0}'")]
    MissingEquals(String),
}

impl Config {
    /// Sets tunable `name` (see [`Config::names`]) to `value`: a number
    /// in 0..=1000, or for a switch `true`, `false`, `1` or `0`.
    ///
    /// # Errors
    /// Unknown name or a value the tunable does not take; the setting is
    /// then unchanged.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        self.store(name.trim(), value)
    }

    /// Applies `name=value,name=value` settings (the `ANNEX_CONFIG` syntax).
    ///
    /// # Errors
    /// As [`Config::set`], or a missing `=`.
    pub fn apply(&mut self, spec: &str) -> Result<(), ConfigError> {
        for kv in spec.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| ConfigError::MissingEquals(kv.to_string()))?;
            self.set(k, v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tunable is listed, set and read back by its own name, and
    /// setting one changes no other. A number takes 777; a switch refuses
    /// it and takes its other state.
    #[test]
    fn every_tunable_round_trips_by_name() {
        let default = Config::default();
        let listed: Vec<&str> = default.names().iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, Config::NAMES);
        assert_eq!(listed.len(), 55);
        let mut switches = 0;
        for (i, name) in Config::NAMES.iter().enumerate() {
            let old = default.names()[i].1;
            let number = if old == 777 { 778 } else { 777 };
            let mut c = default.clone();
            let (text, new) = match c.set(name, &number.to_string()) {
                Ok(()) => (number.to_string(), number),
                Err(ConfigError::InvalidValue { expected, .. }) => {
                    assert_eq!(expected, bool::EXPECTED, "{name}");
                    assert_eq!(c, default, "{name}: a refused value changes nothing");
                    switches += 1;
                    let text = if old == 0 { "true" } else { "false" };
                    c.set(name, text).unwrap();
                    (text.to_string(), 1 - old)
                }
                Err(e) => panic!("{name}: {e}"),
            };
            for (j, (n, v)) in c.names().into_iter().enumerate() {
                let want = if i == j { new } else { default.names()[j].1 };
                assert_eq!(v, want, "{name}: tunable {n}");
            }
            let mut via_apply = default.clone();
            via_apply.apply(&format!(" {name} = {text} ,")).unwrap();
            assert_eq!(via_apply, c, "{name} through apply");
        }
        assert_eq!(switches, 1);
    }

    /// A switch takes `true` / `false` (any case) and `1` / `0`, from
    /// `ANNEX_CONFIG` too; other words and numbers are refused and leave it
    /// as it was. A number refuses `true`.
    #[test]
    fn switches_take_words_and_digits() {
        for (text, want) in [("true", true), (" TRUE ", true), ("1", true)] {
            let mut c = Config {
                shallow_cache_etc: false,
                ..Config::default()
            };
            c.apply(&format!("shallow_cache_etc={text}")).unwrap();
            assert!(c.shallow_cache_etc == want, "{text}");
        }
        for text in ["false", "False", "0"] {
            let mut c = Config::default();
            c.set("shallow_cache_etc", text).unwrap();
            assert!(!c.shallow_cache_etc, "{text}");
        }
        let mut c = Config::default();
        for text in ["2", "yes", "", "-1", "on"] {
            let e = c.set("shallow_cache_etc", text).unwrap_err();
            assert!(e.to_string().contains("true, false, 1 or 0"), "{e}");
        }
        assert!(c.set("sel_t1", "true").is_err());
        assert_eq!(c, Config::default());
    }

    #[test]
    fn bad_names_and_values_change_nothing() {
        let mut c = Config::default();
        assert!(c.set("no_such_tunable", "1").is_err());
        assert!(c.set("sel_t1", "1001").is_err());
        assert!(c.set("sel_t1", "-1").is_err());
        assert!(c.apply("sel_t1").is_err());
        assert_eq!(c, Config::default());
        assert_eq!(c.aspiration, 2 * DISC);
    }
}
