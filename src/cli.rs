//! Argument types shared by the command-line tools behind `annex
//! <subcommand>`. Each feature owns its own command-line face (its `cli`
//! module, or `bench`/`solve`); each returns a result and writes its report
//! on stdout (tools are not the protocol layer, but their report is their
//! whole output).

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
