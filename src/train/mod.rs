//! `annex train`: builds training positions from public game records,
//! labels them, fits the pattern weights per stage and writes a weights
//! file.
//!
//! Sources: the WTHOR database (`wthor/*.wtb`) and Logistello's
//! `logistello/logbook.gam.gz`. A held-out split of the games (chosen by a
//! hash of the seed and the game number) is never trained on; its
//! positions give the held-out error printed at the end.
//!
//! Labels (disc difference for the side to move), best truth first:
//! * with `solve_empties = K > 0`: every position of the game with at most
//!   K empties is solved exactly by the engine's endgame solver; earlier
//!   positions get the exact value of the game's first position with at
//!   most K empties (the game result corrected by perfect play from there);
//! * WTHOR positions with at least 24 empties: the theoretical score
//!   (perfect play from 24 empties, computed by the FFO) when present;
//! * otherwise the final result (Logistello's endgames were solved by the
//!   program, so its results are near-exact late in the game).

pub mod data;
pub mod exclude;
pub mod fit;
pub mod measure;
pub mod testsets;
pub mod cli;
pub mod measure_cli;

use crate::board::Board;
use crate::engine::Engine;
use crate::eval::pattern::{N_STAGES, stage_of};
use crate::eval::{PatternEval, SCALE};
use crate::matchplay::process::Failure;
use crate::position::ParsePositionError;
use crate::record::gamedb::GameDbError;
use crate::rng;
use crate::search::Limits;
use data::{Game, read_logbook, read_wthor, replay};
use fit::{FitConfig, Sample, StageFit};
use rayon::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where the games come from and how to split them.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// The shared data folder (with `wthor/` and `logistello/`).
    pub data_dir: PathBuf,
    /// Use the WTHOR database.
    pub wthor: bool,
    /// Use Logistello's logbook.
    pub logbook: bool,
    /// Use at most this many games of each source (0 = all).
    pub max_games: usize,
    /// Percentage of games held out.
    pub holdout_percent: u64,
    /// Seed of the held-out split.
    pub seed: u64,
    /// Solve positions with at most this many empties exactly (0 = no solver).
    pub solve_empties: u32,
    /// Self-play data files (`annex datagen`, `.adg`) trained on besides
    /// the games; their games are held out by game index.
    pub datagen: Vec<PathBuf>,
    /// Weight (0..1) of the engine's search score in the label of a
    /// self-play record that was not solved (the rest: its play-out label).
    pub datagen_search_weight: f32,
    /// Read incomplete self-play files too (an interrupted run, a partial
    /// merge, the format without a completeness marker); they are refused
    /// otherwise.
    pub datagen_allow_partial: bool,
    /// OBF files whose positions (and their symmetric images) are never
    /// trained on (see [`exclude`]).
    pub exclude: Vec<PathBuf>,
    /// Fitting parameters.
    pub fit: FitConfig,
}

/// An exact solver for labels: a one-thread engine whose events are dropped.
pub struct Solver {
    engine: Engine,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a 4 MiB table.
    pub fn new() -> Solver {
        let (tx, _) = crossbeam_channel::unbounded();
        let mut engine = Engine::new(tx);
        // Hash 4 is always valid; ignore the impossible error.
        let _ = engine.set_hash(4);
        Solver { engine }
    }

    /// Clears the table (between games).
    pub fn new_game(&mut self) {
        self.engine.new_game();
    }

    /// Exact final disc difference for the side to move (winner gets the
    /// empties).
    pub fn solve(&mut self, b: &Board) -> i32 {
        let pos = measure::position(*b);
        let bm = self.engine.search_sync(pos, Limits::exact());
        if bm.best.is_pass() && b.legal_moves() == 0 {
            let pass = b.pass();
            if pass.legal_moves() == 0 {
                return b.final_score(crate::rules::Scoring::Wof);
            }
            return -self.solve(&pass);
        }
        bm.score
    }
}

