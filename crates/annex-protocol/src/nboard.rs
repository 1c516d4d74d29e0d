//! NBoard protocol v2: `protocol.md`, section "NBoard protocol".
//!
//! Every command other than `ping` and `quit` first finishes a running
//! search (its output is sent), so that the game never changes under a
//! search. `ping n` stops the search at once (the reader trips the stop),
//! sends what the search found, then `pong n`.

use super::uci::checked_move;
use super::{Flow, Handler, Out, until_best};
use super::{await_table, quote_token};
use annex_core::engine::{Engine, EngineEvent};
use annex_core::moves::Move;
use annex_core::position::Position;
use annex_core::record::ggf::{self, Clock};
use annex_core::search::{BestMove, Bound, Info, Limits, SolveMode};
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
    depth: u32,
    contempt: i32,
    clock: Option<Clock>,
    used: [Duration; 2],
    running: Option<Running>,
}

impl NBoard {
    pub(super) fn new(engine: Engine, events: Receiver<EngineEvent>) -> NBoard {
        NBoard {
            engine,
            events,
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
            until_best(self, &events, out)?;
        }
        Ok(())
    }

    fn limits(&self, pos: &Position, go: bool) -> Limits {
        let mut l = Limits {
            depth: Some(self.depth),
            ..Limits::default()
        };
        let empties = pos.board.empties();
        let clock = if go { self.clock } else { None };
        // Under a clock only the default threshold forces a solve.
        let solve_from = if clock.is_some() {
            SOLVE_EMPTIES
        } else {
            SOLVE_EMPTIES.max(self.depth)
        };
        if empties <= solve_from {
            l.depth = None;
            l.solve = Some(SolveMode::Exact);
        } else if clock.is_some() && self.depth >= empties {
            // A depth that reaches the end does not bound a timed search:
            // the clock does, and the search solves once its depth gets
            // there (a forced solve from the opening would spend the move's
            // time on selective passes that cannot finish).
            l.depth = None;
        }
        if let Some(c) = clock {
            let side = pos.side as usize;
            let left = c.main.saturating_sub(self.used[side]);
            l.time[side] = Some(left);
            l.inc[side] = c.inc;
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
        let rules = self.engine.rules();
        while let Some(index) = rest.pop() {
            let pos = self.engine.game().positions()[index];
            if pos.is_game_over(&rules) {
                let o = pos.outcome(&rules);
                let text = Self::eval_text(o.discs, o.tie_won());
                out.line(&format!("analysis {index} {text}"))?;
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
        let rules = self.engine.rules();
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
        let Some((first, args)) = words.split_first() else {
            return Ok(Flow::Continue);
        };
        let r = match first.to_ascii_lowercase().as_str() {
            // `nboard <version>`; NBoard sends 2.
            "nboard" => at_most("nboard", args, 1).and_then(|_| {
                out.line(&format!("set myname Annex {}", env!("CARGO_PKG_VERSION")))
                    .map_err(Fail::Io)
            }),
            "set" => self.set(line, args),
            "move" => one("move", "move", args).and_then(|a| self.play(a)),
            "hint" => one("hint", "count", args).and_then(|n| self.hint(n, out)),
            "go" => none("go", args).and_then(|_| self.go(out)),
            "learn" => none("learn", args).and_then(|_| out.line("learned").map_err(Fail::Io)),
            "analyze" => none("analyze", args).and_then(|_| {
                let n = self.engine.game().positions().len();
                // Searched from the end back to the start (retrograde), so
                // the last index is popped first.
                let rest: Vec<usize> = (0..n).collect();
                out.line("status Annex is analysing")
                    .and_then(|_| self.start_analysis(out, rest))
                    .map_err(Fail::Io)
            }),
            "quit" | "exit" => return Ok(Flow::Quit),
            _ => Err(Fail::Msg(format!(
                "unknown command '{}'",
                quote_token(first)
            ))),
        };
        match r {
            Ok(()) => Ok(Flow::Continue),
            Err(Fail::Msg(m)) => self.error(out, &m).map(|_| Flow::Continue),
            Err(Fail::Io(e)) => Err(e),
        }
    }

    /// `set depth|contempt|game|option …`.
    fn set(&mut self, line: &str, args: &[&str]) -> Result<(), Fail> {
        let Some((what, rest)) = args.split_first() else {
            return Err(Fail::Msg("set: missing setting".into()));
        };
        match what.to_ascii_lowercase().as_str() {
            "depth" => {
                let d = one("set depth", "depth", rest)?;
                match d.parse::<u32>() {
                    Ok(v) if (1..=annex_core::engine::MAX_DEPTH).contains(&v) => self.depth = v,
                    _ => {
                        return Err(msg(format!(
                            "set depth: invalid depth '{}' (1..60)",
                            quote_token(d)
                        )));
                    }
                }
            }
            "contempt" => {
                let c = one("set contempt", "value", rest)?;
                // Draw value for book lines; Annex's book has none.
                self.contempt = c.parse::<i32>().map_err(|_| {
                    msg(format!("set contempt: invalid value '{}'", quote_token(c)))
                })?;
                log::info!("contempt {}", self.contempt);
            }
            "game" => {
                if rest.is_empty() {
                    return Err(msg("set game: missing record".into()));
                }
                let text = after_words(line, 2);
                let g = ggf::parse(text, self.engine.rules())
                    .map_err(|e| msg(format!("set game: {}", quote_token(&e.to_string()))))?;
                self.engine
                    .set_game(g.game)
                    .map_err(|e| msg(format!("set game: {e}")))?;
                self.clock = g.clock;
                self.used = g.used;
            }
            "option" => {
                let (name, value) = match rest {
                    [] => return Err(msg("set option: missing name".into())),
                    [_] => return Err(msg("set option: missing value".into())),
                    [n, _, ..] => (*n, after_words(line, 3)),
                };
                // A rule option starts a new game under the new rules.
                self.engine
                    .set_option(name, value)
                    .map_err(|e| msg(format!("set option: {e}")))?;
            }
            _ => return Err(msg(format!("set: unknown setting '{}'", quote_token(what)))),
        }
        Ok(())
    }

    /// `move <m>[/<eval>[/<seconds>]]`.
    fn play(&mut self, arg: &str) -> Result<(), Fail> {
        let rules = self.engine.rules();
        let fields: Vec<&str> = arg.split('/').collect();
        if fields.len() > 3 {
            return Err(msg(format!("move: invalid move '{}'", quote_token(arg))));
        }
        let number = |i: usize, what: &str| -> Result<Option<f64>, Fail> {
            match fields.get(i).filter(|t| !t.is_empty()) {
                None => Ok(None),
                Some(t) => match t.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(Some(v)),
                    _ => Err(msg(format!("move: invalid {what} '{}'", quote_token(t)))),
                },
            }
        };
        let _eval = number(1, "eval")?;
        let secs = number(2, "time")?;
        if secs.is_some_and(|s| s < 0.0) {
            return Err(msg(format!(
                "move: invalid time '{}'",
                quote_token(fields[2])
            )));
        }
        let m: Move = fields[0]
            .parse()
            .map_err(|_| msg(format!("move: invalid move '{}'", quote_token(fields[0]))))?;
        let side = self.engine.game().current().side;
        // A move for the side after a forced pass is fine.
        let color = if !m.is_pass() && self.engine.game().current().must_pass(&rules) {
            side.other()
        } else {
            side
        };
        self.engine
            .play_for(color, m)
            .map_err(|e| msg(format!("move: {e}")))?;
        if let Some(s) = secs {
            self.used[color as usize] += Duration::from_secs_f64(s.min(1e6));
        }
        Ok(())
    }

    /// `hint <n>`: the `n` best lines.
    fn hint(&mut self, n: &str, out: &mut Out) -> Result<(), Fail> {
        let rules = self.engine.rules();
        let n = match n.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(msg(format!("hint: invalid count '{}'", quote_token(n)))),
        };
        let pos = self.engine.game().current();
        if pos.is_game_over(&rules) {
            return Err(msg("hint: the game is over".into()));
        }
        let mut l = self.limits(&pos, false);
        l.multipv = n.min(pos.legal_moves(&rules).len().max(1));
        out.line("status Annex is thinking").map_err(Fail::Io)?;
        self.start(Task::Hint, pos, l);
        Ok(())
    }

    fn go(&mut self, out: &mut Out) -> Result<(), Fail> {
        let pos = self.engine.game().current();
        if pos.is_game_over(&self.engine.rules()) {
            return Err(msg("go: the game is over".into()));
        }
        let l = self.limits(&pos, true);
        out.line("status Annex is thinking").map_err(Fail::Io)?;
        self.start(Task::Go, pos, l);
        Ok(())
    }
}

/// Why a command failed: a user error (one `status error:` line) or output.
enum Fail {
    Msg(String),
    Io(io::Error),
}

fn msg(m: String) -> Fail {
    Fail::Msg(m)
}

/// The only argument of `cmd`.
fn one<'a>(cmd: &str, what: &str, args: &[&'a str]) -> Result<&'a str, Fail> {
    match args {
        [] => Err(msg(format!("{cmd}: missing {what}"))),
        [a] => Ok(a),
        [_, extra, ..] => Err(unexpected(cmd, extra)),
    }
}

