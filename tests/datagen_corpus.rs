//! The game corpus (`annex datagen --corpus`, `annex datagen corpus`) and
//! the self-play openings no match uses (`--openings random`, checked by
//! `annex datagen overlap`): the real binary, small runs.

use crate::util::{Scratch, data_dir};
use annex::datagen::format::{Record, read_file_with};
use annex::train::fit::FitConfig;
use annex::train::{TrainConfig, load_datagen, train};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `annex datagen ARGS` on the shared data folder (but for `corpus`).
fn annex(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_annex"));
    cmd.arg("datagen").args(args);
    if args.first() != Some(&"corpus") {
        cmd.arg("--data").arg(data_dir());
    }
    cmd.output().expect("start annex")
}

/// `annex datagen ARGS` that must succeed; returns its stdout.
fn ok(args: &[&str]) -> String {
    let o = annex(args);
    assert!(
        o.status.success(),
        "annex datagen {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A small run (depth 1, solved from 10 empties) of `games` games into
/// `dir/NAME.adg` with `args`, and its corpus `dir/NAME.agc`.
fn run(dir: &Path, name: &str, games: &str, args: &[&str]) -> (PathBuf, PathBuf) {
    let adg = dir.join(format!("{name}.adg"));
    let agc = dir.join(format!("{name}.agc"));
    let mut all = vec![
        "--games",
        games,
        "--depth",
        "1",
        "--solve-empties",
        "10",
        "--progress",
        "0",
        "--out",
        adg.to_str().unwrap(),
        "--corpus",
        agc.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let out = ok(&all);
    assert!(out.contains("datagen corpus: games "), "{out}");
    (adg, agc)
}

/// Training on `files` only, with search scores blended in.
fn config(files: Vec<PathBuf>) -> TrainConfig {
    TrainConfig {
        data_dir: data_dir(),
        wthor: false,
        logbook: false,
        max_games: 0,
        holdout_percent: 20,
        seed: 3,
        solve_empties: 0,
        datagen: files,
        datagen_search_weight: 0.5,
        datagen_allow_partial: false,
        exclude: Vec::new(),
        fit: FitConfig {
            epochs: 2,
            progress: false,
            ..FitConfig::default()
        },
    }
}

#[test]
fn datagen_corpus_trains_on_the_samples_of_its_records() {
    let dir = Scratch::new("datagen-corpus");
    let (adg, agc) = run(&dir, "r", "12", &["--openings", "random", "--seed", "4"]);
    let recs: Vec<Record> = read_file_with(&adg, false).unwrap();
    assert!(recs.len() > 12 * 20, "{}", recs.len());
    assert_eq!(read_file_with(&agc, false).unwrap(), recs);
    // A few bytes a position: well under a fifth of the records' bytes.
    let (a, c) = (
        std::fs::metadata(&adg).unwrap().len(),
        std::fs::metadata(&agc).unwrap().len(),
    );
    assert!(c * 5 < a && c < 64 + 12 * 100, "{c} against {a}");
    // The same samples, the same split, the same weights.
    let samples = |f: &PathBuf| load_datagen(std::slice::from_ref(f), 3, 20, 0.5, false).unwrap();
    let (ta, ha) = samples(&adg);
    let (tc, hc) = samples(&agc);
    assert_eq!(ha, hc);
    assert_eq!(ta.len(), tc.len());
    for (x, y) in ta.iter().zip(&tc) {
        assert_eq!(x.len(), y.len());
        for (s, t) in x.iter().zip(y) {
            assert_eq!(
                (s.player, s.opponent, s.label),
                (t.player, t.opponent, t.label)
            );
        }
    }
    let wa = train(&config(vec![adg.clone()])).unwrap().weights.data;
    let wc = train(&config(vec![agc.clone()])).unwrap().weights.data;
    assert!(wa.iter().any(|&w| w != 0));
    assert!(wa == wc, "training on the corpus gave other weights");
    // The corpus of a finished run is written again on request, the same;
    // so is the corpus of its shards (in any order), and shards that do not
    // follow each other are refused.
    let again = dir.join("again.agc");
    let a = again.to_str().unwrap();
    ok(&["corpus", adg.to_str().unwrap(), "-o", a]);
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&agc).unwrap());
    let shard = |i: &str| {
        let args = ["--openings", "random", "--seed", "4", "--shard", i];
        run(&dir, &format!("s{}", &i[..1]), "12", &args).0
    };
    let (s0, s1) = (shard("0/2"), shard("1/2"));
    let (s0, s1) = (s0.to_str().unwrap(), s1.to_str().unwrap());
    ok(&["corpus", s1, s0, "-o", a]);
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&agc).unwrap());
    let o = annex(&["corpus", s0, s0, "-o", a]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("do not follow"));
}

