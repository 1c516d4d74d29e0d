//! Embedding the engine in a program of your own (a GUI, a bot): the
//! engine owns the game, searches in the background and reports on a
//! channel. This plays a short game against itself, one move at a time,
//! as a GUI would when the engine is on move.
//!
//! `cargo run --release -p annex-core --example embed -- [plies] [millis]`

use annex_core::engine::{Engine, EngineEvent};
use annex_core::search::Limits;
use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>());
    let plies = args.next().and_then(Result::ok).unwrap_or(12);
    let millis = args.next().and_then(Result::ok).unwrap_or(100);

    let (tx, events) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    // Options by name, as the protocols set them; errors are typed.
    engine.set_option("Hash", "32").expect("a valid Hash");
    engine.set_option("Threads", "1").expect("a valid Threads");

    for _ in 0..plies {
        if engine.game().is_over() {
            break;
        }
        let pos = engine.game().current();
        let limits = Limits {
            movetime: Some(Duration::from_millis(millis)),
            ..Limits::default()
        };
        // `go` returns at once; a GUI keeps drawing and may call `stop`.
        engine.go(pos, limits);
        let best = loop {
            match events.recv().expect("the engine sends one BestMove per go") {
                EngineEvent::Info(i) => {
                    eprintln!(
                        "  depth {:2} score {:+3} nodes {}",
                        i.depth, i.score, i.nodes
                    )
                }
                EngineEvent::BestMove(b) => break b,
                EngineEvent::Message(m) | EngineEvent::Debug(m) => eprintln!("  ({m})"),
            }
        };
        let played = engine.play(best.best).expect("the engine's move is legal");
        println!("{played} ({:+} discs)", best.score);
    }
    println!("{}", engine.game().current().board_string());
}
