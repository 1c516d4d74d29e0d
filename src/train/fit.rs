//! Fitting the weights: regularised least squares per stage (towards zero,
//! or towards given weights for a fine-tune), solved by
//! full-batch gradient descent preconditioned by feature counts (each
//! weight's step is divided by how often its feature occurs, as in Buro's
//! Logistello training), with momentum.
//!
//! Stages are fitted independently and in parallel (rayon); within a stage
//! the arithmetic is sequential, so a fit is deterministic whatever the
//! thread count. A stage is trained on the positions of its own empties
//! plus a margin on both sides, which smooths the weights from one stage to
//! the next.

use crate::eval::pattern::{FeatureSet, MAX_FEATURES, N_STAGES, canon, raw_features};
use crate::eval::{SCALE, Weights};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A training position: the board (side to move first) and its label, the
/// final disc difference for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
    /// Disc difference for the side to move (-64..=64).
    pub label: i8,
    /// Where it comes from ([`SOURCE_WTHOR`], [`SOURCE_LOGBOOK`],
    /// [`SOURCE_DATAGEN`]); selects its weight in the fit.
    pub source: u8,
}

/// Source of a WTHOR game position.
pub const SOURCE_WTHOR: u8 = 0;
/// Source of a Logistello logbook position.
pub const SOURCE_LOGBOOK: u8 = 1;
/// Source of a self-play (`annex datagen`) position.
pub const SOURCE_DATAGEN: u8 = 2;
/// Number of sources.
pub const N_SOURCES: usize = 3;
/// Source names, by source number (as `--source-weight` spells them).
pub const SOURCE_NAMES: [&str; N_SOURCES] = ["wthor", "logbook", "datagen"];

impl Sample {
    /// Empty squares.
    pub fn empties(&self) -> u32 {
        (!(self.player | self.opponent)).count_ones()
    }
}

/// Fitting parameters.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Features to fit.
    pub set: FeatureSet,
    /// Full passes over each stage's positions.
    pub epochs: usize,
    /// L2 regularisation (in squared-disc units, per weight).
    pub lambda: f32,
    /// Step size (fraction of the count-preconditioned step).
    pub rate: f32,
    /// Momentum.
    pub momentum: f32,
    /// Extra empties taken from each neighbouring stage.
    pub margin: u32,
    /// With one stage an empty (64 stages): train each stage only on the
    /// positions whose empties have the parity of its own, so that odd and
    /// even positions never share a fit (the margin still counts empties).
    pub same_parity: bool,
    /// Number of stages (one of [`crate::eval::pattern::STAGE_COUNTS`]).
    pub stages: usize,
    /// Weight of each source's samples in the loss, by source number (a
    /// sample of weight 2 counts as two samples; 0 drops the source).
    pub source_weights: [f32; N_SOURCES],
    /// Weights to start from and regularise towards (the same features
    /// and stage count), instead of zero: a fine-tune that keeps what their
    /// own training data taught where the new data is thin (`--init`).
    pub prior: Option<std::sync::Arc<Weights>>,
    /// Print progress on stderr.
    pub progress: bool,
}

impl Default for FitConfig {
    fn default() -> FitConfig {
        FitConfig {
            set: FeatureSet::PatternsMobility,
            epochs: 50,
            lambda: 2.0,
            rate: 0.05,
            momentum: 0.9,
            margin: 2,
            same_parity: false,
            stages: N_STAGES,
            source_weights: [1.0; N_SOURCES],
            prior: None,
            progress: true,
        }
    }
}

/// What one stage's fit did.
#[derive(Clone, Debug)]
pub struct StageFit {
    /// Stage number.
    pub stage: usize,
    /// Positions it was trained on (of a source of weight above 0).
    pub samples: usize,
    /// Training mean squared error (disc², weighted by source) before each
    /// epoch, and after the last.
    pub mse: Vec<f64>,
}

/// Empties range `[lo, hi]` trained for `stage` of `stages`.
pub fn stage_window(stage: usize, stages: usize, margin: u32) -> (u32, u32) {
    let width = (64 / stages) as u32;
    let lo = (stage as u32 * width).saturating_sub(margin);
    let hi = if stage == stages - 1 {
        64
    } else {
        stage as u32 * width + width - 1 + margin
    };
    (lo, hi)
}

/// Fits all stages. `by_empties[e]` holds the training positions with `e`
/// empties. Returns the weights and a report per stage.
pub fn fit(by_empties: &[Vec<Sample>], cfg: &FitConfig) -> (Weights, Vec<StageFit>) {
    let c = canon(cfg.set);
    let done = AtomicUsize::new(0);
    let n_stages = cfg.stages;
    let fits: Vec<(Vec<f32>, StageFit)> = (0..n_stages)
        .into_par_iter()
        .map(|s| {
            let r = fit_stage(by_empties, s, cfg);
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if cfg.progress {
                eprintln!(
                    "train: stage {s:2} done ({d}/{n_stages}): {} positions, mse {:.2} -> {:.2}",
                    r.1.samples,
                    r.1.mse.first().copied().unwrap_or(0.0),
                    r.1.mse.last().copied().unwrap_or(0.0)
                );
            }
            r
        })
        .collect();
    let mut w = Weights::zeros_staged(cfg.set, cfg.stages);
    let mut reports = Vec::new();
    for (s, (ws, rep)) in fits.into_iter().enumerate() {
        for (dst, &x) in w.data[s * c.size..(s + 1) * c.size].iter_mut().zip(&ws) {
            *dst = (x * SCALE as f32)
                .round()
                .clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        }
        reports.push(rep);
    }
    (w, reports)
}