#[test]
fn datagen_random_openings_hold_no_match_opening_position() {
    let dir = Scratch::new("datagen-overlap");
    // The default range, 10-30 random moves: nothing shared.
    let (adg, agc) = run(&dir, "r", "6", &["--openings", "random"]);
    for f in [&adg, &agc] {
        let out = ok(&["overlap", f.to_str().unwrap()]);
        assert!(
            out.contains("; 0 are positions of the match openings"),
            "{out}"
        );
    }
    // The openings' own positions kept: the check finds and fails.
    let (kept, _) = run(&dir, "k", "3", &["--openings", "xot", "--keep-opening"]);
    let o = annex(&["overlap", kept.to_str().unwrap()]);
    assert!(!o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    // Each XOT game begins with its 8-ply line: at least 9 positions each.
    let shared: u64 = out
        .split("; ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(shared >= 3 * 8, "{out}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("match-opening positions"), "{err}");
}

#[test]
fn datagen_bad_corpora_and_ranges_are_one_error_line() {
    let dir = Scratch::new("datagen-corpus-bad");
    let (adg, agc) = run(
        &dir,
        "r",
        "3",
        &["--openings", "random", "--random-moves", "20-24"],
    );
    let bytes = std::fs::read(&agc).unwrap();
    let bad = dir.join("bad.agc");
    let one_line = |args: &[&str], want: &str| {
        let o = annex(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    let b = bad.to_str().unwrap();
    let mut flipped = bytes.clone();
    flipped[70] ^= 4;
    std::fs::write(&bad, &flipped).unwrap();
    one_line(&["overlap", b], "damaged");
    std::fs::write(&bad, &bytes[..bytes.len() - 1]).unwrap();
    one_line(&["overlap", b], "damaged");
    one_line(&["overlap", "/dev/zero"], "/dev/zero");
    // Not a data file: refused, and nothing written.
    let out = dir.join("x.agc");
    one_line(
        &["corpus", agc.to_str().unwrap(), "-o", out.to_str().unwrap()],
        "magic",
    );
    assert!(!out.exists());
    for r in ["30-10", "61", "x"] {
        one_line(
            &[
                "--games",
                "1",
                "--out",
                adg.to_str().unwrap(),
                "--openings",
                "random",
                "--random-moves",
                r,
            ],
            "random move",
        );
    }
    one_line(
        &[
            "--games",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--random-moves",
            "2-4",
        ],
        "--random-moves",
    );
}

/// The committed corpora (`corpus/*.agc`) read back whole (their hashes
/// and counts check), hold no position of the match openings, and hold
/// the positions `corpus/README.md` lists for them.
#[test]
fn committed_corpora_read_back_and_hold_no_match_opening_position() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("corpus"))
        .expect("corpus/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "agc"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus/*.agc");
    let readme = std::fs::read_to_string(root.join("corpus/README.md")).expect("README");
    let mut args = vec!["overlap"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    let out = ok(&args);
    for f in &files {
        let name = f.file_name().unwrap().to_str().unwrap();
        let line = out
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} not in {out}"));
        assert!(
            line.contains("; 0 are positions of the match openings"),
            "{line}"
        );
        let positions = read_file_with(f, false).expect("reads back").len();
        // The README's row: | `NAME` | games | positions (solved) | …
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}`")))
            .unwrap_or_else(|| panic!("corpus/README.md has no row for {name}"));
        let listed: String = row
            .split('|')
            .nth(3)
            .unwrap()
            .split('(')
            .next()
            .unwrap()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        assert_eq!(listed.parse::<usize>().ok(), Some(positions), "{row}");
    }
}
