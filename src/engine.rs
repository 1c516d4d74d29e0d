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
//! use annex::engine::{Engine, EngineEvent};
//! use annex::position::Position;
//! use annex::search::Limits;
//! let (tx, rx) = crossbeam_channel::unbounded();
//! let mut e = Engine::new(tx);
//! e.set_option("Hash", "4").unwrap();
//! let pos = Position::start(&e.rules());
//! let best = e.search_sync(pos, Limits { depth: Some(3), ..Limits::default() });
//! assert!(pos.legal_moves(&e.rules()).contains(best.best));
//! assert!(rx.try_iter().any(|ev| matches!(ev, EngineEvent::BestMove(_))));
//! ```

use crate::book::Book;
use crate::eval::Evaluator;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::RuleSet;
use crate::search::time::plan;
use crate::search::tt::available_memory;
use crate::search::{
    BestMove, Bound, Config, DISC, Info, Job, Limits, SearchShared, Table, WorkerMsg, run_worker,
    to_discs,
};
use crossbeam_channel::{Receiver, Sender, select, unbounded};
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
}

/// The type of an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// Integer in `min..=max`.
    Spin,
    /// `true` or `false`.
    Check,
    /// Free text.
    String,
    /// One of `vars`.
    Combo,
    /// An action without value.
    Button,
}

/// An option as a GUI sees it.
#[derive(Clone, Debug)]
pub struct OptionSpec {
    /// Name (matched case-insensitively).
    pub name: &'static str,
    /// Type.
    pub kind: OptionKind,
    /// Default value.
    pub default: String,
    /// Least value (spin).
    pub min: i64,
    /// Greatest value (spin).
    pub max: i64,
    /// Values (combo).
    pub vars: &'static [&'static str],
}

enum Ctl {
    Stop,
    PonderHit,
}

struct Control {
    user_stop: AtomicBool,
    ponder: AtomicBool,
    tx: Sender<Ctl>,
    rx: Receiver<Ctl>,
}

/// Stops the current search from any thread.
#[derive(Clone)]
pub struct StopHandle {
    shared: Arc<SearchShared>,
    control: Arc<Control>,
}

impl StopHandle {
    /// Ends the search (and a ponder or infinite hold) now; returns at once.
    pub fn stop(&self) {
        self.control.user_stop.store(true, Relaxed);
        self.shared.stop.store(true, Relaxed);
        let _ = self.control.tx.send(Ctl::Stop);
    }
}

/// Largest `Hash` in MiB.
pub const MAX_HASH_MB: usize = 1 << 16;
/// Largest `Threads`.
pub const MAX_THREADS: usize = 256;
/// Default `Hash` in MiB.
pub const DEFAULT_HASH_MB: usize = 64;

/// The engine.
pub struct Engine {
    events: Sender<EngineEvent>,
    rules: RuleSet,
    threads: usize,
    hash_mb: usize,
    multipv: usize,
    ponder: bool,
    own_book: bool,
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
}

