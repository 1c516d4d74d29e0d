//! `annex datagen`: the real binary, small runs (low depth, few solved
//! empties). Checks determinism, shards against one run, the legality of
//! every record and of each game's sequence, the solved labels against a
//! plain negamax written here, and the errors of bad arguments.

use crate::util::{Scratch, data_dir};
use annex::datagen::format::{HEADER_SIZE, NO_SCORE, Record, read_file, read_file_with};
use std::path::Path;
use std::process::{Command, Output};

/// Settings small enough for the default suite: depth 2, solved from 8
/// empties (the negamax below checks those).
const FAST: [&str; 6] = ["--depth", "2", "--solve-empties", "8", "--progress", "0"];

/// `annex datagen args` (with the shared data folder, except for `merge`).
fn annex(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_annex"));
    cmd.arg("datagen").args(args);
    if args.first() != Some(&"merge") {
        cmd.arg("--data").arg(data_dir());
    }
    cmd.output().expect("start annex")
}

/// Runs `annex datagen` into `out` with `FAST` and `args`; returns the bytes.
fn datagen(out: &Path, args: &[&str]) -> Vec<u8> {
    let mut all = vec!["--out", out.to_str().unwrap()];
    // `--nodes` replaces the depth.
    let skip = if args.contains(&"--nodes") { 2 } else { 0 };
    all.extend_from_slice(&FAST[skip..]);
    all.extend_from_slice(args);
    let o = annex(&all);
    assert!(
        o.status.success(),
        "annex datagen {all:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read(out).unwrap()
}

// An independent rules implementation: square walks, no bitboard tricks.

const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

fn flips(p: u64, o: u64, sq: usize) -> u64 {
    if (p | o) >> sq & 1 == 1 {
        return 0;
    }
    let (r0, c0) = ((sq / 8) as i32, (sq % 8) as i32);
    let mut all = 0;
    for (dr, dc) in DIRS {
        let (mut r, mut c, mut line) = (r0 + dr, c0 + dc, 0u64);
        while (0..8).contains(&r) && (0..8).contains(&c) && o >> (r * 8 + c) & 1 == 1 {
            line |= 1 << (r * 8 + c);
            r += dr;
            c += dc;
        }
        if line != 0 && (0..8).contains(&r) && (0..8).contains(&c) && p >> (r * 8 + c) & 1 == 1 {
            all |= line;
        }
    }
    all
}

/// `(square, board after the move from the opponent's view)` for each move.
fn children(p: u64, o: u64) -> Vec<(usize, u64, u64)> {
    (0..64)
        .filter_map(|sq| {
            let f = flips(p, o, sq);
            (f != 0).then(|| (sq, o & !f, p | f | 1 << sq))
        })
        .collect()
}

/// Exact final disc difference for the side to move, empties to the winner.
fn negamax(p: u64, o: u64, passed: bool) -> i32 {
    let kids = children(p, o);
    if kids.is_empty() {
        if passed {
            let (a, b) = (p.count_ones() as i32, o.count_ones() as i32);
            let e = 64 - a - b;
            return match a.cmp(&b) {
                std::cmp::Ordering::Greater => a - b + e,
                std::cmp::Ordering::Less => a - b - e,
                std::cmp::Ordering::Equal => 0,
            };
        }
        return -negamax(o, p, true);
    }
    kids.iter()
        .map(|&(_, np, no)| -negamax(np, no, false))
        .max()
        .unwrap()
}

/// How `b` follows `a` in a game: `Some(false)` after one move,
/// `Some(true)` after a move and the opponent's pass, `None` otherwise.
fn follows(a: &Record, b: &Record) -> Option<bool> {
    for (_, np, no) in children(a.player, a.opponent) {
        if (np, no) == (b.player, b.opponent) {
            return Some(false);
        }
        if children(np, no).is_empty() && (no, np) == (b.player, b.opponent) {
            return Some(true);
        }
    }
    None
}

/// Checks every record and each game's sequence; returns the games seen.
fn check_records(recs: &[Record], solve_empties: u32) -> Vec<u32> {
    let mut games = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.player & r.opponent, 0, "record {i}");
        assert!(
            !children(r.player, r.opponent).is_empty(),
            "record {i}: no move"
        );
        assert_eq!(r.solved(), r.empties() <= solve_empties, "record {i}");
        if r.solved() {
            assert_eq!(
                i32::from(r.label),
                negamax(r.player, r.opponent, false),
                "record {i}: solved label"
            );
        }
        if games.last() != Some(&r.game) {
            assert!(
                games.last().is_none_or(|&g| g < r.game),
                "record {i}: order"
            );
            games.push(r.game);
            continue;
        }
        let prev = &recs[i - 1];
        match follows(prev, r) {
            Some(false) => assert_eq!(r.label, -prev.label, "record {i}: label after a move"),
            Some(true) => assert_eq!(r.label, prev.label, "record {i}: label after a pass"),
            None => panic!("record {i} does not follow record {} by a move", i - 1),
        }
    }
    games
}

