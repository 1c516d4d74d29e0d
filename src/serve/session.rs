//! One page's game: the record, who plays, the analysis, and the engine
//! that serves them.
//!
//! Every change goes through [`Session::kick`], which stops the search
//! that was running and starts the one the new state asks for: the
//! engine's move when it is the engine's turn, else (in analysis mode) a
//! multi-PV search that scores every legal move. The engine's events are
//! read by a pump thread ([`spawn_pump`]) that takes the session lock for
//! each one; searches are told apart by a queue of tasks in the order they
//! were started, so the events of a search that was stopped are dropped.

use crate::board::Color;
use crate::engine::{Engine, EngineEvent, OptionError};
use crate::moves::{Move, MoveError};
use crate::position::Position;
use crate::record::game::Game;
use crate::rules::RuleSet;
use crate::search::{Bound, Info, Limits};
use crossbeam_channel::Receiver;
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// Who moves for a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// Moves come from the page.
    Human,
    /// The engine moves.
    Engine,
}

/// How long the engine thinks over its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// A fixed depth in plies.
    Depth(u32),
    /// A fixed time per move.
    MoveTime(Duration),
}

/// What the page asked for.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Black's (X) and White's (O) player.
    pub players: [Player; 2],
    /// The engine's level when it plays.
    pub level: Level,
    /// Score every legal move of the position on the board.
    pub analyze: bool,
    /// The depth the analysis stops at (it is exact when that reaches the
    /// number of empties).
    pub analyze_depth: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            players: [Player::Human, Player::Human],
            level: Level::Depth(8),
            analyze: false,
            analyze_depth: 60,
        }
    }
}

/// The score of one legal move.
#[derive(Clone, Debug)]
pub struct Hint {
    /// The move (with its line under one-line flips).
    pub mv: Move,
    /// Discs for the side to move.
    pub score: i32,
    /// Depth of the iteration that gave it.
    pub depth: u32,
    /// Proven value.
    pub exact: bool,
    /// Proven win/loss/draw only.
    pub wld: bool,
    /// How the score bounds the value.
    pub bound: Bound,
    /// Principal variation, starting with the move.
    pub pv: Vec<Move>,
}

/// A search the engine was asked for, in start order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// The engine's move at this ply.
    Play(usize),
    /// Hints for this ply.
    Analyze(usize),
    /// The score of this ply of the whole line, for the graph.
    Review(usize),
    /// Stopped: its events are dropped.
    Stale,
}

/// One page's game and engine.
pub struct Session {
    engine: Engine,
    /// Moves undone, the next one last.
    pub redo: Vec<Move>,
    /// Players, level, analysis.
    pub settings: Settings,
    /// Scores of the legal moves of the current position, best first.
    pub hints: Vec<Hint>,
    /// Depth of the current analysis or engine search.
    pub depth: u32,
    /// Black's score per ply (positions then redo), as far as known.
    pub evals: Vec<Option<i32>>,
    tasks: VecDeque<Task>,
    /// Bumped at every change; the page's streams wait on it.
    pub version: u64,
    /// The engine's last note (book move, error).
    pub message: Option<String>,
    /// The session was closed: its streams end.
    pub closed: bool,
    /// The positions of the whole line and the depth, while a review runs.
    review: Option<(Vec<Position>, u32)>,
    /// The page's last request (its event stream ending counts as one).
    pub seen: Instant,
    /// Event streams open on the session.
    pub streams: usize,
    /// No search starts: the page has gone (see [`Session::tick`]).
    parked: bool,
    /// Search time used so far, and the most it may use.
    spent: Duration,
    budget: Duration,
    /// When [`Session::tick`] last counted the search time.
    counted: Instant,
}

/// A session behind its lock, with the condition its streams wait on.
pub struct Shared {
    /// The session.
    pub state: Mutex<Session>,
    /// Notified at every change.
    pub changed: Condvar,
}