fn fit_stage(by_empties: &[Vec<Sample>], stage: usize, cfg: &FitConfig) -> (Vec<f32>, StageFit) {
    let c = canon(cfg.set);
    let nf = cfg.set.n_features();
    let (lo, hi) = stage_window(stage, cfg.stages, cfg.margin);
    let parity = cfg.same_parity && cfg.stages == 64;
    let used =
        |e: usize| (lo..=hi).contains(&(e as u32)) && (!parity || (e + stage).is_multiple_of(2));
    let cap: usize = by_empties
        .iter()
        .enumerate()
        .filter(|(e, _)| used(*e))
        .map(|(_, v)| v.len())
        .sum();
    let mut idx: Vec<u32> = Vec::with_capacity(cap * nf);
    let mut labels: Vec<f32> = Vec::with_capacity(cap);
    let mut weights: Vec<f32> = Vec::with_capacity(cap);
    let mut counts = vec![0f32; c.size];
    let mut raw = [0u32; MAX_FEATURES];
    for (e, v) in by_empties.iter().enumerate() {
        if !used(e) {
            continue;
        }
        for smp in v {
            let wt = cfg
                .source_weights
                .get(smp.source as usize)
                .copied()
                .unwrap_or(1.0);
            if wt <= 0.0 {
                continue;
            }
            raw_features(smp.player, smp.opponent, cfg.set, &mut raw);
            for &r in &raw[..nf] {
                let i = c.map[r as usize];
                idx.push(i);
                counts[i as usize] += wt;
            }
            labels.push(smp.label as f32);
            weights.push(wt);
        }
    }
    let w0: Vec<f32> = match &cfg.prior {
        Some(p) => p.data[stage * c.size..(stage + 1) * c.size]
            .iter()
            .map(|&x| f32::from(x) / SCALE as f32)
            .collect(),
        None => vec![0f32; c.size],
    };
    let mut w = w0.clone();
    let mut vel = vec![0f32; c.size];
    let mut grad = vec![0f32; c.size];
    let inv: Vec<f32> = counts.iter().map(|&k| 1.0 / (k + cfg.lambda)).collect();
    let n = labels.len();
    let total_weight: f64 = weights.iter().map(|&x| x as f64).sum();
    let mut mse = Vec::with_capacity(cfg.epochs + 1);
    for epoch in 0..=cfg.epochs {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut sse = 0f64;
        for (k, (&y, &wt)) in labels.iter().zip(&weights).enumerate() {
            let f = &idx[k * nf..(k + 1) * nf];
            let pred: f32 = f.iter().map(|&i| w[i as usize]).sum();
            let r = pred - y;
            sse += (wt * r * r) as f64;
            for &i in f {
                grad[i as usize] += wt * r;
            }
        }
        mse.push(if total_weight > 0.0 {
            sse / total_weight
        } else {
            0.0
        });
        if epoch == cfg.epochs {
            break;
        }
        for i in 0..c.size {
            let g = (grad[i] + cfg.lambda * (w[i] - w0[i])) * inv[i];
            vel[i] = cfg.momentum * vel[i] - cfg.rate * g;
            w[i] += vel[i];
        }
        if cfg.progress && epoch % 50 == 0 && epoch > 0 {
            eprintln!(
                "train: stage {stage:2} epoch {epoch:4}/{}: mse {:.3}",
                cfg.epochs, mse[epoch]
            );
        }
    }
    let rep = StageFit {
        stage,
        samples: n,
        mse,
    };
    (w, rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use std::sync::Arc;

    /// Weights with varied, non-zero values everywhere.
    fn varied(set: FeatureSet) -> Weights {
        let mut w = Weights::zeros_staged(set, N_STAGES);
        for (i, x) in w.data.iter_mut().enumerate() {
            *x = ((i * 7919) % 201) as i16 - 100;
        }
        w
    }

    /// The stage-`stage` value of `w` for a position, in discs.
    fn value(w: &Weights, stage: usize, player: u64, opponent: u64) -> f32 {
        let c = canon(w.set);
        let mut raw = [0u32; MAX_FEATURES];
        raw_features(player, opponent, w.set, &mut raw);
        raw[..w.set.n_features()]
            .iter()
            .map(|&r| f32::from(w.data[stage * c.size + c.map[r as usize] as usize]))
            .sum::<f32>()
            / SCALE as f32
    }

    #[test]
    fn a_prior_is_kept_without_data_and_pulled_towards_the_labels_with_it() {
        let set = FeatureSet::PatternsMobility;
        let prior = Arc::new(varied(set));
        let cfg = FitConfig {
            epochs: 200,
            prior: Some(prior.clone()),
            progress: false,
            ..FitConfig::default()
        };
        let mut by_empties = vec![Vec::new(); 65];
        assert_eq!(fit(&by_empties, &cfg).0, *prior);
        let none = FitConfig {
            prior: None,
            ..cfg.clone()
        };
        assert!(fit(&by_empties, &none).0.data.iter().all(|&x| x == 0));

        // The start position (60 empties, the last stage) labelled +10.
        let b = Board::start();
        let s = Sample {
            player: b.player,
            opponent: b.opponent,
            label: 10,
            source: SOURCE_WTHOR,
        };
        by_empties[60] = vec![s; 50];
        let (w, _) = fit(&by_empties, &cfg);
        let last = N_STAGES - 1;
        let before = value(&prior, last, b.player, b.opponent);
        let after = value(&w, last, b.player, b.opponent);
        assert!((after - 10.0).abs() < 1.0, "{before} -> {after}");
        assert!(
            (before - 10.0).abs() > 2.0,
            "the prior already fits: {before}"
        );
        // Stages without data keep the prior's weights.
        let size = canon(set).size;
        assert_eq!(w.data[..size], prior.data[..size]);
    }
}
