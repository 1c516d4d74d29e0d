//! The engine's resources under careless and hostile settings.
//!
//! Memory of the hash table, when it is allocated, the move time, the book
//! under multi-PV and the labels of a win/loss/draw solve, each through
//! the real binary over real pipes.

use crate::util::Annex;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

/// A field of `/proc/<pid>/status` in bytes (`VmRSS`, `VmHWM`), or `None`
/// where there is no such file (not Linux).
fn proc_status(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `MemAvailable` of the machine in bytes (`None`: unknown).
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// A UCI session past `uciok`, with the book off.
fn uci_session(a: &mut Annex) {
    a.send("uci");
    a.expect_prefix("uciok");
    a.send("setoption name OwnBook value false");
}

/// Sends `isready` and returns the lines up to `readyok`.
fn ready(a: &mut Annex) -> Vec<String> {
    a.send("isready");
    a.until_prefix("readyok")
}

/// After a refused `Hash`, the engine answers and searches as before.
fn still_searches(a: &mut Annex) {
    ready(a);
    a.send("position startpos moves f5 d6");
    a.send("go depth 2");
    let best = a.expect_prefix("bestmove");
    assert!(!best.contains("none"), "{best}");
    ready(a);
}

/// `setoption name Hash value 65536` on a machine that cannot hold 64 GiB
/// is refused with one error line; the process keeps its table and runs.
/// (Before: accepted, then the next search aborted the process.)
#[test]
fn hash_beyond_memory_is_refused() {
    if mem_available().is_none_or(|m| m > 60 * 1024 * MIB) {
        eprintln!("skipped: this machine may hold a 64 GiB table");
        return;
    }
    let mut a = Annex::spawn(&[]);
    uci_session(&mut a);
    a.send("setoption name Hash value 65536");
    let lines = ready(&mut a);
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains("error")).collect();
    if errors.len() != 1 || !errors[0].contains("Hash stays 64 MiB") {
        a.fail("expected one error line saying the table stays at 64 MiB");
    }
    still_searches(&mut a);
    let (_, ok) = a.finish();
    assert!(ok, "annex must exit normally");
}

/// Under `ulimit -v` the allocator refuses a big table: one error line,
/// the old table kept, searches go on.
#[test]
fn hash_under_ulimit_v() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let mut cmd = std::process::Command::new("sh");
    // 1.5 GiB of address space: the engine with its 64 MiB table fits.
    cmd.arg("-c")
        .arg("ulimit -v 1572864 && exec \"$0\"")
        .arg(env!("CARGO_BIN_EXE_annex"));
    let mut a = Annex::spawn_command(cmd);
    uci_session(&mut a);
    ready(&mut a);
    a.send("setoption name Hash value 4096");
    let lines = ready(&mut a);
    if !lines.iter().any(|l| l.starts_with("info string error:")) {
        a.fail("expected an error line for Hash 4096 under ulimit -v");
    }
    still_searches(&mut a);
    // A size that fits is still accepted afterwards.
    a.send("setoption name Hash value 16");
    let lines = ready(&mut a);
    if lines.iter().any(|l| l.contains("error")) {
        a.fail("Hash 16 must be accepted");
    }
    still_searches(&mut a);
    let (_, ok) = a.finish();
    assert!(ok, "annex must exit normally");
}

