//! The UCI-style protocol handler (and its UGI dialect): `protocol.md`,
//! section "UCI-style protocol".

use super::command::{self, Command, GoParams, PositionCmd, Query};
use super::reply::{self, ScoreStyle};
use super::{Flow, Handler, Out, await_table, quote_token, until_best};
use annex_core::board::Color;
use annex_core::engine::{Engine, EngineEvent, OPTIONS, OptionKind};
use annex_core::eval::SCALE;
use annex_core::moves::Move;
use annex_core::perft::{Convention, PerftOptions, divide};
use annex_core::position::Position;
use annex_core::record::game::Game;
use annex_core::search::{BestMove, Limits};
use crossbeam_channel::Receiver;
use std::io;
use std::time::Instant;

/// The position a search runs on, to check its answer.
struct Running {
    pos: Position,
    /// Held until `stop` or `ponderhit`: stopped at end of input.
    held: bool,
    infinite: bool,
    /// It has a depth, node or time limit: it ends by itself, so end of
    /// input lets it finish. A search without one is stopped there.
    bounded: bool,
}

pub(super) struct Uci {
    engine: Engine,
    events: Receiver<EngineEvent>,
    ugi: bool,
    debug: bool,
    running: Option<Running>,
}

impl Uci {
    pub(super) fn new(engine: Engine, events: Receiver<EngineEvent>) -> Uci {
        Uci {
            engine,
            events,
            ugi: false,
            debug: false,
            running: None,
        }
    }

    fn error(&self, out: &mut Out, msg: &str) -> io::Result<()> {
        out.line(&format!("info string error: {msg}"))
    }

    fn style(&self) -> ScoreStyle {
        if self.ugi {
            ScoreStyle::Cp
        } else {
            ScoreStyle::Disc
        }
    }

    /// Stops a running search and prints its result.
    fn finish_search(&mut self, out: &mut Out) -> io::Result<()> {
        if self.running.is_none() {
            return Ok(());
        }
        self.engine.stop();
        self.drain(out)
    }

    /// Handles events until the running search's `BestMove`.
    fn drain(&mut self, out: &mut Out) -> io::Result<()> {
        let events = self.events.clone();
        until_best(self, &events, out)
    }

    fn identify(&mut self, out: &mut Out, ugi: bool) -> io::Result<()> {
        self.ugi = ugi;
        out.line(&format!("id name Annex {}", env!("CARGO_PKG_VERSION")))?;
        out.line("id author the Annex authors")?;
        for spec in OPTIONS {
            let mut s = format!("option name {} type ", spec.name);
            match spec.kind {
                OptionKind::Spin { default, min, max } => {
                    s.push_str(&format!("spin default {default} min {min} max {max}"));
                }
                OptionKind::Check { default } => s.push_str(&format!("check default {default}")),
                OptionKind::String { default } => s.push_str(&format!(
                    "string default {}",
                    if default.is_empty() {
                        "<empty>"
                    } else {
                        default
                    }
                )),
                OptionKind::Combo { vars } => {
                    s.push_str(&format!("combo default {}", spec.default_text()));
                    for v in vars {
                        s.push_str(&format!(" var {v}"));
                    }
                }
            }
            out.line(&s)?;
        }
        out.line(if ugi { "ugiok" } else { "uciok" })
    }

    /// `setoption`: the engine checks it (a search running, the value)
    /// and, for a rule option, starts a new game under the new rules.
    fn set_option(&mut self, out: &mut Out, name: &str, value: &str) -> io::Result<()> {
        match self.engine.set_option(name, value) {
            Ok(()) => Ok(()),
            Err(e) => self.error(out, &shorten(&e.to_string(), &[name, value])),
        }
    }

    fn set_position(&mut self, out: &mut Out, p: PositionCmd) -> io::Result<()> {
        if self.running.is_some() {
            return self.error(out, "position: busy searching (send stop first)");
        }
        let rules = self.engine.rules();
        let base = p.base.unwrap_or_else(|| Position::start(&rules));
        if !base.board.is_valid() {
            return self.error(out, "position: invalid board");
        }
        let mut g = Game::from_position(base, rules);
        // Played as parsed: the first error ends the command, unread
        // moves after it are never parsed.
        for mv in p.moves() {
            let ply = g.moves().len() + 1;
            let (m, tok) = match mv {
                Ok(x) => x,
                Err(e) => return self.error(out, &format!("position: ply {ply}: {e}")),
            };
            // Passes may be left out: a forced one is inserted.
            if !m.is_pass() && g.current().must_pass(&rules) {
                g.play(Move::PASS).expect("a forced pass is legal");
            }
            if let Err(e) = g.play(m) {
                let ply = g.moves().len() + 1;
                let e = shorten(&e.to_string(), &[&tok]);
                let tok = quote_token(&tok);
                return self.error(out, &format!("position: ply {ply} '{tok}': {e}"));
            }
        }
        match self.engine.set_game(g) {
            Ok(()) => Ok(()),
            Err(e) => self.error(out, &format!("position: {e}")),
        }
    }

