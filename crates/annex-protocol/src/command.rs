//! Parsing of the UCI-style protocol (and its UGI dialect): one input line
//! to one [`Command`], validated here once so that the handler never sees
//! malformed input. Legality of moves needs the rules and the game, so
//! `position` moves are parsed for syntax here and checked when applied.
//! See `protocol.md`, section "UCI-style protocol".
//!
//! ```
//! use annex_protocol::command::{parse, Command};
//! match parse("go depth 5 movetime 200").unwrap() {
//!     Command::Go(g) => assert_eq!(g.depth, Some(5)),
//!     _ => unreachable!(),
//! }
//! assert!(parse("go depth five").unwrap_err().to_string().contains("'five'"));
//! ```

use super::quote_token;
use annex_core::moves::{Move, MoveError};
use annex_core::position::{ParsePositionError, Position, parse_side, split_transcript};
use annex_core::search::SolveMode;
use std::fmt;
use std::time::Duration;

/// Deepest `perft` the protocol accepts (it runs synchronously).
pub const MAX_PERFT_DEPTH: u32 = 16;
/// Deepest `go depth` (a depth at or beyond the empties solves exactly) and
/// most lines of `go multipv`: the engine's limits.
pub use annex_core::engine::{MAX_DEPTH as MAX_GO_DEPTH, MAX_MULTIPV};
/// Largest `movestogo`.
pub const MAX_MOVES_TO_GO: u32 = 1000;
/// Largest time in milliseconds (`movetime`, clocks, increments): about
/// 31 years, far above any game, far below an overflow of the clock.
pub const MAX_MILLIS: i64 = 1_000_000_000_000;

/// One command of the UCI-style protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `uci`: identify, list options, `uciok`.
    Uci,
    /// `ugi`: as `uci`, answered with `ugiok` (UGI dialect).
    Ugi,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`.
    IsReady,
    /// `setoption name <N> [value <V>]`.
    SetOption {
        /// Option name (may contain spaces).
        name: String,
        /// Value (empty for buttons).
        value: String,
    },
    /// `ucinewgame` / `uginewgame`.
    NewGame,
    /// `position …`.
    Position(PositionCmd),
    /// `go …`.
    Go(Box<GoParams>),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit` (or `exit`).
    Quit,
    /// UGI `query <what>`.
    Query(Query),
    /// `perft <depth> [divide]`.
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Print the count of each move.
        divide: bool,
    },
    /// `d`: show the board.
    Display,
    /// `eval`: static evaluation of the current position.
    Eval,
}

/// What a UGI `query` asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// `gameover`: `true`/`false`.
    GameOver,
    /// `p1turn`: whether the first player (X) is to move.
    P1Turn,
    /// `result`: `p1win`, `p2win`, `draw` or `none`.
    Result,
}

/// A parsed `position` command.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionCmd {
    /// The base position; `None` = the start position of the rules.
    pub base: Option<Position>,
    /// The text after `moves`, read as a stream by [`PositionCmd::moves`].
    pub moves: String,
}

/// How much of one word of glued moves (`f5d6c3…`) is split into moves:
/// 4 KiB hold over 800 moves, far more than a game has, so the game ends
/// (and the next move is an error) before a cut word runs out.
const MAX_GLUED_BYTES: usize = 4096;

impl PositionCmd {
    /// The moves, each with its token as written, parsed one at a time:
    /// a caller that stops at the first error (or when the game ends)
    /// never parses the rest, however long the line.
    pub fn moves(&self) -> impl Iterator<Item = Result<(Move, String), CommandError>> + '_ {
        self.moves
            .split_whitespace()
            .flat_map(|word| {
                // `0000` is the null move of UCI runners: a pass here.
                if word == "0000" {
                    vec!["pass".to_string()]
                } else {
                    let mut cut = word.len().min(MAX_GLUED_BYTES);
                    while !word.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    split_transcript(&word[..cut])
                }
            })
            .map(|tok| match tok.parse::<Move>() {
                Ok(m) => Ok((m, tok)),
                Err(e) => Err(CommandError::Move(e)),
            })
    }
}

