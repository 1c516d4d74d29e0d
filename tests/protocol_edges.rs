//! Protocol edges through the real binary over real pipes: the byte
//! order mark, line ends, control characters, the line length limit,
//! streamed `position` moves, `exit`, engine files that are not regular
//! files or too large, the table allocated without delaying a `go`, and
//! the score of a forced pass under `flips one-line`.

use crate::util::{Annex, Scratch};
use std::time::{Duration, Instant};

/// A UCI session past `uciok`, with the book off.
fn uci(a: &mut Annex) {
    a.send("uci");
    a.expect_prefix("uciok");
    a.send("setoption name OwnBook value false");
}

/// `VmHWM` (peak resident memory) of `pid` in bytes, where Linux has it.
fn peak_memory(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// A UTF-8 byte order mark before the first command is no part of it, in
/// each protocol's detection (before: `unknown command '\u{feff}uci'`,
/// and NBoard or GTP fell back to UCI).
#[test]
fn bom_before_the_first_command_is_dropped() {
    let mut a = Annex::spawn(&[]);
    a.send_bytes(b"\xef\xbb\xbfuci\n");
    let got = a.until_prefix("uciok");
    assert!(!got.iter().any(|l| l.contains("error")), "{got:?}");
    let mut n = Annex::spawn(&[]);
    n.send_bytes(b"\xef\xbb\xbfnboard 2\nping 7\n");
    assert_eq!(n.expect_prefix("pong"), "pong 7");
    let mut g = Annex::spawn(&[]);
    g.send_bytes(b"\xef\xbb\xbf3 protocol_version\n");
    assert_eq!(g.recv(Duration::from_secs(20)).as_deref(), Some("=3 2"));
}

/// A lone `\r` ends a line as `\n` and `\r\n` do (before: the CR-only
/// input was one line, an unknown command).
#[test]
fn cr_alone_ends_a_line() {
    let mut a = Annex::spawn(&[]);
    a.send_bytes(b"uci\risready\r\nisready\r");
    a.expect_prefix("uciok");
    a.expect_prefix("readyok");
    assert_eq!(a.recv(Duration::from_secs(20)).as_deref(), Some("readyok"));
}

/// Control characters of the input come back escaped in an error line,
/// never raw (before: the NUL and the ESC were echoed as they came).
#[test]
fn control_characters_are_escaped() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    let got = a.answer("po\0si\u{1b}[2Jtion startpos");
    assert_eq!(got.len(), 1, "{got:?}");
    let l = &got[0];
    assert!(l.contains("po\\u{0}si\\u{1b}[2Jtion"), "{l:?}");
    assert!(!l.chars().any(|c| c.is_control()), "{l:?}");
}

/// A line over the limit is one error, read without holding it, and the
/// engine goes on; `position` moves are parsed as played, so a long line
/// under the limit stops at its first bad move. (Before: a `position`
/// line of 8 MiB took seconds and hundreds of MiB before its error at
/// ply 3.)
#[test]
fn long_lines_are_bounded() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    a.send("position startpos moves f5");
    let before = a.answer("d");
    let huge = format!("position startpos moves f5 d6 a1 {}", "c3 ".repeat(3 << 20));
    let t = Instant::now();
    let got = a.answer(&huge);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("info string error: line 'position startpos moves f5 d6 a1 c3")
            && got[0].contains(&format!("…({} bytes)' is over the limit", huge.len())),
        "{got:?}"
    );
    assert_eq!(a.answer("d"), before, "the position changed");
    if let Some(peak) = peak_memory(a.pid()) {
        assert!(peak < 200 << 20, "peak memory {} MiB", peak >> 20);
    }
    // Under the limit: the error names ply 3, the rest is never parsed.
    let long = format!("position startpos moves f5 d6 a1 {}", "zz ".repeat(200_000));
    let got = a.answer(&long);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].contains("ply 3 'a1'"), "{got:?}");
    assert_eq!(a.answer("d"), before, "the position changed");
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
}

/// `exit` leaves as `quit` does, in each protocol (before: an unknown
/// command in UCI and NBoard).
#[test]
fn exit_leaves_as_quit() {
    for (first, expect) in [
        (None, None),
        (Some("nboard 2"), Some("set myname")),
        (Some("protocol_version"), Some("= 2")),
    ] {
        let mut a = Annex::spawn(&[]);
        if let Some(f) = first {
            a.send(f);
        }
        if let Some(e) = expect {
            a.expect_prefix(e);
        }
        a.send("exit");
        let t = Instant::now();
        let rest: Vec<String> = std::iter::from_fn(|| a.recv(Duration::from_secs(20)))
            .filter(|l| !l.is_empty() && l != "=")
            .collect();
        assert!(rest.is_empty(), "{first:?}: {rest:?}");
        assert!(t.elapsed() < Duration::from_secs(15), "{first:?}: no exit");
    }
}