    /// The search limits of `go`: the clock is passed on; the engine plans
    /// the time (see protocol.md, "Time management").
    fn limits(g: &GoParams) -> Limits {
        Limits {
            depth: g.depth,
            nodes: g.nodes,
            movetime: g.movetime,
            time: g.time,
            inc: g.inc.map(Option::unwrap_or_default),
            movestogo: g.movestogo,
            infinite: g.infinite,
            ponder: g.ponder,
            solve: g.solve,
            multipv: g.multipv.unwrap_or(0),
            searchmoves: Vec::new(),
        }
    }

    fn go(&mut self, out: &mut Out, g: GoParams) -> io::Result<()> {
        if self.running.is_some() {
            return self.error(out, "go: already searching (send stop first)");
        }
        let pos = self.engine.game().current();
        let rules = self.engine.rules();
        if pos.is_game_over(&rules) {
            out.line("info string game over")?;
            return out.line("bestmove none");
        }
        let mut limits = Self::limits(&g);
        if !g.searchmoves.is_empty() {
            let legal = pos.legal_moves(&rules);
            for m in &g.searchmoves {
                match legal.find_on(&pos.board, *m) {
                    Ok(m) => limits.searchmoves.push(m),
                    Err(e) => return self.error(out, &format!("go searchmoves: {e}")),
                }
            }
        }
        self.running = Some(Running {
            pos,
            held: g.ponder || g.infinite,
            infinite: g.infinite,
            bounded: limits.depth.is_some()
                || limits.nodes.is_some()
                || limits.movetime.is_some()
                || (limits.time[pos.side as usize].is_some() && !limits.infinite),
        });
        self.engine.go(pos, limits);
        Ok(())
    }

    fn best_move(&mut self, out: &mut Out, b: BestMove) -> io::Result<()> {
        let Some(run) = self.running.take() else {
            log::warn!("bestmove without a search: {:?}", b.best);
            return Ok(());
        };
        let rules = self.engine.rules();
        let best = checked_move(&run.pos, &rules, b.best);
        let mut s = format!("bestmove {best}");
        if !self.ugi
            && let Some(p) = b.ponder
        {
            let after = run.pos.play_unchecked(&rules, best);
            if after.play(&rules, p).is_ok() {
                s.push_str(&format!(" ponder {p}"));
            }
        }
        out.line(&s)
    }

    fn query(&mut self, out: &mut Out, q: Query) -> io::Result<()> {
        let pos = self.engine.game().current();
        let rules = self.engine.rules();
        let r = match q {
            Query::GameOver => pos.is_game_over(&rules).to_string(),
            Query::P1Turn => (pos.side == Color::Black).to_string(),
            Query::Result => {
                if !pos.is_game_over(&rules) {
                    "none".into()
                } else {
                    match pos.winner(&rules) {
                        Some(Color::Black) => "p1win".into(),
                        Some(Color::White) => "p2win".into(),
                        None => "draw".into(),
                    }
                }
            }
        };
        out.line(&format!("response {r}"))
    }

    fn perft(&mut self, out: &mut Out, depth: u32, show: bool) -> io::Result<()> {
        if self.running.is_some() {
            return self.error(out, "perft: busy searching (send stop first)");
        }
        let pos = self.engine.game().current();
        let rules = self.engine.rules();
        let t = Instant::now();
        let opt = PerftOptions {
            convention: Convention::Oeis,
            ..PerftOptions::default()
        };
        let total = if depth == 0 {
            1
        } else if pos.is_game_over(&rules) {
            0
        } else {
            let parts = divide(&pos.board, &rules, depth, opt);
            if show {
                for (m, n) in &parts {
                    out.line(&format!("{m} {n}"))?;
                }
            }
            parts.iter().map(|x| x.1).sum()
        };
        let ms = t.elapsed().as_millis();
        let rate = total as f64 / t.elapsed().as_secs_f64().max(1e-6);
        out.line(&format!(
            "perft depth {depth} leaves {total} time {ms} lps {rate:.0}"
        ))
    }