/// The parameters of `go`. Times are as given; the handler maps them onto
/// search limits (see `protocol.md`, "Time management").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoParams {
    /// `depth <plies>`.
    pub depth: Option<u32>,
    /// `nodes <n>`.
    pub nodes: Option<u64>,
    /// `movetime <ms>`.
    pub movetime: Option<Duration>,
    /// Remaining clock of X (`btime`, `p1time`) and O (`wtime`, `p2time`).
    pub time: [Option<Duration>; 2],
    /// Increment of X (`binc`, `p1inc`) and O (`winc`, `p2inc`).
    pub inc: [Option<Duration>; 2],
    /// `movestogo <n>`.
    pub movestogo: Option<u32>,
    /// `infinite`.
    pub infinite: bool,
    /// `ponder`.
    pub ponder: bool,
    /// `solve` (exact) or `wld`.
    pub solve: Option<SolveMode>,
    /// `multipv <n>` (this search only).
    pub multipv: Option<usize>,
    /// `searchmoves <m>…`.
    pub searchmoves: Vec<Move>,
}

/// Why a line is not a valid command; each variant names the offending
/// token.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandError {
    /// The first word is no command.
    Unknown(String),
    /// A command lacks a part.
    Missing {
        /// The command.
        command: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// A number that does not parse.
    BadNumber {
        /// The keyword it belongs to.
        key: String,
        /// The offending token.
        token: String,
    },
    /// A number outside the range its keyword declares.
    OutOfRange {
        /// The keyword it belongs to.
        key: &'static str,
        /// The offending token.
        token: String,
        /// The least value accepted.
        min: i128,
        /// The greatest value accepted.
        max: i128,
    },
    /// A token the command does not take.
    BadToken {
        /// The command.
        command: &'static str,
        /// The offending token.
        token: String,
    },
    /// A malformed board or FEN.
    Position(ParsePositionError),
    /// A malformed move.
    Move(MoveError),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown(w) => write!(f, "unknown command '{}'", quote_token(w)),
            CommandError::Missing { command, what } => write!(f, "{command}: missing {what}"),
            CommandError::BadNumber { key, token } => {
                write!(f, "invalid number '{}' for {key}", quote_token(token))
            }
            CommandError::OutOfRange {
                key,
                token,
                min,
                max,
            } => write!(
                f,
                "invalid number '{}' for {key} (expected {min} to {max})",
                quote_token(token)
            ),
            CommandError::BadToken { command, token } => {
                write!(f, "{command}: unexpected token '{}'", quote_token(token))
            }
            CommandError::Position(e) => write!(f, "position: {}", short_position_error(e)),
            CommandError::Move(e) => write!(f, "{}", short_move_error(e)),
        }
    }
}

impl std::error::Error for CommandError {}

/// `e` with its echoed token cut by [`quote_token`].
fn short_move_error(e: &MoveError) -> MoveError {
    match e {
        MoveError::Syntax(t) => MoveError::Syntax(quote_token(t)),
        MoveError::Illegal(t) => MoveError::Illegal(quote_token(t)),
        MoveError::Ambiguous(t) => MoveError::Ambiguous(quote_token(t)),
    }
}

/// `e` with its echoed token cut by [`quote_token`].
fn short_position_error(e: &ParsePositionError) -> ParsePositionError {
    match e {
        ParsePositionError::BadSide(s) => ParsePositionError::BadSide(quote_token(s)),
        ParsePositionError::Obf(s) => ParsePositionError::Obf(quote_token(s)),
        ParsePositionError::Move { ply, error } => ParsePositionError::Move {
            ply: *ply,
            error: short_move_error(error),
        },
        e => e.clone(),
    }
}

