//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared data folder: `$ANNEX_DATA`, else `../shared/data` beside the
/// checkout.
pub fn data_dir() -> PathBuf {
    if let Ok(d) = std::env::var("ANNEX_DATA") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// Reads a data file, panicking with a clear message when it is missing.
pub fn read_data(rel: &str) -> String {
    let p = data_dir().join(rel);
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("cannot read {} ({e}); set ANNEX_DATA", p.display()))
}
