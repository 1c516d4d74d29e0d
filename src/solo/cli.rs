//! `annex solo`: the solo puzzle of `RULES.md`.
//!
//! Batch mode plays `--games` dealt games (deal `seed`, `seed + 1`, …) with
//! a player and prints one line per game, then a summary line:
//!
//! ```text
//! game 1 seed 1: 23 tiles, variant 200, 56 moves, 0.160 s
//! …
//! mean 22.90 tiles, variant 190.10, over 10 games (mc, 32 rollouts, objective Tiles), 0.170 s/game
//! ```
//!
//! `--show` adds every move and the board after it. `--interactive` deals
//! one game (`--seed`) and reads commands from stdin: `x f4` / `o c5`
//! (colour and square), `stop`, `quit`, `hint`, `moves`, `board`, `help`.
//! A bad line gets one `error: …` line and changes nothing; end of input
//! ends the game cleanly. After the game is over each further line gets
//! one `error: …` line, until `quit` or the end of input.

use crate::bitboard::Squares;
use crate::cli::{ToolResult, args};
use crate::rules::{ParseRuleError, Start};
use crate::solo::player::{MonteCarlo, MonteCarloConfig, RandomPlayer, SoloPlayer, play_out};
use crate::solo::{
    Layout, LayoutError, MoveEffect, Objective, SoloError, SoloGame, SoloMove, SoloState,
};
use std::io::{BufRead, Write};
use std::time::Instant;

/// Arguments of `annex solo`.
#[derive(clap::Args, Clone, Debug)]
pub struct SoloArgs {
    /// Number of games to play (at least 1).
    #[arg(long, default_value_t = 10, value_parser = args::positive_u32())]
    pub games: u32,
    /// Seed of the first deal (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The 24 tile squares, e.g. "c1 f1 b2 …" (default: RULES.md's layout).
    #[arg(long)]
    pub layout: Option<String>,
    /// Centre discs: diagonal or parallel.
    #[arg(long, default_value = "diagonal")]
    pub start: String,
    /// Score by the variant (sum of numbers, doubled with all four blanks).
    #[arg(long)]
    pub variant: bool,
    /// Print every move and the board after it.
    #[arg(long)]
    pub show: bool,
    /// Player: mc (Monte-Carlo) or random.
    #[arg(long, default_value = "mc")]
    pub player: String,
    /// Sampled deals per legal move for the Monte-Carlo player (at least 1).
    #[arg(long, default_value_t = 32, value_parser = args::positive_u32())]
    pub rollouts: u32,
    /// Tiles taken off the Monte-Carlo estimate of a risky move (0-24).
    #[arg(long, default_value_t = 3.0, value_parser = args::real(0.0, 24.0))]
    pub risk_penalty: f64,
    /// Play one game yourself, reading moves from stdin.
    #[arg(long)]
    pub interactive: bool,
}

impl SoloArgs {
    fn objective(&self) -> Objective {
        if self.variant {
            Objective::Variant
        } else {
            Objective::Tiles
        }
    }

    fn layout(&self) -> Result<Layout, SoloCliError> {
        match &self.layout {
            Some(s) => Ok(s.parse()?),
            None => Ok(Layout::default()),
        }
    }

    fn new_game(&self, layout: &Layout, seed: u64) -> Result<SoloGame, SoloCliError> {
        let start: Start = self.start.parse()?;
        SoloGame::deal_with(layout, start, seed).map_err(SoloCliError::Deal)
    }

    fn player(&self, seed: u64) -> Result<Box<dyn SoloPlayer>, SoloCliError> {
        match self.player.to_ascii_lowercase().as_str() {
            "mc" => Ok(Box::new(MonteCarlo::new(MonteCarloConfig {
                rollouts: self.rollouts.max(1),
                objective: self.objective(),
                seed,
                risk_penalty: self.risk_penalty,
            }))),
            "random" => Ok(Box::new(RandomPlayer::new(seed))),
            p => Err(SoloCliError::Player(p.to_string())),
        }
    }
}

