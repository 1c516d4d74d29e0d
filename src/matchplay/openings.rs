//! Openings for a match: one per line, either a transcript from the start
//! position (the XOT lists: `f5d6c4d3c2b3b4b5`) or a board string
//! (`<64 chars> <X|O>`, optionally followed by `;` and anything, as in
//! OBF). Empty lines and lines starting with `#` are skipped; every other
//! line must be legal under the match's rules.

use super::MatchError;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::RuleSet;

/// One opening.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// 0-based line number in the file.
    pub line: usize,
    /// Where the game starts.
    pub start: Position,
    /// Moves played from `start` (passes included).
    pub moves: Vec<Move>,
}

/// Parses an openings file.
///
/// # Errors
/// The first bad line, with its number.
pub fn parse_openings(text: &str, rules: &RuleSet) -> Result<Vec<Opening>, MatchError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let l = raw.split(';').next().unwrap_or("").trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let err = |source| MatchError::Opening {
            line: i + 1,
            source,
        };
        let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        let opening = if compact.len() >= 64 && compact.len() <= 65 {
            let start: Position = l.parse().map_err(err)?;
            Opening {
                line: i,
                start,
                moves: Vec::new(),
            }
        } else {
            let start = Position::start(rules);
            let (pos, moves) = start.play_transcript(l, rules).map_err(err)?;
            if pos.is_game_over(rules) {
                return Err(MatchError::OpeningOver(i + 1));
            }
            Opening {
                line: i,
                start,
                moves,
            }
        };
        out.push(opening);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        let r = RuleSet::default();
        let text = "# comment\nf5d6c4d3c2b3b4b5\n\n---------------------------OX------XO--------------------------- X; note\n";
        let o = parse_openings(text, &r).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].line, 1);
        assert_eq!(o[0].moves.len(), 8);
        assert_eq!(o[1].line, 3);
        assert_eq!(o[1].start, Position::start(&r));
        let e = parse_openings("f5\nf5f5\n", &r).unwrap_err().to_string();
        assert!(e.starts_with("openings line 2"), "{e}");
    }
}
