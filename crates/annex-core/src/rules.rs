//! The rule options of `RULES.md`: `start`, `flips`, `tie`, `scoring`.
//!
//! The default of every option is the modern tournament (Othello) rule.
//!
//! ```
//! use annex_core::rules::{RuleSet, Flips};
//! let mut r = RuleSet::default();
//! r.set("flips", "one-line").unwrap();
//! assert_eq!(r.flips, Flips::OneLine);
//! assert_eq!(r.to_string(), "start diagonal flips one-line tie draw scoring wof");
//! ```

use std::fmt;
use std::str::FromStr;

/// The initial position.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Start {
    /// d4,e5 = O; d5,e4 = X (Othello).
    #[default]
    Diagonal,
    /// d4,e4 = O; d5,e5 = X.
    Parallel,
    /// Empty centre; four placement plies X, X, O, O.
    Free,
}

/// Which bracketed lines turn.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Flips {
    /// Every bracketed line turns.
    #[default]
    All,
    /// The mover turns one bracketed line of their choice.
    OneLine,
}

/// Who wins equal discs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Tie {
    /// Equal discs is a draw.
    #[default]
    Draw,
    /// Equal discs is a win for the second player (O).
    Second,
}

/// How the final disc difference is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Scoring {
    /// Empty squares go to the winner (WOF; Edax, FFO scores).
    #[default]
    Wof,
    /// Only discs on the board count.
    Count,
}

macro_rules! option_enum {
    ($ty:ident, $opt:literal, $( $var:ident => $name:literal ),+ ) => {
        impl $ty {
            /// Every value, default first.
            pub const ALL: &'static [$ty] = &[$($ty::$var),+];
            /// The name used in `RULES.md` and the protocols.
            pub const fn name(self) -> &'static str {
                match self { $($ty::$var => $name),+ }
            }
        }
        impl FromStr for $ty {
            type Err = ParseRuleError;
            fn from_str(s: &str) -> Result<$ty, ParseRuleError> {
                let l = s.trim().to_ascii_lowercase();
                $( if l == $name { return Ok($ty::$var); } )+
                Err(ParseRuleError::BadValue { option: $opt, value: s.to_string(),
                    expected: concat!($($name, " "),+) })
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
    };
}

option_enum!(Start, "start", Diagonal => "diagonal", Parallel => "parallel", Free => "free");
option_enum!(Flips, "flips", All => "all", OneLine => "one-line");
option_enum!(Tie, "tie", Draw => "draw", Second => "second");
option_enum!(Scoring, "scoring", Wof => "wof", Count => "count");

/// Error from setting a rule option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseRuleError {
    /// No option of that name.
    UnknownOption(String),
    /// A value the option does not take.
    BadValue {
        /// Option name.
        option: &'static str,
        /// The offending value.
        value: String,
        /// The values it takes, space separated.
        expected: &'static str,
    },
}

impl fmt::Display for ParseRuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseRuleError::UnknownOption(o) => write!(
                f,
                "unknown rule option '{o}' (expected start, flips, tie or scoring)"
            ),
            ParseRuleError::BadValue {
                option,
                value,
                expected,
            } => write!(
                f,
                "invalid value '{value}' for rule option {option} (expected one of: {})",
                expected.trim_end()
            ),
        }
    }
}

impl std::error::Error for ParseRuleError {}

/// Which move generation and search kernels a rule set allows. Decided
/// once, by [`RuleSet::fast_path`], for move generation, perft and the
/// search (which also leave the fast path during the placement plies of
/// `start free`: see `moves::fast_path`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FastPath {
    /// Flips all: a move is a square that turns every bracketed line, so
    /// the bitboard kernels apply (legal-move masks, perft's bulk counting,
    /// the endgame solver and its selective passes).
    Bitboard,
    /// Flips one-line: a move is a square and the line it turns; only the
    /// general move list and search apply.
    General,
}

/// A full set of rule options.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct RuleSet {
    /// Initial position.
    pub start: Start,
    /// Which lines turn.
    pub flips: Flips,
    /// Tie rule.
    pub tie: Tie,
    /// Final scoring.
    pub scoring: Scoring,
}

impl RuleSet {
    /// Sets option `name` (case-insensitive) to `value`. On error nothing changes.
    ///
    /// # Errors
    /// Unknown option or invalid value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ParseRuleError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "start" => self.start = value.parse()?,
            "flips" => self.flips = value.parse()?,
            "tie" => self.tie = value.parse()?,
            "scoring" => self.scoring = value.parse()?,
            _ => return Err(ParseRuleError::UnknownOption(name.to_string())),
        }
        Ok(())
    }

    /// Which fast path these rules allow (the one place that decides it).
    pub const fn fast_path(&self) -> FastPath {
        match self.flips {
            Flips::All => FastPath::Bitboard,
            Flips::OneLine => FastPath::General,
        }
    }

    /// Whether this is the plain Othello rule set.
    pub fn is_default(&self) -> bool {
        *self == RuleSet::default()
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "start {} flips {} tie {} scoring {}",
            self.start, self.flips, self.tie, self.scoring
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_errors() {
        let mut r = RuleSet::default();
        assert!(r.is_default());
        r.set("Tie", "SECOND").unwrap();
        assert_eq!(r.tie, Tie::Second);
        let before = r;
        assert!(r.set("tie", "maybe").is_err());
        assert!(r.set("colour", "red").is_err());
        assert_eq!(r, before);
        for s in Start::ALL {
            assert_eq!(s.name().parse::<Start>().unwrap(), *s);
        }
        assert_eq!(RuleSet::default().fast_path(), FastPath::Bitboard);
        r.set("flips", "one-line").unwrap();
        assert_eq!(r.fast_path(), FastPath::General);
        let e = r.set("scoring", "x").unwrap_err().to_string();
        assert!(e.contains("'x'") && e.contains("wof"), "{e}");
    }
}
