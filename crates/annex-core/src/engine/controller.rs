//! The controller thread of one search: it runs the search on the pool,
//! forwards iterations, reads the clock (the only thread that does), raises
//! the stop flag, holds the result under ponder or infinite, and sends the
//! one [`EngineEvent::BestMove`] of its `go`.

use super::EngineEvent;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::RuleSet;
use crate::search::time::{TimeManager, TimePlan, plan};
use crate::search::{BestMove, Bound, Info, Job, SearchShared, WorkerMsg, run_worker};
use crossbeam_channel::{Receiver, Sender, select, unbounded};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A message to the controller.
pub(super) enum Ctl {
    Stop,
    PonderHit,
}

/// The control state shared by the engine, its stop handles and the
/// controller.
pub(super) struct Control {
    pub(super) user_stop: AtomicBool,
    /// `quit` came: waits end early.
    pub(super) quit: AtomicBool,
    pub(super) ponder: AtomicBool,
    pub(super) tx: Sender<Ctl>,
    pub(super) rx: Receiver<Ctl>,
}

/// Stops the current search from any thread.
#[derive(Clone)]
pub struct StopHandle {
    pub(super) shared: Arc<SearchShared>,
    pub(super) control: Arc<Control>,
}

impl StopHandle {
    /// Ends the search (and a ponder or infinite hold) now; returns at once.
    pub fn stop(&self) {
        self.control.user_stop.store(true, Relaxed);
        self.shared.stop.store(true, Relaxed);
        let _ = self.control.tx.send(Ctl::Stop);
    }

    /// Ends the search as [`StopHandle::stop`] does, and marks the session
    /// as ending: a wait for the table ([`super::Engine::quit_requested`])
    /// ends early.
    pub fn quit(&self) {
        self.control.quit.store(true, Relaxed);
        self.stop();
    }
}

/// The BestMove of a position without a move: a pass (game over: the final
/// score, exact).
pub(super) fn pass_move(pos: &Position, rules: &RuleSet, time: Duration) -> BestMove {
    let over = pos.is_game_over(rules);
    let (score, tie) = if over {
        let o = pos.outcome(rules);
        (o.discs, o.tie_won())
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

/// A legal move of `pos` (a pass when it has none): the result of a search
/// that failed.
fn any_move(pos: &Position, rules: &RuleSet, time: Duration) -> BestMove {
    let mut b = pass_move(pos, rules, time);
    if let Some(m) = pos.legal_moves(rules).iter().next() {
        b.best = m;
        b.pv = vec![m];
    }
    b
}

/// The promise of one `go`: exactly one [`EngineEvent::BestMove`]. It is
/// kept with the result ([`Promise::keep`]); a promise dropped unkept (the
/// controller thread could not start, or it panicked and unwound) sends a
/// legal move of the position instead, so that a caller waiting for the
/// `BestMove` never waits forever. Either way the result is recorded for
/// [`super::Engine::search_sync`] and the search is marked as ended.
pub(super) struct Promise {
    pub(super) events: Sender<EngineEvent>,
    pub(super) searching: Arc<AtomicBool>,
    pub(super) last: Arc<Mutex<Option<BestMove>>>,
    /// The position and rules of the search, for the fallback move; `None`
    /// once kept.
    pub(super) pending: Option<(Position, RuleSet, Instant)>,
}

impl Promise {
    /// Sends `best` as the result.
    pub(super) fn keep(mut self, best: BestMove) {
        self.pending = None;
        self.send(best);
    }

    fn send(&self, best: BestMove) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(best.clone());
        let _ = self.events.send(EngineEvent::BestMove(best));
        self.searching.store(false, Relaxed);
    }
}

impl Drop for Promise {
    fn drop(&mut self) {
        if let Some((pos, rules, start)) = self.pending.take() {
            log::error!("the search failed; any legal move is the result");
            self.send(any_move(&pos, &rules, start.elapsed()));
        }
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
            overhead: self.overhead,
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

/// One search's controller; [`Controller::run`] is its thread.
pub(super) struct Controller {
    pub(super) job: Arc<Job>,
    pub(super) pool: Arc<rayon::ThreadPool>,
    pub(super) events: Sender<EngineEvent>,
    pub(super) control: Arc<Control>,
    /// Time lost per move outside the search (`Move Overhead`).
    pub(super) overhead: Duration,
}

enum Wake {
    Worker(WorkerMsg),
    Ctl(Ctl),
    Timeout,
    Lost,
}

impl Controller {
    /// The controller thread: searches, holds under ponder or infinite,
    /// and keeps `promise` with the result.
    pub(super) fn run(self, promise: Promise) {
        let job = &self.job;
        let pos = job.position;
        let best = if pos.legal_moves(&job.rules).is_empty() {
            self.pass_search()
        } else {
            self.search()
        };
        self.hold();
        promise.keep(best);
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
        let mut tm = TimeManager::new(plan(
            limits,
            job.position.side,
            job.position.board.empties(),
            self.overhead,
        ));
        let tp = tm.plan();
        if tp != TimePlan::default() {
            let ms = |d: Option<Duration>| d.map_or("none".into(), |d| d.as_millis().to_string());
            self.debug(format!(
                "time plan: soft {} ms, hard {} ms",
                ms(tp.soft),
                ms(tp.hard)
            ));
        }
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
                    let best = infos.first().and_then(|i| i.pv.first().copied());
                    for i in infos {
                        let _ = self.events.send(EngineEvent::Info(i));
                    }
                    if let (Some(t0), Some(best)) = (timing_from, best)
                        && tm.stop_after_iteration(best, t0.elapsed())
                    {
                        self.debug(format!(
                            "time: no new iteration after {} ms (best move {best})",
                            t0.elapsed().as_millis()
                        ));
                        shared.stop.store(true, Relaxed);
                    }
                }
                Wake::Worker(WorkerMsg::Done { result: r }) => {
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
                    self.debug("time: hard limit reached, stopping".into());
                    shared.stop.store(true, Relaxed);
                    timing_from = None;
                }
                Wake::Lost => break,
            }
        }
        // Only after a panic of the search: any legal move.
        result.unwrap_or_else(|| any_move(&job.position, &job.rules, job.start.elapsed()))
    }

    /// Sends a diagnostic note.
    fn debug(&self, note: String) {
        let _ = self.events.send(EngineEvent::Debug(note));
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
