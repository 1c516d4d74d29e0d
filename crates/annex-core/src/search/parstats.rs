//! Counters of the parallel search: split points by empties (endgame) and
//! depth (midgame), the tasks they spawn, and the work that a serial
//! search would not have done (tasks after the move that cut, and tasks
//! stopped by a cut). They say where a many-thread tree grows.
//!
//! Each thread counts into its own block (a relaxed load and store on a
//! line no other thread writes), registered once in a global list;
//! [`snapshot`] sums the blocks. Counting happens at split points and
//! tasks only, never per node, so it costs nothing measurable and is
//! always on. A search's figures are the difference of two snapshots.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Endgame split points that reached their parallel part, by empties
/// (`SPLIT_END + empties`).
pub const SPLIT_END: usize = 0;
/// Midgame split points that reached their parallel part, by depth
/// (`SPLIT_MID + depth`, depths above 64 counted at 64).
pub const SPLIT_MID: usize = 65;
/// Split-point candidates (endgame) that cut in their serial part.
pub const SERIAL_CUT: usize = 130;
/// Tasks spawned.
pub const TASKS: usize = 131;
/// Tasks that found a cut already raised when they started (no work).
pub const TASKS_SKIPPED: usize = 132;
/// Tasks stopped by a cut (theirs or above) or the search's stop.
pub const TASKS_STOPPED: usize = 133;
/// Nodes of all tasks' subtrees, nested split points included once.
pub const NODES_TASKS: usize = 134;
/// Split points whose parallel part cut (a task failed high).
pub const PAR_CUT: usize = 135;
/// Nodes that a serial search would not have searched: at a split point
/// that cut, the subtrees of the tasks after the one that cut and of the
/// tasks that the cut stopped.
pub const NODES_WASTED: usize = 136;
/// PV-node rounds (`pv_round`).
pub const PV_ROUNDS: usize = 137;
/// Number of counters.
pub const LEN: usize = 138;

struct Block([AtomicU64; LEN]);

static BLOCKS: Mutex<Vec<Arc<Block>>> = Mutex::new(Vec::new());

thread_local! {
    static LOCAL: Arc<Block> = {
        let b = Arc::new(Block(std::array::from_fn(|_| AtomicU64::new(0))));
        BLOCKS.lock().unwrap_or_else(|e| e.into_inner()).push(Arc::clone(&b));
        b
    };
}

/// Adds `n` to counter `i` of this thread.
#[inline]
pub fn add(i: usize, n: u64) {
    LOCAL.with(|b| {
        let c = &b.0[i];
        // Only this thread writes its block: a load and a store suffice.
        c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
    });
}

/// The counters summed over every thread that ever counted.
pub fn snapshot() -> Stats {
    let blocks = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let mut v = [0u64; LEN];
    for b in blocks.iter() {
        for (s, c) in v.iter_mut().zip(&b.0) {
            *s = s.wrapping_add(c.load(Relaxed));
        }
    }
    Stats(v)
}

/// A sum of the counters ([`snapshot`]); the figures of one search are
/// `after.since(&before)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats(pub [u64; LEN]);

impl Stats {
    /// The counts between `earlier` and `self`.
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats(std::array::from_fn(|i| {
            self.0[i].wrapping_sub(earlier.0[i])
        }))
    }

    /// Counter `i`.
    pub fn get(&self, i: usize) -> u64 {
        self.0[i]
    }

    /// Split points by empties (endgame) or depth (midgame), `(key, count)`
    /// for the non-zero ones.
    pub fn splits(&self, base: usize) -> Vec<(usize, u64)> {
        (0..65)
            .filter(|&k| self.0[base + k] > 0)
            .map(|k| (k, self.0[base + k]))
            .collect()
    }

    /// One line: split points (total and by empties/depth), tasks, the
    /// share of the nodes searched in tasks and of those thrown away.
    pub fn line(&self, nodes: u64) -> String {
        let end: u64 = self.splits(SPLIT_END).iter().map(|s| s.1).sum();
        let mid: u64 = self.splits(SPLIT_MID).iter().map(|s| s.1).sum();
        let pct = |x: u64| 100.0 * x as f64 / nodes.max(1) as f64;
        let hist = |base| {
            self.splits(base)
                .iter()
                .map(|(k, n)| format!("{k}:{n}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "splits end {end} [{}] mid {mid} [{}] serial-cut {} par-cut {} pv-rounds {} \
             tasks {} skipped {} stopped {} task-nodes {:.1}% wasted {:.1}%",
            hist(SPLIT_END),
            hist(SPLIT_MID),
            self.get(SERIAL_CUT),
            self.get(PAR_CUT),
            self.get(PV_ROUNDS),
            self.get(TASKS),
            self.get(TASKS_SKIPPED),
            self.get(TASKS_STOPPED),
            pct(self.get(NODES_TASKS)),
            pct(self.get(NODES_WASTED)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_every_thread_are_summed() {
        let before = snapshot();
        add(TASKS, 3);
        std::thread::spawn(|| add(TASKS, 4)).join().unwrap();
        let d = snapshot().since(&before);
        // Other tests may spawn tasks meanwhile: at least ours.
        assert!(d.get(TASKS) >= 7, "{d:?}");
    }
}
