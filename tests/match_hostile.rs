//! `annex match` against engines that flood their output, print huge
//! tokens or leave processes behind, two matches on one `--out`, an
//! openings "file" that never ends, and the Elo bound of a clean sweep:
//! the real binary, real pipes and files, the fake engines of
//! `tests/fake_engine.py`.

use crate::matchplay::{annex_match, check_games, fake, score_line, scratch};
use annex::record::game_record::Termination;
use annex::rules::RuleSet;
use std::fs::File;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Longest a hostile run may take before it counts as a hang (a fixed run
/// ends in a few seconds).
const HANG: Duration = Duration::from_secs(40);
/// Most memory the `annex match` process may use (its engines apart); a
/// run past it is stopped.
const MAX_RSS_KIB: u64 = 256 * 1024;

/// An `annex match` run watched from outside.
struct Watched {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    max_rss_kib: u64,
    secs: f64,
}

fn rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `annex match args`, sampling its resident memory; stops it (and
/// `status` is `None`) past [`HANG`] or [`MAX_RSS_KIB`].
fn watched(dir: &Path, args: &[&str]) -> Watched {
    let (out_path, err_path) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .arg("match")
        .args(args)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .expect("run annex");
    let t0 = Instant::now();
    let mut max_rss_kib = 0;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        max_rss_kib = max_rss_kib.max(rss_kib(child.id()).unwrap_or(0));
        if t0.elapsed() > HANG || max_rss_kib > MAX_RSS_KIB {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let w = Watched {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap(),
        stderr: std::fs::read_to_string(&err_path).unwrap(),
        max_rss_kib,
        secs: t0.elapsed().as_secs_f64(),
    };
    eprintln!(
        "--- {:.2} s, max VmRSS {} KiB, {:?}\n--- stdout\n{}--- stderr\n{}",
        w.secs, w.max_rss_kib, w.status, w.stdout, w.stderr
    );
    w
}

impl Watched {
    /// Asserts the run ended by itself, bounded, with exit code `code`.
    fn ended(&self, code: i32) {
        let status = self.status.unwrap_or_else(|| {
            panic!(
                "stopped after {:.1} s at {} KiB of memory",
                self.secs, self.max_rss_kib
            )
        });
        assert_eq!(status.code(), Some(code), "{}", self.stderr);
    }
}

/// Plays `a` (a fake engine's flags) against a good fake engine under
/// `limits`, watched; `a_proto` prefixes both engines' commands.
fn hostile_game(
    name: &str,
    proto: &str,
    a_flags: &str,
    limits: &[&str],
) -> (Watched, crate::util::Scratch) {
    let dir = scratch(name);
    let out = dir.join("out").display().to_string();
    let a = format!("a={proto}{} {a_flags}", fake());
    let b = format!("b={proto}{}", fake());
    let mut args = vec!["--engine", &a, "--engine", &b, "--out", &out];
    args.extend_from_slice(limits);
    let w = watched(&dir, &args);
    (w, dir)
}

#[test]
fn match_flooding_after_go_times_out_with_bounded_memory() {
    for proto in ["uci:", "nboard:", "gtp:"] {
        let limits = ["--games", "2", "--movetime", "200", "--hang", "5"];
        let (w, dir) = hostile_game("flood-go", proto, "--mode flood --at-ply 4", &limits);
        w.ended(0);
        let games = check_games(&dir.join("out"), &RuleSet::default());
        assert_eq!(games.len(), 2, "{proto}");
        for g in &games {
            assert!(g.reason.starts_with("a "), "{proto}: {}", g.reason);
            match proto {
                // A search may print any number of lines: the clock ends it.
                "uci:" | "nboard:" => {
                    assert_eq!(g.end, Termination::Timeout, "{proto}: {}", g.reason);
                    assert!(
                        g.reason.contains("did not move within 0.300 s"),
                        "{}",
                        g.reason
                    );
                }
                // GTP's reply to genmove is one line: the flood is refused
                // after 10000 lines, or the clock ends it first.
                _ => assert!(
                    g.reason.contains("printed 10000 lines without")
                        || g.reason.contains("did not move within 0.300 s"),
                    "{}",
                    g.reason
                ),
            }
        }
        assert_eq!(score_line(&w.stdout, "a", "b"), (0, 2, 0, 2));
    }
}

#[test]
fn match_flooding_at_start_is_refused_at_once() {
    // No protocol given: each of the three probes meets the flood.
    let (w, _dir) = hostile_game("flood-start", "", "--start-flood lines", &["--depth", "1"]);
    w.ended(2);
    assert!(w.stderr.contains("answered no protocol"), "{}", w.stderr);
    for want in [
        "lines without 'uciok'",
        "lines without an answer to 'protocol_version'",
        "lines without 'pong 1'",
    ] {
        assert!(w.stderr.contains(want), "{want}: {}", w.stderr);
    }
    assert!(w.stderr.len() < 4000, "{}", w.stderr.len());
}

#[test]
fn match_output_without_newline_is_a_protocol_error() {
    let (w, _dir) = hostile_game("raw-start", "uci:", "--start-flood raw", &["--depth", "1"]);
    w.ended(2);
    assert!(
        w.stderr
            .contains("printed a line of more than 16384 bytes ('xxxx"),
        "{}",
        w.stderr
    );
    assert!(w.stderr.len() < 4000, "{}", w.stderr.len());
    let limits = ["--games", "2", "--depth", "1"];
    let (w, dir) = hostile_game("raw-go", "uci:", "--mode floodraw --at-ply 6", &limits);
    w.ended(0);
    for g in check_games(&dir.join("out"), &RuleSet::default()) {
        assert_eq!(g.end, Termination::Error, "{}", g.reason);
        assert!(g.reason.contains("a made a protocol error"), "{}", g.reason);
        assert!(
            g.reason.contains("printed a line of more than 16384 bytes"),
            "{}",
            g.reason
        );
        assert!(g.reason.len() < 300, "{}", g.reason);
    }
}

#[test]
fn match_huge_move_tokens_are_quoted_short() {
    // 50 MB: no line is that long.
    let limits = ["--games", "2", "--depth", "1"];
    let flags = "--mode longmove --long-bytes 50000000 --at-ply 6";
    let (w, dir) = hostile_game("long-50mb", "uci:", flags, &limits);
    w.ended(0);
    let out = dir.join("out");
    let size = std::fs::metadata(out.join("games.txt")).unwrap().len();
    assert!(size < 2000, "games.txt is {size} bytes");
    for g in check_games(&out, &RuleSet::default()) {
        assert_eq!(g.end, Termination::Error, "{}", g.reason);
        assert!(
            g.reason.contains("printed a line of more than"),
            "{}",
            g.reason
        );
    }
    // 10,000 bytes fit in a line: an illegal move, quoted to 80 characters.
    for proto in ["uci:", "nboard:", "gtp:"] {
        let flags = "--mode longmove --long-bytes 10000 --at-ply 6";
        let (w, dir) = hostile_game("long-10k", proto, flags, &limits);
        w.ended(0);
        let out = dir.join("out");
        let size = std::fs::metadata(out.join("games.txt")).unwrap().len();
        assert!(size < 2000, "{proto}: games.txt is {size} bytes");
        for g in check_games(&out, &RuleSet::default()) {
            assert!(
                matches!(g.end, Termination::Illegal | Termination::Error),
                "{proto}: {:?} {}",
                g.end,
                g.reason
            );
            // NBoard engines write moves in capitals.
            let reason = g.reason.to_ascii_lowercase();
            let z80 = format!("'{}…(10000 bytes)'", "z".repeat(80));
            assert_eq!(reason.matches(&z80).count(), 1, "{proto}: {}", g.reason);
            assert!(!reason.contains(&"z".repeat(81)), "{proto}: {}", g.reason);
        }
    }
}

/// The state of process `pid` (`R`, `S`, `Z`…), `None` when it is gone.
fn process_state(pid: u32) -> Option<char> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    s.rsplit_once(')')?.1.trim_start().chars().next()
}

#[test]
fn match_ends_the_engines_grandchildren() {
    let dir = scratch("pgroup");
    let pids = dir.join("pids.txt");
    let out = dir.join("out").display().to_string();
    // The engine starts a `sleep` through a shell, as wrapper scripts do.
    let a = format!(
        "a=uci:sh -c 'sleep 600 & echo $! >> {}; exec {}'",
        pids.display(),
        fake()
    );
    let b = format!("b={}", fake());
    let o = annex_match(&[
        "--engine", &a, "--engine", &b, "--games", "2", "--depth", "1", "--out", &out,
    ]);
    assert!(o.status.success());
    let list: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert!(list.len() >= 2, "{list:?}");
    // SIGKILL is sent before annex exits; give the kernel a moment.
    let t0 = Instant::now();
    let alive = |list: &[u32]| -> Vec<u32> {
        list.iter()
            .copied()
            .filter(|&p| !matches!(process_state(p), None | Some('Z' | 'X')))
            .collect()
    };
    while !alive(&list).is_empty() && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = alive(&list);
    for p in &left {
        let _ = Command::new("kill").arg(p.to_string()).status();
    }
    assert!(left.is_empty(), "grandchildren still running: {left:?}");
}

/// Starts a match on `out` whose first engine stays silent (it hangs
/// after `hang` seconds), and waits until it holds the folder's lock.
/// Returns the match and the lock file's expected text (`pid N`).
fn locked_match(out: &Path, hang: &str) -> (std::process::Child, String) {
    let a = format!("a={} --mode silent --at-ply 0", fake());
    let b = format!("b={}", fake());
    let first = Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(["match", "--engine", &a, "--engine", &b, "--games", "2"])
        .args(["--depth", "1", "--hang", hang, "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = out.join("match.lock");
    let want = format!("pid {}", first.id());
    let t0 = Instant::now();
    while std::fs::read_to_string(&lock).unwrap_or_default().trim() != want {
        assert!(t0.elapsed() < HANG, "no lock taken");
        std::thread::sleep(Duration::from_millis(10));
    }
    (first, want)
}

#[test]
fn match_second_run_on_one_out_is_refused() {
    let dir = scratch("lock");
    let out = dir.join("out");
    let out_s = out.display().to_string();
    // A match that takes a few seconds: a silent engine, hung after 1 s.
    let (mut first, want) = locked_match(&out, "1");
    let lock = out.join("match.lock");
    let b = format!("b={}", fake());
    let good = format!("a={}", fake());
    let o = annex_match(&[
        "--engine", &good, "--engine", &b, "--games", "2", "--depth", "1", "--out", &out_s,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!(
            "is in use by another annex match ({want}); wait for it to end or use another --out"
        )),
        "{e}"
    );
    assert!(first.wait().unwrap().success());
    // Only the first match's games, whole; the lock released cleanly.
    let games = check_games(&out, &RuleSet::default());
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.end == Termination::Timeout));
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), "");
}