/// Parses one line. Blank lines are not commands: the caller skips them.
/// Command words and keywords are case-insensitive (`GO DEPTH 3`).
///
/// # Errors
/// See [`CommandError`].
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = words.split_first() else {
        return Err(CommandError::Missing {
            command: "line",
            what: "a command",
        });
    };
    let no_args = |c: Command| {
        if rest.is_empty() {
            Ok(c)
        } else {
            Err(CommandError::BadToken {
                command: command_name(&c),
                token: rest[0].to_string(),
            })
        }
    };
    match first.to_ascii_lowercase().as_str() {
        "uci" => no_args(Command::Uci),
        "ugi" => no_args(Command::Ugi),
        "isready" => no_args(Command::IsReady),
        "ucinewgame" | "uginewgame" => no_args(Command::NewGame),
        // Arguments after stop/ponderhit/quit are ignored, as GUIs expect.
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" | "exit" => Ok(Command::Quit),
        "d" => no_args(Command::Display),
        "eval" => no_args(Command::Eval),
        "debug" => match rest {
            [w] if w.eq_ignore_ascii_case("on") => Ok(Command::Debug(true)),
            [w] if w.eq_ignore_ascii_case("off") => Ok(Command::Debug(false)),
            [] => Err(CommandError::Missing {
                command: "debug",
                what: "on or off",
            }),
            [t, ..] => Err(CommandError::BadToken {
                command: "debug",
                token: t.to_string(),
            }),
        },
        "setoption" => parse_setoption(rest),
        "position" => parse_position(rest).map(Command::Position),
        "go" => parse_go(rest).map(|g| Command::Go(Box::new(g))),
        "query" => match rest {
            [w] if w.eq_ignore_ascii_case("gameover") => Ok(Command::Query(Query::GameOver)),
            [w] if w.eq_ignore_ascii_case("p1turn") => Ok(Command::Query(Query::P1Turn)),
            [w] if w.eq_ignore_ascii_case("result") => Ok(Command::Query(Query::Result)),
            [] => Err(CommandError::Missing {
                command: "query",
                what: "gameover, p1turn or result",
            }),
            [t, ..] => Err(CommandError::BadToken {
                command: "query",
                token: t.to_string(),
            }),
        },
        "perft" => {
            let Some(d) = rest.first() else {
                return Err(CommandError::Missing {
                    command: "perft",
                    what: "a depth",
                });
            };
            let depth = ranged("perft", d, 0, MAX_PERFT_DEPTH.into())? as u32;
            let divide = match &rest[1..] {
                [] => false,
                [w] if w.eq_ignore_ascii_case("divide") => true,
                [t, ..] => {
                    return Err(CommandError::BadToken {
                        command: "perft",
                        token: t.to_string(),
                    });
                }
            };
            Ok(Command::Perft { depth, divide })
        }
        _ => Err(CommandError::Unknown(first.to_string())),
    }
}

fn command_name(c: &Command) -> &'static str {
    match c {
        Command::Uci => "uci",
        Command::Ugi => "ugi",
        Command::IsReady => "isready",
        Command::NewGame => "ucinewgame",
        Command::Display => "d",
        Command::Eval => "eval",
        _ => "command",
    }
}

fn number<T: std::str::FromStr>(key: &str, token: &str) -> Result<T, CommandError> {
    token.parse().map_err(|_| CommandError::BadNumber {
        key: key.to_string(),
        token: token.to_string(),
    })
}

/// An integer in `min..=max`; outside it, [`CommandError::OutOfRange`].
fn ranged(key: &'static str, token: &str, min: i128, max: i128) -> Result<i128, CommandError> {
    let v: i128 = number(key, token)?;
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(CommandError::OutOfRange {
            key,
            token: token.to_string(),
            min,
            max,
        })
    }
}

fn parse_setoption(rest: &[&str]) -> Result<Command, CommandError> {
    match rest.first() {
        Some(w) if w.eq_ignore_ascii_case("name") => {}
        Some(t) => {
            return Err(CommandError::BadToken {
                command: "setoption",
                token: t.to_string(),
            });
        }
        None => {
            return Err(CommandError::Missing {
                command: "setoption",
                what: "'name <option>'",
            });
        }
    }
    let rest = &rest[1..];
    let (name, value) = match rest.iter().position(|w| w.eq_ignore_ascii_case("value")) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    if name.is_empty() {
        return Err(CommandError::Missing {
            command: "setoption",
            what: "an option name",
        });
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value: value.join(" "),
    })
}

/// Parses the arguments of `position`.
///
/// # Errors
/// Unknown base keyword, malformed board/FEN. Moves are parsed when
/// played ([`PositionCmd::moves`]).
pub fn parse_position(rest: &[&str]) -> Result<PositionCmd, CommandError> {
    let moves_at = rest.iter().position(|w| w.eq_ignore_ascii_case("moves"));
    let (head, tail) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let Some((kind, args)) = head.split_first() else {
        return Err(CommandError::Missing {
            command: "position",
            what: "startpos, board <64 squares> <X|O> or fen <fen>",
        });
    };
    let base = match (kind.to_ascii_lowercase().as_str(), args) {
        ("startpos", []) => None,
        ("startpos", [t, ..]) => {
            return Err(CommandError::BadToken {
                command: "position",
                token: t.to_string(),
            });
        }
        ("board", args) => Some(parse_board_tokens(args)?),
        ("fen", args) => Some(parse_fen(args)?),
        _ => {
            return Err(CommandError::BadToken {
                command: "position",
                token: kind.to_string(),
            });
        }
    };
    Ok(PositionCmd {
        base,
        moves: tail.join(" "),
    })
}

