//! Notation: squares, moves (`f5`, `f5:ne`, every pass token), board
//! strings in both alphabets, transcripts with passes left out and written,
//! OBF lines and rule options. Round trips, malformed input whose errors
//! must name the offending token, and a fuzz loop in which nothing may
//! panic.

use crate::reference::Rng;
use crate::util::read_data;
use annex::board::Color;
use annex::moves::{Move, MoveError, PASS_TOKENS};
use annex::position::{ObfLine, ParsePositionError, Position};
use annex::rules::{Flips, RuleSet, Start};
use annex::square::{Direction, Square};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

#[test]
fn squares_round_trip_and_errors() {
    for s in Square::all() {
        let name = s.to_string();
        assert_eq!(name.len(), 2);
        assert_eq!(name, name.to_lowercase());
        assert_eq!(name.parse::<Square>().unwrap(), s);
        assert_eq!(name.to_uppercase().parse::<Square>().unwrap(), s);
        assert_eq!(s.index(), (s.row() * 8 + s.col()) as usize);
    }
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("h1").index(), 7);
    assert_eq!(sq("a8").index(), 56);
    assert_eq!(sq("F5").index(), 37);
    for bad in [
        "", "a", "a0", "a9", "i1", "11", "aa", "a10", " a1", "é1", "a1x",
    ] {
        let e = bad.parse::<Square>().unwrap_err();
        assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
    }
}

#[test]
fn moves_round_trip_and_errors() {
    for s in Square::all() {
        let m = Move::square(s);
        assert_eq!(m.to_string().parse::<Move>().unwrap(), m);
        assert_eq!(m.to_string().to_uppercase().parse::<Move>().unwrap(), m);
        for d in Direction::ALL {
            let m = Move::line(s, d);
            let text = m.to_string();
            assert_eq!(text, format!("{s}:{}", d.name()));
            assert_eq!(text.parse::<Move>().unwrap(), m);
            assert_eq!(text.to_uppercase().parse::<Move>().unwrap(), m);
            assert_eq!(m.to_square(), Some(s));
            assert_eq!(m.direction(), Some(d));
        }
    }
    assert_eq!(Move::PASS.to_string(), "pass");
    for t in PASS_TOKENS {
        for v in [t.to_string(), t.to_uppercase(), format!(" {t} ")] {
            assert_eq!(v.parse::<Move>().unwrap(), Move::PASS, "{v:?}");
        }
    }
    for t in ["Pass", "pS", "Pa", "--", "@@"] {
        assert_eq!(t.parse::<Move>().unwrap(), Move::PASS);
    }
    for bad in [
        "", "f", "f9", "z5", "f5:", "f5:up", "f5:nee", "f5ne", "f5:n:e", "pas", "passs", "-", "@",
        "---", ":ne",
    ] {
        match bad.parse::<Move>() {
            Err(MoveError::Syntax(t)) => assert_eq!(t, bad),
            other => panic!("{bad:?} gave {other:?}"),
        }
        let e = bad.parse::<Move>().unwrap_err().to_string();
        assert!(e.contains(&format!("'{bad}'")), "{e}");
    }
}

/// A random position: disjoint discs, random side.
fn random_position(rng: &mut Rng) -> Position {
    let a = rng.next_u64();
    let b = rng.next_u64();
    let side = if rng.index(2) == 0 {
        Color::Black
    } else {
        Color::White
    };
    Position::from_colors(a & b, !a & b & rng.next_u64(), side)
}

#[test]
fn board_strings_both_alphabets() {
    let mut rng = Rng::new(11);
    for _ in 0..2000 {
        let p = random_position(&mut rng);
        let s = p.to_string();
        assert_eq!(s.len(), 66);
        assert!(s[..64].chars().all(|c| matches!(c, 'X' | 'O' | '-')));
        assert_eq!(s.parse::<Position>().unwrap(), p, "{s}");
        // The other alphabet: `*` for X, `.` for empty; lower case too.
        let alt = s.replace('X', "*").replace('-', ".");
        assert_eq!(alt.parse::<Position>().unwrap(), p, "{alt}");
        assert_eq!(s.to_lowercase().parse::<Position>().unwrap(), p);
        // Glued side, rows on separate lines.
        let glued = s.replace(' ', "");
        assert_eq!(glued.parse::<Position>().unwrap(), p, "{glued}");
        let rows: Vec<&str> = (0..8).map(|r| &s[r * 8..r * 8 + 8]).collect();
        let multi = format!("{}\n{}", rows.join("\n"), &s[65..]);
        assert_eq!(multi.parse::<Position>().unwrap(), p, "{multi}");
        assert_eq!(p.board_string(), &s[..64]);
        for sq in Square::all() {
            let c = s.as_bytes()[sq.index()];
            let want = match c {
                b'X' => Some(Color::Black),
                b'O' => Some(Color::White),
                _ => None,
            };
            assert_eq!(p.at(sq), want);
        }
    }
    // No side: X to move.
    let start = Position::start(&RuleSet::default());
    assert_eq!(start.board_string().parse::<Position>().unwrap(), start);
}

