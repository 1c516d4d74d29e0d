//! Formatting of replies: `info` lines, scores, the board diagram. Pure
//! functions from engine results to text; only the protocol loop prints.
//! See `protocol.md`, sections "info" and "Scores".

use annex_core::board::Color;
use annex_core::moves::Move;
use annex_core::position::Position;
use annex_core::rules::RuleSet;
use annex_core::search::{Bound, Info};
use annex_core::square::Square;
use std::fmt::Write as _;

/// How a score is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreStyle {
    /// `score disc <n>` (the UCI-style protocol).
    Disc,
    /// `score cp <100 n>` (UGI: tournament runners parse centi-units).
    Cp,
}

/// The `score …` part of an `info` line: `score disc <n>`, then `exact`
/// or `wld` when proven, `lowerbound`/`upperbound` after an aspiration
/// fail, and `tie win|loss` when the tie=second rule decides a 0.
pub fn score_tokens(
    score: i32,
    tie: Option<bool>,
    bound: Bound,
    exact: bool,
    wld: bool,
    style: ScoreStyle,
) -> String {
    let mut s = match style {
        ScoreStyle::Disc => format!("score disc {score}"),
        ScoreStyle::Cp => format!("score cp {}", score.saturating_mul(100)),
    };
    if exact {
        s.push_str(" exact");
    } else if wld {
        s.push_str(" wld");
    }
    match bound {
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
        Bound::Exact => {}
    }
    if score == 0 {
        match tie {
            Some(true) => s.push_str(" tie win"),
            Some(false) => s.push_str(" tie loss"),
            None => {}
        }
    }
    s
}

/// Moves separated by spaces.
pub fn move_list(moves: &[Move]) -> String {
    let mut s = String::new();
    for (i, m) in moves.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{m}");
    }
    s
}

/// One `info` line for a search iteration.
pub fn info_line(i: &Info, style: ScoreStyle) -> String {
    let mut s = format!("info depth {}", i.depth);
    if let Some(sel) = i.selectivity {
        let _ = write!(s, " selectivity {sel}");
    }
    let _ = write!(
        s,
        " multipv {} {} nodes {} nps {} time {} hashfull {}",
        i.multipv.max(1),
        score_tokens(i.score, i.tie, i.bound, i.exact, i.wld, style),
        i.nodes,
        i.nps,
        i.time.as_millis(),
        i.hashfull
    );
    if !i.pv.is_empty() {
        let _ = write!(s, " pv {}", move_list(&i.pv));
    }
    s
}

/// The board as text: a header, eight rows (`X`, `O`, `.`; `*` marks a
/// legal move of the side to move), a footer, then facts lines.
pub fn board_diagram(pos: &Position, rules: &RuleSet, moves: &[Move]) -> Vec<String> {
    let legal = pos.legal_moves(rules);
    let mut marks = 0u64;
    for m in legal.iter() {
        if let Some(sq) = m.to_square() {
            marks |= sq.bit();
        }
    }
    let mut out = vec!["  a b c d e f g h".to_string()];
    for row in 0..8u8 {
        let mut line = format!("{}", row + 1);
        for col in 0..8u8 {
            let sq = Square::from_coords(col, row).expect("on the board");
            let c = match pos.at(sq) {
                Some(c) => c.to_char(),
                None if marks & sq.bit() != 0 => '*',
                None => '.',
            };
            line.push(' ');
            line.push(c);
        }
        let _ = write!(line, " {}", row + 1);
        out.push(line);
    }
    out.push("  a b c d e f g h".to_string());
    let (x, o) = (pos.black().count_ones(), pos.white().count_ones());
    let state = if pos.is_game_over(rules) {
        "game over".to_string()
    } else if pos.must_pass(rules) {
        format!("{} to move, must pass", pos.side)
    } else {
        format!("{} to move", pos.side)
    };
    out.push(format!(
        "{state}; discs X {x} O {o}; empties {}",
        pos.board.empties()
    ));
    out.push(format!("board {pos}"));
    out.push(format!("legal {}", move_list(legal.as_slice())));
    out.push(format!("moves {}", move_list(moves)));
    out.push(format!("rules {rules}"));
    out
}

/// The result of a finished game from X's side under `rules`: the disc
/// difference (by the scoring option) and the winner (`None` = draw).
pub fn final_result(pos: &Position, rules: &RuleSet) -> (i32, Option<Color>) {
    let diff = pos.final_score_for(rules.scoring, Color::Black);
    (diff, pos.winner(rules))
}

/// A score in discs as a decimal with two places (`-1.50`).
pub fn discs(units: i32, scale: i32) -> String {
    let v = units as f64 / scale as f64;
    format!("{v:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_forms() {
        assert_eq!(
            score_tokens(4, None, Bound::Exact, true, false, ScoreStyle::Disc),
            "score disc 4 exact"
        );
        assert_eq!(
            score_tokens(0, Some(true), Bound::Exact, false, true, ScoreStyle::Disc),
            "score disc 0 wld tie win"
        );
        assert_eq!(
            score_tokens(-3, None, Bound::Upper, false, false, ScoreStyle::Cp),
            "score cp -300 upperbound"
        );
    }

    #[test]
    fn diagram_marks_legal_moves() {
        let r = RuleSet::default();
        let d = board_diagram(&Position::start(&r), &r, &[]);
        assert_eq!(d[3], "3 . . . * . . . . 3");
        assert_eq!(d[4], "4 . . * O X . . . 4");
        assert!(d[10].starts_with("X to move"));
    }
}
