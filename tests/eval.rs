//! Pattern evaluation: symmetry, feature extraction against a slow
//! reference, the weights file format, the data readers and training.

use crate::util::{data_file, read_data};
use annex::bitboard::symmetry;
use annex::board::{Board, flips, legal_moves};
use annex::eval::pattern::{
    EMPTIES_OFFSET, FeatureSet, MAX_FEATURES, MOBILITY_OFFSET, N_BASE_PATTERNS, N_PATTERN_FEATURES,
    OFFSETS, PATTERNS, canon, raw_features, slow_index,
};
use annex::eval::weights::VERSION;
use annex::eval::{Evaluator, PatternEval, SCALE, Weights};
use annex::position::Position;
use annex::rng::Rng;
use annex::train::data::{read_logbook, read_wthor, replay};
use annex::train::fit::{FitConfig, fit};
use annex::train::{bucket, game_samples};

/// Positions from random games, all stages.
fn random_positions(n: usize, seed: u64) -> Vec<Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut b = Board::start();
        loop {
            let mut m = legal_moves(b.player, b.opponent);
            if m == 0 {
                b = b.pass();
                m = legal_moves(b.player, b.opponent);
                if m == 0 {
                    break;
                }
            }
            out.push(b);
            let k = (rng.next_u64() % m.count_ones() as u64) as u32;
            for _ in 0..k {
                m &= m - 1;
            }
            let sq = m.trailing_zeros() as usize;
            b = b.play_flips(sq, flips(b.player, b.opponent, sq));
        }
    }
    out.truncate(n);
    out
}

fn random_weights(set: FeatureSet, seed: u64) -> Weights {
    let mut w = Weights::zeros(set);
    let mut rng = Rng::new(seed);
    for x in &mut w.data {
        *x = (rng.next_u64() % 201) as i16 - 100;
    }
    w
}

/// Every instance index of patterns `range`, the slow way, in feature order.
fn slow_instances(b: &Board, range: std::ops::Range<usize>) -> Vec<(u32, String)> {
    let mut v = Vec::new();
    for g in range {
        let p = PATTERNS[g];
        for &s in p.instances {
            let idx = slow_index(p.squares, symmetry(b.player, s), symmetry(b.opponent, s));
            v.push((OFFSETS[g] + idx, format!("pattern {} instance {s}", p.name)));
        }
    }
    v
}

#[test]
fn fast_features_match_slow_reference() {
    let mut out = [0u32; MAX_FEATURES];
    for b in random_positions(3000, 7) {
        raw_features(b.player, b.opponent, FeatureSet::Extended, &mut out);
        let base = slow_instances(&b, 0..N_BASE_PATTERNS);
        assert_eq!(base.len(), N_PATTERN_FEATURES);
        for (k, (want, what)) in base.iter().enumerate() {
            assert_eq!(out[k], *want, "{what}");
        }
        assert_eq!(out[46], EMPTIES_OFFSET + b.empties().min(60));
        let mob = |p, o| (legal_moves(p, o).count_ones()).min(35);
        assert_eq!(out[47], MOBILITY_OFFSET + mob(b.player, b.opponent));
        assert_eq!(out[48], MOBILITY_OFFSET + 36 + mob(b.opponent, b.player));
        let extra = slow_instances(&b, N_BASE_PATTERNS..PATTERNS.len());
        assert_eq!(49 + extra.len(), FeatureSet::Extended.n_features());
        for (k, (want, what)) in extra.iter().enumerate() {
            assert_eq!(out[49 + k], *want, "{what}");
        }
    }
}

#[test]
fn evaluation_is_symmetric() {
    let mut evals: Vec<PatternEval> = [
        FeatureSet::Patterns,
        FeatureSet::PatternsMobility,
        FeatureSet::Extended,
        FeatureSet::PatternsPotential,
    ]
    .iter()
    .map(|&s| PatternEval::new(&random_weights(s, 99)))
    .collect();
    evals.push((*PatternEval::embedded().expect("embedded weights")).clone());
    for b in random_positions(2000, 3) {
        for e in &evals {
            let v = e.evaluate(&b);
            for s in 1..8 {
                assert_eq!(e.evaluate(&b.symmetry(s)), v, "symmetry {s} of {b:?}");
            }
        }
    }
}

