//! Resuming a match saved with `--out DIR`.
//!
//! * `DIR/match.txt` records, as `key=value` lines, every setting that
//!   shapes the games: the engines (command, protocol, options, limits),
//!   the rules, the openings (count and fingerprint), the seed, the
//!   referee's margins, and the games per pair. A resumed match must
//!   have the same ones: the refusal names each field that differs, with
//!   the old and new values. Only `games` may grow or shrink in a match
//!   of two engines (numbering does not depend on it there).
//! * `DIR/games.txt` lines that cannot be read (a partial last line left
//!   by a match killed while writing) are taken out of it once, kept in
//!   `DIR/games-dropped.txt`, said on stderr, and their games replayed.

use super::MatchConfig;
use super::MatchError;
use crate::fileio;
use crate::record::game_record::GameRecord;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The settings file in `--out`.
pub const SETTINGS_FILE: &str = "match.txt";

/// Largest `games.txt` (and `games-dropped.txt`) read: 1 GiB, two million
/// games of a few hundred bytes.
pub const MAX_GAMES_BYTES: u64 = 1 << 30;

/// Largest `match.txt` read.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// A job of the schedule as far as resuming needs it: its number, and the
/// names and opening that a saved line must match.
pub struct Slot<'a> {
    /// Name of X.
    pub black: &'a str,
    /// Name of O.
    pub white: &'a str,
    /// The opening's line.
    pub opening: Option<usize>,
}

fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// The settings of `cfg` that shape its games, in file order.
pub fn settings(cfg: &MatchConfig) -> Vec<(String, String)> {
    let mut s: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| s.push((k.to_string(), v.replace(['\n', '\r'], " ")));
    let names: Vec<&str> = cfg.engines.iter().map(|e| e.name.as_str()).collect();
    put("engines", names.join(", "));
    let none = || "none".to_string();
    for e in &cfg.engines {
        let n = &e.name;
        put(&format!("{n}.command"), e.command.clone());
        let proto = e.protocol.map_or("detect".to_string(), |p| p.to_string());
        put(&format!("{n}.protocol"), proto);
        let opts: Vec<String> = e.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        put(
            &format!("{n}.options"),
            if opts.is_empty() {
                none()
            } else {
                opts.join("; ")
            },
        );
        let l = &e.limit;
        put(
            &format!("{n}.depth"),
            l.depth.map_or_else(none, |d| d.to_string()),
        );
        put(
            &format!("{n}.nodes"),
            l.nodes.map_or_else(none, |d| d.to_string()),
        );
        let ms = l.movetime.map(|t| format!("{} ms", t.as_millis()));
        put(&format!("{n}.movetime"), ms.unwrap_or_else(none));
        let tc =
            l.tc.map(|(b, i)| format!("{}+{}", b.as_secs_f64(), i.as_secs_f64()));
        put(&format!("{n}.tc"), tc.unwrap_or_else(none));
    }
    put("rules", cfg.rules.to_string());
    let openings = if cfg.openings.is_empty() {
        "none (start position)".to_string()
    } else {
        let mut h = 0xCBF2_9CE4_8422_2325;
        for o in &cfg.openings {
            let mut text = format!("{} {}{} ", o.line, o.start.board_string(), o.start.side);
            for m in &o.moves {
                let _ = write!(text, "{m}");
            }
            h = fnv1a(text.as_bytes(), h);
            h = fnv1a(b"\n", h);
        }
        format!("{} openings, fingerprint {h:016x}", cfg.openings.len())
    };
    put("openings", openings);
    put("seed", cfg.seed.map_or_else(none, |x| x.to_string()));
    put("games", cfg.games.to_string());
    put("timemargin", format!("{} ms", cfg.margin.as_millis()));
    put("hang", format!("{} s", cfg.hang.as_secs()));
    s
}

fn settings_text(s: &[(String, String)]) -> String {
    let mut t = "# annex match: the settings of the games in games.txt; a resumed match must use the same\n".to_string();
    for (k, v) in s {
        let _ = writeln!(t, "{k}={v}");
    }
    t
}

/// The fields of `old` (a `match.txt`) and `new` that differ, described
/// `key: was 'A', now 'B'`. `games` counts only with more than two
/// engines.
fn differences(old: &str, new: &[(String, String)], engines: usize) -> Vec<String> {
    let old: BTreeMap<&str, &str> = old
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('='))
        .collect();
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for (k, v) in new {
        seen.push(k.as_str());
        if k == "games" && engines == 2 {
            continue;
        }
        match old.get(k.as_str()) {
            Some(o) if o == v => {}
            Some(o) => out.push(format!("{k}: was '{o}', now '{v}'")),
            None => out.push(format!("{k}: was not set, now '{v}'")),
        }
    }
    for (k, o) in &old {
        if !seen.contains(k) {
            out.push(format!("{k}: was '{o}', now not set"));
        }
    }
    out
}