/// Runs `annex solo` on stdin/stdout.
///
/// # Errors
/// A bad layout or player name; an output error (`main` ends quietly on a
/// broken pipe).
pub fn run(a: &SoloArgs) -> ToolResult {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if a.interactive {
        interactive(std::io::stdin().lock(), &mut out, a)
    } else {
        batch(&mut out, a)
    }
}

/// Why `annex solo` cannot deal or play its games (an output error is a
/// [`crate::cli::ToolError::Output`]).
#[derive(Debug, thiserror::Error)]
pub enum SoloCliError {
    /// A `--layout` that is not 24 tile squares.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A `--start` that is no start of the puzzle.
    #[error(transparent)]
    Start(#[from] ParseRuleError),
    /// A deal that cannot be set up on the layout and start.
    #[error(transparent)]
    Deal(SoloError),
    /// An unknown `--player`.
    #[error("unknown player '{0}' (expected mc or random)")]
    Player(String),
    /// A player that chose a move the game refuses.
    #[error(transparent)]
    Play(SoloError),
}

/// Describes a move's effect: `x d3: turns 1, wins o7, reveals c3=x4 d2=o-`.
pub fn describe(m: SoloMove, fx: &MoveEffect, before: &SoloState, after: &SoloState) -> String {
    let won: Vec<String> = Squares(fx.captured)
        .map(|sq| {
            format!(
                "{}={}",
                sq,
                before.tile_at(sq).map_or("?".into(), |t| t.to_string())
            )
        })
        .collect();
    let rev: Vec<String> = Squares(fx.revealed)
        .map(|sq| {
            format!(
                "{}={}",
                sq,
                after.tile_at(sq).map_or("?".into(), |t| t.to_string())
            )
        })
        .collect();
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "-".into()
        } else {
            v.join(" ")
        }
    };
    format!(
        "{m}: turns {}, wins {}, reveals {}",
        fx.flipped.count_ones(),
        list(won),
        list(rev)
    )
}

/// Batch mode: plays the games and writes the report to `out`.
///
/// # Errors
/// Bad arguments ([`SoloCliError`]) or an output error.
pub fn batch(out: &mut impl Write, a: &SoloArgs) -> ToolResult {
    let layout = a.layout()?;
    let obj = a.objective();
    let name = a.player.to_ascii_lowercase();
    a.player(0)?;
    a.new_game(&layout, 0)?;
    let (mut tiles, mut variant, mut secs) = (0u64, 0u64, 0f64);
    for i in 0..a.games {
        let seed = a.seed.wrapping_add(u64::from(i));
        let mut game = a.new_game(&layout, seed)?;
        let mut player = a.player(seed)?;
        let t = Instant::now();
        if a.show {
            writeln!(out, "game {} seed {seed}\n{}", i + 1, game.state())?;
            while !game.is_over() {
                let before = game.state().clone();
                match player.choose(&before) {
                    Some(m) => {
                        let fx = game.play(m).map_err(SoloCliError::Play)?;
                        let n = game.history().len();
                        writeln!(out, "{n}. {}", describe(m, &fx, &before, game.state()))?;
                        writeln!(out, "{}", game.state())?;
                    }
                    None => {
                        writeln!(out, "stop: no tile can be won any more")?;
                        game.stop();
                    }
                }
            }
        } else {
            play_out(&mut game, player.as_mut()).map_err(SoloCliError::Play)?;
        }
        let s = t.elapsed().as_secs_f64();
        let (nt, nv) = (game.score(Objective::Tiles), game.score(Objective::Variant));
        tiles += u64::from(nt);
        variant += u64::from(nv);
        secs += s;
        writeln!(
            out,
            "game {} seed {seed}: {nt} tiles, variant {nv}, {} moves, {s:.3} s",
            i + 1,
            game.history().len()
        )?;
    }
    let n = f64::from(a.games.max(1));
    let what = if name == "mc" {
        format!("mc, {} rollouts, objective {obj:?}", a.rollouts.max(1))
    } else {
        name
    };
    writeln!(
        out,
        "mean {:.2} tiles, variant {:.2}, over {} games ({what}), {:.3} s/game",
        tiles as f64 / n,
        variant as f64 / n,
        a.games,
        secs / n
    )?;
    Ok(())
}

