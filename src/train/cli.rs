//! `annex train`: command-line front end of [`crate::train`].

use crate::cli::{ToolError, ToolResult, args};
use crate::eval::pattern::FeatureSet;
use crate::eval::{Weights, WeightsError};
use crate::train::fit::FitConfig;
use crate::train::{TrainConfig, train};
use std::path::{Path, PathBuf};

/// Arguments of `annex train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Data folder (holds wthor/ and logistello/; default `$ANNEX_DATA`,
    /// else the repository's `data`, which has no logistello/).
    #[arg(long, default_value_os_t = crate::datadir::default_dir())]
    data: PathBuf,
    /// Output weights file (required, so that the shipped
    /// `weights/annex.eval` is replaced only on purpose; written whole or
    /// not at all).
    #[arg(long, short)]
    out: PathBuf,
    /// Sources, comma-separated: wthor, logbook.
    #[arg(long, default_value = "wthor,logbook")]
    sources: String,
    /// Use at most this many games per source (0 = all).
    #[arg(long, default_value_t = 0)]
    max_games: usize,
    /// Percentage of games held out from training (0-99).
    #[arg(long, default_value_t = 5, value_parser = args::holdout_percent())]
    holdout: u64,
    /// Seed of the held-out split.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Features: patterns, mobility (patterns + mobility), extended
    /// (mobility + three more corner patterns) or potential (mobility +
    /// potential mobility); see docs/evaluation.md.
    #[arg(long, default_value = "mobility")]
    features: String,
    /// Gradient-descent epochs per stage (at least 1).
    #[arg(long, default_value_t = 50, value_parser = args::positive_usize())]
    epochs: usize,
    /// L2 regularisation (0-1000).
    #[arg(long, default_value_t = 2.0, value_parser = args::real32(0.0, 1000.0))]
    lambda: f32,
    /// Step size (above 0, at most 100).
    #[arg(long, default_value_t = 0.05, value_parser = args::real32(f32::MIN_POSITIVE, 100.0))]
    rate: f32,
    /// Solve positions with at most this many empties exactly for labels (0 = off; 0-60).
    #[arg(long, default_value_t = 0, value_parser = args::depth_or_off())]
    solve_empties: u32,
    /// Self-play data files (`annex datagen`, complete ones unless
    /// --allow-partial; at most 64 GiB each) to train on besides the
    /// sources; their games are held out by game index (--holdout, --seed).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    datagen: Vec<PathBuf>,
    /// Read incomplete self-play files too (an interrupted `annex
    /// datagen`, a partial merge, files of the format without a
    /// completeness marker); they are refused otherwise.
    #[arg(long)]
    allow_partial: bool,
    /// Weight of the engine's search score in the label of an unsolved
    /// self-play position (0-1; the rest is the game's play-out result).
    #[arg(long, default_value_t = 0.0, value_parser = args::real32(0.0, 1.0))]
    datagen_search_weight: f32,
    /// Weight of a source's samples in the fit, NAME=W with NAME wthor,
    /// logbook or datagen and W in 0-100 (default 1 each; repeatable).
    #[arg(long, value_name = "NAME=W")]
    source_weight: Vec<String>,
    /// More OBF files whose positions (and symmetric images) are never
    /// trained on (repeatable), besides the FFO suites and hard-20.
    #[arg(long, value_name = "FILE")]
    exclude: Vec<PathBuf>,
    /// Do not exclude the FFO suites and hard-20 from training.
    #[arg(long)]
    no_default_exclude: bool,
    /// Stages of the evaluation: 16, 32 or 64 (4, 2 or 1 empties a stage).
    #[arg(long, default_value_t = 16, value_parser = stage_count)]
    stages: usize,
    /// Empties of each neighbouring stage also trained on by a stage
    /// (smoothing across stages; 0-8).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(0..=8))]
    margin: u32,
    /// With `--stages 64`: each stage trains only on positions of its own
    /// parity of empties (odd and even positions get separate weights).
    #[arg(long)]
    same_parity: bool,
    /// Start from these weights (the same features and stages) and
    /// regularise towards them instead of towards zero: a fine-tune that
    /// keeps what their own training data taught where the new data is thin.
    /// A regular file of at most 256 MiB.
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Worker threads, 1-256 (stages are fitted in parallel).
    #[arg(long, default_value_t = 2, value_parser = args::threads())]
    threads: usize,
}

