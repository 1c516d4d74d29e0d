//! GGF (Generic Game Format, from GGS) game records, as NBoard sends them
//! in `set game`. See `protocol.md`, section "NBoard: set game".
//!
//! `(;GM[Othello]PC[..]PB[..]PW[..]RE[?]TI[15:00]TY[8]BO[8 <64 squares>
//! <*|O>]B[F5]W[F6/-1.5/2.3]…;)`: `BO` gives the start position (`*` =
//! X, `O` = O, `-` = empty; the side to move last), `B[…]`/`W[…]` the moves
//! with optional `/eval/seconds`, `TI` the clock. Passes are `PA` (or any
//! pass token) or may be left out; a record may end with a pass.
//!
//! `RU[start parallel flips one-line tie second scoring count]` names the
//! rule options of `RULES.md` the game was played under (options left out
//! keep their default; a record without `RU` is a plain Othello game). Under
//! `start free` the four placement plies are written with their real
//! movers, `B[..]B[..]W[..]W[..]`; under `flips one-line` a move that
//! brackets several lines carries its line, `B[c6:e]`.
//!
//! ```
//! use annex_core::record::ggf::parse;
//! use annex_core::rules::RuleSet;
//! let g = parse("(;GM[Othello]TI[5:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6/0.5/1.5];)", RuleSet::default()).unwrap();
//! assert_eq!(g.game.transcript(), "f5f6");
//! assert_eq!(g.clock.unwrap().main.as_secs(), 300);
//! ```

use super::game::Game;
use crate::board::Color;
use crate::moves::{Move, MoveError};
use crate::position::{Position, parse_side};
use crate::rules::{ParseRuleError, RuleSet};
use std::time::Duration;

/// A game clock: main time and increment per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Clock {
    /// Main time of each player.
    pub main: Duration,
    /// Added after each move.
    pub inc: Duration,
}

/// A parsed record.
#[derive(Clone, Debug)]
pub struct Ggf {
    /// Start position and moves (passes inserted where left out).
    pub game: Game,
    /// `TI`, if given.
    pub clock: Option<Clock>,
    /// Time used so far by X and O (sum of the move times).
    pub used: [Duration; 2],
    /// The rules of `RU[…]`, if the record names them (the game is
    /// replayed under them).
    pub ru: Option<RuleSet>,
}

/// Why a record is rejected; names the offending part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfError {
    /// No `(;` … `;)` around the record, or an unclosed `[`.
    #[error("GGF syntax: {0}")]
    Syntax(String),
    /// `GM` is not Othello or `TY` not an 8×8 game we play.
    #[error("GGF game not supported: {0}")]
    Unsupported(String),
    /// A malformed `BO`.
    #[error("GGF board BO[{0}] is invalid")]
    Board(String),
    /// A malformed `TI`.
    #[error("GGF time TI[{0}] is invalid")]
    Time(String),
    /// An `RU` that is not option/value pairs, or rules other than the
    /// ones in force.
    #[error("GGF rules: {0}")]
    Rules(String),
    /// An `RU` pair with a bad option or value.
    #[error("GGF rules: RU[{ru}]: {source}")]
    RuleValue {
        /// The whole `RU` value.
        ru: String,
        /// What is wrong with the pair.
        source: ParseRuleError,
    },
    /// A move that is malformed or illegal (1-based ply).
    #[error("GGF move {ply} '{text}': {source}")]
    Move {
        /// Ply in the record.
        ply: usize,
        /// The move as written.
        text: String,
        /// Why.
        source: MoveError,
    },
    /// A move whose time is not a number of seconds (1-based ply).
    #[error("GGF move {ply} '{text}': bad time")]
    MoveTime {
        /// Ply in the record.
        ply: usize,
        /// The move as written.
        text: String,
    },
}

/// `[[h:]m:]s` (seconds may have a fraction).
fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    if s.is_empty() {
        return Some(Duration::ZERO);
    }
    let mut secs = 0f64;
    for part in s.split(':') {
        let v: f64 = part.trim().parse().ok()?;
        if !(v >= 0.0 && v.is_finite()) {
            return None;
        }
        secs = secs * 60.0 + v;
    }
    (secs < 1e9).then(|| Duration::from_secs_f64(secs))
}

/// `TI[main[/inc[/extension]]]`, GGS style (`//` leaves the increment 0).
fn parse_clock(s: &str) -> Result<Clock, GgfError> {
    let mut parts = s.split('/');
    let bad = || GgfError::Time(s.to_string());
    let main = parse_duration(parts.next().unwrap_or("")).ok_or_else(bad)?;
    let inc = parse_duration(parts.next().unwrap_or("")).ok_or_else(bad)?;
    Ok(Clock { main, inc })
}