/// `cmd` takes no argument.
fn none(cmd: &str, args: &[&str]) -> Result<(), Fail> {
    at_most(cmd, args, 0)
}

fn at_most(cmd: &str, args: &[&str], n: usize) -> Result<(), Fail> {
    match args.get(n) {
        Some(extra) => Err(unexpected(cmd, extra)),
        None => Ok(()),
    }
}

fn unexpected(cmd: &str, token: &str) -> Fail {
    msg(format!("{cmd}: unexpected token '{}'", quote_token(token)))
}

/// `line` after its first `n` words (and the blanks after them).
fn after_words(line: &str, n: usize) -> &str {
    let mut rest = line.trim_start();
    for _ in 0..n {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest.trim_end()
}

impl Handler for NBoard {
    fn line(&mut self, line: &str, out: &mut Out) -> io::Result<Flow> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let first = words
            .first()
            .map(|w| w.to_ascii_lowercase())
            .unwrap_or_default();
        match first.as_str() {
            "ping" => {
                self.finish_search(out)?;
                self.engine.prepare();
                await_table(&mut self.engine, out, &|t| format!("status {t}"))?;
                match words[1..] {
                    [] => out.line("pong 0"),
                    [n] if n.parse::<i64>().is_ok() => out.line(&format!("pong {n}")),
                    [n] => self.error(out, &format!("ping: invalid number '{}'", quote_token(n))),
                    [_, extra, ..] => self.error(
                        out,
                        &format!("ping: unexpected token '{}'", quote_token(extra)),
                    ),
                }?;
                Ok(Flow::Continue)
            }
            "quit" | "exit" => {
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
                // Only exact values: a bound (an aspiration fail) would show
                // as the move's value.
                if matches!(run.task, Task::Analyze { .. })
                    || i.pv.is_empty()
                    || i.bound != Bound::Exact
                {
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
            EngineEvent::Debug(m) => {
                log::debug!("engine: {m}");
                Ok(())
            }
        }
    }

    fn reject(&mut self, _head: &str, msg: &str, out: &mut Out) -> io::Result<()> {
        self.error(out, msg)
    }

    fn eof(&mut self, out: &mut Out) -> io::Result<()> {
        self.finish_search(out)
    }
}
