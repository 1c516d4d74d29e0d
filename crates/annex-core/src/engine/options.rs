//! The engine's options: their specs as a GUI sees them, the typed setters
//! (`set_rules`, `set_threads`, `set_hash`, …) and [`Engine::set_option`],
//! the protocols' text adapter to them.

use super::{DEFAULT_HASH_MB, Engine, MAX_HASH_MB, MAX_OVERHEAD_MS, MAX_THREADS};
use crate::book::{Book, BookError};
use crate::eval::{EvalError, Evaluator};
use crate::rules::{ParseRuleError, RuleSet};
use crate::search::time::DEFAULT_OVERHEAD_MS;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

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

pub(super) fn build_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, OptionError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(32 << 20)
        .thread_name(|i| format!("annex-search-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| OptionError::Threads {
            threads,
            reason: e.to_string(),
        })
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
            spin("MultiPV", 1, 1, MAX_MULTIPV as i64),
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

    /// Sets option `name` (case-insensitive) from its text: the protocols'
    /// adapter to the typed setters below. On error nothing changes.
    ///
    /// # Errors
    /// Unknown option, invalid value, or a search is running.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<OptionEffect, OptionError> {
        let key = name.trim().to_ascii_lowercase();
        let value = value.trim();
        self.idle()?;
        let invalid = |expected: String| OptionError::Invalid {
            name: name.to_string(),
            value: value.to_string(),
            expected,
        };
        let spin = |min: usize, max: usize| -> Result<usize, OptionError> {
            value
                .parse::<usize>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| invalid(format!("{min} to {max}")))
        };
        let check = || parse_check(value).ok_or_else(|| invalid("true or false".into()));
        match key.as_str() {
            "threads" => self.set_threads(spin(1, MAX_THREADS)?)?,
            "hash" => self.set_hash(spin(1, MAX_HASH_MB)?)?,
            "multipv" => self.set_multipv(spin(1, MAX_MULTIPV)?)?,
            "move overhead" => {
                let ms = spin(0, MAX_OVERHEAD_MS as usize)? as u64;
                self.set_move_overhead(Duration::from_millis(ms))?;
            }
            "ponder" => self.set_ponder(check()?)?,
            "ownbook" => self.set_own_book(check()?)?,
            "bookfile" => self.set_book(BookSource::parse(value))?,
            "evalfile" => self.set_eval_file(value)?,
            "start" | "flips" | "tie" | "scoring" => {
                let mut r = self.rules;
                r.set(&key, value)?;
                if self.set_rules(r)? {
                    return Ok(OptionEffect::RulesChanged);
                }
            }
            _ => return Err(OptionError::Unknown(name.to_string())),
        }
        Ok(OptionEffect::Done)
    }

    /// Errs while a search runs; otherwise lets a finished search's
    /// controller end.
    fn idle(&mut self) -> Result<(), OptionError> {
        if self.is_searching() {
            return Err(OptionError::Searching);
        }
        self.wait();
        Ok(())
    }

    /// Sets the rule set; returns whether it changed (the table is cleared
    /// then, and a game under the old rules may mean nothing now).
    ///
    /// # Errors
    /// A search is running.
    pub fn set_rules(&mut self, rules: RuleSet) -> Result<bool, OptionError> {
        self.idle()?;
        if rules == self.rules {
            return Ok(false);
        }
        self.rules = rules;
        self.tt.clear_with(self.threads);
        Ok(true)
    }

    /// Sets the number of search threads (`Threads`, 1 to [`MAX_THREADS`]).
    ///
    /// # Errors
    /// Out of range, the threads cannot start, or a search is running.
    pub fn set_threads(&mut self, n: usize) -> Result<(), OptionError> {
        self.idle()?;
        in_range("Threads", n, 1, MAX_THREADS)?;
        if n != self.threads {
            self.pool = build_pool(n)?;
            self.threads = n;
        }
        Ok(())
    }

    /// Sets the table size in MiB (`Hash`, 1 to [`MAX_HASH_MB`]) and
    /// allocates it.
    ///
    /// # Errors
    /// Out of range, the memory cannot be had (the old table stays), or a
    /// search is running.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), OptionError> {
        self.idle()?;
        in_range("Hash", mb, 1, MAX_HASH_MB)?;
        if self.tt.size_bytes() != mb << 20 {
            self.resize_table(mb).map_err(|reason| OptionError::Hash {
                reason,
                mb: self.hash_mb.max(1),
            })?;
        }
        self.hash_mb = mb;
        Ok(())
    }

    /// Sets the default number of principal variations (`MultiPV`).
    ///
    /// # Errors
    /// Out of range (1 to 64), or a search is running.
    pub fn set_multipv(&mut self, n: usize) -> Result<(), OptionError> {
        self.idle()?;
        in_range("MultiPV", n, 1, MAX_MULTIPV)?;
        self.multipv = n;
        Ok(())
    }

    /// Sets the time lost per move outside the search (`Move Overhead`).
    ///
    /// # Errors
    /// Over [`MAX_OVERHEAD_MS`], or a search is running.
    pub fn set_move_overhead(&mut self, overhead: Duration) -> Result<(), OptionError> {
        self.idle()?;
        let ms = usize::try_from(overhead.as_millis()).unwrap_or(usize::MAX);
        in_range("Move Overhead", ms, 0, MAX_OVERHEAD_MS as usize)?;
        self.overhead = overhead;
        Ok(())
    }

    /// Sets `Ponder` (the GUI may send `go ponder`).
    ///
    /// # Errors
    /// A search is running.
    pub fn set_ponder(&mut self, on: bool) -> Result<(), OptionError> {
        self.idle()?;
        self.ponder = on;
        Ok(())
    }

    /// Sets `OwnBook`: whether game moves come from the book when it has one.
    ///
    /// # Errors
    /// A search is running.
    pub fn set_own_book(&mut self, on: bool) -> Result<(), OptionError> {
        self.idle()?;
        self.own_book = on;
        Ok(())
    }

    /// Sets the book (`BookFile`).
    ///
    /// # Errors
    /// The file cannot be read, or a search is running.
    pub fn set_book(&mut self, source: BookSource) -> Result<(), OptionError> {
        self.idle()?;
        self.book = match source {
            BookSource::Embedded => None,
            BookSource::None => Some(Arc::new(Book::default())),
            BookSource::File(p) => Some(Arc::new(Book::load(&p)?)),
        };
        Ok(())
    }

    /// Sets the evaluation from a weights file of `annex train`, or
    /// `embedded` / `simple` (`EvalFile`); the table is cleared.
    ///
    /// # Errors
    /// The file cannot be read, or a search is running.
    pub fn set_eval_file(&mut self, path: &str) -> Result<(), OptionError> {
        self.idle()?;
        self.evaluator = Evaluator::from_file(path)?;
        self.tt.clear_with(self.threads);
        Ok(())
    }
}