fn parse_board(v: &str) -> Result<Position, GgfError> {
    let bad = || GgfError::Board(v.to_string());
    let mut words = v.split_whitespace();
    if words.next() != Some("8") {
        return Err(bad());
    }
    let squares = words.next().ok_or_else(bad)?;
    let side = parse_side(words.next().ok_or_else(bad)?).map_err(|_| bad())?;
    if words.next().is_some() {
        return Err(bad());
    }
    let pos = Position::parse_board(squares, side).map_err(|_| bad())?;
    if !pos.board.is_valid() {
        return Err(bad());
    }
    Ok(pos)
}

/// `RU[start parallel flips one-line …]`: option names and values in
/// pairs, any order, the others at their defaults.
fn parse_rules(v: &str) -> Result<RuleSet, GgfError> {
    let words: Vec<&str> = v.split_whitespace().collect();
    if !words.len().is_multiple_of(2) {
        return Err(GgfError::Rules(format!(
            "RU[{v}] is not option/value pairs"
        )));
    }
    let mut rules = RuleSet::default();
    for pair in words.chunks(2) {
        rules
            .set(pair[0], pair[1])
            .map_err(|source| GgfError::RuleValue {
                ru: v.to_string(),
                source,
            })?;
    }
    Ok(rules)
}

/// The `KEY[value]` pairs of a record, in order.
fn properties(text: &str) -> Result<Vec<(String, String)>, GgfError> {
    let t = text.trim();
    let start = t
        .find("(;")
        .ok_or_else(|| GgfError::Syntax("missing '(;'".into()))?;
    let end = t
        .rfind(";)")
        .filter(|&e| e >= start + 2)
        .ok_or_else(|| GgfError::Syntax("missing ';)'".into()))?;
    let body = &t[start + 2..end];
    let mut out = Vec::new();
    let mut chars = body.char_indices().peekable();
    let mut key = String::new();
    while let Some((i, c)) = chars.next() {
        if c == '[' {
            let close = body[i + 1..]
                .find(']')
                .ok_or_else(|| GgfError::Syntax(format!("unclosed '[' after {key}")))?;
            let value = &body[i + 1..i + 1 + close];
            if key.is_empty() {
                return Err(GgfError::Syntax(format!("value [{value}] without a key")));
            }
            out.push((std::mem::take(&mut key), value.to_string()));
            while chars.peek().is_some_and(|&(j, _)| j <= i + 1 + close) {
                chars.next();
            }
        } else if c.is_ascii_alphanumeric() {
            key.push(c.to_ascii_uppercase());
        } else if !c.is_whitespace() {
            return Err(GgfError::Syntax(format!("unexpected '{c}'")));
        }
    }
    if !key.is_empty() {
        return Err(GgfError::Syntax(format!("key {key} without a value")));
    }
    Ok(out)
}

/// Parses a record and replays it under `rules`, the rules in force (an
/// NBoard engine's): a record whose `RU[…]` names other rules is refused.
///
/// # Errors
/// See [`GgfError`].
pub fn parse(text: &str, rules: RuleSet) -> Result<Ggf, GgfError> {
    replay(text, rules, true)
}

/// Parses a record and replays it under its own rules: those of `RU[…]`
/// when given, else `default` (plain Othello for a record from elsewhere).
///
/// # Errors
/// See [`GgfError`].
pub fn parse_with_rules(text: &str, default: RuleSet) -> Result<Ggf, GgfError> {
    replay(text, default, false)
}

