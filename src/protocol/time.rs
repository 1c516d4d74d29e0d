//! Time allocation: a pure function from the clock to the time one move may
//! take. See `protocol.md`, section "Time management".
//!
//! The side to move has about `empties / 2` moves left (fewer when the
//! opponent passes, never more). A sudden-death clock is spread evenly over
//! the moves before the last 10 empties (which the endgame solver settles
//! in a moment), with a reserve of `overhead` per remaining move for the
//! pipe and the GUI; no move takes more than half of the usable clock. The budget is handed to the search as a move time,
//! a hard limit at which it stops, so the clock cannot run out unless the
//! real overhead per move exceeds the reserve.
//!
//! Why here and not in the engine's own plan: measured on a 1.5 s + 10 ms
//! game (`tests/protocol.rs`, `time_management_game_never_flags`), the
//! engine's soft/hard plan spent most of the clock in the opening (moves
//! overshoot the soft limit up to its 4× hard cap) and reached the endgame
//! with 57 ms left at 16 empties; the split below reaches 16 empties with
//! about a third of the clock (figures in the commit message).
//!
//! ```
//! use annex::protocol::time::allocate;
//! use std::time::Duration;
//! let ms = Duration::from_millis;
//! // 60 s for 30 moves: about 2 s each (3/4 of the increment on top).
//! let t = allocate(ms(60_000), ms(0), None, 60, ms(30));
//! assert!(t > ms(1500) && t < ms(2500));
//! // A clock that is nearly gone still gives a positive, safe time.
//! let t = allocate(ms(20), ms(0), None, 20, ms(30));
//! assert!(t >= ms(1) && t <= ms(10));
//! ```

use std::time::Duration;

/// The least time a search is given (it always finishes depth 1).
pub const MIN_MOVE_TIME: Duration = Duration::from_millis(1);

/// The time the side to move may spend on this move.
///
/// * `remaining`: its clock; `inc`: its increment per move;
/// * `movestogo`: moves to the next time control (`None` = sudden death);
/// * `empties`: empty squares on the board;
/// * `overhead`: time lost per move outside the search (pipe, GUI).
pub fn allocate(
    remaining: Duration,
    inc: Duration,
    movestogo: Option<u32>,
    empties: u32,
    overhead: Duration,
) -> Duration {
    // Moves of ours still to play, and the moves the clock is planned over:
    // the last ~10 empties are solved exactly in a moment, so a
    // sudden-death clock is spread over the moves before them.
    let ours = empties.div_ceil(2).max(1);
    let (planned, period) = match movestogo {
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
    // bounds every allocation; no single move takes more than half of what
    // is usable unless it is the last of the period.
    let ceiling = remaining.saturating_sub(overhead.saturating_mul(2)) * 9 / 10;
    let cap = if period == 1 {
        ceiling
    } else {
        (usable / 2 + inc / 2).min(ceiling)
    };
    share.min(cap).max(MIN_MOVE_TIME)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Plays a whole game against the clock: whatever the increment, the
    /// sum of the allocations plus the overhead never exceeds the clock.
    #[test]
    fn never_loses_on_time() {
        for total in [50, 200, 1_000, 10_000, 300_000] {
            for inc in [0, 10, 100, 2_000] {
                for overhead in [0, 10, 50] {
                    let mut clock = ms(total);
                    for empties in (1..=60).rev().step_by(2) {
                        let t = allocate(clock, ms(inc), None, empties, ms(overhead));
                        let spent = t + ms(overhead);
                        assert!(
                            spent <= clock || clock <= ms(overhead * 2 + 1),
                            "total {total} inc {inc} oh {overhead} empties {empties}: {t:?} of {clock:?}"
                        );
                        clock = clock.saturating_sub(spent) + ms(inc);
                    }
                }
            }
        }
    }

    #[test]
    fn movestogo_spends_more_per_move() {
        let a = allocate(ms(10_000), ms(0), Some(5), 50, ms(10));
        let b = allocate(ms(10_000), ms(0), None, 50, ms(10));
        assert!(a > b, "{a:?} {b:?}");
        let last = allocate(ms(10_000), ms(0), Some(1), 50, ms(10));
        assert!(last > ms(8_000) && last < ms(10_000), "{last:?}");
    }
}
