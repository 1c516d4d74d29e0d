//! The sessions of `annex serve`: who counts against `--max-sessions`,
//! which one is closed to open another, and the pages that went away.
//!
//! A session is *orphaned* when it has no event stream and no request for
//! the orphan time (`--orphan-timeout`): its search stops at once (a
//! request or a stream from its page starts it again), and it is closed
//! after [`ORPHAN_CLOSE`] times the orphan time. Orphans do not count
//! against `--max-sessions`; they are kept (so that a reloaded page can
//! find its game again) up to as many as `--max-sessions` more.
//!
//! To open a session past the limit, the server closes the session least
//! recently used by its page among those without an event stream; only
//! when every counted session has an open page does the least recently
//! used page lose its game.

use super::session::{self, Shared};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An orphan is closed after this many orphan times.
pub const ORPHAN_CLOSE: u32 = 10;
/// How long opening a session waits for a closed page's stream to be
/// noticed before it closes the least recently used open page.
const STREAM_END_WAIT: Duration = Duration::from_secs(1);

/// The sessions by id.
pub struct Table {
    map: Mutex<HashMap<String, Arc<Shared>>>,
    engine_options: Vec<(&'static str, String)>,
    max_sessions: usize,
    orphan_after: Duration,
    budget: Duration,
}

/// What choosing a session to close looks at.
struct Entry<'a> {
    id: &'a String,
    orphaned: bool,
    /// It has an event stream: its page is open.
    page: bool,
    seen: Instant,
}

/// A session id: 16 hex digits, unguessable (std's hasher keys are
/// random per process and differ at every `RandomState::new`).
fn new_id() -> String {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    format!("{:016x}", h.finish())
}

impl Table {
    /// An empty table; sessions open with `engine_options` and may search
    /// for `budget` in all.
    pub fn new(
        engine_options: Vec<(&'static str, String)>,
        max_sessions: usize,
        orphan_after: Duration,
        budget: Duration,
    ) -> Table {
        Table {
            map: Mutex::new(HashMap::new()),
            engine_options,
            max_sessions,
            orphan_after,
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Shared>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session `id`, marked as used by its page.
    pub fn get(&self, id: &str) -> Option<Arc<Shared>> {
        let shared = self.lock().get(id).cloned()?;
        shared.lock().attach();
        shared.changed.notify_all();
        Some(shared)
    }

    /// Opens a session, closing another when the table is full.
    ///
    /// # Errors
    /// The session cannot start.
    pub fn open(&self) -> Result<(String, Arc<Shared>), session::SessionError> {
        let shared = session::open(&self.engine_options, self.budget)?;
        let id = new_id();
        let mut map = self.lock();
        // A reloaded page opens its new session as its old stream ends:
        // give that stream a moment to be noticed before an open page is
        // closed instead.
        let end = Instant::now() + STREAM_END_WAIT;
        while self.victim(&map, false).is_none() && self.victim(&map, true).is_some() {
            if Instant::now() >= end {
                break;
            }
            drop(map);
            std::thread::sleep(STREAM_END_WAIT / 10);
            map = self.lock();
        }
        while let Some(k) = self.victim(&map, true) {
            if let Some(old) = map.remove(&k) {
                old.lock().close();
                old.changed.notify_all();
            }
        }
        map.insert(id.clone(), shared.clone());
        Ok((id, shared))
    }

    /// The session to close before one more opens, if one must be; a
    /// session with an open page only when `pages`.
    fn victim(&self, map: &HashMap<String, Arc<Shared>>, pages: bool) -> Option<String> {
        let now = Instant::now();
        let all: Vec<Entry> = map
            .iter()
            .map(|(id, s)| {
                let s = s.lock();
                Entry {
                    id,
                    orphaned: s.orphaned(now, self.orphan_after),
                    page: s.streams > 0,
                    seen: s.seen,
                }
            })
            .collect();
        let counted = all.iter().filter(|a| !a.orphaned).count();
        let oldest = |keep: &dyn Fn(&Entry) -> bool| {
            all.iter()
                .filter(|a| keep(a))
                .min_by_key(|a| a.seen)
                .map(|a| a.id.clone())
        };
        if counted >= self.max_sessions {
            oldest(&|a| !a.orphaned && !a.page)
                .or_else(|| pages.then(|| oldest(&|a| !a.orphaned)).flatten())
        } else if map.len() >= 2 * self.max_sessions {
            oldest(&|a| a.orphaned)
        } else {
            None
        }
    }

    /// Counts search time, stops the searches of orphans and closes the
    /// orphans past their time; every `tick` for ever.
    pub fn reap(&self, tick: Duration) -> ! {
        loop {
            std::thread::sleep(tick);
            let now = Instant::now();
            let close_after = self.orphan_after * ORPHAN_CLOSE;
            let sessions: Vec<(String, Arc<Shared>)> = self
                .lock()
                .iter()
                .map(|(k, s)| (k.clone(), s.clone()))
                .collect();
            for (id, shared) in sessions {
                let mut s = shared.lock();
                let changed = s.tick(now, self.orphan_after);
                let expired = s.orphaned(now, close_after);
                drop(s);
                if expired {
                    let mut map = self.lock();
                    // Still the same session, and still without a page.
                    if map.get(&id).is_some_and(|x| Arc::ptr_eq(x, &shared))
                        && shared.lock().orphaned(Instant::now(), close_after)
                    {
                        map.remove(&id);
                        shared.lock().close();
                    }
                }
                if changed || expired {
                    shared.changed.notify_all();
                }
            }
        }
    }
}
