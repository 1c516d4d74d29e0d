//! Game records: results, GGF text, and the one-line transcripts of
//! `games.txt` that let a match be audited and resumed.
//!
//! A line of `games.txt` (one per finished game, fields in this order,
//! `reason` last because it may hold spaces):
//!
//! ```text
//! 12 black=annex-a white=annex-b opening=5 result=1-0 score=+12 end=normal moves=f5d6c3d3c4f4 reason=
//! ```
//!
//! * the game number (1-based position in the schedule), then `key=value`;
//! * `opening`: 0-based line of the openings file, `-` for the start position;
//! * `result`: `1-0` (X won), `0-1` (O won) or `1/2-1/2`;
//! * `score`: final disc difference for X under the match's scoring;
//!   `+64`/`-64` after a forfeit;
//! * `end`: `normal`, `illegal`, `crash`, `timeout` (no answer, or time
//!   forfeit), `resign`, `error` (protocol error);
//! * `start`: only when the game did not start from the rules' start
//!   position: `<64 chars><X|O>`;
//! * `moves`: the transcript from the start, passes written `pass`.

use crate::board::Color;
use crate::moves::Move;
use crate::position::{ParsePositionError, Position};
use crate::rules::RuleSet;
use std::fmt;
use std::time::Duration;

/// Who won.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// X won.
    BlackWins,
    /// O won.
    WhiteWins,
    /// Equal discs under `tie draw`.
    Draw,
}

impl Outcome {
    /// A win for `c`.
    pub fn win_for(c: Color) -> Outcome {
        match c {
            Color::Black => Outcome::BlackWins,
            Color::White => Outcome::WhiteWins,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::BlackWins => "1-0",
            Outcome::WhiteWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    fn parse(s: &str) -> Option<Outcome> {
        match s {
            "1-0" => Some(Outcome::BlackWins),
            "0-1" => Some(Outcome::WhiteWins),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }
}

/// How the game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Termination {
    /// Neither side could move.
    Normal,
    /// The loser played an illegal move (or unreadable text).
    Illegal,
    /// The loser's process died.
    Crash,
    /// The loser did not answer in time (hang or time forfeit).
    Timeout,
    /// The loser resigned.
    Resign,
    /// The loser broke the protocol or could not set up the game.
    Error,
}

impl Termination {
    /// The name used in `games.txt`.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Illegal => "illegal",
            Termination::Crash => "crash",
            Termination::Timeout => "timeout",
            Termination::Resign => "resign",
            Termination::Error => "error",
        }
    }

