//! `annex match` driven as users run it, with the fake engines of
//! `tests/fake_engine.py` (an independent Python move generator that can
//! misbehave on request). Every saved game is replayed with our rules code.

use crate::util::Scratch;
use annex::position::Position;
use annex::record::game_record::{GameRecord, Outcome, Termination};
use annex::rules::{RuleSet, Scoring, Tie};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn fake() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_engine.py");
    format!("python3 {}", p.display())
}

pub(crate) fn xot() -> PathBuf {
    crate::util::data_file("openings/xot/openingssmall.txt")
}

/// A fresh scratch folder for one test, removed when dropped.
pub(crate) fn scratch(name: &str) -> Scratch {
    Scratch::new(&format!("match-{name}"))
}

pub(crate) fn annex_match<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_annex"))
        .arg("match")
        .args(args)
        .output()
        .expect("run annex");
    eprintln!(
        "--- stdout\n{}--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// One `annex match` run, built flag by flag:
/// `Match::new().engine(&a).engine(&b).games(2).depth(1).out(&out).run()`.
#[derive(Clone, Default)]
pub(crate) struct Match {
    args: Vec<OsString>,
}

impl Match {
    pub(crate) fn new() -> Match {
        Match::default()
    }

    /// `--engine SPEC`.
    pub(crate) fn engine(self, spec: impl AsRef<OsStr>) -> Match {
        self.flag("--engine", spec)
    }

    /// `--games N`.
    pub(crate) fn games(self, n: u32) -> Match {
        self.flag("--games", n.to_string())
    }

    /// `--depth N`.
    pub(crate) fn depth(self, n: u32) -> Match {
        self.flag("--depth", n.to_string())
    }

    /// `--openings FILE`.
    pub(crate) fn openings(self, file: impl AsRef<OsStr>) -> Match {
        self.flag("--openings", file)
    }

    /// `--out DIR`.
    pub(crate) fn out(self, dir: impl AsRef<OsStr>) -> Match {
        self.flag("--out", dir)
    }

    /// Any flag with its value.
    pub(crate) fn flag(mut self, name: &str, value: impl AsRef<OsStr>) -> Match {
        self.args.push(name.into());
        self.args.push(value.as_ref().to_os_string());
        self
    }

    /// More arguments as they are.
    pub(crate) fn args(mut self, args: &[&str]) -> Match {
        self.args.extend(args.iter().map(OsString::from));
        self
    }

    /// Runs `annex match` with the arguments (output echoed to stderr).
    pub(crate) fn run(&self) -> Output {
        annex_match(&self.args)
    }
}

/// Parses `Score of A vs B: W - L - D [s] N`.
pub(crate) fn score_line(stdout: &str, a: &str, b: &str) -> (u32, u32, u32, u32) {
    let prefix = format!("Score of {a} vs {b}: ");
    let l = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no '{prefix}' line in:\n{stdout}"));
    let t: Vec<&str> = l.split_whitespace().collect();
    assert_eq!((t[1], t[3]), ("-", "-"), "{l}");
    let n = |s: &str| s.parse::<u32>().unwrap();
    (n(t[0]), n(t[2]), n(t[4]), n(t[6]))
}

/// Reads `games.txt`, checks every game against our rules code, and
/// returns the records by number.
pub(crate) fn check_games(dir: &Path, rules: &RuleSet) -> Vec<GameRecord> {
    let text = std::fs::read_to_string(dir.join("games.txt")).unwrap();
    let mut games: Vec<GameRecord> = text
        .lines()
        .map(|l| GameRecord::parse_line(l, rules).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    games.sort_by_key(|g| g.number);
    for g in &games {
        // Replay move by move with the checked `play`.
        let mut pos = g.start;
        for m in &g.moves {
            pos = pos
                .play(rules, *m)
                .unwrap_or_else(|e| panic!("game {}: {e}", g.number))
                .1;
        }
        if g.end == Termination::Normal {
            assert!(pos.is_game_over(rules), "game {} not over", g.number);
            let black = pos.black().count_ones() as i32;
            let white = pos.white().count_ones() as i32;
            let want = match black.cmp(&white) {
                std::cmp::Ordering::Greater => Outcome::BlackWins,
                std::cmp::Ordering::Less => Outcome::WhiteWins,
                std::cmp::Ordering::Equal if rules.tie == Tie::Second => Outcome::WhiteWins,
                std::cmp::Ordering::Equal => Outcome::Draw,
            };
            assert_eq!(g.outcome, want, "game {}", g.number);
            // WOF scoring: empties go to the winner.
            let empties = 64 - black - white;
            let diff = black - white;
            let want = match rules.scoring {
                Scoring::Wof => diff + diff.signum() * empties,
                Scoring::Count => diff,
            };
            assert_eq!(g.score, want, "game {}", g.number);
        } else {
            assert!(
                !pos.is_game_over(rules),
                "game {} forfeited after its end",
                g.number
            );
            assert_eq!(g.score.abs(), 64);
        }
        // The GGF holds the same moves and result.
        let ggf = std::fs::read_to_string(dir.join(format!("game-{:06}.ggf", g.number))).unwrap();
        assert!(ggf.contains(&format!("RE[{:+}.00", g.score)), "{ggf}");
        let after_board = &ggf[ggf.find("BO[").unwrap()..];
        let after_board = &after_board[after_board.find(']').unwrap()..];
        let ggf_moves: Vec<String> = after_board
            .split(['B', 'W'])
            .filter_map(|p| p.strip_prefix('['))
            .map(|p| p.split([']', '/']).next().unwrap().to_string())
            .collect();
        let want: Vec<String> = g
            .moves
            .iter()
            .map(|m| {
                if m.is_pass() {
                    "PA".into()
                } else {
                    m.to_string()
                }
            })
            .collect();
        assert_eq!(ggf_moves, want, "game {} GGF moves", g.number);
    }
    games
}

fn count_lines(path: &Path, cmd: &str) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(cmd))
        .count()
}

