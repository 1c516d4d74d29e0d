//! The engine's options, each declared once in [`OPTIONS`]: its name, its
//! kind with the default and the range or the choices, and how it applies
//! to the engine. Every front end reads this table: the UCI-style `uci`
//! listing and `setoption`, NBoard's `set option`, GTP's
//! `annex-setoption`, `annex --option` (all through
//! [`Engine::set_option`]) and the tools' flags (their ranges).
//!
//! One path sets an option: [`Engine::set_option`] parses the text by the
//! option's kind, the typed setters (`set_threads`, `set_hash`, …) give a
//! value, and both end in one place that refuses it while a search runs,
//! checks the range and applies it.

use super::Engine;
use crate::book::{Book, BookError};
use crate::eval::{EvalError, Evaluator};
use crate::record::game::Game;
use crate::rules::{Flips, ParseRuleError, RuleSet, Scoring, Start, Tie};
use crate::search::time::DEFAULT_OVERHEAD_MS;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// The type of an option, with its default and what it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Spin {
        /// The default value.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `true` or `false` (also `on`/`off`, `1`/`0`).
    Check {
        /// The default value.
        default: bool,
    },
    /// Free text.
    String {
        /// The default value.
        default: &'static str,
    },
    /// One of `vars`, the first of which is the default.
    Combo {
        /// The values, default first.
        vars: &'static [&'static str],
    },
}

/// How an option changes the engine, given a value of its kind (the
/// range already checked).
#[derive(Clone, Copy)]
enum Apply {
    Int(fn(&mut Engine, i64) -> Result<(), OptionError>),
    Bool(fn(&mut Engine, bool) -> Result<(), OptionError>),
    Text(fn(&mut Engine, &str) -> Result<(), OptionError>),
}

/// A value for an option, of its kind.
#[derive(Clone, Copy, Debug)]
enum Value<'a> {
    Int(i64),
    Bool(bool),
    Text(&'a str),
}

/// An engine option: its name, its kind (default, range or choices) and
/// how it applies. The constructors pair a kind with an apply function of
/// its value type, so the two always agree.
#[derive(Clone, Copy)]
pub struct OptionSpec {
    /// The name (matched case-insensitively).
    pub name: &'static str,
    /// The type, default and accepted values.
    pub kind: OptionKind,
    apply: Apply,
}

impl std::fmt::Debug for OptionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OptionSpec")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// The names of a rule option's values, default first: from the type's
/// `ALL`, so that a new value is listed without writing it here.
macro_rules! names {
    ($t:ty) => {{
        const N: usize = <$t>::ALL.len();
        const NAMES: [&str; N] = {
            let mut a = [""; N];
            let mut i = 0;
            while i < N {
                a[i] = <$t>::ALL[i].name();
                i += 1;
            }
            a
        };
        &NAMES
    }};
}

/// `Threads`: search threads.
pub const THREADS: OptionSpec = OptionSpec::spin("Threads", 1, 1, 256, |e, n| {
    let n = n as usize;
    if n != e.threads {
        e.pool = build_pool(n)?;
        e.threads = n;
    }
    Ok(())
});

/// `Hash`: the table's size in MiB, allocated when set.
pub const HASH: OptionSpec = OptionSpec::spin("Hash", 64, 1, 1 << 16, |e, mb| {
    let mb = mb as usize;
    if e.tt.size_bytes() != mb << 20 {
        e.resize_table(mb).map_err(|source| OptionError::Hash {
            source,
            mb: e.hash_mb.max(1),
        })?;
    }
    e.hash_mb = mb;
    Ok(())
});

/// `MultiPV`: the default number of principal variations.
pub const MULTIPV: OptionSpec = OptionSpec::spin("MultiPV", 1, 1, 64, |e, n| {
    e.multipv = n as usize;
    Ok(())
});

/// `Ponder`: the GUI may send `go ponder`.
pub const PONDER: OptionSpec = OptionSpec::check("Ponder", false, |e, on| {
    e.ponder = on;
    Ok(())
});

/// `OwnBook`: game moves come from the book when it has one.
pub const OWN_BOOK: OptionSpec = OptionSpec::check("OwnBook", true, |e, on| {
    e.own_book = on;
    Ok(())
});