#[test]
fn datagen_is_deterministic_legal_and_exactly_labelled() {
    let dir = Scratch::new("datagen-determinism");
    let a = datagen(&dir.join("a.adg"), &["--games", "6", "--seed", "7"]);
    let b = datagen(
        &dir.join("b.adg"),
        &["--games", "6", "--seed", "7", "--threads", "2"],
    );
    let c = datagen(&dir.join("c.adg"), &["--games", "6", "--seed", "8"]);
    // A node budget is deterministic too (one search thread per game).
    let nodes = ["--games", "4", "--nodes", "3000"];
    let d = datagen(&dir.join("d.adg"), &nodes);
    let e = datagen(
        &dir.join("e.adg"),
        &[&nodes[..], &["--threads", "3"]].concat(),
    );
    assert_eq!(d, e, "a node budget: the same bytes");
    check_records(&read_file(&dir.join("d.adg")).unwrap(), 8);
    // With the opening kept, each game starts at the start position and
    // its first ten positions are unsearched.
    datagen(&dir.join("k.adg"), &["--games", "3", "--keep-opening"]);
    let kept = read_file(&dir.join("k.adg")).unwrap();
    assert_eq!(check_records(&kept, 8), [0, 1, 2]);
    let starts: Vec<&Record> = kept.iter().filter(|r| r.empties() == 60).collect();
    assert_eq!(starts.len(), 3);
    assert!(starts.iter().all(|r| r.search == NO_SCORE));
    assert!(
        kept.iter()
            .any(|r| r.empties() == 50 && r.search != NO_SCORE)
    );
    assert_eq!(a, b, "same seed, other thread count: the same bytes");
    assert_ne!(a, c, "another seed: other games");
    let recs = read_file(&dir.join("a.adg")).unwrap();
    assert_eq!(check_records(&recs, 8), (0..6).collect::<Vec<_>>());
    // XOT (8 plies) and 2 random moves: the engine starts at 50 empties.
    assert!(recs.iter().all(|r| r.empties() <= 50));
    assert!(recs.iter().filter(|r| r.solved()).count() >= 6 * 4);
    assert!(recs.iter().filter(|r| r.empties() == 50).count() >= 5);
    assert!(
        recs.iter()
            .any(|r| r.search != annex::datagen::format::NO_SCORE)
    );
}

#[test]
fn datagen_merged_shards_equal_one_run() {
    let dir = Scratch::new("datagen-merge");
    let args = ["--games", "5", "--seed", "3", "--openings", "random"];
    let whole = datagen(&dir.join("whole.adg"), &args);
    let mut shards = Vec::new();
    for i in 0..3 {
        let p = dir.join(format!("shard{i}.adg"));
        let s = format!("{i}/3");
        datagen(&p, &[&args[..], &["--shard", &s]].concat());
        shards.push(p.to_str().unwrap().to_string());
    }
    // Out of order on the command line: merge puts them in game order.
    let merged = dir.join("merged.adg");
    let mut m = vec!["merge", "--out", merged.to_str().unwrap()];
    m.extend(shards.iter().rev().map(String::as_str));
    let o = annex(&m);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&merged).unwrap(), whole);
    let recs = read_file(&merged).unwrap();
    assert_eq!(check_records(&recs, 8), (0..5).collect::<Vec<_>>());
    // A shard given twice overlaps: refused.
    let o = annex(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        &shards[1],
        &shards[1],
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("overlap") && err.lines().count() == 1, "{err}");
}

#[test]
fn datagen_bad_arguments_are_one_error_line() {
    let dir = Scratch::new("datagen-bad-args");
    let out = dir.join("bad.adg");
    let out = out.to_str().unwrap();
    let not_data = dir.join("not-data.adg");
    std::fs::write(&not_data, b"hello, world; not a data file").unwrap();
    let usage: [&[&str]; 5] = [
        &["--games", "3", "--out", out, "--shard", "3/2"],
        &["--games", "3", "--out", out, "--shard", "1"],
        &["--games", "0", "--out", out],
        &["--games", "4294967297", "--out", out],
        &["--games", "3", "--out", out, "--depth", "0"],
    ];
    for args in usage {
        let o = annex(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("invalid value") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    let nd = not_data.to_str().unwrap();
    let missing = ["--openings", "/nonexistent/openings.txt"];
    let tool: [(&[&str], &str); 4] = [
        (
            &["--games", "3", "--out", "/nonexistent/dir/x.adg"],
            "cannot create",
        ),
        (
            &[&["--games", "3", "--out", out], &missing[..]].concat(),
            "cannot read the openings",
        ),
        (
            &["merge", "--out", out, not_data.to_str().unwrap()],
            "bad magic",
        ),
        (&["merge", "--out", nd, nd], "also an input"),
    ];
    for (args, want) in tool {
        let o = annex(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines().count() == 1 && err.starts_with("annex: error: ") && err.contains(want),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn datagen_killed_mid_run_leaves_whole_records() {
    let dir = Scratch::new("datagen-killed");
    let out = dir.join("killed.adg");
    let mut all = vec!["--out", out.to_str().unwrap(), "--games", "100000"];
    all.extend_from_slice(&FAST);
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .arg("datagen")
        .args(&all)
        .arg("--data")
        .arg(data_dir())
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start annex");
    // Some games are written (the wait is for progress, not a time limit).
    let enough = (HEADER_SIZE + 24 * 200) as u64;
    while std::fs::metadata(&out).map_or(0, |m| m.len()) < enough {
        assert!(child.try_wait().unwrap().is_none(), "annex ended early");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Not complete (no marker): read only as a partial file.
    assert!(read_file(&out).is_err());
    let recs = read_file_with(&out, true).unwrap();
    let games = check_records(&recs, 8);
    assert_eq!(games, (0..games.len() as u32).collect::<Vec<_>>());
    // Every game but the last (which the kill may cut short) ends with
    // its solved endgame, down to the last move.
    for &g in &games[..games.len() - 1] {
        let last = recs.iter().rfind(|r| r.game == g).unwrap();
        assert!(last.solved(), "game {g}");
        let after = children(last.player, last.opponent);
        assert!(
            after
                .iter()
                .any(|&(_, p, o)| children(p, o).is_empty() && children(o, p).is_empty()),
            "game {g}: its last record is not one move from the end"
        );
    }
}
