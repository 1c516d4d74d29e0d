//! `annex datagen merge`: the shard files of one run joined into one file,
//! byte for byte what one unsharded run writes.
//!
//! Every input must be a complete file of the same run (same settings
//! fingerprint and run size); the shards are put in the order of their
//! games, must not overlap, and must leave no game out between them.
//! `--allow-partial` lets incomplete shards and gaps through, and the
//! result is then marked incomplete itself. The output is written whole
//! or not at all ([`crate::fileio::write_atomic`]).

use super::format::{DataError, FormatError, Header, Reader};
use super::run::Summary;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Why shards could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// An input that cannot be opened or is not a valid data file.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// An input of format version 1.
    #[error(
        "{}: format version 1: merge takes only files of this build's format (train reads it with --allow-partial)",
        .0.display()
    )]
    Version1(PathBuf),
    /// No inputs.
    #[error("no files to merge")]
    NoFiles,
    /// An input of another run than the first input.
    #[error("{}: not of the same run as {first} (other settings or another number of games)", path.display())]
    OtherRun {
        /// The input.
        path: PathBuf,
        /// The first input's name.
        first: String,
    },
    /// Two inputs that share games.
    #[error(
        "{}: games {}..{} overlap games {}..{} of {}: shards of one run overlap or are given twice",
        path.display(), games.0, games.1, other_games.0, other_games.1, other.display()
    )]
    Overlap {
        /// The later input.
        path: PathBuf,
        /// Its games.
        games: (u64, u64),
        /// The earlier input.
        other: PathBuf,
        /// Its games.
        other_games: (u64, u64),
    },
    /// Games in none of the inputs (without `allow_partial`).
    #[error(
        "games {0}..{1} are in none of the files (a shard left out?); pass --allow-partial to merge without them"
    )]
    Gap(u64, u64),
    /// The output is one of the inputs.
    #[error("the output {} is also an input", .0.display())]
    OutputIsInput(PathBuf),
    /// An input whose header changed between the check and the copy.
    #[error("{}: changed while merged", .0.display())]
    Changed(PathBuf),
    /// A bad record in an input.
    #[error("{}: {source}", path.display())]
    Record {
        /// The input.
        path: PathBuf,
        /// What is wrong.
        source: DataError,
    },
    /// A record could not be written to the output.
    #[error("cannot write the output: {0}")]
    WriteOutput(#[source] std::io::Error),
    /// The output could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A shard to merge: its path and header.
struct Shard {
    path: PathBuf,
    header: Header,
}

/// Opens every input and checks that they belong to one run, in order.
/// Returns them sorted by their first game, and whether they join into a
/// complete file.
fn check_shards(inputs: &[PathBuf], allow_partial: bool) -> Result<(Vec<Shard>, bool), MergeError> {
    let mut shards = Vec::with_capacity(inputs.len());
    for p in inputs {
        let r = Reader::open(p, allow_partial)?;
        let header = r.header().ok_or_else(|| MergeError::Version1(p.clone()))?;
        shards.push(Shard {
            path: p.clone(),
            header,
        });
    }
    let Some(first) = shards
        .first()
        .map(|s| (s.path.display().to_string(), s.header))
    else {
        return Err(MergeError::NoFiles);
    };
    for s in &shards {
        if (s.header.fingerprint, s.header.run_games) != (first.1.fingerprint, first.1.run_games) {
            return Err(MergeError::OtherRun {
                path: s.path.clone(),
                first: first.0,
            });
        }
    }
    shards.sort_by_key(|s| (s.header.first, s.header.end));
    let mut complete = shards.iter().all(|s| s.header.complete);
    for w in shards.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.header.first < a.header.end {
            return Err(MergeError::Overlap {
                path: b.path.clone(),
                games: (b.header.first, b.header.end),
                other: a.path.clone(),
                other_games: (a.header.first, a.header.end),
            });
        }
        if b.header.first > a.header.end {
            if !allow_partial {
                return Err(MergeError::Gap(a.header.end, b.header.first));
            }
            complete = false;
        }
    }
    Ok((shards, complete))
}

/// Joins shard files into `out` (see the module docs); returns what it
/// wrote and whether the result is complete.
///
/// # Errors
/// A file that cannot be read or written, a bad or incomplete file (unless
/// `allow_partial`), files of other runs, or games out of order.
pub fn merge(
    inputs: &[PathBuf],
    out: &Path,
    allow_partial: bool,
) -> Result<(Summary, bool), MergeError> {
    if let Ok(o) = out.canonicalize()
        && let Some(p) = inputs
            .iter()
            .find(|p| p.canonicalize().ok().as_ref() == Some(&o))
    {
        return Err(MergeError::OutputIsInput(p.clone()));
    }
    let (shards, complete) = check_shards(inputs, allow_partial)?;
    let header = Header {
        first: shards[0].header.first,
        end: shards[shards.len() - 1].header.end,
        positions: 0,
        complete: false,
        ..shards[0].header
    };
    let mut sum = Summary::default();
    let mut failure = None;
    let written = crate::fileio::write_atomic(out, |w| {
        w.write_all(&header.to_bytes())?;
        for s in &shards {
            let games = copy_shard(s, allow_partial, w).map_err(|e| {
                failure = Some(e);
                std::io::Error::other("a bad input")
            })?;
            sum.games += games.games;
            sum.positions += games.positions;
            sum.solved += games.solved;
        }
        w.seek(SeekFrom::Start(0))?;
        let done = Header {
            positions: sum.positions,
            complete,
            ..header
        };
        w.write_all(&done.to_bytes())
    });
    if let Some(f) = failure {
        return Err(f);
    }
    written.map_err(|source| MergeError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok((sum, complete))
}

/// Copies the records of one shard to `w`; returns its games (those of
/// its header when complete, else those with records), records and
/// solved records.
fn copy_shard(s: &Shard, allow_partial: bool, w: &mut impl Write) -> Result<Summary, MergeError> {
    let name = s.path.display();
    let mut r = Reader::open(&s.path, allow_partial)?;
    if r.header() != Some(s.header) {
        return Err(MergeError::Changed(s.path.clone()));
    }
    let mut sum = Summary::default();
    let mut last = None;
    while let Some(rec) = r.next_record().map_err(|source| MergeError::Record {
        path: s.path.clone(),
        source,
    })? {
        w.write_all(&rec.to_bytes())
            .map_err(MergeError::WriteOutput)?;
        sum.games += u64::from(last != Some(rec.game));
        last = Some(rec.game);
        sum.positions += 1;
        sum.solved += u64::from(rec.solved());
    }
    if r.torn() > 0 {
        log::warn!("{name}: dropped a torn last record ({} bytes)", r.torn());
    }
    if s.header.complete {
        sum.games = s.header.games();
    }
    Ok(sum)
}
