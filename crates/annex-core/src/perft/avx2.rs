//! The perft kernel's move generator: AVX2 versions of
//! [`crate::board::legal_moves`] and [`crate::board::flips`] for x86-64
//! CPUs that have AVX2 (with popcnt, lzcnt, BMI1/2): the four line
//! directions run in the four 64-bit lanes of one register. Same results as
//! the portable functions. Callers must check the features first
//! (`is_x86_feature_detected!`), which is why calling them is `unsafe`
//! outside code compiled with those features.

use crate::bitboard::RAYS;
use std::arch::x86_64::*;

/// Shift per lane: E/W, S/N, SE/NW, SW/NE.
#[target_feature(enable = "avx2,popcnt,lzcnt,bmi1,bmi2")]
#[inline]
fn shifts() -> __m256i {
    _mm256_set_epi64x(7, 9, 8, 1)
}

/// ORs the four lanes.
#[target_feature(enable = "avx2,popcnt,lzcnt,bmi1,bmi2")]
#[inline]
fn or_lanes(v: __m256i) -> u64 {
    let x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let y = _mm_or_si128(x, _mm_unpackhi_epi64(x, x));
    _mm_cvtsi128_si64(y) as u64
}

/// Legal move squares of `p` against `o` (see [`crate::board::legal_moves`]).
///
/// # Safety
/// The CPU must have AVX2, popcnt, lzcnt, BMI1 and BMI2.
#[target_feature(enable = "avx2,popcnt,lzcnt,bmi1,bmi2")]
#[inline]
pub fn legal_moves(p: u64, o: u64) -> u64 {
    const INNER: i64 = 0x7e7e_7e7e_7e7e_7e7e;
    let sh = shifts();
    let sh2 = _mm256_add_epi64(sh, sh);
    let pp = _mm256_set1_epi64x(p as i64);
    // Horizontal and diagonal runs may not wrap around a row's ends.
    let mask = _mm256_and_si256(
        _mm256_set1_epi64x(o as i64),
        _mm256_set_epi64x(INNER, INNER, -1, INNER),
    );
    let mut fl = _mm256_and_si256(mask, _mm256_sllv_epi64(pp, sh));
    let mut fr = _mm256_and_si256(mask, _mm256_srlv_epi64(pp, sh));
    fl = _mm256_or_si256(fl, _mm256_and_si256(mask, _mm256_sllv_epi64(fl, sh)));
    fr = _mm256_or_si256(fr, _mm256_and_si256(mask, _mm256_srlv_epi64(fr, sh)));
    let pl = _mm256_and_si256(mask, _mm256_sllv_epi64(mask, sh));
    let pr = _mm256_srlv_epi64(pl, sh);
    fl = _mm256_or_si256(fl, _mm256_and_si256(pl, _mm256_sllv_epi64(fl, sh2)));
    fr = _mm256_or_si256(fr, _mm256_and_si256(pr, _mm256_srlv_epi64(fr, sh2)));
    fl = _mm256_or_si256(fl, _mm256_and_si256(pl, _mm256_sllv_epi64(fl, sh2)));
    fr = _mm256_or_si256(fr, _mm256_and_si256(pr, _mm256_srlv_epi64(fr, sh2)));
    let m = _mm256_or_si256(_mm256_sllv_epi64(fl, sh), _mm256_srlv_epi64(fr, sh));
    or_lanes(m) & !(p | o)
}

/// The discs a move by `p` on empty square `sq` turns (see
/// [`crate::board::flips`]): towards higher squares the first non-O square of
/// each ray is found with `x & -x`; towards lower squares the O run
/// next to `sq` is grown by shifts and must end on a P disc.
///
/// # Safety
/// The CPU must have AVX2, popcnt, lzcnt, BMI1 and BMI2.
#[target_feature(enable = "avx2,popcnt,lzcnt,bmi1,bmi2")]
#[inline]
pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
    const INNER: i64 = 0x7e7e_7e7e_7e7e_7e7e;
    let sh = shifts();
    let sh2 = _mm256_add_epi64(sh, sh);
    let pp = _mm256_set1_epi64x(p as i64);
    let oo = _mm256_set1_epi64x(o as i64);
    let zero = _mm256_setzero_si256();
    let ones = _mm256_set1_epi64x(-1);
    // Up: rays E, S, SE, SW of `sq`.
    let r = &RAYS[sq];
    let ray = _mm256_set_epi64x(r[5] as i64, r[3] as i64, r[4] as i64, r[2] as i64);
    let x = _mm256_andnot_si256(oo, ray);
    let first = _mm256_and_si256(x, _mm256_sub_epi64(zero, x));
    let miss = _mm256_cmpeq_epi64(_mm256_and_si256(first, pp), zero);
    let up = _mm256_andnot_si256(miss, _mm256_and_si256(ray, _mm256_add_epi64(first, ones)));
    // Down: W, N, NW, NE, by growing the O run from `sq`.
    let mask = _mm256_and_si256(oo, _mm256_set_epi64x(INNER, INNER, -1, INNER));
    let b = _mm256_set1_epi64x((1u64 << sq) as i64);
    let mut f = _mm256_and_si256(mask, _mm256_srlv_epi64(b, sh));
    f = _mm256_or_si256(f, _mm256_and_si256(mask, _mm256_srlv_epi64(f, sh)));
    let pre = _mm256_and_si256(mask, _mm256_srlv_epi64(mask, sh));
    f = _mm256_or_si256(f, _mm256_and_si256(pre, _mm256_srlv_epi64(f, sh2)));
    f = _mm256_or_si256(f, _mm256_and_si256(pre, _mm256_srlv_epi64(f, sh2)));
    let end = _mm256_and_si256(_mm256_srlv_epi64(f, sh), pp);
    let down = _mm256_andnot_si256(_mm256_cmpeq_epi64(end, zero), f);
    or_lanes(_mm256_or_si256(up, down))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avx2_matches_portable() {
        if !(std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2"))
        {
            return;
        }
        let mut rng = crate::rng::Rng::new(0x0123_4567_89ab_cdef);
        let mut next = || rng.next_u64();
        for _ in 0..50_000 {
            let (a, b, c) = (next(), next(), next());
            let (p, o) = (a & b, !a & b & (c | c >> 1));
            // Safety: the features were just detected.
            let m = unsafe { legal_moves(p, o) };
            assert_eq!(m, crate::board::legal_moves(p, o));
            for sq in 0..64 {
                if (p | o) >> sq & 1 == 0 {
                    // Safety: as above.
                    assert_eq!(unsafe { flips(p, o, sq) }, crate::board::flips(p, o, sq));
                }
            }
        }
    }
}
