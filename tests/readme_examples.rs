//! `.ci/readme-examples`, the checker of the README's examples, on the
//! sample READMEs of `tests/data/readme/`: examples that pass, a
//! placeholder, commands that run until stopped (the protocol loop,
//! `annex serve` answering HTTP on the loopback), and examples that fail.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the checker on `readme` with the test's `annex` first on the PATH,
/// copying the repository for each block.
fn check(readme: &str) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_annex")).parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    Command::new("python3")
        .arg(root.join(".ci/readme-examples"))
        .args(["--timeout", "60", "--root"])
        .arg(root)
        .arg(root.join("tests/data/readme").join(readme))
        .env("PATH", std::env::join_paths(dirs).unwrap())
        .env_remove("ANNEX_DATA")
        .output()
        .expect("run python3 .ci/readme-examples")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn good_examples_pass_and_placeholders_are_skipped() {
    let o = check("good.md");
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("7 run, 1 placeholders skipped, 0 problems"),
        "{t}"
    );
    // A placeholder in the trailing comment does not skip the line.
    assert!(
        t.contains("ok") && t.contains("good.md:8: annex perft 5"),
        "{t}"
    );
    // The continued line runs as one command; cargo lines do not run.
    assert!(
        t.contains("ok") && t.contains("--only 1-2 --threads 1"),
        "{t}"
    );
    assert!(!t.contains("cargo test"), "{t}");
}

#[test]
fn failing_examples_are_reported_with_their_line() {
    let o = check("bad.md");
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("ok") && t.contains("bad.md:6: annex perft 3"),
        "{t}"
    );
    assert!(
        t.contains("FAIL")
            && t.contains("bad.md:7: annex solve data/no-such-file.obf: exit status 2"),
        "{t}"
    );
    assert!(
        t.contains("bad.md:8: annex perft 1") && t.contains("ended within 2 s"),
        "{t}"
    );
    assert!(t.contains("bad.md:9:") && t.contains("exit status"), "{t}");
    assert!(t.contains("does not say how to install"), "{t}");
    assert!(
        t.contains("4 run, 0 placeholders skipped, 4 problems"),
        "{t}"
    );
}
