//! Self-play openings that no match uses: the start position and then a
//! number of uniformly random moves drawn for each game from a wide range
//! ([`RandomRange`], `--openings random --random-moves MIN-MAX`).
//!
//! The match openings (the XOT lists under `data/openings/xot/`) are
//! 8-ply lines, so every position within them has at least 52 empties.
//! With at least 9 random moves the first engine move of a game, and
//! every recorded position after it, has at most 51 empties: no recorded
//! position can be a match-opening position. The random part itself is
//! not recorded (without `--keep-opening`): its moves were not good ones,
//! so the game's result is a poor label for its positions. The check
//! that a data set holds no match-opening position (under the 8
//! symmetries) is [`disjoint`](super::disjoint) (`annex datagen overlap`).
//!
//! The default range, 10 to 30 random moves, follows the practice of
//! Egaroucid, whose self-play runs take the number of random opening
//! moves as a parameter and keep a set of games for each of many counts:
//! a wide spread of game starts from 50 empties (just past the 8-ply
//! match openings) to 30 empties, so the engine plays on from varied
//! midgame positions that no opening list holds.

use crate::matchplay::MatchError;
use crate::position::Position;
use crate::rng::Rng;
use crate::rules::RuleSet;
use std::path::{Path, PathBuf};

/// The default range of random moves of `--openings random`.
pub const DEFAULT: RandomRange = RandomRange { min: 10, max: 30 };

/// A number of random moves drawn uniformly from `min..=max` for each game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandomRange {
    /// The fewest random moves.
    pub min: u32,
    /// The most random moves (`>= min`, at most 60).
    pub max: u32,
}

impl RandomRange {
    /// A range of one count.
    pub fn fixed(n: u32) -> RandomRange {
        RandomRange { min: n, max: n }
    }

    /// The count of one game (uniform in the range).
    pub fn draw(&self, rng: &mut Rng) -> u32 {
        self.min + rng.index((self.max - self.min) as usize + 1) as u32
    }

    /// Parses `N` or `MIN-MAX` (`0 <= MIN <= MAX <= 60`).
    ///
    /// # Errors
    /// Anything else, with what is expected.
    pub fn parse(s: &str) -> Result<RandomRange, RangeError> {
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n <= 60)
                .ok_or_else(|| RangeError::Count(t.to_string()))
        };
        let r = match s.split_once('-') {
            Some((a, b)) => RandomRange {
                min: num(a)?,
                max: num(b)?,
            },
            None => RandomRange::fixed(num(s)?),
        };
        if r.min > r.max {
            return Err(RangeError::Order(s.to_string()));
        }
        Ok(r)
    }
}

/// A `--random-moves` value that is no count or range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// A count that is no number from 0 to 60.
    #[error("bad random move count '{0}' (0-60)")]
    Count(String),
    /// A range whose first count is above its second.
    #[error("random moves {0}: need MIN <= MAX")]
    Order(String),
    /// A range where only one count is allowed.
    #[error("--random-moves {0}: a range only with --openings random")]
    NotFixed(String),
}

/// Why an openings file gives no openings.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// The file cannot be read.
    #[error("cannot read the openings {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line that is no opening.
    #[error("{}: {source}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: MatchError,
    },
    /// A file without an opening.
    #[error("{}: no openings", .0.display())]
    Empty(PathBuf),
}

impl std::fmt::Display for RandomRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

/// The lines of an openings file (transcripts or board strings, as for
/// `annex match`): each the positions of the line, its start first
/// (positions where the side to move passes left out).
///
/// # Errors
/// The file cannot be read, a line is not an opening, or there is none.
pub fn read_lines(path: &Path) -> Result<Vec<Vec<Position>>, OpeningsError> {
    let text = crate::fileio::read_string_bounded(path, crate::fileio::MAX_TEXT_BYTES).map_err(
        |source| OpeningsError::Read {
            path: path.to_path_buf(),
            source,
        },
    )?;
    let rules = RuleSet::default();
    let list = crate::matchplay::openings::parse_openings(&text, &rules)
        .map_err(|source| OpeningsError::Line {
            path: path.to_path_buf(),
            source,
        })?
        .into_iter()
        .map(|o| {
            let mut line = vec![o.start];
            for m in &o.moves {
                let p = line[line.len() - 1].play_unchecked(&rules, *m);
                if m.is_pass() {
                    line.pop();
                }
                line.push(p);
            }
            line
        })
        .collect::<Vec<_>>();
    if list.is_empty() {
        return Err(OpeningsError::Empty(path.to_path_buf()));
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::{Budget, Openings, Settings, start_of_game};
    use crate::eval::Evaluator;

    #[test]
    fn ranges_parse_and_draw_every_count() {
        assert_eq!(RandomRange::parse("10-30"), Ok(DEFAULT));
        assert_eq!(RandomRange::parse("7"), Ok(RandomRange::fixed(7)));
        for bad in ["30-10", "61", "a-3", "-", "3-61", ""] {
            assert!(RandomRange::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(DEFAULT.to_string(), "10-30");
        let mut rng = Rng::new(5);
        let mut seen = [false; 21];
        for _ in 0..2000 {
            let n = DEFAULT.draw(&mut rng);
            assert!((10..=30).contains(&n));
            seen[(n - 10) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn random_openings_start_after_the_drawn_count() {
        let s = Settings {
            seed: 9,
            budget: Budget::Depth(1),
            solve_empties: 0,
            random_moves: 2,
            hash_mb: 1,
            keep_opening: false,
            evaluator: Evaluator::Simple,
        };
        let o = Openings::Random(DEFAULT);
        let mut counts = std::collections::BTreeSet::new();
        for g in 0..200 {
            let (before, pos) = start_of_game(&s, &o, g);
            // Passes are rare this early: the empties tell the count.
            let n = 60 - pos.board.empties();
            assert!(n >= before.len() as u32 && (10..=30).contains(&n), "{n}");
            assert_eq!(start_of_game(&s, &o, g).1, pos);
            counts.insert(n);
        }
        assert!(counts.len() > 15, "{counts:?}");
    }
}
