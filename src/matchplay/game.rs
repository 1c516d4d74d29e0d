//! The referee: plays one game between two connected engines with our own
//! rules code. An illegal move, a crash, silence past the allowed time, a
//! protocol error or a resignation loses the game; forced passes are played
//! by the referee without asking the engine.

use super::client::{Client, MoveLimit, MoveRequest};
use super::process::Failure;
use crate::board::Color;
use crate::moves::{Move, MoveError};
use crate::play::{Player, Stop, play_out};
use crate::position::Position;
use crate::protocol::quote_token;
use crate::record::game::Game;
use crate::record::game_record::{GameRecord, Outcome, Termination};
use crate::rules::RuleSet;
use std::time::{Duration, Instant};

/// Referee settings shared by every game.
#[derive(Clone, Copy, Debug)]
pub struct Referee {
    /// The rules.
    pub rules: RuleSet,
    /// Extra time allowed beyond the clock or movetime before a forfeit
    /// (pipe latency, process scheduling).
    pub margin: Duration,
    /// Longest wait for a move under depth or node limits (a hang).
    pub hang: Duration,
}

/// One game to play.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// 1-based number in the schedule.
    pub number: usize,
    /// 0-based openings-file line, if any.
    pub opening: Option<usize>,
    /// Start position.
    pub start: Position,
    /// Opening moves played from `start` before the engines move.
    pub opening_moves: Vec<Move>,
}

/// One side of a game.
pub struct Side<'a> {
    /// Its display name.
    pub name: &'a str,
    /// The engine.
    pub client: &'a mut dyn Client,
    /// Its limits.
    pub limit: MoveLimit,
}

fn forfeit_kind(f: &Failure) -> Termination {
    match f {
        Failure::Crash(_) => Termination::Crash,
        Failure::Timeout(_) => Termination::Timeout,
        Failure::Protocol(_) | Failure::Setting(_) => Termination::Error,
    }
}

