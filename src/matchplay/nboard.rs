//! NBoard v2 client: `nboard 2`, `set depth D`, `ping N` → `pong N`,
//! `set game <GGF>` then `go` → `=== <move>[/<eval>[/<time>]]`. The whole
//! game is sent before each move, so nothing has to be kept in step between
//! games. NBoard has no rule options: only plain Othello is played.

use super::client::{Client, HANDSHAKE_TIMEOUT, MoveLimit, MoveRequest, Protocol, Reply};
use super::process::{EngineProcess, Failure};
use crate::position::Position;
use crate::protocol::quote_token;
use crate::record::game_record::{GgfHeader, ggf};
use crate::rules::RuleSet;
use std::time::Instant;

/// An NBoard engine.
pub struct NBoard {
    proc: EngineProcess,
    name: Option<String>,
    ping: u64,
    limit: MoveLimit,
    rules: RuleSet,
}

impl NBoard {
    /// Sends `nboard 2` and `ping 1`, and waits for `pong 1`.
    ///
    /// # Errors
    /// No `pong` before `deadline`, or the process died.
    pub fn handshake(proc: EngineProcess, deadline: Instant) -> Result<NBoard, Failure> {
        let mut nb = NBoard {
            proc,
            name: None,
            ping: 0,
            limit: MoveLimit::default(),
            rules: RuleSet::default(),
        };
        nb.proc.send("nboard 2")?;
        nb.sync(deadline)?;
        Ok(nb)
    }

    /// `ping n` → `pong n`, dropping what came before (late replies) but
    /// a move line: `===` comes only in answer to `go`, once, so one seen
    /// here is a second answer.
    fn sync(&mut self, deadline: Instant) -> Result<(), Failure> {
        self.ping += 1;
        let want = format!("pong {}", self.ping);
        self.proc.send(&format!("ping {}", self.ping))?;
        let mut name = None;
        let mut stray = None;
        self.proc.recv_until(deadline, &format!("'{want}'"), |l| {
            if let Some(n) = l.trim().strip_prefix("set myname ") {
                name = Some(quote_token(n.trim()));
            }
            if l.trim_start().starts_with("===") {
                stray.get_or_insert_with(|| quote_token(l.trim()));
            }
            l.trim() == want
        })?;
        if let Some(l) = stray {
            return Err(Failure::Protocol(format!(
                "two '===' answers for one go (the second: '{l}')"
            )));
        }
        if name.is_some() {
            self.name = name;
        }
        Ok(())
    }
}

/// Parses `=== f5/1.23/0.5`: the move and the optional evaluation.
pub fn parse_move_line(line: &str) -> Option<Reply> {
    let rest = line.trim().strip_prefix("===")?.trim();
    let mut parts = rest.split('/');
    let mv = parts.next()?.trim();
    if mv.is_empty() {
        return None;
    }
    let eval = parts.next().and_then(|e| e.trim().parse().ok());
    Some(Reply {
        text: mv.to_string(),
        eval,
        at: Instant::now(),
    })
}

impl Client for NBoard {
    fn protocol(&self) -> Protocol {
        Protocol::NBoard
    }

    fn engine_name(&self) -> Option<String> {
        self.name.clone()
    }

    fn configure(
        &mut self,
        rules: &RuleSet,
        options: &[(String, String)],
        limit: &MoveLimit,
    ) -> Result<(), Failure> {
        if !rules.is_default() {
            return Err(Failure::Protocol(
                "NBoard has no rule options; only plain Othello can be played".into(),
            ));
        }
        if limit.tc.is_none()
            && limit.depth.is_none()
            && (limit.movetime.is_some() || limit.nodes.is_some())
        {
            // The protocol carries a depth and the game clock, nothing else.
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                log::warn!(
                    "NBoard has no per-move time or node limit: the engine searches to depth 60 \
                     (give it a depth or a time control)"
                )
            });
        }
        for (k, v) in options {
            self.proc.send(&format!("set {k} {v}"))?;
        }
        // NBoard engines need a depth; 60 lets a time control decide.
        let depth = limit.depth.unwrap_or(60);
        self.proc.send(&format!("set depth {depth}"))?;
        self.limit = *limit;
        self.rules = *rules;
        self.sync(Instant::now() + HANDSHAKE_TIMEOUT)
    }

    fn new_game(&mut self, start: &Position) -> Result<(), Failure> {
        let _ = start;
        self.sync(Instant::now() + HANDSHAKE_TIMEOUT)
    }

    fn go(&mut self, req: &MoveRequest<'_>) -> Result<Reply, Failure> {
        let h = GgfHeader {
            place: "annex match",
            black: "black",
            white: "white",
            tc: req.limit.tc,
            rules: &self.rules,
            date: &crate::date::ggf_now(),
        };
        let game = ggf(&h, req.start, req.moves, req.times, &[], None);
        self.proc.send(&format!("set game {game}"))?;
        self.sync(req.deadline)?;
        self.proc.send("go")?;
        loop {
            let line = self.proc.recv(req.deadline)?;
            if line.trim_start().starts_with("===") {
                let reply = parse_move_line(&line).ok_or_else(|| {
                    Failure::Protocol(format!("bad move line '{}'", quote_token(&line)))
                })?;
                self.sync(Instant::now() + HANDSHAKE_TIMEOUT)?;
                return Ok(reply);
            }
        }
    }

    fn process(&mut self) -> &mut EngineProcess {
        &mut self.proc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lines() {
        let r = parse_move_line("=== F5/1.5/0.02").unwrap();
        assert_eq!(r.text, "F5");
        assert_eq!(r.eval, Some(1.5));
        assert_eq!(parse_move_line("=== PA").unwrap().text, "PA");
        assert!(parse_move_line("===").is_none());
        assert!(parse_move_line("status thinking").is_none());
    }
}
