//! Time allocation (pure functions; only the controller reads the clock).
//!
//! With a clock, the expected number of own moves left shrinks with the
//! empties faster than the game does, so more time goes to the moves near
//! the exact-solve point (about 20 empties), where it pays most. A soft
//! limit says "do not start another iteration after about half of it"; the
//! hard limit stops the search. A plain `movetime` (no clock) has no soft
//! limit: the search uses the time given, less [`OVERHEAD`].
//!
//! ```
//! use annex::search::{Limits, time::plan};
//! use annex::board::Color;
//! use std::time::Duration;
//! let mut l = Limits::default();
//! l.time[0] = Some(Duration::from_secs(60));
//! let p = plan(&l, Color::Black, 40);
//! assert!(p.soft.unwrap() < p.hard.unwrap());
//! assert!(p.hard.unwrap() <= Duration::from_secs(30));
//! ```

use super::Limits;
use crate::board::Color;
use std::time::Duration;

/// Time reserved for communication per move.
pub const OVERHEAD: Duration = Duration::from_millis(15);

/// Soft and hard limits of one search (`None`: no limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimePlan {
    /// Do not start a new iteration once about half of this has passed.
    pub soft: Option<Duration>,
    /// Stop the search.
    pub hard: Option<Duration>,
}

/// The plan for `limits` with `side` to move and `empties` empty squares.
pub fn plan(limits: &Limits, side: Color, empties: u32) -> TimePlan {
    let min = Duration::from_millis(2);
    let i = match side {
        Color::Black => 0,
        Color::White => 1,
    };
    if let Some(m) = limits.movetime {
        let t = m.saturating_sub(OVERHEAD).max(min);
        // A move time the protocol made from a clock: do not start an
        // iteration after half of it (what is left is kept for later
        // moves). A `movetime` of the user is used up to the overhead.
        let soft = limits.time[i].is_some().then_some(t);
        return TimePlan {
            soft,
            hard: Some(t),
        };
    }
    let Some(left) = limits.time[i] else {
        return TimePlan::default();
    };
    let inc = limits.inc[i];
    let usable = left.saturating_sub(OVERHEAD).max(min);
    let mtg = limits
        .movestogo
        .unwrap_or(empties.saturating_sub(10) / 2 + 3)
        .max(1);
    let soft = (usable / mtg + inc * 3 / 4).min(usable);
    let hard = (soft * 4).min(usable / 2 + inc).min(usable).max(soft);
    TimePlan {
        soft: Some(soft.max(min)),
        hard: Some(hard.max(min)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        let mut l = Limits::default();
        assert_eq!(plan(&l, Color::White, 30), TimePlan::default());
        l.movetime = Some(Duration::from_millis(500));
        let p = plan(&l, Color::White, 30);
        assert_eq!(p.soft, None, "a fixed move time is used up");
        assert!(p.hard.unwrap() < Duration::from_millis(500));
        assert!(p.hard.unwrap() >= Duration::from_millis(480));
        // The same move time made from a clock keeps the soft stop.
        l.time[1] = Some(Duration::from_secs(10));
        let p = plan(&l, Color::White, 30);
        assert_eq!(p.soft, p.hard);
        l.time[1] = None;
        l.movetime = None;
        l.time[1] = Some(Duration::from_millis(10));
        let p = plan(&l, Color::White, 30);
        assert!(p.hard.unwrap() <= Duration::from_millis(10));
        l.movestogo = Some(1);
        l.time[1] = Some(Duration::from_secs(10));
        let p = plan(&l, Color::White, 30);
        assert!(p.hard.unwrap() <= Duration::from_secs(10));
    }
}
