//! Positions with an absolute side to move, and their text forms: board
//! strings (both alphabets), transcripts (passes inserted) and OBF lines.
//!
//! ```
//! use annex_core::position::Position;
//! use annex_core::board::Color;
//! use annex_core::rules::RuleSet;
//! let r = RuleSet::default();
//! let p = Position::from_transcript("f5d6c3", &r).unwrap();
//! assert_eq!(p.side, Color::White);
//! assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
//! ```

use crate::board::{Board, Color};
use crate::moves::{self, Move, MoveError, MoveList, is_game_over};
use crate::rules::{RuleSet, Scoring, Tie};
use crate::square::Square;
use std::fmt;
use std::str::FromStr;

/// A board with the absolute colour of the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// Discs relative to the side to move.
    pub board: Board,
    /// Who is to move.
    pub side: Color,
}

/// What a finished game is worth to the side to move of its last
/// position ([`Position::outcome`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Outcome {
    /// The final disc difference for the side to move, by the `scoring`
    /// rule (the empties go to the winner under `wof`).
    pub discs: i32,
    /// What equal discs are worth to the side to move
    /// ([`Position::tie_sign`]): `1` a win, `-1` a loss, `0` a draw.
    pub tie: i32,
}

impl Outcome {
    /// `1` a win for the side to move, `-1` a loss, `0` a draw.
    pub const fn sign(self) -> i32 {
        if self.discs == 0 {
            self.tie
        } else {
            self.discs.signum()
        }
    }

    /// The value on a scale of `unit` a disc (the search's `DISC`): the
    /// disc difference times `unit`, and equal discs half a `unit` times
    /// the tie sign, so that a won tie is worth more than any loss and
    /// less than any win.
    #[inline]
    pub const fn value(self, unit: i32) -> i32 {
        if self.discs == 0 {
            self.tie * (unit / 2)
        } else {
            self.discs * unit
        }
    }

    /// Under `tie second` with equal discs, whether the side to move wins
    /// the tie; `None` otherwise (the `tie` field of the protocols'
    /// scores).
    pub const fn tie_won(self) -> Option<bool> {
        if self.discs == 0 && self.tie != 0 {
            Some(self.tie > 0)
        } else {
            None
        }
    }
}

/// Error from parsing a position, transcript or OBF line; each names the
/// offending token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsePositionError {
    /// The board part is not 64 squares.
    BoardLength(usize),
    /// A character that is no square content.
    BadChar(char),
    /// The side to move is missing or not X/O.
    BadSide(String),
    /// A token of a transcript is not a move.
    Move {
        /// Ply (1-based) at which it failed.
        ply: usize,
        /// The problem.
        error: MoveError,
    },
    /// An OBF field is malformed.
    Obf(String),
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParsePositionError::BoardLength(n) => {
                write!(f, "board has {n} squares, expected 64")
            }
            ParsePositionError::BadChar(c) => {
                write!(
                    f,
                    "invalid board character '{c}' (expected X, O, -, * or .)"
                )
            }
            ParsePositionError::BadSide(s) => {
                write!(f, "invalid side to move '{s}' (expected X or O)")
            }
            ParsePositionError::Move { ply, error } => write!(f, "ply {ply}: {error}"),
            ParsePositionError::Obf(s) => write!(f, "invalid OBF field '{s}'"),
        }
    }
}

impl std::error::Error for ParsePositionError {}

/// Parses one board-string character: `Some(Some(colour))`, `Some(None)` for
/// empty, `None` if it is no square content.
pub fn square_char(c: char) -> Option<Option<Color>> {
    match c {
        'X' | 'x' | '*' | 'B' | 'b' => Some(Some(Color::Black)),
        'O' | 'o' | 'W' | 'w' => Some(Some(Color::White)),
        '-' | '.' | '_' => Some(None),
        _ => None,
    }
}

/// Parses a side token (`X`, `O`, also `*`, `B`, `W`, `black`, `white`).
pub fn parse_side(s: &str) -> Result<Color, ParsePositionError> {
    match s.to_ascii_lowercase().as_str() {
        "x" | "*" | "b" | "black" => Ok(Color::Black),
        "o" | "w" | "white" => Ok(Color::White),
        _ => Err(ParsePositionError::BadSide(s.to_string())),
    }
}