impl Shared {
    /// Locks the session (a panic in another request does not poison it
    /// for the others).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why a session request was refused.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// An engine option (or rule set) the engine refuses.
    #[error(transparent)]
    Option(#[from] OptionError),
    /// A move that is not legal here.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// The session's event thread could not start.
    #[error("cannot start a session thread: {0}")]
    Thread(std::io::Error),
    /// `goto` past the last move.
    #[error("ply {ply} is past the last move ({last})")]
    PastEnd {
        /// The ply asked for.
        ply: usize,
        /// The last ply of the game.
        last: usize,
    },
}

/// A new session with its pump thread. `engine_options` go to
/// [`Engine::set_option`] (Threads, Hash).
///
/// # Errors
/// An option the engine refuses, or the pump thread cannot start.
pub fn open(
    engine_options: &[(&str, String)],
    budget: Duration,
) -> Result<Arc<Shared>, SessionError> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    for (k, v) in engine_options {
        engine.set_option(k, v)?;
    }
    let session = Session {
        engine,
        redo: Vec::new(),
        settings: Settings::default(),
        hints: Vec::new(),
        depth: 0,
        evals: vec![None],
        tasks: VecDeque::new(),
        version: 0,
        message: None,
        closed: false,
        review: None,
        seen: Instant::now(),
        streams: 0,
        parked: false,
        spent: Duration::ZERO,
        budget,
        counted: Instant::now(),
    };
    let shared = Arc::new(Shared {
        state: Mutex::new(session),
        changed: Condvar::new(),
    });
    spawn_pump(Arc::downgrade(&shared), rx)?;
    Ok(shared)
}

/// Reads the engine's events into the session until the engine is gone.
fn spawn_pump(shared: Weak<Shared>, rx: Receiver<EngineEvent>) -> Result<(), SessionError> {
    std::thread::Builder::new()
        .name("annex-serve-pump".into())
        .spawn(move || {
            while let Ok(ev) = rx.recv() {
                let Some(s) = shared.upgrade() else { break };
                s.lock().on_event(ev);
                s.changed.notify_all();
            }
        })
        .map(|_| ())
        .map_err(SessionError::Thread)
}

/// Black's view of a score for the side to move of `pos`.
fn for_black(pos: &Position, score: i32) -> i32 {
    if pos.side == Color::Black {
        score
    } else {
        -score
    }
}

impl Session {
    /// The game up to the current position (the engine's: it owns the
    /// game and its rules).
    pub fn game(&self) -> &Game {
        self.engine.game()
    }

    /// The rules of the game.
    pub fn rules(&self) -> RuleSet {
        self.engine.rules()
    }

    /// Whether a search runs whose result is still wanted.
    pub fn searching(&self) -> bool {
        self.tasks.iter().any(|t| *t != Task::Stale)
    }