/// `solve --hash` beyond the memory: one clear error, a non-zero exit, no
/// abort.
#[test]
fn solve_hash_beyond_memory_fails_cleanly() {
    if mem_available().is_none_or(|m| m > 60 * 1024 * MIB) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("annex-h1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obf = dir.join("one.obf");
    std::fs::write(
        &obf,
        "XXXXXOOOOOOXXOXXOOOXOOX-OOOXXOXXO-OXXXOX-O-XXOOXOOOOOOOX--X--OOO X;\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(["solve", obf.to_str().unwrap(), "--hash", "65536"])
        .output()
        .expect("run annex solve");
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains("hash table"), "stderr: {err}");
}

/// The table is allocated when `Hash` is set or at `isready`, never in the
/// first timed `go`: once `readyok` is in, the table's pages are resident.
/// (Before: the process stayed at about 20 MB until the first search.)
#[test]
fn table_allocated_before_the_first_go() {
    let mut a = Annex::spawn(&[]);
    uci_session(&mut a);
    ready(&mut a);
    let Some(rss) = proc_status(a.pid(), "VmRSS:") else {
        return;
    };
    assert!(
        rss >= 64 * MIB,
        "default table not resident at readyok: {rss}"
    );
    a.send("setoption name Hash value 256");
    ready(&mut a);
    let rss = proc_status(a.pid(), "VmRSS:").unwrap_or(0);
    assert!(rss >= 256 * MIB, "Hash 256 not resident at readyok: {rss}");
    assert!(rss < 320 * MIB, "the old table was not freed: {rss}");
    a.send("ucinewgame");
    ready(&mut a);
    a.send("position startpos moves f5 d6");
    a.send("go movetime 100");
    a.expect_prefix("bestmove");
}

/// Peak memory after a search stays near the table size (the README's
/// figure): no table built twice, no stand-in table of a MiB, no book
/// decoded with `OwnBook` off. (Before: 22 MiB over the table; now 14.)
#[test]
fn peak_memory_near_the_table() {
    let mut a = Annex::spawn(&[]);
    uci_session(&mut a);
    a.send("setoption name Hash value 128");
    ready(&mut a);
    a.send("position startpos");
    a.send("go depth 8");
    a.expect_prefix("bestmove");
    let Some(hwm) = proc_status(a.pid(), "VmHWM:") else {
        return;
    };
    let over = hwm.saturating_sub(128 * MIB);
    assert!(over < 20 * MIB, "peak {} MiB over the table", over / MIB);
}

/// `go movetime 1000` thinks for about the time given, not half of it.
#[test]
fn movetime_is_used() {
    let mut a = Annex::spawn(&[]);
    uci_session(&mut a);
    ready(&mut a);
    a.send("position startpos moves f5 d6 c3 d3 c4");
    let t = Instant::now();
    a.send("go movetime 1000");
    a.expect_prefix("bestmove");
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(700),
        "movetime 1000 answered after {took:?}"
    );
    assert!(took < Duration::from_secs(15), "{took:?}");
}

/// With `MultiPV 3` a timed `go` from a book position searches three
/// lines instead of answering one book move.
#[test]
fn multipv_option_skips_the_book() {
    let mut a = Annex::spawn(&[]);
    a.send("uci");
    a.expect_prefix("uciok");
    a.send("setoption name MultiPV value 3");
    ready(&mut a);
    a.send("position startpos moves f5");
    a.send("go movetime 300");
    let lines = a.until_prefix("bestmove");
    if lines.iter().any(|l| l.contains("book move")) {
        a.fail("MultiPV 3 answered from the book");
    }
    if !lines.iter().any(|l| l.contains(" multipv 3 ")) {
        a.fail("no third line");
    }
}

/// `go wld` under `Tie second` names no tie it has not proven: a loss
/// bound of half a disc is a loss (`< 0`), a win bound a win (`> 0`).
#[test]
fn wld_tie_second_labels() {
    let board = "XXXXXOOOOOOXXOXXOOOXOOX-OOOXXOXXO-OXXXOX-O-XXOOXOOOOOOOX--X--OOO";
    for (side, sign) in [("X", -1), ("O", 1)] {
        let mut a = Annex::spawn(&[]);
        a.send("setoption name Tie value second");
        a.send(&format!("position board {board} {side}"));
        a.send("go wld");
        let lines = a.until_prefix("bestmove");
        let last = lines
            .iter()
            .rev()
            .find(|l| l.contains(" wld"))
            .unwrap_or_else(|| a.fail("no wld line"))
            .clone();
        if last.contains(" tie ") {
            a.fail("an unproven tie is named");
        }
        let score: i32 = last
            .split_whitespace()
            .skip_while(|w| *w != "disc")
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| a.fail("no score"));
        assert_eq!(score.signum(), sign, "{side}: {last}");
    }
}
