//! The transposition table's allocation: at the `Hash` size, refused
//! beyond the memory available, never two tables at once.
//!
//! A new table is reserved at once and faulted in on a background thread
//! (one per core, see [`Table::fault_in`]): `setoption name Hash` returns
//! at once and the protocol goes on answering. `isready` (and NBoard's
//! `ping`) waits for the table to be whole ([`Engine::wait_table`], which
//! reports the progress); a search that comes first uses the table as it
//! is (it reads as empty, and its pages fault in as they are touched), so
//! that no search waits for the table on its clock.

use super::Engine;
use crate::search::Table;
use crate::search::tt::{AllocError, available_memory};
use crossbeam_channel::{Receiver, RecvTimeoutError, bounded};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A table being faulted in on a background thread.
pub(super) struct Filling {
    handle: Option<JoinHandle<()>>,
    /// Disconnected when the thread ends.
    ended: Receiver<()>,
    done: Arc<AtomicU64>,
    abort: Arc<AtomicBool>,
    total: u64,
    started: Instant,
}

impl Filling {
    /// Starts faulting in `tt`. Without a thread (the system refuses one),
    /// the table is faulted in here.
    fn start(tt: &Arc<Table>) -> Filling {
        let done = Arc::new(AtomicU64::new(0));
        let abort = Arc::new(AtomicBool::new(false));
        let (tx, ended) = bounded::<()>(0);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let job = {
            let (tt, done, abort) = (tt.clone(), done.clone(), abort.clone());
            move || {
                let _ended = tx;
                tt.fault_in(cores, &done, &abort);
            }
        };
        let handle = match std::thread::Builder::new()
            .name("annex-hash".into())
            .spawn(job)
        {
            Ok(h) => Some(h),
            Err(e) => {
                log::warn!("cannot start a thread for the hash table ({e}); filling it here");
                tt.fault_in(cores, &done, &abort);
                None
            }
        };
        Filling {
            handle,
            ended,
            done,
            abort,
            total: tt.size_bytes() as u64,
            started: Instant::now(),
        }
    }

    /// Stops the thread and waits for it (a part of the table at most).
    fn cancel(mut self) {
        self.abort.store(true, Relaxed);
        self.join();
    }

    fn join(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Why a table of the size asked for was not made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// More than the memory the system has available (less a sixteenth
    /// kept for the rest of the system).
    #[error(
        "cannot allocate {mb} MiB for the hash table: only {usable_mb} MiB of memory is available"
    )]
    TooLarge {
        /// The size asked for.
        mb: usize,
        /// What may be used.
        usable_mb: u64,
    },
    /// The allocator refused the memory.
    #[error(transparent)]
    Alloc(#[from] AllocError),
}

/// How far a table's allocation is: what [`Engine::wait_table`] reports
/// while it is not done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableProgress {
    /// MiB faulted in so far.
    pub done_mb: u64,
    /// The table's size in MiB.
    pub total_mb: u64,
    /// Time since the allocation began.
    pub elapsed: Duration,
}

impl Engine {
    /// Whether the table is not (yet) of the size set.
    pub(super) fn needs_table(&self) -> bool {
        self.hash_mb > 0 && self.tt.size_bytes() != self.hash_mb << 20
    }

    /// Waits up to `timeout` for the table to be whole: `None` when it is
    /// (at once when no allocation runs), else how far it is.
    pub fn wait_table(&mut self, timeout: Duration) -> Option<TableProgress> {
        let f = self.filling.as_mut()?;
        match f.ended.recv_timeout(timeout) {
            Err(RecvTimeoutError::Timeout) => Some(TableProgress {
                done_mb: f.done.load(Relaxed) >> 20,
                total_mb: f.total >> 20,
                elapsed: f.started.elapsed(),
            }),
            _ => {
                f.join();
                let ms = f.started.elapsed().as_millis();
                let mb = f.total >> 20;
                self.resident = f.done.load(Relaxed);
                self.filling = None;
                self.debug(format!("hash table of {mb} MiB filled in {ms} ms"));
                None
            }
        }
    }

