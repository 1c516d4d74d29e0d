//! The match itself: the schedule (every pair of engines plays `games`
//! games, each opening twice with colours swapped), worker threads, saving
//! to `--out` (`games.txt` + one GGF per game), resuming, and the SPRT stop.
//!
//! Schedule: pairs `(i, j)`, `i < j`, in order; game `g` of a pair (0-based)
//! uses opening `g / 2` (the next line of the openings file, cycling, or a
//! seeded pseudo-random line with `seed`), and engine `i` has X when `g` is
//! even. Game numbers run 1.. over all pairs, so a resumed match replays
//! exactly the games missing from `games.txt`.

use super::client::Client;
use super::game::{GameSpec, Referee, Side, play_game};
use super::lock::OutLock;
use super::resume::{Slot, load_saved};
use super::stats::{Verdict, Wld};
use super::{MatchConfig, MatchError, connect};
use crate::position::Position;
use crate::record::game_record::{GameRecord, GgfHeader, Outcome, Termination, ggf};
use crate::rng;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Results of a pair of engines.
#[derive(Clone, Debug, PartialEq)]
pub struct PairResult {
    /// First engine.
    pub a: String,
    /// Second engine.
    pub b: String,
    /// From `a`'s side.
    pub wld: Wld,
}

/// The outcome of a whole match.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// Per pair.
    pub pairs: Vec<PairResult>,
    /// Every game, in game-number order (resumed ones included).
    pub games: Vec<GameRecord>,
    /// The SPRT verdict when one was asked for.
    pub verdict: Option<Verdict>,
    /// Games that were already in `--out` and not replayed.
    pub resumed: usize,
}

#[derive(Clone, Debug)]
struct Job {
    pair: usize,
    black: usize,
    white: usize,
    spec: GameSpec,
}

fn schedule(cfg: &MatchConfig) -> (Vec<(usize, usize)>, Vec<Job>) {
    let n = cfg.engines.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let mut jobs = Vec::new();
    for (p, &(i, j)) in pairs.iter().enumerate() {
        for g in 0..cfg.games {
            let number = p * cfg.games + g + 1;
            let (black, white) = if g % 2 == 0 { (i, j) } else { (j, i) };
            let (opening, start, moves) = if cfg.openings.is_empty() {
                (None, Position::start(&cfg.rules), Vec::new())
            } else {
                let k = match cfg.seed {
                    Some(s) => rng::hash(s ^ rng::hash((p * cfg.games + g / 2) as u64)) as usize,
                    None => g / 2,
                } % cfg.openings.len();
                let o = &cfg.openings[k];
                (Some(o.line), o.start, o.moves.clone())
            };
            jobs.push(Job {
                pair: p,
                black,
                white,
                spec: GameSpec {
                    number,
                    opening,
                    start,
                    opening_moves: moves,
                },
            });
        }
    }
    (pairs, jobs)
}

fn save(
    cfg: &MatchConfig,
    rec: &GameRecord,
    tc: Option<(Duration, Duration)>,
) -> Result<(), MatchError> {
    let Some(out) = &cfg.out else {
        return Ok(());
    };
    let flag = match rec.end {
        Termination::Normal => "",
        Termination::Timeout => "t",
        _ => "r",
    };
    let h = GgfHeader {
        place: "annex match",
        black: &rec.black,
        white: &rec.white,
        tc,
        rules: &cfg.rules,
        date: &crate::date::ggf_now(),
    };
    let text = ggf(
        &h,
        &rec.start,
        &rec.moves,
        &rec.times,
        &rec.evals,
        Some((rec.score, flag)),
    );
    let ggf_path = out.join(format!("game-{:06}.ggf", rec.number));
    crate::fileio::write_bytes_atomic(&ggf_path, (text + "\n").as_bytes())
        .map_err(|e| MatchError::io("write", &ggf_path, e))?;
    let path = out.join("games.txt");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| MatchError::io("open", &path, e))?;
    // One write: a match killed now leaves at most one partial line.
    f.write_all(format!("{}\n", rec.line(&cfg.rules)).as_bytes())
        .map_err(|e| MatchError::io("write", &path, e))
}

/// Results of pair `(a, b)` from `a`'s side, over `games`.
fn tally(games: &[&GameRecord], a: &str) -> Wld {
    let mut w = Wld::default();
    for g in games {
        let a_black = g.black == a;
        match (g.outcome, a_black) {
            (Outcome::Draw, _) => w.draws += 1,
            (Outcome::BlackWins, true) | (Outcome::WhiteWins, false) => w.wins += 1,
            _ => w.losses += 1,
        }
    }
    w
}