    fn parse(s: &str) -> Option<Termination> {
        [
            Termination::Normal,
            Termination::Illegal,
            Termination::Crash,
            Termination::Timeout,
            Termination::Resign,
            Termination::Error,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// 1-based number in the match schedule.
    pub number: usize,
    /// Name of the engine playing X.
    pub black: String,
    /// Name of the engine playing O.
    pub white: String,
    /// 0-based line of the openings file, if any.
    pub opening: Option<usize>,
    /// The position the game started from.
    pub start: Position,
    /// The moves, passes included (the opening's moves first).
    pub moves: Vec<Move>,
    /// Seconds each move took (0 for opening and forced moves).
    pub times: Vec<f64>,
    /// The engine's evaluation of each move (discs for the mover), when
    /// it gave one; `None` for opening and forced moves.
    pub evals: Vec<Option<f64>>,
    /// Who won.
    pub outcome: Outcome,
    /// X's final disc difference (±64 after a forfeit).
    pub score: i32,
    /// How it ended.
    pub end: Termination,
    /// Details of a forfeit, empty after a normal end.
    pub reason: String,
}

impl GameRecord {
    /// The `games.txt` line (no newline).
    pub fn line(&self, rules: &RuleSet) -> String {
        let mut s = format!(
            "{} black={} white={} opening={} result={} score={:+} end={}",
            self.number,
            self.black,
            self.white,
            self.opening
                .map(|o| o.to_string())
                .unwrap_or_else(|| "-".into()),
            self.outcome.as_str(),
            self.score,
            self.end.as_str()
        );
        if self.start != Position::start(rules) {
            s += &format!(" start={}{}", self.start.board_string(), self.start.side);
        }
        s += " moves=";
        for m in &self.moves {
            s += &m.to_string();
        }
        s += " reason=";
        s += &self.reason.replace(['\n', '\r'], " ");
        s
    }

    /// Parses a `games.txt` line; the moves are replayed with `rules` and
    /// must be legal.
    ///
    /// # Errors
    /// A missing or malformed field, or an illegal transcript.
    pub fn parse_line(line: &str, rules: &RuleSet) -> Result<GameRecord, ParseRecordError> {
        let (head, reason) = line
            .split_once(" reason=")
            .ok_or(ParseRecordError::Missing("reason"))?;
        let mut it = head.split_whitespace();
        let number: usize = it
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or(ParseRecordError::NoNumber)?;
        let mut get = std::collections::HashMap::new();
        for t in it {
            let (k, v) = t
                .split_once('=')
                .ok_or_else(|| ParseRecordError::BadField(t.to_string()))?;
            get.insert(k, v);
        }
        let field = |k: &'static str| get.get(k).copied().ok_or(ParseRecordError::Missing(k));
        let bad = |k: &'static str, v: &str| ParseRecordError::BadValue {
            key: k,
            value: v.to_string(),
        };
        let start = match get.get("start") {
            Some(s) => s.parse::<Position>().map_err(ParseRecordError::Start)?,
            None => Position::start(rules),
        };
        let (_, moves) = start
            .play_transcript(field("moves")?, rules)
            .map_err(ParseRecordError::Moves)?;
        let (result, score, end) = (field("result")?, field("score")?, field("end")?);
        Ok(GameRecord {
            number,
            black: field("black")?.to_string(),
            white: field("white")?.to_string(),
            opening: match field("opening")? {
                "-" => None,
                o => Some(o.parse().map_err(|_| bad("opening", o))?),
            },
            start,
            moves,
            times: Vec::new(),
            evals: Vec::new(),
            outcome: Outcome::parse(result).ok_or_else(|| bad("result", result))?,
            score: score
                .trim_start_matches('+')
                .parse()
                .map_err(|_| bad("score", score))?,
            end: Termination::parse(end).ok_or_else(|| bad("end", end))?,
            reason: reason.to_string(),
        })
    }
}

/// A `games.txt` line that cannot be read: what is missing or malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseRecordError {
    /// A field the line must have (`reason`, `black`, `moves`, ...).
    #[error("no {0}= field")]
    Missing(&'static str),
    /// The line does not start with a game number.
    #[error("no game number")]
    NoNumber,
    /// A word that is not `key=value`.
    #[error("bad field '{0}'")]
    BadField(String),
    /// A field whose value cannot be read.
    #[error("bad {key} '{value}'")]
    BadValue {
        /// The field's key.
        key: &'static str,
        /// Its value.
        value: String,
    },
    /// A `start=` position that cannot be read.
    #[error("start: {0}")]
    Start(#[source] ParsePositionError),
    /// A transcript that does not replay under the rules.
    #[error("moves: {0}")]
    Moves(#[source] ParsePositionError),
}

/// `mm:ss`, with the milliseconds when there are some (`00:02.400`): a
/// clock of 2.4 s written as `00:02` gave the engine 2 s.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    let ms = d.subsec_millis();
    if ms == 0 {
        format!("{:02}:{:02}", s / 60, s % 60)
    } else {
        format!("{:02}:{:02}.{ms:03}", s / 60, s % 60)
    }
}

/// The `BO[…]` board of GGF as NBoard writes it: size, the 64 squares in
/// one word (`*` X, `O` O, `-` empty, a1 b1 … h8), side to move.
pub fn ggf_board(p: &Position) -> String {
    let b = p.board_string().replace('X', "*");
    let side = if p.side == Color::Black { '*' } else { 'O' };
    format!("8 {b} {side}")
}

/// What a GGF game holds besides the moves.
pub struct GgfHeader<'a> {
    /// Where the game was played (`PC[…]`): `annex match`, `annex serve`.
    pub place: &'a str,
    /// X's name.
    pub black: &'a str,
    /// O's name.
    pub white: &'a str,
    /// Base time and increment, if any.
    pub tc: Option<(Duration, Duration)>,
    /// The rules (written as an `RU[…]` property when not plain Othello).
    pub rules: &'a RuleSet,
    /// When the game was played (`DT[…]`), in GGF's form
    /// `2026.11.25_23:59:59.UTC`; the tools stamp it.
    pub date: &'a str,
}

/// A GGF game: `(;GM[Othello]PC[<place>]DT[…]PB[…]PW[…]RE[…]TI[…]TY[8]
/// BO[…]B[f5/2.00/1.20]W[d6]…;)` (move/evaluation/seconds, both optional). `result` is `(X's score, flag)` with flag
/// `""`, `"t"` (time) or `"r"` (resigned / forfeited); none for a game in
/// progress. Moves are written lower case, a pass as `PA`.
pub fn ggf(
    h: &GgfHeader<'_>,
    start: &Position,
    moves: &[Move],
    times: &[f64],
    evals: &[Option<f64>],
    result: Option<(i32, &str)>,
) -> String {
    let mut s = format!(
        "(;GM[Othello]PC[{}]DT[{}]PB[{}]PW[{}]",
        h.place, h.date, h.black, h.white
    );
    if let Some((score, flag)) = result {
        s += &format!("RE[{score:+}.00");
        if !flag.is_empty() {
            s += &format!(":{flag}");
        }
        s += "]";
    }
    if let Some((base, inc)) = h.tc {
        // GGS clock: main[/increment[/extension]].
        s += &format!("TI[{}", clock(base));
        if !inc.is_zero() {
            s += &format!("/{}", inc.as_secs_f64());
        }
        s += "]";
    }
    if !h.rules.is_default() {
        s += &format!("RU[{}]", h.rules);
    }
    s += &format!("TY[8]BO[{}]", ggf_board(start));
    let mut pos = *start;
    for (i, m) in moves.iter().enumerate() {
        let tag = if pos.side == Color::Black { 'B' } else { 'W' };
        let text = if m.is_pass() {
            "PA".to_string()
        } else {
            m.to_string()
        };
        let eval = match evals.get(i) {
            Some(Some(e)) => format!("{e:.2}"),
            _ => String::new(),
        };
        match times.get(i) {
            Some(t) if *t > 0.0 => s += &format!("{tag}[{text}/{eval}/{t:.2}]"),
            _ if !eval.is_empty() => s += &format!("{tag}[{text}/{eval}]"),
            _ => s += &format!("{tag}[{text}]"),
        }
        // The next mover: the side to move after the move (placement plies
        // of the free start keep the mover); a move that does not replay
        // passes the turn.
        pos = match pos.play(h.rules, *m) {
            Ok((_, next)) => next,
            Err(_) => Position::from_colors(pos.black(), pos.white(), pos.side.other()),
        };
    }
    s += ";)";
    s
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_round_trip() {
        let r = RuleSet::default();
        let start = Position::start(&r);
        let (_, moves) = start.play_transcript("f5d6c3", &r).unwrap();
        let g = GameRecord {
            number: 7,
            black: "a".into(),
            white: "b".into(),
            opening: Some(3),
            start,
            moves,
            times: vec![],
            evals: vec![],
            outcome: Outcome::WhiteWins,
            score: -64,
            end: Termination::Illegal,
            reason: "a played illegal move 'a1'".into(),
        };
        let l = g.line(&r);
        assert_eq!(
            l,
            "7 black=a white=b opening=3 result=0-1 score=-64 end=illegal moves=f5d6c3 reason=a played illegal move 'a1'"
        );
        assert_eq!(GameRecord::parse_line(&l, &r).unwrap(), g);
        let e = |line: &str| GameRecord::parse_line(line, &r).unwrap_err();
        assert_eq!(e("7 black=a"), ParseRecordError::Missing("reason"));
        assert_eq!(e("x black=a reason="), ParseRecordError::NoNumber);
        let bad = l.replace("f5d6c3", "f5f5");
        assert!(matches!(e(&bad), ParseRecordError::Moves(_)), "{}", e(&bad));
        let bad = l.replace("result=0-1", "result=2-0");
        assert_eq!(e(&bad).to_string(), "bad result '2-0'");
        assert_eq!(
            e(&l.replace(" score=-64", "")).to_string(),
            "no score= field"
        );
    }

    #[test]
    fn ggf_text() {
        let r = RuleSet::default();
        let start = Position::start(&r);
        let (_, moves) = start.play_transcript("f5d6", &r).unwrap();
        let h = GgfHeader {
            place: "annex match",
            black: "x",
            white: "y",
            tc: Some((Duration::from_secs(90), Duration::from_secs(1))),
            rules: &r,
            date: "2026.11.25_23:59:59.UTC",
        };
        let g = ggf(
            &h,
            &start,
            &moves,
            &[1.5, 0.0],
            &[None, Some(-2.0)],
            Some((-12, "")),
        );
        assert!(g.starts_with("(;GM[Othello]PC[annex match]DT[2026.11.25_23:59:59.UTC]PB["));
        assert!(g.contains("PB[x]PW[y]RE[-12.00]TI[01:30/1]TY[8]"));
        assert!(
            g.contains("BO[8 ---------------------------O*------*O--------------------------- *]")
        );
        assert!(g.ends_with("B[f5//1.50]W[d6/-2.00];)"));
        // A clock with a fraction of a second keeps it, and reads back.
        let h = GgfHeader {
            tc: Some((Duration::from_millis(2400), Duration::ZERO)),
            ..h
        };
        let g = ggf(&h, &start, &moves, &[], &[], None);
        assert!(g.contains("TI[00:02.400]"), "{g}");
        let back = crate::record::ggf::parse(&g, r).unwrap();
        assert_eq!(back.clock.unwrap().main, Duration::from_millis(2400));
    }
}
