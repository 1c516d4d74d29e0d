//! `annex bench`: the search signature. A fixed set of 40 positions (32
//! midgame positions searched to a fixed depth, 8 endgames solved exactly),
//! one thread, the table cleared before each; the last line is
//! `<nodes> nodes <nps> nps`. The node count must be the same on every run
//! and build; commits that change it say `Bench: <nodes>`.
//!
//! The positions are fixed board strings (drawn once from pseudo-random
//! games: 10 to 45 plies for the midgame ones, 44 to 46 for the endgames),
//! so they need no data file and no generator.
//! Bench drives the engine facade directly; replaying protocol lines would
//! also exercise the protocol parser (planned once the protocol lands).

use crate::cli::{ToolResult, args};
use crate::engine::Engine;
use crate::position::Position;
use crate::search::Limits;
use std::io::Write;
use std::time::Instant;

/// Arguments of `annex bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Depth of the midgame positions (1-60).
    #[arg(long, default_value_t = 9, value_parser = args::depth())]
    pub depth: u32,
    /// Transposition table size in MiB (1-65536).
    #[arg(long, default_value_t = 16, value_parser = args::hash_mb())]
    pub hash: usize,
    /// Print one line per position.
    #[arg(long)]
    pub verbose: bool,
}

/// The 32 midgame positions, searched to the bench depth (board strings,
/// a1 b1 … h8, then the side to move).
const MIDGAME: [&str; 32] = [
    "-----------------XO------OXOX------XOX------OO------O-O--------O X",
    "-------------O----O-O---O-OOXXX--OOXX---XXXX------X------X------ O",
    "---XXX----OXX------XXXOX---XO-OX---OXOX---O-OX-----OX----------- X",
    "----X-------XX----X-X----XXXX-----XXXO-OXXXXXXXX---O-OO----OOOO- O",
    "--OX-XO---OOXX-O---OOXOX---XOXX--OOXXOOX-OXX-O-XO----O-X-----O-- X",
    "-X-X--X---XOOX----OXXX--O-XXXX--XXXOOOOOXXO-XO-OXXX-X--OOX-XX--- O",
    "-O------XXOO----XXXXXXXOXOOXXXX-X-OXXOXOX-OOXOOO--O-OOOO--O-XOOO X",
    "---OX-O---OOOOOOXXXOOXOXOXOOXOOOOXOOXXOOOXXXXXXOOXX--O-O-OX----O O",
    "------------O-------O----O-OOO----OXO------XX-----OX-----O------ X",
    "-------------X---XXXXX-----XXO----OXXO----XXXO------OO---------- O",
    "---------X---O--O-XXOX---OXOX-----OXOX---OOOOOX-O---OX---------- X",
    "-X--OOO--OXOX------XXX-----OXX----OXOX---OOX-O---XXO-XO--X-O---- O",
    "-X-XO-----XO---O-XOXXXO---OOXO----OXOOOO---OXX---XXXXXXX------XO X",
    "---------O-X----XOX--OX--XOOXXX-XOOOOX--OOOXXXXX-OXXXOOO-OXX-XX- O",
    "-O---O-OX-OXOO-O-XXOOOOOXXXXOOOO-X-XOXOO-OXOOOXO-XOOOOO------O-- X",
    "OOOOX--XXO-OOXX-XXOOXX-OXXXOOOOOX-XXOOOX-XOXXOO-X--XOOOO---X-OX- O",
    "-----------O------OOOXX----XOX----XXXO--------O----------------- X",
    "------------------OX------OXX-----OXO-O----XXOOO---XX-------XXX- O",
    "------------X----XXXX-----OXOOO---XOOOO--X-OOXOO----X-X----X---- X",
    "------O------O-XX-OOOXX--XOOXX----XOXOO-XXOXXX----O--X---XO----- O",
    "XOO-O----OOO--O-OOXOOO---XXOOO--XXXOO----X--OOO-XO----O------XXX X",
    "--X-O--X--OOOOXO-XO-OXOO--XOXXOO-OOXOOOO--XOXO---X-O-OX----O-OX- O",
    "---OX---O--OX--XOO-OXOXXOOOXOXOX-OXOXOXXOOOOOO-XXXX-OX----XO-XX- X",
    "-XXXXXXX-OOOXXXXOOOXOXXXXOXXXOXX-OOXXXO-XOOXXO-O--OX-XO--O-X---- O",
    "----------O--------O-----X-XO-----XXXOO----X-O-------OX--------- X",
    "------OX-X--X-X---X-XXO---OXX-----XOOO---X--O--------O---------- O",
    "XX-X-----XXX--X---XXOX-----XO----OOOOX---OXX-O--O-----O--------- X",
    "--X--------XXX---OOOXXOO---XOO----XXOOX---XOXXXX-XO---OO-------- O",
    "---XXO---OOOOO--X-OOOO---XXOOOO-O-XOXOO--XXOOOO-X-OO------------ X",
    "--OO-----OOOXX--OOOOXXX--OOXXXXX-OOOXXXX-XOOO---XX-XOO---X-X---- O",
    "-----O--X-OOOOO-XOOOX---X-XXOXXX--XXXOXX-XXXOOOO-OXXXXOO---XXXOO X",
    "---O-OXXXXX-OO-XXXXXOOOXXXXXXOXX-XXXXOXX-OXX-XOXOX-XXXXXX----O-X O",
];

