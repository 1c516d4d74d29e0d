//! The engine facade: options, the transposition table, the thread pool and
//! one search at a time, driven without blocking the caller.
//!
//! [`Engine::go`] starts a controller thread and returns at once. The
//! controller runs the search on the engine's rayon pool, forwards each
//! iteration as [`EngineEvent::Info`], reads the clock (the only thread
//! that does), raises the stop flag at the time or node limit, and sends
//! exactly one [`EngineEvent::BestMove`]. Under `ponder` or `infinite` the
//! best move is held until [`Engine::stop`] or [`Engine::ponderhit`]: the
//! controller blocks on its control channel, it never spins.
//!
//! ```
//! use annex_core::engine::{Engine, EngineEvent};
//! use annex_core::position::Position;
//! use annex_core::search::Limits;
//! let (tx, rx) = crossbeam_channel::unbounded();
//! let mut e = Engine::new(tx);
//! e.set_option("Hash", "4").unwrap();
//! let pos = Position::start(&e.rules());
//! let best = e.search_sync(pos, Limits { depth: Some(3), ..Limits::default() });
//! assert!(pos.legal_moves(&e.rules()).contains(best.best));
//! assert!(rx.try_iter().any(|ev| matches!(ev, EngineEvent::BestMove(_))));
//! ```

mod book;
mod controller;
mod game;
pub mod options;
mod table;

pub use controller::StopHandle;
pub use options::{
    BookSource, DEFAULT_HASH_MB, MAX_HASH_MB, MAX_MULTIPV, MAX_OVERHEAD_MS, MAX_THREADS, OPTIONS,
    OptionError, OptionKind, OptionSpec,
};
pub use table::{TableError, TableProgress};

use crate::book::Book;
use crate::eval::Evaluator;
use crate::position::Position;
use crate::record::game::Game;
use crate::rules::RuleSet;
use crate::search::time::DEFAULT_OVERHEAD_MS;
use crate::search::{BestMove, Config, Info, Job, Limits, SearchShared, Table};
use controller::{Control, Controller, Ctl, Promise, pass_move};
use crossbeam_channel::{Sender, unbounded};
use options::build_pool;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the engine reports.
#[derive(Clone, Debug)]
pub enum EngineEvent {
    /// A completed iteration (one per multi-PV line).
    Info(Info),
    /// The result; exactly one per `go`.
    BestMove(BestMove),
    /// A note for the user (`info string`).
    Message(String),
    /// A diagnostic note: time plan decisions, table allocation. The UCI
    /// protocol shows it after `debug on`; the others log it.
    Debug(String),
}

/// Deepest search the engine accepts (a depth at least the number of
/// empties is an exact solve, and a game has at most 60 moves).
pub const MAX_DEPTH: u32 = 60;

/// The engine.
pub struct Engine {
    events: Sender<EngineEvent>,
    /// The game and its rules: the one owner of both (see `game.rs`).
    game: Game,
    threads: usize,
    hash_mb: usize,
    multipv: usize,
    ponder: bool,
    own_book: bool,
    /// Time lost per move outside the search (`Move Overhead`).
    overhead: Duration,
    /// `None`: the embedded book, decoded at `prepare` when `OwnBook` is on
    /// (3 MB that an engine without a book never spends).
    book: Option<Arc<Book>>,
    evaluator: Evaluator,
    config: Config,
    tt: Arc<Table>,
    pool: Arc<rayon::ThreadPool>,
    shared: Arc<SearchShared>,
    control: Arc<Control>,
    searching: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    last: Arc<Mutex<Option<BestMove>>>,
    /// The table being faulted in, if it is.
    filling: Option<table::Filling>,
    /// Bytes of the table known to be faulted in, when no filling runs.
    resident: u64,
    /// Makes the controller thread fail to start (tests of the promise).
    #[cfg(test)]
    fail_spawn: bool,
}