    /// What the running search is for: `"play"`, `"analyze"` or none.
    pub fn search_kind(&self) -> Option<&'static str> {
        match self.tasks.iter().find(|t| **t != Task::Stale) {
            Some(Task::Play(_)) => Some("play"),
            Some(Task::Analyze(_)) => Some("analyze"),
            Some(Task::Review(_)) => Some("review"),
            _ => None,
        }
    }

    /// The ply of the current position.
    pub fn ply(&self) -> usize {
        self.engine.game().moves().len()
    }

    /// Marks a change for the streams.
    pub fn touch(&mut self) {
        self.version += 1;
    }

    /// Stops the running search (its events will be dropped); returns at
    /// once.
    pub fn stop(&mut self) {
        for t in self.tasks.iter_mut() {
            *t = Task::Stale;
        }
        if self.engine.is_searching() {
            self.engine.stop();
        }
        self.touch();
    }

    /// The page's Stop: the engine thinking over its move plays the best
    /// move found so far; any other search just stops.
    pub fn stop_now(&mut self) {
        if self.search_kind() == Some("play") {
            self.engine.stop();
        } else {
            self.stop();
        }
    }

    /// Whether it is the engine's turn to move.
    pub fn engine_to_move(&self) -> bool {
        let pos = self.engine.game().current();
        self.settings.players[pos.side as usize] == Player::Engine && !self.engine.game().is_over()
    }

    /// Stops and waits for the engine to be idle (before options change).
    fn stop_and_wait(&mut self) {
        self.stop();
        self.engine.wait();
    }

    /// A new game under `rules` from their start position, or from
    /// `start`, with `moves` played (the caller checked them).
    ///
    /// # Errors
    /// A rule the engine refuses, or a move that is not legal.
    pub fn reset(
        &mut self,
        rules: RuleSet,
        start: Option<Position>,
        moves: &[Move],
    ) -> Result<(), SessionError> {
        let mut game = match start {
            Some(p) => Game::from_position(p, rules),
            None => Game::new(rules),
        };
        for &m in moves {
            game.play(m)?;
        }
        self.stop_and_wait();
        self.engine.new_game();
        self.engine.set_game(game)?;
        self.redo.clear();
        self.evals = vec![None; self.ply() + 1];
        self.message = None;
        self.kick();
        Ok(())
    }

    /// Plays `m` for the side to move (a redo when it is the next redo
    /// move).
    ///
    /// # Errors
    /// Illegal or ambiguous move; nothing changes.
    pub fn play(&mut self, m: Move) -> Result<Move, SessionError> {
        let m = self.engine.play(m)?;
        self.after_move(m);
        self.kick();
        Ok(m)
    }

    /// Bookkeeping after a move was added to the game.
    fn after_move(&mut self, m: Move) {
        let ply = self.ply();
        if self.redo.last() == Some(&m) {
            self.redo.pop();
        } else {
            self.redo.clear();
            self.evals.truncate(ply);
        }
        if self.evals.len() <= ply {
            self.evals.resize(ply + 1, None);
        }
    }

    /// Takes back one move; against the engine, back to the page's last
    /// turn (the engine's reply is taken back too). `false` at the start.
    pub fn undo(&mut self) -> bool {
        if !self.undo_one() {
            return false;
        }
        while self.has_human() && self.engine_to_move() && self.undo_one() {}
        self.kick();
        true
    }

    fn undo_one(&mut self) -> bool {
        let Some(&m) = self.engine.game().moves().last() else {
            return false;
        };
        self.engine.undo();
        self.redo.push(m);
        true
    }

    /// Replays one undone move, and against the engine its undone reply
    /// too; `false` when there is none.
    pub fn redo(&mut self) -> bool {
        if !self.redo_one() {
            return false;
        }
        while self.has_human() && self.engine_to_move() && self.redo_one() {}
        self.kick();
        true
    }

    fn redo_one(&mut self) -> bool {
        let Some(&m) = self.redo.last() else {
            return false;
        };
        if self.engine.play(m).is_err() {
            self.redo.clear();
            return false;
        }
        self.after_move(m);
        true
    }

    /// Whether the page plays a colour.
    fn has_human(&self) -> bool {
        self.settings.players.contains(&Player::Human)
    }

    /// Goes to `ply` of the main line (back by undo, forward by redo).
    ///
    /// # Errors
    /// `ply` is past the last move.
    pub fn goto(&mut self, ply: usize) -> Result<(), SessionError> {
        let last = self.ply() + self.redo.len();
        if ply > last {
            return Err(SessionError::PastEnd { ply, last });
        }
        while self.ply() > ply {
            let m = self.engine.game().moves()[self.ply() - 1];
            self.engine.undo();
            self.redo.push(m);
        }
        while self.ply() < ply {
            let Some(m) = self.redo.pop() else { break };
            if self.engine.play(m).is_err() {
                self.redo.clear();
                break;
            }
        }
        self.kick();
        Ok(())
    }

    /// Changes the settings and restarts what they ask for.
    pub fn configure(&mut self, settings: Settings) {
        self.settings = settings;
        self.kick();
    }

    /// Drops the undone moves: the game ends at the current position, and
    /// the engine on its turn moves from there (the page's "play from
    /// here").
    pub fn cut(&mut self) {
        self.redo.clear();
        self.evals.truncate(self.ply() + 1);
        self.kick();
    }

    /// Stops the search and starts the one the state asks for: the
    /// engine's move on its turn at the end of the game (a forced pass is
    /// played at once), else the hints in analysis mode. A position viewed
    /// before the end (undone moves wait to be replayed) is only analysed:
    /// viewing never changes the game.
    pub fn kick(&mut self) {
        self.stop();
        self.review = None;
        self.hints.clear();
        self.depth = 0;
        loop {
            let pos = self.engine.game().current();
            let rules = self.rules();
            if pos.is_game_over(&rules) {
                let d = pos.board.final_score(rules.scoring);
                let ply = self.ply();
                self.set_eval(ply, for_black(&pos, d));
                return;
            }
            let engine_turn =
                self.settings.players[pos.side as usize] == Player::Engine && self.redo.is_empty();
            if engine_turn && pos.must_pass(&rules) {
                if self.engine.play(Move::PASS).is_ok() {
                    self.after_move(Move::PASS);
                    continue;
                }
                return;
            }
            if !self.may_search() {
                if self.spent >= self.budget && (engine_turn || self.settings.analyze) {
                    self.message = Some(self.spent_message());
                }
                return;
            }
            if engine_turn {
                let limits = match self.settings.level {
                    Level::Depth(d) => Limits {
                        depth: Some(d),
                        ..Limits::default()
                    },
                    Level::MoveTime(t) => Limits {
                        movetime: Some(t),
                        ..Limits::default()
                    },
                };
                self.engine.go(pos, limits);
                self.tasks.push_back(Task::Play(self.ply()));
            } else if self.settings.analyze && !pos.must_pass(&rules) {
                let limits = Limits {
                    depth: Some(self.settings.analyze_depth),
                    multipv: pos.legal_moves(&rules).len().max(1),
                    ..Limits::default()
                };
                self.engine.go(pos, limits);
                self.tasks.push_back(Task::Analyze(self.ply()));
            }
            return;
        }
    }

    /// One engine event.
    fn on_event(&mut self, ev: EngineEvent) {
        match ev {
            EngineEvent::Debug(_) => {}
            EngineEvent::Info(info) => {
                if let Some(&Task::Analyze(ply) | &Task::Play(ply)) = self.tasks.front()
                    && ply == self.ply()
                {
                    self.on_info(info);
                    self.version += 1;
                }
            }
            EngineEvent::BestMove(b) => {
                let task = self.tasks.pop_front();
                let ply = self.ply();
                match task {
                    Some(Task::Play(p)) if p == ply => {
                        let pos = self.engine.game().current();
                        self.set_eval(ply, for_black(&pos, b.score));
                        match self.engine.play(b.best) {
                            Ok(m) => {
                                self.after_move(m);
                                self.kick();
                            }
                            Err(e) => {
                                self.message = Some(format!("the engine's move: {e}"));
                                self.version += 1;
                            }
                        }
                    }
                    Some(Task::Review(p)) => {
                        if let Some(pos) = self.review.as_ref().and_then(|r| r.0.get(p)).copied() {
                            self.set_eval(p, for_black(&pos, b.score));
                            self.review_next(p);
                        }
                    }
                    Some(Task::Analyze(p)) if p == ply => {
                        if !b.lines.is_empty() || !b.best.is_pass() {
                            let pos = self.engine.game().current();
                            self.set_eval(ply, for_black(&pos, b.score));
                        }
                        self.version += 1;
                    }
                    _ => {}
                }
            }
            EngineEvent::Message(m) => {
                self.message = Some(m);
                self.version += 1;
            }
        }
    }

    /// A completed iteration: the hint of its first move.
    fn on_info(&mut self, info: Info) {
        let Some(&mv) = info.pv.first() else { return };
        self.depth = info.depth;
        let hint = Hint {
            mv,
            score: info.score,
            depth: info.depth,
            exact: info.exact,
            wld: info.wld,
            bound: info.bound,
            pv: info.pv,
        };
        match self.hints.iter_mut().find(|h| h.mv == mv) {
            Some(h) => *h = hint,
            None => self.hints.push(hint),
        }
        // Best first; at equal scores the deeper line first.
        self.hints
            .sort_by(|a, b| b.score.cmp(&a.score).then(b.depth.cmp(&a.depth)));
        if info.multipv == 1 {
            let pos = self.engine.game().current();
            let ply = self.ply();
            self.set_eval(ply, for_black(&pos, info.score));
        }
    }

    /// The positions of the whole line: the game and the undone moves.
    pub fn line_positions(&self) -> Vec<Position> {
        let mut g = self.engine.game().clone();
        for &m in self.redo.iter().rev() {
            if g.play(m).is_err() {
                break;
            }
        }
        g.positions().to_vec()
    }

    /// Scores every position of the whole line at `depth`, from the last
    /// to the first (the evaluation graph); any other change cancels it,
    /// and the analysis of the current position follows it.
    pub fn review(&mut self, depth: u32) {
        self.stop();
        self.hints.clear();
        let line = self.line_positions();
        let n = line.len();
        self.review = Some((line, depth));
        self.review_next(n);
    }

    /// Starts the review search of the last ply before `ply` that has a
    /// move to search; at the start, the review ends.
    fn review_next(&mut self, mut ply: usize) {
        let rules = self.rules();
        while ply > 0 {
            ply -= 1;
            let Some((line, depth)) = self.review.as_ref() else {
                return;
            };
            let (pos, depth) = (line[ply], *depth);
            if pos.is_game_over(&rules) {
                self.set_eval(ply, for_black(&pos, pos.board.final_score(rules.scoring)));
            } else if !pos.must_pass(&rules) && self.may_search() {
                let limits = Limits {
                    depth: Some(depth),
                    ..Limits::default()
                };
                self.engine.go(pos, limits);
                self.tasks.push_back(Task::Review(ply));
                self.version += 1;
                return;
            }
        }
        self.kick();
    }

    /// Records Black's score at `ply`.
    fn set_eval(&mut self, ply: usize, score: i32) {
        if self.evals.len() <= ply {
            self.evals.resize(ply + 1, None);
        }
        self.evals[ply] = Some(score);
    }

    /// Whether a new search may start: the page is there and the search
    /// time is not spent.
    fn may_search(&self) -> bool {
        !self.parked && self.spent < self.budget
    }

    /// The note of a session whose search time is spent.
    fn spent_message(&self) -> String {
        let secs = self.budget.as_secs();
        format!("this page's search time ({secs} s) is spent: open a new page to search again")
    }

    /// Whether the page has gone: no event stream and no request for
    /// `after`.
    pub fn orphaned(&self, now: Instant, after: Duration) -> bool {
        self.streams == 0 && now.saturating_duration_since(self.seen) >= after
    }

    /// A request of the page: a session that stopped because its page had
    /// gone starts again what its state asks for.
    pub fn attach(&mut self) {
        self.seen = Instant::now();
        if self.parked {
            self.parked = false;
            self.message = None;
            self.kick();
        }
    }

    /// Counts the search time since the last tick and stops the search
    /// when the page has gone (for `orphan_after`) or the session's search
    /// time is spent; `true` when the state changed.
    pub fn tick(&mut self, now: Instant, orphan_after: Duration) -> bool {
        if self.searching() {
            self.spent += now.saturating_duration_since(self.counted);
        }
        self.counted = now;
        let stop = if self.spent >= self.budget {
            Some(self.spent_message())
        } else if !self.parked && self.orphaned(now, orphan_after) {
            self.parked = true;
            Some("the page went away: the search stopped".to_string())
        } else {
            None
        };
        match stop {
            Some(msg) if self.searching() => {
                // The engine on its turn plays the best move found; no
                // search follows it.
                self.stop_now();
                self.message = Some(msg);
                self.version += 1;
                true
            }
            _ => false,
        }
    }

    /// Closes the session: the search stops and the streams end.
    pub fn close(&mut self) {
        self.stop();
        self.closed = true;
    }
}