/// Why training data could not be read or a training run failed. The
/// messages name the file where one is involved.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A folder that cannot be listed.
    #[error("cannot list {}: {source}", path.display())]
    List {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file that cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file that cannot be opened.
    #[error("cannot open {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A gzip file that cannot be decompressed.
    #[error("cannot decompress {}: {source}", path.display())]
    Decompress {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A WTHOR file that does not decode.
    #[error("{}: {source}", path.display())]
    Wthor {
        /// The file.
        path: PathBuf,
        /// Why.
        source: GameDbError,
    },
    /// A position that does not parse.
    #[error("{}: {source}", path.display())]
    Position {
        /// The file.
        path: PathBuf,
        /// Why.
        source: ParsePositionError,
    },
    /// A score that does not parse.
    #[error("{}: bad score {score}", path.display())]
    Score {
        /// The file.
        path: PathBuf,
        /// The text.
        score: String,
    },
    /// The sources hold no game.
    #[error("no games to train on")]
    NoGames,
    /// A self-play data file that cannot be read (the message names it).
    #[error("{0}")]
    Datagen(#[from] crate::datagen::format::FormatError),
    /// The GTP engine of a measuring match cannot be started.
    #[error("cannot start {program}: {failure}")]
    Start {
        /// Its command.
        program: String,
        /// Why.
        failure: Failure,
    },
    /// The GTP engine failed during a game.
    #[error("GTP engine: {0}")]
    Engine(Failure),
    /// Annex answered no legal square (the move and the board).
    #[error("engine returned {0}")]
    AnnexMove(String),
    /// The GTP engine could not start a game.
    #[error("{0}")]
    NewGame(Failure),
}

/// Whether game number `i` (in load order) is held out.
pub fn is_held_out(i: usize, seed: u64, percent: u64) -> bool {
    rng::hash(seed ^ rng::hash(i as u64)) % 100 < percent
}

/// Whether game `game` of a self-play data file is held out (a split
/// independent of the game split of [`is_held_out`]).
pub fn is_datagen_held_out(game: u32, seed: u64, percent: u64) -> bool {
    const SALT: u64 = 0x6461_7461_6765_6e00; // "datagen"
    is_held_out(game as usize, seed ^ SALT, percent)
}

/// The records of the self-play data files, split into training and
/// held-out samples bucketed by empties (`0..=60`), and the held-out
/// records themselves (for their solved flags). Incomplete files are
/// read only with `allow_partial`.
///
/// # Errors
/// A file cannot be read, is not a valid data file, or is incomplete.
pub fn load_datagen(
    files: &[PathBuf],
    seed: u64,
    percent: u64,
    search_weight: f32,
    allow_partial: bool,
) -> Result<(Vec<Vec<Sample>>, Vec<crate::datagen::format::Record>), TrainError> {
    let mut train = vec![Vec::new(); 61];
    let mut held = Vec::new();
    for f in files {
        let recs = crate::datagen::format::read_file_with(f, allow_partial)?;
        log::info!("{}: {} self-play records", f.display(), recs.len());
        for r in recs {
            if is_datagen_held_out(r.game, seed, percent) {
                held.push(r);
            } else {
                let mut sample = datagen_sample(&r);
                sample.label = blended_label(&r, search_weight);
                train[(r.empties() as usize).min(60)].push(sample);
            }
        }
    }
    Ok((train, held))
}

/// The label of a self-play record with weight `w` on its search score:
/// unsolved records with a score blend the two (rounded to a disc), the
/// others keep their label.
pub fn blended_label(r: &crate::datagen::format::Record, w: f32) -> i8 {
    if w <= 0.0 || r.solved() || r.search == crate::datagen::format::NO_SCORE {
        return r.label;
    }
    let search = f32::from(r.search) / 32.0;
    let v = w * search + (1.0 - w) * f32::from(r.label);
    v.round().clamp(-64.0, 64.0) as i8
}

/// A training sample of a self-play record (its label, source datagen).
pub fn datagen_sample(r: &crate::datagen::format::Record) -> Sample {
    Sample {
        player: r.player,
        opponent: r.opponent,
        label: r.label,
        source: fit::SOURCE_DATAGEN,
    }
}

/// Loads the games of the configured sources, WTHOR years in order then
/// the logbook.
pub fn load_games(cfg: &TrainConfig) -> Result<Vec<Game>, TrainError> {
    let mut games = Vec::new();
    if cfg.wthor {
        let dir = cfg.data_dir.join("wthor");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|source| TrainError::List {
                path: dir.clone(),
                source,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("wtb")))
            .collect();
        files.sort();
        let mut w = Vec::new();
        for f in &files {
            let b = crate::fileio::read_bounded(f, crate::record::gamedb::MAX_WTHOR_BYTES)
                .map_err(|source| TrainError::Read {
                    path: f.clone(),
                    source,
                })?;
            w.extend(read_wthor(&b).map_err(|source| TrainError::Wthor {
                path: f.clone(),
                source,
            })?);
        }
        if cfg.max_games > 0 {
            w.truncate(cfg.max_games);
        }
        log::info!("{} WTHOR games from {} files", w.len(), files.len());
        games.extend(w);
    }
    if cfg.logbook {
        let p = cfg.data_dir.join("logistello/logbook.gam.gz");
        let text = read_gz(&p)?;
        let (mut l, bad) = read_logbook(&text);
        if cfg.max_games > 0 {
            l.truncate(cfg.max_games);
        }
        log::info!("{} logbook games ({bad} lines skipped)", l.len());
        games.extend(l);
    }
    Ok(games)
}

/// Reads a gzip-compressed text file of at most
/// [`crate::fileio::MAX_TEXT_BYTES`], compressed and decompressed.
///
/// # Errors
/// The file cannot be opened or decompressed, or is too large.
pub fn read_gz(p: &Path) -> Result<String, TrainError> {
    let limit = crate::fileio::MAX_TEXT_BYTES;
    let f = crate::fileio::open_regular(p, limit).map_err(|source| TrainError::Open {
        path: p.to_path_buf(),
        source,
    })?;
    let mut s = String::new();
    let decompress = |source| TrainError::Decompress {
        path: p.to_path_buf(),
        source,
    };
    flate2::read::GzDecoder::new(f)
        .take(limit + 1)
        .read_to_string(&mut s)
        .map_err(decompress)?;
    if s.len() as u64 > limit {
        return Err(decompress(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("decompresses to more than {limit} bytes"),
        )));
    }
    Ok(s)
}

