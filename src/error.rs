//! The one error type of the core. Every message quotes the input that caused it, so a user reading
//! it (from Python, the CLI or UCI) knows exactly what to fix.

use thiserror::Error;

/// Everything the core can reject. Bad input is always reported here, never by a panic.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// The FEN does not describe a legal chess position.
    #[error("invalid FEN '{fen}': {reason}")]
    InvalidFen { fen: String, reason: String },

    /// A move is not in UCI notation.
    #[error("invalid move '{uci}': not a move in UCI notation (like e2e4 or e7e8q)")]
    InvalidMove { uci: String },

    /// A move is well formed but not legal in the position it is played in.
    #[error("illegal move '{uci}' in position '{fen}'")]
    IllegalMove { uci: String, fen: String },

    /// A search limit or engine option is out of range.
    #[error("invalid {name} {value}: {reason}")]
    InvalidArgument {
        name: &'static str,
        value: String,
        reason: String,
    },

    /// A file or directory could not be opened or read.
    #[error("cannot read '{path}': {message}")]
    File { path: String, message: String },

    /// A Polyglot book file is malformed.
    #[error("invalid opening book '{path}': {reason}")]
    InvalidBook { path: String, reason: String },

    /// A network file (NNUE) is malformed: wrong format, size or hash.
    #[error("invalid network file '{path}': {reason}")]
    InvalidNetwork { path: String, reason: String },

    /// A tablebase file could not be read or is corrupt.
    #[error("tablebase error: {message}")]
    Tablebase { message: String },

    /// The transposition table could not be allocated.
    #[error("cannot allocate a {megabytes} MB transposition table: out of memory")]
    OutOfMemory { megabytes: usize },
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn argument(name: &'static str, value: impl ToString, reason: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name,
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}

/// `value` as a `usize` when it lies in `min..=max`, else an error naming `name`.
pub(crate) fn check_range(
    name: &'static str,
    value: i64,
    min: usize,
    max: usize,
) -> Result<usize, Error> {
    match usize::try_from(value) {
        Ok(value) if (min..=max).contains(&value) => Ok(value),
        _ => Err(Error::argument(
            name,
            value,
            format!("must be between {min} and {max}"),
        )),
    }
}
