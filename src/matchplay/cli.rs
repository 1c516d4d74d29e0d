//! `annex match`: engine-versus-engine games, cutechess-like. The logic is
//! in [`crate::matchplay`]; this file maps the command line onto it and
//! prints the final report on stdout (progress goes to stderr).

use crate::cli::{RuleFlags, ToolError, ToolResult};
use crate::matchplay::openings::parse_openings;
use crate::matchplay::stats::{ScoreLines, Sprt, Wld};
use crate::matchplay::tournament::run_match;
use crate::matchplay::{EngineSpec, MAX_DEPTH, MAX_MOVETIME_MS, parse_tc};
use crate::matchplay::{MatchConfig, MatchError};
use std::path::PathBuf;
use std::time::Duration;

/// Most games per pair.
const MAX_GAMES: i64 = 1_000_000;
/// Most games at once.
const MAX_CONCURRENCY: i64 = 256;
/// Longest `--timemargin`, ms.
const MAX_MARGIN_MS: u64 = 60_000;
/// Longest `--hang`, seconds.
const MAX_HANG_S: u64 = 86_400;

/// Arguments of `annex match`.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// An engine: `[name=][uci:|nboard:|gtp:]<command>` (at least two).
    /// Without a prefix the protocol is detected by handshake.
    #[arg(long = "engine", required = true)]
    engines: Vec<String>,
    /// Per-engine setting `NAME:KEY=VALUE`: KEY is depth, nodes, movetime
    /// (ms) or tc to override the limits, anything else is an engine option
    /// (UCI setoption, NBoard `set`, a GTP command).
    #[arg(long = "engine-opt", value_name = "NAME:KEY=VALUE")]
    engine_opts: Vec<String>,
    /// Games per pair of engines (each opening is played twice, colours
    /// swapped; 1-1000000).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=MAX_GAMES))]
    games: u32,
    /// Openings file: one transcript (XOT lists) or board string per line.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Pick openings pseudo-randomly with this seed (default: in file order).
    #[arg(long)]
    seed: Option<u64>,
    /// Time control per game and side: base+increment in seconds (`10+0.1`).
    #[arg(long)]
    tc: Option<String>,
    /// Fixed depth per move (1-60).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_DEPTH)))]
    depth: Option<u32>,
    /// Fixed nodes per move (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Fixed time per move in milliseconds (1 ms to 24 h).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_MOVETIME_MS))]
    movetime: Option<u64>,
    /// Games played at once (1-256).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_CONCURRENCY))]
    concurrency: u32,
    /// Folder where every game is saved (games.txt + GGF, settings in
    /// match.txt); a match whose games are already there is resumed, with
    /// the same settings only.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Stop early on an SPRT verdict: `elo0,elo1,alpha,beta` (two engines).
    #[arg(long)]
    sprt: Option<String>,
    /// Milliseconds allowed beyond the clock or movetime before a forfeit
    /// (0-60000).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=MAX_MARGIN_MS))]
    timemargin: u64,
    /// Seconds a move may take under depth or node limits before the
    /// engine is declared hung (1-86400).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=MAX_HANG_S))]
    hang: u64,
    #[command(flatten)]
    rules: RuleFlags,
}

