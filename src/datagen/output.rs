//! The output file of a run: locked while written, resumed after an
//! interruption, and marked complete last.
//!
//! `annex datagen` opens its `--out` file without truncating it and takes
//! an exclusive lock on it (released when the process ends, however it
//! ends), so a second run on the same file stops at once with a message.
//! An empty file gets a fresh header (state "incomplete"). A file that
//! holds the same run (same [fingerprint], run size and
//! shard) is resumed: its records are checked, a torn last record and the
//! last game (which may be cut short) are cut off, and the run goes on
//! from that game; games are pure functions of the settings, so the
//! result is byte for byte what an uninterrupted run writes. A complete
//! file of the same run is left as it is. Anything else is refused rather
//! than overwritten. [`Output::finish`] syncs the records to the disk
//! and then writes the header with its record count and the completeness
//! marker.

use super::format::{DataError, HEADER_SIZE, Header, RECORD_SIZE, Reader};
use super::run::Summary;
use super::{Openings, Settings};
use crate::board::Board;
use crate::rng::{self, Rng};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// What an existing file that is not resumed gets told: it is kept.
const KEPT: &str = "it is not overwritten: remove it or choose another --out";

/// Why an output file could not be opened for a run.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A path that is not a regular file.
    #[error("{} is not a regular file", .0.display())]
    NotRegular(PathBuf),
    /// The file cannot be created or opened.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another run holds the file's lock.
    #[error("{} is being written by another annex datagen (the file is locked)", .0.display())]
    Locked(PathBuf),
    /// The lock cannot be taken.
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another input/output error on the file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An existing file that is not a data file of this build.
    #[error("{}: exists and is not a data file of this build ({source}); {KEPT}", path.display())]
    NotData {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: DataError,
    },
    /// An existing data file of another run.
    #[error(
        "{}: holds games {first}..{end} of a {run_games}-game run with other settings; {KEPT}",
        path.display()
    )]
    OtherRun {
        /// The file.
        path: PathBuf,
        /// Its first game.
        first: u64,
        /// Its end (exclusive).
        end: u64,
        /// Its run's games.
        run_games: u64,
    },
    /// An existing file of the run that cannot be read as one.
    #[error("{}: {source}; {KEPT}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: DataError,
    },
    /// A file of the run with a damaged record.
    #[error("{}: cannot resume: {source}; remove it to start again", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: DataError,
    },
}

/// An output file, locked.
pub struct Output {
    file: File,
    header: Header,
    /// Games and records already in the file.
    pub done: Summary,
    /// The first game still to play (the header's `end` when complete).
    pub next_game: u64,
    /// The file was complete already.
    pub complete: bool,
}

/// The FNV-1a offset basis: the hash of no bytes.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes`, continuing from `h`.
pub(crate) fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The fingerprint of a run's settings: everything a game depends on
/// besides its index. The evaluation enters through its values on a fixed
/// set of positions (so `embedded` and a weights file with the same
/// weights agree, and other weights differ); the openings through their
/// positions.
pub fn fingerprint(s: &Settings, openings: &Openings) -> u64 {
    let (kind, budget) = match s.budget {
        super::Budget::Depth(d) => (1u64, u64::from(d)),
        super::Budget::Nodes(n) => (2, n),
    };
    let mut h = FNV_OFFSET;
    for v in [
        u64::from(super::format::VERSION),
        s.seed,
        kind,
        budget,
        u64::from(s.solve_empties),
        u64::from(s.random_moves),
        s.hash_mb as u64,
        u64::from(s.keep_opening),
    ] {
        h = fnv(h, &v.to_le_bytes());
    }
    match openings {
        Openings::Start => h = fnv(h, b"start"),
        Openings::Random(r) => {
            h = fnv(h, b"random");
            h = fnv(h, &r.min.to_le_bytes());
            h = fnv(h, &r.max.to_le_bytes());
        }
        Openings::List(lines) => {
            for line in lines {
                for p in line {
                    h = fnv(h, &p.board.player.to_le_bytes());
                    h = fnv(h, &p.board.opponent.to_le_bytes());
                }
                h = fnv(h, b";");
            }
        }
    }
    // Positions of a few random games, from the start to the end.
    let mut r = Rng::new(rng::hash(0x6576_616c));
    for _ in 0..4 {
        let mut b = Board::start();
        while !b.is_game_over() {
            let moves = b.legal_moves();
            b = if moves == 0 {
                b.pass()
            } else {
                h = fnv(h, &s.evaluator.evaluate(&b).to_le_bytes());
                b.play_square(r.pick_bit(moves))
            };
        }
    }
    h
}