/// The 8 endgame positions, solved exactly.
const ENDGAME: [&str; 8] = [
    "-X-O-XXOO-X-OXXOXOXXXOXOXXOXOXOOXXXXXOXO-XXXXOXO--X-XXOO----X-XO X",
    "XXX-X---XXOX-X--XXXXXXX-XXXOOOO-XXOOXXX-XOOOXOX-OOXX-O-XO-X--OOO X",
    "XX-O-XOXXXXXXXXXXXXXOXOOXXXXXOO-XXOXOXOXOOX-O-O-OOOOO-OX-------- O",
    "-XXOO-----XOOOOO-OXXXOOOOOXOXOOOOOXXXXOOOOXXOOOO-OXXXX--X-O--OX- X",
    "X-OOOO---O-OO---OOOOO--X-OOXOOOO-XXOXOO--XOOOOOOXOXXXXXXO--XOOOX X",
    "-XXOOOOOXXXXXXOOOOOXOOXO-OOOOO---OOXO-O-OOOOOOOOOOX-X-O-OO-X---- O",
    "OX-------OOX-X-OOOOXXXXXOOOOXXXXXOXXXX---XXXOOOO-OXXXOOOO-OOOOOO X",
    "-XXXXX-XOXXXXXX--XXXXXX-XXOXOXX-XXXOOX--XXOOOOXXOOOOO-O-OX------ X",
];

/// The bench positions and their search depth (a depth at least the number
/// of empties is an exact solve).
pub fn positions(depth: u32) -> Vec<(Position, u32)> {
    let read = |s: &str| s.parse::<Position>().expect("a bench position");
    MIDGAME
        .iter()
        .map(|s| (read(s), depth))
        .chain(ENDGAME.iter().map(|s| (read(s), 64)))
        .collect()
}

/// Runs the bench and returns the total node count.
///
/// # Errors
/// An invalid option value, or the report could not be written.
pub fn run(a: &BenchArgs) -> ToolResult<u64> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    engine.set_threads(1).map_err(|e| e.to_string())?;
    engine.set_hash(a.hash).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let mut nodes = 0;
    for (i, (pos, depth)) in positions(a.depth).into_iter().enumerate() {
        engine.new_game();
        let r = engine.search_sync(
            pos,
            Limits {
                depth: Some(depth),
                ..Limits::default()
            },
        );
        while rx.try_recv().is_ok() {}
        nodes += r.nodes;
        if a.verbose {
            writeln!(
                out,
                "{:>2} {} depth {:>2} best {} score {:+} nodes {}",
                i + 1,
                pos,
                r.depth,
                r.best,
                r.score,
                r.nodes
            )?;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "{nodes} nodes {:.0} nps",
        nodes as f64 / secs.max(1e-9)
    )?;
    out.flush()?;
    Ok(nodes)
}
