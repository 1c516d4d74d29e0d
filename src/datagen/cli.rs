//! `annex datagen`: the command line of [`crate::datagen`], and `annex
//! datagen merge`, which joins the shards of a run into the file of the
//! whole run (byte for byte what one unsharded run writes).

use super::format::Header;
use super::openings::{self, RandomRange};
use super::output::{Output, fingerprint};
use super::run::{run, shard_range};
use super::{Budget, DatagenError, Openings, Settings};
use crate::cli::{ToolError, ToolResult, args};
use crate::eval::Evaluator;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use super::merge::merge;

/// Arguments of `annex datagen`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct DatagenArgs {
    /// `merge`: join shards.
    #[command(subcommand)]
    pub command: Option<DatagenCommand>,
    /// The run's settings.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Subcommands of `annex datagen`.
#[derive(clap::Subcommand, Debug)]
pub enum DatagenCommand {
    /// Join the shard files of one run (in any order) into one file.
    Merge(MergeArgs),
    /// Write the game corpus (`.agc`: move lists with labels, a few bytes
    /// a position) of a complete data file.
    Corpus(CorpusArgs),
    /// Check that data files (`.adg` or `.agc`) hold no position of the
    /// match openings (both XOT lists, under the 8 symmetries); fails when
    /// one does.
    Overlap(OverlapArgs),
}

/// Arguments of `annex datagen corpus`.
#[derive(clap::Args, Debug)]
pub struct CorpusArgs {
    /// The corpus file (written whole or not at all).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Complete data files: one, or shards of one run that follow each
    /// other (the corpus covers their games).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Arguments of `annex datagen overlap`.
#[derive(clap::Args, Debug)]
pub struct OverlapArgs {
    /// Data folder (holds openings/xot/; default `$ANNEX_DATA`, else the
    /// repository's `data`).
    #[arg(long, default_value_os_t = crate::datadir::default_dir())]
    pub data: PathBuf,
    /// Read incomplete data files too.
    #[arg(long)]
    pub allow_partial: bool,
    /// Data files or corpora.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Arguments of `annex datagen merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The merged file (written whole or not at all).
    #[arg(long, short)]
    pub out: PathBuf,
    /// Merge incomplete shards (interrupted runs) and shards that leave
    /// games out too; the result is then marked incomplete.
    #[arg(long)]
    pub allow_partial: bool,
    /// The shard files: complete files of one run (at most 64 GiB each).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// Arguments of a data generation run.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Games in the whole run (all shards together; 1 to 2^32, the game
    /// index is a `u32`).
    #[arg(long, required = true, value_parser = clap::value_parser!(u64).range(1..=1 << 32))]
    pub games: Option<u64>,
    /// The output file (`.adg`). An unfinished file of the same run and
    /// shard is resumed; the file is locked while written.
    #[arg(long, short, required = true)]
    pub out: Option<PathBuf>,
    /// Seed: the run is a pure function of the seed and the settings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Play only shard I of N of the run (`0/1`: all): the games
    /// `[I*G/N, (I+1)*G/N)`.
    #[arg(long, default_value = "0/1", value_parser = parse_shard)]
    pub shard: (u64, u64),
    /// Search depth of each move before the solve (1-60).
    #[arg(long, default_value_t = 10, value_parser = args::depth(), conflicts_with = "nodes")]
    pub depth: u32,
    /// Search each move with this many nodes instead of a depth.
    #[arg(long, value_parser = args::positive_u64())]
    pub nodes: Option<u64>,
    /// Solve exactly (and play perfectly) from this many empties on (0 = never; 0-60).
    #[arg(long, default_value_t = 16, value_parser = args::depth_or_off())]
    pub solve_empties: u32,
    /// Openings: `xot` (the XOT list in the data folder, which the
    /// matches use too), `random` (the start position and a number of
    /// random moves drawn for each game from `--random-moves`; no match
    /// uses these openings) or a file of openings (transcripts or board
    /// strings, as for `annex match`).
    #[arg(long, default_value = "xot")]
    pub openings: String,
    /// Uniformly random moves after the opening: `N`, or with `--openings
    /// random` also a range `MIN-MAX` drawn from for each game (default:
    /// 2, or 10-30 with `--openings random`; at most 60).
    #[arg(long)]
    pub random_moves: Option<String>,
    /// Record the positions of the opening and of the random moves too
    /// (no search score; labelled with the game's result).
    #[arg(long)]
    pub keep_opening: bool,
    /// Worker threads, each playing its own games on one search thread (1-256).
    #[arg(long, default_value_t = 1, value_parser = args::threads())]
    pub threads: usize,
    /// Transposition table per worker in MiB (1-65536).
    #[arg(long, default_value_t = 16, value_parser = args::hash_mb())]
    pub hash: usize,
    /// Evaluation: a weights file of `annex train`, `embedded` or `simple`.
    #[arg(long, default_value = "embedded")]
    pub eval: String,
    /// Data folder (holds openings/xot/; default `$ANNEX_DATA`, else the
    /// repository's `data`).
    #[arg(long, default_value_os_t = crate::datadir::default_dir())]
    pub data: PathBuf,
    /// Also write the run's game corpus (`.agc`) to this file once the run
    /// is complete (see `annex datagen corpus`).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Seconds between progress lines on stderr (0 = none).
    #[arg(long, default_value_t = 5)]
    pub progress: u64,
}

/// A `--shard` value that is not `I/N` with `I < N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// No `/`.
    #[error("expected I/N (e.g. 3/100)")]
    Syntax,
    /// An index that is no number.
    #[error("bad shard index '{0}'")]
    Index(String),
    /// A count that is no number.
    #[error("bad shard count '{0}'")]
    Count(String),
    /// An index not below the count.
    #[error("shard {0}/{1}: need 0 <= I < N")]
    Range(u64, u64),
}

