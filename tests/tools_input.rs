//! The tools meeting bad input, closed pipes and full disks.
//!
//! Each test runs the real `annex` binary with real pipes (or real files as
//! stdout) and checks what a script would see: the output lines, stderr and
//! the exit status.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A generous wait for a tool that should end quickly (CI machines are
/// loaded); a tool still running after it has hung.
const HANG: Duration = Duration::from_secs(120);

fn annex() -> Command {
    Command::new(env!("CARGO_BIN_EXE_annex"))
}

/// The small OBF fixture: a finished game, a forced pass, a one-move end.
fn fixture() -> String {
    format!("{}/tests/data/tools_solve.obf", env!("CARGO_MANIFEST_DIR"))
}

/// Waits for `child` (killed after [`HANG`]) and returns its status and
/// stderr.
fn wait(mut child: Child, what: &str) -> (ExitStatus, String) {
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for annex") {
            break st;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: annex did not end");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    (status, err)
}

/// Runs `annex args` with `input` on stdin; returns status, stdout, stderr.
fn run(args: &[&str], input: &[u8]) -> (ExitStatus, String, String) {
    let mut child = annex()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin.write_all(input).expect("write stdin");
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_string(&mut out)
        .expect("read stdout");
    let (st, err) = wait(child, &args.join(" "));
    (st, out, err)
}

