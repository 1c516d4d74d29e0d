//! Games against an external GTP Othello engine (e.g. GRhino's
//! `gtp-rhino`), for measuring strength: a minimal GTP client with reply
//! timeouts, and a game loop with the engine's own referee checks.

use super::measure::MatchResult;
use crate::board::{Board, Color, flips, legal_moves};
use crate::engine::Engine;
use crate::eval::Evaluator;
use crate::position::Position;
use crate::search::Limits;
use crate::square::Square;
use crossbeam_channel::{Receiver, unbounded};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// A running GTP engine.
pub struct Gtp {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Seconds spent waiting for `genmove` replies.
    pub think: f64,
    /// `genmove` replies received.
    pub moves: u64,
}

impl Gtp {
    /// Starts `command` (a program and its arguments, split at spaces).
    pub fn start(command: &str) -> Result<Gtp, String> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or("empty GTP command")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(l) = line else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Ok(Gtp {
            child,
            stdin,
            lines: rx,
            think: 0.0,
            moves: 0,
        })
    }

    /// Sends a command; returns the reply text after `= ` (error on `?`,
    /// on exit or after 60 s without an answer).
    pub fn cmd(&mut self, c: &str) -> Result<String, String> {
        writeln!(self.stdin, "{c}").map_err(|e| format!("GTP write: {e}"))?;
        self.stdin.flush().map_err(|e| format!("GTP write: {e}"))?;
        let mut reply = Vec::new();
        loop {
            let l = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .map_err(|_| format!("GTP engine gave no answer to '{c}'"))?;
            if l.trim().is_empty() {
                if reply.is_empty() {
                    continue;
                }
                break;
            }
            reply.push(l);
        }
        let first = reply[0].trim().to_string();
        if let Some(r) = first.strip_prefix('=') {
            Ok(r.trim().to_string())
        } else {
            Err(format!("GTP '{c}' failed: {first}"))
        }
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        std::thread::sleep(Duration::from_millis(50));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn color_name(black: bool) -> &'static str {
    if black { "black" } else { "white" }
}

/// Plays one game from the opening `moves` (squares from the start
/// position, no passes); Annex plays Black when `annex_black`. Returns the
/// final disc difference for Annex (a forfeit by the GTP engine counts
/// +64, logged).
pub fn play_gtp_game(
    gtp: &mut Gtp,
    engine: &mut Engine,
    moves: &[Square],
    annex_black: bool,
    limits: &Limits,
) -> Result<i32, String> {
    gtp.cmd("clear_board")?;
    engine.new_game();
    let mut b = Board::start();
    let mut black = true;
    for &sq in moves {
        gtp.cmd(&format!("play {} {}", color_name(black), sq))?;
        b = b.play_flips(sq.index(), flips(b.player, b.opponent, sq.index()));
        black = !black;
    }
    loop {
        let annex_to_move = black == annex_black;
        let lm = legal_moves(b.player, b.opponent);
        if lm == 0 {
            if legal_moves(b.opponent, b.player) == 0 {
                let p = b.player.count_ones() as i32;
                let o = b.opponent.count_ones() as i32;
                let e = 64 - p - o;
                let d = match p.cmp(&o) {
                    std::cmp::Ordering::Greater => p - o + e,
                    std::cmp::Ordering::Less => p - o - e,
                    std::cmp::Ordering::Equal => 0,
                };
                return Ok(if annex_to_move { d } else { -d });
            }
            // A forced pass: tell the GTP engine if it was its opponent's.
            let _ = gtp.cmd(&format!("play {} pass", color_name(black)));
            b = b.pass();
            black = !black;
            continue;
        }
        let sq = if annex_to_move {
            let side = if black { Color::Black } else { Color::White };
            let bm = engine.search_sync(Position { board: b, side }, limits.clone());
            let sq = bm
                .best
                .to_square()
                .filter(|s| lm >> s.index() & 1 != 0)
                .ok_or_else(|| format!("engine returned {} on {b:?}", bm.best))?;
            gtp.cmd(&format!("play {} {}", color_name(black), sq))?;
            sq
        } else {
            let t = Instant::now();
            let r = gtp.cmd(&format!("genmove {}", color_name(black)))?;
            gtp.think += t.elapsed().as_secs_f64();
            gtp.moves += 1;
            match r.parse::<Square>() {
                Ok(s) if lm >> s.index() & 1 != 0 => s,
                _ => {
                    log::warn!("GTP engine played '{r}' (illegal) on {b:?}: forfeit");
                    return Ok(64);
                }
            }
        };
        b = b.play_flips(sq.index(), flips(b.player, b.opponent, sq.index()));
        black = !black;
    }
}

/// A match against a GTP engine over `openings` (each twice, colours
/// swapped); Annex uses `eval` under `limits`.
pub fn gtp_match(
    program: &str,
    eval: &Evaluator,
    openings: &[Vec<Square>],
    limits: &Limits,
) -> Result<(MatchResult, f64), String> {
    let mut gtp = Gtp::start(program)?;
    gtp.cmd("boardsize 8")?;
    let (tx, _) = unbounded();
    let mut engine = Engine::new(tx);
    engine.set_evaluator(eval.clone());
    let mut r = MatchResult::default();
    for (i, o) in openings.iter().enumerate() {
        for annex_black in [true, false] {
            let d = play_gtp_game(&mut gtp, &mut engine, o, annex_black, limits)?;
            r.discs += d as i64;
            match d.signum() {
                1 => r.wins += 1,
                0 => r.draws += 1,
                _ => r.losses += 1,
            }
        }
        eprintln!(
            "gtp match: {}/{} openings, +{} ={} -{}",
            i + 1,
            openings.len(),
            r.wins,
            r.draws,
            r.losses
        );
    }
    let per_move = gtp.think / gtp.moves.max(1) as f64;
    Ok((r, per_move))
}
