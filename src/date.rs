//! The dates the tools stamp on what they write: a GGF game's `DT[…]`
//! (`annex match`, `annex serve`). The calendar is `jiff`'s.

use jiff::Timestamp;

/// GGF's date form: `2026.11.25_23:59:59.UTC`.
const GGF_FORMAT: &str = "%Y.%m.%d_%H:%M:%S.UTC";

/// `t` in GGF's form, in UTC.
pub fn ggf(t: Timestamp) -> String {
    t.strftime(GGF_FORMAT).to_string()
}

/// Now, in GGF's form.
pub fn ggf_now() -> String {
    ggf(Timestamp::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ggf_dates() {
        // 2000-02-29 01:01:01, a leap day of a century leap year.
        let t = Timestamp::from_second(951_782_400 + 3661).unwrap();
        assert_eq!(ggf(t), "2000.02.29_01:01:01.UTC");
        assert_eq!(ggf(Timestamp::UNIX_EPOCH), "1970.01.01_00:00:00.UTC");
        let t = Timestamp::from_second(4_102_444_799).unwrap();
        assert_eq!(ggf(t), "2099.12.31_23:59:59.UTC");
        assert_eq!(ggf_now().len(), "2026.11.25_23:59:59.UTC".len());
    }
}