fn write_atomic(path: &Path, text: &str) -> Result<(), MatchError> {
    fileio::write_bytes_atomic(path, text.as_bytes()).map_err(|e| MatchError::io("write", path, e))
}

/// Reads `path` (a regular file of at most `limit` bytes); `None` when
/// there is none.
fn read_text(path: &Path, limit: u64) -> Result<Option<String>, MatchError> {
    match fileio::read_string_bounded(path, limit) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(MatchError::io("read", path, e)),
    }
}

/// Loads the games saved in `cfg.out` for the schedule `slots` (game `k`
/// is `slots[k - 1]`), after checking the folder holds this match: same
/// settings (`match.txt`), and every saved game where the schedule puts
/// it. Unreadable lines of `games.txt` are moved out of it (said through
/// `progress`). Writes `match.txt`.
///
/// # Errors
/// Other settings (each difference named), a game that does not belong,
/// a file that cannot be read or written.
pub fn load_saved(
    cfg: &MatchConfig,
    slots: &[Slot<'_>],
    progress: &mut dyn FnMut(&str),
) -> Result<BTreeMap<usize, GameRecord>, MatchError> {
    let mut saved = BTreeMap::new();
    let Some(out) = &cfg.out else {
        return Ok(saved);
    };
    let path = out.join("games.txt");
    let text = read_text(&path, MAX_GAMES_BYTES)?.unwrap_or_default();
    let new = settings(cfg);
    let settings_path = out.join(SETTINGS_FILE);
    if !text.trim().is_empty() {
        check_settings(out, &new, cfg.engines.len())?;
    }
    let mut kept = String::new();
    let mut dropped = Vec::new();
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let partial = i + 1 == lines.len() && !complete;
        let rec = match GameRecord::parse_line(line, &cfg.rules) {
            Ok(r) if !partial => r,
            Ok(_) => {
                // It may read, cut inside the moves or the reason: the
                // game is not known whole.
                dropped.push((i + 1, line.to_string(), "no end of line".to_string()));
                continue;
            }
            Err(e) => {
                dropped.push((i + 1, line.to_string(), e.to_string()));
                continue;
            }
        };
        let Some(slot) = rec.number.checked_sub(1).and_then(|k| slots.get(k)) else {
            // Beyond a shortened schedule: kept for a longer one.
            kept += line;
            kept.push('\n');
            continue;
        };
        if rec.black != slot.black || rec.white != slot.white || rec.opening != slot.opening {
            return Err(MatchError::OtherMatch(format!(
                "{} line {} (game {}: {} vs {}, opening {}) does not belong to this match (expected {} vs {}, opening {}); use another --out",
                path.display(),
                i + 1,
                rec.number,
                rec.black,
                rec.white,
                opening_name(rec.opening),
                slot.black,
                slot.white,
                opening_name(slot.opening),
            )));
        }
        kept += line;
        kept.push('\n');
        saved.insert(rec.number, rec);
    }
    if !dropped.is_empty() {
        let side = out.join("games-dropped.txt");
        let mut t = read_text(&side, MAX_GAMES_BYTES)?.unwrap_or_default();
        for (n, line, why) in &dropped {
            progress(&format!(
                "{} line {n}: unreadable ({why}), taken out to {}; its game is played again",
                path.display(),
                side.display()
            ));
            t += line;
            t.push('\n');
        }
        write_atomic(&side, &t)?;
        write_atomic(&path, &kept)?;
    }
    write_atomic(&settings_path, &settings_text(&new))?;
    Ok(saved)
}

/// Compares the settings saved in `out` (if any: folders written before
/// they were saved have none) with `new`.
fn check_settings(out: &Path, new: &[(String, String)], engines: usize) -> Result<(), MatchError> {
    let Some(old) = read_text(&out.join(SETTINGS_FILE), MAX_SETTINGS_BYTES)? else {
        return Ok(());
    };
    let diff = differences(&old, new, engines);
    if diff.is_empty() {
        return Ok(());
    }
    Err(MatchError::OtherMatch(format!(
        "{} holds a match played with other settings ({}); use the same settings or another --out",
        out.display(),
        diff.join("; ")
    )))
}

fn opening_name(o: Option<usize>) -> String {
    o.map_or_else(|| "-".to_string(), |o| o.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_field() {
        let old = "# x\nengines=a, b\na.depth=none\na.movetime=60 ms\nseed=1\ngames=2\n";
        let new: Vec<(String, String)> = [
            ("engines", "a, b"),
            ("a.depth", "2"),
            ("a.movetime", "none"),
            ("seed", "1"),
            ("games", "4"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(
            differences(old, &new, 2),
            [
                "a.depth: was 'none', now '2'",
                "a.movetime: was '60 ms', now 'none'"
            ]
        );
        assert_eq!(differences(old, &new, 3).len(), 3);
    }
}
