//! `annex train` and `annex book build` write their output whole or not
//! at all, and only where told: `--out` is required, and a write that
//! fails half-way (here: the file size limit of `ulimit -f`, which fails
//! a write as a full disk does) leaves the old file as it was.

use crate::util::{Scratch, data_dir, data_file};
use std::path::Path;
use std::process::{Command, Output};

fn annex() -> Command {
    Command::new(env!("CARGO_BIN_EXE_annex"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `annex ARGS` under `sh` with files limited to `blocks` blocks of
/// `ulimit -f` (512 or 1024 bytes) and the signal of an oversized write
/// ignored, so that the write fails with an error (EFBIG) instead.
fn limited(blocks: u32, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {blocks} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_annex"))
        .args(args)
        .output()
        .expect("run sh")
}

/// The files of `dir` whose names say they are temporary.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect()
}

/// A small self-play file to train on.
fn small_adg(dir: &Path) -> String {
    let p = dir.join("small.adg");
    let o = annex()
        .args(["datagen", "--games", "3", "--depth", "2", "--solve-empties"])
        .args(["8", "--progress", "0", "--openings", "random", "--out"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    p.to_str().unwrap().to_string()
}

#[test]
fn files_train_and_book_build_require_out() {
    let dir = Scratch::new("files-write-out");
    let adg = small_adg(&dir);
    let data = data_dir();
    let data = data.to_str().unwrap();
    let wtb = data_file("wthor/WTH_1995.wtb");
    let wtb = wtb.to_str().unwrap();
    let cases: [&[&str]; 2] = [
        &["train", "--sources", "", "--datagen", &adg, "--data", data],
        &["book", "build", wtb],
    ];
    for args in cases {
        let o = annex().current_dir(&*dir).args(args).output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--out"), "{args:?}: {err}");
    }
    // Nothing was written anywhere in the folder but the data file.
    let names: Vec<_> = std::fs::read_dir(&*dir).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn files_train_output_is_whole_or_not_at_all() {
    let dir = Scratch::new("files-write-train");
    let adg = small_adg(&dir);
    let out = dir.join("w.eval");
    std::fs::write(&out, b"the old weights").unwrap();
    let data = data_dir();
    let args = [
        "train",
        "--sources",
        "",
        "--epochs",
        "1",
        "--threads",
        "1",
        "--datagen",
        &adg,
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    // The weights (3.6 MB) do not fit under 1 MiB.
    let o = limited(1024, &args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot write") && err.contains("w.eval"),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"the old weights");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
    // Unlimited, the weights replace the file.
    let o = annex().args(args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let w = annex::eval::Weights::from_bytes(&std::fs::read(&out).unwrap());
    assert!(w.is_ok(), "{w:?}");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
}

#[test]
fn files_book_build_output_is_whole_or_not_at_all() {
    let dir = Scratch::new("files-write-book");
    let out = dir.join("b.book");
    std::fs::write(&out, b"the old book").unwrap();
    let wtb = data_file("wthor/WTH_1995.wtb");
    let args = [
        "book",
        "build",
        "--plies",
        "8",
        "--min-games",
        "1",
        "--out",
        out.to_str().unwrap(),
        wtb.to_str().unwrap(),
    ];
    // Unlimited first, for the size of the book.
    let o = annex().args(args).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let book = std::fs::read(&out).unwrap();
    assert!(annex::book::Book::from_bytes(&book).is_ok());
    assert!(book.len() > 16 << 10, "{} bytes", book.len());
    std::fs::write(&out, b"the old book").unwrap();
    // Under 8 KiB of file size, the write fails half-way.
    let o = limited(8, &args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("b.book"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the old book");
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
}
