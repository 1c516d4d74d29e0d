//! The UCI-style protocol meeting bad input.
//! Each test drives the real binary over real pipes (UCI-style protocol).

use crate::util::Annex;
use std::time::Duration;

fn uci(a: &mut Annex) {
    a.send("uci");
    a.until_prefix("uciok");
    a.send("isready");
    a.until_prefix("readyok");
}

/// "End of input": a search with no depth, node or time limit is stopped
/// at end of input and answered, as an infinite one is; before, it went
/// on to depth 33 and beyond and the process never exited.
#[test]
fn eof_stops_a_search_without_limits() {
    for go in ["go", "go multipv 2", "go searchmoves f4 f6", "go solve"] {
        let mut a = Annex::spawn(&[]);
        a.send("setoption name OwnBook value false");
        a.send("position startpos moves f5");
        a.send(go);
        // End of input arrives while the search runs.
        a.expect_prefix("info depth");
        let (rest, ok) = a.finish();
        assert!(ok, "{go}: exit status");
        let best: Vec<&String> = rest.iter().filter(|l| l.starts_with("bestmove ")).collect();
        assert_eq!(best.len(), 1, "{go}: {rest:?}");
        if go.contains("searchmoves") {
            assert!(best[0].starts_with("bestmove f4") || best[0].starts_with("bestmove f6"));
        }
    }
}

/// "go" and "setoption": every number has the range the protocol declares;
/// outside it, one error line naming the token and the range, and nothing
/// changes (no search starts, the options stay).
#[test]
fn numbers_out_of_range_one_error_line() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    a.send("position startpos moves f5 d6");
    for (bad, token) in [
        ("go multipv 100000", "'100000'"),
        ("go multipv 65", "'65'"),
        ("go depth 0", "'0'"),
        ("go depth 61", "'61'"),
        ("go depth 4294967296", "'4294967296'"),
        ("go nodes 0", "'0'"),
        ("go movetime -5", "'-5'"),
        ("go movetime 99999999999999999", "'99999999999999999'"),
        ("go btime 1000 wtime 1000 movestogo 0", "'0'"),
        (
            "go btime 99999999999999999 wtime 1000",
            "'99999999999999999'",
        ),
        (
            "go btime 1000 binc 99999999999999999",
            "'99999999999999999'",
        ),
        ("perft 17", "'17'"),
        ("setoption name MultiPV value 65", "'65'"),
        ("setoption name Threads value 0", "'0'"),
        ("setoption name Hash value 0", "'0'"),
        ("setoption name Move Overhead value 10001", "'10001'"),
    ] {
        let got = a.answer(bad);
        assert_eq!(got.len(), 1, "{bad}: {got:?}");
        assert!(
            got[0].starts_with("info string error: ")
                && got[0].contains(token)
                && got[0].contains("expected"),
            "{bad}: {got:?}"
        );
    }
    // Nothing searches, MultiPV is still 1 and the position is kept.
    a.expect_silence(Duration::from_millis(300));
    a.send("go depth 2");
    let lines = a.until_prefix("bestmove");
    assert!(
        lines.iter().all(|l| !l.contains(" multipv 2 ")),
        "{lines:?}"
    );
    let d = a.answer("d");
    assert!(d.iter().any(|l| l == "moves f5 d6"), "{d:?}");
    // The largest values still pass.
    a.send("go depth 1 multipv 64 movestogo 1000 btime 1000 wtime 1000");
    a.expect_prefix("bestmove");
}

/// "stop": the stopped search's `bestmove` comes before the answer to any
/// later command (`isready` answered `readyok` first before).
#[test]
fn stop_answers_bestmove_before_later_commands() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    a.send("position startpos moves f5");
    for i in 0..5 {
        a.send("go infinite");
        std::thread::sleep(Duration::from_millis(30 + 20 * i));
        a.send("stop\nisready");
        let got = a.until_prefix("readyok");
        let best = got.iter().position(|l| l.starts_with("bestmove "));
        assert!(
            best.is_some_and(|b| b + 1 == got.len() - 1),
            "run {i}: {got:?}"
        );
    }
    // Commands that need an idle engine are carried out after the answer.
    a.send("go infinite");
    a.expect_prefix("info depth");
    a.send("stop\nsetoption name MultiPV value 2\ngo depth 2\nisready");
    let got = a.until_prefix("readyok");
    assert!(!got.iter().any(|l| l.contains("error")), "{got:?}");
    let got = if got.iter().filter(|l| l.starts_with("bestmove")).count() < 2 {
        let mut g = got;
        g.extend(a.until_prefix("bestmove"));
        g
    } else {
        got
    };
    assert!(
        got.iter().any(|l| l.starts_with("info depth 2 multipv 2")),
        "{got:?}"
    );
}

