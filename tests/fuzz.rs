//! Fuzzing the protocols with random and mutated lines (`protocol.md`,
//! "Bad input"): afterwards the engine must still answer correctly.
//!
//! Lines that would legitimately take long or need much memory are kept
//! out of the stream: `Hash`/`Threads` values (a valid `Hash 65536` asks
//! for 64 GB), `perft` deeper than 5, GTP clocks. Searches are kept tiny
//! with `go depth 1` and NBoard `set depth 1`.

use crate::protocol::{Rng, assert_legal_answer};
use crate::util::Annex;
use annex::position::Position;
use annex::rules::RuleSet;

const UCI_SEEDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position startpos",
    "position startpos moves f5 d6 c3",
    "position startpos moves f5d6c3d3c4",
    "position board ---------------------------OX------XO--------------------------- X moves f5",
    "position fen 8/8/8/3ox3/3xo3/8/8/8 x moves f5 pass",
    "go depth 1",
    "go depth 1 multipv 2",
    "go movetime 5",
    "go nodes 100",
    "go btime 100 wtime 100 binc 5 winc 5 movestogo 3",
    "go depth 1 searchmoves f5 d3",
    "stop",
    "ponderhit",
    "setoption name MultiPV value 2",
    "setoption name Tie value second",
    "setoption name Flips value one-line",
    "setoption name Start value parallel",
    "setoption name Scoring value count",
    "setoption name Move Overhead value 10",
    "query gameover",
    "query p1turn",
    "query result",
    "perft 3",
    "perft 2 divide",
    "d",
    "eval",
    "debug on",
];

const NBOARD_SEEDS: &[&str] = &[
    "set depth 1",
    "set game (;GM[Othello]PC[x]TI[1:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6/1.0/0.5];)",
    "set contempt 10",
    "move D3",
    "move PA",
    "hint 2",
    "go",
    "ping 3",
    "learn",
    "analyze",
];

const GTP_SEEDS: &[&str] = &[
    "protocol_version",
    "1 name",
    "boardsize 8",
    "clear_board",
    "komi 6.5",
    "play b f5",
    "play w d6",
    "genmove b",
    "genmove w",
    "undo",
    "showboard",
    "known_command genmove",
    "final_score",
    "gogui-rules_legal_moves",
    "gogui-rules_board",
    "gogui-rules_side_to_move",
];

const ALPHABET: &[u8] = b"abcdefghoxXO-*./0123456789 :;[]()#=?!\t\xc3\xa9\xff";

/// One line: a seed, a mutation of one, or noise.
fn line(rng: &mut Rng, seeds: &[&str]) -> Vec<u8> {
    let seed = seeds[rng.index(seeds.len())].as_bytes().to_vec();
    match rng.index(6) {
        0 => seed,
        1 => {
            // Noise.
            let n = rng.index(40);
            (0..n)
                .map(|_| ALPHABET[rng.index(ALPHABET.len())])
                .collect()
        }
        2 => {
            // Truncate.
            let n = rng.index(seed.len() + 1);
            seed[..n].to_vec()
        }
        3 => {
            // Replace some bytes.
            let mut s = seed;
            for _ in 0..1 + rng.index(3) {
                if !s.is_empty() {
                    let i = rng.index(s.len());
                    s[i] = ALPHABET[rng.index(ALPHABET.len())];
                }
            }
            s
        }
        4 => {
            // Splice two seeds' words.
            let other = seeds[rng.index(seeds.len())];
            let mut w: Vec<&str> = std::str::from_utf8(&seed).unwrap().split(' ').collect();
            let o: Vec<&str> = other.split(' ').collect();
            let i = rng.index(w.len());
            w.insert(i, o[rng.index(o.len())]);
            w.join(" ").into_bytes()
        }
        _ => {
            // Drop or duplicate a word.
            let mut w: Vec<&str> = std::str::from_utf8(&seed).unwrap().split(' ').collect();
            let i = rng.index(w.len());
            if rng.index(2) == 0 {
                w.remove(i);
            } else {
                w.insert(i, w[i]);
            }
            w.join(" ").into_bytes()
        }
    }
}

