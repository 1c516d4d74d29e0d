//! `annex eval-measure`: command-line front end of [`crate::train::measure`]
//! (accuracy against exact scores, speed and matches of an evaluation).

use crate::cli::{ToolError, ToolResult, args};
use crate::eval::Evaluator;
use crate::position::Position;
use crate::train::TrainError;
use crate::train::data::{Game, read_wthor};
use crate::train::exclude::Exclusion;
use crate::train::fit::FitConfig;
use crate::train::measure::{
    Exact, depth_limits, engine_depth_scores, engine_search, mae_bands, play_match, read_ffo_tsv,
    read_obf, solve_exact,
};
use crate::train::testsets;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `annex eval-measure`.
#[derive(clap::Args, Debug)]
pub struct MeasureArgs {
    /// Weights file to measure (default: the embedded weights).
    #[arg(long)]
    eval: Option<String>,
    /// Evaluation to compare with (a weights file, or "simple").
    #[arg(long, default_value = "simple")]
    baseline: String,
    /// Data folder of the full data sets (the WTHOR years and
    /// logistello/ the weights were trained on; default `$ANNEX_DATA`, else
    /// the repository's `data`).
    #[arg(long, default_value_os_t = crate::datadir::default_dir())]
    data: PathBuf,
    /// Depth of the search-accuracy figures (1-60).
    #[arg(long, default_value_t = 4, value_parser = args::depth())]
    depth: u32,
    /// Held-out game positions to solve exactly (0 = none).
    #[arg(long, default_value_t = 300)]
    solve: usize,
    /// Most empties of a solved held-out position (8-60).
    #[arg(long, default_value_t = 16, value_parser = args::solve_max_empties())]
    solve_max: u32,
    /// Held-out split in percent, 0-99 (must match the training run).
    #[arg(long, default_value_t = 5, value_parser = args::holdout_percent())]
    holdout: u64,
    /// Seed of the held-out split (must match the training run).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// XOT openings for the self-play match (each played twice; 0 = no match).
    #[arg(long, default_value_t = 0)]
    games: usize,
    /// Search depth in the match (1-60).
    #[arg(long, default_value_t = 4, value_parser = args::depth())]
    match_depth: u32,
    /// Empties from which match games are solved exactly (0-60).
    #[arg(long, default_value_t = 12, value_parser = args::depth_or_off())]
    match_solve: u32,
    /// Engine depth for the midgame nodes/s figure (0 = skip; 0-60).
    #[arg(long, default_value_t = 10, value_parser = args::depth_or_off())]
    engine_depth: u32,
    /// Milliseconds per move of the engine-vs-engine match (0 = no such match).
    #[arg(long, default_value_t = 0, value_parser = args::millis_or_off())]
    movetime_ms: u64,
    /// A GTP engine to play (e.g. /usr/games/gtp-rhino).
    #[arg(long)]
    gtp: Option<String>,
    /// XOT openings against the GTP engine (each twice).
    #[arg(long, default_value_t = 20)]
    gtp_games: usize,
    /// Play the GTP engine with the measured evaluation only (not the baseline).
    #[arg(long)]
    gtp_pattern_only: bool,
    /// Annex's milliseconds per move against the GTP engine (at least 1).
    #[arg(long, default_value_t = 100, value_parser = args::millis())]
    gtp_movetime_ms: u64,
    /// Games sampled from each online source (eOthello, PlayOK; not
    /// training data), one position each, at 2-59 empties (0 = none).
    #[arg(long, default_value_t = 300)]
    online: usize,
    /// Online positions with at most this many empties are solved exactly (0-30).
    #[arg(long, default_value_t = 18, value_parser = clap::value_parser!(u32).range(0..=30))]
    online_exact_max: u32,
    /// Depth of the engine search labelling the other online positions (0 = drop them; 0-30).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=30))]
    label_depth: u32,
    /// Evaluation of the labelling searches (a weights file, `embedded` or
    /// `simple`; the same labels whatever --eval measures).
    #[arg(long, default_value = "embedded")]
    label_eval: String,
    /// Self-play data files (`annex datagen`) whose held-out games (--holdout,
    /// --seed, as in training) give two more sets.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    datagen: Vec<PathBuf>,
    /// Read incomplete self-play files too (interrupted runs, partial
    /// merges, files of the format without a completeness marker).
    #[arg(long)]
    allow_partial: bool,
    /// Most positions of each held-out self-play set.
    #[arg(long, default_value_t = 2000)]
    datagen_positions: usize,
    /// Worker threads (1-256).
    #[arg(long, default_value_t = 2, value_parser = args::threads())]
    threads: usize,
}

