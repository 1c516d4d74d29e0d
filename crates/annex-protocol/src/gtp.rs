//! GTP v2 for GoGui, Quarry and gogui-twogtp: `protocol.md`, section "GTP".
//!
//! GTP is synchronous: `genmove` waits for the search (a `quit` or a GoGui
//! `# interrupt` line stops it at once through the reader thread). Vertices
//! are Othello square names (`f5`; `a1` = top-left as in `RULES.md`), the
//! convention of Edax, so that gogui-twogtp games between the two agree.

use super::quote_token;
use super::reply::final_result;
use super::uci::checked_move;
use super::{Flow, Handler, Out};
use annex_core::board::Color;
use annex_core::engine::{Engine, EngineEvent, OptionError};
use annex_core::moves::{Move, MoveError};
use annex_core::position::Position;
use annex_core::record::game::color_name;
use annex_core::rules::RuleSet;
use annex_core::search::Limits;
use annex_core::square::Square;
use crossbeam_channel::Receiver;
use std::io;
use std::time::{Duration, Instant};

/// Every command, in `list_commands` order.
const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "time_settings",
    "time_left",
    "final_score",
    "set_game",
    "list_games",
    "gogui-interrupt",
    "gogui-rules_game_id",
    "gogui-rules_board_size",
    "gogui-rules_board",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
    "annex-setoption",
];

/// Default thinking time of `genmove` without a clock.
const DEFAULT_MOVE_TIME_MS: u64 = 1000;

/// Whether `w` is one of our GTP commands.
pub(super) fn is_gtp_command(w: &str) -> bool {
    COMMANDS.iter().any(|c| c.eq_ignore_ascii_case(w))
}

/// How many arguments a command takes: (least, most; `None` = any).
fn arity(cmd: &str) -> (usize, Option<usize>) {
    match cmd {
        "known_command" | "boardsize" | "komi" | "genmove" | "reg_genmove" => (1, Some(1)),
        "play" => (2, Some(2)),
        "time_settings" | "time_left" => (3, Some(3)),
        "set_game" => (1, None),
        // The value may hold blanks.
        "annex-setoption" => (2, None),
        _ => (0, Some(0)),
    }
}

/// The arguments of `cmd` are as many as it takes.
fn check_arity(cmd: &str, args: &[&str]) -> Result<(), GtpError> {
    let (least, most) = arity(cmd);
    if args.len() < least {
        return Err(GtpError::MissingArgument(cmd.to_string()));
    }
    match most.and_then(|m| args.get(m)) {
        Some(extra) => Err(GtpError::UnexpectedToken {
            cmd: cmd.to_string(),
            token: quote_token(extra),
        }),
        None => Ok(()),
    }
}

/// Why a command failed: the text of its `?` reply. Tokens from the
/// input are quoted short ([`quote_token`]).
#[derive(Debug, thiserror::Error)]
enum GtpError {
    #[error("missing command")]
    MissingCommand,
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    #[error("{0}: missing argument")]
    MissingArgument(String),
    #[error("{cmd}: unexpected token '{token}'")]
    UnexpectedToken { cmd: String, token: String },
    #[error("invalid color '{0}'")]
    InvalidColor(String),
    #[error("syntax error: invalid move '{0}'")]
    InvalidMove(String),
    #[error("syntax error: invalid komi '{0}'")]
    InvalidKomi(String),
    /// A command's arguments, as `<main> <byo-yomi> <stones>`.
    #[error("syntax error: {0}")]
    Usage(&'static str),
    #[error("illegal move: {}", illegal_text(.0))]
    IllegalMove(MoveError),
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("it is {0}'s turn")]
    NotTurn(&'static str),
    #[error("unacceptable size")]
    UnacceptableSize,
    #[error("cannot undo")]
    CannotUndo,
    #[error("game is not over")]
    GameNotOver,
    #[error("unsupported game")]
    UnsupportedGame,
    /// A value of this protocol's own settings (`MoveTime`, `Depth`).
    #[error("invalid value '{value}' for {name}")]
    InvalidSetting { name: &'static str, value: String },
    /// An engine option refused (the engine's message, quoted short).
    #[error("{}", quote_token(&.0.to_string()))]
    Option(#[from] OptionError),
}

/// An illegal move as `play` reports it: the move's own text for a move
/// that is not legal here, else the whole message.
fn illegal_text(e: &MoveError) -> String {
    match e {
        MoveError::Illegal(t) => t.clone(),
        e => e.to_string(),
    }
}

/// Clock state from `time_settings` / `time_left`.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    main: Duration,
    byo_time: Duration,
    byo_stones: u32,
    /// `time_left` per colour: (seconds, stones).
    left: [Option<(Duration, u32)>; 2],
}

pub(super) struct Gtp {
    engine: Engine,
    events: Receiver<EngineEvent>,
    clock: Option<Clock>,
    movetime: Duration,
    depth: Option<u32>,
}

type Reply = Result<String, GtpError>;

fn parse_color(s: &str) -> Result<Color, GtpError> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err(GtpError::InvalidColor(quote_token(s))),
    }
}

