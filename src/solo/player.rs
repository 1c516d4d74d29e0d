//! Players for the solo puzzle.
//!
//! # The Monte-Carlo player ([`MonteCarlo`])
//! The puzzle has hidden information (the face-down tiles) and a long
//! horizon (a game is 50–58 moves, and a tile is often won 20 moves after
//! the move that prepared it), so a depth-limited expectimax would stop
//! long before the consequences of a move show, and would lean on a
//! hand-made estimate of "how winnable is this tile" that is hard to get
//! right. The player therefore estimates the expected final score of each
//! legal move by simulation, the flat Monte-Carlo scheme of Ginsberg's
//! GIB and of "information set" rollouts:
//!
//! 1. Draw `rollouts` deals consistent with what the player has seen
//!    ([`Deal::sample`]: the hidden multiset shuffled onto the face-down
//!    squares, which is exactly the posterior, since tiles are turned up by
//!    position and not by identity).
//! 2. For every legal move and every deal, play the move, then finish the
//!    game with a fast *rollout policy* that sees only what a player would
//!    see (tiles are revealed from the sampled deal as they are turned up;
//!    the policy never peeks at face-down tiles), and record the final score.
//!    The same deals and the same random stream serve every move (common
//!    random numbers), so the comparison between moves has little noise.
//! 3. Play the move with the best mean, after taking `risk_penalty` tiles
//!    (default 3) off every move on a square the rollout policy avoids
//!    (below). The rollouts under-rate those risks — a blind disc beside an
//!    edge tile loses it half the time, yet the rollouts after the
//!    alternatives make the same mistakes often enough to hide it. Measured
//!    on seeds 1..100 and 1001..1100 with 16 rollouts: 22.98 / 23.10 tiles
//!    without the penalty, 23.34 / 23.45 with 0.3, 23.56 / 23.58 with 3,
//!    23.55 / 23.62 with 10; under the variant score 195.0 / 195.3 without,
//!    213.2 / 211.4 with 3 tiles (27 points).
//!
//! Because rollouts never peek, this avoids the "strategy fusion" error of
//! perfect-information determinization (solving each sampled deal as if the
//! tiles were known): each estimate is an unbiased estimate of the value of
//! "this move, then the rollout policy", so the player is one step of
//! policy improvement over its rollout policy (before the hand-set risk
//! penalty of step 3, which is a prior, not an estimate).
//!
//! Rollout policy (cheap, bitboard-only, sees no hidden tile):
//! - win the most valuable tile available now (by the objective); but when
//!   the capture lands on an *avoided* square (below), first turn up a tile
//!   with a safe move if there is one, else put the capture off half the
//!   time when a safe move exists (a capture usually stays available);
//! - otherwise pick a random legal move off the avoided squares, three times
//!   in four among those that turn up a tile or prepare a capture (a disc of
//!   the right colour next to a face-up tile whose opposite square is empty);
//! - avoided squares concern tiles with a single open line left: an end of
//!   it whose other end is a disc (filling it kills the tile); either end of
//!   it while the tile is face down (a blind choice of colour — edge tiles
//!   are the typical case: the edge discs beside them can never turn); and,
//!   for a face-up tile, its ends for a disc of the tile's own colour.
//!
//! A rollout stops as soon as no tile can be won any more
//! ([`SoloState::is_settled`]).
//!
//! Limits: the estimate is only as good as the rollout policy (one step of
//! improvement, not an optimal policy); the risk penalty and the avoided
//! squares are hand-made rules tuned on a few hundred games, not learned;
//! the variant's all-blanks bonus is seen only through the rollouts; the
//! cost is `moves × rollouts` rollouts per decision (no tree, no reuse
//! between moves). An expectimax over chance nodes was not built, so
//! there is no measurement of how far this is from optimal play. The player never stops early: stopping can never raise the
//! score, so it plays until the score is settled.
//!
//! Determinism: every random choice comes from [`Rng`] seeded by the
//! configuration's seed and the move number, so a seed fixes a game.

use super::{Deal, Objective, SoloError, SoloGame, SoloMove, SoloState};
use crate::bitboard::{Squares, shift};
use crate::board::Color;
use crate::rng::{Rng, mix};
use crate::square::{Direction, Square};

/// Variant points per tile (220 / 24, rounded), to scale the risk penalty.
const VARIANT_PER_TILE: f64 = 9.0;

/// Something that chooses moves in the solo puzzle.
pub trait SoloPlayer {
    /// A legal move, or `None` to stop.
    fn choose(&mut self, state: &SoloState) -> Option<SoloMove>;
}

/// Plays `game` to its end with `player` (stopping when it says so).
///
/// # Errors
/// The player chose an illegal move.
pub fn play_out(game: &mut SoloGame, player: &mut dyn SoloPlayer) -> Result<(), SoloError> {
    while !game.is_over() {
        match player.choose(game.state()) {
            Some(m) => {
                game.play(m)?;
            }
            None => game.stop(),
        }
    }
    Ok(())
}

