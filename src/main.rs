//! The `annex` executable: with no subcommand it speaks the engine
//! protocols on stdin/stdout; subcommands are command-line tools.

use annex::cli::{CONFIG_VAR, ToolError, ToolResult};
use annex::engine::{OPTIONS, OptionKind};
use annex::search::{Config, ConfigError};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use annex::train::cli as train_tool;

#[derive(Parser)]
#[command(
    name = "annex",
    version,
    about = "Annex, an Othello/Reversi engine",
    long_about = "Annex, an Othello/Reversi engine. Without a subcommand it speaks the engine \
                  protocols (UCI-style, NBoard, GTP) on stdin/stdout; `annex serve` opens a board \
                  in the browser to play and analyse."
)]
struct Cli {
    /// Protocol of the engine loop: uci, nboard or gtp (default: chosen by
    /// the first command).
    #[arg(long)]
    protocol: Option<annex::protocol::Protocol>,
    /// An engine option set before the first command, as `NAME=VALUE`
    /// (repeatable; e.g. `--option Tie=second --option Hash=256`): for GUIs
    /// that cannot send options, such as NBoard's. `--help` lists them.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the game tree.
    Perft(annex::cli::perft::PerftArgs),
    /// Build or query the opening book.
    #[command(subcommand)]
    Book(annex::cli::book::BookCommand),
    /// The solo puzzle: play dealt games with a player, or interactively.
    Solo(annex::solo::cli::SoloArgs),
    /// Solve the positions of an OBF file exactly (or WLD) and check them.
    Solve(annex::solve::SolveArgs),
    /// Search fixed positions at a fixed depth: the node-count signature.
    Bench(annex::bench::BenchArgs),
    /// Self-play training data: engine games with exact endgames, in shards.
    Datagen(annex::datagen::cli::DatagenArgs),
    /// Train the pattern evaluation from game records.
    Train(train_tool::TrainArgs),
    /// Measure an evaluation: accuracy, speed, self-play strength.
    EvalMeasure(annex::train::measure_cli::MeasureArgs),
    /// Play engine-versus-engine games (UCI-style, NBoard or GTP engines).
    Match(annex::matchplay::cli::MatchArgs),
    /// Analyse positions for scripts: one JSON object per line.
    Analyze(annex::analyze::cli::AnalyzeArgs),
    /// A board in the browser: play and analyse on a local web page.
    Serve(annex::serve::ServeArgs),
}

fn run_protocol(forced: Option<annex::protocol::Protocol>, options: &[String]) -> ToolResult {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut engine = annex::engine::Engine::new(tx);
    engine.set_config(env_config()?);
    for o in options {
        let (name, value) = o
            .split_once('=')
            .ok_or_else(|| ToolError::Usage(format!("--option '{o}': expected NAME=VALUE")))?;
        engine
            .set_option(name.trim(), value.trim())
            .map_err(|source| ToolError::EngineOption {
                given: o.clone(),
                source,
            })?;
    }
    Ok(annex::protocol::run(forced, engine, rx)?)
}

/// `--option`'s long help: the engine's options as its table defines them.
fn option_help() -> String {
    let list: Vec<String> = OPTIONS
        .iter()
        .map(|o| match o.kind {
            OptionKind::Spin { default, min, max } => {
                format!("{} ({min}-{max}, default {default})", o.name)
            }
            OptionKind::Check { default } => format!("{} (true/false, default {default})", o.name),
            OptionKind::String { default } => format!("{} (default {default})", o.name),
            OptionKind::Combo { vars } => format!("{} ({})", o.name, vars.join("|")),
        })
        .collect();
    format!(
        "An engine option set before the first command, as NAME=VALUE (repeatable; e.g. \
         `--option Tie=second --option Hash=256`): for GUIs that cannot send options, such as \
         NBoard's. The options: {}.",
        list.join(", ")
    )
}

/// The search tunables: the defaults, overridden by
/// `ANNEX_CONFIG=name=value,...` (a tuning aid for the protocol loop, and
/// so for engines under `match`, and for `solve`). A bad spec is an error:
/// a tuning run must not go on silently with the defaults. Read here, at
/// the binary's edge, and nowhere else.
fn env_config() -> Result<Config, ConfigError> {
    let mut c = Config::default();
    if let Ok(spec) = std::env::var(CONFIG_VAR) {
        c.apply(&spec)?;
        log::warn!("{CONFIG_VAR}: search tunables overridden: {spec}");
    }
    Ok(c)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let command = Cli::command().mut_arg("options", |a| a.long_help(option_help()));
    let cli = Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit());
    let result: ToolResult = match cli.command {
        None => {
            if std::io::stdin().is_terminal() {
                let _ = writeln!(
                    std::io::stderr(),
                    "Annex {}, an Othello/Reversi engine: type 'help' for the commands, 'quit' to leave; \
                     'annex --help' lists the tools, 'annex serve --open' shows a board in the browser.",
                    env!("CARGO_PKG_VERSION")
                );
            }
            run_protocol(cli.protocol, &cli.options)
        }
        Some(Command::Perft(a)) => annex::cli::perft::run(&a),
        Some(Command::Book(c)) => annex::cli::book::run(&c),
        Some(Command::Solo(a)) => annex::solo::cli::run(&a),
        Some(Command::Solve(a)) => match env_config() {
            Ok(c) => annex::solve::run(&a, &c),
            Err(e) => Err(ToolError::Config(e)),
        },
        Some(Command::Bench(a)) => {
            if std::env::var_os(CONFIG_VAR).is_some() {
                log::warn!("{CONFIG_VAR} is ignored: bench searches with the default tunables");
            }
            annex::bench::run(&a).map(|_| ())
        }
        Some(Command::Datagen(a)) => annex::datagen::cli::run_cli(&a),
        Some(Command::Train(a)) => train_tool::run(&a),
        Some(Command::EvalMeasure(a)) => annex::train::measure_cli::measure(&a),
        Some(Command::Match(a)) => annex::matchplay::cli::run(&a),
        Some(Command::Analyze(a)) => annex::analyze::cli::run(&a),
        Some(Command::Serve(a)) => annex::serve::run(&a),
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
