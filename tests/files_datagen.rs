//! `annex datagen` files that know whether they are complete: real runs
//! of the binary stopped by real signals, resumed, locked against a second
//! run, merged only when whole, and refused by `train` when cut short.

use crate::util::{Scratch, data_dir};
use annex::datagen::format::{HEADER_SIZE, Header, RECORD_SIZE, read_file, read_file_with};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A generous wait for a run to make progress or end; past it, it hangs.
const HANG: Duration = Duration::from_secs(120);

/// The settings of every run here: small and fast.
const FAST: [&str; 8] = [
    "--depth",
    "2",
    "--solve-empties",
    "8",
    "--progress",
    "0",
    "--openings",
    "random",
];

fn annex() -> Command {
    Command::new(env!("CARGO_BIN_EXE_annex"))
}

/// `annex datagen --out OUT FAST ARGS`, not yet started.
fn datagen_cmd(out: &Path, args: &[&str]) -> Command {
    let mut c = annex();
    c.arg("datagen")
        .arg("--out")
        .arg(out)
        .args(FAST)
        .args(args)
        .arg("--data")
        .arg(data_dir());
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs a command to its end.
fn run(mut c: Command) -> Output {
    c.output().expect("start annex")
}

/// Asserts a failure with one error line containing each of `want`.
fn assert_refused(o: &Output, want: &[&str]) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    for w in want {
        assert!(err.contains(w), "wanted '{w}' in: {err}");
    }
}