fn build_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(32 << 20)
        .thread_name(|i| format!("annex-search-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
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
            rules: RuleSet::default(),
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            multipv: 1,
            ponder: false,
            own_book: true,
            book: None,
            evaluator: Evaluator::default(),
            config: tuned_config(),
            // Allocated when `Hash` is set, at `prepare` or `new_game`
            // (`isready`, `ucinewgame`), or else before the first search.
            tt: Arc::new(Table::empty()),
            pool: build_pool(1).expect("cannot start the search thread"),
            shared: Arc::new(SearchShared::default()),
            control: Arc::new(Control {
                user_stop: AtomicBool::new(false),
                ponder: AtomicBool::new(false),
                tx,
                rx,
            }),
            searching: Arc::new(AtomicBool::new(false)),
            handle: None,
            last: Arc::new(Mutex::new(None)),
        }
    }

    /// The options [`Engine::set_option`] accepts.
    pub fn option_specs() -> Vec<OptionSpec> {
        let spin = |name, default: usize, min, max| OptionSpec {
            name,
            kind: OptionKind::Spin,
            default: default.to_string(),
            min,
            max,
            vars: &[],
        };
        let combo = |name, vars: &'static [&'static str]| OptionSpec {
            name,
            kind: OptionKind::Combo,
            default: vars[0].to_string(),
            min: 0,
            max: 0,
            vars,
        };
        vec![
            spin("Threads", 1, 1, MAX_THREADS as i64),
            spin("Hash", DEFAULT_HASH_MB, 1, MAX_HASH_MB as i64),
            spin("MultiPV", 1, 1, 64),
            OptionSpec {
                name: "Ponder",
                kind: OptionKind::Check,
                default: "false".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            OptionSpec {
                name: "OwnBook",
                kind: OptionKind::Check,
                default: "true".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            OptionSpec {
                name: "BookFile",
                kind: OptionKind::String,
                default: "embedded".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            OptionSpec {
                name: "EvalFile",
                kind: OptionKind::String,
                default: "embedded".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            combo("Start", &["diagonal", "parallel", "free"]),
            combo("Flips", &["all", "one-line"]),
            combo("Tie", &["draw", "second"]),
            combo("Scoring", &["wof", "count"]),
        ]
    }

    /// Sets option `name` (case-insensitive). On error nothing changes.
    ///
    /// # Errors
    /// Unknown option, invalid value, or a search is running.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let key = name.trim().to_ascii_lowercase();
        let value = value.trim();
        if self.is_searching() {
            return Err("cannot change options while searching".into());
        }
        self.wait();
        let spin = |min: usize, max: usize| -> Result<usize, String> {
            value
                .parse::<usize>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| {
                    format!("invalid value '{value}' for option {name} (expected {min} to {max})")
                })
        };
        match key.as_str() {
            "threads" => {
                let n = spin(1, MAX_THREADS)?;
                if n != self.threads {
                    self.pool = build_pool(n)?;
                    self.threads = n;
                }
            }
            "hash" => {
                let mb = spin(1, MAX_HASH_MB)?;
                if self.tt.size_bytes() != mb << 20 {
                    self.resize_table(mb)
                        .map_err(|e| format!("{e}; Hash stays {} MiB", self.hash_mb.max(1)))?;
                }
                self.hash_mb = mb;
            }
            "multipv" => self.multipv = spin(1, 64)?,
            "ponder" => self.ponder = parse_check(name, value)?,
            "ownbook" => self.own_book = parse_check(name, value)?,
            "bookfile" => {
                // A book file from `annex book build`, `embedded`, or `none`.
                self.book = match value.to_ascii_lowercase().as_str() {
                    "embedded" | "default" => None,
                    "none" | "" => Some(Arc::new(Book::default())),
                    _ => Some(Arc::new(
                        Book::load(std::path::Path::new(value)).map_err(|e| e.to_string())?,
                    )),
                };
            }
            "evalfile" => {
                // A weights file from `annex train`, or `embedded` / `simple`.
                self.evaluator = Evaluator::from_file(value)?;
                self.tt.clear();
            }
            "start" | "flips" | "tie" | "scoring" => {
                let mut r = self.rules;
                r.set(&key, value).map_err(|e| e.to_string())?;
                if r != self.rules {
                    self.rules = r;
                    self.tt.clear();
                }
            }
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }

    /// The rule set in use.
    pub fn rules(&self) -> RuleSet {
        self.rules
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
        self.tt.clear();
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

    /// A new game: the table is cleared, or allocated when that is still
    /// to do (a running search is stopped first).
    pub fn new_game(&mut self) {
        if self.is_searching() {
            self.stop();
        }
        self.wait();
        let fresh = self.needs_table();
        self.prepare();
        if !fresh {
            self.tt.clear();
        }
    }

    /// Allocates the table at the `Hash` size if that is not done yet (and
    /// decodes the embedded book when `OwnBook` is on), so that no timed
    /// search pays for it: the protocols call this at
    /// `isready`, `ping` and new games. Nothing while a search runs. When
    /// the memory cannot be had the error is reported as a message and the
    /// engine goes on with a table of one bucket.
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

    /// Whether the table is not (yet) of the size set.
    fn needs_table(&self) -> bool {
        self.hash_mb > 0 && self.tt.size_bytes() != self.hash_mb << 20
    }

    /// Replaces the table by one of `mb` MiB. A size beyond the memory the
    /// system has available is refused before anything changes (on Linux
    /// a huge allocation may succeed and the process be killed when its
    /// pages are touched). The old table is freed first, so the process
    /// never holds both; if the new one cannot be allocated, one of the old
    /// size is made again and the error returned.
    fn resize_table(&mut self, mb: usize) -> Result<(), String> {
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
                Err(e)
            }
        }
    }

    /// The book move for `pos` under `limits`, if the book applies: the
    /// `OwnBook` option is on, the rules are the default ones, and the
    /// search is a move choice in a game (clock or movetime limits; not
    /// depth, nodes, infinite, ponder, solve, multi-PV or searchmoves,
    /// which ask for a search).
    fn book_move(&self, pos: &Position, limits: &Limits) -> Option<BestMove> {
        let game_move = limits.depth.is_none()
            && limits.nodes.is_none()
            && !limits.infinite
            && !limits.ponder
            && limits.solve.is_none()
            && limits.multipv <= 1
            && limits.searchmoves.is_empty();
        if !self.own_book || !self.rules.is_default() || !game_move {
            return None;
        }
        let book = self.book.as_ref()?;
        let choice = book.best_move(&pos.board)?;
        let (best, next) = pos.play(&self.rules, choice.mv).ok()?;
        let ponder = book
            .best_move(&next.board)
            .map(|c| c.mv)
            .filter(|&m| next.play(&self.rules, m).is_ok());
        let pv: Vec<Move> = std::iter::once(best).chain(ponder).collect();
        let info = Info {
            depth: 0,
            selectivity: None,
            score: choice.score,
            tie: None,
            bound: crate::search::Bound::Exact,
            exact: false,
            wld: false,
            nodes: 0,
            nps: 0,
            time: Duration::ZERO,
            hashfull: 0,
            multipv: 1,
            pv: pv.clone(),
        };
        Some(BestMove {
            best,
            ponder,
            score: choice.score,
            tie: None,
            exact: false,
            wld: false,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv,
            lines: vec![info],
        })
    }

    /// Starts a search of `pos` and returns at once. Emits Info events and
    /// exactly one BestMove (a pass when the side to move has no move or
    /// the game is over). A running search is stopped first.
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
        self.control.user_stop.store(false, Relaxed);
        self.control.ponder.store(limits.ponder, Relaxed);
        self.shared.reset(limits.nodes);
        self.tt.new_search();
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let job = Arc::new(Job {
            position: pos,
            rules: self.rules,
            limits,
            config: self.config.clone(),
            evaluator: self.evaluator.clone(),
            tt: self.tt.clone(),
            shared: self.shared.clone(),
            start: Instant::now(),
            pool: (self.threads > 1).then(|| self.pool.clone()),
        });
        self.searching.store(true, Relaxed);
        let ctx = Controller {
            job,
            pool: self.pool.clone(),
            events: self.events.clone(),
            control: self.control.clone(),
            searching: self.searching.clone(),
            last: self.last.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name("annex-control".into())
            .spawn(move || ctx.run());
        match spawned {
            Ok(h) => self.handle = Some(h),
            Err(e) => {
                self.searching.store(false, Relaxed);
                log::error!("cannot start the search controller: {e}");
                let _ = self.events.send(EngineEvent::Message(format!(
                    "cannot start the search: {e}"
                )));
            }
        }
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
            log::error!("the search controller panicked");
            self.searching.store(false, Relaxed);
        }
    }

    /// Searches and blocks until the result (events are sent as usual).
    pub fn search_sync(&mut self, pos: Position, limits: Limits) -> BestMove {
        self.go(pos, limits);
        self.wait();
        let r = self.last.lock().unwrap_or_else(|e| e.into_inner()).take();
        r.unwrap_or_else(|| pass_move(&pos, &self.rules, Duration::ZERO))
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
    }
}