/// Parses `I/N` with `I < N`.
fn parse_shard(s: &str) -> Result<(u64, u64), ShardError> {
    let (i, n) = s.split_once('/').ok_or(ShardError::Syntax)?;
    let i: u64 = i
        .trim()
        .parse()
        .map_err(|_| ShardError::Index(i.to_string()))?;
    let n: u64 = n
        .trim()
        .parse()
        .map_err(|_| ShardError::Count(n.to_string()))?;
    if n == 0 || i >= n {
        return Err(ShardError::Range(i, n));
    }
    Ok((i, n))
}

/// Why `annex datagen` could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum DatagenCliError {
    /// An openings file that gives no openings.
    #[error(transparent)]
    Openings(#[from] openings::OpeningsError),
    /// A bad `--random-moves`.
    #[error(transparent)]
    RandomMoves(#[from] openings::RangeError),
    /// Data files that cannot become a corpus.
    #[error(transparent)]
    Corpus(#[from] super::corpus::ConvertError),
    /// A data file that cannot be read.
    #[error(transparent)]
    Read(#[from] super::format::FormatError),
    /// `annex datagen overlap`: data that holds match-opening positions.
    #[error("{0} training positions are match-opening positions")]
    Overlap(u64),
    /// Self-play stopped (the message names the output file).
    #[error("{}: {source}", path.display())]
    Run {
        /// The output file.
        path: PathBuf,
        /// Why.
        source: DatagenError,
    },
}

/// The XOT list under the data folder.
const XOT: &str = "openings/xot/openingslarge.txt";

/// A `--random-moves` count outside `--openings random` (no range).
fn fixed_random_moves(s: &str) -> Result<u32, DatagenCliError> {
    let r = RandomRange::parse(s)?;
    if r.min != r.max {
        return Err(openings::RangeError::NotFixed(s.to_string()).into());
    }
    Ok(r.min)
}

/// Reads the openings named by `--openings`.
fn load_openings(a: &RunArgs) -> ToolResult<Openings> {
    let path = match a.openings.as_str() {
        "random" => {
            let range = match &a.random_moves {
                Some(r) => RandomRange::parse(r).map_err(DatagenCliError::from)?,
                None => openings::DEFAULT,
            };
            return Ok(Openings::Random(range));
        }
        "xot" => {
            crate::datadir::check(&a.data, &[XOT])?;
            a.data.join(XOT)
        }
        p => PathBuf::from(p),
    };
    Ok(Openings::List(
        openings::read_lines(&path).map_err(DatagenCliError::from)?,
    ))
}

/// Runs `annex datagen` (or its `merge`).
///
/// # Errors
/// Bad arguments or files, or a failed write.
pub fn run_cli(a: &DatagenArgs) -> ToolResult {
    match &a.command {
        Some(DatagenCommand::Merge(m)) => return merge_cli(m),
        Some(DatagenCommand::Corpus(c)) => return corpus_cli(&c.inputs, &c.out),
        Some(DatagenCommand::Overlap(o)) => return overlap_cli(o),
        None => {}
    }
    let r = &a.run;
    let (Some(games), Some(out_path)) = (r.games, r.out.as_ref()) else {
        return Err(ToolError::Usage("--games and --out are required".into()));
    };
    let openings = load_openings(r)?;
    let settings = Settings {
        seed: r.seed,
        budget: r.nodes.map_or(Budget::Depth(r.depth), Budget::Nodes),
        solve_empties: r.solve_empties,
        random_moves: match &openings {
            Openings::Random(range) => range.min,
            _ => match &r.random_moves {
                Some(n) => fixed_random_moves(n)?,
                None => 2,
            },
        },
        hash_mb: r.hash,
        keep_opening: r.keep_opening,
        evaluator: Evaluator::from_file(&r.eval)?,
    };
    let range = shard_range(games, r.shard.0, r.shard.1);
    let header = Header {
        fingerprint: fingerprint(&settings, &openings),
        run_games: games,
        first: range.start,
        end: range.end,
        positions: 0,
        complete: false,
    };
    let output = Output::open(out_path, header)?;
    let name = out_path.display();
    let mut stdout = std::io::stdout().lock();
    let done = output.done;
    if output.complete {
        writeln!(
            stdout,
            "datagen: {name} already holds games {}..{} of {games}, complete: {} games, {} positions ({} solved)",
            range.start, range.end, done.games, done.positions, done.solved
        )?;
        drop(output);
        return r
            .corpus
            .as_ref()
            .map_or(Ok(()), |c| corpus_cli(std::slice::from_ref(out_path), c));
    }
    if output.next_game > range.start {
        eprintln!(
            "datagen: resuming {name} at game {} ({} games of {}..{} kept)",
            output.next_game, done.games, range.start, range.end
        );
    }
    let t = Instant::now();
    let progress = (r.progress > 0).then(|| Duration::from_secs(r.progress));
    let mut out = BufWriter::with_capacity(1 << 16, output.file());
    let sum = run(
        &settings,
        &openings,
        output.next_game..range.end,
        r.threads,
        &mut out,
        progress,
    )
    .and_then(|sum| {
        out.flush().map_err(DatagenError::Write)?;
        Ok(sum)
    })
    .map_err(|source| DatagenCliError::Run {
        path: out_path.clone(),
        source,
    })?;
    drop(out);
    let positions = done.positions + sum.positions;
    output
        .finish(positions)
        .map_err(|source| ToolError::Write {
            path: out_path.clone(),
            source,
        })?;
    writeln!(
        stdout,
        "datagen: games {}..{} of {games}: {} games, {} positions ({} solved) to {name} in {:.1} s",
        range.start,
        range.end,
        done.games + sum.games,
        positions,
        done.solved + sum.solved,
        t.elapsed().as_secs_f64()
    )?;
    drop(stdout);
    r.corpus
        .as_ref()
        .map_or(Ok(()), |c| corpus_cli(std::slice::from_ref(out_path), c))
}

/// Writes the corpus of the data file `input` to `out`.
fn corpus_cli(inputs: &[PathBuf], out: &Path) -> ToolResult {
    let (h, bytes) = super::corpus::convert(inputs, out).map_err(DatagenCliError::from)?;
    writeln!(
        std::io::stdout().lock(),
        "datagen corpus: games {}..{} of {}, {} positions, {bytes} bytes ({:.1} a game) to {}",
        h.first,
        h.end,
        h.run_games,
        h.positions,
        bytes as f64 / h.games().max(1) as f64,
        out.display()
    )?;
    Ok(())
}

/// Runs `annex datagen overlap`.
fn overlap_cli(o: &OverlapArgs) -> ToolResult {
    let files = super::disjoint::XOT_FILES;
    crate::datadir::check(&o.data, &files)?;
    let m = super::disjoint::MatchPositions::xot(&o.data).map_err(DatagenCliError::from)?;
    let mut stdout = std::io::stdout().lock();
    let mut shared = 0;
    for f in &o.inputs {
        let recs =
            super::format::read_file_with(f, o.allow_partial).map_err(DatagenCliError::from)?;
        let v = m.overlap(&recs);
        shared += v.shared;
        writeln!(
            stdout,
            "datagen overlap: {}: {} positions; {} are positions of the match openings ({} lines, 8 symmetries), in {} games",
            f.display(),
            v.positions,
            v.shared,
            m.lines,
            v.games
        )?;
    }
    if shared > 0 {
        return Err(DatagenCliError::Overlap(shared).into());
    }
    Ok(())
}

/// Runs `annex datagen merge`.
fn merge_cli(m: &MergeArgs) -> ToolResult {
    let (sum, complete) = merge(&m.inputs, &m.out, m.allow_partial)?;
    writeln!(
        std::io::stdout().lock(),
        "datagen merge: {} files, {} games, {} positions to {}{}",
        m.inputs.len(),
        sum.games,
        sum.positions,
        m.out.display(),
        if complete {
            ""
        } else {
            " (marked incomplete: partial inputs)"
        }
    )?;
    Ok(())
}