/// Most lines of a multi-PV search (the `MultiPV` option's maximum).
pub const MAX_MULTIPV: usize = 64;

/// What a successful [`Engine::set_option`] did that its caller may have
/// to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionEffect {
    /// The option is set.
    Done,
    /// A rule option changed the rule set: a game under the old rules may
    /// mean nothing now.
    RulesChanged,
}

/// Where the book comes from (`BookFile`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookSource {
    /// The book built into the binary.
    Embedded,
    /// No book.
    None,
    /// A file of `annex book build`.
    File(PathBuf),
}

impl BookSource {
    /// `embedded` (or `default`), `none` (or empty), else a file path.
    pub fn parse(s: &str) -> BookSource {
        match s.to_ascii_lowercase().as_str() {
            "embedded" | "default" => BookSource::Embedded,
            "none" | "" => BookSource::None,
            _ => BookSource::File(PathBuf::from(s)),
        }
    }
}

/// Why an option was refused. On any of them nothing changed.
#[derive(Debug, Error)]
pub enum OptionError {
    /// Options cannot change during a search.
    #[error("cannot change options while searching")]
    Searching,
    /// No option of that name.
    #[error("unknown option '{0}'")]
    Unknown(String),
    /// A value out of range or of the wrong form.
    #[error("invalid value '{value}' for option {name} (expected {expected})")]
    Invalid {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// What it may be.
        expected: String,
    },
    /// The search threads could not start.
    #[error("cannot start {threads} threads: {reason}")]
    Threads {
        /// How many were asked for.
        threads: usize,
        /// The system's reason.
        reason: String,
    },
    /// The table could not be allocated; the old one stays.
    #[error("{reason}; Hash stays {mb} MiB")]
    Hash {
        /// Why.
        reason: String,
        /// The size kept.
        mb: usize,
    },
    /// A rule option's value.
    #[error(transparent)]
    Rules(#[from] ParseRuleError),
    /// The book file.
    #[error(transparent)]
    Book(#[from] BookError),
    /// The evaluation file.
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// `Ok` when `v` is in `min..=max`.
fn in_range(name: &str, v: usize, min: usize, max: usize) -> Result<(), OptionError> {
    if (min..=max).contains(&v) {
        Ok(())
    } else {
        Err(OptionError::Invalid {
            name: name.to_string(),
            value: v.to_string(),
            expected: format!("{min} to {max}"),
        })
    }
}

/// Parses a check option's value.
fn parse_check(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Some(true),
        "false" | "off" | "0" => Some(false),
        _ => None,
    }
}