/// Parses a check option's value.
fn parse_check(name: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(format!(
            "invalid value '{value}' for option {name} (expected true or false)"
        )),
    }
}

/// The BestMove of a position without a move: a pass (game over: the final
/// score, exact).
fn pass_move(pos: &Position, rules: &RuleSet, time: Duration) -> BestMove {
    let over = pos.is_game_over(rules);
    let (score, tie) = if over {
        let d = pos.board.final_score(rules.scoring);
        let v = if d != 0 {
            d * DISC
        } else {
            match (rules.tie, pos.side) {
                (crate::rules::Tie::Draw, _) => 0,
                (_, crate::board::Color::White) => DISC / 2,
                _ => -DISC / 2,
            }
        };
        to_discs(v, true)
    } else {
        (0, None)
    };
    BestMove {
        best: Move::PASS,
        ponder: None,
        score,
        tie,
        exact: over,
        wld: false,
        depth: 0,
        nodes: 0,
        time,
        pv: vec![Move::PASS],
        lines: Vec::new(),
    }
}

/// An [`Info`] of the position after a pass, seen from the side that
/// passes: the score negated (a bound turned over) and the PV led by the pass.
fn passed_info(mut i: Info) -> Info {
    i.score = -i.score;
    i.tie = i.tie.map(|t| !t);
    i.bound = match i.bound {
        Bound::Lower => Bound::Upper,
        Bound::Upper => Bound::Lower,
        Bound::Exact => Bound::Exact,
    };
    i.pv.insert(0, Move::PASS);
    i
}

