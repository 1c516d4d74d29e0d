//! The self-play data file (`.adg`): what `annex datagen` writes and
//! `annex train --datagen` reads.
//!
//! A file is a 64-byte header and then fixed-size records, all
//! little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `ANNEXDG1` |
//! | 8..12 | `u32` format version (2) |
//! | 12..16 | `u32` record size in bytes (24) |
//! | 16..24 | `u64` fingerprint of the run's settings (seed, budget, openings, evaluation, ...) |
//! | 24..32 | `u64` games in the whole run (all shards) |
//! | 32..40 | `u64` the file's first game |
//! | 40..48 | `u64` the game after its last (the file holds the games `first..end`) |
//! | 48..56 | `u64` records in the file (0 until complete) |
//! | 56..60 | `u32` state: 1 complete, 0 not (being written, interrupted, or a partial merge) |
//! | 60..64 | reserved, 0 |
//!
//! The state is the completeness marker: a run writes the header with
//! state 0 first, appends the games, syncs them to the disk and only then
//! rewrites the header with the record count and state 1. A file cut
//! short by a signal, a kill or a full disk therefore never reads as
//! complete, and readers refuse it unless told that a partial file is
//! wanted (`--allow-partial`). A complete file's length is checked
//! against its record count.
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
//! in increasing index, within the header's `first..end` (a game may have
//! no record: one that ends during its random moves). The shards of one
//! run concatenate, headers dropped, into the file of the whole run, whose
//! header covers `0..games` (`annex datagen merge`).
//!
//! Version 1 files (a 16-byte header: magic, version, record size) carry
//! no marker, so nothing tells a finished run from an interrupted one:
//! readers take them only as partial files (`--allow-partial`).

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

/// The first 8 bytes of a data file.
pub const MAGIC: &[u8; 8] = b"ANNEXDG1";
/// The format version this build writes.
pub const VERSION: u32 = 2;
/// Size of one record in bytes.
pub const RECORD_SIZE: usize = 24;
/// Size of the header in bytes.
pub const HEADER_SIZE: usize = 64;
/// Size of a version 1 header in bytes.
const V1_HEADER_SIZE: usize = 16;
/// The search score value meaning "not searched".
pub const NO_SCORE: i16 = i16::MIN;
/// The largest data file a tool opens: 64 GiB, about 2.8 billion
/// positions (a 100,000-game run at the default settings is about 120 MB).
pub const MAX_FILE_BYTES: u64 = 64 << 30;

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

/// The header of a version 2 file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Fingerprint of the run's settings (files of one run share it).
    pub fingerprint: u64,
    /// Games in the whole run.
    pub run_games: u64,
    /// The file's first game.
    pub first: u64,
    /// The game after the file's last.
    pub end: u64,
    /// Records in the file (0 until complete).
    pub positions: u64,
    /// The completeness marker.
    pub complete: bool,
}