/// The XOT openings of the measuring matches, under the data folder.
const XOT_SMALL: &str = "openings/xot/openingssmall.txt";

/// Runs `annex eval-measure`.
pub fn measure(a: &MeasureArgs) -> ToolResult {
    // The held-out games come from the full sets the weights were trained
    // on: every WTHOR year and the Logistello book games.
    crate::datadir::check(
        &a.data,
        &[
            "endgame/ffo/ffo_1_59.tsv",
            "endgame/edax_hard/hard-20.obf",
            XOT_SMALL,
            "wthor",
            "logistello/logbook.gam.gz",
        ],
    )?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    // The lock is taken on the pool's thread (a lock cannot move).
    pool.install(|| {
        let mut out = std::io::stdout().lock();
        measure_report(a, &mut out)?;
        out.flush()?;
        Ok(())
    })
}

/// The two evaluations compared: the measured one and the baseline.
type Evals<'a> = [(&'static str, &'a Evaluator); 2];

/// Writes the whole `eval-measure` report: accuracy on the exact sets,
/// speed, then the matches asked for.
fn measure_report(a: &MeasureArgs, out: &mut impl Write) -> ToolResult {
    let eval = match &a.eval {
        Some(p) => Evaluator::from_file(p)?,
        None => Evaluator::default(),
    };
    let base = Evaluator::from_file(&a.baseline)?;
    let evals: Evals<'_> = [("pattern", &eval), ("baseline", &base)];
    let (mut sets, games) = exact_sets(a)?;
    write_overlap(out, a, &mut sets, &games)?;
    write_accuracy(out, &sets, &evals, a.depth)?;
    write_speed(out, &sets, &evals)?;
    let rules = crate::rules::RuleSet::default();
    let xot_path = a.data.join(XOT_SMALL);
    let xot = crate::fileio::read_string_bounded(&xot_path, crate::fileio::MAX_TEXT_BYTES)
        .map_err(|source| ToolError::Read {
            path: xot_path.clone(),
            source,
        })?;
    let mut openings = Vec::new();
    for line in xot.lines().filter(|l| !l.trim().is_empty()) {
        let p = Position::from_transcript(line.trim(), &rules).map_err(|source| {
            TrainError::Position {
                path: xot_path.clone(),
                source,
            }
        })?;
        openings.push(p);
    }
    if a.engine_depth > 0 {
        write_engine_speed(out, &evals, &openings, a.engine_depth)?;
    }
    if a.movetime_ms > 0 && a.games > 0 {
        write_engine_match(out, a, &evals, &openings)?;
    }
    if let Some(program) = &a.gtp {
        write_gtp_matches(out, a, &evals, &xot, program)?;
    }
    if a.games > 0 {
        write_depth_match(out, a, &evals, &openings)?;
    }
    Ok(())
}

/// Named test sets of exact (or labelled) positions.
type Sets = Vec<(String, Vec<Exact>)>;