const HELP: &str = "commands: x <square> | o <square> (play a disc of that colour), \
                    stop, quit, hint, moves, board, help";

/// Interactive mode: one game, commands from `input`, replies to `out`.
/// After the game is over (by `stop`, or no move left) every further line
/// but `quit` gets one `error:` line, until `quit` or the end of input;
/// `quit` during the game stops it and ends the session.
///
/// # Errors
/// Bad arguments or an output error (bad input lines are answered, not
/// errors).
pub fn interactive(input: impl BufRead, out: &mut impl Write, a: &SoloArgs) -> ToolResult {
    let layout = a.layout()?;
    let mut game = a.new_game(&layout, a.seed)?;
    writeln!(out, "solo puzzle, seed {}; {HELP}", a.seed)?;
    writeln!(out, "{}", game.state())?;
    let mut lines = input.lines();
    let mut end = None;
    while !game.is_over() {
        let line = match lines.next() {
            None => {
                end = Some("end of input");
                break;
            }
            Some(Err(e)) => {
                writeln!(out, "error: cannot read input: {e}")?;
                end = Some("end of input");
                break;
            }
            Some(Ok(l)) => l,
        };
        if line.trim().eq_ignore_ascii_case("quit") {
            game.stop();
            end = Some("stopped");
            break;
        }
        command(line.trim(), &mut game, out, a)?;
    }
    let s = game.state();
    let why = if s.tiles() == 0 {
        "all tiles won"
    } else if !s.has_move() {
        "no move left"
    } else {
        end.unwrap_or("stopped")
    };
    writeln!(
        out,
        "game over ({why}): {} tiles, variant {}",
        s.tiles_won(),
        s.variant_score()
    )?;
    if end.is_none() {
        // The input goes on after the game: say so for each line.
        for line in lines.map_while(Result::ok) {
            match line.trim() {
                "" => {}
                l if l.eq_ignore_ascii_case("quit") => break,
                l => writeln!(
                    out,
                    "error: the game is over, '{l}' ignored (quit or end of input ends the session)"
                )?,
            }
        }
    }
    Ok(())
}

/// One command of an interactive game that is not over (not `quit`).
fn command(cmd: &str, game: &mut SoloGame, out: &mut impl Write, a: &SoloArgs) -> ToolResult {
    match cmd.to_ascii_lowercase().as_str() {
        "" => {}
        "stop" => game.stop(),
        "help" => writeln!(out, "{HELP}")?,
        "board" => writeln!(out, "{}", game.state())?,
        "moves" => {
            let v: Vec<String> = game
                .state()
                .legal_moves()
                .iter()
                .map(|m| m.to_string())
                .collect();
            writeln!(out, "moves: {}", v.join(", "))?;
        }
        "hint" => {
            let p = MonteCarlo::new(MonteCarloConfig {
                rollouts: a.rollouts.max(1),
                objective: a.objective(),
                seed: a.seed,
                risk_penalty: a.risk_penalty,
            });
            let v: Vec<String> = p
                .evaluate(game.state())
                .iter()
                .take(3)
                .map(|(m, e)| format!("{m} ({e:.2})"))
                .collect();
            writeln!(out, "hint: {}", v.join(", "))?;
        }
        _ => match cmd.parse::<SoloMove>() {
            Err(e) => writeln!(out, "error: {e}")?,
            Ok(m) => {
                let before = game.state().clone();
                match game.play(m) {
                    Err(e) => writeln!(out, "error: {e}")?,
                    Ok(fx) => {
                        writeln!(out, "{}", describe(m, &fx, &before, game.state()))?;
                        writeln!(out, "{}", game.state())?;
                    }
                }
            }
        },
    }
    Ok(())
}