/// Training positions of one game with their labels (empty if the game
/// does not replay).
pub fn game_samples(g: &Game) -> Vec<Sample> {
    game_samples_solved(g, 0, None)
}

/// Training positions of one game, solving positions with at most
/// `solve_empties` empties with `solver` (see the module documentation).
pub fn game_samples_solved(
    g: &Game,
    solve_empties: u32,
    solver: Option<&mut Solver>,
) -> Vec<Sample> {
    let Some(pos) = replay(g) else {
        return Vec::new();
    };
    // Exact values (for Black) of the positions with few empties.
    let mut exact: Vec<Option<i32>> = vec![None; pos.len()];
    let mut corrected = None;
    if let Some(solver) = solver
        && solve_empties > 0
    {
        solver.new_game();
        for (i, gp) in pos.iter().enumerate() {
            if gp.board.empties() <= solve_empties {
                let v = solver.solve(&gp.board);
                let vb = if gp.black { v } else { -v };
                exact[i] = Some(vb);
                corrected.get_or_insert(vb);
            }
        }
    }
    pos.iter()
        .zip(&exact)
        .map(|(gp, ex)| {
            let e = gp.board.empties();
            let black_label = match (ex, g.theoretical, corrected) {
                (Some(v), _, _) => *v,
                (None, Some(t), _) if e >= g.theoretical_empties => t,
                (None, _, Some(c)) => c,
                _ => g.result,
            };
            let label = if gp.black { black_label } else { -black_label };
            Sample {
                player: gp.board.player,
                opponent: gp.board.opponent,
                label: label.clamp(-64, 64) as i8,
                source: g.source,
            }
        })
        .collect()
}

