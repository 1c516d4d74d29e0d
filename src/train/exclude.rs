//! Test positions kept out of training: every position of the given OBF
//! files (by default the FFO suites and Edax's hard-20) and its 8
//! symmetric images, with the same side to move.
//!
//! WTHOR games contain most of hard-20 and about half of the FFO
//! positions; training on them would make the errors measured on those
//! suites training errors.

use crate::board::Board;
use crate::position::ObfLine;
use crate::train::TrainError;
use crate::train::fit::Sample;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The default exclusion files, relative to the shared data folder.
pub const DEFAULT_FILES: [&str; 4] = [
    "endgame/ffo/fforum-1-19.obf",
    "endgame/ffo/fforum-20-39.obf",
    "endgame/ffo/fforum-40-59.obf",
    "endgame/edax_hard/hard-20.obf",
];

/// The default exclusion files under `data_dir`.
pub fn default_files(data_dir: &Path) -> Vec<PathBuf> {
    DEFAULT_FILES.iter().map(|f| data_dir.join(f)).collect()
}

/// A set of positions (side to move first) closed under the 8 symmetries.
#[derive(Clone, Debug, Default)]
pub struct Exclusion {
    /// Every image of every excluded position.
    images: HashSet<(u64, u64)>,
    /// Positions added (before taking images).
    positions: usize,
}

impl Exclusion {
    /// An empty set.
    pub fn new() -> Exclusion {
        Exclusion::default()
    }

    /// Adds a position and its 8 images.
    pub fn insert(&mut self, b: &Board) {
        self.positions += 1;
        for s in 0..8 {
            let x = b.symmetry(s);
            self.images.insert((x.player, x.opponent));
        }
    }

    /// Whether the position, or one of its symmetric images, is excluded.
    pub fn contains(&self, player: u64, opponent: u64) -> bool {
        self.images.contains(&(player, opponent))
    }

    /// Positions added.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Whether nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// Adds every position of an OBF file (one position a line, board then
    /// side to move; anything after is ignored; `%` lines are comments).
    ///
    /// # Errors
    /// The file cannot be read or a line is not a position.
    pub fn add_obf(&mut self, path: &Path) -> Result<usize, TrainError> {
        let text = crate::fileio::read_string_bounded(path, crate::fileio::MAX_TEXT_BYTES)
            .map_err(|source| TrainError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        let mut n = 0;
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('%'))
        {
            let o: ObfLine = line.parse().map_err(|source| TrainError::Position {
                path: path.to_path_buf(),
                source,
            })?;
            self.insert(&o.position.board);
            n += 1;
        }
        Ok(n)
    }

    /// Loads every file.
    ///
    /// # Errors
    /// As [`Exclusion::add_obf`].
    pub fn from_files(files: &[PathBuf]) -> Result<Exclusion, TrainError> {
        let mut x = Exclusion::new();
        for f in files {
            x.add_obf(f)?;
        }
        Ok(x)
    }

    /// Removes the excluded positions from `by_empties`; returns how many
    /// were removed.
    pub fn filter(&self, by_empties: &mut [Vec<Sample>]) -> usize {
        if self.is_empty() {
            return 0;
        }
        let mut dropped = 0;
        for v in by_empties.iter_mut() {
            let before = v.len();
            v.retain(|s| !self.contains(s.player, s.opponent));
            dropped += before - v.len();
        }
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::flips;

    /// The board after the moves (square indices) from the start.
    fn after(moves: &[usize]) -> Board {
        let mut b = Board::start();
        for &m in moves {
            b = b.play_flips(m, flips(b.player, b.opponent, m));
        }
        b
    }

    fn sample(b: &Board) -> Sample {
        Sample {
            player: b.player,
            opponent: b.opponent,
            label: 0,
            source: 0,
        }
    }

    #[test]
    fn a_position_and_its_rotation_are_excluded_another_is_kept() {
        // f5 d6 c3 (a tiger-like line): an asymmetric position.
        let b = after(&[37, 43, 18]);
        let mut x = Exclusion::new();
        x.insert(&b);
        // The rotation by 90 degrees (two mirrors): an image, not the board.
        let rot = b.symmetry(5);
        assert_ne!(rot, b);
        // The same discs with the other side to move are another position.
        let swapped = Board::new(b.opponent, b.player);
        let other = after(&[37, 43, 18, 19]);
        let mut by = vec![Vec::new(); 61];
        for p in [b, rot, swapped, other] {
            by[p.empties() as usize].push(sample(&p));
        }
        assert_eq!(x.filter(&mut by), 2);
        let kept: Vec<(u64, u64)> = by
            .iter()
            .flatten()
            .map(|s| (s.player, s.opponent))
            .collect();
        assert_eq!(
            kept,
            vec![
                (other.player, other.opponent),
                (swapped.player, swapped.opponent)
            ]
        );
    }

    #[test]
    fn default_files_hold_the_test_suites() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        let x = Exclusion::from_files(&default_files(&data)).unwrap();
        // 59 FFO positions (3 files) and 276 hard-20 positions.
        assert_eq!(x.positions(), 59 + 276);
        let bad = Exclusion::from_files(&[data.join("no-such-file.obf")]).unwrap_err();
        assert!(bad.to_string().contains("no-such-file.obf"), "{bad}");
    }
}
