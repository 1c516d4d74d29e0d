//! Command-line tools behind `annex <subcommand>`; each returns a result
//! and writes its report on stdout (tools are not the protocol layer, but
//! their report is their whole output).

pub mod book;
pub mod solo;

/// `annex bench`: the search signature.
pub mod bench;
/// `annex solve`: exact / WLD solving of OBF suites.
pub mod solve;
/// `annex match`: engine-versus-engine games.
pub mod match_;
/// `annex analyze`: JSON lines for scripts.
pub mod analyze;
/// `annex train` and `annex eval-measure`.
pub mod train;

use crate::rules::RuleSet;

/// The rule options `--start --flips --tie --scoring` shared by the
/// tools (`perft`, `match`, `analyze`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RuleFlags {
    /// Start position: diagonal, parallel or free.
    #[arg(long, default_value = "diagonal")]
    start: String,
    /// Flips: all or one-line.
    #[arg(long, default_value = "all")]
    flips: String,
    /// Tie rule: draw or second.
    #[arg(long, default_value = "draw")]
    tie: String,
    /// Scoring: wof or count.
    #[arg(long, default_value = "wof")]
    scoring: String,
}

impl RuleFlags {
    /// The rule set.
    ///
    /// # Errors
    /// An invalid value.
    pub fn rules(&self) -> Result<RuleSet, String> {
        let mut r = RuleSet::default();
        for (k, v) in [
            ("start", &self.start),
            ("flips", &self.flips),
            ("tie", &self.tie),
            ("scoring", &self.scoring),
        ] {
            r.set(k, v).map_err(|e| e.to_string())?;
        }
        Ok(r)
    }
}