impl Position {
    /// The start position of `rules`, X to move.
    pub fn start(rules: &RuleSet) -> Position {
        Position {
            board: Board::start_for(rules.start),
            side: Color::Black,
        }
    }

    /// From X's and O's discs and the side to move.
    pub fn from_colors(black: u64, white: u64, side: Color) -> Position {
        let board = match side {
            Color::Black => Board::new(black, white),
            Color::White => Board::new(white, black),
        };
        Position { board, side }
    }

    /// X's discs.
    pub fn black(&self) -> u64 {
        match self.side {
            Color::Black => self.board.player,
            Color::White => self.board.opponent,
        }
    }

    /// O's discs.
    pub fn white(&self) -> u64 {
        match self.side {
            Color::Black => self.board.opponent,
            Color::White => self.board.player,
        }
    }

    /// The colour on `sq`, if any.
    pub fn at(&self, sq: Square) -> Option<Color> {
        if self.black() & sq.bit() != 0 {
            Some(Color::Black)
        } else if self.white() & sq.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Parses the 64-character board part (whitespace inside is ignored).
    ///
    /// # Errors
    /// Wrong length or an invalid character.
    pub fn parse_board(s: &str, side: Color) -> Result<Position, ParsePositionError> {
        let (mut b, mut w, mut n) = (0u64, 0u64, 0usize);
        for c in s.chars().filter(|c| !c.is_whitespace()) {
            let v = square_char(c).ok_or(ParsePositionError::BadChar(c))?;
            if n < 64 {
                match v {
                    Some(Color::Black) => b |= 1 << n,
                    Some(Color::White) => w |= 1 << n,
                    None => {}
                }
            }
            n += 1;
        }
        if n != 64 {
            return Err(ParsePositionError::BoardLength(n));
        }
        Ok(Position::from_colors(b, w, side))
    }

    /// The 64-character board part, `X`/`O`/`-`.
    pub fn board_string(&self) -> String {
        Square::all()
            .map(|sq| match self.at(sq) {
                Some(c) => c.to_char(),
                None => '-',
            })
            .collect()
    }

    /// Legal moves under `rules` (empty when the side to move must pass).
    pub fn legal_moves(&self, rules: &RuleSet) -> MoveList {
        MoveList::generate(&self.board, rules)
    }

    /// Whether the side to move has no move but the opponent does.
    pub fn must_pass(&self, rules: &RuleSet) -> bool {
        self.legal_moves(rules).is_empty() && !self.is_game_over(rules)
    }

    /// Whether neither side can move.
    pub fn is_game_over(&self, rules: &RuleSet) -> bool {
        is_game_over(&self.board, rules)
    }

    /// Plays `m` after checking it; returns the normalised move too.
    ///
    /// # Errors
    /// Illegal or ambiguous move; `self` is unchanged.
    pub fn play(&self, rules: &RuleSet, m: Move) -> Result<(Move, Position), MoveError> {
        let (m, board) = moves::play(&self.board, rules, m)?;
        let side = if board == self.board {
            self.side
        } else {
            self.side_after(rules, &board)
        };
        Ok((m, Position { board, side }))
    }

    /// Plays a legal move without checking it.
    pub fn play_unchecked(&self, rules: &RuleSet, m: Move) -> Position {
        let board = moves::play_unchecked(&self.board, rules, m);
        Position {
            side: self.side_after(rules, &board),
            board,
        }
    }

    fn side_after(&self, rules: &RuleSet, next: &Board) -> Color {
        // A placement that keeps the same mover leaves `player` a superset.
        if self.board.is_placement(rules) && next.player & self.board.player == self.board.player {
            self.side
        } else {
            self.side.other()
        }
    }

    /// Final disc difference for `color`, by the `scoring` option.
    pub fn final_score_for(&self, scoring: Scoring, color: Color) -> i32 {
        let s = self.board.final_score(scoring);
        if color == self.side { s } else { -s }
    }

    /// What equal discs at the end of the game are worth to the side to
    /// move: under `tie second` `1` for O (the second player, who wins a
    /// tie) and `-1` for X; `0` under `tie draw`. It turns over at every
    /// change of side (a pass too), not at a placement ply of `start free`
    /// that keeps the mover.
    pub fn tie_sign(&self, rules: &RuleSet) -> i32 {
        match (rules.tie, self.side) {
            (Tie::Draw, _) => 0,
            (Tie::Second, Color::White) => 1,
            (Tie::Second, Color::Black) => -1,
        }
    }

    /// What the game is worth to the side to move if it ends here (the
    /// board counted as it stands): the one definition of a finished
    /// game's result under `rules`, which the search, the engine's pass
    /// and the analysis share.
    pub fn outcome(&self, rules: &RuleSet) -> Outcome {
        Outcome {
            discs: self.board.final_score(rules.scoring),
            tie: self.tie_sign(rules),
        }
    }

    /// The winner of a finished game (`None` = draw) under `rules`. With
    /// `tie second`, equal discs is a win for O (the second player).
    pub fn winner(&self, rules: &RuleSet) -> Option<Color> {
        match self.outcome(rules).sign() {
            1 => Some(self.side),
            -1 => Some(self.side.other()),
            _ => None,
        }
    }

    /// Plays a transcript from `self`: moves concatenated (`f5d6c3`) or
    /// separated by spaces or commas; passes written or left out (forced
    /// passes are inserted). Returns the position and the moves played,
    /// passes included.
    ///
    /// # Errors
    /// The first token that is no move or an illegal one, with its ply.
    pub fn play_transcript(
        &self,
        text: &str,
        rules: &RuleSet,
    ) -> Result<(Position, Vec<Move>), ParsePositionError> {
        let mut pos = *self;
        let mut played = Vec::new();
        for tok in split_transcript(text) {
            let ply = played.len() + 1;
            let m: Move = tok
                .parse()
                .map_err(|error| ParsePositionError::Move { ply, error })?;
            if !m.is_pass() && pos.must_pass(rules) {
                played.push(Move::PASS);
                pos = pos.play_unchecked(rules, Move::PASS);
            }
            let ply = played.len() + 1;
            // Report the token as written (`--`, `F5`), not as normalised.
            let (m, next) = pos.play(rules, m).map_err(|error| {
                let error = match error {
                    MoveError::Syntax(_) => MoveError::Syntax(tok.clone()),
                    MoveError::Illegal(_) => MoveError::Illegal(tok.clone()),
                    MoveError::Ambiguous(_) => MoveError::Ambiguous(tok.clone()),
                };
                ParsePositionError::Move { ply, error }
            })?;
            played.push(m);
            pos = next;
        }
        Ok((pos, played))
    }

    /// The position after a transcript from the start of `rules`.
    ///
    /// # Errors
    /// As [`Position::play_transcript`].
    pub fn from_transcript(text: &str, rules: &RuleSet) -> Result<Position, ParsePositionError> {
        Ok(Position::start(rules).play_transcript(text, rules)?.0)
    }
}

/// Splits a transcript into move tokens: whitespace/commas separate; inside
/// a run, a square is 2 characters optionally followed by `:dir`, and the
/// pass tokens `--`, `@@`, `pass`, `ps`, `pa` stand alone. A direction is
/// one letter or two (`ne`, `nw`, `se`, `sw`); when two letters are followed
/// by a digit, the second letter starts the next square (`g7:we6` is
/// `g7:w e6`, and `f5:ne3` is `f5:n e3`). Move numbers of a numbered
/// transcript (`1. f5 d6 2. c3`, `1.f5 d6 2.c3`, `3... e6`) are skipped.
pub fn split_transcript(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        let chars: Vec<char> = word.chars().collect();
        let lower = |k: usize| chars.get(k).map(|c| c.to_ascii_lowercase());
        let mut i = 0;
        while i < chars.len() {
            // A move number (`1.`, `12.`, `3...`) or a run of dots: no move.
            let digits = chars[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            let dots = chars[i + digits..]
                .iter()
                .take_while(|&&c| c == '.')
                .count();
            if dots > 0 {
                i += digits + dots;
                continue;
            }
            let is_pass4 = (0..4).all(|k| lower(i + k) == "pass".chars().nth(k));
            if is_pass4 {
                out.push(chars[i..i + 4].iter().collect());
                i += 4;
                continue;
            }
            let mut tok: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            i += 2;
            if i < chars.len() && chars[i] == ':' {
                let mut j = i + 1;
                if matches!(lower(j), Some('n' | 's' | 'e' | 'w')) {
                    j += 1;
                    let two = matches!(lower(j - 1), Some('n' | 's'))
                        && matches!(lower(j), Some('e' | 'w'))
                        && !chars.get(j + 1).is_some_and(|c| c.is_ascii_digit());
                    if two {
                        j += 1;
                    }
                }
                tok.extend(&chars[i..j]);
                i = j;
            }
            out.push(tok);
        }
    }
    out
}

impl FromStr for Position {
    type Err = ParsePositionError;
    /// Parses `<64 chars> <side>`; the side may also be glued on as the 65th
    /// character, and a missing side means X. A last word that is a side
    /// token is always read as the side, so `<63 chars> X` is a board of 63
    /// squares, not a board ending in X.
    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        let t = s.trim();
        if let Some((b, sd)) = t.rsplit_once(char::is_whitespace) {
            if let Ok(side) = parse_side(sd.trim()) {
                return Position::parse_board(b, side);
            }
            if b.chars().filter(|c| !c.is_whitespace()).count() == 64 {
                return Err(ParsePositionError::BadSide(sd.trim().to_string()));
            }
        }
        let chars: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
        if chars.len() == 65 {
            let side = parse_side(&chars[64].to_string())?;
            let b: String = chars[..64].iter().collect();
            return Position::parse_board(&b, side);
        }
        Position::parse_board(t, Color::Black)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.board_string(), self.side)
    }
}

