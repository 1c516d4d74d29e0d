//! UCI-style client: `uci` → `id`/`option`… `uciok`; `setoption name X
//! value Y`; `isready` → `readyok`; `ucinewgame`; `position startpos moves
//! f5 d6 …` or `position board <64 chars> <X|O> moves …`; `go depth D |
//! nodes N | movetime MS | btime B wtime W binc I winc I` → `bestmove
//! <move|pass>`. `btime`/`binc` are Black's (X, the first player).

use super::client::{Client, HANDSHAKE_TIMEOUT, MoveLimit, MoveRequest, Protocol, Reply};
use super::process::{EngineProcess, Failure, MAX_REPLY_LINES};
use crate::position::Position;
use crate::protocol::quote_token;
use crate::rules::RuleSet;
use std::time::Instant;

/// An option as the engine declared it: its name and, for a `spin`, its
/// range.
struct Declared {
    name: String,
    range: Option<(i64, i64)>,
}

impl Declared {
    /// Parses what follows `option name `.
    fn parse(rest: &str) -> Declared {
        let name = rest.split(" type ").next().unwrap_or(rest).trim();
        let words: Vec<&str> = rest[name.len()..].split_whitespace().collect();
        let after = |k: &str| -> Option<i64> {
            let i = words.iter().position(|w| *w == k)?;
            words.get(i + 1)?.parse().ok()
        };
        let spin = words.windows(2).any(|w| w == ["type", "spin"]);
        let range = if spin {
            after("min").zip(after("max"))
        } else {
            None
        };
        Declared {
            name: name.to_string(),
            range,
        }
    }

    /// Checks `value` against the declared range.
    fn check(&self, value: &str) -> Result<(), Failure> {
        let Some((lo, hi)) = self.range else {
            return Ok(());
        };
        match value.trim().parse::<i64>() {
            Ok(v) if (lo..=hi).contains(&v) => Ok(()),
            _ => Err(Failure::Setting(format!(
                "option {} = '{value}': the engine takes {lo}..{hi}",
                self.name
            ))),
        }
    }
}

/// Most options kept from a handshake (more are not read: no engine has
/// that many, and each may be a long line).
const MAX_OPTIONS: usize = 256;

/// A UCI-style engine.
pub struct Uci {
    proc: EngineProcess,
    name: Option<String>,
    /// Options the engine declared.
    options: Vec<Declared>,
    rules: RuleSet,
}

impl Uci {
    /// Sends `uci` and reads up to `uciok`.
    ///
    /// # Errors
    /// No `uciok` before `deadline`, or the process died.
    pub fn handshake(mut proc: EngineProcess, deadline: Instant) -> Result<Uci, Failure> {
        proc.send("uci")?;
        let mut name = None;
        let mut options = Vec::new();
        for _ in 0..MAX_REPLY_LINES {
            let line = proc.recv_line(deadline)?.into_text();
            let t = line.trim();
            if t == "uciok" {
                return Ok(Uci {
                    proc,
                    name,
                    options,
                    rules: RuleSet::default(),
                });
            }
            if let Some(n) = t.strip_prefix("id name ") {
                name = Some(quote_token(n.trim()));
            } else if let Some(rest) = t.strip_prefix("option name ") {
                if options.len() < MAX_OPTIONS {
                    options.push(Declared::parse(rest));
                }
            } else if t.starts_with('?') || t.starts_with('=') {
                // A GTP engine answering an unknown command.
                return Err(Failure::Protocol(format!("not UCI: '{}'", quote_token(t))));
            }
        }
        Err(proc.flooding("'uciok'"))
    }

    fn declared(&self, name: &str) -> Option<&Declared> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// `isready` → `readyok` after a `bestmove`: a second `bestmove` for
    /// the same `go` shows up before `readyok`.
    fn after_bestmove(&mut self) -> Result<(), Failure> {
        self.proc.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut seen = Vec::new();
        self.proc.recv_until(deadline, "'readyok'", |l| {
            let t = l.trim_start();
            if t.starts_with("bestmove") {
                seen.push(t.to_string());
            }
            t.trim_end() == "readyok"
        })?;
        check_no_bestmove(seen)
    }

    fn sync(&mut self) -> Result<(), Failure> {
        self.proc.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        self.proc
            .recv_until(deadline, "'readyok'", |l| l.trim() == "readyok")?;
        Ok(())
    }
}

/// A `bestmove` among `lines` (read after one already came) is a second
/// answer to one `go`.
fn check_no_bestmove(lines: Vec<String>) -> Result<(), Failure> {
    match lines
        .iter()
        .find(|l| l.trim_start().starts_with("bestmove"))
    {
        Some(l) => Err(Failure::Protocol(format!(
            "two bestmoves for one go (the second: '{}')",
            quote_token(l.trim())
        ))),
        None => Ok(()),
    }
}

/// The `position` command for a request.
pub fn position_command(start: &Position, moves: &[crate::moves::Move], rules: &RuleSet) -> String {
    let mut s = if *start == Position::start(rules) {
        "position startpos".to_string()
    } else {
        format!("position board {} {}", start.board_string(), start.side)
    };
    if !moves.is_empty() {
        s.push_str(" moves");
        for m in moves {
            s.push(' ');
            s.push_str(&m.to_string());
        }
    }
    s
}