/// `BookFile`: the book (see [`BookSource::parse`]).
pub const BOOK_FILE: OptionSpec = OptionSpec::string("BookFile", "embedded", |e, v| {
    e.book = match BookSource::parse(v) {
        BookSource::Embedded => None,
        BookSource::None => Some(Arc::new(Book::default())),
        BookSource::File(p) => Some(Arc::new(Book::load(&p)?)),
    };
    Ok(())
});

/// `EvalFile`: weights of `annex train`, or `embedded` / `simple`; the
/// table is cleared.
pub const EVAL_FILE: OptionSpec = OptionSpec::string("EvalFile", "embedded", |e, v| {
    e.evaluator = Evaluator::from_file(v)?;
    e.tt.clear_with(e.threads);
    Ok(())
});

/// `Start`: rule option `start` of `RULES.md`.
pub const START: OptionSpec = OptionSpec::combo("Start", names!(Start), |e, v| {
    let rules = RuleSet {
        start: v.parse()?,
        ..e.rules()
    };
    e.apply_rules(rules).map(drop)
});

/// `Flips`: rule option `flips`.
pub const FLIPS: OptionSpec = OptionSpec::combo("Flips", names!(Flips), |e, v| {
    let rules = RuleSet {
        flips: v.parse()?,
        ..e.rules()
    };
    e.apply_rules(rules).map(drop)
});

/// `Tie`: rule option `tie`.
pub const TIE: OptionSpec = OptionSpec::combo("Tie", names!(Tie), |e, v| {
    let rules = RuleSet {
        tie: v.parse()?,
        ..e.rules()
    };
    e.apply_rules(rules).map(drop)
});

/// `Scoring`: rule option `scoring`.
pub const SCORING: OptionSpec = OptionSpec::combo("Scoring", names!(Scoring), |e, v| {
    let rules = RuleSet {
        scoring: v.parse()?,
        ..e.rules()
    };
    e.apply_rules(rules).map(drop)
});

/// `Move Overhead`: milliseconds lost per move outside the search.
pub const MOVE_OVERHEAD: OptionSpec = OptionSpec::spin(
    "Move Overhead",
    DEFAULT_OVERHEAD_MS as i64,
    0,
    10_000,
    |e, ms| {
        e.overhead = Duration::from_millis(ms as u64);
        Ok(())
    },
);

/// Every engine option, in the order `uci` lists them.
pub const OPTIONS: &[OptionSpec] = &[
    THREADS,
    HASH,
    MULTIPV,
    PONDER,
    OWN_BOOK,
    BOOK_FILE,
    EVAL_FILE,
    START,
    FLIPS,
    TIE,
    SCORING,
    MOVE_OVERHEAD,
];

