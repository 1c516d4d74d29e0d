//! Files met as hostile input and files written whole.
//!
//! Every reader of a user-named file goes through [`open_regular`] (or the
//! helpers on top of it): the path must name a regular file (not a FIFO,
//! a device such as `/dev/zero`, or a folder) of at most a stated size, so
//! that a read neither blocks for ever nor grows without bound. Every
//! writer of a result file goes through [`write_atomic`]: the bytes go to a
//! temporary file beside the target, are flushed to the disk, and only then
//! take the target's name, so a reader never sees a half-written file (a
//! full disk or a kill leaves the old file, or none, and a stray temporary
//! file whose name says what it is).

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The largest text file a tool reads whole by default (game lists,
/// position suites, opening lists): 256 MiB.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// Opens `path` for reading after checking that it names a regular file
/// of at most `limit` bytes.
///
/// The kind is checked before the open, so a FIFO is refused without
/// blocking; the size is checked again on the open file.
///
/// # Errors
/// A file that cannot be opened, that is not a regular file, or that is
/// larger than `limit` bytes (the message names the path and the limit).
pub fn open_regular(path: &Path, limit: u64) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    check_kind(path, &meta)?;
    let file = File::open(path)?;
    let meta = file.metadata()?;
    check_kind(path, &meta)?;
    if meta.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is {} bytes, over the limit of {} bytes",
                path.display(),
                meta.len(),
                limit
            ),
        ));
    }
    Ok(file)
}

fn check_kind(path: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let kind = if meta.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {kind}", path.display()),
    ))
}

/// Reads the whole of `path`, a regular file of at most `limit` bytes.
/// The read itself stops past `limit`, should the file grow meanwhile.
///
/// # Errors
/// As [`open_regular`], and read errors.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path, limit)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} grew past the limit of {limit} bytes while read",
                path.display()
            ),
        ));
    }
    Ok(bytes)
}

/// Reads the whole of `path` as UTF-8 text, a regular file of at most
/// `limit` bytes.
///
/// # Errors
/// As [`read_bounded`], and text that is not UTF-8.
pub fn read_string_bounded(path: &Path, limit: u64) -> io::Result<String> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

/// The temporary file that [`write_atomic`] writes before renaming it to
/// `path`: `.<name>.tmp-<pid>` in the same folder (so the rename stays on
/// one file system).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `path` whole or not at all: `write` fills a temporary file
/// beside it ([`temp_path`]), which is flushed, synced and renamed over
/// `path`. On any error the temporary file is removed and `path` is left
/// as it was.
///
/// # Errors
/// The first error of `write`, the flush, the sync or the rename.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut w = BufWriter::new(File::create(&tmp)?);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// [`write_atomic`] of a byte string.
///
/// # Errors
/// As [`write_atomic`].
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("annex-fileio-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn devices_folders_and_large_files_are_refused() {
        let d = scratch("refuse");
        assert!(read_bounded(Path::new("/dev/zero"), 1 << 20).is_err());
        assert!(read_bounded(&d, 1 << 20).is_err());
        let f = d.join("f.txt");
        std::fs::write(&f, "12345").unwrap();
        assert_eq!(read_bounded(&f, 5).unwrap(), b"12345");
        let e = read_bounded(&f, 4).unwrap_err();
        assert!(e.to_string().contains("over the limit"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let d = scratch("atomic");
        let f = d.join("out.bin");
        write_bytes_atomic(&f, b"old").unwrap();
        let r = write_atomic(&f, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        assert!(!temp_path(&f).exists());
        write_bytes_atomic(&f, b"new").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        let _ = std::fs::remove_dir_all(&d);
    }
}
