//! The client side of the three engine protocols: one [`Client`] per
//! running engine process, the referee's only way to talk to it.
//!
//! * UCI-style (`uci`/`uciok`, `position … moves …`, `go …`, `bestmove`),
//!   see [`super::uci`].
//! * NBoard v2 (`nboard 2`, `set game <GGF>`, `go`, `=== move`), see
//!   [`super::nboard`].
//! * GTP v2 (`boardsize 8`, `clear_board`, `play`, `genmove`), see
//!   [`super::gtp`].
//!
//! Without a protocol prefix [`super::connect`] detects the protocol by handshake:
//! `uci` → `uciok`, else (fresh process) `protocol_version` → `= …`, else
//! (fresh process) `nboard 2` + `ping 1` → `pong 1`.

use super::process::Failure;
use crate::moves::Move;
use crate::position::Position;
/// An engine protocol: the protocol layer's own enum, so the engine loop
/// and the match client name the three protocols with one type.
pub use crate::protocol::Protocol;
use crate::rules::RuleSet;
use std::time::{Duration, Instant};

/// How long an engine may take for its handshake and for `isready`-like
/// synchronisation.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long each probe of protocol detection waits (an engine loading big
/// tables may be slow to answer; a GTP engine refuses `uci` at once, so
/// only NBoard engines pay it, once per match).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Search limits for one engine's moves. Several may be given; the engine
/// stops at the first reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveLimit {
    /// Fixed depth.
    pub depth: Option<u32>,
    /// Fixed node count.
    pub nodes: Option<u64>,
    /// Fixed time per move.
    pub movetime: Option<Duration>,
    /// Time control: base per game and increment per move.
    pub tc: Option<(Duration, Duration)>,
}

impl MoveLimit {
    /// Whether no limit at all is set.
    pub fn is_empty(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none() && self.movetime.is_none() && self.tc.is_none()
    }
}

/// Everything an engine needs to choose its next move.
pub struct MoveRequest<'a> {
    /// Where the game started.
    pub start: &'a Position,
    /// The moves since `start`, passes included.
    pub moves: &'a [Move],
    /// Seconds each of `moves` took (NBoard engines sum them per side to
    /// know their clock).
    pub times: &'a [f64],
    /// The current position (`start` + `moves`).
    pub position: &'a Position,
    /// Remaining clocks of X and O under a time control.
    pub clocks: [Option<Duration>; 2],
    /// The limits for this engine.
    pub limit: &'a MoveLimit,
    /// The answer must arrive before this instant.
    pub deadline: Instant,
}

/// An engine's answer to a move request.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The move as the engine wrote it (`f5`, `pass`, `PA`, `resign`).
    pub text: String,
    /// Its evaluation, discs for the side to move, when it gave one.
    pub eval: Option<f64>,
    /// When the answer arrived (checks made afterwards, such as looking
    /// for a second answer, are not charged to the engine's clock).
    pub at: Instant,
}

/// A connected engine speaking one protocol.
pub trait Client: Send {
    /// The protocol spoken.
    fn protocol(&self) -> Protocol;
    /// The name the engine gave itself, if any.
    fn engine_name(&self) -> Option<String>;
    /// Sends rule options and user options once after the handshake.
    ///
    /// # Errors
    /// The engine refuses them (a rule option it does not have, when the
    /// rules are not plain Othello), dies or stays silent.
    fn configure(
        &mut self,
        rules: &RuleSet,
        options: &[(String, String)],
        limit: &MoveLimit,
    ) -> Result<(), Failure>;
    /// Prepares a new game from `start` (process reuse between games).
    ///
    /// # Errors
    /// The engine died, stayed silent or cannot play from `start`.
    fn new_game(&mut self, start: &Position) -> Result<(), Failure>;
    /// Asks for a move; blocks until the reply or the request's deadline.
    ///
    /// # Errors
    /// Crash, timeout or protocol error.
    fn go(&mut self, req: &MoveRequest<'_>) -> Result<Reply, Failure>;
    /// The engine's process.
    fn process(&mut self) -> &mut super::process::EngineProcess;
    /// Whether the process is known dead.
    fn is_dead(&mut self) -> bool {
        self.process().is_dead()
    }
    /// Asks the engine to quit (`quit`, a second to obey) and reaps the
    /// process.
    fn quit(&mut self) {
        self.process()
            .shutdown(Some("quit"), std::time::Duration::from_secs(1));
    }
    /// Kills the process at once (after a hang or a time forfeit).
    fn kill(&mut self) {
        self.process().kill();
    }
}
