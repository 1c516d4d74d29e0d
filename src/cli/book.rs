//! `annex book build` and `annex book show`.

use crate::book::build::{BuildOptions, Builder};
use crate::book::{Book, BookError};
use crate::cli::{ToolError, ToolResult, args, print_line};
use crate::position::{ParsePositionError, Position};
use crate::record::gamedb::{GameDbError, parse_wthor};
use crate::rules::RuleSet;
use std::path::{Path, PathBuf};

/// Why `annex book build` or `annex book show` failed.
#[derive(Debug, thiserror::Error)]
pub enum BookCliError {
    /// A game file that cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A game file that is not a WTHOR file.
    #[error("{}: {source}", path.display())]
    Wthor {
        /// The file.
        path: PathBuf,
        /// Why.
        source: GameDbError,
    },
    /// The book cannot be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A book file that cannot be loaded.
    #[error("{0}")]
    Book(BookError),
    /// A bad transcript.
    #[error(transparent)]
    Transcript(#[from] ParsePositionError),
}

/// The largest book file `book show --file` reads: 256 MiB (the shipped
/// book is 1.3 MB).
pub const MAX_BOOK_BYTES: u64 = 256 << 20;

/// The first line of `annex book show`'s list.
pub const SHOW_HEADER: &str = "move score games";

/// Builds a book from WTHOR files and writes it to `out` (whole or not at
/// all). Each game's
/// outcome is its theoretical score when the file has one, else its
/// final score. Returns a one-line summary.
///
/// # Errors
/// Unreadable or malformed input files, or an unwritable output.
pub fn build(files: &[PathBuf], opt: BuildOptions, out: &Path) -> Result<String, BookCliError> {
    let mut b = Builder::new(opt);
    for f in files {
        let bytes = crate::fileio::read_bounded(f, crate::record::gamedb::MAX_WTHOR_BYTES)
            .map_err(|source| BookCliError::Read {
                path: f.clone(),
                source,
            })?;
        let w = parse_wthor(&bytes).map_err(|source| BookCliError::Wthor {
            path: f.clone(),
            source,
        })?;
        for g in &w.games {
            let black = match (w.theoretical_depth, g.theoretical, g.black_discs) {
                (d, Some(t), _) if d > 0 => t,
                (_, _, Some(b)) => b,
                _ => continue,
            };
            b.add_game(&g.moves, 2 * black as i32 - 64);
        }
        log::info!("{}: {} games", f.display(), w.games.len());
    }
    let book = b.finish();
    crate::fileio::write_bytes_atomic(out, &book.to_bytes()).map_err(|source| {
        BookCliError::Write {
            path: out.to_path_buf(),
            source,
        }
    })?;
    let (games, rejected) = b.counts();
    Ok(format!(
        "book: {} positions from {games} games ({rejected} rejected), {} plies, min {} games -> {}",
        book.len(),
        opt.plies,
        opt.min_games,
        out.display()
    ))
}

/// The book moves after `moves` from the start, one line each
/// (`<move> <score> <games>`) under the header line [`SHOW_HEADER`], from
/// `file` or the embedded book; a move that is a book move by symmetry is
/// listed too, with the same figures.
///
/// # Errors
/// A bad transcript or book file.
pub fn show(file: Option<&Path>, moves: &str) -> Result<String, BookCliError> {
    let book = match file {
        Some(f) => {
            let bytes = crate::fileio::read_bounded(f, MAX_BOOK_BYTES).map_err(|source| {
                BookCliError::Read {
                    path: f.to_path_buf(),
                    source,
                }
            })?;
            Book::from_bytes(&bytes)
                .map_err(|e| BookCliError::Book(BookError::Io(format!("{}: {e}", f.display()))))?
        }
        None => Book::default_book(),
    };
    let r = RuleSet::default();
    let pos = Position::from_transcript(moves, &r)?;
    let lines = book.lookup_all(&pos.board);
    if lines.is_empty() {
        return Ok("(not in book)".into());
    }
    Ok(std::iter::once(SHOW_HEADER.to_string())
        .chain(
            lines
                .iter()
                .map(|c| format!("{} {:+} {}", c.mv, c.score, c.games)),
        )
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Subcommands of `annex book`.
#[derive(clap::Subcommand)]
pub enum BookCommand {
    /// Build a book from WTHOR game files.
    Build {
        /// Output file (required, so that the shipped `book/annex.book` is
        /// replaced only on purpose; written whole or not at all).
        #[arg(long)]
        out: PathBuf,
        /// Plies of each game taken into the book (1-60).
        #[arg(long, default_value_t = 20, value_parser = args::book_plies())]
        plies: usize,
        /// Games a move needs to enter the book (at least 1).
        #[arg(long, default_value_t = 4, value_parser = args::positive_u32())]
        min_games: u32,
        /// WTHOR files (.wtb), regular files of at most 64 MiB each.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Show the book moves after a transcript.
    Show {
        /// Book file (default: the embedded book), a regular file of at
        /// most 256 MiB.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Moves from the start position.
        #[arg(default_value = "")]
        moves: String,
    },
}

/// Runs `annex book build` or `annex book show` and prints the result on
/// stdout.
///
/// # Errors
/// As [`build`] and [`show`].
pub fn run(c: &BookCommand) -> ToolResult {
    match c {
        BookCommand::Build {
            out,
            plies,
            min_games,
            files,
        } => build(
            files,
            BuildOptions {
                plies: *plies,
                min_games: *min_games,
            },
            out,
        )
        .map_err(ToolError::from)
        .and_then(|s| print_line(&s)),
        BookCommand::Show { file, moves } => show(file.as_deref(), moves)
            .map_err(ToolError::from)
            .and_then(|s| print_line(&s)),
    }
}