impl Output {
    /// Opens (or creates) `path` for the run `header` describes, locks it
    /// and finds where the run stands (see the module docs).
    ///
    /// # Errors
    /// The file cannot be opened or locked (another run holds it), holds
    /// something else, or is damaged.
    pub fn open(path: &Path, header: Header) -> Result<Output, OutputError> {
        let at = || path.to_path_buf();
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(OutputError::NotRegular(at()));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|source| OutputError::Create { path: at(), source })?;
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => OutputError::Locked(at()),
            std::fs::TryLockError::Error(source) => OutputError::Lock { path: at(), source },
        })?;
        let len = file
            .metadata()
            .map_err(|source| OutputError::Io { path: at(), source })?
            .len();
        let mut out = Output {
            file,
            header,
            done: Summary::default(),
            next_game: header.first,
            complete: false,
        };
        // A file cut short before its header was whole starts afresh.
        let fresh = header.to_bytes();
        let mut head = vec![0u8; (len as usize).min(HEADER_SIZE)];
        let n = super::format::read_full(&mut &out.file, &mut head)
            .map_err(|source| OutputError::Read { path: at(), source })?;
        if len < HEADER_SIZE as u64 && fresh.starts_with(&head[..n]) {
            let write = |source| OutputError::Write { path: at(), source };
            out.file.set_len(0).map_err(write)?;
            out.write_header(&header).map_err(write)?;
            return Ok(out);
        }
        out.resume(path)?;
        Ok(out)
    }

    /// Checks an existing file against the run and positions it after its
    /// last whole game.
    fn resume(&mut self, path: &Path) -> Result<(), OutputError> {
        let at = || path.to_path_buf();
        let io = |source| OutputError::Io { path: at(), source };
        let mut head = [0u8; HEADER_SIZE];
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        let n = super::format::read_full(&mut &self.file, &mut head).map_err(io)?;
        let old = Header::from_bytes(&head[..n])
            .map_err(|source| OutputError::NotData { path: at(), source })?;
        let want = self.header;
        if (old.fingerprint, old.run_games, old.first, old.end)
            != (want.fingerprint, want.run_games, want.first, want.end)
        {
            return Err(OutputError::OtherRun {
                path: at(),
                first: old.first,
                end: old.end,
                run_games: old.run_games,
            });
        }
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut reader = Reader::new(BufReader::with_capacity(1 << 16, &self.file), "", true)
            .map_err(|source| OutputError::Refused { path: at(), source })?;
        // The records before the last game's, and the last game's.
        let (mut kept, mut last) = (Summary::default(), Summary::default());
        let mut last_game = None;
        while let Some(r) = reader
            .next_record()
            .map_err(|source| OutputError::Damaged { path: at(), source })?
        {
            if last_game != Some(r.game) {
                kept.positions += last.positions;
                kept.solved += last.solved;
                last = Summary::default();
                last_game = Some(r.game);
            }
            last.positions += 1;
            last.solved += u64::from(r.solved());
        }
        drop(reader);
        if old.complete {
            self.done = Summary {
                games: old.games(),
                positions: kept.positions + last.positions,
                solved: kept.solved + last.solved,
            };
            self.next_game = old.end;
            self.complete = true;
            return Ok(());
        }
        // The last game may be cut short: it is played again.
        self.next_game = last_game.map_or(old.first, u64::from);
        self.done = Summary {
            games: self.next_game - old.first,
            ..kept
        };
        let cut = HEADER_SIZE as u64 + kept.positions * RECORD_SIZE as u64;
        self.file.set_len(cut).map_err(io)?;
        self.file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(())
    }

    /// Writes `h` at the start of the file and returns to its end.
    fn write_header(&mut self, h: &Header) -> std::io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(&h.to_bytes())?;
        self.file.seek(SeekFrom::End(0)).map(|_| ())
    }

    /// The file, for appending records (positioned at its end).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Marks the file complete: syncs its records, then writes the header
    /// with the count of `positions` and the marker, and syncs again.
    ///
    /// # Errors
    /// A failed write or sync.
    pub fn finish(mut self, positions: u64) -> std::io::Result<()> {
        self.file.sync_data()?;
        let h = Header {
            positions,
            complete: true,
            ..self.header
        };
        self.write_header(&h)?;
        self.file.sync_all()
    }
}
