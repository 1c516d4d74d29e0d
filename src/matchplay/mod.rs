//! Engine-versus-engine matches (`annex match`), cutechess-like.
//!
//! * [`process`]: an engine child process as a channel of lines (every wait
//!   has a deadline), in a process group of its own.
//! * [`reader`]: the threads reading an engine's output, bounded in line
//!   length and lines queued.
//! * [`client`], [`uci`], [`nboard`], [`gtp`]: the client side of the three
//!   protocols; [`connect`] starts an engine,
//!   detecting its protocol by handshake.
//! * [`game`]: the referee (our own rules code) playing one game.
//! * [`crate::record::game_record`]: results, GGF, the `games.txt` lines
//!   used to audit and resume a match.
//! * [`resume`]: the settings recorded in `--out` and the checks and
//!   repairs made before resuming.
//! * [`lock`]: the lock that keeps a second match out of an `--out` in use.
//! * [`stats`]: score, Elo ± margin, LOS, SPRT.
//! * [`openings`]: XOT-style opening lists.
//! * [`tournament`]: the schedule, the worker threads and the accounting.
//! * [`cli`]: `annex match`, the command line onto
//!   all of the above.
//!
//! Threads: `concurrency` workers each own one process per engine, reused
//! across the games that worker plays (`ucinewgame`, a fresh NBoard `set
//! game`, GTP `clear_board`); a dead or killed engine is restarted for the
//! next game. The calling thread collects results, saves them, and decides
//! when to stop (all games done, or an SPRT verdict).

pub mod process;
pub mod reader;
pub mod client;
pub mod uci;
pub mod nboard;
pub mod gtp;
pub mod resume;
pub mod lock;
pub mod game;
pub mod stats;
pub mod openings;
pub mod tournament;
pub mod cli;

use crate::rules::RuleSet;
use client::{Client, HANDSHAKE_TIMEOUT, MoveLimit, PROBE_TIMEOUT, Protocol};
use gtp::Gtp;
use nboard::NBoard;
use process::{EngineProcess, Failure};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use uci::Uci;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Two or more engines.
    pub engines: Vec<EngineSpec>,
    /// The rules.
    pub rules: RuleSet,
    /// Games per pair of engines.
    pub games: usize,
    /// Openings (empty: the start position).
    pub openings: Vec<openings::Opening>,
    /// Pick openings pseudo-randomly with this seed instead of in order.
    pub seed: Option<u64>,
    /// Games played at once.
    pub concurrency: usize,
    /// Where games are saved (and resumed from).
    pub out: Option<PathBuf>,
    /// Stop early on an SPRT verdict (first pair).
    pub sprt: Option<stats::Sprt>,
    /// Time allowed beyond the clock or movetime.
    pub margin: Duration,
    /// Longest wait for a move under depth/node limits.
    pub hang: Duration,
}

/// Deepest fixed depth per move (a game has at most 60 moves; NBoard's
/// `set depth` takes 1-60).
pub const MAX_DEPTH: u32 = 60;
/// Longest fixed time per move, ms (24 h).
pub const MAX_MOVETIME_MS: u64 = 86_400_000;

/// An engine of the match, as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// Display name (unique in the match).
    pub name: String,
    /// The protocol, `None` to detect it.
    pub protocol: Option<Protocol>,
    /// The command line that starts it.
    pub command: String,
    /// Options sent after the handshake (`setoption`, NBoard `set`, GTP
    /// command).
    pub options: Vec<(String, String)>,
    /// Its limits per move.
    pub limit: MoveLimit,
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+')
}