/// Plays the game; `sides[0]` is X, `sides[1]` is O. Engines that time out
/// or break the protocol are killed (they are restarted for the next game).
pub fn play_game(r: &Referee, g: &GameSpec, sides: [Side<'_>; 2]) -> GameRecord {
    let mut rec = GameRecord {
        number: g.number,
        black: sides[0].name.to_string(),
        white: sides[1].name.to_string(),
        opening: g.opening,
        start: g.start,
        moves: Vec::new(),
        times: Vec::new(),
        evals: Vec::new(),
        outcome: Outcome::Draw,
        score: 0,
        end: Termination::Normal,
        reason: String::new(),
    };
    let mut seats = Seats {
        r,
        g,
        clocks: [
            sides[0].limit.tc.map(|t| t.0),
            sides[1].limit.tc.map(|t| t.0),
        ],
        sides,
        times: Vec::new(),
        evals: Vec::new(),
        text: String::new(),
    };
    let mut game = Game::from_position(g.start, r.rules);
    let ended = seats.start(&mut game).and_then(|()| {
        play_out(&mut game, &mut seats).map_err(|stop| match stop {
            Stop::Failed { side, error } => (side, error),
            Stop::Illegal {
                side,
                chosen,
                error,
            } => seats.illegal(side, &game, chosen, &error),
        })
    });
    rec.moves = game.moves().to_vec();
    let n = rec.moves.len();
    seats.times.resize(n, 0.0);
    seats.evals.resize(n, None);
    rec.times = seats.times;
    rec.evals = seats.evals;
    match ended {
        Ok(()) => {
            let end = game.current();
            rec.outcome = match end.winner(&r.rules) {
                Some(c) => Outcome::win_for(c),
                None => Outcome::Draw,
            };
            rec.score = end.final_score_for(r.rules.scoring, Color::Black);
        }
        Err((loser, (end, reason))) => {
            rec.outcome = Outcome::win_for(loser.other());
            rec.score = if loser == Color::Black { -64 } else { 64 };
            rec.end = end;
            rec.reason = reason;
        }
    }
    rec
}

/// A move chosen: the move, the seconds it took and the engine's
/// evaluation.
type Chosen = (Move, f64, Option<f64>);

/// How a game is lost: the termination and why.
type Forfeit = (Termination, String);

/// The two engines of a game as the game loop's player: the side to move
/// is asked under its clock; the referee keeps the clocks, the seconds and
/// evaluations of each move, and the last answer's text.
struct Seats<'a, 'b> {
    r: &'a Referee,
    g: &'a GameSpec,
    sides: [Side<'b>; 2],
    clocks: [Option<Duration>; 2],
    /// Seconds and evaluation of each move so far (0 and none for the
    /// opening moves and forced passes).
    times: Vec<f64>,
    evals: Vec<Option<f64>>,
    /// The last answer, as the engine wrote it.
    text: String,
}

impl Seats<'_, '_> {
    /// Starts the game on both engines and plays the opening moves; `Err`
    /// is the side that lost by it.
    fn start(&mut self, game: &mut Game) -> Result<(), (Color, Forfeit)> {
        for (c, side) in [Color::Black, Color::White]
            .into_iter()
            .zip(&mut self.sides)
        {
            if let Err(f) = side.client.new_game(&self.g.start) {
                if !matches!(f, Failure::Crash(_)) {
                    side.client.kill();
                }
                let reason = format!("{} failed to start the game: {f}", side.name);
                return Err((c, (forfeit_kind(&f), reason)));
            }
        }
        for &m in &self.g.opening_moves {
            // The openings were checked when they were read.
            if let Err(e) = game.play(m) {
                let side = game.current().side;
                let reason = format!("the opening move {m} is not legal ({e})");
                return Err((side, (Termination::Error, reason)));
            }
        }
        Ok(())
    }

    /// The forfeit of `side`, which chose the illegal `chosen` in `game`'s
    /// current position.
    fn illegal(&self, side: Color, game: &Game, chosen: Move, e: &MoveError) -> (Color, Forfeit) {
        let name = self.sides[side as usize].name;
        // The engine's text is quoted once, short: a huge token makes no
        // huge record.
        let text = if self.text.is_empty() {
            chosen.to_string()
        } else {
            quote_token(&self.text)
        };
        let reason = format!("{name} played '{text}' in {} ({e})", game.current());
        (side, (Termination::Illegal, reason))
    }

    /// Asks the side to move in `game` for its move and checks it against
    /// the clock (the game loop checks it against the rules); `Err` is the
    /// forfeit.
    fn engine_move(&mut self, game: &Game) -> Result<Chosen, Forfeit> {
        let (r, pos) = (self.r, game.current());
        let ci = pos.side as usize;
        let side = &mut self.sides[ci];
        let allowed = [self.clocks[ci], side.limit.movetime]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(r.hang);
        let t0 = Instant::now();
        let req = MoveRequest {
            start: &self.g.start,
            moves: game.moves(),
            times: &self.times,
            position: &pos,
            clocks: self.clocks,
            limit: &side.limit,
            deadline: t0 + allowed + r.margin,
        };
        self.text.clear();
        let reply = side.client.go(&req).map_err(|f| {
            if !matches!(f, Failure::Crash(_)) {
                side.client.kill();
            }
            let reason = match &f {
                Failure::Timeout(_) => format!(
                    "{} did not move within {:.3} s",
                    side.name,
                    (allowed + r.margin).as_secs_f64()
                ),
                Failure::Crash(m) => format!("{} crashed ({m})", side.name),
                Failure::Protocol(m) | Failure::Setting(m) => {
                    format!("{} made a protocol error: {m}", side.name)
                }
            };
            (forfeit_kind(&f), reason)
        })?;
        let elapsed = reply.at.saturating_duration_since(t0);
        if let Some(clock) = self.clocks[ci].as_mut() {
            if elapsed > *clock + r.margin {
                side.client.kill();
                let reason = format!(
                    "{} lost on time ({:.3} s used, {:.3} s left)",
                    side.name,
                    elapsed.as_secs_f64(),
                    clock.as_secs_f64()
                );
                return Err((Termination::Timeout, reason));
            }
            *clock = clock.saturating_sub(elapsed) + side.limit.tc.map(|t| t.1).unwrap_or_default();
        }
        if reply.text.eq_ignore_ascii_case("resign") {
            return Err((Termination::Resign, format!("{} resigned", side.name)));
        }
        match reply.text.parse::<Move>() {
            Ok(m) => {
                self.text = reply.text;
                Ok((m, elapsed.as_secs_f64(), reply.eval))
            }
            Err(_) => {
                let text = quote_token(&reply.text);
                let why = "not a move: expected a square like f5, or pass";
                let reason = format!("{} played '{text}' in {pos} ({why})", side.name);
                Err((Termination::Illegal, reason))
            }
        }
    }
}

impl Player for Seats<'_, '_> {
    type Error = Forfeit;

    fn choose(&mut self, game: &Game) -> Result<Move, Forfeit> {
        let n = game.moves().len();
        self.times.resize(n, 0.0);
        self.evals.resize(n, None);
        let (m, secs, eval) = self.engine_move(game)?;
        self.times.push(secs);
        self.evals.push(eval);
        Ok(m)
    }
}