impl Header {
    /// The header's 64 bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&(RECORD_SIZE as u32).to_le_bytes());
        for (i, v) in [
            self.fingerprint,
            self.run_games,
            self.first,
            self.end,
            self.positions,
        ]
        .iter()
        .enumerate()
        {
            b[16 + 8 * i..24 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        b[56..60].copy_from_slice(&u32::from(self.complete).to_le_bytes());
        b
    }

    /// Decodes a version 2 header.
    ///
    /// # Errors
    /// Bytes that are not one.
    pub fn from_bytes(b: &[u8]) -> Result<Header, DataError> {
        if version_of(b)? != VERSION || b.len() < HEADER_SIZE {
            return Err(DataError::NotHeader);
        }
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let state = u32::from_le_bytes(b[56..60].try_into().expect("4 bytes"));
        let h = Header {
            fingerprint: u64_at(16),
            run_games: u64_at(24),
            first: u64_at(32),
            end: u64_at(40),
            positions: u64_at(48),
            complete: state == 1,
        };
        if state > 1 || h.first > h.end || h.end > h.run_games {
            return Err(DataError::DamagedHeader);
        }
        Ok(h)
    }

    /// Games the file covers.
    pub fn games(&self) -> u64 {
        self.end - self.first
    }
}

/// The version of a file that starts with `b` (at least the 16 bytes of
/// the magic, version and record size).
///
/// # Errors
/// Not a data file, or one of a version or record size this build does
/// not read.
fn version_of(b: &[u8]) -> Result<u32, DataError> {
    if b.len() < V1_HEADER_SIZE || &b[0..8] != MAGIC {
        return Err(DataError::Magic);
    }
    let version = u32::from_le_bytes(b[8..12].try_into().expect("4 bytes"));
    let size = u32::from_le_bytes(b[12..16].try_into().expect("4 bytes"));
    if !(1..=VERSION).contains(&version) || size as usize != RECORD_SIZE {
        return Err(DataError::Version { version, size });
    }
    Ok(version)
}

/// What is wrong with a data file's bytes (the message without the
/// file's name).
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The bytes could not be read.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not a data file at all.
    #[error("not an annex datagen file (bad magic)")]
    Magic,
    /// A version or record size this build does not read.
    #[error(
        "format version {version} with {size}-byte records; this build reads versions 1 and {VERSION} with {RECORD_SIZE}-byte records"
    )]
    Version {
        /// The file's version.
        version: u32,
        /// Its record size in bytes.
        size: u32,
    },
    /// Bytes that are not a header of the current version.
    #[error("not a version {VERSION} header")]
    NotHeader,
    /// A header whose fields contradict each other.
    #[error("damaged header")]
    DamagedHeader,
    /// A header cut short.
    #[error("truncated header")]
    TruncatedHeader,
    /// A version 1 file read without `allow_partial`.
    #[error(
        "format version 1 has no completeness marker, so a finished run cannot be told from an interrupted one; regenerate it, or pass --allow-partial to read it as it is"
    )]
    Version1,
    /// An unfinished run read without `allow_partial`.
    #[error(
        "incomplete: a run of games {first}..{end} that did not finish (interrupted, or still being written); rerun the same datagen command to resume it, or pass --allow-partial to read what it holds"
    )]
    Incomplete {
        /// The run's first game.
        first: u64,
        /// Its end (exclusive).
        end: u64,
    },
    /// A file whose length disagrees with its header's record count.
    #[error(
        "damaged: its header says {positions} records ({want} bytes) but the file has {len} bytes"
    )]
    FileLength {
        /// Records the header declares.
        positions: u64,
        /// The length they make.
        want: u64,
        /// The file's length.
        len: u64,
    },
    /// Bytes whose length disagrees with their header's record count.
    #[error("damaged: its header says {positions} records ({want} bytes) but it has {len} bytes")]
    BytesLength {
        /// Records the header declares.
        positions: u64,
        /// The length they make.
        want: u64,
        /// The bytes' length.
        len: u64,
    },
    /// A complete file holding another count of records than its header's.
    #[error("damaged: its header says {positions} records, it holds {read}")]
    Count {
        /// Records the header declares.
        positions: u64,
        /// Records read.
        read: u64,
    },
    /// A record cut short (in a file read as complete).
    #[error("truncated: record {index} has {bytes} of {RECORD_SIZE} bytes")]
    TruncatedRecord {
        /// The record's index.
        index: u64,
        /// Its bytes.
        bytes: usize,
    },
    /// A record that is not a position.
    #[error("record {0} is not a position")]
    NotPosition(u64),
    /// A record of an earlier game than the record before it.
    #[error(
        "record {index}: game {game} after game {last}: records out of order (two runs wrote one file?)"
    )]
    OutOfOrder {
        /// The record's index.
        index: u64,
        /// Its game.
        game: u32,
        /// The previous record's game.
        last: u32,
    },
    /// A record of a game outside the header's games.
    #[error("record {index}: game {game} outside the file's games {first}..{end}")]
    OutsideGames {
        /// The record's index.
        index: u64,
        /// Its game.
        game: u32,
        /// The file's first game.
        first: u64,
        /// Its end (exclusive).
        end: u64,
    },
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
        #[source]
        why: DataError,
    },
    /// Not a valid game corpus ([`super::corpus`]).
    #[error("{path}: {why}")]
    Corpus {
        /// The file.
        path: String,
        /// What is wrong.
        #[source]
        why: super::corpus::CorpusError,
    },
}

/// Writes a header.
///
/// # Errors
/// The writer's error.
pub fn write_header(w: &mut impl Write, h: &Header) -> io::Result<()> {
    w.write_all(&h.to_bytes())
}

/// The bytes of a complete file of `records` (their games in increasing
/// order): a header covering the games from the first record's to the
/// last record's, fingerprint 0. For tools and tests that make data files
/// from other sources.
pub fn encode(records: &[Record]) -> Vec<u8> {
    let first = records.first().map_or(0, |r| u64::from(r.game));
    let end = records.last().map_or(0, |r| u64::from(r.game) + 1);
    let h = Header {
        fingerprint: 0,
        run_games: end,
        first,
        end,
        positions: records.len() as u64,
        complete: true,
    };
    let mut bytes = Vec::with_capacity(HEADER_SIZE + records.len() * RECORD_SIZE);
    bytes.extend_from_slice(&h.to_bytes());
    for r in records {
        bytes.extend_from_slice(&r.to_bytes());
    }
    bytes
}

/// A data file read record by record, each checked: a position, its game
/// within the header's games and not before the previous record's.
pub struct Reader<R> {
    inner: R,
    name: String,
    /// The header; `None` for a version 1 file.
    header: Option<Header>,
    allow_partial: bool,
    /// Records read so far.
    read: u64,
    last_game: Option<u32>,
    /// Bytes of a torn last record that were dropped.
    torn: usize,
}