/// The labelled test sets: FFO #1-#59 and hard-20; with `--solve N`
/// positions of held-out games solved here; with `--online N` positions of
/// online games (solved, or searched deeper); with `--datagen` positions of
/// held-out self-play games. Also returns the WTHOR/Logistello games.
fn exact_sets(a: &MeasureArgs) -> ToolResult<(Sets, Vec<Game>)> {
    let mut sets: Sets = vec![
        (
            "FFO #1-#59".into(),
            read_ffo_tsv(&a.data.join("endgame/ffo/ffo_1_59.tsv"))?,
        ),
        (
            "hard-20".into(),
            read_obf(&a.data.join("endgame/edax_hard/hard-20.obf"))?,
        ),
    ];
    let cfg = crate::train::TrainConfig {
        data_dir: a.data.clone(),
        wthor: true,
        logbook: true,
        max_games: 0,
        holdout_percent: a.holdout,
        seed: a.seed,
        solve_empties: 0,
        datagen: Vec::new(),
        datagen_search_weight: 0.0,
        datagen_allow_partial: false,
        exclude: Vec::new(),
        fit: FitConfig::default(),
    };
    let games = crate::train::load_games(&cfg)?;
    if a.solve > 0 {
        sets.push((
            "held-out WTHOR/Logistello games (exact)".into(),
            held_out_solved(a, &games),
        ));
    }
    if a.online > 0 {
        let t = Instant::now();
        let (eo, bad) =
            testsets::read_eothello(&a.data.join("online_games/eothello/othello_dataset.csv"))?;
        let p = a.data.join("online_games/playok/PLAYOK_2023.wtb");
        let bytes = crate::fileio::read_bounded(&p, crate::record::gamedb::MAX_WTHOR_BYTES)
            .map_err(|source| TrainError::Read {
                path: p.clone(),
                source,
            })?;
        let po = read_wthor(&bytes).map_err(|source| TrainError::Wthor {
            path: p.clone(),
            source,
        })?;
        let label_eval = Evaluator::from_file(&a.label_eval)?;
        for (name, g) in [("eOthello", &eo), ("PlayOK", &po)] {
            let boards = testsets::sample_boards(g, a.online);
            let (solved, searched) =
                testsets::label_boards(&label_eval, &boards, a.online_exact_max, a.label_depth);
            sets.push((format!("{name} games (exact)"), solved));
            if !searched.is_empty() {
                sets.push((
                    format!(
                        "{name} games (engine depth-{} labels, {} evaluation)",
                        a.label_depth, a.label_eval
                    ),
                    searched,
                ));
            }
        }
        eprintln!(
            "measure: labelled online positions in {:.1} s ({bad} eOthello lines skipped)",
            t.elapsed().as_secs_f64()
        );
    }
    if !a.datagen.is_empty() {
        let (_, held) =
            crate::train::load_datagen(&a.datagen, a.seed, a.holdout, 0.0, a.allow_partial)?;
        let [solved, playout] = testsets::datagen_sets(&held, a.datagen_positions);
        sets.push(("held-out self-play games (exact)".into(), solved));
        sets.push(("held-out self-play games (play-out labels)".into(), playout));
    }
    Ok((sets, games))
}

/// How many positions of each set occur in the training games (the
/// WTHOR/Logistello training split, up to symmetry) and in the default
/// exclusion list (never trained on); drops those that occur from the
/// online-game sets (measured on untrained positions only).
fn write_overlap(
    out: &mut impl Write,
    a: &MeasureArgs,
    sets: &mut Sets,
    games: &[Game],
) -> ToolResult {
    let train: Vec<&Game> = games
        .iter()
        .enumerate()
        .filter(|(i, _)| !crate::train::is_held_out(*i, a.seed, a.holdout))
        .map(|(_, g)| g)
        .collect();
    let refs: Vec<&[Exact]> = sets.iter().map(|s| s.1.as_slice()).collect();
    let found = testsets::occurrences(&refs, &train);
    let ex = Exclusion::from_files(&crate::train::exclude::default_files(&a.data))?;
    writeln!(
        out,
        "Test positions in the {} training games (WTHOR/Logistello, up to symmetry) / in the default exclusion list:",
        train.len()
    )?;
    for ((name, set), f) in sets.iter_mut().zip(found) {
        let excluded = set
            .iter()
            .filter(|x| ex.contains(x.board.player, x.board.opponent))
            .count();
        let seen = f.iter().filter(|&&x| x).count();
        let online = name.starts_with("eOthello") || name.starts_with("PlayOK");
        let note = if online && seen > 0 {
            let mut it = f.iter();
            set.retain(|_| !it.next().copied().unwrap_or(false));
            format!(" (those dropped from the set: {} left)", set.len())
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {name}: {seen} / {excluded} of {} positions{note}",
            f.len()
        )?;
    }
    Ok(())
}