#[test]
fn fake_match_accounting_openings_and_resume() {
    let dir = scratch("accounting");
    let out = dir.join("out");
    let log_b = dir.join("b.log");
    let a = format!("a={} --strategy greedy", fake());
    let b = format!("b={} --log {}", fake(), log_b.display());
    let xot = xot();
    let run = |first: &str, games: u32| {
        Match::new()
            .engine(first)
            .engine(&b)
            .games(games)
            .depth(1)
            .openings(&xot)
            .out(&out)
            .run()
    };
    let o = run(&a, 6);
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let (w, l, d, n) = score_line(&stdout, "a", "b");
    assert_eq!((w + l + d, n), (6, 6));
    assert!(stdout.contains("Elo difference: "), "{stdout}");
    let rules = RuleSet::default();
    let games = check_games(&out, &rules);
    assert_eq!(
        games.iter().map(|g| g.number).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    // The score line agrees with the saved games.
    let a_wins = games
        .iter()
        .filter(|g| {
            (g.outcome == Outcome::BlackWins && g.black == "a")
                || (g.outcome == Outcome::WhiteWins && g.white == "a")
        })
        .count() as u32;
    assert_eq!(a_wins, w);
    // Each XOT line is played twice, colours swapped, from its moves.
    let openings: Vec<String> = std::fs::read_to_string(&xot)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    for pair in games.chunks(2) {
        assert_eq!(pair[0].opening, pair[1].opening);
        assert_eq!(
            (&pair[0].black, &pair[0].white),
            (&pair[1].white, &pair[1].black)
        );
        let k = pair[0].opening.unwrap();
        let (_, moves) = Position::start(&rules)
            .play_transcript(&openings[k], &rules)
            .unwrap();
        assert!(pair[0].moves.starts_with(&moves) && pair[1].moves.starts_with(&moves));
    }
    // One process for the start check and one reused for all six games.
    assert_eq!(count_lines(&log_b, "uci"), 2);
    assert_eq!(count_lines(&log_b, "ucinewgame"), 6);

    // Resume: only the two missing games are played. A match killed while
    // writing leaves a partial line: it is taken out, and the game replayed.
    let games_txt = out.join("games.txt");
    let mut text = std::fs::read_to_string(&games_txt).unwrap();
    text.push_str("7 black=a white=b open");
    std::fs::write(&games_txt, text).unwrap();
    let o = run(&a, 8);
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("Resuming: 6 games already in --out, 2 to play"),
        "{stderr}"
    );
    let (w, l, d, n) = score_line(&String::from_utf8_lossy(&o.stdout), "a", "b");
    assert_eq!((w + l + d, n), (8, 8));
    assert!(stderr.contains("unreadable"), "{stderr}");
    let text = std::fs::read_to_string(&games_txt).unwrap();
    assert!(text.lines().all(|l| !l.ends_with(" open")), "{text}");
    let games = check_games(&out, &rules);
    assert_eq!(games.len(), 8);
    assert_eq!(count_lines(&log_b, "ucinewgame"), 8);
    // A different match must not reuse the folder.
    let o = run(&format!("c={}", fake()), 8);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("engines: was 'a, b', now 'c, b'"),
        "{stderr}"
    );
}