#[test]
fn board_string_errors_name_the_token() {
    let start = Position::start(&RuleSet::default()).to_string();
    let cases: Vec<(String, ParsePositionError, &str)> = vec![
        (
            start.replacen('-', "?", 1),
            ParsePositionError::BadChar('?'),
            "'?'",
        ),
        (
            start.replace(" X", " Z"),
            ParsePositionError::BadSide("Z".into()),
            "'Z'",
        ),
        (
            format!("-{start}"),
            ParsePositionError::BoardLength(65),
            "65 squares",
        ),
        (String::new(), ParsePositionError::BoardLength(0), "0"),
        // Regression: 63 squares and a side were read as 64 squares, the
        // side taken for a disc on h8.
        (
            start.replacen('-', "", 1),
            ParsePositionError::BoardLength(63),
            "63 squares",
        ),
    ];
    for (text, want, shown) in cases {
        let e = text.parse::<Position>().unwrap_err();
        assert_eq!(e, want, "{text:?}");
        assert!(e.to_string().contains(shown), "{e}");
    }
}

/// Random games under `rules` with the library's own move generator:
/// (moves with passes, final position).
fn random_games(rules: &RuleSet, n: usize, rng: &mut Rng) -> Vec<(Vec<Move>, Position)> {
    (0..n)
        .map(|_| {
            let mut pos = Position::start(rules);
            let mut moves = Vec::new();
            while !pos.is_game_over(rules) {
                let list = pos.legal_moves(rules);
                let m = if list.is_empty() {
                    Move::PASS
                } else {
                    list.as_slice()[rng.index(list.len())]
                };
                pos = pos.play(rules, m).unwrap().1;
                moves.push(m);
            }
            (moves, pos)
        })
        .collect()
}

#[test]
fn transcripts_with_and_without_passes() {
    let mut rng = Rng::new(5);
    let mut with_pass = 0;
    for (start, flips) in [
        (Start::Diagonal, Flips::All),
        (Start::Parallel, Flips::OneLine),
        (Start::Free, Flips::OneLine),
    ] {
        let r = RuleSet {
            start,
            flips,
            ..RuleSet::default()
        };
        for (moves, end) in random_games(&r, 400, &mut rng) {
            with_pass += moves.contains(&Move::PASS) as usize;
            let names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            // Passes left out, concatenated: they are inserted again.
            let no_pass: String = names.iter().filter(|n| *n != "pass").cloned().collect();
            let (p, played) = Position::start(&r).play_transcript(&no_pass, &r).unwrap();
            assert_eq!((p, &played), (end, &moves), "{r}: {no_pass}");
            // Passes written with any token, upper case, mixed separators.
            let token = PASS_TOKENS[rng.index(PASS_TOKENS.len())];
            let written: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let n = if n == "pass" { token } else { n };
                    let n = if i % 3 == 0 {
                        n.to_uppercase()
                    } else {
                        n.to_string()
                    };
                    n + [" ", ",", "", "  "][i % 4]
                })
                .collect();
            let written = written.concat();
            let (p, played) = Position::start(&r).play_transcript(&written, &r).unwrap();
            assert_eq!((p, played), (end, moves.clone()), "{r}: {written}");
            // A pass written where none is forced is refused at its ply.
            if let Some(i) = moves.iter().position(|m| !m.is_pass()) {
                let mut bad: Vec<String> = names[..i].to_vec();
                bad.push("@@".into());
                let e = Position::from_transcript(&bad.join(" "), &r).unwrap_err();
                assert_eq!(
                    e,
                    ParsePositionError::Move {
                        ply: i + 1,
                        error: MoveError::Illegal("@@".into())
                    }
                );
            }
        }
    }
    assert!(with_pass >= 20, "only {with_pass} games with a pass");
}