    fn eval(&mut self, out: &mut Out) -> io::Result<()> {
        let pos = self.engine.game().current();
        let rules = self.engine.rules();
        if pos.is_game_over(&rules) {
            let s = pos.final_score_for(rules.scoring, pos.side);
            return out.line(&format!("eval {s}.00 final"));
        }
        let v = self.engine.evaluate(&pos);
        out.line(&format!("eval {}", reply::discs(v, SCALE)))
    }
}

/// `msg` with each long input of `inputs` that it echoes cut by
/// [`quote_token`] (engine messages quote option names and values whole).
fn shorten(msg: &str, inputs: &[&str]) -> String {
    let mut s = msg.to_string();
    for i in inputs {
        let q = quote_token(i);
        if q.len() < i.len() {
            s = s.replace(i, &q);
        }
    }
    s
}

/// `m` when it is legal at `pos`, else (engine fault) the first legal move
/// or the pass the position needs. Never returns an illegal move.
pub(super) fn checked_move(pos: &Position, rules: &annex_core::rules::RuleSet, m: Move) -> Move {
    let legal = pos.legal_moves(rules);
    if legal.is_empty() {
        if !m.is_pass() {
            log::error!("engine answered {m} where it must pass");
        }
        return Move::PASS;
    }
    match legal.find_on(&pos.board, m) {
        Ok(x) if !x.is_pass() => x,
        _ => {
            let first = legal.iter().next().expect("non-empty");
            log::error!("engine answered illegal {m} at {pos}; playing {first}");
            first
        }
    }
}

impl Handler for Uci {
    fn line(&mut self, line: &str, out: &mut Out) -> io::Result<Flow> {
        // Events that came in first are answered first (a finished
        // search's BestMove before the next command).
        while let Ok(ev) = self.events.try_recv() {
            self.event(ev, out)?;
        }
        let cmd = match command::parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.error(out, &e.to_string())?;
                return Ok(Flow::Continue);
            }
        };
        match cmd {
            Command::Uci => self.identify(out, false)?,
            Command::Ugi => self.identify(out, true)?,
            Command::Debug(on) => self.debug = on,
            Command::IsReady => {
                // The table is allocated now, not in the first timed `go`;
                // `readyok` once it is whole, or at once when `quit` came
                // (the session ends: scripts still get their `readyok`).
                self.engine.prepare();
                await_table(&mut self.engine, out, &|t| format!("info string {t}"))?;
                out.line("readyok")?
            }
            Command::SetOption { name, value } => self.set_option(out, &name, &value)?,
            Command::NewGame => {
                self.finish_search(out)?;
                self.engine.new_game();
            }
            Command::Position(p) => self.set_position(out, p)?,
            Command::Go(g) => self.go(out, *g)?,
            // The reader has already tripped the stop: the BestMove is due
            // at once, and it is written before any later command's answer.
            Command::Stop => self.finish_search(out)?,
            Command::PonderHit => {
                if let Some(r) = &mut self.running {
                    r.held = r.infinite;
                    self.engine.ponderhit();
                }
            }
            Command::Quit => {
                self.engine.stop();
                return Ok(Flow::Quit);
            }
            Command::Query(q) => self.query(out, q)?,
            Command::Perft { depth, divide } => self.perft(out, depth, divide)?,
            Command::Display => {
                let game = self.engine.game();
                for l in reply::board_diagram(&game.current(), &game.rules(), game.moves()) {
                    out.line(&l)?;
                }
            }
            Command::Eval => self.eval(out)?,
        }
        Ok(Flow::Continue)
    }

    fn event(&mut self, ev: EngineEvent, out: &mut Out) -> io::Result<()> {
        match ev {
            EngineEvent::Info(i) => {
                if self.running.is_some() {
                    out.line(&reply::info_line(&i, self.style()))?;
                }
            }
            EngineEvent::BestMove(b) => self.best_move(out, b)?,
            EngineEvent::Message(m) => out.line(&format!("info string {m}"))?,
            EngineEvent::Debug(m) => {
                log::debug!("engine: {m}");
                if self.debug {
                    out.line(&format!("info string debug: {m}"))?;
                }
            }
        }
        Ok(())
    }

    fn reject(&mut self, _head: &str, msg: &str, out: &mut Out) -> io::Result<()> {
        self.error(out, msg)
    }

    fn eof(&mut self, out: &mut Out) -> io::Result<()> {
        let Some(run) = &self.running else {
            return Ok(());
        };
        if run.held || !run.bounded {
            self.engine.stop();
        }
        self.drain(out)
    }
}
