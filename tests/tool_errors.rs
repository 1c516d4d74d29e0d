//! The typed errors of the tools as the user sees them: each bad argument
//! or input ends the real `annex` binary with exit status 2 and one
//! message line (`annex: error: …`, or clap's usage error for a value clap
//! checks), naming what is wrong. And the date the tools stamp on a GGF
//! record (`DT[…]`, by `jiff`).

use crate::serve_util::Server;
use crate::util::Scratch;
use serde_json::json;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A generous wait for a tool that should fail at once.
const HANG: Duration = Duration::from_secs(60);

/// Runs `annex args` in `dir` with `stdin` and returns its exit status,
/// stdout and stderr.
fn annex(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> (Option<i32>, String, String) {
    use std::io::{Read, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > HANG {
            let _ = child.kill();
            panic!("annex {args:?} did not end");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code(), out, err)
}

/// `annex args` fails with status 2 and the one line `annex: error: want`.
fn refuses(dir: &std::path::Path, args: &[&str], want: &str) {
    let (code, _, err) = annex(dir, args, b"");
    assert_eq!(code, Some(2), "annex {args:?}: {err}");
    assert_eq!(err, format!("annex: error: {want}\n"), "annex {args:?}");
}

#[test]
fn tool_errors_name_what_is_wrong() {
    let dir = Scratch::new("tool-errors");
    std::fs::write(dir.join("empty.txt"), "# no opening\n").unwrap();
    std::fs::write(dir.join("bad.txt"), "f5d6\nf5f5\n").unwrap();
    let matches = |extra: &[&'static str]| -> Vec<&'static str> {
        [
            &["match", "--depth", "1", "--engine", "a", "--engine", "b"][..],
            extra,
        ]
        .concat()
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--option", "Foo"],
            "--option 'Foo': expected NAME=VALUE",
        ),
        (
            vec!["--option", "Hash=0"],
            "--option 'Hash=0': invalid value '0' for option Hash (expected 1 to 65536)",
        ),
        (
            vec!["solo", "--player", "foo", "--games", "1"],
            "unknown player 'foo' (expected mc or random)",
        ),
        (
            vec!["solo", "--layout", "a1", "--games", "1"],
            "a layout needs 24 squares, got 1",
        ),
        (
            vec!["perft", "--convention", "bogus", "1"],
            "invalid convention 'bogus' (expected oeis, carry or nopass)",
        ),
        (
            vec!["perft", "--board", "xx", "1"],
            "board has 2 squares, expected 64",
        ),
        (
            matches(&["--openings", "empty.txt"]),
            "empty.txt holds no opening",
        ),
        (
            matches(&["--openings", "bad.txt"]),
            "openings line 2: ply 2: illegal move 'f5'",
        ),
        (
            matches(&["--openings", "none.txt"]),
            "cannot read none.txt: No such file or directory (os error 2)",
        ),
        (
            matches(&["--engine-opt", "x"]),
            "invalid --engine-opt 'x' (expected NAME:KEY=VALUE)",
        ),
        (
            matches(&["--engine-opt", "c:depth=2"]),
            "--engine-opt 'c:depth=2': no engine named 'c'",
        ),
        (
            matches(&["--sprt", "0,5,0.05,0.05", "--engine", "c"]),
            "--sprt needs exactly two engines",
        ),
        (
            vec![
                "datagen",
                "--games",
                "1",
                "--out",
                "x.adg",
                "--openings",
                "bad.txt",
            ],
            "bad.txt: openings line 2: ply 2: illegal move 'f5'",
        ),
        (
            vec![
                "datagen",
                "--games",
                "1",
                "--out",
                "x.adg",
                "--openings",
                "empty.txt",
            ],
            "empty.txt: no openings",
        ),
        (
            vec!["solve", "none.obf"],
            "cannot read none.obf: No such file or directory (os error 2)",
        ),
    ];
    for (args, want) in cases {
        refuses(&dir, &args, want);
    }
    assert!(!dir.join("x.adg").exists(), "datagen wrote its output");
}

#[test]
fn tool_errors_of_values_clap_checks_are_usage_errors() {
    let dir = Scratch::new("tool-errors-clap");
    for (args, want) in [
        (
            &[
                "datagen", "--games", "1", "--out", "x.adg", "--shard", "3/2",
            ][..],
            "invalid value '3/2' for '--shard <SHARD>': shard 3/2: need 0 <= I < N",
        ),
        (
            &["datagen", "--games", "1", "--out", "x.adg", "--shard", "3"][..],
            "invalid value '3' for '--shard <SHARD>': expected I/N (e.g. 3/100)",
        ),
        (
            &["train", "--out", "x.eval", "--stages", "30"][..],
            "invalid value '30' for '--stages <STAGES>': '30' is not a stage count (16, 32 or 64)",
        ),
    ] {
        let (code, out, err) = annex(&dir, args, b"");
        assert_eq!(code, Some(2), "annex {args:?}: {err}");
        assert!(out.is_empty(), "annex {args:?}: {out}");
        assert_eq!(
            err.lines().next(),
            Some(&*format!("error: {want}")),
            "{err}"
        );
    }
}

#[test]
fn tool_errors_analyze_counts_unreadable_lines() {
    let dir = Scratch::new("tool-errors-analyze");
    let (code, out, err) = annex(&dir, &["analyze", "--depth", "1"], b"f5\nzz\nqq\n");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    assert_eq!(err, "annex: error: 2 input line(s) could not be read\n");
}

#[test]
fn tool_errors_serve_names_the_busy_address() {
    let dir = Scratch::new("tool-errors-serve");
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port().to_string();
    let (code, out, err) = annex(&dir, &["serve", "--port", &port], b"");
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with(&format!(
            "annex: error: cannot listen on 127.0.0.1:{port}: "
        )) && err.lines().count() == 1,
        "{err}"
    );
}

/// The `DT[…]` of a GGF game `annex serve` exports: GGF's form
/// `YYYY.MM.DD_HH:MM:SS.UTC`, the time of day in UTC.
#[test]
fn tool_errors_ggf_export_is_dated_in_utc() {
    let srv = Server::start();
    let (s, _) = srv.session(json!({}));
    srv.post(&s, "position", json!({ "transcript": "f5d6" }));
    let before = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (code, ggf) = srv.raw("GET", &format!("/api/export?s={s}&format=ggf"), b"");
    let after = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert_eq!(code, 200, "{ggf}");
    let dt = ggf
        .split_once("DT[")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(dt, _)| dt)
        .unwrap_or_else(|| panic!("no DT in {ggf}"));
    let b = dt.as_bytes();
    assert_eq!(b.len(), 23, "{dt}");
    for (i, c) in dt.char_indices() {
        let want = match i {
            4 | 7 | 19 => Some('.'),
            10 => Some('_'),
            13 | 16 => Some(':'),
            20.. => None,
            _ => {
                assert!(c.is_ascii_digit(), "{dt}");
                continue;
            }
        };
        if let Some(w) = want {
            assert_eq!(c, w, "{dt}");
        }
    }
    assert!(dt.ends_with(".UTC"), "{dt}");
    let num = |r: std::ops::Range<usize>| dt[r].parse::<u64>().unwrap();
    assert!(num(0..4) >= 2024 && (1..=12).contains(&num(5..7)), "{dt}");
    let of_day = num(11..13) * 3600 + num(14..16) * 60 + num(17..19);
    // The export's second lies between the two clock readings (the day
    // may turn over between them).
    let (lo, hi) = (before % 86_400, after % 86_400);
    let within = if lo <= hi {
        (lo..=hi).contains(&of_day)
    } else {
        of_day >= lo || of_day <= hi
    };
    assert!(within, "{dt}: not between {lo} and {hi} s of the UTC day");
}