/// The `go` command for a limit and the clocks.
pub fn go_command(limit: &MoveLimit, clocks: [Option<std::time::Duration>; 2]) -> String {
    let mut s = "go".to_string();
    if let Some(d) = limit.depth {
        s += &format!(" depth {d}");
    }
    if let Some(n) = limit.nodes {
        s += &format!(" nodes {n}");
    }
    if let Some(t) = limit.movetime {
        s += &format!(" movetime {}", t.as_millis());
    }
    if let Some((_, inc)) = limit.tc {
        let ms = |c: Option<std::time::Duration>| c.map(|d| d.as_millis()).unwrap_or(0);
        s += &format!(
            " btime {} wtime {} binc {} winc {}",
            ms(clocks[0]),
            ms(clocks[1]),
            inc.as_millis(),
            inc.as_millis()
        );
    }
    if limit.is_empty() {
        s += " depth 1";
    }
    s
}

/// The score of an `info` line (`score <n>` or `score cp <n>`), if any.
fn info_score(line: &str) -> Option<f64> {
    let mut it = line.split_whitespace();
    while let Some(t) = it.next() {
        if t == "score" {
            let mut v = it.next()?;
            if v == "cp" || v == "disc" || v == "discs" {
                v = it.next()?;
            }
            return v.parse().ok();
        }
    }
    None
}

impl Client for Uci {
    fn protocol(&self) -> Protocol {
        Protocol::Uci
    }

    fn engine_name(&self) -> Option<String> {
        self.name.clone()
    }

    fn configure(
        &mut self,
        rules: &RuleSet,
        options: &[(String, String)],
        _limit: &MoveLimit,
    ) -> Result<(), Failure> {
        for (opt, value) in [
            ("Start", rules.start.name()),
            ("Flips", rules.flips.name()),
            ("Tie", rules.tie.name()),
            ("Scoring", rules.scoring.name()),
        ] {
            let is_default = match opt {
                "Start" => rules.start == Default::default(),
                "Flips" => rules.flips == Default::default(),
                "Tie" => rules.tie == Default::default(),
                _ => rules.scoring == Default::default(),
            };
            match self.declared(opt).map(|d| d.name.clone()) {
                Some(n) => self
                    .proc
                    .send(&format!("setoption name {n} value {value}"))?,
                None if is_default => {}
                None => {
                    return Err(Failure::Protocol(format!(
                        "the engine has no option {opt}, needed for rule {} {value}",
                        opt.to_ascii_lowercase()
                    )));
                }
            }
        }
        for (k, v) in options {
            let n = match self.declared(k) {
                Some(d) => {
                    d.check(v)?;
                    d.name.clone()
                }
                None => {
                    log::warn!("engine did not declare option '{k}'; sending it anyway");
                    k.clone()
                }
            };
            self.proc.send(&format!("setoption name {n} value {v}"))?;
        }
        self.rules = *rules;
        self.sync()
    }

    fn new_game(&mut self, _start: &Position) -> Result<(), Failure> {
        self.proc.drain();
        self.proc.send("ucinewgame")?;
        self.sync()
    }

    fn go(&mut self, req: &MoveRequest<'_>) -> Result<Reply, Failure> {
        // A late second `bestmove` must not answer this request.
        check_no_bestmove(self.proc.pending())?;
        self.proc
            .send(&position_command(req.start, req.moves, &self.rules))?;
        self.proc.send(&go_command(req.limit, req.clocks))?;
        let mut eval = None;
        loop {
            let line = self.proc.recv(req.deadline)?;
            let t = line.trim();
            if t.starts_with("info") {
                if let Some(s) = info_score(t) {
                    eval = Some(s);
                }
            } else if let Some(rest) = t.strip_prefix("bestmove") {
                let mv = rest.split_whitespace().next().unwrap_or("");
                if mv.is_empty() {
                    return Err(Failure::Protocol("'bestmove' without a move".into()));
                }
                let reply = Reply {
                    text: mv.to_string(),
                    eval,
                    at: Instant::now(),
                };
                self.after_bestmove()?;
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
    use crate::moves::Move;

    #[test]
    fn commands() {
        let r = RuleSet::default();
        let start = Position::start(&r);
        let moves: Vec<Move> = ["f5", "d6", "pass"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        assert_eq!(
            position_command(&start, &moves, &r),
            "position startpos moves f5 d6 pass"
        );
        assert_eq!(position_command(&start, &[], &r), "position startpos");
        let other = Position::from_colors(1, 2, crate::board::Color::White);
        assert!(position_command(&other, &[], &r).starts_with("position board XO--"));
        assert!(position_command(&other, &[], &r).ends_with(" O"));
        let l = MoveLimit {
            depth: Some(3),
            tc: Some((
                std::time::Duration::from_secs(10),
                std::time::Duration::from_millis(100),
            )),
            ..Default::default()
        };
        let c = [
            Some(std::time::Duration::from_millis(9000)),
            Some(std::time::Duration::from_millis(8000)),
        ];
        assert_eq!(
            go_command(&l, c),
            "go depth 3 btime 9000 wtime 8000 binc 100 winc 100"
        );
        assert_eq!(info_score("info depth 3 score cp -12 pv f5"), Some(-12.0));
        assert_eq!(info_score("info depth 3 score 4 pv f5"), Some(4.0));
    }
}
