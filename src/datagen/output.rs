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

use super::format::{HEADER_SIZE, Header, RECORD_SIZE, Reader};
use super::run::Summary;
use super::{Openings, Settings};
use crate::board::Board;
use crate::rng::{self, Rng};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Seek, SeekFrom, Write};
use std::path::Path;

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

/// FNV-1a of `bytes`, continuing from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
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
    let mut h = 0xcbf2_9ce4_8422_2325;
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
    pub fn open(path: &Path, header: Header) -> Result<Output, String> {
        let name = path.display();
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(format!("{name} is not a regular file"));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("cannot create {name}: {e}"))?;
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => {
                format!("{name} is being written by another annex datagen (the file is locked)")
            }
            std::fs::TryLockError::Error(e) => format!("cannot lock {name}: {e}"),
        })?;
        let len = file.metadata().map_err(|e| format!("{name}: {e}"))?.len();
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
            .map_err(|e| format!("cannot read {name}: {e}"))?;
        if len < HEADER_SIZE as u64 && fresh.starts_with(&head[..n]) {
            out.file
                .set_len(0)
                .map_err(|e| format!("cannot write {name}: {e}"))?;
            out.write_header(&header)
                .map_err(|e| format!("cannot write {name}: {e}"))?;
            return Ok(out);
        }
        out.resume().map_err(|e| format!("{name}: {e}"))?;
        Ok(out)
    }

    /// Checks an existing file against the run and positions it after its
    /// last whole game.
    fn resume(&mut self) -> Result<(), String> {
        let refuse =
            |why: &str| format!("{why}; it is not overwritten: remove it or choose another --out");
        let mut head = [0u8; HEADER_SIZE];
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|e| e.to_string())?;
        let n = super::format::read_full(&mut &self.file, &mut head).map_err(|e| e.to_string())?;
        let old = Header::from_bytes(&head[..n]).map_err(|e| {
            refuse(&format!(
                "exists and is not a data file of this build ({e})"
            ))
        })?;
        let want = self.header;
        if (old.fingerprint, old.run_games, old.first, old.end)
            != (want.fingerprint, want.run_games, want.first, want.end)
        {
            return Err(refuse(&format!(
                "holds games {}..{} of a {}-game run with other settings",
                old.first, old.end, old.run_games
            )));
        }
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|e| e.to_string())?;
        let mut reader = Reader::new(BufReader::with_capacity(1 << 16, &self.file), "", true)
            .map_err(|e| refuse(&e.to_string()))?;
        // The records before the last game's, and the last game's.
        let (mut kept, mut last) = (Summary::default(), Summary::default());
        let mut last_game = None;
        while let Some(r) = reader
            .next_record()
            .map_err(|e| format!("cannot resume: {e}; remove it to start again"))?
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
        self.file.set_len(cut).map_err(|e| e.to_string())?;
        self.file
            .seek(SeekFrom::End(0))
            .map_err(|e| e.to_string())?;
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