/// Positions of the given games bucketed by empties (`0..=60`).
pub fn bucket(games: &[&Game]) -> Vec<Vec<Sample>> {
    bucket_solved(games, 0, false)
}

/// As [`bucket`], labelling with the solver from `solve_empties` empties
/// (in parallel; the labels do not depend on the thread count).
pub fn bucket_solved(games: &[&Game], solve_empties: u32, progress: bool) -> Vec<Vec<Sample>> {
    let t = Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let per_game: Vec<Vec<Sample>> = if solve_empties == 0 {
        games.iter().map(|g| game_samples(g)).collect()
    } else {
        games
            .par_iter()
            .map_init(Solver::new, |solver, g| {
                let s = game_samples_solved(g, solve_empties, Some(solver));
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if progress && d.is_multiple_of(10_000) {
                    eprintln!(
                        "train: solved {d}/{} games ({:.0} s)",
                        games.len(),
                        t.elapsed().as_secs_f64()
                    );
                }
                s
            })
            .collect()
    };
    let mut by = vec![Vec::new(); 61];
    for s in per_game.into_iter().flatten() {
        by[(s.empties() as usize).min(60)].push(s);
    }
    by
}

/// Mean absolute error (discs) per stage of an evaluation on labelled
/// positions: `(stage, positions, mae)`.
pub fn mae_by_stage(eval: &PatternEval, by_empties: &[Vec<Sample>]) -> Vec<(usize, usize, f64)> {
    let mut sum = [0f64; N_STAGES];
    let mut cnt = [0usize; N_STAGES];
    for v in by_empties {
        for s in v {
            let b = crate::board::Board::new(s.player, s.opponent);
            let st = stage_of(s.empties());
            let e = eval.evaluate(&b) as f64 / SCALE as f64;
            sum[st] += (e - s.label as f64).abs();
            cnt[st] += 1;
        }
    }
    (0..N_STAGES)
        .map(|s| (s, cnt[s], sum[s] / cnt[s].max(1) as f64))
        .collect()
}

/// The result of a training run.
#[derive(Debug)]
pub struct TrainReport {
    /// The fitted weights.
    pub weights: crate::eval::Weights,
    /// Per-stage fit reports.
    pub stages: Vec<StageFit>,
    /// Held-out MAE per stage, `(stage, positions, mae)`.
    pub held_out: Vec<(usize, usize, f64)>,
    /// Games trained on / held out.
    pub games: (usize, usize),
    /// Training samples dropped because they are excluded test positions.
    pub excluded: usize,
    /// Held-out MAE per stage on the held-out self-play games (empty
    /// without datagen files), against their labels.
    pub held_out_datagen: Vec<(usize, usize, f64)>,
}