/// `<64 squares> <side>` or the 65-character glued form.
fn parse_board_tokens(args: &[&str]) -> Result<Position, CommandError> {
    match args {
        [b] if b.chars().count() == 65 => b.parse().map_err(CommandError::Position),
        [b, side] => {
            let side = parse_side(side).map_err(CommandError::Position)?;
            Position::parse_board(b, side).map_err(CommandError::Position)
        }
        [] | [_] => Err(CommandError::Missing {
            command: "position board",
            what: "<64 squares> <X|O>",
        }),
        [_, _, t, ..] => Err(CommandError::BadToken {
            command: "position board",
            token: t.to_string(),
        }),
    }
}

/// A FEN: either the board-string form, or eight `/`-separated rows from
/// row 1 (top) to row 8 with digits for runs of empty squares, then the
/// side to move; later fields (move counters) are ignored.
fn parse_fen(args: &[&str]) -> Result<Position, CommandError> {
    let [rows, side, ..] = args else {
        return Err(CommandError::Missing {
            command: "position fen",
            what: "<rows> <side>",
        });
    };
    let side = parse_side(side).map_err(CommandError::Position)?;
    if !rows.contains('/') {
        return Position::parse_board(rows, side).map_err(CommandError::Position);
    }
    let mut board = String::with_capacity(64);
    let parts: Vec<&str> = rows.split('/').collect();
    if parts.len() != 8 {
        return Err(CommandError::BadToken {
            command: "position fen",
            token: rows.to_string(),
        });
    }
    for row in parts {
        let mut n = 0usize;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                n += d as usize;
                board.extend(std::iter::repeat_n('-', d as usize));
            } else {
                n += 1;
                board.push(c);
            }
        }
        if n != 8 {
            return Err(CommandError::BadToken {
                command: "position fen",
                token: row.to_string(),
            });
        }
    }
    Position::parse_board(&board, side).map_err(CommandError::Position)
}

const GO_KEYS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "p1time",
    "p2time",
    "p1inc",
    "p2inc",
    "movestogo",
    "infinite",
    "ponder",
    "solve",
    "wld",
    "multipv",
    "searchmoves",
];

/// A clock or increment in milliseconds, at most [`MAX_MILLIS`].
fn millis(key: &'static str, token: &str) -> Result<Duration, CommandError> {
    // GUIs send negative clocks when a player is already late: clamp to 0.
    let v = ranged(key, token, i128::MIN, MAX_MILLIS.into()).map_err(|e| match e {
        CommandError::OutOfRange {
            key, token, max, ..
        } => CommandError::OutOfRange {
            key,
            token,
            min: 0,
            max,
        },
        e => e,
    })?;
    Ok(Duration::from_millis(v.max(0) as u64))
}

