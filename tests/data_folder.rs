//! The data folder of the tools: `--data` defaults to `$ANNEX_DATA`, else
//! the repository's `data/` (relative to the current directory), which
//! ships the sets `datagen` and `train --sources wthor` need; a missing
//! file gives one error line that says what to pass.

use crate::util::{Scratch, data_dir};
use std::path::Path;
use std::process::{Command, Output};

/// `annex args` run in `cwd`, with `ANNEX_DATA` set to `data` or unset.
fn annex(cwd: &Path, data: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_annex"));
    cmd.current_dir(cwd).args(args).env_remove("ANNEX_DATA");
    if let Some(d) = data {
        cmd.env("ANNEX_DATA", d);
    }
    cmd.output().expect("start annex")
}

/// A one-game `annex datagen` run writing `out`, on the default data.
fn datagen_args(out: &Path) -> Vec<String> {
    [
        "datagen",
        "--games",
        "1",
        "--depth",
        "1",
        "--solve-empties",
        "4",
        "--progress",
        "0",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.to_str().unwrap().to_string()])
    .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The error lines of `o` (it must have failed): exactly one, returned.
fn one_error_line(o: &Output) -> String {
    assert!(!o.status.success(), "expected a failure");
    let e = stderr(o);
    let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one error line: {e}");
    lines[0].to_string()
}

#[test]
fn datagen_finds_the_shipped_openings_from_the_repository_root() {
    let dir = Scratch::new("data-folder-root");
    let out = dir.join("g.adg");
    let args = datagen_args(&out);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = annex(root, None, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata(&out).unwrap().len() > 16);
}

#[test]
fn datagen_elsewhere_says_what_to_pass_and_follows_annex_data() {
    let dir = Scratch::new("data-folder-elsewhere");
    let out = dir.join("g.adg");
    let args = datagen_args(&out);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // No data/ here and no ANNEX_DATA: one line naming the file and the way out.
    let e = one_error_line(&annex(&dir, None, &args));
    assert!(e.contains("openings/xot/openingslarge.txt"), "{e}");
    assert!(e.contains("--data DIR") && e.contains("ANNEX_DATA"), "{e}");
    assert!(!out.exists(), "no output after the error");
    // ANNEX_DATA names the folder.
    let o = annex(&dir, Some(&data_dir()), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.exists());
    // So does --data, over ANNEX_DATA.
    let missing = dir.join("no-such-folder");
    let mut with_flag = args.clone();
    with_flag.extend(["--data", missing.to_str().unwrap()]);
    let e = one_error_line(&annex(&dir, Some(&data_dir()), &with_flag));
    assert!(e.contains("no-such-folder"), "{e}");
}

#[test]
fn train_on_the_shipped_wthor_years_and_not_on_the_absent_logbook() {
    let dir = Scratch::new("data-folder-train");
    let out = dir.join("small.eval");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let common = ["--max-games", "40", "--epochs", "1", "--threads", "1"];
    let mut args = vec!["train", "--out", out.to_str().unwrap()];
    args.extend(common);
    // The default sources include the Logistello games, which the
    // repository does not ship.
    let e = one_error_line(&annex(root, None, &args));
    assert!(e.contains("logistello/logbook.gam.gz"), "{e}");
    assert!(e.contains("ANNEX_DATA"), "{e}");
    assert!(!out.exists());
    args.extend(["--sources", "wthor"]);
    let o = annex(root, None, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.exists());
}

#[test]
fn eval_measure_asks_for_the_full_data_sets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let e = one_error_line(&annex(root, None, &["eval-measure", "--solve", "0"]));
    assert!(e.contains("has no logistello/logbook.gam.gz"), "{e}");
}