/// Loads, labels, splits and fits.
pub fn train(cfg: &TrainConfig) -> Result<TrainReport, TrainError> {
    let t = Instant::now();
    let exclusion = exclude::Exclusion::from_files(&cfg.exclude)?;
    let (dg_train, dg_held) = load_datagen(
        &cfg.datagen,
        cfg.seed,
        cfg.holdout_percent,
        cfg.datagen_search_weight,
        cfg.datagen_allow_partial,
    )?;
    let games = load_games(cfg)?;
    if games.is_empty() && dg_train.iter().all(Vec::is_empty) {
        return Err(TrainError::NoGames);
    }
    let (mut tr, mut ho) = (Vec::new(), Vec::new());
    for (i, g) in games.iter().enumerate() {
        if is_held_out(i, cfg.seed, cfg.holdout_percent) {
            ho.push(g);
        } else {
            tr.push(g);
        }
    }
    let mut train_set = bucket_solved(&tr, cfg.solve_empties, cfg.fit.progress);
    let dg_n: usize = dg_train.iter().map(Vec::len).sum();
    for (dst, src) in train_set.iter_mut().zip(dg_train) {
        dst.extend(src);
    }
    let excluded = exclusion.filter(&mut train_set);
    let held_set = bucket_solved(&ho, cfg.solve_empties, false);
    let n: usize = train_set.iter().map(Vec::len).sum();
    if cfg.fit.progress {
        eprintln!(
            "train: {} games ({} held out), {dg_n} self-play positions ({} held out), \
             {excluded} training positions dropped as test positions ({} excluded positions \
             and their images), {n} training positions, loaded in {:.1} s",
            games.len(),
            ho.len(),
            dg_held.len(),
            exclusion.positions(),
            t.elapsed().as_secs_f64()
        );
    }
    let (weights, stages) = fit::fit(&train_set, &cfg.fit);
    let eval = PatternEval::new(&weights);
    let held_out = mae_by_stage(&eval, &held_set);
    let mut dg_by = vec![Vec::new(); 61];
    for r in &dg_held {
        dg_by[(r.empties() as usize).min(60)].push(datagen_sample(r));
    }
    let held_out_datagen = if dg_held.is_empty() {
        Vec::new()
    } else {
        mae_by_stage(&eval, &dg_by)
    };
    if cfg.fit.progress {
        for (s, c, m) in &held_out {
            eprintln!("train: held-out stage {s:2}: {c:7} positions, MAE {m:.2} discs");
        }
        for (s, c, m) in &held_out_datagen {
            eprintln!("train: held-out self-play stage {s:2}: {c:7} positions, MAE {m:.2} discs");
        }
        eprintln!("train: total {:.1} s", t.elapsed().as_secs_f64());
    }
    Ok(TrainReport {
        weights,
        stages,
        held_out,
        games: (tr.len(), ho.len()),
        excluded,
        held_out_datagen,
    })
}

#[cfg(test)]
mod tests {
    use super::blended_label;
    use crate::datagen::format::{FLAG_SOLVED, NO_SCORE, Record};

    fn rec(label: i8, flags: u8, search: i16) -> Record {
        Record {
            player: 1,
            opponent: 2,
            label,
            flags,
            search,
            game: 0,
        }
    }

    /// Unsolved records with a score blend it with the play-out label;
    /// solved ones and those without a score keep their label.
    #[test]
    fn blended_labels() {
        assert_eq!(blended_label(&rec(-4, 0, 12 * 32), 0.5), 4);
        assert_eq!(blended_label(&rec(-4, 0, 12 * 32), 0.0), -4);
        assert_eq!(blended_label(&rec(-4, 0, 12 * 32), 1.0), 12);
        assert_eq!(blended_label(&rec(-4, FLAG_SOLVED, 12 * 32), 0.5), -4);
        assert_eq!(blended_label(&rec(-4, 0, NO_SCORE), 0.5), -4);
        assert_eq!(blended_label(&rec(64, 0, 90 * 32), 0.75), 64);
        // 0.25 * 3 + 0.75 * 2 = 2.25 rounds to 2; a third of a disc rounds.
        assert_eq!(blended_label(&rec(2, 0, 3 * 32), 0.25), 2);
        assert_eq!(blended_label(&rec(0, 0, 43), 1.0), 1);
    }

    /// `annex train` makes a solver (an engine) inside each job of its rayon
    /// pool. Clearing the table must not wait on another pool from there:
    /// a waiting rayon worker runs its own pool's queued jobs, each making
    /// and clearing another engine, nested until the stack overflows (as it
    /// did when the table was cleared by `rayon::ThreadPool::install`).
    #[test]
    fn solvers_made_inside_rayon_jobs_do_not_nest() {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .stack_size(128 << 10)
            .build()
            .unwrap();
        let n: usize = pool.install(|| {
            (0..400)
                .into_par_iter()
                .map(|_| {
                    let mut s = super::Solver::new();
                    s.new_game();
                    s.new_game();
                    1
                })
                .sum()
        });
        assert_eq!(n, 400);
    }
}