impl Engine {
    /// An engine with default options that reports on `events`.
    ///
    /// # Panics
    /// If the operating system refuses to start one thread.
    pub fn new(events: Sender<EngineEvent>) -> Engine {
        let (tx, rx) = unbounded();
        Engine {
            events,
            game: Game::new(RuleSet::default()),
            threads: options::THREADS.default_int() as usize,
            hash_mb: DEFAULT_HASH_MB,
            multipv: options::MULTIPV.default_int() as usize,
            ponder: false,
            own_book: true,
            overhead: Duration::from_millis(DEFAULT_OVERHEAD_MS),
            book: None,
            evaluator: Evaluator::default(),
            // The defaults; a binary's edge may set others (`set_config`).
            config: Config::default(),
            // Allocated when `Hash` is set, at `prepare` or `new_game`
            // (`isready`, `ucinewgame`), or else before the first search.
            tt: Arc::new(Table::empty()),
            pool: build_pool(1).expect("cannot start the search thread"),
            shared: Arc::new(SearchShared::default()),
            control: Arc::new(Control {
                user_stop: AtomicBool::new(false),
                quit: AtomicBool::new(false),
                ponder: AtomicBool::new(false),
                tx,
                rx,
            }),
            searching: Arc::new(AtomicBool::new(false)),
            handle: None,
            last: Arc::new(Mutex::new(None)),
            filling: None,
            resident: 0,
            #[cfg(test)]
            fail_spawn: false,
        }
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The evaluation in use.
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// Replaces the evaluation (clears the table, whose scores it made).
    pub fn set_evaluator(&mut self, e: Evaluator) {
        self.wait();
        self.evaluator = e;
        self.tt.clear_with(self.threads);
    }

    /// The search tunables.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Replaces the search tunables.
    pub fn set_config(&mut self, c: Config) {
        self.wait();
        self.config = c;
    }

    /// A new game: the game is at the start position of the rules, and the
    /// table is cleared, or allocated when that is still to do (a running
    /// search is stopped first).
    pub fn new_game(&mut self) {
        if self.is_searching() {
            self.stop();
        }
        self.wait();
        self.game = Game::new(self.rules());
        let fresh = self.needs_table();
        self.prepare();
        if !fresh {
            self.tt.invalidate_with(self.threads);
        }
    }

    /// Starts allocating the table at the `Hash` size if that is not done
    /// yet (and decodes the embedded book when `OwnBook` is on), so that no
    /// timed search pays for it: the protocols call this at `isready`,
    /// `ping` and new games, then wait for the table with
    /// [`Engine::wait_table`]. Nothing while a search runs. When the memory
    /// cannot be had the error is reported as a message and the engine
    /// goes on with a table of one bucket.
    pub fn prepare(&mut self) {
        if self.own_book && self.book.is_none() {
            self.book = Some(Book::shared_default());
        }
        if self.is_searching() || !self.needs_table() {
            return;
        }
        self.wait();
        if let Err(e) = self.resize_table(self.hash_mb) {
            log::error!("{e}");
            let _ = self
                .events
                .send(EngineEvent::Message(format!("error: {e}")));
            self.hash_mb = 0;
        }
    }

    /// Starts allocating the table in the background: a protocol session
    /// calls this when it begins, so that a first `go` without `isready`
    /// finds it done. (The book is not decoded here: the GUI may turn
    /// `OwnBook` off in its first lines.)
    pub fn warm_up(&mut self) {
        if !self.is_searching() && self.needs_table() {
            self.wait();
            if let Err(e) = self.resize_table(self.hash_mb) {
                log::error!("{e}");
                self.hash_mb = 0;
            }
        }
    }

    /// Whether `quit` came ([`StopHandle::quit`]): a wait for the table
    /// ends early then.
    pub fn quit_requested(&self) -> bool {
        self.control.quit.load(Relaxed)
    }

    /// Starts a search of `pos` and returns at once. Emits Info events and
    /// exactly one BestMove (a pass when the side to move has no move or
    /// the game is over), on every path: when the search cannot start or
    /// fails, the BestMove is a legal move of `pos`. A running search is
    /// stopped first.
    pub fn go(&mut self, pos: Position, mut limits: Limits) {
        if self.is_searching() {
            self.stop();
        }
        self.wait();
        while self.control.rx.try_recv().is_ok() {}
        if limits.multipv == 0 {
            limits.multipv = self.multipv;
        }
        // Only when no `isready` or new game came first: the table, and
        // the book if it is on.
        self.prepare();
        if let Some(bm) = self.book_move(&pos, &limits) {
            log::info!("book move {}", bm.best);
            let _ = self.events.send(EngineEvent::Message(format!(
                "book move {} score {:+}",
                bm.best, bm.score
            )));
            for l in &bm.lines {
                let _ = self.events.send(EngineEvent::Info(l.clone()));
            }
            *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(bm.clone());
            let _ = self.events.send(EngineEvent::BestMove(bm));
            return;
        }
        // A table still being faulted in (no `isready` since `Hash`) is
        // used as it is: the search never waits for it on its clock.
        if let Some(p) = self.wait_table(Duration::ZERO) {
            let _ = self.events.send(EngineEvent::Message(format!(
                "the hash table is being allocated ({} of {} MiB); the search starts now and uses it meanwhile",
                p.done_mb, p.total_mb
            )));
        }
        self.control.user_stop.store(false, Relaxed);
        self.control.ponder.store(limits.ponder, Relaxed);
        self.shared.reset(limits.nodes);
        self.tt.new_search(self.threads);
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let job = Arc::new(Job {
            position: pos,
            rules: self.rules(),
            limits,
            config: self.config.clone(),
            evaluator: self.evaluator.clone(),
            tt: self.tt.clone(),
            shared: self.shared.clone(),
            start: Instant::now(),
            pool: (self.threads > 1).then(|| self.pool.clone()),
        });
        self.searching.store(true, Relaxed);
        let promise = Promise {
            events: self.events.clone(),
            searching: self.searching.clone(),
            last: self.last.clone(),
            pending: Some((pos, self.rules(), job.start)),
        };
        let ctx = Controller {
            job,
            pool: self.pool.clone(),
            events: self.events.clone(),
            control: self.control.clone(),
            overhead: self.overhead,
        };
        match self.spawn_controller(move || ctx.run(promise)) {
            Ok(h) => self.handle = Some(h),
            // The closure, and with it the promise, is dropped: the
            // fallback BestMove follows this message.
            Err(e) => {
                log::error!("cannot start the search controller: {e}");
                let _ = self.events.send(EngineEvent::Message(format!(
                    "cannot start the search: {e}"
                )));
            }
        }
    }

    /// Starts the controller thread.
    fn spawn_controller<F: FnOnce() + Send + 'static>(
        &self,
        f: F,
    ) -> std::io::Result<JoinHandle<()>> {
        #[cfg(test)]
        if self.fail_spawn {
            return Err(std::io::Error::other("injected failure"));
        }
        std::thread::Builder::new()
            .name("annex-control".into())
            .spawn(f)
    }

