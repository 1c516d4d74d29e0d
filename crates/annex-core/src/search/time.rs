//! The time policy of a search: pure functions and a small state machine
//! (only the controller reads the clock). See `protocol.md`, section
//! "Time management". The protocols only parse clocks into [`Limits`] and
//! pass them on, with one move overhead setting (`Move Overhead`).
//!
//! **With a clock** ([`plan`]): the side to move has about `empties / 2`
//! moves left (fewer when the opponent passes, never more). A sudden-death
//! clock is spread evenly over the moves before the last 10 empties (which
//! the endgame solver settles in a moment), with `movestogo` over those
//! moves, plus three quarters of the increment: that is the move's share.
//! The **soft** limit is 1.5 times the share: the search stops starting
//! iterations at 30-80% of it (below), so a move spends about its share on
//! average (at 1.0 times, moves took about 0.55 of it and a game left half
//! of its clock unused; docs/strength.md, "Under a clock"). A reserve of
//! `overhead` per move still to play is kept back. The **hard** limit, at
//! which the search stops, is three times the share, but no
//! move takes more than half of the usable clock (unless it is the last of
//! its period) nor more than 90% of the clock in hand; so the clock cannot
//! run out unless the real overhead per move exceeds the setting.
//!
//! After each iteration [`TimeManager::stop_after_iteration`] decides
//! whether to start another: not once half of the soft limit has passed (an
//! iteration costs about as much as all before it); earlier, at 30%, when
//! the best move has stayed the same for three iterations; later, at 80%,
//! when it has just changed. A `movetime` given with the clock caps both
//! limits.
//!
//! **A plain `movetime`** (no clock) has no soft limit: the search uses the
//! time given, less the overhead.
//!
//! ```
//! use annex_core::search::{Limits, time::plan};
//! use annex_core::board::Color;
//! use std::time::Duration;
//! let ms = Duration::from_millis;
//! let mut l = Limits::default();
//! // 60 s for the 25 moves before the last 10 empties: a share of about
//! // 2.4 s, a soft limit of 1.5 times that.
//! l.time[0] = Some(ms(60_000));
//! let p = plan(&l, Color::Black, 60, ms(30));
//! let soft = p.soft.unwrap();
//! assert!(soft > ms(3300) && soft < ms(3700));
//! assert!(soft < p.hard.unwrap() && p.hard.unwrap() <= ms(30_000));
//! // A clock that is nearly gone still gives a positive, safe time.
//! l.time[0] = Some(ms(20));
//! let p = plan(&l, Color::Black, 20, ms(30));
//! assert!(p.hard.unwrap() >= ms(1) && p.hard.unwrap() <= ms(10));
//! ```

use super::Limits;
use crate::board::Color;
use crate::moves::Move;
use std::time::Duration;

/// The least time a search is given (it always finishes depth 1).
pub const MIN_MOVE_TIME: Duration = Duration::from_millis(1);

/// The default time lost per move outside the search (pipe, GUI): the
/// default of the engine's `Move Overhead` option, in milliseconds.
pub const DEFAULT_OVERHEAD_MS: u64 = 10;

/// Soft and hard limits of one search (`None`: no limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimePlan {
    /// 1.5 times the move's share of the clock: no new iteration once about
    /// half of it has passed (see [`TimeManager`]).
    pub soft: Option<Duration>,
    /// Stop the search.
    pub hard: Option<Duration>,
}

/// The plan for `limits` with `side` to move, `empties` empty squares and
/// `overhead` lost per move outside the search.
pub fn plan(limits: &Limits, side: Color, empties: u32, overhead: Duration) -> TimePlan {
    let i = side as usize;
    let fixed = limits
        .movetime
        .map(|m| m.saturating_sub(overhead).max(MIN_MOVE_TIME));
    let clock = limits.time[i].filter(|_| !limits.infinite);
    let Some(remaining) = clock else {
        // A `movetime` of the user is used up to the overhead.
        return TimePlan {
            soft: None,
            hard: fixed,
        };
    };
    let inc = limits.inc[i];
    // Moves of ours still to play, and the moves the clock is planned over:
    // the last ~10 empties are solved exactly in a moment, so a
    // sudden-death clock is spread over the moves before them.
    let ours = empties.div_ceil(2).max(1);
    let (planned, period) = match limits.movestogo {
        Some(n) => (n.clamp(1, ours), n.clamp(1, ours)),
        None => (empties.saturating_sub(10).div_ceil(2).clamp(1, ours), ours),
    };
    // What we may use without risk: the clock minus a reserve for the
    // overhead of every move still to play in the period.
    let reserve = overhead.saturating_mul(period.saturating_add(1));
    let usable = remaining.saturating_sub(reserve);
    // Even share, plus most of the increment (it comes back after the move).
    let share = usable / planned + inc.saturating_mul(3) / 4;
    // The increment only comes back after the move, so the clock in hand
    // bounds every move; no single move takes more than half of what is
    // usable unless it is the last of the period.
    let ceiling = remaining.saturating_sub(overhead.saturating_mul(2)) * 9 / 10;
    let cap = if period == 1 {
        ceiling
    } else {
        (usable / 2 + inc / 2).min(ceiling)
    };
    // Iterations stop at 30-80% of the soft limit: 1.5 shares spend about one.
    let mut soft = (share * 3 / 2).min(cap).max(MIN_MOVE_TIME);
    let mut hard = share.saturating_mul(3).min(cap).max(soft);
    if let Some(m) = fixed {
        soft = soft.min(m);
        hard = hard.min(m);
    }
    TimePlan {
        soft: Some(soft),
        hard: Some(hard),
    }
}

