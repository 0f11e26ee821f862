//! The crate's error type: what can fail while configuring or starting the fake server.
//!
//! Errors the fake server *answers with* (400s, 429s, ...) are not Rust errors; they are wire
//! responses built in `api_error`.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong outside a request: reading scripts and recordings, binding
/// the socket, writing capture files. Messages are lowercase and name what failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FakeError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A script line is not a valid reply.
    #[error("script line {line}: {reason}")]
    Script {
        /// 1-based line number in the script text.
        line: usize,
        /// What was wrong with it.
        reason: String,
    },
    /// A recording could not be turned into responses.
    #[error("recording {name}: {reason}")]
    Recording {
        /// The file name, or `<bytes>` for an in-memory recording.
        name: String,
        /// What was wrong with it.
        reason: String,
    },
    /// The listening socket or the server's runtime could not be set up.
    #[error("cannot start the fake server on {addr}: {source}")]
    Start {
        /// The address it tried to bind.
        addr: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A command-line value was not understood.
    #[error("unknown {what} '{value}' (expected one of: {expected})")]
    BadValue {
        /// What kind of value it was (tokenizer, dialect).
        what: &'static str,
        /// What was given.
        value: String,
        /// The accepted values.
        expected: &'static str,
    },
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, FakeError>;

/// Gives an `io::Error` the path it happened on.
pub(crate) trait IoResultExt<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoResultExt<T> for io::Result<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|source| FakeError::Io {
            path: path.into(),
            source,
        })
    }
}