/// Uniformly random legal moves until the score is settled.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// A random player whose choices are fixed by `seed`.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: Rng::new(mix(seed ^ 0x7a4d_0b1e)),
        }
    }
}

impl SoloPlayer for RandomPlayer {
    fn choose(&mut self, state: &SoloState) -> Option<SoloMove> {
        if state.is_settled() {
            return None;
        }
        let v = state.legal_moves();
        Some(v[self.rng.below(v.len() as u64) as usize])
    }
}

/// Settings of the Monte-Carlo player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonteCarloConfig {
    /// Sampled deals (one rollout each) per legal move.
    pub rollouts: u32,
    /// What to maximise.
    pub objective: Objective,
    /// Seed of every random choice.
    pub seed: u64,
    /// Tiles taken off the estimate of a move on an avoided square (see
    /// the module documentation); scaled to the variant's units.
    pub risk_penalty: f64,
}

impl Default for MonteCarloConfig {
    fn default() -> Self {
        MonteCarloConfig {
            rollouts: 32,
            objective: Objective::Tiles,
            seed: 0,
            risk_penalty: 3.0,
        }
    }
}

/// The Monte-Carlo player (see the module documentation).
#[derive(Clone, Debug)]
pub struct MonteCarlo {
    cfg: MonteCarloConfig,
}

impl MonteCarlo {
    /// A player with these settings.
    pub fn new(cfg: MonteCarloConfig) -> MonteCarlo {
        MonteCarlo { cfg }
    }

    /// The settings.
    pub fn config(&self) -> &MonteCarloConfig {
        &self.cfg
    }