impl Reader<BufReader<File>> {
    /// Opens `path` (a regular file of at most [`MAX_FILE_BYTES`]) and
    /// checks its header. Without `allow_partial` only a complete file of
    /// this version is accepted.
    ///
    /// # Errors
    /// The file cannot be opened, is not a data file, is incomplete (and
    /// that is not allowed), or its length disagrees with its header.
    pub fn open(path: &Path, allow_partial: bool) -> Result<Self, FormatError> {
        let name = path.display().to_string();
        let io_err = |source| FormatError::Io {
            path: name.clone(),
            source,
        };
        let file = crate::fileio::open_regular(path, MAX_FILE_BYTES).map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        let mut r = Reader::new(
            BufReader::with_capacity(1 << 16, file),
            &name,
            allow_partial,
        )
        .map_err(|why| FormatError::Invalid {
            path: name.clone(),
            why,
        })?;
        if let Some(h) = r.header.filter(|h| h.complete) {
            let want = HEADER_SIZE as u64 + h.positions * RECORD_SIZE as u64;
            if len != want {
                return Err(FormatError::Invalid {
                    path: name,
                    why: DataError::FileLength {
                        positions: h.positions,
                        want,
                        len,
                    },
                });
            }
        }
        r.name = name;
        Ok(r)
    }
}

impl<R: Read> Reader<R> {
    /// Reads and checks the header of `inner`, named `name` in messages.
    ///
    /// # Errors
    /// As [`Reader::open`] (the message without the name).
    pub fn new(mut inner: R, name: &str, allow_partial: bool) -> Result<Self, DataError> {
        let mut head = [0u8; HEADER_SIZE];
        let n = read_full(&mut inner, &mut head[..V1_HEADER_SIZE])?;
        let header = match version_of(&head[..n])? {
            1 if allow_partial => None,
            1 => return Err(DataError::Version1),
            _ => {
                let k = read_full(&mut inner, &mut head[V1_HEADER_SIZE..])?;
                if k < HEADER_SIZE - V1_HEADER_SIZE {
                    return Err(DataError::TruncatedHeader);
                }
                let h = Header::from_bytes(&head)?;
                if !h.complete && !allow_partial {
                    return Err(DataError::Incomplete {
                        first: h.first,
                        end: h.end,
                    });
                }
                Some(h)
            }
        };
        Ok(Reader {
            inner,
            name: name.to_string(),
            header,
            allow_partial,
            read: 0,
            last_game: None,
            torn: 0,
        })
    }

    /// The header (`None`: a version 1 file).
    pub fn header(&self) -> Option<Header> {
        self.header
    }

    /// Bytes of a torn last record dropped (only in a partial file).
    pub fn torn(&self) -> usize {
        self.torn
    }

    /// The next record, `None` at the end.
    ///
    /// # Errors
    /// A read error, a truncated record (a partial file drops it), a
    /// record that is not a position, or games out of order or outside
    /// the header's.
    pub fn next_record(&mut self) -> Result<Option<Record>, DataError> {
        let mut b = [0u8; RECORD_SIZE];
        let i = self.read;
        match read_full(&mut self.inner, &mut b)? {
            0 => return self.at_end().map(|()| None),
            RECORD_SIZE => {}
            n if self.partial() => {
                self.torn = n;
                return Ok(None);
            }
            n => return Err(DataError::TruncatedRecord { index: i, bytes: n }),
        }
        let r = Record::from_bytes(&b).ok_or(DataError::NotPosition(i))?;
        if let Some(l) = self.last_game.filter(|&l| r.game < l) {
            return Err(DataError::OutOfOrder {
                index: i,
                game: r.game,
                last: l,
            });
        }
        if let Some(h) = self.header
            && !(h.first..h.end).contains(&u64::from(r.game))
        {
            return Err(DataError::OutsideGames {
                index: i,
                game: r.game,
                first: h.first,
                end: h.end,
            });
        }
        self.last_game = Some(r.game);
        self.read += 1;
        Ok(Some(r))
    }

    /// Whether the file is read as partial (incomplete or version 1).
    fn partial(&self) -> bool {
        self.allow_partial && self.header.is_none_or(|h| !h.complete)
    }

    /// Checks the count of a complete file at its end.
    fn at_end(&self) -> Result<(), DataError> {
        match self.header {
            Some(h) if h.complete && h.positions != self.read => Err(DataError::Count {
                positions: h.positions,
                read: self.read,
            }),
            _ => Ok(()),
        }
    }

