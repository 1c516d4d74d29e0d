//! A run (or one shard of it): games played on worker threads, each with
//! its own one-thread engine, and written in game order by the calling
//! thread (games that finish early wait in a buffer). The output is
//! flushed after every game written, so an interrupted run keeps whole
//! games but for the last, which may be cut short (see
//! [`output`](super::output) for the header, the lock and resuming).
//! Progress (games, positions, rates, ETA) goes to stderr every few
//! seconds.

use super::format::Record;
use super::{DatagenError, Openings, Player, Settings, play_game};
use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games written.
    pub games: u64,
    /// Positions written.
    pub positions: u64,
    /// Of them, solved exactly.
    pub solved: u64,
}

/// The games `[i*G/N, (i+1)*G/N)` of shard `i` of `n` of a `G`-game run.
pub fn shard_range(games: u64, i: u64, n: u64) -> Range<u64> {
    let at = |k: u64| (u128::from(games) * u128::from(k) / u128::from(n)) as u64;
    at(i)..at(i + 1)
}

/// Plays the games `range` on `threads` workers and writes their records
/// to `out`, in game order. `progress`: report to stderr
/// every `progress` (none: silent).
///
/// # Errors
/// The output cannot be written, or a worker failed (the message says why);
/// the games written before stay whole.
pub fn run(
    settings: &Settings,
    openings: &Openings,
    range: Range<u64>,
    threads: usize,
    out: &mut impl Write,
    progress: Option<Duration>,
) -> Result<Summary, DatagenError> {
    let next = AtomicU64::new(range.start);
    let abort = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::unbounded::<(u64, Result<Vec<Record>, DatagenError>)>();
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, abort, end) = (&next, &abort, range.end);
            s.spawn(move || {
                let mut player = match Player::new(settings) {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = tx.send((u64::MAX, Err(e)));
                        return;
                    }
                };
                while !abort.load(Relaxed) {
                    let g = next.fetch_add(1, Relaxed);
                    if g >= end {
                        break;
                    }
                    let r = play_game(&mut player, settings, openings, g);
                    if tx.send((g, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let r = collect(&rx, range.clone(), out, progress);
        abort.store(true, Relaxed);
        // Unblock the workers' sends and drain what they still finish.
        drop(rx);
        r
    })
}

/// Receives games and writes them in order.
fn collect(
    rx: &crossbeam_channel::Receiver<(u64, Result<Vec<Record>, DatagenError>)>,
    range: Range<u64>,
    out: &mut impl Write,
    progress: Option<Duration>,
) -> Result<Summary, DatagenError> {
    let start = Instant::now();
    let total = range.end - range.start;
    let mut sum = Summary::default();
    let mut pending: BTreeMap<u64, Vec<Record>> = BTreeMap::new();
    let mut want = range.start;
    let mut last_report = Instant::now();
    let tick = progress.unwrap_or(Duration::from_secs(3600));
    while want < range.end {
        match rx.recv_timeout(tick) {
            Ok((g, r)) => {
                pending.insert(g, r?);
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                return Err(DatagenError::WorkersStopped(want));
            }
        }
        while let Some(recs) = pending.remove(&want) {
            write_game(out, &recs).map_err(DatagenError::Write)?;
            sum.games += 1;
            sum.positions += recs.len() as u64;
            sum.solved += recs.iter().filter(|r| r.solved()).count() as u64;
            want += 1;
        }
        if progress.is_some() && last_report.elapsed() >= tick {
            last_report = Instant::now();
            report(&sum, total, start.elapsed());
        }
    }
    if progress.is_some() {
        report(&sum, total, start.elapsed());
    }
    Ok(sum)
}

/// Writes one game's records and flushes.
fn write_game(out: &mut impl Write, recs: &[Record]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(recs.len() * super::format::RECORD_SIZE);
    for r in recs {
        buf.extend_from_slice(&r.to_bytes());
    }
    out.write_all(&buf)?;
    out.flush()
}

/// One progress line on stderr.
fn report(sum: &Summary, total: u64, elapsed: Duration) {
    let secs = elapsed.as_secs_f64().max(1e-3);
    let gps = sum.games as f64 / secs;
    let eta = if sum.games == 0 {
        "?".to_string()
    } else {
        hms(((total - sum.games) as f64 / gps) as u64)
    };
    let _ = writeln!(
        std::io::stderr(),
        "datagen: {}/{} games, {} positions, {:.2} games/s, {:.0} positions/s, elapsed {}, ETA {}",
        sum.games,
        total,
        sum.positions,
        gps,
        sum.positions as f64 / secs,
        hms(elapsed.as_secs()),
        eta
    );
}

/// `1h02m03s`, `2m03s` or `3s`.
fn hms(s: u64) -> String {
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, sec) => format!("{m}m{sec:02}s"),
        (h, m, sec) => format!("{h}h{m:02}m{sec:02}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_run_once() {
        for (g, n) in [(10, 3), (2, 5), (1_000_003, 100), (0, 1), (7, 1)] {
            let mut at = 0;
            for i in 0..n {
                let r = shard_range(g, i, n);
                assert_eq!(r.start, at);
                at = r.end;
            }
            assert_eq!(at, g);
        }
        assert_eq!(shard_range(10, 1, 3), 3..6);
        assert_eq!(hms(3723), "1h02m03s");
        assert_eq!(hms(59), "59s");
    }
}
