//! `annex bench`: the search signature. A fixed set of 40 positions (32
//! midgame positions searched to a fixed depth, 8 endgames solved exactly),
//! one thread, the table cleared before each; the last line is
//! `<nodes> nodes <nps> nps`. The node count must be the same on every run
//! and build; commits that change it say `Bench: <nodes>`.
//!
//! The positions are fixed board strings (drawn once from pseudo-random
//! games: 10 to 45 plies for the midgame ones, 44 to 46 for the endgames),
//! so they need no data file and no generator.
//! Bench runs through the UCI-style protocol handler, as Stockfish's does:
//! it writes `setoption`, `ucinewgame`, `position board …` and `go depth …`
//! lines into the same loop that serves stdin, and reads the `info` and
//! `bestmove` lines back, so the signature covers the parser and the
//! protocol's engine set-up too.

use crate::cli::{ToolResult, args};
use crate::engine::Engine;
use crate::position::Position;
use crate::protocol::{Protocol, run_with};
use crossbeam_channel::{Receiver, Sender};
use std::io::{self, BufReader, Read, Write};
use std::time::{Duration, Instant};

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

/// The deepest `go depth` the protocol takes; the endgames are solved
/// exactly at any depth from their number of empties.
const SOLVE_DEPTH: u32 = 60;

/// How long one bench search may take before the bench gives up (a hang
/// is a bug; the slowest position takes well under a second).
const SEARCH_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs the bench and returns the total node count.
///
/// # Errors
/// An invalid option value, a protocol error, or the report could not be
/// written.
pub fn run(a: &BenchArgs) -> ToolResult<u64> {
    let uci = Session::start();
    uci.send("uci");
    uci.until(|l| l == "uciok")?;
    uci.send("setoption name Threads value 1");
    uci.send(&format!("setoption name Hash value {}", a.hash));
    uci.send("isready");
    uci.until(|l| l == "readyok")?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let mut nodes = 0;
    for (i, (pos, depth)) in positions(a.depth).into_iter().enumerate() {
        uci.send("ucinewgame");
        uci.send(&format!("position board {pos}"));
        uci.send(&format!("go depth {}", depth.min(SOLVE_DEPTH)));
        let r = uci.search()?;
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
    uci.send("quit");
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "{nodes} nodes {:.0} nps",
        nodes as f64 / secs.max(1e-9)
    )?;
    out.flush()?;
    Ok(nodes)
}

/// Why the protocol loop failed the bench.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// No line within `SEARCH_TIMEOUT`, or the loop ended.
    #[error("bench: the protocol loop stopped answering")]
    Silent,
    /// An `info string error: …` line.
    #[error("bench: {0}")]
    Protocol(String),
    /// A search without an `info depth` line.
    #[error("bench: a search reported no info line")]
    NoInfo,
    /// An `info` line without a field the bench reads.
    #[error("bench: no {key} in '{info}'")]
    NoField {
        /// The field.
        key: String,
        /// The line.
        info: String,
    },
}

/// What one `go` reported: its last `info` line and its `bestmove`.
struct Searched {
    depth: u32,
    score: i32,
    nodes: u64,
    best: String,
}

/// A protocol loop on a thread of its own, fed and read through channels.
struct Session {
    input: Sender<Vec<u8>>,
    output: Receiver<String>,
}

impl Session {
    fn start() -> Session {
        let (in_tx, in_rx) = crossbeam_channel::unbounded();
        let (out_tx, out_rx) = crossbeam_channel::unbounded();
        let input = Box::new(BufReader::new(ChannelReader {
            rx: in_rx,
            buf: Vec::new(),
            pos: 0,
        }));
        let output = Box::new(ChannelWriter {
            tx: out_tx,
            line: Vec::new(),
        });
        let (ev_tx, ev_rx) = crossbeam_channel::unbounded();
        let engine = Engine::new(ev_tx);
        std::thread::spawn(move || {
            if let Err(e) = run_with(input, output, Some(Protocol::Uci), engine, ev_rx) {
                log::error!("bench: protocol loop: {e}");
            }
        });
        Session {
            input: in_tx,
            output: out_rx,
        }
    }

    fn send(&self, line: &str) {
        // The loop ends only after `quit` or on an error, which `until` reports.
        let _ = self.input.send(format!("{line}\n").into_bytes());
    }

    /// Reads lines up to the first one that `done` accepts; an error line of
    /// the protocol, or its end, is an error.
    fn until(&self, done: impl Fn(&str) -> bool) -> Result<Vec<String>, BenchError> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .output
                .recv_timeout(SEARCH_TIMEOUT)
                .map_err(|_| BenchError::Silent)?;
            if let Some(e) = line.strip_prefix("info string error: ") {
                return Err(BenchError::Protocol(e.to_string()));
            }
            let stop = done(&line);
            seen.push(line);
            if stop {
                return Ok(seen);
            }
        }
    }

    /// Waits for the `bestmove` of the running `go` and reads its last
    /// `info depth` line.
    fn search(&self) -> Result<Searched, BenchError> {
        let lines = self.until(|l| l.starts_with("bestmove"))?;
        let best = lines
            .last()
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("none")
            .to_string();
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .ok_or(BenchError::NoInfo)?;
        let words: Vec<&str> = info.split_whitespace().collect();
        let after = |key: &str| {
            words
                .iter()
                .position(|w| *w == key)
                .and_then(|i| words.get(i + 1))
                .and_then(|v| v.parse::<i64>().ok())
                .ok_or_else(|| BenchError::NoField {
                    key: key.to_string(),
                    info: info.clone(),
                })
        };
        Ok(Searched {
            depth: after("depth")? as u32,
            score: after("disc")? as i32,
            nodes: after("nodes")? as u64,
            best,
        })
    }
}

/// The protocol loop's stdin: byte chunks from a channel (end of input when
/// the bench drops its sender).
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.buf = chunk;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The protocol loop's stdout: each complete line goes to the bench.
struct ChannelWriter {
    tx: Sender<String>,
    line: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for &b in bytes {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.line).into_owned();
                self.line.clear();
                self.tx
                    .send(line)
                    .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
            } else {
                self.line.push(b);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Limits;

    /// The bench through the protocol counts the same nodes as the same
    /// searches made on the engine facade directly.
    #[test]
    fn protocol_bench_counts_what_the_facade_counts() {
        let depth = 4;
        let uci = Session::start();
        uci.send("uci");
        uci.until(|l| l == "uciok").unwrap();
        uci.send("setoption name Threads value 1");
        uci.send("setoption name Hash value 4");
        let (tx, rx) = crossbeam_channel::unbounded();
        let mut engine = Engine::new(tx);
        engine.set_threads(1).unwrap();
        engine.set_hash(4).unwrap();
        for (pos, d) in positions(depth) {
            uci.send("ucinewgame");
            uci.send(&format!("position board {pos}"));
            uci.send(&format!("go depth {}", d.min(SOLVE_DEPTH)));
            let via_protocol = uci.search().unwrap();
            engine.new_game();
            let limits = Limits {
                depth: Some(d),
                ..Limits::default()
            };
            let direct = engine.search_sync(pos, limits);
            while rx.try_recv().is_ok() {}
            assert_eq!(via_protocol.nodes, direct.nodes, "{pos}");
            assert_eq!(via_protocol.best, direct.best.to_string(), "{pos}");
        }
        uci.send("quit");
    }
}