/// Parses `--stages`.
fn stage_count(s: &str) -> Result<usize, TrainArgsError> {
    s.parse::<usize>()
        .ok()
        .filter(|n| crate::eval::pattern::STAGE_COUNTS.contains(n))
        .ok_or_else(|| TrainArgsError::StageCount(s.to_string()))
}

/// Arguments of `annex train` that do not fit the run.
#[derive(Debug, thiserror::Error)]
pub enum TrainArgsError {
    /// A `--stages` value that is not a stage count.
    #[error("'{0}' is not a stage count (16, 32 or 64)")]
    StageCount(String),
    /// An unknown `--features` name.
    #[error("unknown feature set '{0}' (patterns, mobility, extended or potential)")]
    FeatureSet(String),
    /// `--same-parity` without one stage an empty.
    #[error("--same-parity needs --stages 64 (one stage an empty)")]
    SameParity,
    /// An unknown name in `--sources`.
    #[error("unknown source '{0}' (wthor, logbook)")]
    Source(String),
    /// A bad `--source-weight`.
    #[error(transparent)]
    SourceWeight(#[from] SourceWeightError),
    /// An `--init` file that cannot be read.
    #[error("--init: cannot read {}: {source}", path.display())]
    InitRead {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An `--init` file that holds no weights.
    #[error("--init: {}: {source}", path.display())]
    InitWeights {
        /// The file.
        path: PathBuf,
        /// Why.
        source: WeightsError,
    },
    /// `--init` weights of other features or stages than the run's.
    #[error(
        "--init: {} holds {set:?} weights of {stages} stages, not {want_set:?} of {want_stages} (--features, --stages)",
        path.display()
    )]
    InitShape {
        /// The file.
        path: PathBuf,
        /// Its features.
        set: FeatureSet,
        /// Its stages.
        stages: usize,
        /// The run's features.
        want_set: FeatureSet,
        /// The run's stages.
        want_stages: usize,
    },
}

/// A `--source-weight` value that is not `NAME=W`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SourceWeightError {
    /// No `=`.
    #[error("bad --source-weight '{0}' (NAME=W, e.g. datagen=2)")]
    Syntax(String),
    /// A name that is not a source.
    #[error("unknown source '{0}' in --source-weight (wthor, logbook or datagen)")]
    UnknownSource(String),
    /// A weight that is not a number in 0-100.
    #[error("bad weight '{0}' in --source-weight (a number in 0-100)")]
    Weight(String),
}

/// Parses `--source-weight NAME=W` values into per-source weights.
///
/// # Errors
/// An unknown name or a weight that is not a number in 0-100.
pub fn source_weights(
    specs: &[String],
) -> Result<[f32; crate::train::fit::N_SOURCES], SourceWeightError> {
    use crate::train::fit::SOURCE_NAMES;
    let mut w = [1.0; crate::train::fit::N_SOURCES];
    for spec in specs {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| SourceWeightError::Syntax(spec.clone()))?;
        let i = SOURCE_NAMES
            .iter()
            .position(|n| *n == name.trim())
            .ok_or_else(|| SourceWeightError::UnknownSource(name.to_string()))?;
        w[i] = value
            .trim()
            .parse::<f32>()
            .ok()
            .filter(|x| (0.0..=100.0).contains(x))
            .ok_or_else(|| SourceWeightError::Weight(value.to_string()))?;
    }
    Ok(w)
}

/// The largest `--init` weights file read: 256 MiB (the shipped weights,
/// 16 stages, are 3.6 MB; 64 stages of the largest feature set stay far
/// below).
const MAX_INIT_BYTES: u64 = 256 << 20;

/// The weights of `--init`, which must have the run's features and stages.
fn init_weights(path: &Path, set: FeatureSet, stages: usize) -> Result<Weights, TrainArgsError> {
    let path_buf = || path.to_path_buf();
    let bytes = crate::fileio::read_bounded(path, MAX_INIT_BYTES).map_err(|source| {
        TrainArgsError::InitRead {
            path: path_buf(),
            source,
        }
    })?;
    let w = Weights::from_bytes(&bytes).map_err(|source| TrainArgsError::InitWeights {
        path: path_buf(),
        source,
    })?;
    if w.set != set || w.stages != stages {
        return Err(TrainArgsError::InitShape {
            path: path_buf(),
            set: w.set,
            stages: w.stages,
            want_set: set,
            want_stages: stages,
        });
    }
    Ok(w)
}