fn vertex(m: Move) -> String {
    match m.to_square() {
        Some(sq) => {
            let mut s = sq.to_string().to_ascii_uppercase();
            if let Some(d) = m.direction() {
                s.push_str(&format!(":{d}"));
            }
            s
        }
        None => "pass".into(),
    }
}

fn result_text(pos: &Position, rules: &RuleSet) -> String {
    let (diff, winner) = final_result(pos, rules);
    match winner {
        Some(Color::Black) => format!("B+{diff}"),
        Some(Color::White) => format!("W+{}", -diff),
        None => "0".into(),
    }
}

impl Gtp {
    pub(super) fn new(engine: Engine, events: Receiver<EngineEvent>) -> Gtp {
        Gtp {
            engine,
            events,
            clock: None,
            movetime: Duration::from_millis(DEFAULT_MOVE_TIME_MS),
            depth: None,
        }
    }

    fn limits(&self, pos: &Position) -> Limits {
        let mut l = Limits {
            depth: self.depth,
            movetime: Some(self.movetime),
            ..Limits::default()
        };
        let Some(c) = self.clock else {
            return l;
        };
        let side = pos.side as usize;
        // (time left, moves to play in it); `None` moves = sudden death.
        let (left, moves) = match c.left[side] {
            Some((left, stones)) if stones > 0 => (left, Some(stones)),
            Some((left, _)) if left > Duration::ZERO || c.byo_stones == 0 => (left, None),
            // Main time used up: a byo-yomi period starts.
            Some(_) => (c.byo_time, Some(c.byo_stones)),
            None if c.main > Duration::ZERO => (c.main, None),
            None if c.byo_stones > 0 => (c.byo_time, Some(c.byo_stones)),
            // time_settings 0 0 0 means no time limit.
            None => return l,
        };
        l.time[side] = Some(left);
        l.movestogo = moves;
        // The clock replaces the default move time; the engine plans.
        l.movetime = None;
        l
    }

    /// Searches for `color` and plays the move unless `reg` (GTP
    /// `reg_genmove`: answer only).
    fn genmove(&mut self, color: Color, reg: bool) -> Reply {
        let rules = self.engine.rules();
        let mut pos = self.engine.game().current();
        if pos.is_game_over(&rules) {
            return Ok("pass".into());
        }
        if pos.side != color {
            if pos.must_pass(&rules) {
                self.engine.play(Move::PASS)?;
                pos = self.engine.game().current();
            } else {
                return Err(GtpError::NotTurn(color_name(pos.side)));
            }
        }
        if pos.legal_moves(&rules).is_empty() {
            // Must pass, or the game is over: GTP's answer is pass either way.
            if pos.must_pass(&rules) && !reg {
                self.engine.play(Move::PASS)?;
            }
            return Ok("pass".into());
        }
        let limits = self.limits(&pos);
        let t = Instant::now();
        self.engine.go(pos, limits);
        // The engine promises one BestMove per `go`: wait for it.
        let best = self.events.iter().find_map(|ev| match ev {
            EngineEvent::BestMove(b) => Some(b.best),
            _ => None,
        });
        log::info!("genmove {:?} in {:?}", best, t.elapsed());
        let m = checked_move(&pos, &rules, best.unwrap_or(Move::PASS));
        if reg {
            return Ok(vertex(m));
        }
        let m = self.engine.play(m)?;
        Ok(vertex(m))
    }

