//! `annex analyze`: positions in, one JSON object per line out, for
//! scripts.
//!
//! # Input
//! One position per line, in any of these forms (blank lines and lines
//! starting with `#` are skipped):
//! * an OBF line, `<64 chars> <X|O>; g8:+18; …` (the listed scores are
//!   ignored);
//! * a board string, `<64 chars> <X|O>` (or the side glued on as the 65th
//!   character);
//! * a transcript from the start position of the rules, `f5d6c3d3c4`.
//!
//! # Output schema
//! Every output line is one JSON object. For a position:
//!
//! | key | type | meaning |
//! |---|---|---|
//! | `line` | integer | 1-based input line number |
//! | `board` | string | 64 characters `X`/`O`/`-`, a1 b1 … h8 |
//! | `side` | `"X"` or `"O"` | side to move |
//! | `empties` | integer | empty squares |
//! | `best_move` | string or `null` | `f5`, `f5:ne` (one-line flips), `pass` when the side to move must pass; `null` when the game is over |
//! | `score` | integer | discs for the side to move (final disc difference when `exact`), under the rules' scoring |
//! | `tie` | boolean (only under `tie second` when `score` is 0 and proven) | whether the side to move wins the tie |
//! | `exact` | boolean | `score` is the proven game value |
//! | `wld` | boolean | only the sign of `score` is proven (win/loss/draw solve) |
//! | `bound` | `"none"`, `"lower"` or `"upper"` | how `score` relates to the search's value: `none` when it is that value (the search ended inside its window; whether that is also the game's value is `exact`), `lower`/`upper` when the value is at least/at most `score` |
//! | `pv` | array of strings | principal variation from this position (passes as `pass`) |
//! | `depth` | integer | depth of the last completed iteration (empties when solved) |
//! | `nodes` | integer | nodes searched |
//! | `time_ms` | integer | search time in milliseconds |
//! | `moves` | array (only with multi-PV) | one object per scored move, best first: `move`, `score`, `exact`, `wld`, `bound`, `pv` (same meanings; `pv` starts with `move`) |
//!
//! A line that cannot be read gives `{"line": n, "input": "…", "error":
//! "…"}` and the analysis goes on with the next line. A line longer than
//! [`MAX_LINE_BYTES`] is one such line (its `input` cut to its start):
//! it is read through without being kept.

pub mod cli;

use crate::engine::{Engine, EngineEvent};
use crate::moves::Move;
use crate::position::{ObfLine, ParsePositionError, Position};
use crate::rules::RuleSet;
use crate::search::{BestMove, Bound, Info, Limits};
use crossbeam_channel::Receiver;
use serde::Serialize;
use std::time::Duration;

/// Why an input line is not a position.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InputError {
    /// A bad OBF line or board string.
    #[error(transparent)]
    Board(ParsePositionError),
    /// Neither a board nor a legal transcript.
    #[error("not a board, OBF line or transcript: {0}")]
    Transcript(ParsePositionError),
}

/// Parses one input line into a position: OBF, board string or transcript.
///
/// # Errors
/// The line is none of those (the message says why).
pub fn parse_input(line: &str, rules: &RuleSet) -> Result<Position, InputError> {
    let t = line.trim();
    let board_part = t.split(';').next().unwrap_or("").trim();
    let squares = board_part.chars().filter(|c| !c.is_whitespace()).count();
    // A board string has no digits; a 32-move transcript also has 64
    // characters, so the digits tell them apart.
    let board_like = !board_part.chars().any(|c| c.is_ascii_digit());
    if t.contains(';') || (board_like && (squares == 64 || squares == 65)) {
        if t.contains(';') {
            return t
                .parse::<ObfLine>()
                .map(|o| o.position)
                .map_err(InputError::Board);
        }
        return board_part.parse::<Position>().map_err(InputError::Board);
    }
    Position::from_transcript(t, rules).map_err(InputError::Transcript)
}

/// A JSON formatter that writes the compact form and escapes every
/// control character other than `\n`, `\r` and `\t` as `\u00xx`, as
/// this tool has always done (serde_json alone would write `\b` and `\f`).
struct Compact;

impl serde_json::ser::Formatter for Compact {
    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::{CharEscape, CompactFormatter};
        match escape {
            CharEscape::Backspace => writer.write_all(b"\\u0008"),
            CharEscape::FormFeed => writer.write_all(b"\\u000c"),
            other => CompactFormatter.write_char_escape(writer, other),
        }
    }
}