/// One line of an OBF file: position and the listed move scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfLine {
    /// The position.
    pub position: Position,
    /// `(move, score)` pairs as listed (may be empty).
    pub scores: Vec<(Move, i32)>,
}

impl ObfLine {
    /// The best listed score, if any.
    pub fn best_score(&self) -> Option<i32> {
        self.scores.iter().map(|x| x.1).max()
    }

    /// The listed moves with the best score.
    pub fn best_moves(&self) -> Vec<Move> {
        let b = self.best_score();
        self.scores
            .iter()
            .filter(|x| Some(x.1) == b)
            .map(|x| x.0)
            .collect()
    }
}

impl FromStr for ObfLine {
    type Err = ParsePositionError;
    /// `<64 chars> <side>; <move>:<score>; …` (Edax's OBF).
    fn from_str(s: &str) -> Result<ObfLine, ParsePositionError> {
        let mut parts = s.trim().split(';');
        let position: Position = parts.next().unwrap_or("").parse()?;
        let mut scores = Vec::new();
        for p in parts {
            let p = p.trim();
            if p.is_empty() {
                continue;
            }
            // rsplit: a one-line move (`f5:ne:+4`) has a colon of its own.
            let (m, v) = p
                .rsplit_once(':')
                .ok_or_else(|| ParsePositionError::Obf(p.to_string()))?;
            let m: Move = m
                .trim()
                .parse()
                .map_err(|_| ParsePositionError::Obf(p.to_string()))?;
            let v: i32 = v
                .trim()
                .trim_start_matches('+')
                .parse()
                .map_err(|_| ParsePositionError::Obf(p.to_string()))?;
            scores.push((m, v));
        }
        Ok(ObfLine { position, scores })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished game's worth under each tie and scoring rule: the disc
    /// difference for the side to move, equal discs half a disc to O under
    /// `tie second` (its tie sign turns over with the side), the winner
    /// and the protocols' tie flag from the same outcome.
    #[test]
    fn outcomes_under_each_tie_rule() {
        // 31 X, 31 O, two empties: equal discs.
        let even = format!("{}{}--", "X".repeat(31), "O".repeat(31));
        // 33 X, 29 O, two empties: X by 4 counted, by 6 with the empties.
        let ahead = format!("{}{}--", "X".repeat(33), "O".repeat(29));
        for (text, count) in [(&even, 0), (&ahead, 4)] {
            for side in [Color::Black, Color::White] {
                let pos = Position::parse_board(text, side).unwrap();
                let mover = if side == Color::Black { 1 } else { -1 };
                for tie in Tie::ALL {
                    for scoring in Scoring::ALL {
                        let rules = RuleSet {
                            tie: *tie,
                            scoring: *scoring,
                            ..RuleSet::default()
                        };
                        let o = pos.outcome(&rules);
                        let discs = if count == 0 || *scoring == Scoring::Count {
                            count
                        } else {
                            count + 2
                        };
                        assert_eq!(o.discs, mover * discs, "{text} {side:?} {rules}");
                        let tie_sign = match (tie, side) {
                            (Tie::Draw, _) => 0,
                            (Tie::Second, Color::White) => 1,
                            (Tie::Second, Color::Black) => -1,
                        };
                        assert_eq!(o.tie, tie_sign);
                        assert_eq!(pos.tie_sign(&rules), tie_sign);
                        let sign = if count == 0 { tie_sign } else { mover };
                        assert_eq!(o.sign(), sign);
                        let value = if count == 0 {
                            16 * tie_sign
                        } else {
                            32 * o.discs
                        };
                        assert_eq!(o.value(32), value);
                        let winner = match sign {
                            1 => Some(side),
                            -1 => Some(side.other()),
                            _ => None,
                        };
                        assert_eq!(pos.winner(&rules), winner);
                        let won = (count == 0 && *tie == Tie::Second).then_some(tie_sign > 0);
                        assert_eq!(o.tie_won(), won);
                    }
                }
            }
        }
        // Under `tie second` a tie goes to O whoever is to move.
        let rules = RuleSet {
            tie: Tie::Second,
            ..RuleSet::default()
        };
        for side in [Color::Black, Color::White] {
            let pos = Position::parse_board(&even, side).unwrap();
            assert_eq!(pos.winner(&rules), Some(Color::White));
        }
    }

    #[test]
    fn board_strings() {
        let r = RuleSet::default();
        let p = Position::start(&r);
        let s = p.to_string();
        assert_eq!(s.parse::<Position>().unwrap(), p);
        let alt = s.replace('X', "*").replace('-', ".");
        assert_eq!(alt.parse::<Position>().unwrap(), p);
        assert!(matches!(
            "XO".parse::<Position>(),
            Err(ParsePositionError::BoardLength(2))
        ));
        let bad = s.replacen('-', "?", 1);
        assert_eq!(
            bad.parse::<Position>(),
            Err(ParsePositionError::BadChar('?'))
        );
        let side = s.replace(" X", " Z");
        assert!(matches!(
            side.parse::<Position>(),
            Err(ParsePositionError::BadSide(_))
        ));
    }

    #[test]
    fn transcripts() {
        let r = RuleSet::default();
        let (p, m) = Position::start(&r).play_transcript("f5 D6,c3", &r).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(p.side, Color::White);
        let e = Position::from_transcript("f5f5", &r).unwrap_err();
        assert!(e.to_string().contains("ply 2") && e.to_string().contains("f5"));
        let e = Position::from_transcript("f5zz", &r).unwrap_err();
        assert!(e.to_string().contains("zz"), "{e}");
        assert_eq!(
            split_transcript("f5:nea1--c3pass"),
            ["f5:ne", "a1", "--", "c3", "pass"]
        );
        // Regression: a one-letter direction glued to the next square.
        assert_eq!(
            split_transcript("g7:we6f5:ne3"),
            ["g7:w", "e6", "f5:n", "e3"]
        );
        assert_eq!(split_transcript("f5:nwe3:SE"), ["f5:nw", "e3:SE"]);
        // Numbered transcripts.
        assert_eq!(split_transcript("1. f5 d6 2. c3"), ["f5", "d6", "c3"]);
        assert_eq!(
            split_transcript("1.f5 d6 2.c3:n 10... e6"),
            ["f5", "d6", "c3:n", "e6"]
        );
        // A digit without a dot is still an error token, not skipped.
        assert_eq!(split_transcript("f5 3 d6"), ["f5", "3", "d6"]);
    }

    #[test]
    fn obf() {
        let l: ObfLine =
            "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;"
                .parse()
                .unwrap();
        assert_eq!(l.best_score(), Some(18));
        assert_eq!(l.best_moves()[0].to_string(), "g8");
        assert!("--".parse::<ObfLine>().is_err());
    }
}