impl Controller {
    /// The BestMove of a position whose side to move must pass: at game
    /// over the final score; otherwise the position after the pass is
    /// searched under the same limits (the passing side's clock) and its
    /// score negated, so that every protocol reports the position's value.
    /// Its Info events are forwarded negated, with the pass leading the PV.
    fn pass_search(&self) -> BestMove {
        let job = &self.job;
        let pos = job.position;
        if pos.is_game_over(&job.rules) {
            return pass_move(&pos, &job.rules, job.start.elapsed());
        }
        let after = pos.play_unchecked(&job.rules, Move::PASS);
        let mut limits = job.limits.clone();
        limits.searchmoves.clear();
        limits.multipv = 1;
        let (me, them) = (pos.side as usize, after.side as usize);
        limits.time[them] = limits.time[me];
        limits.inc[them] = limits.inc[me];
        let sub_job = Job {
            position: after,
            limits,
            config: job.config.clone(),
            evaluator: job.evaluator.clone(),
            tt: job.tt.clone(),
            shared: job.shared.clone(),
            pool: job.pool.clone(),
            ..**job
        };
        let (tx, rx) = unbounded();
        let sub = Controller {
            job: Arc::new(sub_job),
            pool: self.pool.clone(),
            events: tx,
            control: self.control.clone(),
            searching: self.searching.clone(),
            last: self.last.clone(),
        };
        let forward = |ev: EngineEvent| match ev {
            EngineEvent::Info(i) => EngineEvent::Info(passed_info(i)),
            ev => ev,
        };
        let events = self.events.clone();
        let rx2 = rx.clone();
        let fwd = std::thread::Builder::new()
            .name("annex-pass".into())
            .spawn(move || {
                for ev in rx2 {
                    let _ = events.send(forward(ev));
                }
            });
        let b = sub.search();
        drop(sub);
        match fwd {
            Ok(h) => {
                let _ = h.join();
            }
            // No thread: the events follow the search.
            Err(_) => {
                for ev in rx.try_iter() {
                    let _ = self.events.send(forward(ev));
                }
            }
        }
        let mut pv = vec![Move::PASS];
        pv.extend_from_slice(&b.pv);
        BestMove {
            best: Move::PASS,
            // `bestmove pass` alone: the reply is the next search's business.
            ponder: None,
            score: -b.score,
            tie: b.tie.map(|t| !t),
            pv,
            lines: b.lines.into_iter().map(passed_info).collect(),
            ..b
        }
    }
}

struct Controller {
    job: Arc<Job>,
    pool: Arc<rayon::ThreadPool>,
    events: Sender<EngineEvent>,
    control: Arc<Control>,
    searching: Arc<AtomicBool>,
    last: Arc<Mutex<Option<BestMove>>>,
}