/// `value` as one compact JSON line.
fn to_line(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Compact);
    value
        .serialize(&mut ser)
        .expect("JSON of plain data into memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Appends `s` as a JSON string literal.
pub fn json_string(out: &mut String, s: &str) {
    out.push_str(&to_line(&s));
}

/// The longest input line kept: 64 KiB (a board string is 66 bytes, a
/// whole game's transcript 120, an OBF line with every move scored about
/// 300).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// How much of an overlong line its error object echoes.
const ECHO_BYTES: usize = 80;

/// Reads one line (through its `\n`) into `buf`, keeping at most `max`
/// bytes and reading the rest of a longer line without keeping it.
/// Returns the bytes read (0 at the end of the input) and whether the
/// line was cut.
fn read_line_bounded(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let (mut total, mut cut) = (0, false);
    loop {
        let avail = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((total, cut));
        }
        let (n, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        cut |= n > room;
        buf.extend_from_slice(&avail[..n.min(room)]);
        input.consume(n);
        total += n;
        if done {
            return Ok((total, cut));
        }
    }
}

/// The `bound` value of a score (see the schema).
fn bound_name(b: Bound) -> &'static str {
    match b {
        Bound::Exact => "none",
        Bound::Lower => "lower",
        Bound::Upper => "upper",
    }
}

fn move_names(pv: &[Move]) -> Vec<String> {
    pv.iter().map(Move::to_string).collect()
}

/// The error object of an unreadable line.
#[derive(Serialize)]
struct ErrorLine<'a> {
    line: usize,
    input: &'a str,
    error: &'a str,
}

/// The error object for an unreadable line.
pub fn error_json(line: usize, input: &str, error: &str) -> String {
    to_line(&ErrorLine { line, input, error })
}

/// The object of an analysed position (keys in the order of the schema).
#[derive(Serialize)]
struct PositionLine {
    line: usize,
    board: String,
    side: String,
    empties: u32,
    best_move: Option<String>,
    score: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    tie: Option<bool>,
    exact: bool,
    wld: bool,
    bound: &'static str,
    pv: Vec<String>,
    depth: u32,
    nodes: u64,
    time_ms: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    moves: Option<Vec<MoveLine>>,
}

/// One scored move of a multi-PV analysis.
#[derive(Serialize)]
struct MoveLine {
    #[serde(rename = "move")]
    mv: String,
    score: i32,
    exact: bool,
    wld: bool,
    bound: &'static str,
    pv: Vec<String>,
}

/// What to search.
#[derive(Clone, Debug, Default)]
pub struct AnalyzeOptions {
    /// Search limits (depth, nodes, movetime, solve).
    pub limits: Limits,
    /// Score every legal move (multi-PV over all moves).
    pub all_moves: bool,
}

/// One analysed position.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position.
    pub position: Position,
    /// `None` when the game is over.
    pub best: Option<Move>,
    /// Discs for the side to move.
    pub score: i32,
    /// `tie second` tie owner, when proven.
    pub tie: Option<bool>,
    /// Proven value.
    pub exact: bool,
    /// Proven win/loss/draw.
    pub wld: bool,
    /// Bound of the score.
    pub bound: Bound,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// Depth.
    pub depth: u32,
    /// Nodes.
    pub nodes: u64,
    /// Time.
    pub time: Duration,
    /// Per-move lines (multi-PV), best first.
    pub lines: Vec<Info>,
}

impl Analysis {
    /// The JSON line (schema in the module documentation).
    pub fn to_json(&self, line: usize, with_moves: bool) -> String {
        let moves = with_moves.then(|| {
            self.lines
                .iter()
                .map(|l| MoveLine {
                    mv: l.pv.first().copied().unwrap_or(Move::PASS).to_string(),
                    score: l.score,
                    exact: l.exact,
                    wld: l.wld,
                    bound: bound_name(l.bound),
                    pv: move_names(&l.pv),
                })
                .collect()
        });
        to_line(&PositionLine {
            line,
            board: self.position.board_string(),
            side: self.position.side.to_string(),
            empties: self.position.board.empties(),
            best_move: self.best.map(|m| m.to_string()),
            score: self.score,
            tie: self.tie,
            exact: self.exact,
            wld: self.wld,
            bound: bound_name(self.bound),
            pv: move_names(&self.pv),
            depth: self.depth,
            nodes: self.nodes,
            time_ms: self.time.as_millis(),
            moves,
        })
    }
}

/// Analyses positions with one engine (the table is cleared before each
/// position, so every result is independent of the order of the input).
pub struct Analyzer {
    engine: Engine,
    events: crossbeam_channel::Receiver<EngineEvent>,
    rules: RuleSet,
    options: AnalyzeOptions,
}

impl Analyzer {
    /// An analyzer over `engine` (set up with its typed setters: threads,
    /// hash, rules), whose events arrive on `events`.
    pub fn new(options: AnalyzeOptions, engine: Engine, events: Receiver<EngineEvent>) -> Analyzer {
        Analyzer {
            rules: engine.rules(),
            engine,
            events,
            options,
        }
    }

