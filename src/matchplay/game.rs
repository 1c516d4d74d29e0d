//! The referee: plays one game between two connected engines with our own
//! rules code. An illegal move, a crash, silence past the allowed time, a
//! protocol error or a resignation loses the game; forced passes are played
//! by the referee without asking the engine.

use super::client::{Client, MoveLimit, MoveRequest};
use super::process::Failure;
use crate::board::Color;
use crate::moves::{Move, MoveError};
use crate::position::Position;
use crate::protocol::quote_token;
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
    let [mut black, mut white] = sides;
    let mut rec = GameRecord {
        number: g.number,
        black: black.name.to_string(),
        white: white.name.to_string(),
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
    let forfeit = |rec: &mut GameRecord, loser: Color, end: Termination, reason: String| {
        rec.outcome = Outcome::win_for(loser.other());
        rec.score = if loser == Color::Black { -64 } else { 64 };
        rec.end = end;
        rec.reason = reason;
    };
    for (c, side) in [(Color::Black, &mut black), (Color::White, &mut white)] {
        if let Err(f) = side.client.new_game(&g.start) {
            if !matches!(f, Failure::Crash(_)) {
                side.client.kill();
            }
            let reason = format!("{} failed to start the game: {f}", side.name);
            forfeit(&mut rec, c, forfeit_kind(&f), reason);
            return rec;
        }
    }
    let mut pos = g.start;
    for m in &g.opening_moves {
        pos = pos.play_unchecked(&r.rules, *m);
        rec.moves.push(*m);
        rec.times.push(0.0);
        rec.evals.push(None);
    }
    let mut clocks = [black.limit.tc.map(|t| t.0), white.limit.tc.map(|t| t.0)];
    loop {
        if pos.is_game_over(&r.rules) {
            rec.outcome = match pos.winner(&r.rules) {
                Some(c) => Outcome::win_for(c),
                None => Outcome::Draw,
            };
            rec.score = pos.final_score_for(r.rules.scoring, Color::Black);
            return rec;
        }
        if pos.must_pass(&r.rules) {
            pos = pos.play_unchecked(&r.rules, Move::PASS);
            rec.moves.push(Move::PASS);
            rec.times.push(0.0);
            rec.evals.push(None);
            continue;
        }
        let c = pos.side;
        let side = if c == Color::Black {
            &mut black
        } else {
            &mut white
        };
        match engine_move(r, g, side, &pos, &rec, &mut clocks) {
            Ok((m, next, secs, eval)) => {
                rec.moves.push(m);
                rec.times.push(secs);
                rec.evals.push(eval);
                pos = next;
            }
            Err((end, reason)) => {
                forfeit(&mut rec, c, end, reason);
                return rec;
            }
        }
    }
}

/// A move played: the move, the position after it, the seconds it took and
/// the engine's evaluation.
type Played = (Move, Position, f64, Option<f64>);

/// Asks `side` (to move in `pos`) for its move and checks it against the
/// clock and the rules; `Err` is the forfeit (how the game ends, why).
fn engine_move(
    r: &Referee,
    g: &GameSpec,
    side: &mut Side<'_>,
    pos: &Position,
    rec: &GameRecord,
    clocks: &mut [Option<Duration>; 2],
) -> Result<Played, (Termination, String)> {
    let ci = pos.side as usize;
    let allowed = [clocks[ci], side.limit.movetime]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(r.hang);
    let t0 = Instant::now();
    let req = MoveRequest {
        start: &g.start,
        moves: &rec.moves,
        times: &rec.times,
        position: pos,
        clocks: *clocks,
        limit: &side.limit,
        deadline: t0 + allowed + r.margin,
    };
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
    if let Some(clock) = clocks[ci].as_mut() {
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
    reply
        .text
        .parse::<Move>()
        .and_then(|m| pos.play(&r.rules, m))
        .map(|(m, next)| (m, next, elapsed.as_secs_f64(), reply.eval))
        .map_err(|e| {
            // The engine's text is quoted once, short: a huge token makes
            // no huge record.
            let why = match e {
                MoveError::Syntax(_) => "not a move: expected a square like f5, or pass".into(),
                e => e.to_string(),
            };
            let text = quote_token(&reply.text);
            let reason = format!("{} played '{text}' in {pos} ({why})", side.name);
            (Termination::Illegal, reason)
        })
}