    /// Every remaining record.
    ///
    /// # Errors
    /// As [`Reader::next_record`], with the file's name.
    pub fn read_all(&mut self) -> Result<Vec<Record>, FormatError> {
        let mut out = Vec::new();
        while let Some(r) = self.next_record().map_err(|why| FormatError::Invalid {
            path: self.name.clone(),
            why,
        })? {
            out.push(r);
        }
        if self.torn > 0 {
            log::warn!(
                "{}: dropped a torn last record ({} bytes)",
                self.name,
                self.torn
            );
        }
        Ok(out)
    }
}

/// Reads until `buf` is full or the end; returns the bytes read.
///
/// # Errors
/// The reader's error.
pub fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Decodes a whole file's bytes.
///
/// # Errors
/// As [`Reader::next_record`].
pub fn decode(bytes: &[u8], allow_partial: bool) -> Result<Vec<Record>, DataError> {
    let mut r = Reader::new(bytes, "", allow_partial)?;
    if let Some(h) = r.header.filter(|h| h.complete) {
        let want = HEADER_SIZE as u64 + h.positions * RECORD_SIZE as u64;
        if bytes.len() as u64 != want {
            return Err(DataError::BytesLength {
                positions: h.positions,
                want,
                len: bytes.len() as u64,
            });
        }
    }
    let mut out = Vec::new();
    while let Some(rec) = r.next_record()? {
        out.push(rec);
    }
    Ok(out)
}

/// Reads a whole, complete data file.
///
/// # Errors
/// The file cannot be read, is not a valid data file, or is incomplete.
pub fn read_file(path: &Path) -> Result<Vec<Record>, FormatError> {
    read_file_with(path, false)
}

/// Reads a whole data file; with `allow_partial` an incomplete or
/// version 1 file too (without its torn last record, if any). A game
/// corpus ([`super::corpus`], always complete) reads as the records of
/// the data file it was made from.
///
/// # Errors
/// As [`read_file`], an incomplete file only without `allow_partial`.
pub fn read_file_with(path: &Path, allow_partial: bool) -> Result<Vec<Record>, FormatError> {
    if super::corpus::file_is_corpus(path) {
        return super::corpus::read_file(path).map(|(_, recs)| recs);
    }
    Reader::open(path, allow_partial)?.read_all()
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
        let recs: Vec<Record> = (0..5).map(sample).collect();
        let bytes = encode(&recs);
        assert_eq!(bytes.len(), HEADER_SIZE + 5 * RECORD_SIZE);
        assert_eq!(decode(&bytes, false).unwrap(), recs);
        let h = Header::from_bytes(&bytes).unwrap();
        assert_eq!((h.first, h.end, h.positions, h.complete), (0, 5, 5, true));
        assert_eq!(recs[1].empties(), 60);
        assert!(recs[1].solved() && !recs[2].solved());
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = encode(&[sample(1)]);
        assert!(
            decode(&bytes[..bytes.len() - 1], false)
                .unwrap_err()
                .to_string()
                .contains("damaged")
        );
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(
            decode(&bad, false)
                .unwrap_err()
                .to_string()
                .contains("magic")
        );
        let mut v3 = bytes.clone();
        v3[8] = 3;
        assert!(
            decode(&v3, false)
                .unwrap_err()
                .to_string()
                .contains("version 3")
        );
        let mut overlap = bytes.clone();
        overlap[HEADER_SIZE + 8..HEADER_SIZE + 16]
            .copy_from_slice(&0x0000_0008_0000_0000u64.to_le_bytes());
        assert!(
            decode(&overlap, false)
                .unwrap_err()
                .to_string()
                .contains("record 0")
        );
    }

    #[test]
    fn partial_and_version_1_files_need_allow_partial() {
        let recs: Vec<Record> = (0..3).map(sample).collect();
        let mut bytes = encode(&recs);
        let mut h = Header::from_bytes(&bytes).unwrap();
        h.complete = false;
        h.positions = 0;
        bytes[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
        assert!(
            decode(&bytes, false)
                .unwrap_err()
                .to_string()
                .contains("incomplete")
        );
        // A torn last record is dropped from a partial file.
        assert_eq!(decode(&bytes[..bytes.len() - 5], true).unwrap(), recs[..2]);
        let mut v1 = bytes[..16].to_vec();
        v1[8] = 1;
        v1.extend_from_slice(&bytes[HEADER_SIZE..]);
        assert!(
            decode(&v1, false)
                .unwrap_err()
                .to_string()
                .contains("--allow-partial")
        );
        assert_eq!(decode(&v1, true).unwrap(), recs);
        // Games out of order are refused even in a partial file.
        let mut swapped = recs.clone();
        swapped.swap(0, 2);
        let mut s = v1[..16].to_vec();
        for r in &swapped {
            s.extend_from_slice(&r.to_bytes());
        }
        assert!(
            decode(&s, true)
                .unwrap_err()
                .to_string()
                .contains("out of order")
        );
    }
}