fn config(a: &MatchArgs) -> ToolResult<MatchConfig> {
    let rules = a.rules.rules();
    let mut engines = a
        .engines
        .iter()
        .map(|s| EngineSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    // Default names taken from the program may clash: number them.
    for i in 0..engines.len() {
        if engines[..i].iter().any(|e| e.name == engines[i].name) {
            let base = engines[i].name.clone();
            let mut k = 2;
            while engines.iter().any(|e| e.name == format!("{base}-{k}")) {
                k += 1;
            }
            engines[i].name = format!("{base}-{k}");
        }
    }
    let tc = a.tc.as_deref().map(parse_tc).transpose()?;
    for e in &mut engines {
        e.limit.depth = a.depth;
        e.limit.nodes = a.nodes;
        e.limit.movetime = a.movetime.map(Duration::from_millis);
        e.limit.tc = tc;
    }
    for o in &a.engine_opts {
        let bad = || {
            ToolError::Usage(format!(
                "invalid --engine-opt '{o}' (expected NAME:KEY=VALUE)"
            ))
        };
        let (name, kv) = o.split_once(':').ok_or_else(bad)?;
        let (k, v) = kv.split_once('=').ok_or_else(bad)?;
        let e = engines.iter_mut().find(|e| e.name == name).ok_or_else(|| {
            ToolError::Usage(format!("--engine-opt '{o}': no engine named '{name}'"))
        })?;
        e.set(k.trim(), v.trim())?;
    }
    if let Some(e) = engines.iter().find(|e| e.limit.is_empty()) {
        return Err(ToolError::Usage(format!(
            "engine {} has no limit: give --tc, --depth, --nodes or --movetime (or --engine-opt {}:depth=N)",
            e.name, e.name
        )));
    }
    let openings = match &a.openings {
        Some(p) => {
            let text = crate::fileio::read_string_bounded(p, crate::fileio::MAX_TEXT_BYTES)
                .map_err(|e| MatchError::io("read", p, e))?;
            let o = parse_openings(&text, &rules)?;
            if o.is_empty() {
                return Err(MatchError::NoOpenings(p.clone()).into());
            }
            o
        }
        None => Vec::new(),
    };
    let sprt = a.sprt.as_deref().map(str::parse::<Sprt>).transpose()?;
    if sprt.is_some() && engines.len() != 2 {
        return Err(ToolError::Usage("--sprt needs exactly two engines".into()));
    }
    Ok(MatchConfig {
        engines,
        rules,
        games: a.games as usize,
        openings,
        seed: a.seed,
        concurrency: a.concurrency as usize,
        out: a.out.clone(),
        sprt,
        margin: Duration::from_millis(a.timemargin),
        hang: Duration::from_secs(a.hang),
    })
}

/// Runs `annex match`.
///
/// # Errors
/// Bad arguments, or a match that cannot be run (see
/// [`crate::matchplay::tournament::run_match`]).
pub fn run(a: &MatchArgs) -> ToolResult {
    let cfg = config(a)?;
    let report = run_match(&cfg, &mut |l| eprintln!("{l}"))?;
    for p in &report.pairs {
        println!(
            "{}",
            ScoreLines {
                a: &p.a,
                b: &p.b,
                r: p.wld
            }
        );
    }
    if report.pairs.len() > 1 {
        // Round robin: each engine's results against all the others.
        let mut totals: Vec<(String, Wld)> = cfg
            .engines
            .iter()
            .map(|e| (e.name.clone(), Wld::default()))
            .collect();
        for p in &report.pairs {
            for (name, w) in [(&p.a, p.wld), (&p.b, p.wld.flipped())] {
                if let Some(t) = totals.iter_mut().find(|t| &t.0 == name) {
                    t.1.wins += w.wins;
                    t.1.losses += w.losses;
                    t.1.draws += w.draws;
                }
            }
        }
        totals.sort_by(|x, y| y.1.score().total_cmp(&x.1.score()));
        println!("Rank Name                 Elo    +/-  Games   Score");
        for (i, (name, w)) in totals.iter().enumerate() {
            let (elo, margin) = w.elo_columns();
            println!(
                "{:4} {:<18} {:>6} {:>6} {:6} {:6.1}%",
                i + 1,
                name,
                elo,
                margin,
                w.games(),
                100.0 * w.score()
            );
        }
    }
    let mut forfeits: Vec<String> = Vec::new();
    for g in &report.games {
        if g.end != crate::record::game_record::Termination::Normal {
            forfeits.push(format!(
                "game {}: {} ({})",
                g.number,
                g.end.as_str(),
                g.reason
            ));
        }
    }
    if !forfeits.is_empty() {
        println!("Forfeits: {}", forfeits.len());
        for f in forfeits {
            println!("  {f}");
        }
    }
    if let (Some(s), Some(p)) = (cfg.sprt, report.pairs.first()) {
        println!("{}", s.report(&p.wld));
    }
    Ok(())
}
