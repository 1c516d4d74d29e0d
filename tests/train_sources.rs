//! Training sources: self-play data files (`.adg`) as a weighted source
//! with a game-index holdout, and the exclusion of test positions.

use crate::util::{data_dir, data_file};
use annex::board::Board;
use annex::datagen::format::{Record, encode};
use annex::position::ObfLine;
use annex::train::data::{read_wthor, replay};
use annex::train::fit::FitConfig;
use annex::train::{TrainConfig, TrainError, is_datagen_held_out, train};
use std::path::PathBuf;

/// A file in the temporary folder, unique to this process and `name`.
fn temp_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("annex-train-{}-{name}", std::process::id()))
}

/// Writes a `.adg` file of `recs`.
fn write_adg(path: &PathBuf, recs: &[Record]) {
    std::fs::write(path, encode(recs)).unwrap();
}

/// Records of the first `n` WTHOR 1995 games (game index = game number),
/// labelled by the game result.
fn wthor_records(n: usize) -> Vec<Record> {
    let b = std::fs::read(data_file("wthor/WTH_1995.wtb")).unwrap();
    let games = read_wthor(&b).unwrap();
    let mut out = Vec::new();
    for (i, g) in games.iter().take(n).enumerate() {
        for p in replay(g).unwrap() {
            let r = if p.black { g.result } else { -g.result };
            out.push(Record {
                player: p.board.player,
                opponent: p.board.opponent,
                label: r as i8,
                flags: 0,
                search: i16::MIN,
                game: i as u32,
            });
        }
    }
    out
}

/// A configuration with no game source, training on `datagen` only.
fn datagen_only(datagen: Vec<PathBuf>, holdout: u64, weight: f32) -> TrainConfig {
    TrainConfig {
        data_dir: data_dir(),
        wthor: false,
        logbook: false,
        max_games: 0,
        holdout_percent: holdout,
        seed: 1,
        solve_empties: 0,
        datagen,
        datagen_search_weight: 0.0,
        datagen_allow_partial: false,
        exclude: Vec::new(),
        fit: FitConfig {
            epochs: 5,
            progress: false,
            source_weights: [1.0, 1.0, weight],
            ..FitConfig::default()
        },
    }
}