#[test]
fn tools_analyze_reads_on_after_a_line_that_is_not_utf8() {
    let (st, out, err) = run(&["analyze", "--depth", "2"], b"f5\n\xff\xfe bad\nf5d6\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "stdout:\n{out}\nstderr:\n{err}");
    assert!(lines[0].starts_with("{\"line\":1,\"board\""), "{out}");
    assert!(
        lines[1].starts_with("{\"line\":2,")
            && lines[1].contains("\"error\":\"input is not valid UTF-8\""),
        "{out}"
    );
    assert!(lines[2].starts_with("{\"line\":3,\"board\""), "{out}");
    // The bad line is counted in the exit status, as for any bad line.
    assert_eq!(st.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Runs `annex args` with stdout a pipe whose reader is already gone, so
/// that the first write fails with a broken pipe.
fn run_into_closed_pipe(args: &[&str]) -> (ExitStatus, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let child = annex()
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    wait(child, &args.join(" "))
}

#[test]
fn tools_end_quietly_on_a_closed_pipe() {
    let obf = fixture();
    let cases: Vec<Vec<&str>> = vec![
        vec!["perft", "6", "--divide"],
        vec!["solve", &obf],
        vec!["bench", "--verbose", "--depth", "1"],
        vec!["book", "show"],
        vec!["solo", "--games", "1", "--player", "random"],
        vec!["analyze", "--depth", "1", &obf],
    ];
    for args in cases {
        let (st, err) = run_into_closed_pipe(&args);
        assert!(
            st.success() && !err.contains("panicked") && err.is_empty(),
            "annex {}: {st}, stderr:\n{err}",
            args.join(" ")
        );
    }
}

#[test]
fn tools_perft_divide_with_reader_gone_after_one_line() {
    let mut child = annex()
        .args(["perft", "6", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).expect("one line");
    assert!(first.split_whitespace().count() == 2, "{first}");
    drop(stdout);
    let (st, err) = wait(child, "perft 6 --divide");
    assert!(st.success() && !err.contains("panicked"), "{st}: {err}");
}

#[test]
fn tools_solve_to_a_full_disk_is_one_error_line() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let child = annex()
        .arg("solve")
        .arg(fixture())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start annex");
    let (st, err) = wait(child, "solve > /dev/full");
    assert!(!st.success(), "{st}");
    assert!(!err.contains("panicked"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with("annex: error: ") && lines[0].contains("No space left"),
        "{err}"
    );
}

#[test]
fn tools_solve_says_none_on_a_finished_game_and_pass_on_a_forced_pass() {
    let (st, out, err) = run(&["solve", &fixture()], b"");
    assert!(st.success(), "{st}\n{out}\n{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().collect())
        .collect();
    // index, empties, move, score, want, verdict, ...
    assert_eq!(&rows[0][..4], ["1", "0", "none", "-64"], "{out}");
    // O must pass (the game goes on): a real pass, scored by solving on.
    assert_eq!(
        &rows[1][..6],
        ["2", "1", "pass", "-64", "-64", "ok"],
        "{out}"
    );
    assert_eq!(&rows[2][..6], ["3", "1", "a1", "+64", "+64", "ok"], "{out}");
    assert!(out.contains("solved 2/3 correct"), "{out}");
}

/// `solve --eval` orders the solver with another evaluation: the scores
/// stay those of the FFO file, and a missing weights file is one error line.
#[test]
fn tools_solve_with_another_evaluation() {
    let obf = std::env::temp_dir().join(format!("annex-solve-eval-{}.obf", std::process::id()));
    let text = crate::util::fixture("endgame/ffo/fforum-1-19.obf");
    let four: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(4)
        .collect();
    std::fs::write(&obf, four.join("\n")).unwrap();
    let path = obf.display().to_string();
    let (st, out, err) = run(&["solve", &path, "--eval", "simple"], b"");
    assert!(st.success(), "{st}\n{out}\n{err}");
    assert!(out.contains("solved 4/4 correct"), "{out}");
    let (st, out, err) = run(&["solve", &path, "--eval", "/nonexistent/w.eval"], b"");
    let _ = std::fs::remove_file(&obf);
    assert!(!st.success() && out.is_empty(), "{st}\n{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("annex: error: ") && err.contains("/nonexistent/w.eval"),
        "{err}"
    );
}

/// A bad `ANNEX_CONFIG` stops `solve` and the protocol loop with one error
/// line instead of running on with the default tunables.
#[test]
fn tools_bad_annex_config_is_one_error_line() {
    for (spec, args) in [
        ("end_all_margin=2048", vec!["solve", "--only", "1"]),
        ("no_such_tunable=1", vec![]),
        ("shallow_cache_etc=yes", vec![]),
    ] {
        let mut cmd = annex();
        cmd.env("ANNEX_CONFIG", spec).args(&args);
        if !args.is_empty() {
            cmd.arg(fixture());
        }
        let out = cmd.stdin(Stdio::null()).output().expect("run annex");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && out.stdout.is_empty(),
            "{spec}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{spec}: {err}");
        assert!(
            err.starts_with("annex: error: ANNEX_CONFIG: "),
            "{spec}: {err}"
        );
    }
}

/// `ANNEX_CONFIG` sets a switch by `true` / `false` (any case) or `1` /
/// `0`, the same way `Config::set` takes it.
#[test]
fn tools_annex_config_takes_switch_words() {
    for spec in [
        "shallow_cache_etc=false",
        "shallow_cache_etc=TRUE",
        "shallow_cache_etc=0,sel_t1=100",
    ] {
        let out = annex()
            .env("ANNEX_CONFIG", spec)
            .args(["solve", "--only", "1"])
            .arg(fixture())
            .stdin(Stdio::null())
            .output()
            .expect("run annex");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !err.contains("error"),
            "{spec}: {err}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("solved"), "{spec}: {text}");
    }
}

#[test]
fn tools_numeric_arguments_out_of_range_are_usage_errors() {
    let obf = fixture();
    let nodata = ["--data", "/nonexistent-annex-data"];
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["perft", "99"],
        vec!["perft", "21"],
        vec!["perft", "4", "--threads", "5000"],
        vec!["perft", "4", "--threads", "0"],
        vec!["perft", "4", "--hash", "0"],
        vec!["perft", "4", "--hash", "1000000"],
        vec!["bench", "--depth", "0"],
        vec!["bench", "--depth", "99"],
        vec!["bench", "--hash", "0"],
        vec!["solve", &obf, "--threads", "0"],
        vec!["solve", &obf, "--threads", "100000"],
        vec!["solve", &obf, "--hash", "0"],
        vec!["analyze", "--depth", "0"],
        vec!["analyze", "--depth", "61"],
        vec!["analyze", "--movetime", "0"],
        vec!["analyze", "--nodes", "0"],
        vec!["analyze", "--multipv", "0"],
        vec!["analyze", "--multipv", "65"],
        vec!["analyze", "--threads", "0"],
        vec!["analyze", "--threads", "257"],
        vec!["analyze", "--hash", "0"],
        vec!["book", "build", "--out", "x", "--plies", "0", "none.wtb"],
        vec!["book", "build", "--out", "x", "--plies", "61", "none.wtb"],
        vec![
            "book",
            "build",
            "--out",
            "x",
            "--min-games",
            "0",
            "none.wtb",
        ],
        vec!["solo", "--games", "0"],
        vec!["solo", "--rollouts", "0"],
        vec!["solo", "--risk-penalty=-1"],
        vec!["solo", "--risk-penalty", "NaN"],
    ];
    for extra in [
        ["--holdout", "100"],
        ["--epochs", "0"],
        ["--threads", "0"],
        ["--lambda=-1", "--epochs=1"],
        ["--rate", "0"],
        ["--solve-empties", "61"],
    ] {
        cases.push([&["train", "--out", "none.eval"], &nodata[..], &extra[..]].concat());
    }
    for extra in [
        ["--depth", "0"],
        ["--solve-max", "61"],
        ["--holdout", "100"],
        ["--match-depth", "0"],
        ["--match-solve", "61"],
        ["--engine-depth", "61"],
        ["--gtp-movetime-ms", "0"],
        ["--threads", "0"],
    ] {
        cases.push([&["eval-measure"], &nodata[..], &extra[..]].concat());
    }
    for args in cases {
        let (st, out, err) = run(&args, b"");
        let what = args.join(" ");
        assert_eq!(st.code(), Some(2), "annex {what}: {st}\n{out}\n{err}");
        assert!(out.is_empty(), "annex {what}: {out}");
        assert!(
            err.contains("invalid value") && !err.contains("panicked"),
            "annex {what}: {err}"
        );
    }
    // A parity split needs one stage an empty; refused before any data is read.
    let (st, out, err) = run(
        &[
            "train",
            "--out",
            "none.eval",
            "--data",
            nodata[1],
            "--same-parity",
        ],
        b"",
    );
    assert_eq!(st.code(), Some(2), "{out}{err}");
    assert!(
        out.is_empty() && err.contains("--same-parity needs --stages 64"),
        "{err}"
    );
    // `--init` weights must exist and match the run's features and stages
    // (the committed weights are of 16 stages); refused before any data is read.
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/annex.eval");
    for (extra, says) in [
        (&["--init", "/nonexistent.eval"][..], "--init"),
        (
            &["--init", committed, "--stages", "32"][..],
            "not PatternsMobility of 32",
        ),
        (
            &["--init", committed, "--features", "patterns"][..],
            "not Patterns of 16",
        ),
    ] {
        let args = [
            &["train", "--out", "none.eval", "--data", nodata[1]][..],
            extra,
        ]
        .concat();
        let (st, out, err) = run(&args, b"");
        assert_eq!(st.code(), Some(2), "{args:?}: {out}{err}");
        assert!(
            out.is_empty() && err.contains(says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // `--only` indexes start at 1, and a range may not run backwards.
    for only in ["0", "3-1"] {
        let (st, out, err) = run(&["solve", &obf, "--only", only], b"");
        assert_eq!(st.code(), Some(2), "--only {only}: {out}{err}");
        assert!(err.contains("bad range"), "--only {only}: {err}");
    }
}

#[test]
fn tools_book_show_lists_symmetric_book_moves() {
    let (st, out, err) = run(&["book", "show"], b"");
    assert!(st.success(), "{err}");
    // A header line names the columns.
    assert_eq!(out.lines().next(), Some("move score games"), "{out}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let mut moves: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    moves.sort_unstable();
    assert_eq!(moves, ["c4", "d3", "e6", "f5"], "{out}");
    // The same figures for each image.
    assert!(rows.iter().all(|r| r[1..] == rows[0][1..]), "{out}");
    // Not only at the start: after f5 d6 c3 d3 c4 the book's replies are
    // legal moves, listed once each.
    let (st, out, err) = run(&["book", "show", "f5d6c3d3c4"], b"");
    assert!(st.success(), "{err}");
    let mut moves: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let n = moves.len();
    moves.sort_unstable();
    moves.dedup();
    assert_eq!(moves.len(), n, "{out}");
}

#[test]
fn tools_solo_answers_input_after_stop() {
    let (st, out, err) = run(
        &["solo", "--interactive", "--seed", "3"],
        b"stop\nx d3\n\nboard\nquit\nx e3\n",
    );
    assert!(st.success(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let over = lines
        .iter()
        .position(|l| l.starts_with("game over (stopped)"))
        .unwrap_or_else(|| panic!("{out}"));
    let after = &lines[over + 1..];
    // `x d3` and `board` get one error line each; `quit` ends the session.
    assert_eq!(after.len(), 2, "{out}");
    assert!(after.iter().all(|l| l.starts_with("error: ")), "{out}");
    assert!(after[0].contains("x d3"), "{out}");
}
