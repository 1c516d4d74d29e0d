//! The incremental evaluation (`EvalState`, `PatternEval::evaluate_from`)
//! against the full one: the same value, bit for bit, for every feature
//! set, along random games with their passes, across every stage.

use annex::board::{Board, flips, legal_moves};
use annex::eval::pattern::FeatureSet;
use annex::eval::{EvalState, MAX_CHANGED, PatternEval, Weights};
use annex::rng::Rng;

fn random_weights(set: FeatureSet, stages: usize, seed: u64) -> Weights {
    let mut w = Weights::zeros(set);
    let per_stage = w.data.len() / w.stages;
    w.stages = stages;
    w.data.resize(stages * per_stage, 0);
    let mut rng = Rng::new(seed);
    for x in &mut w.data {
        *x = (rng.next_u64() % 2001) as i16 - 1000;
    }
    w
}

/// Every set, with random weights (large enough for the clamp at
/// ±MAX_EVAL to be reached), 16 stages and 64 for the extended set (a
/// stage per number of empties: every boundary), and the embedded
/// weights.
fn evaluators() -> Vec<PatternEval> {
    let mut v: Vec<PatternEval> = [
        FeatureSet::Patterns,
        FeatureSet::PatternsMobility,
        FeatureSet::Extended,
        FeatureSet::PatternsPotential,
    ]
    .iter()
    .enumerate()
    .map(|(i, &set)| PatternEval::new(&random_weights(set, 16, 70 + i as u64)))
    .collect();
    v.push(PatternEval::new(&random_weights(
        FeatureSet::Extended,
        64,
        80,
    )));
    v.push((*PatternEval::embedded().expect("embedded weights")).clone());
    v
}

/// Along random games (passes included: the state follows them), every
/// child of every position evaluated from the position's state equals
/// its full evaluation, and so does the position's pass; the state made
/// move by move equals the state made from scratch.
#[test]
fn evaluation_from_the_parent_equals_the_full_evaluation() {
    for (i, e) in evaluators().iter().enumerate() {
        let mut rng = Rng::new(0x1ac0 + i as u64);
        let (mut children, mut passes) = (0, 0);
        for _ in 0..12 {
            let mut b = Board::start();
            let mut state = e.state(&b);
            loop {
                let moves = legal_moves(b.player, b.opponent);
                let passed = b.pass();
                assert_eq!(e.evaluate_from(&state, &passed), e.evaluate(&passed));
                if moves == 0 {
                    if legal_moves(passed.player, passed.opponent) == 0 {
                        break;
                    }
                    passes += 1;
                    b = passed;
                    state = e.state_from(&state, &b);
                    assert_eq!(state, e.state(&b));
                    continue;
                }
                let mut m = moves;
                while m != 0 {
                    let sq = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let child = b.play_flips(sq, flips(b.player, b.opponent, sq));
                    assert_eq!(
                        e.evaluate_from(&state, &child),
                        e.evaluate(&child),
                        "{:?} {b:?} move {sq}",
                        e.feature_set()
                    );
                    children += 1;
                }
                let sq = rng.pick_bit(moves);
                b = b.play_flips(sq, flips(b.player, b.opponent, sq));
                state = e.state_from(&state, &b);
                assert_eq!(state, e.state(&b), "{:?} {b:?}", e.feature_set());
                assert_eq!(state.board(), &b);
            }
        }
        assert!(children > 3000 && passes > 0, "{children} {passes}");
    }
}

/// Any state is a correct base, however far from the position evaluated
/// (the default state of the empty board, a position of another game, a
/// state of another feature set), and a position next to the base with
/// the same side to move (a disc added, as a placement ply) or many
/// squares changed (beyond `MAX_CHANGED`, computed from scratch) is
/// evaluated right too.
#[test]
fn any_state_is_a_correct_base() {
    let evals = evaluators();
    let mut rng = Rng::new(0xba5e);
    let mut pos = Vec::new();
    for _ in 0..6 {
        let mut b = Board::start();
        loop {
            let moves = legal_moves(b.player, b.opponent);
            if moves == 0 {
                break;
            }
            pos.push(b);
            let sq = rng.pick_bit(moves);
            b = b.play_flips(sq, flips(b.player, b.opponent, sq));
        }
    }
    let mut far = 0;
    for (i, e) in evals.iter().enumerate() {
        let other = &evals[(i + 2) % evals.len()];
        for (j, b) in pos.iter().enumerate() {
            let want = e.evaluate(b);
            let bases = [
                EvalState::default(),
                e.state(&pos[(j * 7 + 3) % pos.len()]),
                other.state(b),
                e.state(&pos[j.saturating_sub(1)]),
            ];
            for base in &bases {
                assert_eq!(e.evaluate_from(base, b), want);
                assert_eq!(e.state_from(base, b), e.state(b));
            }
            let changed =
                |a: &Board| ((a.player ^ b.player) | (a.opponent ^ b.opponent)).count_ones();
            far += bases[1..2]
                .iter()
                .filter(|s| changed(s.board()) > MAX_CHANGED)
                .count();
            let empty = !(b.player | b.opponent);
            if empty != 0 {
                let sq = rng.pick_bit(empty);
                let placed = Board::new(b.player | 1 << sq, b.opponent);
                let s = e.state(b);
                assert_eq!(e.evaluate_from(&s, &placed), e.evaluate(&placed));
                assert_eq!(e.state_from(&s, &placed), e.state(&placed));
            }
        }
    }
    assert!(far > 100, "{far}");
}