/// A FIFO, a device or an oversized file as `BookFile` or `EvalFile` is
/// one error line at once, and the session goes on; `quit` is answered
/// (before: the FIFO blocked the session, `quit` included, and
/// `/dev/zero` grew without bound).
#[test]
fn engine_files_must_be_small_regular_files() {
    let dir = Scratch::new("proto-files");
    let fifo = dir.join("book.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let big = dir.join("big.bin");
    let f = std::fs::File::create(&big).unwrap();
    // Sparse: no disk is used.
    f.set_len(65 << 20).unwrap();
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    let mut paths = vec![big.to_string_lossy().into_owned()];
    if std::path::Path::new("/dev/zero").exists() {
        paths.push("/dev/zero".into());
    }
    if made {
        paths.push(fifo.to_string_lossy().into_owned());
    }
    for option in ["BookFile", "EvalFile"] {
        for p in &paths {
            let t = Instant::now();
            let got = a.answer(&format!("setoption name {option} value {p}"));
            assert_eq!(got.len(), 1, "{option} {p}: {got:?}");
            assert!(got[0].starts_with("info string error:"), "{got:?}");
            let why = if p.ends_with("big.bin") {
                "over the limit"
            } else {
                "not a regular file"
            };
            assert!(got[0].contains(why), "{option} {p}: {got:?}");
            assert!(t.elapsed() < Duration::from_secs(10), "{option} {p}");
        }
    }
    a.send("position startpos");
    a.send("go depth 2");
    a.expect_prefix("bestmove");
    a.send("quit");
    let (_, ok) = a.finish();
    assert!(ok);
}

/// Milliseconds from `go movetime 50` to its `bestmove`, the lines before
/// it included.
fn timed_go(a: &mut Annex) -> (Duration, Vec<String>) {
    a.send("position startpos moves f5 d6");
    let t = Instant::now();
    a.send("go movetime 50");
    let got = a.until_prefix("bestmove");
    (t.elapsed(), got)
}

/// A `go` right after `setoption name Hash` (no `isready`) does not wait
/// for the table, and says so; `isready` answers once the table is whole.
/// Timed as a ratio against the same `go` with the table ready. (Before:
/// `setoption` held the session while the table was zeroed, so the `go`
/// answered that much later; the bound catches it where zeroing 512 MiB
/// takes over half a second, as on a virtual machine whose memory the
/// host has not backed yet: 2048 MiB took 9.6 s there.)
#[test]
fn go_does_not_pay_for_the_table() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    a.send("setoption name Hash value 512");
    a.send("isready");
    a.expect_prefix("readyok");
    let (ready, _) = timed_go(&mut a);
    a.send("setoption name Hash value 1");
    a.send("isready");
    a.expect_prefix("readyok");
    a.send("setoption name Hash value 512");
    let (lazy, got) = timed_go(&mut a);
    assert!(
        lazy <= ready * 3 + Duration::from_millis(500),
        "go after Hash: {lazy:?}, with the table ready: {ready:?}"
    );
    assert!(
        got.iter()
            .any(|l| l.contains("hash table is being allocated"))
            || got.iter().all(|l| !l.contains("hash table")),
        "{got:?}"
    );
    let got = a.answer("ucinewgame");
    assert!(!got.iter().any(|l| l.contains("error")), "{got:?}");
}

/// Under `flips one-line` a forced pass near the end is answered with an
/// `info` line carrying its score (before: the generic solver went first
/// and a limit that stopped it, the clock or a node count, left
/// `bestmove pass` alone).
#[test]
fn one_line_forced_pass_reports_a_score() {
    let board = "OOOXXOOOXOOOXOOOXXOOOOOOXOXXOOOOXXXOXOOOX-XOXOOO--XXOXXO--XOXXX- X";
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    a.send("setoption name Flips value one-line");
    for go in ["go nodes 1000", "go movetime 50"] {
        a.send(&format!("position board {board}"));
        a.send(go);
        let got = a.until_prefix("bestmove");
        assert_eq!(got.last().map(String::as_str), Some("bestmove pass"));
        assert!(
            got.iter().any(|l| l.starts_with("info depth")
                && l.contains(" score disc ")
                && l.contains(" pv pass")),
            "{go}: {got:?}"
        );
    }
}