/// Keeps out lines that may take long or much memory by design.
fn safe(l: &[u8], gtp: bool) -> bool {
    let s = String::from_utf8_lossy(l).to_ascii_lowercase();
    if s.contains("hash") || s.contains("threads") || s.contains("quit") {
        return false;
    }
    if s.contains("go") && !s.contains("depth") && !gtp && !s.starts_with("set") {
        // Unlimited or clock searches: only the seeds' small ones.
        return UCI_SEEDS.contains(&s.as_str()) || NBOARD_SEEDS.contains(&s.as_str());
    }
    if s.contains("depth") {
        // Any depth number must be tiny.
        let ok = s
            .split(|c: char| !c.is_ascii_digit())
            .filter(|t| !t.is_empty())
            .all(|t| t.len() == 1 && t <= "2");
        if !ok {
            return false;
        }
    }
    if s.contains("perft") || s.contains("infinite") || s.contains("ponder") {
        return s
            .split_whitespace()
            .nth(1)
            .is_some_and(|d| d.len() == 1 && d <= "5")
            && !s.contains("infinite")
            && !s.contains("ponder");
    }
    if s.contains("time") || s.contains("movetime") || s.contains("nodes") {
        return UCI_SEEDS.contains(&s.as_str());
    }
    if gtp && s.contains("setoption") {
        return false;
    }
    true
}

/// Waits until every line sent so far has been handled: a command no seed
/// can produce, answered by its own error line.
fn sync(a: &mut Annex, n: usize) {
    a.send(&format!("sync-{n}"));
    let want = format!("info string error: unknown command 'sync-{n}'");
    a.until(|l| l == want);
}

#[test]
fn fuzz_uci_10000_lines_then_still_correct() {
    let r = RuleSet::default();
    let mut rng = Rng::new(0x5eed_1234);
    let mut a = Annex::spawn(&["--protocol", "uci"]);
    let mut sent = 0;
    while sent < 10_000 {
        let l = line(&mut rng, UCI_SEEDS);
        if !safe(&l, false) {
            continue;
        }
        let mut bytes = l;
        bytes.push(b'\n');
        a.send_bytes(&bytes);
        sent += 1;
        // Drain now and then so the pipe never fills.
        if sent % 200 == 0 {
            sync(&mut a, sent);
        }
    }
    a.send("stop");
    sync(&mut a, 1);
    // Back to known options and a known position: correct answers.
    for (n, v) in [
        ("Tie", "draw"),
        ("Flips", "all"),
        ("Start", "diagonal"),
        ("Scoring", "wof"),
        ("MultiPV", "1"),
    ] {
        a.send(&format!("setoption name {n} value {v}"));
    }
    a.send("stop");
    sync(&mut a, 2);
    a.send("position startpos moves f5 d6");
    a.send("go depth 2");
    let l = a.expect_prefix("bestmove");
    let pos = Position::from_transcript("f5d6", &r).unwrap();
    let m = l.split_whitespace().nth(1).unwrap_or("");
    if !pos.legal_moves(&r).iter().any(|x| x.to_string() == m) {
        a.fail(&format!("illegal {m}"));
    }
    a.send("position startpos");
    a.send("perft 5");
    let p = a.expect_prefix("perft depth");
    assert!(p.starts_with("perft depth 5 leaves 1396 "), "{p}");
    let (_, ok) = a.finish();
    assert!(ok);
}

#[test]
fn fuzz_nboard_and_gtp_then_still_correct() {
    let r = RuleSet::default();
    let mut rng = Rng::new(77);
    // NBoard.
    let mut a = Annex::spawn(&["--protocol", "nboard"]);
    a.send("nboard 2");
    a.send("set depth 1");
    let mut sent = 0;
    while sent < 2_000 {
        let l = line(&mut rng, NBOARD_SEEDS);
        if !safe(&l, false) {
            continue;
        }
        let mut bytes = l;
        bytes.push(b'\n');
        a.send_bytes(&bytes);
        sent += 1;
        if sent % 100 == 0 {
            let id = 1_000_000 + sent;
            a.send(&format!("ping {id}"));
            a.until(|l| l == format!("pong {id}"));
        }
    }
    a.send("set depth 2");
    a.send("set game (;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5];)");
    a.send("go");
    let m = a.expect_prefix("===");
    let mv = m[4..6].to_ascii_lowercase();
    assert_legal_answer(&Position::from_transcript("f5", &r).unwrap(), &r, &mv);
    // GTP.
    let mut g = Annex::spawn(&["--protocol", "gtp"]);
    g.send("annex-setoption MoveTime 5");
    g.send("annex-setoption Depth 1");
    let mut sent = 0;
    while sent < 2_000 {
        let l = line(&mut rng, GTP_SEEDS);
        if !safe(&l, true) {
            continue;
        }
        let mut bytes = l;
        bytes.push(b'\n');
        g.send_bytes(&bytes);
        sent += 1;
        if sent % 100 == 0 {
            g.send("98765 name");
            g.until(|l| l == "=98765 Annex");
        }
    }
    g.send("clear_board");
    g.send("play b f5");
    g.send("555 genmove w");
    let m = g.expect_prefix("=555");
    let mv = m.trim_start_matches("=555 ").to_ascii_lowercase();
    assert_legal_answer(&Position::from_transcript("f5", &r).unwrap(), &r, &mv);
}