fn worker(
    cfg: &MatchConfig,
    referee: &Referee,
    jobs: &crossbeam_channel::Receiver<Job>,
    results: &crossbeam_channel::Sender<(usize, GameRecord)>,
    stop: &AtomicBool,
    id: usize,
) {
    let mut clients: Vec<Option<Box<dyn Client>>> = cfg.engines.iter().map(|_| None).collect();
    while let Ok(job) = jobs.recv() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut failed = None;
        for (c, &e) in [job.black, job.white].iter().enumerate() {
            if clients[e].as_mut().is_some_and(|x| x.is_dead()) {
                log::info!("restarting {}", cfg.engines[e].name);
                clients[e] = None;
            }
            if clients[e].is_none() {
                let label = format!("{}#{id}", cfg.engines[e].name);
                match connect(&cfg.engines[e], &cfg.rules, &label) {
                    Ok(x) => clients[e] = Some(x),
                    Err(f) => {
                        failed.get_or_insert((c, e, f));
                    }
                }
            }
        }
        let rec = if let Some((c, e, f)) = failed {
            let loser_black = c == 0;
            GameRecord {
                number: job.spec.number,
                black: cfg.engines[job.black].name.clone(),
                white: cfg.engines[job.white].name.clone(),
                opening: job.spec.opening,
                start: job.spec.start,
                moves: job.spec.opening_moves.clone(),
                times: vec![0.0; job.spec.opening_moves.len()],
                evals: vec![None; job.spec.opening_moves.len()],
                outcome: if loser_black {
                    Outcome::WhiteWins
                } else {
                    Outcome::BlackWins
                },
                score: if loser_black { -64 } else { 64 },
                end: Termination::Crash,
                reason: format!("{} could not be (re)started: {f}", cfg.engines[e].name),
            }
        } else {
            let mut b = clients[job.black].take().expect("connected");
            let mut w = clients[job.white].take().expect("connected");
            let rec = play_game(
                referee,
                &job.spec,
                [
                    Side {
                        name: &cfg.engines[job.black].name,
                        client: b.as_mut(),
                        limit: cfg.engines[job.black].limit,
                    },
                    Side {
                        name: &cfg.engines[job.white].name,
                        client: w.as_mut(),
                        limit: cfg.engines[job.white].limit,
                    },
                ],
            );
            clients[job.black] = Some(b);
            clients[job.white] = Some(w);
            rec
        };
        if results.send((job.pair, rec)).is_err() {
            break;
        }
    }
    for c in clients.iter_mut().flatten() {
        c.quit();
    }
}