#[test]
fn match_lock_of_a_killed_match_is_taken_over() {
    let dir = scratch("lock-stale");
    let out = dir.join("out");
    let out_s = out.display().to_string();
    let (mut first, want) = locked_match(&out, "30");
    let lock = out.join("match.lock");
    let b = format!("b={}", fake());
    // Killed: the lock file keeps its pid, the lock itself is gone.
    first.kill().unwrap();
    first.wait().unwrap();
    let good = format!("a={}", fake());
    let o = annex_match(&[
        "--engine", &good, "--engine", &b, "--games", "2", "--depth", "1", "--out", &out_s,
    ]);
    assert!(o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains(&format!(
            "match.lock: taking over from {want} (ended without releasing it)"
        )),
        "{e}"
    );
    assert_eq!(check_games(&out, &RuleSet::default()).len(), 2);
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), "");
}

#[test]
fn match_openings_from_a_device_are_refused() {
    let dir = scratch("openings-dev");
    let (a, b) = (format!("a={}", fake()), format!("b={}", fake()));
    let w = watched(
        &dir,
        &[
            "--engine",
            &a,
            "--engine",
            &b,
            "--depth",
            "1",
            "--openings",
            "/dev/zero",
        ],
    );
    w.ended(2);
    assert!(
        w.stderr
            .contains("cannot read /dev/zero: /dev/zero is not a regular file"),
        "{}",
        w.stderr
    );
}

#[test]
fn match_clean_sweep_of_four_has_a_positive_bound() {
    let dir = scratch("sweep4");
    let out = dir.join("out").display().to_string();
    let a = format!("a={}", fake());
    let c = format!("c={} --mode illegal --at-ply 4", fake());
    let o = annex_match(&[
        "--engine", &a, "--engine", &c, "--games", "4", "--depth", "1", "--out", &out,
    ]);
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(score_line(&stdout, "a", "c"), (4, 0, 0, 4));
    // Wilson: 4 / (4 + 1.96²) = 0.510, +7.0 Elo.
    assert!(
        stdout.contains("Elo difference: > +7.0 (95%), LOS: "),
        "{stdout}"
    );
}
