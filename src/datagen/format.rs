//! The self-play data file (`.adg`): what `annex datagen` writes and
//! `annex train --datagen` reads.
//!
//! A file is a 16-byte header and then fixed-size records, all
//! little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `ANNEXDG1` |
//! | 8..12 | `u32` format version (1) |
//! | 12..16 | `u32` record size in bytes (24) |
//!
//! Each record (24 bytes) is one position before a move, relative to the
//! side to move (who always has a legal move there):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | `u64` discs of the side to move (bit 0 = a1, bit 63 = h8) |
//! | 8..16 | `u64` discs of the other side |
//! | 16 | `i8` label: the final disc difference for the side to move (empties to the winner) of the game played on from here, with perfect play from the game's first solved position |
//! | 17 | `u8` flags: bit 0 set when the position itself was solved exactly (the label is its perfect-play value) |
//! | 18..20 | `i16` the engine's search score for the side to move, in 1/32 disc (`i16::MIN`: none) |
//! | 20..24 | `u32` the game's index in its run |
//!
//! Records of one game are consecutive, in the order of play; games come
//! in increasing index. Files (shards) of one run concatenate, header
//! dropped, into the file of the whole run.

use std::io::{self, Read, Write};
use std::path::Path;

/// The first 8 bytes of a data file.
pub const MAGIC: &[u8; 8] = b"ANNEXDG1";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;
/// Size of one record in bytes.
pub const RECORD_SIZE: usize = 24;
/// Size of the header in bytes.
pub const HEADER_SIZE: usize = 16;
/// The search score value meaning "not searched".
pub const NO_SCORE: i16 = i16::MIN;

/// Flag bit: the position itself was solved exactly.
pub const FLAG_SOLVED: u8 = 1;

/// One position with its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// Final disc difference for the side to move (see the module docs).
    pub label: i8,
    /// [`FLAG_SOLVED`] and future flags.
    pub flags: u8,
    /// Search score in 1/32 disc, or [`NO_SCORE`].
    pub search: i16,
    /// The game's index in its run.
    pub game: u32,
}

impl Record {
    /// Whether the label is this position's own exact value.
    pub fn solved(&self) -> bool {
        self.flags & FLAG_SOLVED != 0
    }

    /// Empty squares of the position.
    pub fn empties(&self) -> u32 {
        64 - (self.player | self.opponent).count_ones()
    }

    /// The record's 24 bytes.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&self.player.to_le_bytes());
        b[8..16].copy_from_slice(&self.opponent.to_le_bytes());
        b[16] = self.label as u8;
        b[17] = self.flags;
        b[18..20].copy_from_slice(&self.search.to_le_bytes());
        b[20..24].copy_from_slice(&self.game.to_le_bytes());
        b
    }

    /// Decodes 24 bytes; `None` when they cannot be a position (shared
    /// squares or a label beyond 64 discs).
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Option<Record> {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let r = Record {
            player: u64_at(0),
            opponent: u64_at(8),
            label: b[16] as i8,
            flags: b[17],
            search: i16::from_le_bytes([b[18], b[19]]),
            game: u32::from_le_bytes(b[20..24].try_into().expect("4 bytes")),
        };
        let ok = r.player & r.opponent == 0 && (-64..=64).contains(&r.label);
        ok.then_some(r)
    }
}

/// Why a data file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: io::Error,
    },
    /// Not a data file of this version, or a damaged one.
    #[error("{path}: {why}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// Writes the header.
///
/// # Errors
/// The writer's error.
pub fn write_header(w: &mut impl Write) -> io::Result<()> {
    w.write_all(MAGIC)?;
    w.write_all(&VERSION.to_le_bytes())?;
    w.write_all(&(RECORD_SIZE as u32).to_le_bytes())
}

/// Checks a header.
fn check_header(h: &[u8]) -> Result<(), String> {
    if h.len() < HEADER_SIZE || &h[0..8] != MAGIC {
        return Err("not an annex datagen file (bad magic)".into());
    }
    let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
    let size = u32::from_le_bytes(h[12..16].try_into().expect("4 bytes"));
    if version != VERSION || size as usize != RECORD_SIZE {
        return Err(format!(
            "format version {version} with {size}-byte records; this build reads version {VERSION} with {RECORD_SIZE}-byte records"
        ));
    }
    Ok(())
}

/// Decodes a whole file's bytes.
///
/// # Errors
/// A bad header, a truncated record or an impossible position (`why`).
pub fn decode(bytes: &[u8]) -> Result<Vec<Record>, String> {
    check_header(bytes)?;
    let body = &bytes[HEADER_SIZE..];
    if !body.len().is_multiple_of(RECORD_SIZE) {
        return Err(format!(
            "truncated: {} bytes after the header is not a whole number of {RECORD_SIZE}-byte records",
            body.len()
        ));
    }
    body.chunks_exact(RECORD_SIZE)
        .enumerate()
        .map(|(i, c)| {
            Record::from_bytes(c.try_into().expect("a whole record"))
                .ok_or_else(|| format!("record {i} is not a position"))
        })
        .collect()
}

/// Reads a whole data file.
///
/// # Errors
/// The file cannot be read or is not a valid data file.
pub fn read_file(path: &Path) -> Result<Vec<Record>, FormatError> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|source| FormatError::Io {
            path: name.clone(),
            source,
        })?;
    decode(&bytes).map_err(|why| FormatError::Invalid { path: name, why })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: u32) -> Record {
        Record {
            player: 0x0000_0008_1000_0000,
            opponent: 0x0000_0010_0800_0000,
            label: -(i as i8),
            flags: (i & 1) as u8,
            search: if i == 2 { NO_SCORE } else { -(i as i16) * 17 },
            game: i,
        }
    }

    #[test]
    fn records_round_trip_through_a_file_image() {
        let mut bytes = Vec::new();
        write_header(&mut bytes).unwrap();
        let recs: Vec<Record> = (0..5).map(sample).collect();
        for r in &recs {
            bytes.extend_from_slice(&r.to_bytes());
        }
        assert_eq!(bytes.len(), HEADER_SIZE + 5 * RECORD_SIZE);
        assert_eq!(decode(&bytes).unwrap(), recs);
        assert_eq!(recs[1].empties(), 60);
        assert!(recs[1].solved() && !recs[2].solved());
    }

    #[test]
    fn damaged_files_are_refused() {
        let mut bytes = Vec::new();
        write_header(&mut bytes).unwrap();
        bytes.extend_from_slice(&sample(1).to_bytes());
        assert!(
            decode(&bytes[..bytes.len() - 1])
                .unwrap_err()
                .contains("truncated")
        );
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(decode(&bad).unwrap_err().contains("magic"));
        let mut v2 = bytes.clone();
        v2[8] = 2;
        assert!(decode(&v2).unwrap_err().contains("version 2"));
        let mut overlap = bytes.clone();
        overlap[HEADER_SIZE + 8..HEADER_SIZE + 16]
            .copy_from_slice(&0x0000_0008_0000_0000u64.to_le_bytes());
        assert!(decode(&overlap).unwrap_err().contains("record 0"));
    }
}