/// Plays the match. `progress` receives one line per event (game started
/// engines, finished games, running score), for stderr.
///
/// # Errors
/// Fewer than two engines, duplicate names, an engine that cannot be
/// started at all, an `--out` folder that cannot be written or that holds
/// another match.
pub fn run_match(
    cfg: &MatchConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<MatchReport, MatchError> {
    if cfg.engines.len() < 2 {
        return Err(MatchError::TooFewEngines);
    }
    for (i, e) in cfg.engines.iter().enumerate() {
        if cfg.engines[..i].iter().any(|x| x.name == e.name) {
            return Err(MatchError::SameName(e.name.clone()));
        }
    }
    // Protocols detected once here are fixed for every restart.
    let mut cfg = cfg.clone();
    // Held until the match returns: one match at a time writes `--out`.
    let _lock = match &cfg.out {
        Some(out) => {
            std::fs::create_dir_all(out).map_err(|e| MatchError::io("create", out, e))?;
            Some(OutLock::take(out, progress)?)
        }
        None => None,
    };
    let (pairs, jobs) = schedule(&cfg);
    let mut done = saved_games(&cfg, &jobs, progress)?;
    let resumed = done.len();
    let todo: Vec<Job> = jobs
        .iter()
        .filter(|j| !done.contains_key(&j.spec.number))
        .cloned()
        .collect();
    if resumed > 0 {
        progress(&format!(
            "Resuming: {resumed} games already in --out, {} to play",
            todo.len()
        ));
    }
    // Check every engine starts before spawning the workers.
    if !todo.is_empty() {
        probe_engines(&mut cfg, progress)?;
    }
    let referee = Referee {
        rules: cfg.rules,
        margin: cfg.margin,
        hang: cfg.hang,
    };
    let verdict_of = |done: &BTreeMap<usize, (usize, GameRecord)>| {
        cfg.sprt.map(|s| {
            let g: Vec<&GameRecord> = done.values().filter(|x| x.0 == 0).map(|x| &x.1).collect();
            s.verdict(&tally(&g, &cfg.engines[pairs[0].0].name))
        })
    };
    let stop = AtomicBool::new(matches!(verdict_of(&done), Some(Verdict::H0 | Verdict::H1)));
    let total = jobs.len();
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    // A rendezvous: a worker hands its game over only when the referee
    // takes it, so no worker runs more than one game ahead of the SPRT's
    // verdict (on a loaded machine an unbounded queue let the workers play
    // a dozen games past it).
    let (res_tx, res_rx) = crossbeam_channel::bounded(0);
    for j in todo.iter().cloned() {
        let _ = job_tx.send(j);
    }
    drop(job_tx);
    let workers = cfg.concurrency.clamp(1, todo.len().max(1));
    let stop = Arc::new(stop);
    std::thread::scope(|scope| -> Result<(), MatchError> {
        let cfg = &cfg;
        for id in 0..workers {
            let (cfg, referee, job_rx, res_tx, stop) =
                (cfg, &referee, &job_rx, res_tx.clone(), &stop);
            scope.spawn(move || worker(cfg, referee, job_rx, &res_tx, stop, id + 1));
        }
        drop(res_tx);
        let mut error = None;
        for (pair, rec) in res_rx.iter() {
            if let Err(e) = save(cfg, &rec, cfg.engines[jobs[rec.number - 1].black].limit.tc) {
                error.get_or_insert(e);
                stop.store(true, Ordering::Relaxed);
            }
            let finished = format!(
                "Finished game {} ({} vs {}): {} {{{}}}",
                rec.number,
                rec.black,
                rec.white,
                rec.outcome,
                describe(&rec)
            );
            done.insert(rec.number, (pair, rec));
            let score = score_line(cfg, &done, pairs[pair], pair, total);
            progress(&format!("{finished}\n{score}"));
            if let Some(Verdict::H0 | Verdict::H1) = verdict_of(&done)
                && !stop.swap(true, Ordering::Relaxed)
            {
                progress("SPRT test finished: stopping after the games in progress");
            }
        }
        error.map_or(Ok(()), Err)
    })?;
    Ok(MatchReport {
        pairs: pair_results(&cfg, &pairs, &done),
        games: done.values().map(|x| x.1.clone()).collect(),
        verdict: verdict_of(&done),
        resumed,
    })
}

/// The games already in `--out` (checked against this match's settings),
/// by number, each with its pair.
fn saved_games(
    cfg: &MatchConfig,
    jobs: &[Job],
    progress: &mut dyn FnMut(&str),
) -> Result<BTreeMap<usize, (usize, GameRecord)>, MatchError> {
    let slots: Vec<Slot<'_>> = jobs
        .iter()
        .map(|j| Slot {
            black: &cfg.engines[j.black].name,
            white: &cfg.engines[j.white].name,
            opening: j.spec.opening,
        })
        .collect();
    let saved = load_saved(cfg, &slots, progress)?;
    Ok(saved
        .into_values()
        .map(|r| (r.number, (jobs[r.number - 1].pair, r)))
        .collect())
}

/// Each pair's result, from the games played.
fn pair_results(
    cfg: &MatchConfig,
    pairs: &[(usize, usize)],
    done: &BTreeMap<usize, (usize, GameRecord)>,
) -> Vec<PairResult> {
    pairs
        .iter()
        .enumerate()
        .map(|(p, &(a, b))| {
            let g: Vec<&GameRecord> = done.values().filter(|x| x.0 == p).map(|x| &x.1).collect();
            PairResult {
                a: cfg.engines[a].name.clone(),
                b: cfg.engines[b].name.clone(),
                wld: tally(&g, &cfg.engines[a].name),
            }
        })
        .collect()
}

/// Starts each engine once (handshake, protocol detection) before the
/// workers do, fixing the detected protocol for every restart.
fn probe_engines(cfg: &mut MatchConfig, progress: &mut dyn FnMut(&str)) -> Result<(), MatchError> {
    let rules = cfg.rules;
    for e in &mut cfg.engines {
        let mut c = connect(e, &rules, &e.name).map_err(|failure| MatchError::Engine {
            name: e.name.clone(),
            failure,
        })?;
        e.protocol = Some(c.protocol());
        progress(&format!(
            "Engine {}: {} ({}){}",
            e.name,
            e.command,
            c.protocol(),
            c.engine_name()
                .map(|n| format!(", id '{n}'"))
                .unwrap_or_default()
        ));
        c.quit();
    }
    Ok(())
}

/// The running score of pair `pair` (engines `a`, `b`) for the progress
/// report.
fn score_line(
    cfg: &MatchConfig,
    done: &BTreeMap<usize, (usize, GameRecord)>,
    (a, b): (usize, usize),
    pair: usize,
    total: usize,
) -> String {
    let g: Vec<&GameRecord> = done
        .values()
        .filter(|x| x.0 == pair)
        .map(|x| &x.1)
        .collect();
    let w = tally(&g, &cfg.engines[a].name);
    format!(
        "Score of {} vs {}: {} - {} - {} [{:.3}] {} ({} of {total} games done)",
        cfg.engines[a].name,
        cfg.engines[b].name,
        w.wins,
        w.losses,
        w.draws,
        w.score(),
        w.games(),
        done.len()
    )
}

/// A short description of how a game ended, cutechess-style.
pub fn describe(rec: &GameRecord) -> String {
    match rec.end {
        Termination::Normal => match rec.outcome {
            Outcome::Draw => "Draw".into(),
            Outcome::BlackWins => format!("X wins by {}", rec.score),
            Outcome::WhiteWins => format!("O wins by {}", -rec.score),
        },
        _ => format!("{}: {}", rec.end.as_str(), rec.reason),
    }
}