    /// Stops a background allocation (the table stays usable, its other
    /// pages are faulted in when first used).
    pub(super) fn cancel_table(&mut self) {
        if let Some(f) = self.filling.take() {
            let done = f.done.clone();
            f.cancel();
            self.resident = done.load(Relaxed);
        }
    }

    /// Bytes of the table known to be in memory: what its filling has
    /// faulted in (pages a search touched besides are not counted). A
    /// table reserved but not touched holds no memory, so freeing it gives
    /// none back.
    pub(super) fn resident_bytes(&self) -> u64 {
        match &self.filling {
            Some(f) => f.done.load(Relaxed),
            None => self.resident,
        }
    }

    /// Replaces the table by one of `mb` MiB. A size beyond the memory the
    /// system has available, with what freeing the old table gives back
    /// (its resident part, [`Engine::resident_bytes`]), is refused before
    /// anything changes (on Linux a huge allocation may succeed and the
    /// process be killed when its pages are touched). The old table is
    /// freed first, so the process never holds both; if the new one cannot
    /// be allocated, one of the old size is made again and the error
    /// returned. The new table is faulted in on a background thread
    /// ([`Engine::wait_table`]).
    pub(super) fn resize_table(&mut self, mb: usize) -> Result<(), TableError> {
        let bytes = (mb as u64) << 20;
        let old = self.tt.size_bytes();
        if let Some(avail) = available_memory() {
            let usable = usable_memory(avail, self.resident_bytes());
            if bytes > usable {
                return Err(TableError::TooLarge {
                    mb,
                    usable_mb: usable >> 20,
                });
            }
        }
        // The filling thread holds the old table until it stops.
        self.cancel_table();
        let old_mb = old >> 20;
        self.tt = Arc::new(Table::empty());
        self.resident = 0;
        match Table::try_new_lazy(mb) {
            Ok(t) => {
                self.install(t);
                Ok(())
            }
            Err(e) => {
                if old_mb > 0
                    && let Ok(t) = Table::try_new_lazy(old_mb)
                {
                    self.install(t);
                }
                Err(e.into())
            }
        }
    }

    /// Makes `t` the table and starts faulting it in.
    fn install(&mut self, t: Table) {
        self.tt = Arc::new(t);
        self.filling = Some(Filling::start(&self.tt));
    }

    /// Makes `t` the table without faulting it in (tests of the memory
    /// accounting).
    #[cfg(test)]
    pub(super) fn install_unfilled(&mut self, t: Table) {
        self.cancel_table();
        self.tt = Arc::new(t);
        self.resident = 0;
    }

    /// Sends a diagnostic note.
    fn debug(&self, note: String) {
        let _ = self.events.send(super::EngineEvent::Debug(note));
    }
}

/// The memory a new table may take: what the system has available plus
/// what freeing the old table gives back (`resident` bytes), less a
/// sixteenth kept for the rest of the system.
fn usable_memory(available: u64, resident: u64) -> u64 {
    available.saturating_add(resident) / 16 * 15
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::unbounded;

    /// A table reserved but never touched gives no memory back when it is
    /// freed, so it does not count as available; a filled one does.
    #[test]
    fn only_the_resident_table_counts_as_free() {
        let (tx, _rx) = unbounded();
        let mut e = Engine::new(tx);
        e.install_unfilled(Table::try_new_lazy(64).unwrap());
        assert_eq!(e.resident_bytes(), 0);
        assert_eq!(usable_memory(160 << 20, e.resident_bytes()), 150 << 20);
        e.set_hash(2).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while e.wait_table(Duration::from_millis(50)).is_some() {
            assert!(Instant::now() < deadline, "the table never filled");
        }
        assert_eq!(e.resident_bytes(), 2 << 20);
    }
}
