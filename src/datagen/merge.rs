//! `annex datagen merge`: the shard files of one run joined into one file,
//! byte for byte what one unsharded run writes.
//!
//! Every input must be a complete file of the same run (same settings
//! fingerprint and run size); the shards are put in the order of their
//! games, must not overlap, and must leave no game out between them.
//! `--allow-partial` lets incomplete shards and gaps through, and the
//! result is then marked incomplete itself. The output is written whole
//! or not at all ([`crate::fileio::write_atomic`]).

use super::format::{Header, Reader};
use super::run::Summary;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A shard to merge: its path and header.
struct Shard {
    path: PathBuf,
    header: Header,
}

/// Opens every input and checks that they belong to one run, in order.
/// Returns them sorted by their first game, and whether they join into a
/// complete file.
fn check_shards(inputs: &[PathBuf], allow_partial: bool) -> Result<(Vec<Shard>, bool), String> {
    let mut shards = Vec::with_capacity(inputs.len());
    for p in inputs {
        let r = Reader::open(p, allow_partial).map_err(|e| e.to_string())?;
        let header = r.header().ok_or_else(|| {
            format!(
                "{}: format version 1: merge takes only files of this build's format (train reads it with --allow-partial)",
                p.display()
            )
        })?;
        shards.push(Shard {
            path: p.clone(),
            header,
        });
    }
    let Some(first) = shards
        .first()
        .map(|s| (s.path.display().to_string(), s.header))
    else {
        return Err("no files to merge".into());
    };
    for s in &shards {
        if (s.header.fingerprint, s.header.run_games) != (first.1.fingerprint, first.1.run_games) {
            return Err(format!(
                "{}: not of the same run as {} (other settings or another number of games)",
                s.path.display(),
                first.0
            ));
        }
    }
    shards.sort_by_key(|s| (s.header.first, s.header.end));
    let mut complete = shards.iter().all(|s| s.header.complete);
    for w in shards.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.header.first < a.header.end {
            return Err(format!(
                "{}: games {}..{} overlap games {}..{} of {}: shards of one run overlap or are given twice",
                b.path.display(),
                b.header.first,
                b.header.end,
                a.header.first,
                a.header.end,
                a.path.display()
            ));
        }
        if b.header.first > a.header.end {
            if !allow_partial {
                return Err(format!(
                    "games {}..{} are in none of the files (a shard left out?); pass --allow-partial to merge without them",
                    a.header.end, b.header.first
                ));
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
) -> Result<(Summary, bool), String> {
    if let Ok(o) = out.canonicalize()
        && let Some(p) = inputs
            .iter()
            .find(|p| p.canonicalize().ok().as_ref() == Some(&o))
    {
        return Err(format!("the output {} is also an input", p.display()));
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
    written.map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok((sum, complete))
}

/// Copies the records of one shard to `w`; returns its games (those of
/// its header when complete, else those with records), records and
/// solved records.
fn copy_shard(s: &Shard, allow_partial: bool, w: &mut impl Write) -> Result<Summary, String> {
    let name = s.path.display();
    let mut r = Reader::open(&s.path, allow_partial).map_err(|e| e.to_string())?;
    if r.header() != Some(s.header) {
        return Err(format!("{name}: changed while merged"));
    }
    let mut sum = Summary::default();
    let mut last = None;
    while let Some(rec) = r.next_record().map_err(|e| format!("{name}: {e}"))? {
        w.write_all(&rec.to_bytes())
            .map_err(|e| format!("cannot write the output: {e}"))?;
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
