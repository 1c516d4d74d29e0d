//! The transposition table's allocation: at the `Hash` size, refused
//! beyond the memory available, never two tables at once.

use super::Engine;
use crate::search::Table;
use crate::search::tt::available_memory;
use std::sync::Arc;

impl Engine {
    /// Whether the table is not (yet) of the size set.
    pub(super) fn needs_table(&self) -> bool {
        self.hash_mb > 0 && self.tt.size_bytes() != self.hash_mb << 20
    }

    /// Replaces the table by one of `mb` MiB. A size beyond the memory the
    /// system has available is refused before anything changes (on Linux
    /// a huge allocation may succeed and the process be killed when its
    /// pages are touched). The old table is freed first, so the process
    /// never holds both; if the new one cannot be allocated, one of the old
    /// size is made again and the error returned.
    pub(super) fn resize_table(&mut self, mb: usize) -> Result<(), String> {
        let bytes = (mb as u64) << 20;
        let old = self.tt.size_bytes();
        if let Some(avail) = available_memory() {
            // Keep a sixteenth of what is free for the rest of the system.
            let usable = (avail + old as u64) / 16 * 15;
            if bytes > usable {
                return Err(format!(
                    "cannot allocate {mb} MiB for the hash table: only {} MiB of memory is available",
                    usable >> 20
                ));
            }
        }
        let old_mb = old >> 20;
        self.tt = Arc::new(Table::empty());
        match Table::try_new(mb) {
            Ok(t) => {
                self.tt = Arc::new(t);
                Ok(())
            }
            Err(e) => {
                if old_mb > 0
                    && let Ok(t) = Table::try_new(old_mb)
                {
                    self.tt = Arc::new(t);
                }
                Err(e.to_string())
            }
        }
    }
}