    fn board_rows(&self) -> String {
        let pos = self.engine.game().current();
        // GoGui draws GTP row 8 on top: rows 8..1 of the square names.
        let mut rows = Vec::new();
        for row in (0..8u8).rev() {
            let mut s = String::new();
            for col in 0..8u8 {
                let sq = Square::from_coords(col, row).expect("on the board");
                s.push(match pos.at(sq) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
                if col < 7 {
                    s.push(' ');
                }
            }
            rows.push(s);
        }
        rows.join("\n")
    }

    fn command(&mut self, cmd: &str, args: &[&str]) -> Reply {
        let rules = self.engine.rules();
        if !is_gtp_command(cmd) {
            return Err(GtpError::UnknownCommand(quote_token(cmd)));
        }
        check_arity(cmd, args)?;
        match cmd {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("Annex".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => Ok(is_gtp_command(args[0]).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "boardsize" => match args[0].parse::<u32>() {
                Ok(8) => Ok(String::new()),
                _ => Err(GtpError::UnacceptableSize),
            },
            "clear_board" => {
                self.engine.new_game();
                Ok(String::new())
            }
            "komi" => match args[0].parse::<f64>() {
                Ok(k) if k.is_finite() => Ok(String::new()),
                _ => Err(GtpError::InvalidKomi(quote_token(args[0]))),
            },
            "play" => self.play(args),
            "genmove" | "reg_genmove" => {
                let color = parse_color(args[0])?;
                self.genmove(color, cmd == "reg_genmove")
            }
            "undo" => {
                if self.engine.undo() {
                    Ok(String::new())
                } else {
                    Err(GtpError::CannotUndo)
                }
            }
            "showboard" => {
                let game = self.engine.game();
                let lines = super::reply::board_diagram(&game.current(), &rules, game.moves());
                Ok(format!("\n{}", lines.join("\n")))
            }
            "time_settings" => self.time_settings(args),
            "time_left" => self.time_left(args),
            "final_score" | "gogui-rules_final_result" => self.final_score(cmd),
            "set_game" => {
                if args.join(" ").eq_ignore_ascii_case("othello") {
                    Ok(String::new())
                } else {
                    Err(GtpError::UnsupportedGame)
                }
            }
            "list_games" => Ok("Othello".into()),
            "gogui-interrupt" => Ok(String::new()),
            "gogui-rules_game_id" => Ok("Othello".into()),
            "gogui-rules_board_size" => Ok("8".into()),
            "gogui-rules_board" => Ok(format!("\n{}", self.board_rows())),
            "gogui-rules_side_to_move" => Ok(color_name(self.engine.game().current().side).into()),
            "gogui-rules_legal_moves" => Ok(self.legal_moves()),
            "annex-setoption" => self.set_option(args[0], &args[1..].join(" ")),
            _ => Err(GtpError::UnknownCommand(quote_token(cmd))),
        }
    }

    /// `play <color> <move>`.
    fn play(&mut self, args: &[&str]) -> Reply {
        let color = parse_color(args[0])?;
        let m: Move = args[1]
            .parse()
            .map_err(|_| GtpError::InvalidMove(quote_token(args[1])))?;
        self.engine
            .play_for(color, m)
            .map(|_| String::new())
            .map_err(GtpError::IllegalMove)
    }

    /// `time_settings <main> <byo-yomi> <stones>` (seconds).
    fn time_settings(&mut self, args: &[&str]) -> Reply {
        let main = args[0].parse::<u64>();
        let byo = args[1].parse::<u64>();
        let stones = args[2].parse::<u32>();
        match (main, byo, stones) {
            (Ok(m), Ok(b), Ok(s)) => {
                self.clock = Some(Clock {
                    main: Duration::from_secs(m.min(1 << 30)),
                    byo_time: Duration::from_secs(b.min(1 << 30)),
                    byo_stones: s,
                    left: [None; 2],
                });
                Ok(String::new())
            }
            _ => Err(GtpError::Usage("time_settings <main> <byo-yomi> <stones>")),
        }
    }

    /// `time_left <color> <seconds> <stones>`.
    fn time_left(&mut self, args: &[&str]) -> Reply {
        let color = parse_color(args[0])?;
        let secs = args[1]
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0);
        let stones = args[2].parse::<u32>();
        match (secs, stones) {
            (Some(s), Ok(n)) => {
                let c = self.clock.get_or_insert_with(Clock::default);
                c.left[color as usize] = Some((Duration::from_secs_f64(s.min(1e9)), n));
                Ok(String::new())
            }
            _ => Err(GtpError::Usage("time_left <color> <seconds> <stones>")),
        }
    }

    /// `final_score` (an error before the game is over) and
    /// `gogui-rules_final_result` (`unknown` then).
    fn final_score(&self, cmd: &str) -> Reply {
        let rules = self.engine.rules();
        let pos = self.engine.game().current();
        if pos.is_game_over(&rules) {
            Ok(result_text(&pos, &rules))
        } else if cmd == "final_score" {
            Err(GtpError::GameNotOver)
        } else {
            Ok("unknown".into())
        }
    }

    /// `gogui-rules_legal_moves`: the moves, `pass`, or nothing at the end.
    fn legal_moves(&self) -> String {
        let rules = self.engine.rules();
        let pos = self.engine.game().current();
        let legal = pos.legal_moves(&rules);
        if pos.is_game_over(&rules) {
            String::new()
        } else if legal.is_empty() {
            "pass".into()
        } else {
            legal.iter().map(vertex).collect::<Vec<_>>().join(" ")
        }
    }

    /// `annex-setoption <name> <value>`: `MoveTime` and `Depth` of this
    /// protocol, else an engine option.
    fn set_option(&mut self, name: &str, value: &str) -> Reply {
        match name.to_ascii_lowercase().as_str() {
            "movetime" => match value.parse::<u64>() {
                Ok(ms) if ms >= 1 => {
                    self.movetime = Duration::from_millis(ms);
                    Ok(String::new())
                }
                _ => Err(GtpError::InvalidSetting {
                    name: "MoveTime",
                    value: quote_token(value),
                }),
            },
            "depth" => match value.parse::<u32>() {
                Ok(0) => {
                    self.depth = None;
                    Ok(String::new())
                }
                Ok(d) if d <= 60 => {
                    self.depth = Some(d);
                    Ok(String::new())
                }
                _ => Err(GtpError::InvalidSetting {
                    name: "Depth",
                    value: quote_token(value),
                }),
            },
            // A rule option starts a new game under the new rules.
            _ => {
                self.engine.set_option(name, value)?;
                Ok(String::new())
            }
        }
    }
}

impl Handler for Gtp {
    fn line(&mut self, raw: &str, out: &mut Out) -> io::Result<Flow> {
        // GTP preprocessing: drop control characters, tabs are spaces,
        // everything after '#' is a comment.
        let cleaned: String = raw
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        let line = cleaned.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            return Ok(Flow::Continue);
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (id, cmd, args) = if words[0].bytes().all(|b| b.is_ascii_digit()) {
            (
                Some(words[0]),
                words.get(1).copied().unwrap_or(""),
                &words[2.min(words.len())..],
            )
        } else {
            (None, words[0], &words[1..])
        };
        let id = id.map(|i| i.to_string()).unwrap_or_default();
        let cmd = cmd.to_ascii_lowercase();
        let cmd = cmd.as_str();
        if cmd == "quit" || cmd == "exit" {
            self.engine.stop();
            out.line(&format!("={id}"))?;
            out.line("")?;
            return Ok(Flow::Quit);
        }
        let reply = if cmd.is_empty() {
            Err(GtpError::MissingCommand)
        } else {
            self.command(cmd, args)
        };
        let text = match reply {
            Ok(r) if r.is_empty() => format!("={id}"),
            Ok(r) if r.starts_with('\n') => format!("={id}{r}"),
            Ok(r) => format!("={id} {r}"),
            Err(e) => format!("?{id} {e}"),
        };
        for l in text.lines() {
            out.line(l)?;
        }
        out.line("")?;
        Ok(Flow::Continue)
    }

    fn event(&mut self, ev: EngineEvent, _out: &mut Out) -> io::Result<()> {
        match ev {
            EngineEvent::Message(m) => log::info!("engine: {m}"),
            EngineEvent::Debug(m) => log::debug!("engine: {m}"),
            _ => {}
        }
        Ok(())
    }

    fn reject(&mut self, head: &str, msg: &str, out: &mut Out) -> io::Result<()> {
        // The reply carries the command's id when the head shows it whole.
        let mut words = head.split_whitespace();
        let id = match (words.next(), words.next()) {
            (Some(w), Some(_)) if w.bytes().all(|b| b.is_ascii_digit()) => w,
            _ => "",
        };
        out.line(&format!("?{id} {msg}"))?;
        out.line("")
    }

    fn eof(&mut self, _out: &mut Out) -> io::Result<()> {
        self.engine.stop();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each error's reply text, as the protocol documents them.
    #[test]
    fn error_texts() {
        let long = "x".repeat(200);
        for (e, text) in [
            (GtpError::MissingCommand, "missing command".to_string()),
            (
                check_arity("play", &["b"]).unwrap_err(),
                "play: missing argument".into(),
            ),
            (
                check_arity("genmove", &["b", &long]).unwrap_err(),
                format!("genmove: unexpected token '{}'", quote_token(&long)),
            ),
            (
                parse_color("red").unwrap_err(),
                "invalid color 'red'".into(),
            ),
            (
                GtpError::IllegalMove(MoveError::Illegal("f5".into())),
                "illegal move: f5".into(),
            ),
            (
                GtpError::Usage("time_left <color> <seconds> <stones>"),
                "syntax error: time_left <color> <seconds> <stones>".into(),
            ),
            (
                GtpError::InvalidSetting {
                    name: "Depth",
                    value: "61".into(),
                },
                "invalid value '61' for Depth".into(),
            ),
            (
                GtpError::Option(OptionError::Unknown("Colour".into())),
                "unknown option 'Colour'".into(),
            ),
        ] {
            assert_eq!(e.to_string(), text);
        }
    }
}