/// "go", "setoption", "ucinewgame": while a search runs, `position` and
/// `setoption` are refused with one error line and change nothing;
/// `ucinewgame` stops the search and answers it first.
#[test]
fn state_does_not_change_under_a_search() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    a.send("position startpos moves f5");
    a.send("go infinite");
    for (cmd, want) in [
        ("position startpos moves f5 d6", "busy searching"),
        ("setoption name Move Overhead value 100", "while searching"),
        ("setoption name Tie value second", "while searching"),
    ] {
        let got = a.answer(cmd);
        let errs: Vec<&String> = got
            .iter()
            .filter(|l| !l.starts_with("info depth"))
            .collect();
        assert_eq!(errs.len(), 1, "{cmd}: {got:?}");
        assert!(errs[0].starts_with("info string error: ") && errs[0].contains(want));
    }
    a.send("ucinewgame\nisready");
    let got = a.until_prefix("readyok");
    assert!(got.iter().any(|l| l.starts_with("bestmove ")), "{got:?}");
    // The rejected commands changed nothing; ucinewgame reset the game.
    a.send("d");
    let d = a.until_prefix("rules");
    assert!(d.iter().any(|l| l == "moves "), "{d:?}");
    assert!(d.iter().any(|l| l.contains("tie draw")), "{d:?}");
}

/// "Opening book": a truncated `BookFile` is reported as
/// `cannot read book: <path>: …` and the previous book stays.
#[test]
fn truncated_book_file_names_the_path() {
    let dir = std::env::temp_dir().join(format!("annex-h2-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("truncated.book");
    let mut bytes = b"ANXBOOK\0".to_vec();
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&5u32.to_le_bytes());
    bytes.extend_from_slice(&[1, 2, 3]);
    std::fs::write(&path, &bytes).unwrap();
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    let p = path.display().to_string();
    let got = a.answer(&format!("setoption name BookFile value {p}"));
    let _ = std::fs::remove_dir_all(&dir);
    let want = format!("info string error: cannot read book: {p}: ");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with(&want) && got[0].contains("truncated"),
        "{got:?}"
    );
    a.send("position startpos");
    a.send("go movetime 100");
    let lines = a.until_prefix("bestmove");
    assert!(
        lines.iter().any(|l| l.starts_with("info string book move")),
        "{lines:?}"
    );
}

/// "Bad input": an error line quotes at most about 80 characters of a
/// token, however long the token.
#[test]
fn huge_token_error_line_is_short() {
    let mut a = Annex::spawn(&[]);
    uci(&mut a);
    let huge = "z".repeat(10 << 20);
    let digits = "9".repeat(10 << 20);
    for (line, quoted) in [
        (huge.clone(), true),
        (format!("go depth {digits}"), true),
        (format!("go {huge}"), true),
        (format!("setoption name Hash value {huge}"), true),
        (format!("setoption name {huge} value 1"), true),
        (format!("setoption name BookFile value /{huge}"), true),
        (format!("position fen {huge}/8 x"), true),
        // Read as moves two letters at a time: the first pair is wrong.
        (format!("position startpos moves f5 {huge}"), false),
    ] {
        let got = a.answer(&line);
        assert_eq!(got.len(), 1, "{:?}", &line[..40]);
        assert!(
            got[0].starts_with("info string error: ") && got[0].len() < 300,
            "{}: {}",
            &line[..40],
            &got[0][..got[0].len().min(300)]
        );
        assert!(!quoted || got[0].contains("bytes)"), "{}", &got[0]);
    }
}

/// "Common rules": command words, keywords and option names are
/// case-insensitive, and so are moves.
#[test]
fn uppercase_command_words() {
    let mut a = Annex::spawn(&[]);
    a.send("UCI");
    a.until_prefix("uciok");
    assert!(a.answer("SetOption Name MULTIPV Value 2").is_empty());
    assert!(a.answer("POSITION STARTPOS MOVES F5 D6").is_empty());
    let d = a.answer("D");
    assert!(d.iter().any(|l| l == "moves f5 d6"), "{d:?}");
    a.send("GO DEPTH 2 SEARCHMOVES C3 C5");
    let lines = a.until_prefix("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 2 multipv 2")),
        "{lines:?}"
    );
    let best = lines.last().unwrap();
    assert!(best.starts_with("bestmove c3") || best.starts_with("bestmove c5"));
    a.send("Go Infinite");
    a.expect_prefix("info depth");
    a.send("STOP");
    a.expect_prefix("bestmove");
    assert_eq!(
        a.answer("PERFT 2 DIVIDE")
            .last()
            .map(|l| l.starts_with("perft depth 2")),
        Some(true)
    );
    a.send("QUIT");
    let (rest, ok) = a.finish();
    assert!(ok && rest.is_empty(), "{rest:?}");
}