/// Runs a 3-game match where engine `a` misbehaves from ply 10 on; every
/// game must be lost by `a` with termination `end`, and the match must go
/// on to the end.
fn misbehaving(mode: &str, limit: &[&str], end: Termination) -> Vec<GameRecord> {
    // One folder per (mode, limits): two tests use mode `silent`, and
    // tests run in parallel in one process.
    let dir = scratch(&format!("{mode}{}", limit.join("")));
    let out = dir.join("out");
    let log_a = dir.join("a.log");
    let a = format!(
        "a={} --mode {mode} --at-ply 10 --slow-ms 1500 --log {}",
        fake(),
        log_a.display()
    );
    let b = format!("b={}", fake());
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .games(3)
        .out(&out)
        .args(limit)
        .run();
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(score_line(&stdout, "a", "b"), (0, 3, 0, 3));
    assert!(stdout.contains("Forfeits: 3"), "{stdout}");
    let games = check_games(&out, &RuleSet::default());
    assert_eq!(games.len(), 3);
    for g in &games {
        assert_eq!(g.end, end, "game {}: {}", g.number, g.reason);
        assert!(g.reason.starts_with("a "), "{}", g.reason);
        // Misbehaviour starts at ply 10: 10 or 11 moves were played.
        assert!((10..=11).contains(&g.moves.len()), "{:?}", g.moves);
    }
    // Crashed or killed engines are restarted: one start check plus one
    // process per game; an engine that played an illegal move or resigned
    // is kept.
    let starts = count_lines(&log_a, "uci");
    if matches!(end, Termination::Illegal | Termination::Resign) {
        assert_eq!(starts, 2);
    } else {
        assert_eq!(starts, 4);
    }
    games
}

#[test]
fn illegal_move_loses() {
    let g = misbehaving("illegal", &["--depth", "2"], Termination::Illegal);
    assert!(g[0].reason.contains("illegal move"), "{}", g[0].reason);
}

#[test]
fn unreadable_move_loses() {
    misbehaving("garbage", &["--depth", "2"], Termination::Illegal);
}

#[test]
fn crash_loses_and_engine_restarts() {
    // Three games at once: each worker restarts its own crashed process.
    let g = misbehaving(
        "crash",
        &["--depth", "2", "--concurrency", "3"],
        Termination::Crash,
    );
    assert!(g[0].reason.contains("crashed"), "{}", g[0].reason);
}

#[test]
fn silence_past_movetime_loses() {
    misbehaving("silent", &["--movetime", "100"], Termination::Timeout);
}

#[test]
fn hang_under_depth_limit_loses() {
    misbehaving(
        "silent",
        &["--depth", "3", "--hang", "1"],
        Termination::Timeout,
    );
}

#[test]
fn time_forfeit_under_time_control() {
    let g = misbehaving(
        "slow",
        &["--tc", "1+0", "--timemargin", "50"],
        Termination::Timeout,
    );
    assert!(g.iter().all(|g| g.reason.contains("did not move within")));
}

#[test]
fn resignation_loses() {
    misbehaving("resign", &["--depth", "1"], Termination::Resign);
}

