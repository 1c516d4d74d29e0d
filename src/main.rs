//! The `annex` executable: with no subcommand it speaks the engine
//! protocols on stdin/stdout; subcommands are command-line tools.

use annex::book::build::BuildOptions;
use annex::perft::{Convention, PerftOptions, divide};
use annex::position::Position;
use annex::tools::args;
use annex::tools::{ToolError, ToolResult, print_line};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use annex::tools::train as train_tool;

#[derive(Parser)]
#[command(name = "annex", version, about = "Annex, an Othello/Reversi engine")]
struct Cli {
    /// Protocol of the engine loop: uci, nboard or gtp (default: chosen by
    /// the first command).
    #[arg(long)]
    protocol: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the game tree.
    Perft(PerftArgs),
    /// Build or query the opening book.
    #[command(subcommand)]
    Book(BookCommand),
    /// The solo puzzle: play dealt games with a player, or interactively.
    Solo(annex::tools::solo::SoloArgs),
    /// Solve the positions of an OBF file exactly (or WLD) and check them.
    Solve(annex::tools::solve::SolveArgs),
    /// Search fixed positions at a fixed depth: the node-count signature.
    Bench(annex::tools::bench::BenchArgs),
    /// Train the pattern evaluation from game records.
    Train(train_tool::TrainArgs),
    /// Measure an evaluation: accuracy, speed, self-play strength.
    EvalMeasure(train_tool::MeasureArgs),
    /// Play engine-versus-engine games (UCI-style, NBoard or GTP engines).
    Match(annex::tools::match_::MatchArgs),
    /// Analyse positions for scripts: one JSON object per line.
    Analyze(annex::tools::analyze::AnalyzeArgs),
}

#[derive(Subcommand)]
enum BookCommand {
    /// Build a book from WTHOR game files.
    Build {
        /// Output file.
        #[arg(long, default_value = "book/annex.book")]
        out: PathBuf,
        /// Plies of each game taken into the book (1-60).
        #[arg(long, default_value_t = 20, value_parser = args::book_plies())]
        plies: usize,
        /// Games a move needs to enter the book (at least 1).
        #[arg(long, default_value_t = 4, value_parser = args::positive_u32())]
        min_games: u32,
        /// WTHOR files (.wtb).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Show the book moves after a transcript.
    Show {
        /// Book file (default: the embedded book).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Moves from the start position.
        #[arg(default_value = "")]
        moves: String,
    },
}

#[derive(clap::Args)]
struct PerftArgs {
    /// Depth in plies (0-20).
    #[arg(value_parser = args::perft_depth())]
    depth: u32,
    /// Print the count below each move.
    #[arg(long)]
    divide: bool,
    /// Pass convention: oeis, carry or nopass.
    #[arg(long, default_value = "oeis")]
    convention: String,
    /// Threads (1-256).
    #[arg(long, default_value_t = 1, value_parser = args::threads())]
    threads: usize,
    /// Count table size in MiB (1-65536).
    #[arg(long, default_value_t = 256, value_parser = args::hash_mb())]
    hash: usize,
    /// Start from this board: "<64 chars> <X|O>".
    #[arg(long, allow_hyphen_values = true)]
    board: Option<String>,
    /// Then play this transcript.
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    #[command(flatten)]
    rules: annex::tools::RuleFlags,
}

fn run_perft(a: &PerftArgs) -> ToolResult {
    let rules = a.rules.rules()?;
    let conv: Convention = a.convention.parse()?;
    let mut pos = match &a.board {
        Some(b) => b.parse::<Position>().map_err(|e| e.to_string())?,
        None => Position::start(&rules),
    };
    if let Some(m) = &a.moves {
        pos = pos.play_transcript(m, &rules).map_err(|e| e.to_string())?.0;
    }
    let depth = a.depth;
    let t = Instant::now();
    let opt = PerftOptions {
        convention: conv,
        threads: a.threads,
        hash_mb: a.hash,
    };
    let mut out = std::io::stdout().lock();
    let total = if depth == 0 {
        1
    } else if pos.is_game_over(&rules) {
        annex::perft::perft_with(&pos.board, &rules, depth, opt)
    } else {
        let parts = divide(&pos.board, &rules, depth, opt);
        if a.divide {
            for (m, n) in &parts {
                writeln!(out, "{m} {n}")?;
            }
        }
        parts.iter().map(|x| x.1).sum()
    };
    let s = t.elapsed().as_secs_f64();
    writeln!(
        out,
        "{total} leaves, depth {depth}, {conv}, {s:.3} s, {:.0} leaves/s",
        total as f64 / s.max(1e-9)
    )?;
    out.flush()?;
    Ok(())
}

fn run_protocol(forced: Option<&str>) -> Result<(), String> {
    let forced = forced
        .map(|p| p.parse::<annex::protocol::Protocol>())
        .transpose()?;
    annex::protocol::run(forced).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let result: ToolResult = match cli.command {
        None => run_protocol(cli.protocol.as_deref()).map_err(ToolError::from),
        Some(Command::Perft(a)) => run_perft(&a),
        Some(Command::Book(BookCommand::Build {
            out,
            plies,
            min_games,
            files,
        })) => annex::tools::book::build(&files, BuildOptions { plies, min_games }, &out)
            .map_err(ToolError::from)
            .and_then(|s| print_line(&s)),
        Some(Command::Book(BookCommand::Show { file, moves })) => {
            annex::tools::book::show(file.as_deref(), &moves)
                .map_err(ToolError::from)
                .and_then(|s| print_line(&s))
        }
        Some(Command::Solo(a)) => annex::tools::solo::run(&a),
        Some(Command::Solve(a)) => annex::tools::solve::run(&a),
        Some(Command::Bench(a)) => annex::tools::bench::run(&a).map(|_| ()),
        Some(Command::Train(a)) => train_tool::run(&a).map_err(ToolError::from),
        Some(Command::EvalMeasure(a)) => train_tool::measure(&a),
        Some(Command::Match(a)) => annex::tools::match_::run(&a).map_err(ToolError::from),
        Some(Command::Analyze(a)) => annex::tools::analyze::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): end quietly, as on SIGPIPE.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "annex: error: {e}");
            ExitCode::from(2)
        }
    }
}
