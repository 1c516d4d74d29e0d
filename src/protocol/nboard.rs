//! NBoard protocol v2: `protocol.md`, section "NBoard protocol".
//!
//! Every command other than `ping` and `quit` first finishes a running
//! search (its output is sent), so that the game never changes under a
//! search. `ping n` stops the search at once (the reader trips the stop),
//! sends what the search found, then `pong n`.

use super::time::allocate;
use super::uci::{DEFAULT_OVERHEAD_MS, checked_move};
use super::{Flow, Handler, Out, drain_until_best};
use crate::engine::{Engine, EngineEvent};
use crate::moves::Move;
use crate::position::Position;
use crate::record::game::Game;
use crate::record::ggf::{self, Clock};
use crate::search::{BestMove, Info, Limits, SolveMode};
use crossbeam_channel::Receiver;
use std::io;
use std::time::{Duration, Instant};

/// Default midgame depth until `set depth`.
const DEFAULT_DEPTH: u32 = 20;
/// Empties at which `go`/`hint` solve the endgame exactly.
const SOLVE_EMPTIES: u32 = 20;

enum Task {
    /// `go`: answer `=== move/eval/time`.
    Go,
    /// `hint n`.
    Hint,
    /// `analyze`: positions still to analyse, last first (index into the
    /// game's positions = moves made).
    Analyze { index: usize, rest: Vec<usize> },
}

struct Running {
    task: Task,
    pos: Position,
    started: Instant,
    nodes: u64,
}

pub(super) struct NBoard {
    engine: Engine,
    events: Receiver<EngineEvent>,
    game: Game,
    depth: u32,
    contempt: i32,
    clock: Option<Clock>,
    used: [Duration; 2],
    running: Option<Running>,
}

impl NBoard {
    pub(super) fn new(engine: Engine, events: Receiver<EngineEvent>) -> NBoard {
        let game = Game::new(engine.rules());
        NBoard {
            engine,
            events,
            game,
            depth: DEFAULT_DEPTH,
            contempt: 0,
            clock: None,
            used: [Duration::ZERO; 2],
            running: None,
        }
    }

    fn error(&self, out: &mut Out, msg: &str) -> io::Result<()> {
        out.line(&format!("status error: {msg}"))
    }

    fn finish_search(&mut self, out: &mut Out) -> io::Result<()> {
        while self.running.is_some() {
            self.engine.stop();
            let events = self.events.clone();
            // Analysis chains searches: stop the whole chain.
            if let Some(Running {
                task: Task::Analyze { rest, .. },
                ..
            }) = &mut self.running
            {
                rest.clear();
            }
            drain_until_best(&events, |ev| match ev {
                Some(ev) => {
                    let done = matches!(ev, EngineEvent::BestMove(_));
                    self.event(ev, out)?;
                    Ok(done)
                }
                None if !self.engine.is_searching() => {
                    log::error!("the search ended without a best move");
                    self.running = None;
                    Ok(true)
                }
                None => Ok(false),
            })?;
        }
        Ok(())
    }

    fn limits(&self, pos: &Position, go: bool) -> Limits {
        let mut l = Limits {
            depth: Some(self.depth),
            ..Limits::default()
        };
        if pos.board.empties() <= SOLVE_EMPTIES.max(self.depth) {
            l.depth = None;
            l.solve = Some(SolveMode::Exact);
        }
        if go && let Some(c) = self.clock {
            let side = pos.side as usize;
            let overhead = Duration::from_millis(DEFAULT_OVERHEAD_MS);
            let left = c.main.saturating_sub(self.used[side]);
            l.time[side] = Some(left);
            l.inc[side] = c.inc;
            l.movetime = Some(allocate(left, c.inc, None, pos.board.empties(), overhead));
        }
        l
    }

    fn start(&mut self, task: Task, pos: Position, limits: Limits) {
        self.running = Some(Running {
            task,
            pos,
            started: Instant::now(),
            nodes: 0,
        });
        self.engine.go(pos, limits);
    }

    fn start_analysis(&mut self, out: &mut Out, mut rest: Vec<usize>) -> io::Result<()> {
        let rules = self.game.rules();
        while let Some(index) = rest.pop() {
            let pos = self.game.positions()[index];
            if pos.is_game_over(&rules) {
                let s = pos.final_score_for(rules.scoring, pos.side);
                out.line(&format!("analysis {index} {s}.00"))?;
                continue;
            }
            let limits = self.limits(&pos, false);
            self.start(Task::Analyze { index, rest }, pos, limits);
            return Ok(());
        }
        out.line("status")
    }

    fn pv_text(pv: &[Move]) -> String {
        let mut s = String::new();
        for m in pv {
            match m.to_square() {
                Some(sq) => s.push_str(&sq.to_string().to_ascii_uppercase()),
                None => s.push_str("PA"),
            }
        }
        s
    }

    fn depth_text(i: &Info) -> String {
        if i.exact {
            "100%".into()
        } else if i.wld {
            "100%W".into()
        } else {
            match i.selectivity {
                Some(p) if p < 100 => format!("{}@{p}%", i.depth),
                _ => i.depth.to_string(),
            }
        }
    }

    fn eval_text(score: i32, tie: Option<bool>) -> String {
        // A tie that the tie=second rule decides counts as a minimal win
        // or loss (half a disc) so that NBoard shows who wins it.
        match (score, tie) {
            (0, Some(true)) => "0.50".into(),
            (0, Some(false)) => "-0.50".into(),
            _ => format!("{score}.00"),
        }
    }

