//! Test sets for `annex eval-measure` beyond the FFO and hard-20 suites:
//! positions of games that are not training data (eOthello and PlayOK
//! online games), positions of held-out self-play games, and a check of
//! how many positions of each set occur in the training games.
//!
//! Labels of the online-game positions: the engine's exact solve up to
//! some number of empties, a fixed-depth engine search (with the measured
//! evaluation) beyond; the two are kept in separate sets.

use crate::board::Board;
use crate::engine::Engine;
use crate::eval::Evaluator;
use crate::square::Square;
use crate::train::TrainError;
use crate::train::data::{Game, replay};
use crate::train::measure::Exact;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// Reads the eOthello CSV (`Othello_game_id,winner,game_moves`, moves
/// concatenated as `f5d6…`). Games whose moves do not parse are skipped;
/// their count is returned beside the games. Results are not kept (the
/// positions are labelled by search).
///
/// # Errors
/// The file cannot be read.
pub fn read_eothello(path: &Path) -> Result<(Vec<Game>, usize), TrainError> {
    let text = crate::fileio::read_string_bounded(path, crate::fileio::MAX_TEXT_BYTES).map_err(
        |source| TrainError::Read {
            path: path.to_path_buf(),
            source,
        },
    )?;
    let mut games = Vec::new();
    let mut bad = 0;
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let moves = line.rsplit(',').next().unwrap_or("").trim();
        let sq: Option<Vec<u8>> = moves
            .as_bytes()
            .chunks(2)
            .map(|c| {
                std::str::from_utf8(c)
                    .ok()?
                    .parse::<Square>()
                    .ok()
                    .map(|s| s.index() as u8)
            })
            .collect();
        match sq {
            Some(moves) if !moves.is_empty() => games.push(Game {
                moves,
                result: 0,
                theoretical: None,
                theoretical_empties: 0,
                source: crate::train::fit::SOURCE_WTHOR,
            }),
            _ => bad += 1,
        }
    }
    Ok((games, bad))
}

/// One position from each of `n` games spread evenly over `games`, the
/// k-th taken at `2 + k % 58` empties (so every stage is covered); games
/// that do not reach that position (or do not replay) are skipped.
pub fn sample_boards(games: &[Game], n: usize) -> Vec<Board> {
    if n == 0 || games.is_empty() {
        return Vec::new();
    }
    let step = (games.len() / n).max(1);
    let mut out = Vec::new();
    for (k, g) in games.iter().step_by(step).take(n).enumerate() {
        let want = 2 + (k % 58) as u32;
        if let Some(p) = replay(g).and_then(|p| p.into_iter().find(|p| p.board.empties() == want)) {
            out.push(p.board);
        }
    }
    out
}

/// Labels `boards` with the engine (one thread each, 16 MiB table):
/// solved exactly up to `exact_max` empties, searched to `depth` beyond
/// (0 = those are dropped). Returns the solved and the searched positions.
pub fn label_boards(
    eval: &Evaluator,
    boards: &[Board],
    exact_max: u32,
    depth: u32,
) -> (Vec<Exact>, Vec<Exact>) {
    let labelled: Vec<(bool, Exact)> = boards
        .par_iter()
        .filter(|b| b.empties() <= exact_max || depth > 0)
        .map_init(
            || {
                let (tx, _) = crossbeam_channel::unbounded();
                let mut e = Engine::new(tx);
                e.set_evaluator(eval.clone());
                // 16 MiB is always valid; ignore the impossible error.
                let _ = e.set_hash(16);
                e
            },
            |eng, b| {
                eng.new_game();
                let exact = b.empties() <= exact_max;
                let pos = super::measure::position(*b);
                let limits = super::measure::depth_limits(depth, exact_max)(&pos);
                let score = eng.search_sync(pos, limits).score;
                (exact, Exact { board: *b, score })
            },
        )
        .collect();
    let (solved, searched): (Vec<_>, Vec<_>) = labelled.into_iter().partition(|x| x.0);
    (
        solved.into_iter().map(|x| x.1).collect(),
        searched.into_iter().map(|x| x.1).collect(),
    )
}

/// Self-play records of held-out games as two sets: the solved ones
/// (exact labels) and the others (play-out labels), each thinned evenly
/// to at most `max` positions.
pub fn datagen_sets(records: &[crate::datagen::format::Record], max: usize) -> [Vec<Exact>; 2] {
    let mut sets = [Vec::new(), Vec::new()];
    for r in records {
        let x = Exact {
            board: Board::new(r.player, r.opponent),
            score: r.label as i32,
        };
        sets[usize::from(!r.solved())].push(x);
    }
    sets.map(|v| {
        let step = v.len().div_ceil(max.max(1)).max(1);
        v.into_iter().step_by(step).collect()
    })
}

/// For each set, which of its positions occur (up to symmetry, the same
/// side to move) among the positions of `games`.
pub fn occurrences(sets: &[&[Exact]], games: &[&Game]) -> Vec<Vec<bool>> {
    let mut index: HashMap<(u64, u64), Vec<(usize, usize)>> = HashMap::new();
    for (si, set) in sets.iter().enumerate() {
        for (pi, x) in set.iter().enumerate() {
            for s in 0..8 {
                let b = x.board.symmetry(s);
                let v = index.entry((b.player, b.opponent)).or_default();
                if !v.contains(&(si, pi)) {
                    v.push((si, pi));
                }
            }
        }
    }
    let hits: Vec<(usize, usize)> = games
        .par_iter()
        .flat_map_iter(|g| {
            replay(g)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|p| index.get(&(p.board.player, p.board.opponent)))
                .flatten()
                .copied()
                .collect::<Vec<_>>()
        })
        .collect();
    let mut found: Vec<Vec<bool>> = sets.iter().map(|s| vec![false; s.len()]).collect();
    for (si, pi) in hits {
        found[si][pi] = true;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::flips;

    fn game(moves: &[u8]) -> Game {
        Game {
            moves: moves.to_vec(),
            result: 0,
            theoretical: None,
            theoretical_empties: 0,
            source: 0,
        }
    }

    #[test]
    fn occurrences_count_symmetric_images_once() {
        // f5 d6 c3 d3 (tiger) and an image of its position after f5 d6.
        let g = game(&[37, 43, 18, 19]);
        let mut b = Board::start();
        for m in [37usize, 43] {
            b = b.play_flips(m, flips(b.player, b.opponent, m));
        }
        let set = vec![
            Exact {
                board: b.symmetry(3),
                score: 0,
            },
            Exact {
                board: Board::new(b.opponent, b.player),
                score: 0,
            },
        ];
        // The image occurs; the colour-swapped board does not.
        assert_eq!(occurrences(&[&set], &[&g, &g]), vec![vec![true, false]]);
    }

    #[test]
    fn samples_cover_the_stages_and_datagen_sets_split_by_flag() {
        let g = game(&[37, 43, 18, 19]);
        // Only positions with 2.. empties are asked for; a 4-move game has
        // none of them, so nothing is sampled from it.
        assert!(sample_boards(&[g], 5).is_empty());
        let r = |flags, game| crate::datagen::format::Record {
            player: 1,
            opponent: 2,
            label: 3,
            flags,
            search: 0,
            game,
        };
        let recs = [r(1, 0), r(0, 0), r(0, 1), r(1, 1), r(0, 2)];
        let [solved, playout] = datagen_sets(&recs, 2);
        assert_eq!((solved.len(), playout.len()), (2, 2));
        assert!(solved.iter().all(|x| x.score == 3));
    }
}
