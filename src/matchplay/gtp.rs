//! GTP v2 client: `protocol_version`, `boardsize 8`, `clear_board`,
//! `play black f5`, `genmove white` → `= f5` (or `= pass`, `= resign`),
//! `time_settings`/`time_left` under a time control. Replies are `= …` or
//! `? …` followed by an empty line. The engine's board is kept in step
//! with the game: moves it has not seen are sent with `play`, and when the
//! games differ it is cleared and replayed. A refused `play <colour> pass`
//! is tolerated (some engines pass implicitly). Only games from the standard
//! start position can be played (GTP cannot set up a board).

use super::client::{Client, HANDSHAKE_TIMEOUT, MoveLimit, MoveRequest, Protocol, Reply};
use super::process::{EngineProcess, Failure, MAX_REPLY_LINES};
use super::reader::MAX_LINE_BYTES;
use crate::board::Color;
use crate::moves::Move;
use crate::position::Position;
use crate::protocol::quote_token;
use crate::rules::RuleSet;
use std::time::Instant;

/// A GTP engine.
pub struct Gtp {
    proc: EngineProcess,
    name: Option<String>,
    /// Moves the engine's board holds, from the start position.
    known: Vec<Move>,
    /// Its answer to `protocol_version`, asked again after each `genmove`
    /// to find a second answer to `genmove`.
    version: String,
    rules: RuleSet,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

impl Gtp {
    /// Sends `protocol_version` and expects `= …`.
    ///
    /// # Errors
    /// No answer, or an answer that is not GTP.
    pub fn handshake(proc: EngineProcess, deadline: Instant) -> Result<Gtp, Failure> {
        let mut g = Gtp {
            proc,
            name: None,
            known: Vec::new(),
            version: String::new(),
            rules: RuleSet::default(),
        };
        g.version = g.command("protocol_version", deadline)?;
        if let Ok(n) = g.command("name", deadline)
            && !n.is_empty()
        {
            g.name = Some(quote_token(&n));
        }
        Ok(g)
    }

    /// Sends one command and returns the text of its `=` reply.
    fn command(&mut self, cmd: &str, deadline: Instant) -> Result<String, Failure> {
        self.proc.send(cmd)?;
        let what = format!("an answer to '{}'", quote_token(cmd));
        let first = self.proc.recv_until(deadline, &what, |l| {
            let t = l.trim_start();
            t.starts_with('=') || t.starts_with('?')
        })?;
        let mut text = first.trim().to_string();
        // Multi-line replies run to the empty line.
        for _ in 0..MAX_REPLY_LINES {
            let l = self.proc.recv(deadline)?;
            if l.trim().is_empty() {
                return reply(cmd, &text);
            }
            if text.len() + l.len() > MAX_LINE_BYTES {
                return Err(Failure::Protocol(format!(
                    "{what} runs past {MAX_LINE_BYTES} bytes"
                )));
            }
            text.push('\n');
            text.push_str(l.trim());
        }
        Err(self.proc.flooding("the empty line that ends an answer"))
    }

    fn sync_moves(&mut self, req: &MoveRequest<'_>) -> Result<(), Failure> {
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        if !req.moves.starts_with(&self.known) {
            self.command("clear_board", deadline)?;
            self.known.clear();
        }
        let mut pos = *req.start;
        for m in &req.moves[..self.known.len()] {
            pos = pos.play_unchecked(&self.rules, *m);
        }
        for &m in &req.moves[self.known.len()..] {
            let c = color_name(pos.side);
            match self.command(&format!("play {c} {m}"), deadline) {
                Ok(_) => {}
                // Some engines (GRhino's gtp-rhino) refuse `play <colour>
                // pass` and pass by themselves: the colour of the next
                // `play` or `genmove` tells them whose turn it is.
                Err(Failure::Protocol(why)) if m.is_pass() => {
                    log::debug!("GTP engine refused a pass ({why}); it passes implicitly");
                }
                Err(e) => return Err(e),
            }
            self.known.push(m);
            pos = pos.play_unchecked(&self.rules, m);
        }
        Ok(())
    }
}

/// The text of the `=` reply `text` to `cmd` (status character and
/// numeric id dropped), or the refusal of a `?` reply.
fn reply(cmd: &str, text: &str) -> Result<String, Failure> {
    let ok = text.starts_with('=');
    let body = text[1..].trim_start();
    let body = body.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
    if ok {
        Ok(body.to_string())
    } else {
        Err(Failure::Protocol(format!(
            "'{}' refused: {}",
            quote_token(cmd),
            quote_token(body)
        )))
    }
}

impl Client for Gtp {
    fn protocol(&self) -> Protocol {
        Protocol::Gtp
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
                "GTP has no rule options; only plain Othello can be played".into(),
            ));
        }
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        for (k, v) in options {
            self.command(&format!("{k} {v}"), deadline)?;
        }
        self.command("boardsize 8", deadline)?;
        if let Some((base, _)) = limit.tc {
            // GTP has no increment; time_left before each move tells the rest.
            self.command(&format!("time_settings {} 0 0", base.as_secs()), deadline)?;
        }
        self.rules = *rules;
        Ok(())
    }

    fn new_game(&mut self, start: &Position) -> Result<(), Failure> {
        if *start != Position::start(&self.rules) {
            return Err(Failure::Protocol(
                "GTP cannot set up a board other than the start position".into(),
            ));
        }
        self.command("clear_board", Instant::now() + HANDSHAKE_TIMEOUT)?;
        self.known.clear();
        Ok(())
    }

    fn go(&mut self, req: &MoveRequest<'_>) -> Result<Reply, Failure> {
        self.sync_moves(req)?;
        let side = req.position.side;
        if req.limit.tc.is_some()
            && let Some(t) = req.clocks[side as usize]
        {
            let cmd = format!("time_left {} {} 0", color_name(side), t.as_secs());
            self.command(&cmd, req.deadline)?;
        }
        let mv = self.command(&format!("genmove {}", color_name(side)), req.deadline)?;
        let at = Instant::now();
        if mv.split_whitespace().count() != 1 {
            return Err(Failure::Protocol(format!(
                "malformed answer to genmove: '{}'",
                quote_token(&mv.replace('\n', "\\n"))
            )));
        }
        // A second answer to `genmove` would be read as the answer to the
        // next command: ask something whose answer is known.
        let v = self.command("protocol_version", Instant::now() + HANDSHAKE_TIMEOUT)?;
        if v != self.version {
            return Err(Failure::Protocol(format!(
                "two answers to genmove (the second: '= {}')",
                quote_token(&v)
            )));
        }
        if let Ok(m) = mv.parse::<Move>() {
            // The engine has played it on its own board.
            self.known.push(m);
        }
        Ok(Reply {
            text: mv,
            eval: None,
            at,
        })
    }

    fn process(&mut self) -> &mut EngineProcess {
        &mut self.proc
    }

    fn quit(&mut self) {
        let _ = self.proc.send("quit");
        self.proc.shutdown(None, std::time::Duration::from_secs(1));
    }
}