/// Reads a record and replays it under `RU[…]` or `rules`; `strict`: a
/// record whose `RU[…]` differs from `rules` is refused.
fn replay(text: &str, rules: RuleSet, strict: bool) -> Result<Ggf, GgfError> {
    let props = properties(text)?;
    let mut start = None;
    let mut clock = None;
    let mut ru = None;
    let mut moves: Vec<(Color, String)> = Vec::new();
    for (k, v) in &props {
        match k.as_str() {
            "GM" if !v.trim().eq_ignore_ascii_case("othello") => {
                return Err(GgfError::Unsupported(format!("GM[{v}]")));
            }
            "TY" => {
                let t = v.trim().to_ascii_lowercase();
                let digits: String = t
                    .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                // `a` = anti-Othello, `d` = ...: only plain 8×8 (with
                // optional s/r/k modifiers of the start) is played here.
                if digits != "8" || t.contains('a') {
                    return Err(GgfError::Unsupported(format!("TY[{v}]")));
                }
            }
            "BO" => start = Some(parse_board(v)?),
            "TI" => clock = Some(parse_clock(v)?),
            "RU" => ru = Some(parse_rules(v)?),
            "B" => moves.push((Color::Black, v.clone())),
            "W" => moves.push((Color::White, v.clone())),
            _ => {}
        }
    }
    if let Some(ru) = ru
        && strict
        && ru != rules
    {
        return Err(GgfError::Rules(format!(
            "the record is played under {ru}, not under the rules in force ({rules})"
        )));
    }
    let rules = ru.unwrap_or(rules);
    let start = start.unwrap_or_else(|| Position::start(&rules));
    let mut game = Game::from_position(start, rules);
    let mut used = [Duration::ZERO; 2];
    for (ply, (color, text)) in moves.iter().enumerate() {
        let err = |source: MoveError| GgfError::Move {
            ply: ply + 1,
            text: text.clone(),
            source,
        };
        let mut fields = text.split('/');
        let mv: Move = fields.next().unwrap_or("").trim().parse().map_err(err)?;
        let _eval = fields.next();
        if let Some(t) = fields.next() {
            let t = parse_duration(t).ok_or_else(|| GgfError::MoveTime {
                ply: ply + 1,
                text: text.clone(),
            })?;
            used[*color as usize] += t;
        }
        game.play_for(*color, mv).map_err(err)?;
    }
    Ok(Ggf {
        game,
        clock,
        used,
        ru,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

    #[test]
    fn passes_written_or_left_out() {
        let r = RuleSet::default();
        // O on a1, X on b1, X to move must pass; O plays c1; game over.
        let bo = format!("BO[8 O*{} *]", "-".repeat(62));
        let with = parse(&format!("(;GM[Othello]{bo}B[PA]W[C1];)"), r).unwrap();
        let without = parse(&format!("(;GM[Othello]{bo}W[c1];)"), r).unwrap();
        assert_eq!(with.game.moves(), without.game.moves());
        assert!(with.game.is_over());
        // A record that ends with a pass: O to move after X passes.
        let ends = parse(&format!("(;GM[Othello]{bo}B[pass];)"), r).unwrap();
        assert_eq!(ends.game.current().side, Color::White);
    }

    #[test]
    fn rejects_bad_records() {
        let r = RuleSet::default();
        for bad in [
            "GM[Othello]",
            "(;GM[Chess];)",
            &format!("(;TY[8]{START}B[A1];)"),
            &format!("(;TY[10]{START};)"),
            &format!("(;TY[a8]{START};)"),
            "(;BO[8 --- *];)",
            &format!("(;{START}B[F5/1/x];)"),
            &format!("(;{START}TI[soon];)"),
            &format!("(;{START}B[F5;)"),
        ] {
            assert!(parse(bad, r).is_err(), "{bad}");
        }
    }

    #[test]
    fn rules_of_the_record() {
        let text = format!("(;GM[Othello]RU[tie second flips one-line]{START}B[f5];)");
        let g = parse_with_rules(&text, RuleSet::default()).unwrap();
        let mut want = RuleSet::default();
        want.set("tie", "second").unwrap();
        want.set("flips", "one-line").unwrap();
        assert_eq!((g.ru, g.game.rules()), (Some(want), want));
        // Under the rules in force: the same rules only.
        assert!(parse(&text, want).is_ok());
        let e = parse(&text, RuleSet::default()).unwrap_err().to_string();
        assert!(e.contains("tie second"), "{e}");
        // Without RU: the default given.
        let plain = format!("(;GM[Othello]{START}B[f5];)");
        assert_eq!(parse_with_rules(&plain, want).unwrap().game.rules(), want);
        let e = parse_with_rules(&format!("(;RU[tie]{START};)"), RuleSet::default());
        assert!(matches!(e, Err(GgfError::Rules(_))), "{e:?}");
        for bad in ["RU[tie maybe]", "RU[colour red]"] {
            let e = parse_with_rules(&format!("(;{bad}{START};)"), RuleSet::default());
            let Err(GgfError::RuleValue { ru, source }) = &e else {
                panic!("{bad}: {e:?}");
            };
            assert_eq!(format!("RU[{ru}]"), bad);
            let msg = e.as_ref().unwrap_err().to_string();
            assert_eq!(msg, format!("GGF rules: {bad}: {source}"));
        }
        // A bad move names its ply and why, from the move's own error.
        let e = parse(&format!("(;{START}B[f5]W[f5];)"), RuleSet::default()).unwrap_err();
        assert!(
            matches!(&e, GgfError::Move { ply: 2, text, .. } if text == "f5"),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("GGF move 2 'f5': "), "{e}");
    }

    #[test]
    fn clock_and_used_time() {
        let g = parse(
            &format!("(;TI[1:00:00/5]{START}B[f5//2.5]W[f6/0.1/1.5]B[e6/-/1];)"),
            RuleSet::default(),
        )
        .unwrap();
        let c = g.clock.unwrap();
        assert_eq!(c.main, Duration::from_secs(3600));
        assert_eq!(c.inc, Duration::from_secs(5));
        assert_eq!(g.used[0], Duration::from_secs_f64(3.5));
        assert_eq!(g.used[1], Duration::from_secs_f64(1.5));
    }
}