    fn best(&mut self, out: &mut Out, b: BestMove) -> io::Result<()> {
        let Some(run) = self.running.take() else {
            return Ok(());
        };
        let rules = self.game.rules();
        let secs = run.started.elapsed().as_secs_f64();
        out.line(&format!("nodestats {} {secs:.2}", b.nodes.max(run.nodes)))?;
        match run.task {
            Task::Go => {
                let m = checked_move(&run.pos, &rules, b.best);
                let mv = match m.to_square() {
                    Some(sq) => sq.to_string().to_ascii_uppercase(),
                    None => "PA".into(),
                };
                out.line(&format!(
                    "=== {mv}/{}/{secs:.1}",
                    Self::eval_text(b.score, b.tie)
                ))
            }
            Task::Hint => out.line("status"),
            Task::Analyze { index, rest } => {
                out.line(&format!(
                    "analysis {index} {}",
                    Self::eval_text(b.score, b.tie)
                ))?;
                self.start_analysis(out, rest)
            }
        }
    }

    fn command(&mut self, line: &str, out: &mut Out) -> io::Result<Flow> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let rules = self.engine.rules();
        match words.as_slice() {
            ["nboard", ..] => {
                out.line(&format!("set myname Annex {}", env!("CARGO_PKG_VERSION")))?;
            }
            ["set", "depth", d] => match d.parse::<u32>() {
                Ok(v) if (1..=60).contains(&v) => self.depth = v,
                _ => self.error(out, &format!("set depth: invalid depth '{d}' (1..60)"))?,
            },
            ["set", "contempt", c] => match c.parse::<i32>() {
                Ok(v) => {
                    // Draw value for book lines; Annex has no book yet.
                    self.contempt = v;
                    log::info!("contempt {}", self.contempt);
                }
                Err(_) => self.error(out, &format!("set contempt: invalid value '{c}'"))?,
            },
            ["set", "game", ..] => {
                let text = line.split_once("game").map(|x| x.1).unwrap_or("");
                match ggf::parse(text, rules) {
                    Ok(g) => {
                        self.game = g.game;
                        self.clock = g.clock;
                        self.used = g.used;
                    }
                    Err(e) => self.error(out, &format!("set game: {e}"))?,
                }
            }
            ["move", arg] => {
                let mut fields = arg.split('/');
                let text = fields.next().unwrap_or("");
                let _eval = fields.next();
                let secs = fields.next().and_then(|t| t.parse::<f64>().ok());
                let side = self.game.current().side;
                match text.parse::<Move>() {
                    Ok(m) => {
                        // A move for the side after a forced pass is fine.
                        let color = if !m.is_pass() && self.game.current().must_pass(&rules) {
                            side.other()
                        } else {
                            side
                        };
                        match self.game.play_for(color, m) {
                            Ok(_) => {
                                if let Some(s) = secs.filter(|s| s.is_finite() && *s >= 0.0) {
                                    self.used[color as usize] +=
                                        Duration::from_secs_f64(s.min(1e6));
                                }
                            }
                            Err(e) => self.error(out, &format!("move: {e}"))?,
                        }
                    }
                    Err(e) => self.error(out, &format!("move: {e}"))?,
                }
            }
            ["hint", n] => match n.parse::<usize>() {
                Ok(n) if n >= 1 => {
                    let pos = self.game.current();
                    if pos.is_game_over(&rules) {
                        return Ok(Flow::Continue);
                    }
                    let mut l = self.limits(&pos, false);
                    l.multipv = n.min(pos.legal_moves(&rules).len().max(1));
                    out.line("status Annex is thinking")?;
                    self.start(Task::Hint, pos, l);
                }
                _ => self.error(out, &format!("hint: invalid count '{n}'"))?,
            },
            ["go"] => {
                let pos = self.game.current();
                if pos.is_game_over(&rules) {
                    self.error(out, "go: the game is over")?;
                } else {
                    let l = self.limits(&pos, true);
                    out.line("status Annex is thinking")?;
                    self.start(Task::Go, pos, l);
                }
            }
            ["learn"] => out.line("learned")?,
            ["analyze"] => {
                let n = self.game.positions().len();
                // Searched from the end back to the start (retrograde), so
                // the last index is popped first.
                let rest: Vec<usize> = (0..n).collect();
                out.line("status Annex is analysing")?;
                self.start_analysis(out, rest)?;
            }
            ["quit", ..] => return Ok(Flow::Quit),
            _ => {
                let w = words.first().copied().unwrap_or("");
                self.error(out, &format!("unknown command '{w}'"))?;
            }
        }
        Ok(Flow::Continue)
    }
}

impl Handler for NBoard {
    fn line(&mut self, line: &str, out: &mut Out) -> io::Result<Flow> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["ping", rest @ ..] => {
                self.finish_search(out)?;
                let n = rest.first().copied().unwrap_or("0");
                out.line(&format!("pong {n}"))?;
                Ok(Flow::Continue)
            }
            ["quit", ..] => {
                self.engine.stop();
                Ok(Flow::Quit)
            }
            _ => {
                self.finish_search(out)?;
                self.command(line, out)
            }
        }
    }

    fn event(&mut self, ev: EngineEvent, out: &mut Out) -> io::Result<()> {
        match ev {
            EngineEvent::Info(i) => {
                let Some(run) = &mut self.running else {
                    return Ok(());
                };
                run.nodes = i.nodes;
                if matches!(run.task, Task::Analyze { .. }) || i.pv.is_empty() {
                    return Ok(());
                }
                out.line(&format!(
                    "search {} {} 0 {}",
                    Self::pv_text(&i.pv),
                    Self::eval_text(i.score, i.tie),
                    Self::depth_text(&i)
                ))
            }
            EngineEvent::BestMove(b) => self.best(out, b),
            EngineEvent::Message(m) => {
                log::info!("engine: {m}");
                Ok(())
            }
        }
    }

    fn eof(&mut self, out: &mut Out) -> io::Result<()> {
        self.finish_search(out)
    }
}
