//! The lock on an `--out` folder: one match at a time writes it.
//!
//! `DIR/match.lock` is locked (`flock`, through [`std::fs::File::try_lock`])
//! for as long as the match runs, and holds `pid N` of the match holding
//! it. The operating system releases the lock when the process ends,
//! however it ends, so a lock is never left behind; the file stays. A
//! match that ends normally empties it: a pid found in an unlocked file
//! names a match that was killed, and the next one says it takes over.
//! A second match on a locked folder is refused at once, naming the pid.

use super::MatchError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock file in `--out`.
pub const LOCK_FILE: &str = "match.lock";

/// Longest lock file read, in bytes (it holds one short line).
const MAX_LOCK_BYTES: u64 = 256;

/// The lock held on an `--out` folder; released when dropped.
#[derive(Debug)]
pub struct OutLock {
    file: File,
}

/// The `pid N` text of a lock file, trimmed (empty when released).
fn holder(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.seek(SeekFrom::Start(0));
    let _ = Read::by_ref(file)
        .take(MAX_LOCK_BYTES)
        .read_to_string(&mut text);
    text.trim().to_string()
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> MatchError {
    let path: PathBuf = path.to_path_buf();
    move |e| MatchError::io(action, &path, e)
}

impl OutLock {
    /// Locks `dir` for this process; `progress` hears of a lock taken over
    /// from a match that was killed.
    ///
    /// # Errors
    /// [`MatchError::InUse`] when another match holds the folder; the lock
    /// file cannot be opened, locked or written.
    pub fn take(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<OutLock, MatchError> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error("open", &path))?;
        if !file.metadata().map_err(io_error("open", &path))?.is_file() {
            return Err(MatchError::io(
                "lock",
                &path,
                std::io::Error::other("not a regular file"),
            ));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let who = holder(&mut file);
                let who = if who.is_empty() {
                    "another process".to_string()
                } else {
                    format!(
                        "another annex match ({})",
                        crate::protocol::quote_token(&who)
                    )
                };
                return Err(MatchError::InUse(format!(
                    "{} is in use by {who}; wait for it to end or use another --out",
                    dir.display()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(MatchError::io("lock", &path, e)),
        }
        let old = holder(&mut file);
        if !old.is_empty() {
            progress(&format!(
                "{}: taking over from {} (ended without releasing it)",
                path.display(),
                crate::protocol::quote_token(&old)
            ));
        }
        file.set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "pid {}", std::process::id()))
            .and_then(|_| file.sync_all())
            .map_err(io_error("write", &path))?;
        Ok(OutLock { file })
    }
}

impl Drop for OutLock {
    /// Empties the file (a clean end), then the lock goes with the file.
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time() {
        let d = std::env::temp_dir().join(format!("annex-lock-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let mut notes = Vec::new();
        let a = OutLock::take(&d, &mut |l| notes.push(l.to_string())).unwrap();
        let text = std::fs::read_to_string(d.join(LOCK_FILE)).unwrap();
        assert_eq!(text, format!("pid {}\n", std::process::id()));
        // flock locks are per open file: a second open in this process is
        // refused like another process.
        let e = OutLock::take(&d, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains("is in use by another annex match (pid "), "{e}");
        drop(a);
        assert_eq!(std::fs::read_to_string(d.join(LOCK_FILE)).unwrap(), "");
        std::fs::write(d.join(LOCK_FILE), "pid 4000000\n").unwrap();
        let _b = OutLock::take(&d, &mut |l| notes.push(l.to_string())).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("taking over from pid 4000000"),
            "{notes:?}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