/// Starts a long run into `out` and waits until it has written `records`.
fn start_and_wait(out: &Path, games: &str, records: u64) -> Child {
    let mut child = datagen_cmd(out, &["--games", games])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start annex");
    let enough = (HEADER_SIZE as u64) + RECORD_SIZE as u64 * records;
    let t = Instant::now();
    while std::fs::metadata(out).map_or(0, |m| m.len()) < enough {
        assert!(child.try_wait().unwrap().is_none(), "annex ended early");
        if t.elapsed() > HANG {
            let _ = child.kill();
            panic!("no progress");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

/// Sends `signal` (a name of `kill -s`) to `child` and waits for its end.
fn signal(mut child: Child, signal: &str) {
    let st = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(st.success());
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > HANG {
            let _ = child.kill();
            panic!("SIG{signal} did not stop annex");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `annex train` on `files` alone (one short epoch), writing `out`.
fn train(out: &Path, files: &[&Path], extra: &[&str]) -> Output {
    let mut c = annex();
    c.args(["train", "--sources", "", "--epochs", "1", "--threads", "1"])
        .arg("--out")
        .arg(out)
        .arg("--data")
        .arg(data_dir())
        .args(extra)
        .arg("--datagen")
        .args(files);
    run(c)
}

fn merge(out: &Path, inputs: &[&Path], extra: &[&str]) -> Output {
    let mut c = annex();
    c.args(["datagen", "merge"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .args(inputs);
    run(c)
}

#[test]
fn files_datagen_stopped_by_a_signal_is_incomplete_and_refused() {
    let dir = Scratch::new("files-datagen-signals");
    for sig in ["INT", "TERM", "KILL"] {
        let out = dir.join(format!("{sig}.adg"));
        let child = start_and_wait(&out, "100000", 100);
        signal(child, sig);
        // Whole records, but no completeness marker.
        let e = read_file(&out).unwrap_err().to_string();
        assert!(
            e.contains("incomplete") && e.contains("--allow-partial"),
            "{e}"
        );
        let recs = read_file_with(&out, true).unwrap();
        assert!(recs.len() >= 100, "SIG{sig}: {} records", recs.len());
        let h = Header::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
        assert!(!h.complete && h.positions == 0 && h.end == 100_000, "{h:?}");
        // `merge` and `train` refuse it unless told.
        let merged = dir.join(format!("{sig}-merged.adg"));
        let o = merge(&merged, &[&out], &[]);
        assert_refused(&o, &["incomplete", "--allow-partial"]);
        assert!(!merged.exists());
        let eval = dir.join(format!("{sig}.eval"));
        let o = train(&eval, &[&out], &[]);
        assert_refused(&o, &["incomplete", "--allow-partial"]);
        assert!(!eval.exists());
    }
    // Told, `train` reads what the run wrote.
    let eval = dir.join("partial.eval");
    let o = train(&eval, &[&dir.join("KILL.adg")], &["--allow-partial"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(eval.exists());
}

#[test]
fn files_datagen_resumes_an_interrupted_shard_to_the_same_bytes() {
    let dir = Scratch::new("files-datagen-resume");
    // 60 games (under a second here), so that the kill below, a few
    // games in, comes well before the end even on a loaded machine.
    let args = ["--games", "120", "--shard", "1/2", "--seed", "5"];
    let whole = dir.join("whole.adg");
    let o = run(datagen_cmd(&whole, &args));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let want = std::fs::read(&whole).unwrap();
    let h = Header::from_bytes(&want).unwrap();
    assert!(
        h.complete && (h.first, h.end, h.run_games) == (60, 120, 120),
        "{h:?}"
    );
    assert_eq!(
        h.positions as usize,
        (want.len() - HEADER_SIZE) / RECORD_SIZE
    );

    // Killed after a few games, and its last record torn as a crash in
    // the middle of a write leaves it.
    let out = dir.join("resumed.adg");
    let mut child = datagen_cmd(&out, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start annex");
    let enough = (HEADER_SIZE + RECORD_SIZE * 60) as u64;
    while std::fs::metadata(&out).map_or(0, |m| m.len()) < enough {
        assert!(child.try_wait().unwrap().is_none(), "annex ended early");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let len = std::fs::metadata(&out).unwrap().len();
    assert!(len < want.len() as u64, "the run finished before the kill");
    let f = std::fs::OpenOptions::new().write(true).open(&out).unwrap();
    f.set_len(len - 7).unwrap();
    drop(f);

    // The same command again: it resumes and ends with the bytes of an
    // uninterrupted run.
    let o = run(datagen_cmd(&out, &args));
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("resuming"), "{err}");
    assert!(text(&o.stdout).contains("60 games"), "{}", text(&o.stdout));
    assert!(std::fs::read(&out).unwrap() == want, "resumed bytes differ");
    // Once more: complete already, left as it is.
    let o = run(datagen_cmd(&out, &args));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("complete"), "{}", text(&o.stdout));
    assert!(std::fs::read(&out).unwrap() == want);
    // Other settings on that file: refused, the file kept.
    let o = run(datagen_cmd(&out, &["--games", "120", "--shard", "1/2"]));
    assert_refused(&o, &["other settings", "not overwritten"]);
    assert!(std::fs::read(&out).unwrap() == want);
}

#[test]
fn files_datagen_a_second_run_on_one_output_is_refused() {
    let dir = Scratch::new("files-datagen-lock");
    let out = dir.join("locked.adg");
    let first = start_and_wait(&out, "100000", 1);
    // The same run, and another, both stop at once on the lock.
    for seed in ["1", "2"] {
        let o = run(datagen_cmd(&out, &["--games", "100000", "--seed", seed]));
        assert_refused(&o, &["locked"]);
    }
    signal(first, "KILL");
    // The lock goes with the process, however it ends.
    let o = run(datagen_cmd(&out, &["--games", "100000", "--seed", "2"]));
    assert_refused(&o, &["other settings"]);
}

/// Shards `0/3`, `1/3` and `2/3` of a 9-game run with `seed`.
fn shards(dir: &Path, seed: &str) -> Vec<PathBuf> {
    (0..3)
        .map(|i| {
            let p = dir.join(format!("s{seed}-{i}.adg"));
            let shard = format!("{i}/3");
            let o = run(datagen_cmd(
                &p,
                &["--games", "9", "--seed", seed, "--shard", &shard],
            ));
            assert!(o.status.success(), "{}", text(&o.stderr));
            p
        })
        .collect()
}

/// The temporary files left in `dir` (none after any merge).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect()
}

#[test]
fn files_datagen_merge_takes_whole_shards_of_one_run_and_writes_atomically() {
    let dir = Scratch::new("files-datagen-merge");
    let s = shards(&dir, "4");
    let out = dir.join("merged.adg");
    std::fs::write(&out, b"old").unwrap();
    // An interrupted shard: what a run leaves before its marker.
    let cut = dir.join("cut.adg");
    let mut bytes = std::fs::read(&s[1]).unwrap();
    let mut h = Header::from_bytes(&bytes).unwrap();
    h.complete = false;
    h.positions = 0;
    bytes[..HEADER_SIZE].copy_from_slice(&h.to_bytes());
    std::fs::write(&cut, &bytes).unwrap();
    let o = merge(&out, &[&s[0], &cut, &s[2]], &[]);
    assert_refused(&o, &["cut.adg", "incomplete", "--allow-partial"]);
    // A shard left out.
    let o = merge(&out, &[&s[0], &s[2]], &[]);
    assert_refused(&o, &["games 3..6", "--allow-partial"]);
    // A shard of another run.
    let other = shards(&dir, "5");
    let o = merge(&out, &[&s[0], &other[1], &s[2]], &[]);
    assert_refused(&o, &["not of the same run"]);
    // A shard damaged after its first records: the merge fails half-way
    // and the output is left as it was.
    let bad = dir.join("bad.adg");
    let mut b = std::fs::read(&s[2]).unwrap();
    let at = HEADER_SIZE + RECORD_SIZE * 3;
    b[at..at + 16].copy_from_slice(&[0xff; 16]);
    std::fs::write(&bad, &b).unwrap();
    let o = merge(&out, &[&s[0], &s[1], &bad], &[]);
    assert_refused(&o, &["bad.adg", "record 3"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    // Told, merge takes the partial shard; the result says it is partial.
    let o = merge(&out, &[&s[0], &cut, &s[2]], &["--allow-partial"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("incomplete"),
        "{}",
        text(&o.stdout)
    );
    let e = read_file(&out).unwrap_err().to_string();
    assert!(e.contains("incomplete"), "{e}");
    // Whole shards: a complete file of the whole run.
    let o = merge(&out, &[&s[2], &s[0], &s[1]], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let h = Header::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert!(h.complete && (h.first, h.end) == (0, 9), "{h:?}");
    let n: usize = s.iter().map(|p| read_file(p).unwrap().len()).sum();
    assert_eq!(read_file(&out).unwrap().len(), n);
}

#[test]
fn files_datagen_old_format_is_read_only_as_partial() {
    let dir = Scratch::new("files-datagen-v1");
    let s = dir.join("new.adg");
    let o = run(datagen_cmd(&s, &["--games", "2"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The same records behind the 16-byte header of format version 1.
    let bytes = std::fs::read(&s).unwrap();
    let mut v1 = bytes[..16].to_vec();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    v1.extend_from_slice(&bytes[HEADER_SIZE..]);
    let old = dir.join("old.adg");
    std::fs::write(&old, &v1).unwrap();
    let eval = dir.join("x.eval");
    let o = train(&eval, &[&old], &[]);
    assert_refused(&o, &["old.adg", "version 1", "--allow-partial"]);
    assert_eq!(read_file_with(&old, true).unwrap(), read_file(&s).unwrap());
}
