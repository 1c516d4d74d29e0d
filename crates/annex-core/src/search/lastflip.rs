//! How many discs a move on the last empty square turns, without building
//! the flip mask.
//!
//! With one empty square left every other square holds a disc, so along each
//! line through the square the discs of the side that does not move are
//! exactly the squares that are not the mover's. The count on a line then
//! depends only on the mover's discs on it: gathered into one byte (a row as
//! it is; a column or a diagonal by one multiplication, each of its squares
//! landing on its own bit), a table indexed by the square's place on the line
//! and that byte gives the count. Four lines, four lookups (the trick of
//! Edax's `count_last_flip`, written here from the idea).

/// `COUNT[i][m]`: discs turned on a line of 8 by a move on its square `i`
/// when the mover holds the squares of `m` and the other side the rest
/// (bit `i` itself is ignored). Squares beyond a shorter line read as 0 and
/// lie past its end, so they never close a run.
static COUNT: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut i = 0;
    while i < 8 {
        let mut m = 0;
        while m < 256 {
            let mut n = 0;
            // Upwards: the other side's discs up to the first of the mover's.
            let mut j = i + 1;
            while j < 8 && (m >> j) & 1 == 0 {
                j += 1;
            }
            if j < 8 {
                n += j - i - 1;
            }
            // Downwards.
            let mut k = i as i32 - 1;
            while k >= 0 && (m >> k) & 1 == 0 {
                k -= 1;
            }
            if k >= 0 {
                n += i - k as usize - 1;
            }
            t[i][m] = n as u8;
            m += 1;
        }
        i += 1;
    }
    t
};

/// The squares of the two diagonals through each square: `[sq][0]` the one
/// along which row and column grow together, `[sq][1]` the other.
static DIAGONALS: [[u64; 2]; 64] = {
    let mut t = [[0u64; 2]; 64];
    let mut s = 0;
    while s < 64 {
        let (r, c) = ((s / 8) as i32, (s % 8) as i32);
        let mut x = 0;
        while x < 64 {
            let (rx, cx) = (x / 8, x % 8);
            if rx - cx == r - c {
                t[s][0] |= 1u64 << x;
            }
            if rx + cx == r + c {
                t[s][1] |= 1u64 << x;
            }
            x += 1;
        }
        s += 1;
    }
    t
};

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Discs that a move by the owner of `p` on `sq` turns, where `sq` is the
/// only empty square (every square but `sq` not in `p` is the other side's).
/// Zero when the move is not legal.
#[inline]
pub(crate) fn last_flip_count(p: u64, sq: usize) -> u32 {
    let (r, c) = (sq / 8, sq % 8);
    // A row is a byte already; bit j is column j.
    let row = (p >> (8 * r)) as u8 as usize;
    // A column: bit 8k (row k) goes to bit 56 + k; no two products overlap.
    let col = (((p >> c) & FILE_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
    // A diagonal has one square a column: summing its rows into the top
    // byte puts column j on bit j, without carries.
    let d = &DIAGONALS[sq];
    let diag = ((p & d[0]).wrapping_mul(FILE_A) >> 56) as usize;
    let anti = ((p & d[1]).wrapping_mul(FILE_A) >> 56) as usize;
    (COUNT[c][row] + COUNT[r][col] + COUNT[c][diag] + COUNT[c][anti]) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::flips;
    use crate::rng::Rng;

    /// The count equals the flip mask's population on full boards with one
    /// hole, for either side and every square.
    #[test]
    fn count_matches_the_flip_mask() {
        let mut rng = Rng::new(0x1a57);
        for _ in 0..4000 {
            let full = rng.next_u64();
            for sq in 0..64 {
                let bit = 1u64 << sq;
                let p = full & !bit;
                let o = !full & !bit;
                assert_eq!(
                    last_flip_count(p, sq),
                    flips(p, o, sq).count_ones(),
                    "{p:#x} {sq}"
                );
                assert_eq!(
                    last_flip_count(o, sq),
                    flips(o, p, sq).count_ones(),
                    "{o:#x} {sq}"
                );
            }
        }
    }
}
