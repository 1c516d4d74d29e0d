//! The data folder of the tools (`--data`): the public data sets that
//! `annex datagen`, `annex train` and `annex eval-measure` read, laid out
//! like the repository's `data/` (`data/SOURCES.md`).
//!
//! The repository ships the small sets (the endgame suites, the XOT
//! openings, three WTHOR years); the full sets (every WTHOR year, the
//! Logistello book games) live in a folder of the same layout that
//! `ANNEX_DATA` or `--data` names.

use std::path::{Path, PathBuf};

/// The environment variable that names the default data folder.
pub const ENV: &str = "ANNEX_DATA";

/// The default of `--data`: `$ANNEX_DATA` when it is set and not empty,
/// else `data`, the repository's folder relative to the current directory.
pub fn default_dir() -> PathBuf {
    match std::env::var_os(ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from("data"),
    }
}

/// A data folder without a file or folder that a tool needs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the data folder {} has no {missing}: run from the repository's root (its data/ \
     folder), or name a folder that has it with --data DIR or {ENV}=DIR \
     (data/SOURCES.md describes the layout)",
    dir.display()
)]
pub struct MissingData {
    /// The data folder.
    pub dir: PathBuf,
    /// The first needed path it lacks, relative to it.
    pub missing: String,
}

/// Checks that `dir` holds each of `needed` (paths relative to it) before
/// a tool starts its work.
///
/// # Errors
/// [`MissingData`], naming the first missing path and what to pass
/// instead.
pub fn check(dir: &Path, needed: &[&str]) -> Result<(), MissingData> {
    match needed.iter().find(|rel| !dir.join(rel).exists()) {
        None => Ok(()),
        Some(rel) => Err(MissingData {
            dir: dir.to_path_buf(),
            missing: (*rel).to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_names_the_first_missing_file_and_what_to_pass() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        check(&data, &["openings/xot/openingslarge.txt", "wthor"]).unwrap();
        let e = check(&data, &["wthor", "logistello/logbook.gam.gz", "nothing"]).unwrap_err();
        assert_eq!(e.missing, "logistello/logbook.gam.gz");
        let e = e.to_string();
        assert!(e.contains("has no logistello/logbook.gam.gz"), "{e}");
        assert!(e.contains("--data DIR") && e.contains("ANNEX_DATA"), "{e}");
        assert!(!e.contains('\n'));
    }
}