/// Parses the arguments of `go`.
///
/// # Errors
/// Unknown keyword, missing or bad number, malformed search move.
pub fn parse_go(rest: &[&str]) -> Result<GoParams, CommandError> {
    let mut g = GoParams::default();
    let mut i = 0;
    let is_key = |w: &str| GO_KEYS.iter().any(|k| k.eq_ignore_ascii_case(w));
    while i < rest.len() {
        let word = rest[i];
        i += 1;
        // The keyword as the protocol spells it, for matching and messages.
        let Some(key) = GO_KEYS
            .iter()
            .copied()
            .find(|k| k.eq_ignore_ascii_case(word))
        else {
            return Err(CommandError::BadToken {
                command: "go",
                token: word.to_string(),
            });
        };
        let mut arg = || -> Result<&str, CommandError> {
            let v = rest.get(i).copied().ok_or(CommandError::BadNumber {
                key: key.to_string(),
                token: String::new(),
            })?;
            i += 1;
            Ok(v)
        };
        match key {
            "depth" => g.depth = Some(ranged(key, arg()?, 1, MAX_GO_DEPTH.into())? as u32),
            "nodes" => g.nodes = Some(ranged(key, arg()?, 1, u64::MAX.into())? as u64),
            "movetime" => {
                let ms = ranged(key, arg()?, 0, MAX_MILLIS.into())?;
                g.movetime = Some(Duration::from_millis(ms as u64));
            }
            "btime" | "p1time" => g.time[0] = Some(millis(key, arg()?)?),
            "wtime" | "p2time" => g.time[1] = Some(millis(key, arg()?)?),
            "binc" | "p1inc" => g.inc[0] = Some(millis(key, arg()?)?),
            "winc" | "p2inc" => g.inc[1] = Some(millis(key, arg()?)?),
            "movestogo" => {
                g.movestogo = Some(ranged(key, arg()?, 1, MAX_MOVES_TO_GO.into())? as u32);
            }
            "multipv" => g.multipv = Some(ranged(key, arg()?, 1, MAX_MULTIPV as i128)? as usize),
            "infinite" => g.infinite = true,
            "ponder" => g.ponder = true,
            "solve" => g.solve = Some(SolveMode::Exact),
            "wld" => g.solve = Some(SolveMode::Wld),
            _ => {
                // searchmoves: the moves up to the next keyword.
                while i < rest.len() && !is_key(rest[i]) {
                    g.searchmoves
                        .push(rest[i].parse().map_err(CommandError::Move)?);
                    i += 1;
                }
            }
        }
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_keys() {
        let Command::Go(g) =
            parse("go btime 1000 wtime -5 binc 10 winc 20 movestogo 7 ponder").unwrap()
        else {
            panic!()
        };
        assert_eq!(g.time[0], Some(Duration::from_millis(1000)));
        assert_eq!(g.time[1], Some(Duration::ZERO));
        assert_eq!(
            g.inc,
            [
                Some(Duration::from_millis(10)),
                Some(Duration::from_millis(20))
            ]
        );
        assert_eq!(g.movestogo, Some(7));
        assert!(g.ponder);
        let Command::Go(g) = parse("go p1time 5 p2time 6 p1inc 1 p2inc 2").unwrap() else {
            panic!()
        };
        assert_eq!(g.time[1], Some(Duration::from_millis(6)));
        let Command::Go(g) = parse("go searchmoves f5 d3 depth 3").unwrap() else {
            panic!()
        };
        assert_eq!(g.searchmoves.len(), 2);
        assert_eq!(g.depth, Some(3));
        for bad in [
            "go depth",
            "go depth -1",
            "go nodes x",
            "go fast",
            "go multipv 0",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn go_ranges_and_case() {
        let multipv = annex_core::engine::OptionSpec::find("MultiPV").unwrap();
        assert_eq!(multipv.range(), Some((1, MAX_MULTIPV as i64)));
        let Command::Go(g) = parse("GO Depth 60 MULTIPV 64 movestogo 1000").unwrap() else {
            panic!()
        };
        assert_eq!(
            (g.depth, g.multipv, g.movestogo),
            (Some(60), Some(64), Some(1000))
        );
        let e = parse("go multipv 65").unwrap_err().to_string();
        assert_eq!(e, "invalid number '65' for multipv (expected 1 to 64)");
        assert!(parse("go movetime 1000000000001").is_err());
        assert!(parse("go btime -1000000000001").is_ok());
        assert_eq!(parse("IsReady").unwrap(), Command::IsReady);
    }

    #[test]
    fn position_forms() {
        let start = "---------------------------OX------XO--------------------------- X";
        let Command::Position(p) = parse(&format!("position board {start} moves f5 d6")).unwrap()
        else {
            panic!()
        };
        assert_eq!(p.base.unwrap().to_string(), start);
        assert_eq!(p.moves().count(), 2);
        let Command::Position(q) =
            parse("position fen 8/8/8/3ox3/3xo3/8/8/8 x moves f5d6").unwrap()
        else {
            panic!()
        };
        assert_eq!(q.base.unwrap().to_string(), start);
        let toks: Vec<String> = q.moves().map(|m| m.unwrap().1).collect();
        assert_eq!(toks, ["f5", "d6"]);
        let Command::Position(z) = parse("position startpos moves f5 z9 d3").unwrap() else {
            panic!()
        };
        let got: Vec<bool> = z.moves().map(|m| m.is_ok()).collect();
        assert_eq!(got, [true, false, true]);
        for bad in [
            "position",
            "position board xx X",
            "position fen 8/8/8 x",
            "position fen 9/8/8/8/8/8/8/8 x",
            "position somewhere",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn setoption_names_with_spaces() {
        assert_eq!(
            parse("setoption name Move Overhead value 30").unwrap(),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: "30".into()
            }
        );
        assert!(parse("setoption value 3").is_err());
        assert!(parse("setoption name").is_err());
    }
}