/// Up to `--solve` positions of held-out games (one per game, empties
/// cycling through 8..=`--solve-max`), solved exactly by the engine.
fn held_out_solved(a: &MeasureArgs, games: &[Game]) -> Vec<Exact> {
    let t = Instant::now();
    let mut picks = Vec::new();
    let span = a.solve_max.saturating_sub(7).max(1) as usize;
    for (i, g) in games.iter().enumerate() {
        if picks.len() >= a.solve {
            break;
        }
        if !crate::train::is_held_out(i, a.seed, a.holdout) {
            continue;
        }
        let Some(pos) = crate::train::data::replay(g) else {
            continue;
        };
        // One position per game, empties cycling through 8..=solve_max.
        let want = 8 + (picks.len() % span) as u32;
        if let Some(p) = pos.iter().find(|p| p.board.empties() == want) {
            picks.push(p.board);
        }
    }
    let solved = solve_exact(&picks);
    eprintln!(
        "measure: solved {} held-out positions in {:.1} s",
        solved.len(),
        t.elapsed().as_secs_f64()
    );
    solved
}

/// Mean absolute error by empties band: static and engine at `depth`, for
/// each set and evaluation.
fn write_accuracy(
    out: &mut impl Write,
    sets: &[(String, Vec<Exact>)],
    evals: &Evals<'_>,
    d: u32,
) -> ToolResult {
    for (name, set) in sets {
        for &(ename, e) in evals {
            let st = mae_bands(set, 4, |b| e.evaluate(b));
            let engine_scores = engine_depth_scores(e, set, d);
            let by_board: std::collections::HashMap<_, _> = set
                .iter()
                .zip(&engine_scores)
                .map(|(x, &v)| (x.board, v))
                .collect();
            let en = mae_bands(set, 4, |b| by_board[b]);
            writeln!(
                out,
                "{name} ({} positions), {ename} evaluation: MAE in discs",
                set.len()
            )?;
            writeln!(out, "  empties   count   static  engine-depth-{d}")?;
            for (x, z) in st.iter().zip(&en) {
                let label = if x.1 == 64 {
                    "all".to_string()
                } else {
                    format!("{}-{}", x.0, x.1)
                };
                writeln!(out, "  {label:7} {:6} {:8.2} {:15.2}", x.2, x.3, z.3)?;
            }
        }
    }
    Ok(())
}

/// Speed: evaluations per second (one thread), on the positions of the
/// first two sets (the engine's speed is [`write_engine_speed`]'s).
fn write_speed(
    out: &mut impl Write,
    sets: &[(String, Vec<Exact>)],
    evals: &Evals<'_>,
) -> ToolResult {
    let mid: Vec<_> = sets[0]
        .1
        .iter()
        .chain(&sets[1].1)
        .map(|x| x.board)
        .collect();
    for &(ename, e) in evals {
        let t = Instant::now();
        let mut s = 0i64;
        let mut n = 0u64;
        while t.elapsed().as_secs_f64() < 1.0 {
            for b in &mid {
                s += e.evaluate(std::hint::black_box(b)) as i64;
            }
            n += mid.len() as u64;
        }
        std::hint::black_box(s);
        let evs = n as f64 / t.elapsed().as_secs_f64();
        writeln!(out, "{ename}: {:.2} M evaluations/s (1 thread)", evs / 1e6)?;
    }
    Ok(())
}