enum Wake {
    Worker(WorkerMsg),
    Ctl(Ctl),
    Timeout,
    Lost,
}

impl Controller {
    fn run(self) {
        let job = &self.job;
        let pos = job.position;
        let best = if pos.legal_moves(&job.rules).is_empty() {
            self.pass_search()
        } else {
            self.search()
        };
        self.hold();
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(best.clone());
        let _ = self.events.send(EngineEvent::BestMove(best));
        self.searching.store(false, Relaxed);
    }

    fn search(&self) -> BestMove {
        let job = &self.job;
        let shared = &job.shared;
        let (wtx, wrx) = unbounded();
        {
            let job = job.clone();
            self.pool.spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_worker(&job, &wtx)
                }));
                let result = r.unwrap_or_else(|_| {
                    log::error!("search thread panicked");
                    None
                });
                let _ = wtx.send(WorkerMsg::Done { result });
            });
        }
        let limits = &job.limits;
        let tp = plan(limits, job.position.side, job.position.board.empties());
        let mut timing_from = (!limits.ponder && !limits.infinite).then_some(job.start);
        let mut result = None;
        loop {
            let deadline = timing_from.and_then(|t| tp.hard.map(|h| t + h));
            let wake = match deadline {
                Some(d) => select! {
                    recv(wrx) -> m => m.map_or(Wake::Lost, Wake::Worker),
                    recv(self.control.rx) -> c => c.map_or(Wake::Lost, Wake::Ctl),
                    default(d.saturating_duration_since(Instant::now())) => Wake::Timeout,
                },
                None => select! {
                    recv(wrx) -> m => m.map_or(Wake::Lost, Wake::Worker),
                    recv(self.control.rx) -> c => c.map_or(Wake::Lost, Wake::Ctl),
                },
            };
            match wake {
                Wake::Worker(WorkerMsg::Iteration(infos)) => {
                    for i in infos {
                        let _ = self.events.send(EngineEvent::Info(i));
                    }
                    if let (Some(t0), Some(soft)) = (timing_from, tp.soft)
                        && t0.elapsed() >= soft / 2
                    {
                        shared.stop.store(true, Relaxed);
                    }
                }
                Wake::Worker(WorkerMsg::Done { result: r, .. }) => {
                    result = r;
                    break;
                }
                Wake::Ctl(Ctl::Stop) => shared.stop.store(true, Relaxed),
                Wake::Ctl(Ctl::PonderHit) => {
                    if !limits.infinite && timing_from.is_none() {
                        timing_from = Some(Instant::now());
                    }
                }
                Wake::Timeout => {
                    shared.stop.store(true, Relaxed);
                    timing_from = None;
                }
                Wake::Lost => break,
            }
        }
        result.unwrap_or_else(|| {
            // Only after a panic: any legal move.
            let m = job.position.legal_moves(&job.rules).iter().next();
            let mut b = pass_move(&job.position, &job.rules, job.start.elapsed());
            if let Some(m) = m {
                b.best = m;
                b.pv = vec![m];
            }
            b
        })
    }

    /// Under ponder or infinite, waits for `stop` or `ponderhit`.
    fn hold(&self) {
        let infinite = self.job.limits.infinite;
        loop {
            if self.control.user_stop.load(Relaxed) {
                return;
            }
            if !infinite && !self.control.ponder.load(Relaxed) {
                return;
            }
            match self.control.rx.recv() {
                Ok(Ctl::Stop) | Err(_) => return,
                Ok(Ctl::PonderHit) => {}
            }
        }
    }
}

/// The default tunables, overridden by `ANNEX_CONFIG=name=value,...` (a
/// tuning aid for `solve`, `bench` and engines under `match`; a bad spec
/// is logged and ignored).
fn tuned_config() -> Config {
    let mut c = Config::default();
    if let Ok(spec) = std::env::var("ANNEX_CONFIG") {
        match c.apply(&spec) {
            Ok(()) => log::warn!("ANNEX_CONFIG: search tunables overridden: {spec}"),
            Err(e) => {
                log::error!("ANNEX_CONFIG ignored: {e}");
                c = Config::default();
            }
        }
    }
    c
}