#[test]
fn transcript_errors_name_the_token() {
    let r = RuleSet::default();
    let cases = [
        ("f5d6c3F5", 4, "F5", "illegal"),
        ("f5 d6 zz", 3, "zz", "invalid"),
        ("f5,d6,c3:", 3, "c3:", "invalid"),
        ("f5d6c3:ne", 3, "c3:ne", "illegal"),
        ("f5 pass", 2, "pass", "illegal"),
        ("f5 d6 é3", 3, "é3", "invalid"),
    ];
    for (text, ply, tok, kind) in cases {
        let e = Position::from_transcript(text, &r).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("ply {ply}")) && msg.contains(&format!("'{tok}'")),
            "{text}: {msg}"
        );
        assert!(msg.contains(kind), "{text}: {msg}");
    }
    // One-line flips: a square bracketing several lines needs a direction.
    let mut one = RuleSet::default();
    one.set("flips", "one-line").unwrap();
    let mut p = Position::start(&one);
    let multi = loop {
        let list = p.legal_moves(&one);
        if let Some(m) = list.iter().find(|m| m.direction().is_some()) {
            break m;
        }
        p = p.play(&one, list.as_slice()[0]).unwrap().1;
    };
    let plain = multi.to_square().unwrap().to_string();
    let e = p.play_transcript(&plain.to_uppercase(), &one).unwrap_err();
    assert!(matches!(
        e,
        ParsePositionError::Move { ply: 1, error: MoveError::Ambiguous(ref t) } if *t == plain.to_uppercase()
    ));
}

/// Regression: under flips all, `f5:ne` stood for an `f5` that turns
/// other lines too; it is refused. Naming the only bracketed line is fine
/// under either flips option.
#[test]
fn direction_suffix_only_for_the_single_line() {
    let all = RuleSet::default();
    let mut one = all;
    one.set("flips", "one-line").unwrap();
    // X: b1, d3; O: c1, d2. X on d1 brackets c1 (w) and d2 (s).
    let board = "-XO-----".to_string() + "---O----" + "---X----" + &"-".repeat(40) + " X";
    let p: Position = board.parse().unwrap();
    for d in ["d1:s", "d1:w"] {
        let m: Move = d.parse().unwrap();
        assert!(p.play(&all, m).is_err(), "{d} under flips all");
        let (played, _) = p.play(&one, m).unwrap();
        assert_eq!(played.to_string(), d);
    }
    assert!(p.play(&all, "d1".parse().unwrap()).is_ok());
    // From the start, f5 brackets only e5 (towards w).
    let s = Position::start(&all);
    for r in [all, one] {
        let (m, _) = s.play(&r, "f5:w".parse().unwrap()).unwrap();
        assert_eq!(m.to_string(), "f5");
        assert!(s.play(&r, "f5:n".parse().unwrap()).is_err());
    }
}