/// Why a match could not be set up or run.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine given without a command.
    #[error("engine '{0}' has no command")]
    NoCommand(String),
    /// An engine command with a quote left open or a trailing backslash.
    #[error(transparent)]
    Split(#[from] process::SplitError),
    /// A per-engine limit out of its range.
    #[error("invalid value '{value}' for {key} of engine {engine} (expected {lo}..{hi})")]
    Limit {
        /// The value given.
        value: String,
        /// The setting.
        key: String,
        /// The engine.
        engine: String,
        /// Smallest value.
        lo: u64,
        /// Largest value.
        hi: u64,
    },
    /// A time control that is not `base[+inc]` in seconds.
    #[error("invalid time control '{0}' (expected base+inc in seconds, e.g. 10+0.1)")]
    TcSyntax(String),
    /// A time out of range.
    #[error("invalid time control '{0}'")]
    TcRange(String),
    /// A base time of zero.
    #[error("invalid time control '{0}' (base time is zero)")]
    TcZero(String),
    /// A bad line of an openings file (1-based).
    #[error("openings line {line}: {source}")]
    Opening {
        /// Its number.
        line: usize,
        /// Why.
        source: crate::position::ParsePositionError,
    },
    /// An opening after which the game is over (1-based line).
    #[error("openings line {0}: the game is already over")]
    OpeningOver(usize),
    /// An SPRT that is not `elo0,elo1,alpha,beta`.
    #[error("invalid SPRT '{text}' ({why})")]
    Sprt {
        /// The text given.
        text: String,
        /// What it needs.
        why: &'static str,
    },
    /// An openings file without an opening.
    #[error("{} holds no opening", .0.display())]
    NoOpenings(PathBuf),
    /// Fewer than two engines.
    #[error("a match needs at least two engines")]
    TooFewEngines,
    /// Two engines of one name.
    #[error("two engines are named '{0}'; name them with name=command")]
    SameName(String),
    /// A file or folder of `--out` that cannot be used.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// `read`, `write`, `open`, `create`.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An engine that cannot be started.
    #[error("engine {name}: {failure}")]
    Engine {
        /// Its name.
        name: String,
        /// Why.
        failure: Failure,
    },
    /// `--out` holds another match: other settings, or a game that does
    /// not belong (each difference named).
    #[error("{0}")]
    OtherMatch(String),
    /// `--out` is locked by another match running now.
    #[error("{0}")]
    InUse(String),
}

impl MatchError {
    /// An I/O error on `path`.
    pub fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> MatchError {
        MatchError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl EngineSpec {
    /// Parses `[name=][uci:|nboard:|gtp:]<command>`. Without a name, the
    /// command's program file name is used.
    ///
    /// # Errors
    /// An empty command.
    pub fn parse(s: &str) -> Result<EngineSpec, MatchError> {
        let s = s.trim();
        let (name, rest) = match s.split_once('=') {
            Some((n, r)) if !n.is_empty() && n.chars().all(is_name_char) => {
                (Some(n.to_string()), r.trim())
            }
            _ => (None, s),
        };
        let mut protocol = None;
        let mut command = rest;
        for (p, pre) in [
            (Protocol::Uci, "uci:"),
            (Protocol::NBoard, "nboard:"),
            (Protocol::Gtp, "gtp:"),
        ] {
            if rest.len() >= pre.len() && rest[..pre.len()].eq_ignore_ascii_case(pre) {
                protocol = Some(p);
                command = rest[pre.len()..].trim();
            }
        }
        let words = process::split_command(command)?;
        let Some(prog) = words.first() else {
            return Err(MatchError::NoCommand(s.to_string()));
        };
        let name = name.unwrap_or_else(|| {
            let base = std::path::Path::new(prog)
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_else(|| prog.clone());
            base.chars()
                .map(|c| if is_name_char(c) { c } else { '_' })
                .collect()
        });
        Ok(EngineSpec {
            name,
            protocol,
            command: command.to_string(),
            options: Vec::new(),
            limit: MoveLimit::default(),
        })
    }

    /// Applies one per-engine setting: `depth`, `nodes`, `movetime` (ms)
    /// or `tc` change the limits; anything else is an engine option
    /// (`option.` prefix optional).
    ///
    /// # Errors
    /// A limit with an invalid value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), MatchError> {
        let num = |lo: u64, hi: u64| -> Result<u64, MatchError> {
            match value.parse::<u64>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                _ => Err(MatchError::Limit {
                    value: value.to_string(),
                    key: key.to_string(),
                    engine: self.name.clone(),
                    lo,
                    hi,
                }),
            }
        };
        match key.to_ascii_lowercase().as_str() {
            "depth" => self.limit.depth = Some(num(1, MAX_DEPTH.into())? as u32),
            "nodes" => self.limit.nodes = Some(num(1, u64::MAX)?),
            "movetime" => {
                self.limit.movetime = Some(Duration::from_millis(num(1, MAX_MOVETIME_MS)?))
            }
            "tc" => self.limit.tc = Some(parse_tc(value)?),
            _ => {
                let k = key.strip_prefix("option.").unwrap_or(key);
                self.options.push((k.to_string(), value.to_string()));
            }
        }
        Ok(())
    }
}