#[test]
fn datagen_files_train_with_a_game_holdout_and_a_weight() {
    let recs = wthor_records(200);
    let path = temp_file("dg.adg");
    write_adg(&path, &recs);
    let r = train(&datagen_only(vec![path.clone()], 20, 1.0)).unwrap();
    assert_eq!(r.games, (0, 0));
    // The held-out self-play positions are exactly those of held-out games.
    let held: usize = r.held_out_datagen.iter().map(|x| x.1).sum();
    let expect = recs
        .iter()
        .filter(|x| is_datagen_held_out(x.game, 1, 20))
        .count();
    assert!(expect > 0 && expect < recs.len() / 2, "{expect}");
    assert_eq!(held, expect);
    let trained: usize = r.stages.iter().map(|s| s.samples).sum();
    assert!(trained > recs.len() - expect, "stage windows overlap");
    assert!(r.weights.data.iter().any(|&w| w != 0));
    // Weight 0 drops the source: nothing is fitted.
    let z = train(&datagen_only(vec![path.clone()], 20, 0.0)).unwrap();
    assert!(z.weights.data.iter().all(|&w| w == 0));
    assert!(z.stages.iter().all(|s| s.samples == 0));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bad_datagen_files_give_one_error_naming_the_file() {
    let path = temp_file("bad.adg");
    std::fs::write(&path, b"NOTADATAFILE....").unwrap();
    let e = train(&datagen_only(vec![path.clone()], 0, 1.0)).unwrap_err();
    assert!(matches!(e, TrainError::Datagen(_)));
    let msg = e.to_string();
    assert!(msg.contains("bad.adg") && msg.contains("magic"), "{msg}");
    assert!(!msg.contains('\n'));
    std::fs::remove_file(&path).unwrap();
    let missing = temp_file("missing.adg");
    let e = train(&datagen_only(vec![missing], 0, 1.0)).unwrap_err();
    assert!(e.to_string().contains("missing.adg"), "{e}");
}

#[test]
fn test_positions_and_their_images_are_not_trained_on() {
    // FFO #1 and its image under each symmetry (the same side to move).
    let text = std::fs::read_to_string(data_file("endgame/ffo/fforum-1-19.obf")).unwrap();
    let line = text.lines().find(|l| !l.starts_with('%')).unwrap();
    let ffo1: ObfLine = line.parse().unwrap();
    let b: Board = ffo1.position.board;
    let mut recs: Vec<Record> = (0..8u8)
        .map(|s| {
            let x = b.symmetry(s);
            Record {
                player: x.player,
                opponent: x.opponent,
                label: 18,
                flags: 1,
                search: i16::MIN,
                game: 0,
            }
        })
        .collect();
    // Plus positions of real games, which stay.
    recs.extend(wthor_records(20));
    let path = temp_file("ex.adg");
    write_adg(&path, &recs);
    let mut cfg = datagen_only(vec![path.clone()], 0, 1.0);
    cfg.exclude = annex::train::exclude::default_files(&data_dir());
    let r = train(&cfg).unwrap();
    assert_eq!(r.excluded, 8);
    cfg.exclude.clear();
    assert_eq!(train(&cfg).unwrap().excluded, 0);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn weights_of_32_and_64_stages_round_trip_and_evaluate_by_their_stage() {
    use annex::eval::pattern::{FeatureSet, MAX_FEATURES, canon, raw_features, stage_of_n};
    use annex::eval::{MAX_EVAL, PatternEval, Weights};
    use annex::rng::Rng;
    let set = FeatureSet::PatternsMobility;
    let c = canon(set);
    let records = wthor_records(30);
    for stages in [32, 64] {
        let mut w = Weights::zeros_staged(set, stages);
        let mut rng = Rng::new(stages as u64);
        for x in &mut w.data {
            *x = (rng.next_u64() % 201) as i16 - 100;
        }
        let back = Weights::from_bytes(&w.to_bytes()).unwrap();
        assert_eq!(back, w);
        let e = PatternEval::new(&w);
        let mut raw = [0u32; MAX_FEATURES];
        for r in &records {
            let b = Board::new(r.player, r.opponent);
            raw_features(b.player, b.opponent, set, &mut raw);
            // 64 / stages empties a stage, by a formula independent of the table.
            let stage = (b.empties() as usize / (64 / stages)).min(stages - 1);
            assert_eq!(stage, stage_of_n(b.empties(), stages));
            let base = stage * c.size;
            let want: i32 = raw[..set.n_features()]
                .iter()
                .map(|&i| w.data[base + c.map[i as usize] as usize] as i32)
                .sum();
            assert_eq!(e.evaluate(&b), want.clamp(-MAX_EVAL + 1, MAX_EVAL - 1));
        }
    }
    // Another stage count is refused with a message.
    let mut bytes = Weights::zeros(set).to_bytes();
    bytes[12] = 17;
    let e = Weights::from_bytes(&bytes).unwrap_err().to_string();
    assert!(e.contains("17 stages"), "{e}");
}

#[test]
fn a_32_stage_fit_writes_32_stages() {
    let path = temp_file("s32.adg");
    write_adg(&path, &wthor_records(50));
    let mut cfg = datagen_only(vec![path.clone()], 0, 1.0);
    cfg.fit.stages = 32;
    let r = train(&cfg).unwrap();
    assert_eq!((r.weights.stages, r.stages.len()), (32, 32));
    let back = annex::eval::Weights::from_bytes(&r.weights.to_bytes()).unwrap();
    assert_eq!(back.data.len(), 32 * back.stride());
    // Stage 0 of 32 covers 0-1 empties plus the 2-empties margin.
    assert_eq!(annex::train::fit::stage_window(0, 32, 2), (0, 3));
    assert_eq!(annex::train::fit::stage_window(5, 32, 2), (8, 13));
    assert_eq!(annex::train::fit::stage_window(5, 16, 2), (18, 25));
    std::fs::remove_file(&path).unwrap();
}