    /// Every legal move with its estimated expected final score, best
    /// first (ties in move order). Empty when no move is legal.
    pub fn evaluate(&self, state: &SoloState) -> Vec<(SoloMove, f64)> {
        let moves = state.legal_moves();
        if moves.is_empty() {
            return Vec::new();
        }
        let n = self.cfg.rollouts.max(1);
        let played = u64::from(super::TILES as u32 - state.tiles().count_ones())
            + u64::from((state.discs(Color::Black) | state.discs(Color::White)).count_ones());
        let base = mix(self.cfg.seed ^ mix(played));
        let mut deal_rng = Rng::new(base);
        let deals: Vec<Deal> = (0..n).map(|_| Deal::sample(state, &mut deal_rng)).collect();
        let unit = match self.cfg.objective {
            Objective::Tiles => 1.0,
            Objective::Variant => VARIANT_PER_TILE,
        };
        let avoid = avoid_squares(state);
        let mut out: Vec<(SoloMove, f64)> = moves
            .iter()
            .map(|&m| {
                let k = usize::from(m.color == Color::White);
                let penalty = if avoid[k] & m.square.bit() != 0 {
                    self.cfg.risk_penalty * unit
                } else {
                    0.0
                };
                let mut total = 0u64;
                for (i, deal) in deals.iter().enumerate() {
                    let mut s = state.clone();
                    s.play_unchecked(m, |sq| deal.at(sq).expect("sampled tile"));
                    let mut rng = Rng::new(mix(base ^ (i as u64 + 1)));
                    total += u64::from(rollout(&mut s, deal, &mut rng, self.cfg.objective));
                }
                (m, total as f64 / f64::from(n) - penalty)
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }
}

impl SoloPlayer for MonteCarlo {
    fn choose(&mut self, state: &SoloState) -> Option<SoloMove> {
        if state.is_settled() {
            return None;
        }
        self.evaluate(state).first().map(|x| x.0)
    }
}

/// Value of the tiles on `b` under `obj`, for the rollout's choice of
/// capture. In the variant a blank counts 10: winning all four doubles the
/// score, so each blank is worth about as much as the best numbers
/// (measured: +3 to +5 variant points over counting blanks as 1).
fn tiles_value(state: &SoloState, b: u64, obj: Objective) -> u32 {
    match obj {
        Objective::Tiles => b.count_ones(),
        Objective::Variant => Squares(b)
            .map(|sq| {
                state.tile_at(sq).map_or(0, |t| {
                    if t.is_blank() {
                        10
                    } else {
                        u32::from(t.value())
                    }
                })
            })
            .sum(),
    }
}

/// Squares where a disc of `c` prepares a capture: next to a face-up tile
/// of the other colour whose opposite neighbour is empty.
fn threat_squares(state: &SoloState, c: Color) -> u64 {
    let prey = state.face_up(c.other());
    let empty = state.empty();
    let mut m = 0;
    for d in Direction::ALL {
        // square s, tile at s+d, empty at s+2d: move from the empty square
        // two steps back.
        m |= shift(shift(empty, d) & prey, d);
    }
    m & empty
}

/// Squares the rollout policy avoids for each colour (Black, White), all
/// about tiles with a single open line left (see
/// [`SoloState::dead_tiles`]): an end of that line when the other end is a
/// disc (any disc there kills the tile, unless it wins it, which the policy
/// has already tried); either end when the tile is face down (a blind
/// commitment of colour: edge discs next to an edge tile can never turn);
/// and, for a face-up tile, its ends for a disc of the tile's own colour.
fn avoid_squares(s: &SoloState) -> [u64; 2] {
    let discs = s.discs(Color::Black) | s.discs(Color::White);
    let free = !discs;
    let axes = [
        (Direction::N, Direction::S),
        (Direction::E, Direction::W),
        (Direction::NE, Direction::SW),
        (Direction::NW, Direction::SE),
    ];
    let mut open = [0u64; 4];
    let (mut seen, mut two) = (0u64, 0u64);
    for (k, &(a, b)) in axes.iter().enumerate() {
        let both = shift(!0, a) & shift(!0, b);
        open[k] = s.tiles() & both & (shift(free, a) | shift(free, b));
        two |= seen & open[k];
        seen |= open[k];
    }
    let single = seen & !two;
    let (mut all, mut own) = (0u64, [0u64; 2]);
    for (k, &(a, b)) in axes.iter().enumerate() {
        let t = single & open[k];
        // The b-neighbour is a disc: the a-neighbour is critical, and back.
        all |= shift(t & shift(discs, a), a) | shift(t & shift(discs, b), b);
        let ends = |x: u64| shift(x, a) | shift(x, b);
        all |= ends(t & s.face_down());
        own[0] |= ends(t & s.face_up(Color::Black));
        own[1] |= ends(t & s.face_up(Color::White));
    }
    let e = s.empty();
    [(all | own[0]) & e, (all | own[1]) & e]
}

/// Finishes the game with the rollout policy; returns the final score.
fn rollout(s: &mut SoloState, deal: &Deal, rng: &mut Rng, obj: Objective) -> u32 {
    let reveal = |sq: Square| deal.at(sq).expect("sampled tile");
    while s.tiles() != 0 {
        let legal = [s.legal_squares(Color::Black), s.legal_squares(Color::White)];
        if legal[0] | legal[1] == 0 {
            break;
        }
        let cap = [
            s.capture_squares(Color::Black),
            s.capture_squares(Color::White),
        ];
        let avoid = avoid_squares(s);
        let safe = [legal[0] & !avoid[0], legal[1] & !avoid[1]];
        let fd = s.face_down();
        let reveal_sq = (shift(fd, Direction::N)
            | shift(fd, Direction::S)
            | shift(fd, Direction::E)
            | shift(fd, Direction::W))
            & s.empty();
        if cap[0] | cap[1] != 0 {
            // The most valuable capture; among equals, one off the avoided
            // squares.
            let mut best = None;
            let mut best_v = 0;
            for (k, color) in [Color::Black, Color::White].into_iter().enumerate() {
                for square in Squares(cap[k]) {
                    let m = SoloMove { color, square };
                    let v = 2 * tiles_value(s, s.effect(m).1, obj)
                        + u32::from(avoid[k] & square.bit() == 0);
                    if best.is_none() || v > best_v {
                        best = Some(m);
                        best_v = v;
                    }
                }
            }
            let risky = best_v & 1 == 0;
            let reveal_safe = [safe[0] & reveal_sq, safe[1] & reveal_sq];
            let m = if risky && reveal_safe[0] | reveal_safe[1] != 0 {
                // Turn a tile up first; the capture usually stays available.
                Some(pick(reveal_safe, rng))
            } else if risky && (safe[0] & !cap[0]) | (safe[1] & !cap[1]) != 0 && rng.below(2) == 0 {
                None // put off half the time
            } else {
                best
            };
            if let Some(m) = m {
                s.play_unchecked(m, reveal);
                continue;
            }
        }
        if s.dead_tiles() == s.tiles() {
            break;
        }
        // Preferred moves: reveal a tile or prepare a capture.
        let good = [
            safe[0] & (reveal_sq | threat_squares(s, Color::Black)),
            safe[1] & (reveal_sq | threat_squares(s, Color::White)),
        ];
        let pool = if good[0] | good[1] != 0 && rng.below(4) != 0 {
            good
        } else if safe[0] | safe[1] != 0 {
            safe
        } else {
            legal
        };
        s.play_unchecked(pick(pool, rng), reveal);
    }
    s.score(obj)
}

/// A uniformly chosen move among the squares of `pool` (Black, White).
fn pick(pool: [u64; 2], rng: &mut Rng) -> SoloMove {
    let n0 = u64::from(pool[0].count_ones());
    let k = rng.below(n0 + u64::from(pool[1].count_ones()));
    let (color, b, k) = if k < n0 {
        (Color::Black, pool[0], k)
    } else {
        (Color::White, pool[1], k - n0)
    };
    SoloMove {
        color,
        square: Square::from_index_unchecked(nth_bit(b, k) as u8),
    }
}

/// Index of the `k`-th set bit of `b` (`k < popcount`).
fn nth_bit(mut b: u64, k: u64) -> usize {
    for _ in 0..k {
        b &= b - 1;
    }
    b.trailing_zeros() as usize
}