    /// Stops the search; returns at once (the BestMove follows).
    pub fn stop(&self) {
        self.stop_handle().stop();
    }

    /// A handle that stops the search from any thread.
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle {
            shared: self.shared.clone(),
            control: self.control.clone(),
        }
    }

    /// The opponent played the expected move: the ponder search goes on
    /// under its time limits, and a finished one reports at once.
    pub fn ponderhit(&self) {
        self.control.ponder.store(false, Relaxed);
        let _ = self.control.tx.send(Ctl::PonderHit);
    }

    /// Whether a search runs (until its BestMove is sent).
    pub fn is_searching(&self) -> bool {
        self.searching.load(Relaxed)
    }

    /// Blocks until the current search has sent its BestMove.
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take()
            && h.join().is_err()
        {
            // Its promise, dropped in the unwinding, sent the BestMove.
            log::error!("the search controller panicked");
        }
    }

    /// Searches and blocks until the result (events are sent as usual).
    pub fn search_sync(&mut self, pos: Position, limits: Limits) -> BestMove {
        self.go(pos, limits);
        self.wait();
        let r = self.last.lock().unwrap_or_else(|e| e.into_inner()).take();
        r.unwrap_or_else(|| pass_move(&pos, &self.rules(), Duration::ZERO))
    }

    /// Static evaluation of `pos` for the side to move, in 1/`eval::SCALE` disc.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.evaluator.evaluate(&pos.board)
    }

    /// Table size in bytes (as set; allocated when set, at `prepare`, at
    /// a new game or at the latest before the next search).
    pub fn hash_bytes(&self) -> usize {
        self.hash_mb << 20
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if self.is_searching() {
            self.stop();
        }
        self.wait();
        self.cancel_table();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::Move;
    use crossbeam_channel::Receiver;

    fn best_moves(rx: &Receiver<EngineEvent>) -> Vec<BestMove> {
        rx.try_iter()
            .filter_map(|ev| match ev {
                EngineEvent::BestMove(b) => Some(b),
                _ => None,
            })
            .collect()
    }

    /// A controller thread that cannot start still gives one BestMove,
    /// a legal one, and the engine is not left searching.
    #[test]
    fn promise_holds_when_the_thread_cannot_start() {
        let (tx, rx) = unbounded();
        let mut e = Engine::new(tx);
        e.set_option("OwnBook", "false").unwrap();
        e.set_option("Hash", "1").unwrap();
        e.fail_spawn = true;
        let pos = Position::start(&e.rules());
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        e.go(pos, limits.clone());
        assert!(!e.is_searching());
        let b = best_moves(&rx);
        assert_eq!(b.len(), 1);
        assert!(pos.legal_moves(&e.rules()).contains(b[0].best));
        let b = e.search_sync(pos, limits);
        assert!(pos.legal_moves(&e.rules()).contains(b.best));
        assert_eq!(best_moves(&rx).len(), 1);
    }

    /// A controller that panics keeps the promise in the unwinding.
    #[test]
    fn promise_holds_when_the_controller_panics() {
        let (tx, rx) = unbounded();
        let searching = Arc::new(AtomicBool::new(true));
        let rules = RuleSet::default();
        let pos = Position::start(&rules);
        let promise = Promise {
            events: tx,
            searching: searching.clone(),
            last: Arc::new(Mutex::new(None)),
            pending: Some((pos, rules, Instant::now())),
        };
        let h = std::thread::spawn(move || {
            let _p = promise;
            panic!("injected panic");
        });
        assert!(h.join().is_err());
        assert!(!searching.load(Relaxed));
        let b = best_moves(&rx);
        assert_eq!(b.len(), 1);
        assert!(pos.legal_moves(&rules).contains(b[0].best));
    }

    /// `Hash` returns before its table is faulted in; a search meanwhile
    /// uses the table as it is, and the allocation then ends.
    #[test]
    fn a_search_uses_a_table_being_filled() {
        let (tx, rx) = unbounded();
        let mut e = Engine::new(tx);
        e.set_option("OwnBook", "false").unwrap();
        e.set_option("Hash", "96").unwrap();
        assert_eq!(e.tt.size_bytes(), 96 << 20);
        let pos = Position::start(&e.rules());
        let limits = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        let b = e.search_sync(pos, limits);
        assert!(pos.legal_moves(&e.rules()).contains(b.best));
        let deadline = Instant::now() + Duration::from_secs(60);
        while e.wait_table(Duration::from_millis(100)).is_some() {
            assert!(Instant::now() < deadline, "the table never filled");
        }
        assert!(e.wait_table(Duration::ZERO).is_none());
        assert_eq!(best_moves(&rx).len(), 1);
    }

    /// The typed setters, and the game a rule option resets.
    #[test]
    fn typed_options() {
        let (tx, _rx) = unbounded();
        let mut e = Engine::new(tx);
        e.play("f5".parse::<Move>().unwrap()).unwrap();
        e.set_option("Flips", "all").unwrap();
        assert_eq!(
            e.game().moves().len(),
            1,
            "an unchanged rule keeps the game"
        );
        e.set_option("flips", "one-line").unwrap();
        assert_eq!(e.rules().flips, crate::rules::Flips::OneLine);
        assert_eq!(e.game().rules(), e.rules());
        assert!(
            e.game().moves().is_empty(),
            "a rule change starts a new game"
        );
        assert!(!e.set_rules(e.rules()).unwrap());
        assert!(e.set_rules(RuleSet::default()).unwrap());
        assert!(matches!(e.set_threads(0), Err(OptionError::Invalid { .. })));
        assert!(matches!(
            e.set_option("Nope", "1"),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            e.set_option("Tie", "maybe"),
            Err(OptionError::Rules(_))
        ));
        e.set_move_overhead(Duration::from_millis(5)).unwrap();
        assert!(e.set_move_overhead(Duration::from_secs(11)).is_err());
    }
}