#[test]
fn weights_round_trip_and_reject_bad_files() {
    let w = random_weights(FeatureSet::PatternsMobility, 5);
    let bytes = w.to_bytes();
    assert_eq!(Weights::from_bytes(&bytes).unwrap(), w);

    let e = Weights::from_bytes(&bytes[..bytes.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    let e = Weights::from_bytes(&bytes[..5]).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");

    let mut v = bytes.clone();
    v[8..10].copy_from_slice(&(VERSION + 1).to_le_bytes());
    let e = Weights::from_bytes(&v).unwrap_err().to_string();
    assert!(e.contains("version"), "{e}");

    let mut v = bytes.clone();
    v[0] = b'X';
    assert!(
        Weights::from_bytes(&v)
            .unwrap_err()
            .to_string()
            .contains("magic")
    );

    let mut v = bytes.clone();
    let mid = v.len() / 2;
    v[mid] ^= 1;
    assert!(
        Weights::from_bytes(&v)
            .unwrap_err()
            .to_string()
            .contains("checksum")
    );

    let mut v = bytes.clone();
    v.push(0);
    assert!(Weights::from_bytes(&v).is_err());

    // A file of another feature set has other group sizes: still loads as that set.
    let p = random_weights(FeatureSet::Patterns, 6);
    assert_eq!(
        Weights::from_bytes(&p.to_bytes()).unwrap().set,
        FeatureSet::Patterns
    );

    let dir = std::env::temp_dir().join(format!("annex-eval-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.eval");
    w.save(&path).unwrap();
    let ev = Evaluator::from_file(path.to_str().unwrap()).unwrap();
    let direct = PatternEval::new(&w);
    for b in random_positions(200, 11) {
        assert_eq!(ev.evaluate(&b), direct.evaluate(&b));
    }
    std::fs::write(&path, &bytes[..100]).unwrap();
    let e = Evaluator::from_file(path.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    assert!(Evaluator::from_file(dir.join("missing").to_str().unwrap()).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn canonical_map_merges_only_symmetric_configurations() {
    let c = canon(FeatureSet::Patterns);
    // Edge: a1 (digit 0) player vs h1 (digit 7) player are mirror images.
    let off = OFFSETS[2] as usize;
    assert_eq!(c.map[off + 1], c.map[off + 3usize.pow(7)]);
    assert_ne!(c.map[off + 1], c.map[off + 3]);
    // The 2x5 corner has no self-symmetry: all distinct.
    let off = OFFSETS[1] as usize;
    let mut v: Vec<u32> = c.map[off..off + 59049].to_vec();
    v.sort_unstable();
    v.dedup();
    assert_eq!(v.len(), 59049);
}

#[test]
fn embedded_evaluation_predicts_ffo_scores() {
    let e = Evaluator::default();
    assert_eq!(e.name(), "pattern");
    let start = e.evaluate(&Board::start());
    assert!(start.abs() <= 2 * SCALE, "start position {start}");
    // Static evaluation against the exact scores of FFO #1-#59 (14-34 empties).
    let text = read_data("endgame/ffo/ffo_1_59.tsv");
    let (mut n, mut err, mut sign) = (0, 0.0, 0);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        if f[0] == "id" {
            continue;
        }
        let pos: Position = format!("{} {}", f[5], f[2]).parse().unwrap();
        let exact: i32 = f[3].parse().unwrap();
        let v = e.evaluate(&pos.board) as f64 / SCALE as f64;
        err += (v - exact as f64).abs();
        if (v > 0.0) == (exact > 0) || exact == 0 {
            sign += 1;
        }
        n += 1;
    }
    assert_eq!(n, 59);
    let mae = err / n as f64;
    // The simple evaluation is far off on these; trained patterns are
    // expected within ~10 discs on average.
    assert!(mae < 12.0, "MAE {mae:.2}");
    assert!(sign >= 40, "sign agreement {sign}/59");
}

#[test]
fn wthor_and_logbook_games_replay() {
    let b = std::fs::read(data_file("wthor/WTH_2024.wtb")).unwrap();
    let n = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize;
    let games = read_wthor(&b).unwrap();
    assert_eq!(games.len(), n);
    for g in &games {
        let pos = replay(g).expect("WTHOR games replay legally");
        assert_eq!(pos.len(), g.moves.len());
    }
    assert!(read_wthor(&b[..b.len() - 1]).is_err());
    assert!(read_wthor(&b[..10]).is_err());

    // First game of Logistello's book (its last moves include a white
    // move after a black pass): -4 for Black, game over.
    let line = "+d3-c3+c4-e3+c2-b3+d2-e1+d1-c1+f4-d6+e6-g4+b2-f6+d7-c8+e7-d8+f3-f5+g5-h4+h6-f2+f7-h5+g6-c6+c5-c7+b6-b5+b4-e8+h3-g3+h2-e2+h7-g2+b1-a1+h1-a2+a3-g7+f8-h8+g8-a4+g1-f1+a6-a5+a7-a8+b8-b7: -04 10";
    let (lg, bad) = read_logbook(&format!("{line}\nnot a game\n"));
    assert_eq!((lg.len(), bad), (1, 1));
    assert_eq!(lg[0].result, -4);
    let pos = replay(&lg[0]).unwrap();
    assert_eq!(pos.len(), 60);
    let samples = game_samples(&lg[0]);
    // Black moves first: label -4 for Black, +4 for White.
    assert_eq!(samples[0].label, -4);
    assert_eq!(samples[1].label, 4);
}

#[test]
fn training_decreases_the_loss() {
    let b = std::fs::read(data_file("wthor/WTH_1995.wtb")).unwrap();
    let games = read_wthor(&b).unwrap();
    let refs: Vec<_> = games.iter().take(300).collect();
    let data = bucket(&refs);
    let cfg = FitConfig {
        epochs: 15,
        progress: false,
        ..FitConfig::default()
    };
    let (w, reports) = fit(&data, &cfg);
    assert_eq!(reports.len(), 16);
    let (mut before, mut after) = (0.0, 0.0);
    for r in &reports {
        let (first, last) = (r.mse[0], *r.mse.last().unwrap());
        assert!(r.samples > 0);
        // The loss ends lower in every stage (with momentum it need not
        // fall at every single epoch).
        assert!(last < first, "stage {}: {first} -> {last}", r.stage);
        before += first * r.samples as f64;
        after += last * r.samples as f64;
    }
    assert!(after < 0.6 * before, "total {before} -> {after}");
    // Deterministic: the same data gives the same weights.
    let (w2, _) = fit(&data, &cfg);
    assert_eq!(w, w2);
}

#[test]
fn same_parity_stages_train_on_their_own_parity_only() {
    let b = std::fs::read(data_file("wthor/WTH_1995.wtb")).unwrap();
    let games = read_wthor(&b).unwrap();
    let refs: Vec<_> = games.iter().take(60).collect();
    let data = bucket(&refs);
    let n = |e: usize| data.get(e).map_or(0, Vec::len);
    for same_parity in [false, true] {
        let cfg = FitConfig {
            epochs: 1,
            stages: 64,
            margin: 2,
            same_parity,
            progress: false,
            ..FitConfig::default()
        };
        let (w, reports) = fit(&data, &cfg);
        assert_eq!((w.stages, reports.len()), (64, 64));
        for s in [20usize, 31, 44] {
            // Stage s is the positions with s empties, plus 2 on each side:
            // all of them, or only those of the parity of s.
            let want = if same_parity {
                n(s - 2) + n(s) + n(s + 2)
            } else {
                (s - 2..=s + 2).map(n).sum()
            };
            assert!(n(s) > 0 && n(s + 1) > 0);
            assert_eq!(
                reports[s].samples, want,
                "stage {s}, same parity {same_parity}"
            );
        }
    }
}

#[test]
fn engine_eval_file_option() {
    use annex::engine::Engine;
    let (tx, _rx) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    assert!(Engine::option_specs().iter().any(|o| o.name == "EvalFile"));
    let pos = Position::start(&annex::rules::RuleSet::default())
        .play_transcript("f5d6c3d3c4", &annex::rules::RuleSet::default())
        .unwrap()
        .0;
    let embedded = engine.evaluate(&pos);

    let w = random_weights(FeatureSet::Patterns, 21);
    let dir = std::env::temp_dir().join(format!("annex-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.eval");
    w.save(&path).unwrap();
    engine
        .set_option("evalfile", path.to_str().unwrap())
        .unwrap();
    assert_eq!(
        engine.evaluate(&pos),
        PatternEval::new(&w).evaluate(&pos.board)
    );
    // A bad file is refused and the evaluation stays as it was.
    std::fs::write(dir.join("bad.eval"), b"ANNEXEVW\x07\x00").unwrap();
    let e = engine
        .set_option("EvalFile", dir.join("bad.eval").to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("version"), "{e}");
    assert_eq!(
        engine.evaluate(&pos),
        PatternEval::new(&w).evaluate(&pos.board)
    );
    engine.set_option("EvalFile", "simple").unwrap();
    assert_eq!(
        engine.evaluate(&pos),
        annex::eval::SimpleEval::evaluate(&pos.board)
    );
    engine.set_option("EvalFile", "embedded").unwrap();
    assert_eq!(engine.evaluate(&pos), embedded);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn solver_labels_are_exact_late_and_propagated_early() {
    use crate::util::plain_solve as solve;
    use annex::train::{Solver, game_samples_solved};
    let b = std::fs::read(data_file("wthor/WTH_2025.wtb")).unwrap();
    let games = read_wthor(&b).unwrap();
    let mut solver = Solver::new();
    for g in games.iter().take(3) {
        let s = game_samples_solved(g, 8, Some(&mut solver));
        let first_solved = s.iter().position(|x| x.empties() <= 8).unwrap();
        for x in &s[first_solved..] {
            // Independent check: a plain alpha-beta solver.
            let b = Board::new(x.player, x.opponent);
            assert_eq!(x.label as i32, solve(&b, -64, 64));
        }
        // Earlier positions below the theoretical depth carry the first
        // solved value, signed for their side to move.
        let pos = replay(g).unwrap();
        let v = s[first_solved].label as i32 * if pos[first_solved].black { 1 } else { -1 };
        for (x, p) in s.iter().zip(&pos).take(first_solved) {
            if x.empties() < g.theoretical_empties {
                assert_eq!(x.label as i32, if p.black { v } else { -v });
            }
        }
    }
}

#[test]
fn evaluation_sums_the_weights_of_its_features() {
    use annex::eval::MAX_EVAL;
    use annex::eval::pattern::stage_of;
    for set in [
        FeatureSet::Patterns,
        FeatureSet::PatternsMobility,
        FeatureSet::Extended,
        FeatureSet::PatternsPotential,
    ] {
        let w = random_weights(set, 8);
        let e = PatternEval::new(&w);
        let c = canon(set);
        let mut out = [0u32; MAX_FEATURES];
        for b in random_positions(500, 5) {
            raw_features(b.player, b.opponent, set, &mut out);
            let base = stage_of(b.empties()) * c.size;
            let want: i32 = out[..set.n_features()]
                .iter()
                .map(|&r| w.data[base + c.map[r as usize] as usize] as i32)
                .sum();
            assert_eq!(e.evaluate(&b), want.clamp(-MAX_EVAL + 1, MAX_EVAL - 1));
        }
    }
}

#[test]
fn coefficient_path_matches_the_scalar_path() {
    let pos = random_positions(20_000, 11);
    let mut x32 = random_weights(FeatureSet::Extended, 9);
    x32.stages = 32;
    x32.data = x32.data.iter().chain(&x32.data).map(|&w| -w).collect();
    for w in [
        random_weights(FeatureSet::Patterns, 7),
        random_weights(FeatureSet::PatternsMobility, 8),
        random_weights(FeatureSet::PatternsPotential, 10),
        x32,
    ] {
        let (e, set) = (PatternEval::new(&w), w.set);
        for b in &pos {
            assert_eq!(e.evaluate(b), e.evaluate_scalar(b), "{set:?} {b:?}");
        }
    }
    let embedded = PatternEval::embedded().unwrap();
    for b in &pos {
        assert_eq!(embedded.evaluate(b), embedded.evaluate_scalar(b));
    }
}

/// The potential-mobility features count, square by square, the empty
/// squares with an opponent's disc among their 8 neighbours.
#[test]
fn potential_mobility_counts_empty_squares_next_to_the_opponent() {
    use annex::eval::pattern::{POTENTIAL_OFFSET, POTENTIAL_SIZE, potential_mobility};
    let slow = |p: u64, o: u64| -> u32 {
        let mut n = 0;
        for sq in 0..64i32 {
            if (p | o) >> sq & 1 != 0 {
                continue;
            }
            let (r, c) = (sq / 8, sq % 8);
            let next_to_o = (-1..=1).any(|dr| {
                (-1..=1).any(|dc| {
                    let (rr, cc) = (r + dr, c + dc);
                    (dr, dc) != (0, 0)
                        && (0..8).contains(&rr)
                        && (0..8).contains(&cc)
                        && o >> (rr * 8 + cc) & 1 != 0
                })
            });
            n += u32::from(next_to_o);
        }
        n.min(POTENTIAL_SIZE as u32 - 1)
    };
    let set = FeatureSet::PatternsPotential;
    let mut out = [0u32; MAX_FEATURES];
    let mut seen_high = false;
    for b in random_positions(3000, 17) {
        let (p, o) = (b.player, b.opponent);
        assert_eq!(potential_mobility(p, o), slow(p, o), "{b:?}");
        assert_eq!(potential_mobility(o, p), slow(o, p), "{b:?}");
        seen_high |= slow(p, o) >= 20;
        raw_features(p, o, set, &mut out);
        assert_eq!(out[49], POTENTIAL_OFFSET + slow(p, o));
        assert_eq!(
            out[50],
            POTENTIAL_OFFSET + POTENTIAL_SIZE as u32 + slow(o, p)
        );
    }
    assert!(seen_high);
    assert_eq!(set.n_features(), 51);
}