impl OptionSpec {
    const fn spin(
        name: &'static str,
        default: i64,
        min: i64,
        max: i64,
        apply: fn(&mut Engine, i64) -> Result<(), OptionError>,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Spin { default, min, max },
            apply: Apply::Int(apply),
        }
    }

    const fn check(
        name: &'static str,
        default: bool,
        apply: fn(&mut Engine, bool) -> Result<(), OptionError>,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Check { default },
            apply: Apply::Bool(apply),
        }
    }

    const fn string(
        name: &'static str,
        default: &'static str,
        apply: fn(&mut Engine, &str) -> Result<(), OptionError>,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::String { default },
            apply: Apply::Text(apply),
        }
    }

    /// A combo whose value the apply function parses: the type behind it
    /// (a rule option's `FromStr`) checks the choice, with its own error.
    const fn combo(
        name: &'static str,
        vars: &'static [&'static str],
        apply: fn(&mut Engine, &str) -> Result<(), OptionError>,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Combo { vars },
            apply: Apply::Text(apply),
        }
    }

    /// The option named `name` (case-insensitive, blanks around it ignored).
    pub fn find(name: &str) -> Option<&'static OptionSpec> {
        let name = name.trim();
        OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// The least and greatest value of a spin option (`None` for the
    /// other kinds).
    pub const fn range(&self) -> Option<(i64, i64)> {
        match self.kind {
            OptionKind::Spin { min, max, .. } => Some((min, max)),
            _ => None,
        }
    }

    /// The greatest value of a spin option (0 for the other kinds).
    pub const fn max(&self) -> i64 {
        match self.kind {
            OptionKind::Spin { max, .. } => max,
            _ => 0,
        }
    }

    /// The default value of a spin option (0 for the other kinds).
    pub const fn default_int(&self) -> i64 {
        match self.kind {
            OptionKind::Spin { default, .. } => default,
            _ => 0,
        }
    }

    /// The default value as the protocols write it.
    pub fn default_text(&self) -> String {
        match self.kind {
            OptionKind::Spin { default, .. } => default.to_string(),
            OptionKind::Check { default } => default.to_string(),
            OptionKind::String { default } => default.to_string(),
            OptionKind::Combo { vars } => vars.first().copied().unwrap_or_default().to_string(),
        }
    }

    /// What a value may be, as an error says it.
    fn expected(&self) -> String {
        match self.kind {
            OptionKind::Spin { min, max, .. } => format!("{min} to {max}"),
            OptionKind::Check { .. } => "true or false".into(),
            OptionKind::String { .. } => "text".into(),
            OptionKind::Combo { vars } => format!("one of: {}", vars.join(" ")),
        }
    }

    /// The error for `value` given to this option, called `shown` by the
    /// user.
    fn invalid(&self, shown: &str, value: &str) -> OptionError {
        OptionError::Invalid {
            name: shown.to_string(),
            value: value.to_string(),
            expected: self.expected(),
        }
    }

    /// `text` as a value of this option's kind.
    fn parse<'a>(&self, shown: &str, text: &'a str) -> Result<Value<'a>, OptionError> {
        match self.apply {
            Apply::Int(_) => text.parse().map(Value::Int).ok(),
            Apply::Bool(_) => parse_check(text).map(Value::Bool),
            Apply::Text(_) => Some(Value::Text(text)),
        }
        .ok_or_else(|| self.invalid(shown, text))
    }

    /// Checks `v` against the range and applies it: the one place that
    /// does, for the text and the typed setters alike.
    fn apply(&self, e: &mut Engine, shown: &str, v: Value<'_>) -> Result<(), OptionError> {
        match (self.apply, v) {
            (Apply::Int(f), Value::Int(n)) => match self.range() {
                Some((min, max)) if !(min..=max).contains(&n) => {
                    Err(self.invalid(shown, &n.to_string()))
                }
                _ => f(e, n),
            },
            (Apply::Bool(f), Value::Bool(b)) => f(e, b),
            (Apply::Text(f), Value::Text(t)) => f(e, t),
            (_, v) => Err(self.invalid(shown, &format!("{v:?}"))),
        }
    }
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
    /// The options [`Engine::set_option`] accepts, in the order `uci`
    /// lists them.
    pub fn option_specs() -> &'static [OptionSpec] {
        OPTIONS
    }

    /// Sets option `name` (case-insensitive) from its text: the protocols'
    /// and `--option`'s way in. On error nothing changes.
    ///
    /// # Errors
    /// Unknown option, invalid value, or a search is running.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        self.idle()?;
        let spec = OptionSpec::find(name).ok_or_else(|| OptionError::Unknown(name.to_string()))?;
        let v = spec.parse(name, value.trim())?;
        spec.apply(self, name, v)
    }

    /// Sets `spec` to `v` (the typed setters' way in).
    fn set(&mut self, spec: &OptionSpec, v: Value<'_>) -> Result<(), OptionError> {
        self.idle()?;
        spec.apply(self, spec.name, v)
    }

    /// Errs while a search runs: the one check of it for every option.
    /// A search whose result is out (its BestMove sent, its controller
    /// thread ending) no longer counts: the thread is let end.
    fn idle(&mut self) -> Result<(), OptionError> {
        let result_out = self
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if self.is_searching() && !result_out {
            return Err(OptionError::Searching);
        }
        self.wait();
        Ok(())
    }

    /// Sets the rule set; returns whether it changed. A change starts a
    /// new game at the start position of the new rules (the old moves may
    /// mean nothing under them) and clears the table.
    ///
    /// # Errors
    /// A search is running.
    pub fn set_rules(&mut self, rules: RuleSet) -> Result<bool, OptionError> {
        self.idle()?;
        self.apply_rules(rules)
    }

    /// [`Engine::set_rules`] without the search check.
    pub(super) fn apply_rules(&mut self, rules: RuleSet) -> Result<bool, OptionError> {
        if rules == self.rules() {
            return Ok(false);
        }
        self.game = Game::new(rules);
        self.tt.clear_with(self.threads);
        Ok(true)
    }

    /// Sets the number of search threads ([`THREADS`]).
    ///
    /// # Errors
    /// Out of range, the threads cannot start, or a search is running.
    pub fn set_threads(&mut self, n: usize) -> Result<(), OptionError> {
        self.set(&THREADS, Value::Int(i64::try_from(n).unwrap_or(i64::MAX)))
    }

    /// Sets the table size in MiB ([`HASH`]) and allocates it.
    ///
    /// # Errors
    /// Out of range, the memory cannot be had (the old table stays), or a
    /// search is running.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), OptionError> {
        self.set(&HASH, Value::Int(i64::try_from(mb).unwrap_or(i64::MAX)))
    }

    /// Sets the time lost per move outside the search ([`MOVE_OVERHEAD`]).
    ///
    /// # Errors
    /// Out of range, or a search is running.
    pub fn set_move_overhead(&mut self, overhead: Duration) -> Result<(), OptionError> {
        let ms = i64::try_from(overhead.as_millis()).unwrap_or(i64::MAX);
        self.set(&MOVE_OVERHEAD, Value::Int(ms))
    }

    /// Sets [`OWN_BOOK`]: whether game moves come from the book.
    ///
    /// # Errors
    /// A search is running.
    pub fn set_own_book(&mut self, on: bool) -> Result<(), OptionError> {
        self.set(&OWN_BOOK, Value::Bool(on))
    }

    /// Sets the evaluation ([`EVAL_FILE`]): a weights file of `annex
    /// train`, or `embedded` / `simple`; the table is cleared.
    ///
    /// # Errors
    /// The file cannot be read, or a search is running.
    pub fn set_eval_file(&mut self, path: &str) -> Result<(), OptionError> {
        self.set(&EVAL_FILE, Value::Text(path))
    }
}

