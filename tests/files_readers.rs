//! The tools' readers of user-named files refuse what is not a regular
//! file of a sane size: `/dev/zero` (endless), a FIFO (blocks on open), a
//! sparse file past the limit. Each case is one error line and exit
//! status 2, at once (a reader that tried would grow for ever or hang).

use crate::util::Scratch;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A reader still running after this long has hung.
const HANG: Duration = Duration::from_secs(60);

/// Runs `annex args` with stdin closed; returns status code, stdout and
/// stderr, failing the test if it does not end within [`HANG`].
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("annex {}: did not end", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let o = child.wait_with_output().unwrap();
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (o.status.code(), s(&o.stdout), s(&o.stderr))
}

/// Every reader of a user-named file, reading `bad`.
fn readers<'a>(bad: &'a str, out: &'a str) -> Vec<Vec<&'a str>> {
    vec![
        vec!["solve", bad],
        vec!["analyze", "--depth", "1", bad],
        vec![
            "train",
            "--sources",
            "",
            "--no-default-exclude",
            "--out",
            out,
            "--datagen",
            bad,
        ],
        vec!["train", "--out", out, "--init", bad],
        vec!["datagen", "--games", "1", "--out", out, "--openings", bad],
        vec!["datagen", "merge", "--out", out, bad],
        vec!["book", "build", "--out", out, bad],
        vec!["book", "show", "--file", bad],
    ]
}

fn check_refused(args: &[&str], want: &str, out: &Path) {
    let (code, stdout, err) = run(args);
    let what = args.join(" ");
    assert_eq!(code, Some(2), "annex {what}: {err}");
    assert!(stdout.is_empty(), "annex {what}: {stdout}");
    assert_eq!(err.lines().count(), 1, "annex {what}: {err}");
    assert!(err.contains(want), "annex {what}: {err}");
    assert!(!out.exists(), "annex {what} wrote its output");
}

#[test]
fn files_readers_refuse_devices_and_fifos() {
    let dir = Scratch::new("files-readers");
    let fifo = dir.join("fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success());
    let out = dir.join("out");
    for bad in ["/dev/zero", fifo.to_str().unwrap()] {
        for args in readers(bad, out.to_str().unwrap()) {
            check_refused(&args, "not a regular file", &out);
        }
    }
}

#[test]
fn files_readers_refuse_files_past_their_limit() {
    let dir = Scratch::new("files-readers-size");
    let big = dir.join("big.obf");
    // Sparse: no disk space is used.
    let f = std::fs::File::create(&big).unwrap();
    f.set_len((256 << 20) + 1).unwrap();
    drop(f);
    let out = dir.join("out");
    let big = big.to_str().unwrap();
    for args in [
        vec!["solve", big],
        vec!["analyze", "--depth", "1", big],
        vec!["book", "show", "--file", big],
    ] {
        check_refused(&args, "over the limit", &out);
    }
}

#[test]
fn files_analyze_cuts_an_overlong_line_and_reads_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(["analyze", "--depth", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'f'; 1 << 20];
        for _ in 0..8 {
            stdin.write_all(&chunk).unwrap();
        }
        stdin.write_all(b"\nf5\n").unwrap();
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{}", &out[..out.len().min(500)]);
    // The 8 MiB line: one short error object.
    assert!(lines[0].len() < 300, "{} bytes", lines[0].len());
    assert!(
        lines[0].starts_with("{\"line\":1,") && lines[0].contains("longer than 65536 bytes"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("{\"line\":2,\"board\""),
        "{}",
        lines[1]
    );
    assert_eq!(o.status.code(), Some(2));
}