/// The time decisions of one search: its [`TimePlan`] and how stable the
/// best move has been.
#[derive(Clone, Debug)]
pub struct TimeManager {
    plan: TimePlan,
    best: Option<Move>,
    stable: u32,
}

impl TimeManager {
    /// A manager for `plan`.
    pub fn new(plan: TimePlan) -> TimeManager {
        TimeManager {
            plan,
            best: None,
            stable: 0,
        }
    }

    /// The plan.
    pub fn plan(&self) -> TimePlan {
        self.plan
    }

    /// After an iteration whose best move is `best`, `elapsed` into the
    /// timed search: whether not to start another. Without a soft limit,
    /// never.
    pub fn stop_after_iteration(&mut self, best: Move, elapsed: Duration) -> bool {
        let changed = self.best.is_some_and(|b| b != best);
        if self.best == Some(best) {
            self.stable += 1;
        } else {
            self.stable = 0;
        }
        self.best = Some(best);
        let Some(soft) = self.plan.soft else {
            return false;
        };
        let percent = if changed {
            80
        } else if self.stable >= 3 {
            30
        } else {
            50
        };
        elapsed >= soft * percent / 100
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    fn clock(left: u64, inc: u64, movestogo: Option<u32>) -> Limits {
        let mut l = Limits::default();
        l.time[0] = Some(ms(left));
        l.inc[0] = ms(inc);
        l.movestogo = movestogo;
        l
    }

    #[test]
    fn limits() {
        let mut l = Limits::default();
        assert_eq!(plan(&l, Color::White, 30, ms(15)), TimePlan::default());
        l.movetime = Some(ms(500));
        let p = plan(&l, Color::White, 30, ms(15));
        assert_eq!(p.soft, None, "a fixed move time is used up");
        assert_eq!(p.hard, Some(ms(485)));
        // A move time caps a clock's plan.
        l.time[1] = Some(Duration::from_secs(100));
        let p = plan(&l, Color::White, 30, ms(15));
        assert_eq!(p.soft, p.hard);
        assert_eq!(p.hard, Some(ms(485)));
        // `infinite` ignores the clock.
        l.movetime = None;
        l.infinite = true;
        assert_eq!(plan(&l, Color::White, 30, ms(15)), TimePlan::default());
    }

    /// Plays a whole game against the clock, every move up to its hard
    /// limit: whatever the increment, the clock never runs out.
    #[test]
    fn never_loses_on_time() {
        for total in [50, 200, 1_000, 10_000, 300_000] {
            for inc in [0, 10, 100, 2_000] {
                for overhead in [0, 10, 50] {
                    let mut left = ms(total);
                    for empties in (1..=60).rev().step_by(2) {
                        let mut l = clock(0, inc, None);
                        l.time[0] = Some(left);
                        let p = plan(&l, Color::Black, empties, ms(overhead));
                        let (soft, hard) = (p.soft.unwrap(), p.hard.unwrap());
                        assert!(soft <= hard);
                        let spent = hard + ms(overhead);
                        assert!(
                            spent <= left || left <= ms(overhead * 2 + 1),
                            "total {total} inc {inc} oh {overhead} empties {empties}: {hard:?} of {left:?}"
                        );
                        left = left.saturating_sub(spent) + ms(inc);
                    }
                }
            }
        }
    }

    #[test]
    fn movestogo_spends_more_per_move() {
        let a = plan(&clock(10_000, 0, Some(5)), Color::Black, 50, ms(10));
        let b = plan(&clock(10_000, 0, None), Color::Black, 50, ms(10));
        assert!(a.soft > b.soft, "{a:?} {b:?}");
        let last = plan(&clock(10_000, 0, Some(1)), Color::Black, 50, ms(10));
        let hard = last.hard.unwrap();
        assert!(hard > ms(8_000) && hard < ms(10_000), "{last:?}");
    }

    #[test]
    fn stability_moves_the_stop() {
        let a: Move = "d3".parse().unwrap();
        let b: Move = "f5".parse().unwrap();
        let p = TimePlan {
            soft: Some(ms(1000)),
            hard: Some(ms(2000)),
        };
        let mut t = TimeManager::new(p);
        assert!(!t.stop_after_iteration(a, ms(400)));
        assert!(t.stop_after_iteration(a, ms(500)), "half the soft limit");
        let mut t = TimeManager::new(p);
        assert!(!t.stop_after_iteration(a, ms(100)));
        assert!(
            !t.stop_after_iteration(b, ms(700)),
            "a new best move extends"
        );
        assert!(t.stop_after_iteration(b, ms(800)));
        let mut t = TimeManager::new(p);
        for _ in 0..3 {
            assert!(!t.stop_after_iteration(a, ms(10)));
        }
        assert!(
            t.stop_after_iteration(a, ms(300)),
            "a stable move stops early"
        );
        let mut t = TimeManager::new(TimePlan::default());
        assert!(!t.stop_after_iteration(a, Duration::MAX));
    }
}
