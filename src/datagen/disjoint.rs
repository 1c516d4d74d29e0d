//! The check that a training set holds no match-opening position: every
//! position within the lines of both XOT lists (`data/openings/xot/`,
//! from the start position to the position after the 8th ply), under the
//! 8 symmetries, with the same side to move, against every record of
//! self-play data files (`annex datagen overlap FILE...`).

use super::format::Record;
use super::openings::OpeningsError;
use crate::board::Board;
use crate::train::exclude::Exclusion;
use std::path::Path;

/// The match opening lists under the data folder.
pub const XOT_FILES: [&str; 2] = [
    "openings/xot/openingslarge.txt",
    "openings/xot/openingssmall.txt",
];

/// Every position reached within the match openings, with its images.
pub struct MatchPositions {
    set: Exclusion,
    /// Opening lines read.
    pub lines: usize,
}

impl MatchPositions {
    /// The positions of the lines of `files` (openings files).
    ///
    /// # Errors
    /// A file cannot be read or holds a line that is not an opening.
    pub fn from_files(files: &[&Path]) -> Result<MatchPositions, OpeningsError> {
        let mut set = Exclusion::new();
        let mut lines = 0;
        for f in files {
            for line in super::openings::read_lines(f)? {
                for p in &line {
                    set.insert(&p.board);
                }
                lines += 1;
            }
        }
        Ok(MatchPositions { set, lines })
    }

    /// The positions of both XOT lists under the data folder `data`.
    ///
    /// # Errors
    /// As [`MatchPositions::from_files`].
    pub fn xot(data: &Path) -> Result<MatchPositions, OpeningsError> {
        let files = XOT_FILES.map(|f| data.join(f));
        Self::from_files(&files.iter().map(|p| p.as_path()).collect::<Vec<_>>())
    }

    /// Positions added (each line's, before taking images).
    pub fn positions(&self) -> usize {
        self.set.positions()
    }

    /// Whether `b` (or an image of it) is a match-opening position.
    pub fn contains(&self, b: &Board) -> bool {
        self.set.contains(b.player, b.opponent)
    }

    /// How many of `records` are match-opening positions, and in how many
    /// games.
    pub fn overlap(&self, records: &[Record]) -> Overlap {
        let mut o = Overlap {
            positions: records.len() as u64,
            ..Overlap::default()
        };
        let mut last = None;
        for r in records {
            if self.set.contains(r.player, r.opponent) {
                o.shared += 1;
                if last != Some(r.game) {
                    o.games += 1;
                    last = Some(r.game);
                }
            }
        }
        o
    }
}

/// What [`MatchPositions::overlap`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    /// Records looked at.
    pub positions: u64,
    /// Of them, match-opening positions.
    pub shared: u64,
    /// Games with at least one.
    pub games: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::format::NO_SCORE;

    #[test]
    fn every_image_of_an_opening_position_is_found() {
        let dir = std::env::temp_dir().join(format!("annex-disjoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("o.txt");
        std::fs::write(&f, "f5d6c3\n").unwrap();
        let m = MatchPositions::from_files(&[&f]).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(m.lines, 1);
        let start = Board::start();
        let f5 = start.play_square(5 + 8 * 4);
        let rec = |b: Board, game| Record {
            player: b.player,
            opponent: b.opponent,
            label: 0,
            flags: 0,
            search: NO_SCORE,
            game,
        };
        for s in 0..8 {
            assert!(m.contains(&f5.symmetry(s)));
        }
        // The same discs with the other side to move are another position.
        assert!(!m.contains(&f5.pass()));
        // f5 d6: in the line; f5 f4 (another opening): not.
        let after = f5.play_square(3 + 8 * 5);
        assert!(m.contains(&after) && !m.contains(&f5.play_square(5 + 8 * 3)));
        let recs = [rec(start, 0), rec(f5.pass(), 0), rec(f5, 1), rec(after, 1)];
        let o = m.overlap(&recs);
        assert_eq!((o.positions, o.shared, o.games), (4, 3, 2));
    }
}
