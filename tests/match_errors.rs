//! `annex match` meeting errors: resumes, refusals, protocol errors.
//! `annex match` run as users run it, against the fake engines of
//! `tests/fake_engine.py`.

use crate::matchplay::{annex_match, check_games, fake, score_line, scratch, xot};
use annex::record::game_record::Termination;
use annex::rules::RuleSet;
use std::path::Path;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// `--engine a=<fake …> --engine b=<fake> --out DIR` and `extra`.
fn run_in(out: &Path, a_flags: &str, extra: &[&str]) -> std::process::Output {
    let a = format!("a={} {a_flags}", fake());
    let b = format!("b={}", fake());
    let out_s = out.display().to_string();
    let mut args = vec!["--engine", &a, "--engine", &b, "--out", &out_s];
    args.extend_from_slice(extra);
    annex_match(&args)
}

#[test]
fn match_resume_with_other_limits_is_refused() {
    let out_dir = scratch("h-limits");
    let out = out_dir.join("out");
    let o = run_in(&out, "", &["--games", "2", "--movetime", "60"]);
    assert!(o.status.success());
    let before = std::fs::read_to_string(out.join("games.txt")).unwrap();
    let o = run_in(&out, "", &["--games", "4", "--depth", "2"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    for want in [
        "a.depth: was 'none', now '2'",
        "a.movetime: was '60 ms', now 'none'",
        "b.depth: was 'none', now '2'",
    ] {
        assert!(e.contains(want), "{e}");
    }
    // Nothing was played or changed.
    assert_eq!(
        std::fs::read_to_string(out.join("games.txt")).unwrap(),
        before
    );
    // The same settings with more games resume.
    let o = run_in(&out, "", &["--games", "4", "--movetime", "60"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("Resuming: 2 games already in --out, 2 to play"));
}

#[test]
fn match_refused_resume_names_the_seed() {
    let out_dir = scratch("h-seed");
    let out = out_dir.join("out");
    let xot = xot().display().to_string();
    let args = |seed: &'static str| {
        vec![
            "--games",
            "4",
            "--depth",
            "1",
            "--openings",
            &xot,
            "--seed",
            seed,
        ]
    };
    let o = run_in(&out, "", &args("1"));
    assert!(o.status.success());
    let o = run_in(&out, "", &args("2"));
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("seed: was '1', now '2'"), "{e}");
    assert!(
        !e.contains("engines:") && !e.contains("does not belong"),
        "{e}"
    );
    // Another openings file is named as such.
    let other_dir = scratch("h-seed-openings");
    let other = other_dir.join("o.txt");
    std::fs::write(&other, "f5d6c3d3c4\nf5f6e6f4\n").unwrap();
    let other_s = other.display().to_string();
    let o = run_in(
        &out,
        "",
        &[
            "--games",
            "4",
            "--depth",
            "1",
            "--openings",
            &other_s,
            "--seed",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("openings: was '"), "{e}");
    assert!(!e.contains("seed:"), "{e}");
}

#[test]
fn match_truncated_games_txt_is_repaired_once() {
    let out_dir = scratch("h-trunc");
    let out = out_dir.join("out");
    let limits = ["--games", "4", "--depth", "1"];
    assert!(run_in(&out, "", &limits).status.success());
    // Killed while writing the last line: cut it inside its moves, where
    // what is left still reads as a game (a shorter one).
    let path = out.join("games.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let last = text.trim_end().rfind('\n').unwrap() + 1;
    let cut = last + text[last..].find("moves=").unwrap() + "moves=".len() + 8;
    std::fs::write(&path, &text[..cut]).unwrap();
    let o = run_in(&out, "", &limits);
    assert!(o.status.success());
    let e = stderr(&o);
    assert_eq!(e.matches("unreadable").count(), 1, "{e}");
    assert!(
        e.contains("Resuming: 3 games already in --out, 1 to play"),
        "{e}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with('\n'));
    assert_eq!(text.lines().count(), 4, "{text}");
    assert_eq!(check_games(&out, &RuleSet::default()).len(), 4);
    // Repaired once: the next run has nothing to say about it.
    let o = run_in(&out, "", &limits);
    assert!(o.status.success());
    let e = stderr(&o);
    assert!(!e.contains("unreadable") && !e.contains("skipped"), "{e}");
    assert!(
        e.contains("Resuming: 4 games already in --out, 0 to play"),
        "{e}"
    );
}

/// One game for each protocol where engine `a` answers in `mode` from
/// ply 6; each must end by a protocol error whose reason says so and
/// holds `detail`.
fn protocol_errors(mode: &str, detail: &str) {
    for proto in ["uci", "nboard", "gtp"] {
        let out_dir = scratch(&format!("h-{mode}-{proto}"));
        let out = out_dir.join("out");
        let a = format!(
            "a={proto}:{} --only {proto} --mode {mode} --at-ply 6",
            fake()
        );
        let b = format!("b={proto}:{} --only {proto}", fake());
        let out_s = out.display().to_string();
        let o = annex_match(&[
            "--engine", &a, "--engine", &b, "--games", "2", "--depth", "1", "--out", &out_s,
        ]);
        assert!(o.status.success(), "{proto}");
        let games = check_games(&out, &RuleSet::default());
        assert_eq!(games.len(), 2);
        for g in &games {
            assert_eq!(g.end, Termination::Error, "{proto}: {}", g.reason);
            assert!(g.reason.starts_with("a "), "{proto}: {}", g.reason);
            assert!(g.reason.contains("protocol error"), "{proto}: {}", g.reason);
            assert!(g.reason.contains(detail), "{proto}: {}", g.reason);
        }
        let stdout = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(score_line(&stdout, "a", "b"), (0, 2, 0, 2), "{proto}");
    }
}

#[test]
fn match_invalid_utf8_is_a_protocol_error() {
    protocol_errors("utf8", "UTF-8");
}

#[test]
fn match_two_answers_are_a_protocol_error() {
    protocol_errors("double", "two ");
}

#[test]
fn match_clean_sweep_has_no_inf_or_nan() {
    let out_dir = scratch("h-sweep");
    let out = out_dir.join("out");
    let (a, b) = (format!("a={}", fake()), format!("b={}", fake()));
    let c = format!("c={} --mode illegal --at-ply 4", fake());
    let out_s = out.display().to_string();
    let o = annex_match(&[
        "--engine", &a, "--engine", &b, "--engine", &c, "--games", "10", "--depth", "1", "--out",
        &out_s,
    ]);
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(score_line(&stdout, "a", "c"), (10, 0, 0, 10));
    // 10 wins of 10: Wilson's 10 / (10 + 1.96²) = 0.722, 166.2 Elo.
    assert!(
        stdout.contains("Elo difference: > +166.2 (95%), LOS: "),
        "{stdout}"
    );
    let low = stdout.to_ascii_lowercase();
    assert!(!low.contains("inf") && !low.contains("nan"), "{stdout}");
}

#[test]
fn match_out_of_range_arguments_are_refused() {
    let (a, b) = (format!("a={}", fake()), format!("b={}", fake()));
    for (flag, value, want) in [
        ("--concurrency", "0", "--concurrency"),
        ("--movetime", "0", "--movetime"),
        ("--depth", "0", "--depth"),
        ("--depth", "61", "--depth"),
        ("--nodes", "0", "--nodes"),
        ("--games", "0", "--games"),
        ("--hang", "0", "--hang"),
        ("--timemargin", "600000", "--timemargin"),
        ("--engine-opt", "a:depth=0", "'0' for depth of engine a"),
        (
            "--engine-opt",
            "a:movetime=0",
            "'0' for movetime of engine a",
        ),
        ("--engine-opt", "a:nodes=-1", "'-1' for nodes of engine a"),
        (
            "--engine-opt",
            "a:Hash=0",
            "option Hash = '0': the engine takes 1..1024",
        ),
    ] {
        let mut args = vec!["--engine", &a, "--engine", &b, flag, value];
        if flag != "--depth" {
            args.extend(["--depth", "1"]);
        }
        let o = annex_match(&args);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let e = stderr(&o);
        assert!(e.contains(want), "{flag} {value}: {e}");
        assert!(e.lines().count() <= 4, "{flag} {value}: {e}");
        assert!(o.stdout.is_empty(), "{flag} {value}");
    }
}

#[test]
fn match_unbalanced_quote_in_engine_command_is_refused() {
    let b = format!("b={}", fake());
    for bad in ["a=engine 'one two", "a=engine \"x", "a=engine x\\"] {
        let o = annex_match(&["--engine", bad, "--engine", &b, "--depth", "1"]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let e = stderr(&o);
        assert!(e.contains("unbalanced quote"), "{bad}: {e}");
        assert!(e.lines().count() <= 4, "{bad}: {e}");
        assert!(o.stdout.is_empty(), "{bad}");
    }
}
