//! The `annex` executable: with no subcommand it speaks the engine
//! protocols on stdin/stdout; subcommands are command-line tools.

use annex::book::build::BuildOptions;
use annex::perft::{Convention, PerftOptions, divide};
use annex::position::Position;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use annex::train::cli as train_tool;

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
    Solo(annex::solo::cli::SoloArgs),
    /// Solve the positions of an OBF file exactly (or WLD) and check them.
    Solve(annex::solve::SolveArgs),
    /// Search fixed positions at a fixed depth: the node-count signature.
    Bench(annex::bench::BenchArgs),
    /// Train the pattern evaluation from game records.
    Train(train_tool::TrainArgs),
    /// Measure an evaluation: accuracy, speed, self-play strength.
    EvalMeasure(train_tool::MeasureArgs),
    /// Play engine-versus-engine games (UCI-style, NBoard or GTP engines).
    Match(annex::matchplay::cli::MatchArgs),
    /// Analyse positions for scripts: one JSON object per line.
    Analyze(annex::analyze::cli::AnalyzeArgs),
}

#[derive(Subcommand)]
enum BookCommand {
    /// Build a book from WTHOR game files.
    Build {
        /// Output file.
        #[arg(long, default_value = "book/annex.book")]
        out: PathBuf,
        /// Plies of each game taken into the book.
        #[arg(long, default_value_t = 20)]
        plies: usize,
        /// Games a move needs to enter the book.
        #[arg(long, default_value_t = 4)]
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
    /// Depth in plies.
    depth: u32,
    /// Print the count below each move.
    #[arg(long)]
    divide: bool,
    /// Pass convention: oeis, carry or nopass.
    #[arg(long, default_value = "oeis")]
    convention: String,
    /// Threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Count table size in MiB.
    #[arg(long, default_value_t = 256)]
    hash: usize,
    /// Start from this board: "<64 chars> <X|O>".
    #[arg(long, allow_hyphen_values = true)]
    board: Option<String>,
    /// Then play this transcript.
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    #[command(flatten)]
    rules: annex::cli::RuleFlags,
}

fn run_perft(a: &PerftArgs) -> Result<(), String> {
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
        threads: a.threads.max(1),
        hash_mb: a.hash.max(1),
    };
    let total = if depth == 0 {
        1
    } else if pos.is_game_over(&rules) {
        annex::perft::perft_with(&pos.board, &rules, depth, opt)
    } else {
        let parts = divide(&pos.board, &rules, depth, opt);
        if a.divide {
            for (m, n) in &parts {
                println!("{m} {n}");
            }
        }
        parts.iter().map(|x| x.1).sum()
    };
    let s = t.elapsed().as_secs_f64();
    println!(
        "{total} leaves, depth {depth}, {conv}, {s:.3} s, {:.0} leaves/s",
        total as f64 / s.max(1e-9)
    );
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
    let result = match cli.command {
        None => run_protocol(cli.protocol.as_deref()),
        Some(Command::Perft(a)) => run_perft(&a),
        Some(Command::Book(BookCommand::Build {
            out,
            plies,
            min_games,
            files,
        })) => annex::book::cli::build(&files, BuildOptions { plies, min_games }, &out)
            .map(|s| println!("{s}")),
        Some(Command::Book(BookCommand::Show { file, moves })) => {
            annex::book::cli::show(file.as_deref(), &moves).map(|s| println!("{s}"))
        }
        Some(Command::Solo(a)) => annex::solo::cli::run(&a),
        Some(Command::Solve(a)) => annex::solve::run(&a),
        Some(Command::Bench(a)) => annex::bench::run(&a).map(|_| ()),
        Some(Command::Train(a)) => train_tool::run(&a),
        Some(Command::EvalMeasure(a)) => train_tool::measure(&a),
        Some(Command::Match(a)) => annex::matchplay::cli::run(&a),
        Some(Command::Analyze(a)) => annex::analyze::cli::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("annex: error: {e}");
            ExitCode::from(2)
        }
    }
}