/// Runs `annex train`.
///
/// # Errors
/// Bad arguments, unreadable data or evaluation, a weights file that
/// cannot be written.
pub fn run(a: &TrainArgs) -> ToolResult {
    let set = match a.features.as_str() {
        "patterns" => FeatureSet::Patterns,
        "mobility" => FeatureSet::PatternsMobility,
        "extended" => FeatureSet::Extended,
        "potential" => FeatureSet::PatternsPotential,
        f => return Err(TrainArgsError::FeatureSet(f.to_string()).into()),
    };
    if a.same_parity && a.stages != 64 {
        return Err(TrainArgsError::SameParity.into());
    }
    let prior = a
        .init
        .as_deref()
        .map(|p| init_weights(p, set, a.stages))
        .transpose()?;
    let mut cfg = TrainConfig {
        data_dir: a.data.clone(),
        wthor: false,
        logbook: false,
        max_games: a.max_games,
        holdout_percent: a.holdout,
        seed: a.seed,
        solve_empties: a.solve_empties,
        datagen: a.datagen.clone(),
        datagen_search_weight: a.datagen_search_weight,
        datagen_allow_partial: a.allow_partial,
        exclude: if a.no_default_exclude {
            Vec::new()
        } else {
            crate::train::exclude::default_files(&a.data)
        },
        fit: FitConfig {
            set,
            epochs: a.epochs,
            lambda: a.lambda,
            rate: a.rate,
            source_weights: source_weights(&a.source_weight).map_err(TrainArgsError::from)?,
            stages: a.stages,
            margin: a.margin,
            same_parity: a.same_parity,
            prior: prior.map(std::sync::Arc::new),
            ..FitConfig::default()
        },
    };
    cfg.exclude.extend(a.exclude.iter().cloned());
    for s in a.sources.split(',').map(str::trim) {
        match s {
            "wthor" => cfg.wthor = true,
            "logbook" => cfg.logbook = true,
            "" => {}
            s => return Err(TrainArgsError::Source(s.to_string()).into()),
        }
    }
    let mut needed = Vec::new();
    if cfg.wthor {
        needed.push("wthor");
    }
    if cfg.logbook {
        needed.push("logistello/logbook.gam.gz");
    }
    if !a.no_default_exclude {
        needed.extend(crate::train::exclude::DEFAULT_FILES);
    }
    crate::datadir::check(&a.data, &needed)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    let report = pool.install(|| train(&cfg))?;
    crate::fileio::write_bytes_atomic(&a.out, &report.weights.to_bytes()).map_err(|source| {
        ToolError::Write {
            path: a.out.clone(),
            source,
        }
    })?;
    eprintln!(
        "train: wrote {} ({} games trained, {} held out; {} training positions dropped as excluded test positions)",
        a.out.display(),
        report.games.0,
        report.games.1,
        report.excluded
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::source_weights;

    #[test]
    fn stage_counts_are_16_32_or_64() {
        assert_eq!(super::stage_count("32").unwrap(), 32);
        for bad in ["30", "0", "x", "-16"] {
            assert!(
                super::stage_count(bad)
                    .unwrap_err()
                    .to_string()
                    .contains("16, 32 or 64")
            );
        }
    }

    #[test]
    fn source_weights_parse_and_refuse_bad_specs() {
        let w = source_weights(&["datagen=2.5".into(), " wthor = 0".into()]).unwrap();
        assert_eq!(w, [0.0, 1.0, 2.5]);
        assert_eq!(source_weights(&[]).unwrap(), [1.0; 3]);
        for bad in ["datagen", "games=1", "logbook=-1", "logbook=x", "wthor=101"] {
            let e = source_weights(&[bad.into()]).unwrap_err().to_string();
            assert!(e.contains("--source-weight"), "{bad}: {e}");
        }
    }
}