    /// The rules in force.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    fn search(&mut self, pos: Position) -> BestMove {
        let mut limits = self.options.limits.clone();
        if self.options.all_moves {
            limits.multipv = pos.legal_moves(&self.rules).len().max(1);
        }
        self.engine.new_game();
        let b = self.engine.search_sync(pos, limits);
        while self.events.try_recv().is_ok() {}
        b
    }

    /// Analyses `pos`.
    pub fn analyze(&mut self, pos: Position) -> Analysis {
        let rules = self.rules;
        if pos.is_game_over(&rules) {
            let o = pos.outcome(&rules);
            return Analysis {
                position: pos,
                best: None,
                score: o.discs,
                tie: o.tie_won(),
                exact: true,
                wld: false,
                bound: Bound::Exact,
                pv: Vec::new(),
                depth: 0,
                nodes: 0,
                time: Duration::ZERO,
                lines: Vec::new(),
            };
        }
        let b = self.search(pos);
        let bound = b.lines.first().map(|l| l.bound).unwrap_or(Bound::Exact);
        Analysis {
            position: pos,
            best: Some(b.best),
            score: b.score,
            tie: b.tie,
            exact: b.exact,
            wld: b.wld,
            bound,
            pv: b.pv,
            depth: b.depth,
            nodes: b.nodes,
            time: b.time,
            lines: b.lines,
        }
    }

    /// Analyses every line of `input`, calling `emit` with each JSON line.
    /// Returns the number of lines that could not be read (an overlong
    /// line among them). A line that is
    /// not valid UTF-8 gets its error object and the next line is read;
    /// only a failing read ends the input.
    ///
    /// # Errors
    /// The first error of `emit` (the output is gone), which ends the run.
    pub fn run(
        &mut self,
        mut input: impl std::io::BufRead,
        emit: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> std::io::Result<usize> {
        let mut errors = 0;
        let with_moves = self.options.all_moves || self.options.limits.multipv > 1;
        let mut bytes = Vec::new();
        for n in 1.. {
            bytes.clear();
            match read_line_bounded(&mut input, &mut bytes, MAX_LINE_BYTES) {
                Ok((0, _)) => break,
                Ok((_, false)) => {}
                Ok((_, true)) if bytes.trim_ascii_start().starts_with(b"#") => continue,
                Ok((_, true)) => {
                    let start = String::from_utf8_lossy(&bytes[..ECHO_BYTES.min(bytes.len())]);
                    let why = format!("line longer than {MAX_LINE_BYTES} bytes");
                    emit(&error_json(n, &format!("{start}…"), &why))?;
                    errors += 1;
                    continue;
                }
                Err(e) => {
                    emit(&error_json(n, "", &format!("cannot read input: {e}")))?;
                    errors += 1;
                    break;
                }
            }
            let line = match std::str::from_utf8(&bytes) {
                Ok(l) => l,
                Err(_) => {
                    let lossy = String::from_utf8_lossy(&bytes);
                    emit(&error_json(n, lossy.trim(), "input is not valid UTF-8"))?;
                    errors += 1;
                    continue;
                }
            };
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            match parse_input(t, &self.rules) {
                Ok(pos) => {
                    let a = self.analyze(pos);
                    emit(&a.to_json(n, with_moves))?;
                }
                Err(e) => {
                    errors += 1;
                    emit(&error_json(n, t, &e.to_string()))?;
                }
            }
        }
        Ok(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs() {
        let r = RuleSet::default();
        let start = Position::start(&r);
        assert_eq!(parse_input(&start.to_string(), &r).unwrap(), start);
        let obf = format!("{}; d3:+0; c4:+0;", start);
        assert_eq!(parse_input(&obf, &r).unwrap(), start);
        let p = parse_input("f5d6", &r).unwrap();
        assert_eq!(p, Position::from_transcript("f5d6", &r).unwrap());
        assert!(parse_input("f5f5", &r).is_err());
        assert!(parse_input("hello", &r).is_err());
        // A 32-move transcript is 64 characters, as long as a board.
        let mut moves = String::new();
        for _ in 0..32 {
            let next = (0..64)
                .map(|i| format!("{moves}{}{}", (b'a' + i % 8) as char, 1 + i / 8))
                .find(|t| Position::from_transcript(t, &r).is_ok())
                .expect("a legal move");
            moves = next;
        }
        assert_eq!(moves.len(), 64);
        let want = Position::from_transcript(&moves, &r).unwrap();
        assert_eq!(parse_input(&moves, &r).unwrap(), want);
        let glued: String = start.to_string().replace(' ', "");
        assert_eq!(parse_input(&glued, &r).unwrap(), start);
    }

    #[test]
    fn escaping() {
        let mut s = String::new();
        json_string(&mut s, "a\"b\\c\nd\u{1}\u{8}\u{c}\t\r\u{7f}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\nd\\u0001\\u0008\\u000c\\t\\r\u{7f}é\"");
        assert_eq!(
            error_json(3, "x\"", "bad"),
            "{\"line\":3,\"input\":\"x\\\"\",\"error\":\"bad\"}"
        );
    }

    #[test]
    fn long_lines_are_cut_and_read_through() {
        let text = format!("{}\nf5\nd3", "x".repeat(100));
        let mut input = std::io::BufReader::with_capacity(16, text.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 10).unwrap(),
            (101, true)
        );
        assert_eq!(buf, b"xxxxxxxxxx");
        buf.clear();
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 10).unwrap(),
            (3, false)
        );
        assert_eq!(buf, b"f5\n");
        buf.clear();
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 10).unwrap(),
            (2, false)
        );
        buf.clear();
        assert_eq!(
            read_line_bounded(&mut input, &mut buf, 10).unwrap(),
            (0, false)
        );
    }
}
