//! UCI-style client: `uci` → `id`/`option`… `uciok`; `setoption name X
//! value Y`; `isready` → `readyok`; `ucinewgame`; `position startpos moves
//! f5 d6 …` or `position board <64 chars> <X|O> moves …`; `go depth D |
//! nodes N | movetime MS | btime B wtime W binc I winc I` → `bestmove
//! <move|pass>`. `btime`/`binc` are Black's (X, the first player).

use super::client::{Client, HANDSHAKE_TIMEOUT, MoveLimit, MoveRequest, Protocol, Reply};
use super::process::{EngineProcess, Failure};
use crate::position::Position;
use crate::rules::RuleSet;
use std::time::Instant;

/// A UCI-style engine.
pub struct Uci {
    proc: EngineProcess,
    name: Option<String>,
    /// Option names the engine declared, as declared.
    options: Vec<String>,
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
        loop {
            let line = proc.recv(deadline)?;
            let t = line.trim();
            if t == "uciok" {
                break;
            }
            if let Some(n) = t.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            } else if let Some(rest) = t.strip_prefix("option name ") {
                let n = rest.split(" type ").next().unwrap_or(rest).trim();
                options.push(n.to_string());
            } else if t.starts_with('?') || t.starts_with('=') {
                // A GTP engine answering an unknown command.
                return Err(Failure::Protocol(format!("not UCI: '{t}'")));
            }
        }
        Ok(Uci {
            proc,
            name,
            options,
            rules: RuleSet::default(),
        })
    }

    fn declared(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|o| o.eq_ignore_ascii_case(name))
            .map(|s| s.as_str())
    }

    fn sync(&mut self) -> Result<(), Failure> {
        self.proc.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        self.proc.recv_until(deadline, |l| l.trim() == "readyok")?;
        Ok(())
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
            match self.declared(opt).map(str::to_string) {
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
            let n = self.declared(k).map(str::to_string).unwrap_or_else(|| {
                log::warn!("engine did not declare option '{k}'; sending it anyway");
                k.clone()
            });
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
                return Ok(Reply {
                    text: mv.to_string(),
                    eval,
                });
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