/// Largest `Threads`.
pub const MAX_THREADS: usize = THREADS.max() as usize;
/// Largest `Hash` in MiB.
pub const MAX_HASH_MB: usize = HASH.max() as usize;
/// Default `Hash` in MiB.
pub const DEFAULT_HASH_MB: usize = HASH.default_int() as usize;
/// Most lines of a multi-PV search (the `MultiPV` option's maximum).
pub const MAX_MULTIPV: usize = MULTIPV.max() as usize;
/// Largest `Move Overhead` in milliseconds.
pub const MAX_OVERHEAD_MS: u64 = MOVE_OVERHEAD.max() as u64;

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
    #[error("{source}; Hash stays {mb} MiB")]
    Hash {
        /// Why.
        source: super::TableError,
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

/// Parses a check option's value.
fn parse_check(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Some(true),
        "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::unbounded;

    /// Every option takes its own default, by name in any case, and the
    /// names are unique.
    #[test]
    fn every_option_takes_its_default() {
        let (tx, _rx) = unbounded();
        let mut e = Engine::new(tx);
        for (i, o) in OPTIONS.iter().enumerate() {
            assert!(
                OPTIONS[..i]
                    .iter()
                    .all(|p| !p.name.eq_ignore_ascii_case(o.name))
            );
            let found = OptionSpec::find(&o.name.to_ascii_uppercase()).unwrap();
            assert_eq!(found.name, o.name);
            if o.name != "Hash" {
                e.set_option(o.name, &o.default_text()).unwrap();
            }
        }
        assert!(e.rules().is_default());
    }

    /// The rule options list the values of their types, default first.
    #[test]
    fn combos_come_from_the_types() {
        assert_eq!(
            START.kind,
            OptionKind::Combo {
                vars: &["diagonal", "parallel", "free"]
            }
        );
        assert_eq!(TIE.default_text(), Tie::default().name());
        assert_eq!(FLIPS.default_text(), Flips::default().name());
        assert_eq!(SCORING.default_text(), Scoring::default().name());
        assert_eq!(START.default_text(), Start::default().name());
    }

    /// The range is checked on both ways in, with the same error.
    #[test]
    fn ranges_are_checked_once_for_both_ways_in() {
        let (tx, _rx) = unbounded();
        let mut e = Engine::new(tx);
        let text = e.set_option("threads", "0").unwrap_err().to_string();
        assert_eq!(
            text,
            "invalid value '0' for option threads (expected 1 to 256)"
        );
        let typed = e.set_threads(0).unwrap_err().to_string();
        assert_eq!(
            typed,
            "invalid value '0' for option Threads (expected 1 to 256)"
        );
        assert!(e.set_option("Hash", "lots").is_err());
        assert!(e.set_option("Ponder", "maybe").is_err());
        assert_eq!(MAX_HASH_MB, 65536);
        assert_eq!(DEFAULT_HASH_MB, 64);
    }
}