#[test]
fn obf_lines_from_the_data() {
    let r = RuleSet::default();
    let mut n = 0;
    for (file, text) in [
        "endgame/ffo/fforum-1-19.obf",
        "endgame/ffo/fforum-20-39.obf",
        "endgame/ffo/fforum-40-59.obf",
    ]
    .map(|f| (f, read_data(f)))
    .into_iter()
    .chain([(
        "endgame/edax_hard/hard-20.obf",
        read_data("endgame/edax_hard/hard-20.obf"),
    )]) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let obf: ObfLine = line
                .parse()
                .unwrap_or_else(|e| panic!("{file}: {e}: {line}"));
            n += 1;
            // The listed moves are the legal moves (SOURCES.md; hard-20's
            // trailing `--:-127` is a placeholder pass, not a move).
            let mut listed: Vec<Move> = obf
                .scores
                .iter()
                .map(|x| x.0)
                .filter(|m| !m.is_pass())
                .collect();
            listed.sort();
            let mut legal: Vec<Move> = obf.position.legal_moves(&r).iter().collect();
            legal.sort();
            assert_eq!(listed, legal, "{file}: {line}");
            assert_eq!(obf.best_moves()[0], obf.scores[0].0);
            // Round trip through our own writing of the line.
            let text = format!(
                "{}; {}",
                obf.position,
                obf.scores
                    .iter()
                    .map(|(m, s)| format!("{m}:{s:+};"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            assert_eq!(text.parse::<ObfLine>().unwrap(), obf, "{text}");
        }
    }
    assert_eq!(n, 59 + 276);
    let l: ObfLine = read_data("endgame/ffo/fforum-1-19.obf")
        .lines()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(l.best_score(), Some(18));
    assert_eq!(l.best_moves(), vec!["g8".parse::<Move>().unwrap()]);
}

#[test]
fn obf_one_line_moves_and_errors() {
    let start = Position::start(&RuleSet::default()).to_string();
    let l: ObfLine = format!("{start}; f5:w:+2; D3:-1;").parse().unwrap();
    assert_eq!(l.scores[0].0.to_string(), "f5:w");
    assert_eq!(l.best_score(), Some(2));
    for (field, text) in [
        ("G8", format!("{start}; G8;")),
        ("G8:x", format!("{start}; G8:x;")),
        ("Z9:+3", format!("{start}; Z9:+3;")),
        (":+3", format!("{start}; :+3;")),
    ] {
        let e = text.parse::<ObfLine>().unwrap_err();
        assert_eq!(e, ParsePositionError::Obf(field.into()), "{text}");
        assert!(e.to_string().contains(&format!("'{field}'")));
    }
    assert!(matches!(
        "X; G8:+1".parse::<ObfLine>(),
        Err(ParsePositionError::BoardLength(1))
    ));
}

#[test]
fn rule_options_round_trip_and_errors() {
    for s in Start::ALL {
        for f in Flips::ALL {
            let mut r = RuleSet::default();
            r.set("start", s.name()).unwrap();
            r.set("FLIPS", &f.name().to_uppercase()).unwrap();
            let text = r.to_string();
            let mut back = RuleSet::default();
            let words: Vec<&str> = text.split(' ').collect();
            for kv in words.chunks(2) {
                back.set(kv[0], kv[1]).unwrap();
            }
            assert_eq!(back, r, "{text}");
        }
    }
    let mut r = RuleSet::default();
    let e = r.set("flips", "two-lines").unwrap_err().to_string();
    assert!(e.contains("'two-lines'") && e.contains("one-line"), "{e}");
    let e = r.set("colour", "red").unwrap_err().to_string();
    assert!(e.contains("'colour'"), "{e}");
    assert!(r.is_default());
}

/// A random string: random bytes, or a valid text with a few mutations.
fn fuzz_text(rng: &mut Rng, seeds: &[String]) -> String {
    if rng.index(3) == 0 {
        let n = rng.index(80);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    let mut chars: Vec<char> = seeds[rng.index(seeds.len())].chars().collect();
    const ALPHABET: &[char] = &[
        'a', 'h', 'i', 'x', 'X', 'O', 'o', '*', '.', '-', '@', ':', ';', ',', ' ', '\n', '0', '1',
        '8', '9', 'n', 'e', 's', 'w', 'p', '+', 'é', '\u{0}', '\u{2003}',
    ];
    for _ in 0..1 + rng.index(4) {
        let at = rng.index(chars.len() + 1);
        match rng.index(3) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at < chars.len() => chars[at] = ALPHABET[rng.index(ALPHABET.len())],
            _ => chars.insert(at, ALPHABET[rng.index(ALPHABET.len())]),
        }
    }
    chars.into_iter().collect()
}

/// Whether an error message names something that is in the input (case
/// insensitive), as every parse error must.
fn names_token(e: &ParsePositionError, input: &str) -> bool {
    let lower = input.to_lowercase();
    let has = |t: &str| lower.contains(&t.to_lowercase());
    match e {
        ParsePositionError::BoardLength(n) => e.to_string().contains(&n.to_string()),
        ParsePositionError::BadChar(c) => input.contains(*c),
        ParsePositionError::BadSide(s) | ParsePositionError::Obf(s) => has(s),
        ParsePositionError::Move { error, .. } => match error {
            MoveError::Syntax(t) | MoveError::Illegal(t) | MoveError::Ambiguous(t) => has(t),
        },
    }
}

#[test]
fn fuzz_parsers_never_panic() {
    let start = Position::start(&RuleSet::default()).to_string();
    let seeds: Vec<String> = vec![
        start.clone(),
        start.replace('X', "*").replace('-', "."),
        format!("{start}; F5:+2; d3:-4;"),
        "f5d6c3d3c4f4f6f3e6e7".into(),
        "f5 pass d6 -- c3:ne @@ PS pa".into(),
        "f5:ne".into(),
        "pass".into(),
        "h8".into(),
    ];
    let mut one = RuleSet::default();
    one.set("flips", "one-line").unwrap();
    let mut free = one;
    free.set("start", "free").unwrap();
    let rule_sets = [RuleSet::default(), one, free];
    let mut rng = Rng::new(99);
    let mut errors = 0;
    for _ in 0..20_000 {
        let t = fuzz_text(&mut rng, &seeds);
        if let Err(e) = t.parse::<Square>() {
            assert!(e.to_string().contains(&t), "{e}");
        }
        if let Err(MoveError::Syntax(s)) = t.parse::<Move>() {
            assert_eq!(s, t);
        }
        for res in [t.parse::<Position>().err(), t.parse::<ObfLine>().err()]
            .into_iter()
            .chain(
                rule_sets
                    .iter()
                    .map(|r| Position::from_transcript(&t, r).err()),
            )
            .flatten()
        {
            errors += 1;
            assert!(!res.to_string().is_empty());
            assert!(names_token(&res, &t), "{t:?}: {res}");
        }
        let mut r = RuleSet::default();
        let _ = r.set(&t, "all");
        let _ = r.set("start", &t);
        let _ = t.parse::<annex::perft::Convention>();
    }
    assert!(errors > 20_000, "the fuzz loop hardly produced errors");
}
