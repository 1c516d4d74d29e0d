//! The opening book: its statistics against a direct count over the WTHOR
//! games, and its use by the engine (`OwnBook`, `BookFile`, protocol.md
//! "Options").

use crate::util::{Annex, full_data};
use annex::bitboard::symmetry_square;
use annex::book::Book;
use annex::position::Position;
use annex::record::gamedb::parse_wthor;
use annex::rules::RuleSet;
use std::collections::HashMap;

/// Counts, over the WTHOR games of `wthor`, how often each move was played in the
/// positions reached by `transcript` or any symmetric image of it (any
/// move order), keyed by the move mapped back onto that position.
fn direct_counts(wthor: &std::path::Path, transcript: &str, plies: usize) -> HashMap<String, u32> {
    let r = RuleSet::default();
    let target = Position::from_transcript(transcript, &r).unwrap().board;
    let (key, ts) = target.unique();
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut files: Vec<_> = std::fs::read_dir(wthor)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wtb"))
        .collect();
    files.sort();
    for f in files {
        let w = parse_wthor(&std::fs::read(&f).unwrap()).unwrap();
        for g in &w.games {
            let mut pos = Position::start(&r);
            for &m in g.moves.iter().take(plies) {
                if pos.must_pass(&r) {
                    break;
                }
                let Ok((m, next)) = pos.play(&r, m) else {
                    break;
                };
                if pos.board.empties() == target.empties() {
                    let (k, s) = pos.board.unique();
                    if k == key {
                        // Map the move into the canonical orientation, then
                        // back onto `target`.
                        let csq = symmetry_square(m.to_square().unwrap(), s);
                        let back = annex::square::Square::all()
                            .find(|&t| symmetry_square(t, ts) == csq)
                            .unwrap();
                        *counts.entry(back.to_string()).or_default() += 1;
                    }
                    break;
                }
                pos = next;
            }
        }
    }
    counts
}

#[test]
fn book_counts_match_a_direct_count_over_wthor() {
    // The book is built from every WTHOR year: the full data sets.
    let test = "book::book_counts_match_a_direct_count_over_wthor";
    let Some(wthor) = full_data(test, "wthor") else {
        return;
    };
    let book = Book::default_book();
    let r = RuleSet::default();
    for t in ["f5d6", "f5d6c3d3c4", "f5f6e6f4"] {
        let pos = Position::from_transcript(t, &r).unwrap();
        let listed = book.lookup(&pos.board);
        assert!(!listed.is_empty(), "{t} is not in the book");
        let direct = direct_counts(&wthor, t, 24);
        for c in &listed {
            let sq = c.mv.to_square().unwrap();
            // The same move or a symmetric equivalent on a symmetric board.
            let n = direct.get(&sq.to_string()).copied().unwrap_or(0);
            assert_eq!(
                n, c.games,
                "{t}: book says {} played {} times",
                c.mv, c.games
            );
            assert!(c.games >= 3, "{t}: {} below the build threshold", c.mv);
        }
        // The book keeps every move played at least 3 times.
        let kept = direct.values().filter(|&&n| n >= 3).count();
        assert_eq!(kept, listed.len(), "{t}: {direct:?}");
    }
}

fn go_and_collect(a: &mut Annex, go: &str) -> Vec<String> {
    a.send(go);
    a.until_prefix("bestmove")
}

#[test]
fn protocol_options_own_book_and_book_file() {
    let mut a = Annex::spawn(&[]);
    a.send("uci");
    let opts = a.until_prefix("uciok");
    assert!(
        opts.iter()
            .any(|l| l.starts_with("option name OwnBook type check"))
    );
    assert!(
        opts.iter()
            .any(|l| l.starts_with("option name BookFile type string"))
    );
    // A game move from a book position comes from the book.
    a.send("position startpos moves f5 d6");
    let lines = go_and_collect(&mut a, "go movetime 2000");
    assert!(
        lines.iter().any(|l| l.starts_with("info string book move")),
        "{lines:?}"
    );
    let best = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    let book = Book::default_book();
    let pos = Position::from_transcript("f5d6", &RuleSet::default()).unwrap();
    assert_eq!(best, book.best_move(&pos.board).unwrap().mv.to_string());
    // A fixed-depth search is a search, not a book lookup.
    let lines = go_and_collect(&mut a, "go depth 3");
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 3")),
        "{lines:?}"
    );
    // A bad book file is one error line; the book stays.
    a.send("setoption name BookFile value /nonexistent/annex.book");
    let err = a.expect_prefix("info string error");
    assert!(err.contains("/nonexistent/annex.book"), "{err}");
    let lines = go_and_collect(&mut a, "go movetime 2000");
    assert!(lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    // OwnBook off: a search.
    a.send("setoption name OwnBook value false");
    let lines = go_and_collect(&mut a, "go movetime 200");
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    a.send("setoption name OwnBook value true");
    a.send("setoption name BookFile value none");
    let lines = go_and_collect(&mut a, "go movetime 200");
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    a.send("quit");
    let (_, ok) = a.finish();
    assert!(ok);
}
