//! The engine's options: their specs as a GUI sees them, and
//! [`Engine::set_option`].

use super::{DEFAULT_HASH_MB, Engine, MAX_HASH_MB, MAX_OVERHEAD_MS, MAX_THREADS};
use crate::book::Book;
use crate::eval::Evaluator;
use crate::search::time::DEFAULT_OVERHEAD_MS;
use std::sync::Arc;
use std::time::Duration;

/// The type of an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// Integer in `min..=max`.
    Spin,
    /// `true` or `false`.
    Check,
    /// Free text.
    String,
    /// One of `vars`.
    Combo,
    /// An action without value.
    Button,
}

/// An option as a GUI sees it.
#[derive(Clone, Debug)]
pub struct OptionSpec {
    /// Name (matched case-insensitively).
    pub name: &'static str,
    /// Type.
    pub kind: OptionKind,
    /// Default value.
    pub default: String,
    /// Least value (spin).
    pub min: i64,
    /// Greatest value (spin).
    pub max: i64,
    /// Values (combo).
    pub vars: &'static [&'static str],
}

pub(super) fn build_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(32 << 20)
        .thread_name(|i| format!("annex-search-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}

impl Engine {
    /// The options [`Engine::set_option`] accepts.
    pub fn option_specs() -> Vec<OptionSpec> {
        let spin = |name, default: usize, min, max| OptionSpec {
            name,
            kind: OptionKind::Spin,
            default: default.to_string(),
            min,
            max,
            vars: &[],
        };
        let combo = |name, vars: &'static [&'static str]| OptionSpec {
            name,
            kind: OptionKind::Combo,
            default: vars[0].to_string(),
            min: 0,
            max: 0,
            vars,
        };
        vec![
            spin("Threads", 1, 1, MAX_THREADS as i64),
            spin("Hash", DEFAULT_HASH_MB, 1, MAX_HASH_MB as i64),
            spin("MultiPV", 1, 1, 64),
            OptionSpec {
                name: "Ponder",
                kind: OptionKind::Check,
                default: "false".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            OptionSpec {
                name: "OwnBook",
                kind: OptionKind::Check,
                default: "true".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            OptionSpec {
                name: "BookFile",
                kind: OptionKind::String,
                default: "embedded".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            OptionSpec {
                name: "EvalFile",
                kind: OptionKind::String,
                default: "embedded".into(),
                min: 0,
                max: 0,
                vars: &[],
            },
            combo("Start", &["diagonal", "parallel", "free"]),
            combo("Flips", &["all", "one-line"]),
            combo("Tie", &["draw", "second"]),
            combo("Scoring", &["wof", "count"]),
            spin(
                "Move Overhead",
                DEFAULT_OVERHEAD_MS as usize,
                0,
                MAX_OVERHEAD_MS as i64,
            ),
        ]
    }

    /// Sets option `name` (case-insensitive). On error nothing changes.
    ///
    /// # Errors
    /// Unknown option, invalid value, or a search is running.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let key = name.trim().to_ascii_lowercase();
        let value = value.trim();
        if self.is_searching() {
            return Err("cannot change options while searching".into());
        }
        self.wait();
        let spin = |min: usize, max: usize| -> Result<usize, String> {
            value
                .parse::<usize>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| {
                    format!("invalid value '{value}' for option {name} (expected {min} to {max})")
                })
        };
        match key.as_str() {
            "threads" => {
                let n = spin(1, MAX_THREADS)?;
                if n != self.threads {
                    self.pool = build_pool(n)?;
                    self.threads = n;
                }
            }
            "hash" => {
                let mb = spin(1, MAX_HASH_MB)?;
                if self.tt.size_bytes() != mb << 20 {
                    self.resize_table(mb)
                        .map_err(|e| format!("{e}; Hash stays {} MiB", self.hash_mb.max(1)))?;
                }
                self.hash_mb = mb;
            }
            "multipv" => self.multipv = spin(1, 64)?,
            "move overhead" => {
                let v = spin(0, MAX_OVERHEAD_MS as usize)?;
                self.overhead = Duration::from_millis(v as u64);
            }
            "ponder" => self.ponder = parse_check(name, value)?,
            "ownbook" => self.own_book = parse_check(name, value)?,
            "bookfile" => {
                // A book file from `annex book build`, `embedded`, or `none`.
                self.book = match value.to_ascii_lowercase().as_str() {
                    "embedded" | "default" => None,
                    "none" | "" => Some(Arc::new(Book::default())),
                    _ => Some(Arc::new(
                        Book::load(std::path::Path::new(value)).map_err(|e| e.to_string())?,
                    )),
                };
            }
            "evalfile" => {
                // A weights file from `annex train`, or `embedded` / `simple`.
                self.evaluator = Evaluator::from_file(value)?;
                self.tt.clear();
            }
            "start" | "flips" | "tie" | "scoring" => {
                let mut r = self.rules;
                r.set(&key, value).map_err(|e| e.to_string())?;
                if r != self.rules {
                    self.rules = r;
                    self.tt.clear();
                }
            }
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }
}

/// Parses a check option's value.
fn parse_check(name: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(format!(
            "invalid value '{value}' for option {name} (expected true or false)"
        )),
    }
}