/// The same games over the three protocols: NBoard with a prefix, GTP
/// detected by handshake, UCI detected.
#[test]
fn protocols_play_the_same_games() {
    let mut transcripts = Vec::new();
    for proto in ["uci", "nboard", "gtp"] {
        let dir = scratch(&format!("proto-{proto}"));
        let out = dir.join("out");
        let prefix = if proto == "nboard" { "nboard:" } else { "" };
        let a = format!("a={prefix}{} --only {proto} --strategy greedy", fake());
        let b = format!("b={prefix}{} --only {proto}", fake());
        let xot = xot();
        let o = Match::new()
            .engine(&a)
            .engine(&b)
            .games(2)
            .flag("--movetime", "500")
            .openings(&xot)
            .out(&out)
            .run();
        assert!(o.status.success());
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(&format!("({proto}), id 'fake-good'")),
            "{stderr}"
        );
        // NBoard cannot carry a movetime: the match says so, once.
        let warned = stderr.matches("NBoard has no per-move time").count();
        assert_eq!(warned, usize::from(proto == "nboard"), "{stderr}");
        let games = check_games(&out, &RuleSet::default());
        assert!(games.iter().all(|g| g.end == Termination::Normal));
        transcripts.push(games.iter().map(|g| g.moves.clone()).collect::<Vec<_>>());
    }
    assert_eq!(transcripts[0], transcripts[1]);
    assert_eq!(transcripts[0], transcripts[2]);
}

/// Regression: GRhino's gtp-rhino refuses `play <colour> pass` and passes by
/// itself; that refusal must not forfeit its games.
#[test]
fn gtp_engine_that_refuses_explicit_passes() {
    let dir = scratch("gtp-no-pass");
    let out = dir.join("out");
    let a = format!("a={} --only uci --strategy greedy", fake());
    let b = format!("b=gtp:{} --only gtp --no-gtp-pass", fake());
    let xot = xot();
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .games(12)
        .depth(1)
        .openings(&xot)
        .out(&out)
        .run();
    assert!(o.status.success());
    let games = check_games(&out, &RuleSet::default());
    assert_eq!(games.len(), 12);
    assert!(
        games.iter().all(|g| g.end == Termination::Normal),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // The test means something only if the GTP engine was sent a pass.
    assert!(
        games.iter().any(|g| g.moves.iter().any(|m| m.is_pass())),
        "no game had a pass"
    );
}

#[test]
fn sprt_stops_early() {
    let dir = scratch("sprt");
    let out = dir.join("out");
    let a = format!("weak={} --mode illegal --at-ply 4", fake());
    let b = format!("strong={}", fake());
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .games(200)
        .depth(1)
        .flag("--sprt", "0,50,0.05,0.05")
        .out(&out)
        .run();
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("H0 was accepted"), "{stdout}");
    let (_, l, _, n) = score_line(&stdout, "weak", "strong");
    assert!(n < 20 && l == n, "{n}");
}

#[test]
fn bad_engines_and_arguments_are_errors() {
    let o = Match::new()
        .engine("a=/nonexistent/engine")
        .engine("b=/nonexistent/engine")
        .depth(1)
        .run();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot start"));
    let b = format!("b={}", fake());
    let a = format!("a={}", fake());
    // The fake UCI engine has no rule options: a variant cannot be played.
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .flag("--flips", "one-line")
        .depth(1)
        .run();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no option Flips"));
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .flag("--sprt", "5,0,0.05,0.05")
        .run();
    assert_eq!(o.status.code(), Some(2));
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .flag("--tc", "fast")
        .run();
    assert_eq!(o.status.code(), Some(2));
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .flag("--engine-opt", "a:depth=1")
        .run();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("engine b has no limit"));
}

fn annex() -> String {
    env!("CARGO_BIN_EXE_annex").to_string()
}

/// Two settings of Annex itself (depth 1 against depth 3) over the
/// UCI-style protocol, detected by handshake.
#[test]
fn annex_settings_match() {
    let dir = scratch("annex");
    let out = dir.join("out");
    let a = format!("shallow={}", annex());
    let b = format!("deep={}", annex());
    let xot = xot();
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .flag("--engine-opt", "shallow:depth=1")
        .flag("--engine-opt", "deep:depth=3")
        .games(4)
        .openings(&xot)
        .flag("--concurrency", "2")
        .out(&out)
        .run();
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("(uci), id 'Annex"), "{stderr}");
    let (w, l, d, n) = score_line(&stdout, "shallow", "deep");
    assert_eq!((w + l + d, n), (4, 4));
    let games = check_games(&out, &RuleSet::default());
    assert_eq!(games.len(), 4);
    assert!(games.iter().all(|g| g.end == Termination::Normal));
    let shallow_wins = games
        .iter()
        .filter(|g| {
            (g.outcome == Outcome::BlackWins && g.black == "shallow")
                || (g.outcome == Outcome::WhiteWins && g.white == "shallow")
        })
        .count() as u32;
    assert_eq!(shallow_wins, w);
}