/// Parses a time control `base[+inc]` in seconds (`10+0.1`, `60`), or
/// `moves/base+inc` where the moves part is ignored.
///
/// # Errors
/// Not a time control.
pub fn parse_tc(s: &str) -> Result<(Duration, Duration), MatchError> {
    let t = s.rsplit('/').next().unwrap_or(s);
    let (base, inc) = t.split_once('+').unwrap_or((t, "0"));
    let secs = |x: &str| -> Result<Duration, MatchError> {
        let v: f64 = x
            .trim()
            .parse()
            .map_err(|_| MatchError::TcSyntax(s.to_string()))?;
        if !(0.0..1e7).contains(&v) {
            return Err(MatchError::TcRange(s.to_string()));
        }
        Ok(Duration::from_secs_f64(v))
    };
    let base = secs(base)?;
    if base.is_zero() {
        return Err(MatchError::TcZero(s.to_string()));
    }
    Ok((base, secs(inc)?))
}

/// Starts and initialises the engine of `spec` under `rules`, detecting
/// the protocol when `spec` names none.
///
/// # Errors
/// The engine cannot be started, answers no protocol, or refuses the
/// rules or options asked for.
pub fn connect(
    spec: &EngineSpec,
    rules: &RuleSet,
    label: &str,
) -> Result<Box<dyn Client>, Failure> {
    let protocols: Vec<Protocol> = match spec.protocol {
        Some(p) => vec![p],
        None => vec![Protocol::Uci, Protocol::Gtp, Protocol::NBoard],
    };
    let mut errors = Vec::new();
    for p in &protocols {
        let timeout = if spec.protocol.is_some() {
            HANDSHAKE_TIMEOUT
        } else {
            PROBE_TIMEOUT
        };
        let proc = EngineProcess::spawn(&spec.command, label)?;
        let deadline = Instant::now() + timeout;
        let client: Result<Box<dyn Client>, Failure> = match p {
            Protocol::Uci => Uci::handshake(proc, deadline).map(|c| Box::new(c) as Box<dyn Client>),
            Protocol::Gtp => Gtp::handshake(proc, deadline).map(|c| Box::new(c) as Box<dyn Client>),
            Protocol::NBoard => {
                NBoard::handshake(proc, deadline).map(|c| Box::new(c) as Box<dyn Client>)
            }
        };
        match client {
            Ok(mut c) => {
                c.configure(rules, &spec.options, &spec.limit)?;
                return Ok(c);
            }
            Err(e) => errors.push(format!("{p}: {e}")),
        }
    }
    Err(Failure::Protocol(format!(
        "'{}' answered no protocol ({})",
        spec.command,
        errors.join("; ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs() {
        let e = EngineSpec::parse("a=uci:./target/release/annex --x=1").unwrap();
        assert_eq!(e.name, "a");
        assert_eq!(e.protocol, Some(Protocol::Uci));
        assert_eq!(e.command, "./target/release/annex --x=1");
        let e = EngineSpec::parse("GTP:/usr/games/gtp-rhino").unwrap();
        assert_eq!(e.name, "gtp-rhino");
        assert_eq!(e.protocol, Some(Protocol::Gtp));
        let e = EngineSpec::parse("edax -nboard").unwrap();
        assert_eq!((e.name.as_str(), e.protocol), ("edax", None));
        let e = EngineSpec::parse("python3 fake.py --mode=x").unwrap();
        assert_eq!(e.name, "python3");
        assert_eq!(e.command, "python3 fake.py --mode=x");
        assert!(EngineSpec::parse("x=").is_err());
        let mut e = EngineSpec::parse("e").unwrap();
        e.set("depth", "4").unwrap();
        e.set("tc", "5+0.5").unwrap();
        e.set("option.Hash", "16").unwrap();
        assert_eq!(e.limit.depth, Some(4));
        assert_eq!(e.limit.tc.unwrap().1, Duration::from_millis(500));
        assert_eq!(e.options, [("Hash".to_string(), "16".to_string())]);
        assert!(e.set("nodes", "many").is_err());
        for (k, v) in [
            ("depth", "0"),
            ("depth", "61"),
            ("nodes", "0"),
            ("movetime", "0"),
        ] {
            let err = e.set(k, v).unwrap_err().to_string();
            assert!(err.contains(&format!("'{v}' for {k}")), "{err}");
        }
    }

    #[test]
    fn time_controls() {
        assert_eq!(
            parse_tc("10+0.1").unwrap(),
            (Duration::from_secs(10), Duration::from_millis(100))
        );
        assert_eq!(parse_tc("40/60").unwrap().0, Duration::from_secs(60));
        assert!(parse_tc("x").is_err());
        assert!(parse_tc("0+1").is_err());
        assert!(parse_tc("-1").is_err());
    }
}