/// Midgame speed of the engine (one thread), positions after XOT openings.
fn write_engine_speed(
    out: &mut impl Write,
    evals: &Evals<'_>,
    openings: &[Position],
    depth: u32,
) -> ToolResult {
    for &(ename, e) in evals {
        let (tx, _) = crossbeam_channel::unbounded();
        let mut eng = crate::engine::Engine::new(tx);
        eng.set_evaluator(e.clone());
        let (mut nodes, mut secs) = (0u64, 0f64);
        for b in openings.iter().take(20) {
            eng.new_game();
            let limits = crate::search::Limits {
                depth: Some(depth),
                ..Default::default()
            };
            let (_, n, t) = engine_search(&mut eng, b, limits);
            nodes += n;
            secs += t;
        }
        writeln!(
            out,
            "{ename}: engine depth {} on 20 XOT positions: {nodes} nodes, {:.2} s, {:.2} M nodes/s (1 thread)",
            depth,
            secs,
            nodes as f64 / secs.max(1e-9) / 1e6
        )?;
    }
    Ok(())
}

/// The match of the two evaluations inside the engine, at a movetime.
fn write_engine_match(
    out: &mut impl Write,
    a: &MeasureArgs,
    evals: &Evals<'_>,
    openings: &[Position],
) -> ToolResult {
    let t = Instant::now();
    let limits = crate::search::Limits {
        movetime: Some(std::time::Duration::from_millis(a.movetime_ms)),
        ..Default::default()
    };
    let r = play_match(
        evals[0].1,
        evals[1].1,
        &openings[..a.games.min(openings.len())],
        |_: &Position| limits.clone(),
    )?;
    writeln!(
        out,
        "engine match pattern vs baseline, {} games (XOT, colours swapped), {} ms/move: {} ({:.0} s)",
        r.games(),
        a.movetime_ms,
        r.summary(),
        t.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Matches against the GTP engine `program` from XOT openings.
fn write_gtp_matches(
    out: &mut impl Write,
    a: &MeasureArgs,
    evals: &Evals<'_>,
    xot: &str,
    program: &str,
) -> ToolResult {
    let rules = crate::rules::RuleSet::default();
    let mut lines = Vec::new();
    for line in xot
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(a.gtp_games)
    {
        let (_, moves) = Position::start(&rules)
            .play_transcript(line.trim(), &rules)
            .map_err(|_| ToolError::BadLine {
                path: a.data.join(XOT_SMALL),
                line: line.to_string(),
            })?;
        lines.push(moves);
    }
    let t = Instant::now();
    let limits = crate::search::Limits {
        movetime: Some(std::time::Duration::from_millis(a.gtp_movetime_ms)),
        ..Default::default()
    };
    let players = if a.gtp_pattern_only {
        &evals[..1]
    } else {
        &evals[..]
    };
    for &(ename, e) in players {
        let (r, per_move) = crate::train::measure::gtp_match(program, e, &lines, &limits)?;
        writeln!(
            out,
            "{ename} vs {program}, {} games (XOT, colours swapped), annex {} ms/move, {program} {:.0} ms/move on average: {} ({:.0} s)",
            r.games(),
            a.gtp_movetime_ms,
            per_move * 1000.0,
            r.summary(),
            t.elapsed().as_secs_f64()
        )?;
    }
    Ok(())
}

/// The fixed-depth match of the two evaluations (the engine at a depth,
/// solving exactly near the end).
fn write_depth_match(
    out: &mut impl Write,
    a: &MeasureArgs,
    evals: &Evals<'_>,
    openings: &[Position],
) -> ToolResult {
    let t = Instant::now();
    let n = a.games.min(openings.len());
    let r = play_match(
        evals[0].1,
        evals[1].1,
        &openings[..n],
        depth_limits(a.match_depth, a.match_solve),
    )?;
    writeln!(
        out,
        "match pattern vs baseline, {} games (XOT, colours swapped), depth {}, solved from {} empties: {} ({:.0} s)",
        r.games(),
        a.match_depth,
        a.match_solve,
        r.summary(),
        t.elapsed().as_secs_f64()
    )?;
    Ok(())
}