/// Annex over NBoard against Annex over GTP. NBoard engines solve the last
/// 20 empties exactly whatever the depth (as Edax does), so the openings
/// are long transcripts (50 plies, built here with our rules code) to keep
/// the test fast; they also exercise GTP `play` and NBoard GGF moves.
#[test]
fn annex_over_nboard_and_gtp() {
    let dir = scratch("annex-nb-gtp");
    let out = dir.join("out");
    let rules = RuleSet::default();
    let mut lines = String::new();
    for pick_last in [false, true] {
        let mut p = Position::start(&rules);
        let mut t = String::new();
        for _ in 0..50 {
            let l = p.legal_moves(&rules);
            let m = if l.is_empty() {
                annex::moves::Move::PASS
            } else if pick_last {
                l.as_slice()[l.len() - 1]
            } else {
                l.as_slice()[0]
            };
            t += &m.to_string();
            p = p.play_unchecked(&rules, m);
        }
        assert!(!p.is_game_over(&rules));
        lines += &t;
        lines.push('\n');
    }
    let openings = dir.join("long.txt");
    std::fs::write(&openings, lines).unwrap();
    let a = format!("nb=nboard:{}", annex());
    let b = format!("gtp=gtp:{}", annex());
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .flag("--engine-opt", "gtp:annex-setoption=Depth 2")
        .depth(2)
        .games(4)
        .openings(&openings)
        .out(&out)
        .run();
    assert!(o.status.success());
    let games = check_games(&out, &rules);
    assert_eq!(games.len(), 4);
    assert!(
        games.iter().all(|g| g.end == Termination::Normal),
        "{games:?}"
    );
    assert_eq!(games[2].opening, Some(1));
}

/// Rule options reach the engines (UCI `setoption`) and the referee: one-line
/// flips (moves such as `e2:sw`), the parallel start, tie second, count
/// scoring.
#[test]
fn annex_match_under_rule_options() {
    let dir = scratch("annex-rules");
    let out = dir.join("out");
    let a = format!("a={}", annex());
    let b = format!("b={}", annex());
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .depth(1)
        .games(2)
        .flag("--flips", "one-line")
        .flag("--start", "parallel")
        .flag("--tie", "second")
        .flag("--scoring", "count")
        .out(&out)
        .run();
    assert!(o.status.success());
    let mut rules = RuleSet::default();
    for (k, v) in [
        ("flips", "one-line"),
        ("start", "parallel"),
        ("tie", "second"),
        ("scoring", "count"),
    ] {
        rules.set(k, v).unwrap();
    }
    let games = check_games(&out, &rules);
    assert_eq!(games.len(), 2);
    assert!(
        games.iter().all(|g| g.end == Termination::Normal),
        "{games:?}"
    );
    assert!(games.iter().all(|g| g.outcome != Outcome::Draw));
}

/// Three engines: a round robin of three pairs, games numbered pair by pair.
#[test]
fn round_robin_of_three() {
    let dir = scratch("rr");
    let out = dir.join("out");
    let (a, b) = (
        format!("a={} --strategy greedy", fake()),
        format!("b={}", fake()),
    );
    let c = format!("c={} --mode illegal --at-ply 30", fake());
    let o = Match::new()
        .engine(&a)
        .engine(&b)
        .engine(&c)
        .games(2)
        .depth(1)
        .out(&out)
        .flag("--concurrency", "2")
        .run();
    assert!(o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    for (x, y) in [("a", "b"), ("a", "c"), ("b", "c")] {
        let (w, l, d, n) = score_line(&stdout, x, y);
        assert_eq!((w + l + d, n), (2, 2));
    }
    // c loses every game it plays, by forfeit.
    assert_eq!(score_line(&stdout, "a", "c"), (2, 0, 0, 2));
    assert_eq!(score_line(&stdout, "b", "c"), (2, 0, 0, 2));
    let rank3 = stdout.lines().find(|l| l.starts_with("   3 ")).unwrap();
    assert!(rank3.contains(" c "), "{stdout}");
    let games = check_games(&out, &RuleSet::default());
    let pairs: Vec<(&str, &str)> = games
        .iter()
        .map(|g| (g.black.as_str(), g.white.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("a", "b"),
            ("b", "a"),
            ("a", "c"),
            ("c", "a"),
            ("b", "c"),
            ("c", "b")
        ]
    );
}
